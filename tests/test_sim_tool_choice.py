"""A request's ``tool_choice`` decides what the simulated model may call, as it decides
what the real one may: ``none`` offers it no tool, a named tool only that one. The
behaviour was offered every tool whatever the choice, so one that calls the first tool
offered (the research policy, a test's own) called a tool the request forbade, or
another than the one it forced (pydantic-ai's and Instructor's output tools, LangChain's
``with_structured_output``)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import httpx2
import pytest

from replaygate.http.routes import simulator_refusal
from replaygate.models.types import Message, ModelResponse, ToolCall, ToolSpec
from replaygate.sim import Simulator
from sdks import anthropic, openai


class CallsTheFirstTool:
    """Calls the first tool offered, if any; else says which tools it saw (none)."""

    def respond(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        if not tools:
            return ModelResponse(text="no tools")
        call = ToolCall(id="call_1", name=tools[0].name, arguments={"seen": len(tools)})
        return ModelResponse(tool_calls=(call,), stop_reason="tool_use")


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    with Simulator(behavior=CallsTheFirstTool()) as running:
        yield running


def _schema() -> dict[str, Any]:
    return {"type": "object", "properties": {}}


def _anthropic(sim: Simulator, choice: Any) -> Any:
    tools = [{"name": n, "input_schema": _schema()} for n in ("first", "second")]
    body = {"model": "m", "max_tokens": 64, "tools": tools, "tool_choice": choice}
    body["messages"] = [{"role": "user", "content": "hi"}]
    headers = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
    reply = httpx2.post(f"{sim.url}/v1/messages", json=body, headers=headers).json()
    block = reply["content"][0]
    return block.get("name", block.get("text")), block.get("input")


def _chat(sim: Simulator, choice: Any) -> Any:
    tools = [
        {"type": "function", "function": {"name": n, "parameters": _schema()}}
        for n in ("first", "second")
    ]
    body = {"model": "g", "tools": tools, "tool_choice": choice}
    body["messages"] = [{"role": "user", "content": "hi"}]
    headers = {"authorization": "Bearer k"}
    message = httpx2.post(f"{sim.openai_base_url}/chat/completions", json=body, headers=headers)
    said = message.json()["choices"][0]["message"]
    calls = said.get("tool_calls") or []
    return (
        (calls[0]["function"]["name"], calls[0]["function"]["arguments"])
        if calls
        else (
            said["content"],
            None,
        )
    )


def _responses(sim: Simulator, choice: Any) -> Any:
    tools = [{"type": "function", "name": n, "parameters": _schema()} for n in ("first", "second")]
    body = {"model": "g", "input": "hi", "tools": tools, "tool_choice": choice}
    headers = {"authorization": "Bearer k"}
    reply = httpx2.post(f"{sim.openai_base_url}/responses", json=body, headers=headers).json()
    item = reply["output"][0]
    if item["type"] == "function_call":
        return item["name"], item["arguments"]
    return item["content"][0]["text"], None


def _gemini(sim: Simulator, choice: Any) -> Any:
    declared = [{"name": n} for n in ("first", "second")]  # the API takes no empty object
    body = {
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
        "tools": [{"functionDeclarations": declared}],
        "toolConfig": {"functionCallingConfig": choice},
    }
    path = f"{sim.url}/v1beta/models/gemini-sim:generateContent"
    reply = httpx2.post(path, json=body, headers={"x-goog-api-key": "k"}).json()
    part = reply["candidates"][0]["content"]["parts"][0]
    if "functionCall" in part:
        return part["functionCall"]["name"], part["functionCall"].get("args")
    return part["text"], None


@pytest.mark.parametrize(
    ("ask", "none", "forced", "auto"),
    [
        (_anthropic, {"type": "none"}, {"type": "tool", "name": "second"}, {"type": "auto"}),
        (_chat, "none", {"type": "function", "function": {"name": "second"}}, "auto"),
        (_responses, "none", {"type": "function", "name": "second"}, "required"),
        (_gemini, {"mode": "NONE"}, {"mode": "ANY", "allowedFunctionNames": ["second"]}, {}),
    ],
    ids=["anthropic", "chat", "responses", "gemini"],
)
def test_the_tool_choice_decides_what_the_model_may_call(
    sim: Simulator, ask: Any, none: Any, forced: Any, auto: Any
) -> None:
    assert ask(sim, none) == ("no tools", None)
    name, arguments = ask(sim, forced)
    assert name == "second" and "1" in str(arguments)
    name, arguments = ask(sim, auto)
    assert name == "first" and "2" in str(arguments)


# -- a tool choice the request cannot satisfy is refused as the APIs refuse it ---------


def _anthropic_client(sim: Simulator) -> Any:
    return anthropic.Anthropic(api_key="k", base_url=sim.url, max_retries=0)


def _openai_client(sim: Simulator) -> Any:
    return openai.OpenAI(api_key="k", base_url=sim.openai_base_url, max_retries=0)


ANTHROPIC_TOOLS = [{"name": n, "input_schema": _schema()} for n in ("first", "second")]
EXTENDED = {"type": "enabled", "budget_tokens": 1024}
"""Extended thinking, which the Messages API refuses beside a forced tool call."""
ROOM_TO_THINK = {"max_tokens": 2048}
"""A ``max_tokens`` over the budget of :data:`EXTENDED`, as the Messages API requires."""
CHAT_TOOLS = [
    {"type": "function", "function": {"name": n, "parameters": _schema()}}
    for n in ("first", "second")
]
RESPONSES_TOOLS = [
    {"type": "function", "name": n, "parameters": _schema()} for n in ("first", "second")
]
HI = [{"role": "user", "content": "hi"}]


def test_the_anthropic_sdk_gets_a_400_for_a_tool_choice_naming_no_tool(sim: Simulator) -> None:
    # the simulator called one of the tools the request defined: a recording made
    # against it passed, and failed live on its first request
    with pytest.raises(anthropic.BadRequestError) as refused:
        _anthropic_client(sim).messages.create(
            model="m",
            max_tokens=64,
            messages=HI,
            tools=ANTHROPIC_TOOLS,
            tool_choice={"type": "tool", "name": "missing"},
        )
    assert refused.value.status_code == 400
    assert refused.value.body["error"] == {
        "type": "invalid_request_error",
        "message": "Tool 'missing' not found in provided tools",
    }


@pytest.mark.parametrize(
    "choice",
    [
        {"type": "function", "function": {"name": "missing"}},
        {"type": "allowed_tools", "allowed_tools": {"mode": "required", "tools": [
            {"type": "function", "function": {"name": "first"}},
            {"type": "function", "function": {"name": "missing"}},
        ]}},
    ],
    ids=["named", "allowed_tools"],
)  # fmt: skip
def test_the_openai_sdk_gets_a_400_for_a_chat_tool_choice_naming_no_tool(
    sim: Simulator, choice: Any
) -> None:
    with pytest.raises(openai.BadRequestError) as refused:
        _openai_client(sim).chat.completions.create(
            model="g", messages=HI, tools=CHAT_TOOLS, tool_choice=choice
        )
    error = refused.value
    assert (error.status_code, error.type, error.param) == (
        400,
        "invalid_request_error",
        "tool_choice",
    )
    assert error.body["message"] == (
        "Invalid value for 'tool_choice': no function named 'missing' was specified in the "
        "'tools' parameter."
    )


@pytest.mark.parametrize(
    ("choice", "message"),
    [
        (
            {"type": "function", "name": "missing"},
            "Tool choice 'function' named 'missing' not found in 'tools' parameter.",
        ),
        (
            {"type": "allowed_tools", "mode": "auto", "tools": [
                {"type": "function", "name": "missing"},
            ]},
            "Tool choice 'missing' not found in 'tools' parameter.",
        ),
    ],
    ids=["named", "allowed_tools"],
)  # fmt: skip
def test_the_openai_sdk_gets_a_400_for_a_responses_tool_choice_naming_no_tool(
    sim: Simulator, choice: Any, message: str
) -> None:
    with pytest.raises(openai.BadRequestError) as refused:
        _openai_client(sim).responses.create(
            model="g", input="hi", tools=RESPONSES_TOOLS, tool_choice=choice
        )
    error = refused.value
    assert (error.status_code, error.type, error.param) == (
        400,
        "invalid_request_error",
        "tool_choice",
    )
    assert error.body["message"] == message


def _error(sim: Simulator, path: str, body: dict[str, Any]) -> Any:
    """The ``error`` object of a refused request (an Anthropic one on ``/v1/messages``)."""
    anthropic_path = path == "/v1/messages"
    headers = (
        {"x-api-key": "k", "anthropic-version": "2023-06-01"}
        if anthropic_path
        else {"authorization": "Bearer k"}
    )
    url = sim.url + path if anthropic_path else sim.openai_base_url + path
    reply = httpx2.post(url, json=body, headers=headers)
    assert reply.status_code == 400, reply.text
    return reply.json()["error"]


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (
            {"tool_choice": {"type": "tools"}},
            "tool_choice: Input tag 'tools' found using 'type' does not match any of the "
            "expected tags: 'auto', 'any', 'tool', 'none'",
        ),
        ({"tool_choice": {"type": "tool"}}, "tool_choice.tool.name: Field required"),
        (
            {"tools": [], "tool_choice": {"type": "any"}},
            "tool_choice.any may only be specified while providing tools",
        ),
        (
            {"tool_choice": {"type": "tool", "name": "first"}},
            "tool_choice.tool may only be specified while providing tools",
        ),
        (
            {"tools": [*ANTHROPIC_TOOLS, ANTHROPIC_TOOLS[0]]},
            "tools: Tool names must be unique.",
        ),
        *(
            (
                {"tools": ANTHROPIC_TOOLS, "tool_choice": choice, "thinking": EXTENDED}
                | ROOM_TO_THINK,
                "Thinking may not be enabled when tool_choice forces tool use.",
            )
            for choice in ({"type": "any"}, {"type": "tool", "name": "first"})
        ),
    ],
    ids=[
        "unknown kind",
        "no name",
        "any without tools",
        "tool without tools",
        "same name",
        "any while thinking",
        "a tool while thinking",
    ],
)
def test_anthropic_refuses_a_tool_choice_or_tools_it_cannot_take(
    sim: Simulator, fields: dict[str, Any], message: str
) -> None:
    body = {"model": "m", "max_tokens": 64, "messages": HI, **fields}
    assert _error(sim, "/v1/messages", body) == {
        "type": "invalid_request_error",
        "message": message,
    }


@pytest.mark.parametrize(
    ("thinking", "choice"),
    [
        (EXTENDED, {"type": "auto"}),
        (EXTENDED, {"type": "none"}),
        ({"type": "adaptive"}, {"type": "any"}),
        ({"type": "disabled"}, {"type": "tool", "name": "first"}),
    ],
    ids=["extended, auto", "extended, none", "adaptive, any", "disabled, a tool"],
)
def test_anthropic_serves_thinking_beside_a_tool_choice_it_takes(
    sim: Simulator, thinking: dict[str, Any], choice: dict[str, Any]
) -> None:
    """Extended thinking refuses only a forced call, as the API does: a recording that
    forced one passed against the simulator and failed live."""
    body = {"model": "m", "messages": HI, "tools": ANTHROPIC_TOOLS, **ROOM_TO_THINK}
    body |= {"tool_choice": choice, "thinking": thinking}
    headers = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
    assert httpx2.post(f"{sim.url}/v1/messages", json=body, headers=headers).status_code == 200


LONG = "f" * 65


@pytest.mark.parametrize(
    ("path", "fields", "message", "param", "code"),
    [
        (
            "/chat/completions",
            {"tools": [{"type": "function"}]},
            "Missing required parameter: 'tools[0].function'.",
            "tools[0].function",
            "missing_required_parameter",
        ),
        (
            "/chat/completions",
            {"tools": [{"type": "function", "function": {"parameters": {}}}]},
            "Missing required parameter: 'tools[0].function.name'.",
            "tools[0].function.name",
            "missing_required_parameter",
        ),
        (
            "/chat/completions",
            {"tool_choice": "none"},
            "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are "
            "specified.",
            "tool_choice",
            None,
        ),
        (
            "/chat/completions",
            {"parallel_tool_calls": False},
            "Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed "
            "when 'tools' are specified.",
            "parallel_tool_calls",
            None,
        ),
        (
            "/chat/completions",
            {"tools": CHAT_TOOLS, "tool_choice": "requried"},
            "Invalid value: 'requried'. Supported values are: 'none', 'auto', and 'required'.",
            "tool_choice",
            "invalid_value",
        ),
        (
            "/responses",
            {"tools": RESPONSES_TOOLS, "tool_choice": "any"},
            "Invalid value: 'any'. Supported values are: 'none', 'auto', and 'required'.",
            "tool_choice",
            "invalid_value",
        ),
        (
            "/responses",
            {"tool_choice": {"type": "function", "name": "first"}},
            "Tool choice 'function' named 'first' not found in 'tools' parameter.",
            "tool_choice",
            None,
        ),
        (
            "/chat/completions",
            {"tools": [{"type": "function", "function": {"name": LONG, "parameters": {}}}]},
            "Invalid 'tools[0].function.name': string too long. Expected a string with maximum "
            "length 64, but got a string with length 65 instead.",
            "tools[0].function.name",
            "string_above_max_length",
        ),
        (
            "/responses",
            {"tools": [{"type": "function", "name": LONG, "parameters": {}}]},
            "Invalid 'tools[0].name': string too long. Expected a string with maximum length "
            "64, but got a string with length 65 instead.",
            "tools[0].name",
            "string_above_max_length",
        ),
    ],
    ids=[
        "chat function missing",
        "chat function name missing",
        "chat choice without tools",
        "chat parallel_tool_calls without tools",
        "chat unknown mode",
        "responses unknown mode",
        "responses choice without tools",
        "chat name too long",
        "responses name too long",
    ],
)
def test_openai_refuses_a_tool_choice_or_tool_name_it_cannot_take(
    sim: Simulator, path: str, fields: dict[str, Any], message: str, param: str, code: Any
) -> None:
    asked = {"messages": HI} if path == "/chat/completions" else {"input": "hi"}
    assert _error(sim, path, {"model": "g", **asked, **fields}) == {
        "message": message,
        "type": "invalid_request_error",
        "param": param,
        "code": code,
    }


def test_a_tool_choice_naming_a_defined_tool_of_each_form_is_served(sim: Simulator) -> None:
    allowed = [{"type": "function", "function": {"name": "second"}}]
    chat = {"type": "allowed_tools", "allowed_tools": {"mode": "required", "tools": allowed}}
    assert _chat(sim, chat)[0] == "second"
    responses = {"type": "allowed_tools", "mode": "required", "tools": [
        {"type": "function", "name": "second"}]}  # fmt: skip
    assert _responses(sim, responses)[0] == "second"
    assert _anthropic(sim, {"type": "any"})[0] == "first"


CUSTOM_CHAT = {"type": "custom", "custom": {"name": "grep", "description": "Free text."}}
CUSTOM_RESPONSES = {"type": "custom", "name": "grep", "description": "Free text."}


def _with_custom(path: str, choice: Any) -> dict[str, Any]:
    """A request offering the function ``first`` and the custom tool ``grep``."""
    if path == "/chat/completions":
        first = {"type": "function", "function": {"name": "first", "parameters": _schema()}}
        return {"model": "g", "messages": HI, "tools": [first, CUSTOM_CHAT], "tool_choice": choice}
    first = {"type": "function", "name": "first", "parameters": _schema()}
    return {"model": "g", "input": "hi", "tools": [first, CUSTOM_RESPONSES], "tool_choice": choice}


def _answered(sim: Simulator, path: str, body: dict[str, Any]) -> Any:
    """The tool called (and how many the model saw) or the text answered."""
    reply = httpx2.post(
        sim.openai_base_url + path, json=body, headers={"authorization": "Bearer k"}
    )
    assert reply.status_code == 200, reply.text
    if path == "/chat/completions":
        said = reply.json()["choices"][0]["message"]
        calls = said.get("tool_calls") or []
        return (
            (calls[0]["function"]["name"], calls[0]["function"]["arguments"])
            if calls
            else said["content"]
        )
    item = reply.json()["output"][0]
    return (
        (item["name"], item["arguments"])
        if item["type"] == "function_call"
        else item["content"][0]["text"]
    )


def _allowing(path: str, mode: str, kind: str, name: str) -> dict[str, Any]:
    if path == "/chat/completions":
        listed = [{"type": kind, kind: {"name": name}}]
        return {"type": "allowed_tools", "allowed_tools": {"mode": mode, "tools": listed}}
    return {"type": "allowed_tools", "mode": mode, "tools": [{"type": kind, "name": name}]}


@pytest.mark.parametrize("path", ["/chat/completions", "/responses"])
def test_custom_tools_are_offered_to_no_behaviour_and_a_call_forced_of_one_is_refused(
    sim: Simulator, path: str
) -> None:
    """GPT-5's custom tools take free-form text, which no behaviour makes. Chat Completions
    refused a request offering one (``tools[1].function: missing field``), and the
    Responses API answered a call it forced with text or with a call of a function tool
    (a choice allowing only custom tools offered every function tool)."""
    assert _answered(sim, path, _with_custom(path, "auto")) == ("first", '{"seen":1}')
    allowed = _allowing(path, "auto", "custom", "grep")
    assert _answered(sim, path, _with_custom(path, allowed)) == "no tools"
    required = _allowing(path, "required", "function", "first")
    assert _answered(sim, path, _with_custom(path, required)) == ("first", '{"seen":1}')
    named = {"type": "custom", "custom": {"name": "grep"}} if "chat" in path else {
        "type": "custom", "name": "grep"}  # fmt: skip
    only_custom = _with_custom(path, "required")
    only_custom["tools"] = only_custom["tools"][1:]
    for forcing in (
        _with_custom(path, named),
        _with_custom(path, _allowing(path, "required", "custom", "grep")),
        only_custom,
    ):
        assert _error(sim, path, forcing) == {
            "message": "The simulator makes no call of a custom tool, which tool_choice forces "
            "('grep'): a custom tool's input is free-form text, which no behaviour makes. "
            "Record this request from the live API.",
            "type": "invalid_request_error",
            "param": "tool_choice",
            "code": None,
        }
    refused = httpx2.post(
        sim.openai_base_url + path, json=only_custom, headers={"authorization": "Bearer k"}
    )  # the simulator's own refusal, not the API's answer: a recording keeps none of it
    assert simulator_refusal({"body": refused.json()}) is not None


@pytest.mark.parametrize(
    ("asked", "param"),
    [
        ({"tool_choice": {"type": "function", "function": {}}}, "tool_choice.function.name"),
        ({"tool_choice": {"type": "function", "name": "first"}}, "tool_choice.function"),
        ({"response_format": {"type": "json_schema"}}, "response_format.json_schema"),
        ({"response_format": {"json_schema": {"name": "x"}}}, "response_format.type"),
    ],
)
def test_a_chat_tool_choice_or_format_missing_its_part_is_refused(
    sim: Simulator, asked: dict[str, Any], param: str
) -> None:
    """A tool choice naming no function (the Responses API's flat shape sent to Chat
    Completions) was answered as no choice, and a ``json_schema`` format without its
    schema in JSON mode: the API's 400 says the part missing."""
    tools = [{"type": "function", "function": {"name": n}} for n in ("first", "second")]
    with pytest.raises(openai.BadRequestError) as refused:
        _openai_client(sim).chat.completions.create(
            model="gpt-4o", messages=[{"role": "user", "content": "hi json"}], tools=tools,
            **asked,
        )  # fmt: skip
    assert refused.value.body == {
        "message": f"Missing required parameter: '{param}'.",
        "type": "invalid_request_error",
        "param": param,
        "code": "missing_required_parameter",
    }


@pytest.mark.parametrize(
    ("asked", "param"),
    [
        ({"tool_choice": {"type": "function", "function": {"name": "first"}}}, "tool_choice.name"),
        ({"text": {"format": {"name": "x"}}}, "text.format.type"),
    ],
)
def test_a_responses_tool_choice_or_format_missing_its_part_is_refused(
    sim: Simulator, asked: dict[str, Any], param: str
) -> None:
    """Chat Completions' nested tool choice sent to the Responses API was answered as no
    choice, and a format without its type as text: the API's 400 says the part missing."""
    tools = [{"type": "function", "name": n, "parameters": _schema()} for n in ("first", "x")]
    with pytest.raises(openai.BadRequestError) as refused:
        _openai_client(sim).responses.create(model="gpt-4o", input="hi", tools=tools, **asked)
    assert refused.value.body == {
        "message": f"Missing required parameter: '{param}'.",
        "type": "invalid_request_error",
        "param": param,
        "code": "missing_required_parameter",
    }
