"""Wire-format converters: exact request and response shapes, round trips, malformed input."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from replaygate import (
    Message,
    ModelResponse,
    ToolCall,
    ToolSpec,
    Usage,
    WireFormatError,
    from_anthropic_request,
    from_anthropic_response,
    from_openai_request,
    from_openai_response,
    to_anthropic_request,
    to_anthropic_response,
    to_openai_request,
    to_openai_response,
)
from replaygate.models.providers import INTERFACES, get_interface
from replaygate.models.providers.google_gemini import from_gemini_response
from replaygate.models.providers.openai_responses import from_responses_response
from replaygate.models.types import STOP_REASONS
from unicode_text import unicode_text

SEARCH = ToolSpec(
    "search_corpus",
    "Search the corpus.",
    {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
)
FETCH = ToolSpec("fetch_doc", "Fetch a document.", {"type": "object", "properties": {"doc_id": {}}})
CONVERSATION = [
    Message.user("什么是 RAG？"),
    Message.assistant(
        "Searching.",
        [
            ToolCall("toolu_1", "search_corpus", {"q": "RAG"}),
            ToolCall("toolu_2", "fetch_doc", {"doc_id": "doc-rag"}),
        ],
    ),
    Message.tool_result("toolu_1", '{"hits": []}'),
    Message.tool_result("toolu_2", "unknown doc_id", is_error=True),
    Message.user("Answer briefly."),
]

# -- strategies -----------------------------------------------------------------------

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53), max_value=2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | unicode_text(max_size=10)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(unicode_text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
json_objects = st.dictionaries(unicode_text(max_size=8), json_values, max_size=4)
ids = unicode_text(min_size=1, max_size=12)
texts = unicode_text(max_size=30)  # any Unicode but lone surrogates: CJK, emoji, controls
tool_specs = st.builds(ToolSpec, name=ids, description=texts, input_schema=json_objects)


@st.composite
def conversations(draw: st.DrawFn, *, tool_errors: bool) -> list[Message]:
    """User turns, assistant turns with text and/or tool calls, then one result per call."""
    messages: list[Message] = []
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        messages.append(Message.user(draw(texts)))
        calls = [
            ToolCall(f"call_{len(messages)}_{i}", draw(ids), draw(json_objects))
            for i in range(draw(st.integers(min_value=0, max_value=3)))
        ]
        text = draw(texts) if not calls or draw(st.booleans()) else ""
        messages.append(Message.assistant(text, calls))
        for call in calls:
            is_error = draw(st.booleans()) if tool_errors else False
            messages.append(Message.tool_result(call.id, draw(texts), is_error=is_error))
    return messages


anthropic_responses = st.builds(
    ModelResponse,
    text=texts,
    tool_calls=st.lists(
        st.builds(ToolCall, id=ids, name=ids, arguments=json_objects), max_size=3
    ).map(tuple),
    stop_reason=st.sampled_from(STOP_REASONS),
    usage=st.builds(
        Usage,
        input_tokens=st.integers(min_value=0, max_value=10**6),
        output_tokens=st.integers(min_value=0, max_value=10**6),
    ),
)
responses = anthropic_responses.filter(lambda response: response.stop_reason != "pause_turn")
"""Engine responses every wire shape can write (only the Messages API pauses a turn)."""
systems = st.none() | texts


# -- round trips ---------------------------------------------------------------------


@given(
    messages=conversations(tool_errors=True),
    tools=st.lists(tool_specs, max_size=3),
    system=systems,
)
def test_anthropic_request_round_trip(
    messages: list[Message], tools: list[ToolSpec], system: str | None
) -> None:
    request = to_anthropic_request(messages, tools, model="m", max_tokens=64, system=system)
    assert json.loads(json.dumps(request)) == request  # plain JSON
    assert from_anthropic_request(request) == (messages, tools, system)


@given(
    messages=conversations(tool_errors=False),
    tools=st.lists(tool_specs, max_size=3),
    system=systems,
)
def test_openai_request_round_trip(
    messages: list[Message], tools: list[ToolSpec], system: str | None
) -> None:
    request = to_openai_request(messages, tools, model="m", max_tokens=64, system=system)
    assert json.loads(json.dumps(request)) == request
    assert from_openai_request(request) == (messages, tools, system)


@given(messages=conversations(tool_errors=True))
def test_openai_drops_only_the_tool_error_flag(messages: list[Message]) -> None:
    request = to_openai_request(messages, [], model="m", max_tokens=64)
    back, _, _ = from_openai_request(request)
    assert back == [replace(m, is_error=False) for m in messages]


@given(response=anthropic_responses)
def test_anthropic_response_round_trip(response: ModelResponse) -> None:
    wire = to_anthropic_response(response, model="m")
    assert from_anthropic_response(wire) == response


@given(response=responses)
def test_openai_response_round_trip(response: ModelResponse) -> None:
    wire = to_openai_response(response, model="m")
    expected = response
    if response.stop_reason == "stop_sequence":  # Chat Completions reports it as "stop"
        expected = replace(response, stop_reason="end_turn")
    assert from_openai_response(wire) == expected


# -- exact shapes --------------------------------------------------------------------


def test_anthropic_request_shape() -> None:
    request = to_anthropic_request(
        CONVERSATION, [SEARCH], model="claude-sonnet-4-5", max_tokens=1024, system="Be careful."
    )
    assert request == {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "system": "Be careful.",
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "什么是 RAG？"}]},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Searching."},
                    {
                        "type": "tool_use",
                        "id": "toolu_1",
                        "name": "search_corpus",
                        "input": {"q": "RAG"},
                    },
                    {
                        "type": "tool_use",
                        "id": "toolu_2",
                        "name": "fetch_doc",
                        "input": {"doc_id": "doc-rag"},
                    },
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": '{"hits": []}'},
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_2",
                        "content": "unknown doc_id",
                        "is_error": True,
                    },
                ],
            },
            {"role": "user", "content": [{"type": "text", "text": "Answer briefly."}]},
        ],
        "tools": [
            {
                "name": "search_corpus",
                "description": "Search the corpus.",
                "input_schema": {
                    "type": "object",
                    "properties": {"q": {"type": "string"}},
                    "required": ["q"],
                },
            }
        ],
    }


def test_anthropic_request_without_system_or_tools_has_neither_field() -> None:
    request = to_anthropic_request([Message.user("hi")], [], model="m", max_tokens=8)
    assert set(request) == {"model", "max_tokens", "messages"}


def test_openai_request_shape() -> None:
    request = to_openai_request(
        CONVERSATION, [SEARCH], model="gpt-4.1", max_tokens=1024, system="Be careful."
    )
    assert request == {
        "model": "gpt-4.1",
        "max_completion_tokens": 1024,
        "messages": [
            {"role": "system", "content": "Be careful."},
            {"role": "user", "content": "什么是 RAG？"},
            {
                "role": "assistant",
                "content": "Searching.",
                "tool_calls": [
                    {
                        "id": "toolu_1",
                        "type": "function",
                        "function": {"name": "search_corpus", "arguments": '{"q":"RAG"}'},
                    },
                    {
                        "id": "toolu_2",
                        "type": "function",
                        "function": {"name": "fetch_doc", "arguments": '{"doc_id":"doc-rag"}'},
                    },
                ],
            },
            {"role": "tool", "tool_call_id": "toolu_1", "content": '{"hits": []}'},
            {"role": "tool", "tool_call_id": "toolu_2", "content": "unknown doc_id"},
            {"role": "user", "content": "Answer briefly."},
        ],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "search_corpus",
                    "description": "Search the corpus.",
                    "parameters": {
                        "type": "object",
                        "properties": {"q": {"type": "string"}},
                        "required": ["q"],
                    },
                },
            }
        ],
    }


def test_openai_tool_call_arguments_are_a_json_string_keeping_non_ascii() -> None:
    message = Message.assistant("", [ToolCall("c1", "search_corpus", {"q": "检索"})])
    request = to_openai_request([message], [], model="m", max_tokens=8)
    wire = request["messages"][0]
    assert wire["content"] is None
    assert wire["tool_calls"][0]["function"]["arguments"] == '{"q":"检索"}'


def test_anthropic_response_shape() -> None:
    response = ModelResponse(
        text="RAG [doc-rag].",
        tool_calls=(ToolCall("toolu_9", "fetch_doc", {"doc_id": "doc-rag"}),),
        stop_reason="tool_use",
        usage=Usage(42, 18),
    )
    assert to_anthropic_response(response, model="m", message_id="msg_01") == {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": [
            {"type": "text", "text": "RAG [doc-rag]."},
            {
                "type": "tool_use",
                "id": "toolu_9",
                "name": "fetch_doc",
                "input": {"doc_id": "doc-rag"},
            },
        ],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 42, "output_tokens": 18},
    }


def test_openai_response_shape() -> None:
    response = ModelResponse(
        tool_calls=(ToolCall("call_1", "fetch_doc", {"doc_id": "doc-rag"}),),
        stop_reason="tool_use",
        usage=Usage(42, 18),
    )
    wire = to_openai_response(response, model="m", completion_id="chatcmpl-1")
    assert wire["choices"] == [
        {
            "index": 0,
            "message": {
                "role": "assistant",
                "content": None,
                "refusal": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "fetch_doc", "arguments": '{"doc_id":"doc-rag"}'},
                    }
                ],
            },
            "finish_reason": "tool_calls",
            "logprobs": None,
        }
    ]
    assert wire["usage"] == {"prompt_tokens": 42, "completion_tokens": 18, "total_tokens": 60}


def test_openai_answer_cut_before_it_said_anything_has_empty_content() -> None:
    """As Chat Completions gives it (a reasoning model that spent the limit thinking); an
    answer not cut, with no text, has none."""
    cut = to_openai_response(ModelResponse(stop_reason="max_tokens"), model="m")["choices"][0]
    assert (cut["finish_reason"], cut["message"]["content"]) == ("length", "")
    empty = to_openai_response(ModelResponse(), model="m")["choices"][0]
    assert (empty["finish_reason"], empty["message"]["content"]) == ("stop", None)


def test_seed_response_parses() -> None:
    seed = {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "content": [
            {"type": "tool_use", "id": "toolu_01", "name": "search_corpus", "input": {"q": "RAG"}}
        ],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 42, "output_tokens": 18},
    }
    assert from_anthropic_response(seed) == ModelResponse(
        tool_calls=(ToolCall("toolu_01", "search_corpus", {"q": "RAG"}),),
        stop_reason="tool_use",
        usage=Usage(42, 18),
    )


def test_anthropic_response_text_blocks_join_and_other_blocks_are_ignored() -> None:
    wire = {
        "content": [
            {"type": "thinking", "thinking": "...", "signature": "x"},
            {"type": "text", "text": "a"},
            {"type": "text", "text": "b"},
        ],
        "stop_reason": "pause_turn",
        "usage": {"input_tokens": 0, "output_tokens": 0},
    }
    assert from_anthropic_response(wire) == ModelResponse(text="ab", stop_reason="pause_turn")


def test_openai_response_without_finish_reason_stops_as_a_turn_ends() -> None:
    usage = {"prompt_tokens": 0, "completion_tokens": 0}
    wire = {"choices": [{"message": {"role": "assistant", "content": "hi"}}], "usage": usage}
    assert from_openai_response(wire) == ModelResponse(text="hi")


ANSWERED = {"role": "assistant", "content": "hi"}
GEMINI_CANDIDATE = {"content": {"role": "model", "parts": [{"text": "hi"}]}, "finishReason": "STOP"}
WITHOUT_USAGE = [
    (from_anthropic_response, {"content": []}, "response.usage"),
    (from_anthropic_response, {"content": [], "usage": None}, "response.usage"),
    (
        from_anthropic_response,
        {"content": [], "usage": {"input_tokens": 3}},
        "response.usage.output_tokens",
    ),
    (from_openai_response, {"choices": [{"message": ANSWERED}]}, "response.usage"),
    (
        from_openai_response,
        {"choices": [{"message": ANSWERED}], "usage": {"completion_tokens": 2}},
        "response.usage.prompt_tokens",
    ),
    (from_responses_response, {"output": []}, "response.usage"),
    (from_gemini_response, {"candidates": [GEMINI_CANDIDATE]}, "response.usageMetadata"),
    (
        from_gemini_response,
        {"candidates": [GEMINI_CANDIDATE], "usageMetadata": {"candidatesTokenCount": 1}},
        "response.usageMetadata.promptTokenCount",
    ),
]


@pytest.mark.parametrize(("read", "wire", "path"), WITHOUT_USAGE)
def test_an_answer_without_its_token_counts_is_refused_naming_the_count(
    read: Callable[[Any], ModelResponse], wire: dict[str, Any], path: str
) -> None:
    # a hand edit that deleted them replayed as a call that cost nothing: a gate passed
    with pytest.raises(WireFormatError, match="would replay as a call that cost nothing") as err:
        read(wire)
    assert err.value.path == path


def test_a_gemini_answer_may_leave_out_an_output_count_of_zero() -> None:
    blocked = {
        "promptFeedback": {"blockReason": "SAFETY"},
        "usageMetadata": {"promptTokenCount": 4},
    }
    assert from_gemini_response(blocked).usage == Usage(input_tokens=4, output_tokens=0)


def test_a_gemini_answer_counts_its_thinking_tokens_as_output_as_they_are_billed() -> None:
    thought = {
        "candidates": [GEMINI_CANDIDATE],
        "usageMetadata": {
            "promptTokenCount": 4,
            "candidatesTokenCount": 2,
            "thoughtsTokenCount": 90,
        },
    }
    assert from_gemini_response(thought).usage == Usage(input_tokens=4, output_tokens=92)
    thought["usageMetadata"]["thoughtsTokenCount"] = -1  # type: ignore[index]
    with pytest.raises(WireFormatError, match="got -1") as err:
        from_gemini_response(thought)
    assert err.value.path == "response.usageMetadata.thoughtsTokenCount"


def test_a_gemini_answer_counts_what_its_own_tools_gave_it_as_input_as_it_is_billed() -> None:
    grounded = {
        "candidates": [GEMINI_CANDIDATE],
        "usageMetadata": {
            "promptTokenCount": 4,
            "candidatesTokenCount": 2,
            "thoughtsTokenCount": 10,
            "toolUsePromptTokenCount": 3000,
        },
    }
    assert from_gemini_response(grounded).usage == Usage(input_tokens=3004, output_tokens=12)


def test_interfaces_are_registered_by_full_and_short_name() -> None:
    assert get_interface("anthropic") is INTERFACES["anthropic.messages"]
    assert get_interface("openai") is INTERFACES["openai.chat.completions"]
    assert get_interface("anthropic").version == "2023-06-01"
    assert get_interface("gemini") is INTERFACES["google.generate_content"]
    with pytest.raises(
        ValueError, match=r"unknown interface 'mistral'; known interfaces: anthropic"
    ):
        get_interface("mistral")


# -- malformed input -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("wire", "path", "reason"),
    [
        ([], "response", "expected an object, got list"),
        ({}, "response.content", "missing field"),
        ({"content": "hi"}, "response.content", "expected list, got str"),
        ({"content": [5]}, "response.content[0]", "expected an object, got int"),
        ({"content": [{"text": "x"}]}, "response.content[0].type", "missing field"),
        ({"content": [{"type": "text"}]}, "response.content[0].text", "missing field"),
        (
            {"content": [{"type": "tool_use", "id": "t", "name": "n"}]},
            "response.content[0].input",
            "missing field",
        ),
        (
            {"content": [{"type": "tool_use", "id": "t", "name": "n", "input": "{}"}]},
            "response.content[0].input",
            "expected dict, got str",
        ),
        ({"content": [], "stop_reason": "bogus"}, "response.stop_reason", "unknown stop_reason"),
        ({"content": [], "stop_reason": 3}, "response.stop_reason", "expected str, got int"),
        ({"content": [], "usage": []}, "response.usage", "expected dict, got list"),
        (
            {"content": [], "usage": {"input_tokens": "3"}},
            "response.usage.input_tokens",
            "expected int, got str",
        ),
        (
            {"content": [], "usage": {"input_tokens": 1, "output_tokens": True}},
            "response.usage.output_tokens",
            "expected int, got bool",
        ),
    ],
)
def test_malformed_anthropic_response_names_the_field(wire: Any, path: str, reason: str) -> None:
    with pytest.raises(WireFormatError) as caught:
        from_anthropic_response(wire)
    assert caught.value.path == path
    assert reason in caught.value.reason
    assert str(caught.value).startswith(f"{path}: ")


def _choice(message: Any, **extra: Any) -> dict[str, Any]:
    return {"choices": [{"message": message, **extra}]}


def _call(arguments: Any) -> dict[str, Any]:
    return {
        "role": "assistant",
        "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": arguments}}],
    }


@pytest.mark.parametrize(
    ("wire", "path", "reason"),
    [
        ("x", "response", "expected an object, got str"),
        ({}, "response.choices", "missing field"),
        ({"choices": []}, "response.choices", "empty"),
        ({"choices": [{}]}, "response.choices[0].message", "missing field"),
        ({"choices": [7]}, "response.choices[0]", "expected an object, got int"),
        (
            _choice({"content": 5}),
            "response.choices[0].message.content",
            "expected a string or a list",
        ),
        (
            _choice({"content": "x"}, finish_reason="weird"),
            "response.choices[0].finish_reason",
            "unknown value 'weird'",
        ),
        (
            _choice(_call("{not json")),
            "response.choices[0].message.tool_calls[0].function.arguments",
            "not JSON",
        ),
        (
            _choice(_call("[1, 2]")),
            "response.choices[0].message.tool_calls[0].function.arguments",
            "not a JSON object",
        ),
        (
            _choice(_call('{"n": ' + "9" * 5000 + "}")),  # raised a bare ValueError
            "response.choices[0].message.tool_calls[0].function.arguments",
            "not JSON this reader takes: Exceeds the limit",
        ),
        (
            _choice(_call("[" * 100_000)),  # raised RecursionError
            "response.choices[0].message.tool_calls[0].function.arguments",
            "nested too deeply to be read",
        ),
        (
            _choice(_call({"q": 1})),
            "response.choices[0].message.tool_calls[0].function.arguments",
            "expected str, got dict",
        ),
        (
            _choice({"tool_calls": [{"id": "c"}]}),
            "response.choices[0].message.tool_calls[0].function",
            "missing field",
        ),
        (
            {**_choice({"content": "x"}), "usage": {"prompt_tokens": 1.5}},
            "response.usage.prompt_tokens",
            "expected int, got float",
        ),
    ],
)
def test_malformed_openai_response_names_the_field(wire: Any, path: str, reason: str) -> None:
    with pytest.raises(WireFormatError) as caught:
        from_openai_response(wire)
    assert caught.value.path == path
    assert reason in caught.value.reason


@pytest.mark.parametrize(
    ("request_", "path"),
    [
        ({}, "request.messages"),
        ({"messages": [{"role": "system", "content": "x"}]}, "request.messages[0].role"),
        ({"messages": [{"role": "user"}]}, "request.messages[0].content"),
        (
            {"messages": [{"role": "user", "content": [{"type": "tool_result"}]}]},
            "request.messages[0].content[0].tool_use_id",
        ),
        ({"messages": [], "tools": [{"name": "t"}]}, "request.tools[0].input_schema"),
    ],
)
def test_malformed_anthropic_request_names_the_field(request_: Any, path: str) -> None:
    with pytest.raises(WireFormatError) as caught:
        from_anthropic_request(request_)
    assert caught.value.path == path


@pytest.mark.parametrize(
    ("request_", "path"),
    [
        ({"messages": {}}, "request.messages"),
        ({"messages": [{"role": "critic", "content": "x"}]}, "request.messages[0].role"),
        ({"messages": [{"role": "tool", "content": "x"}]}, "request.messages[0].tool_call_id"),
        ({"messages": [], "tools": [{"type": "function"}]}, "request.tools[0].function"),
    ],
)
def test_malformed_openai_request_names_the_field(request_: Any, path: str) -> None:
    with pytest.raises(WireFormatError) as caught:
        from_openai_request(request_)
    assert caught.value.path == path


any_json = st.recursive(
    json_scalars
    | st.sampled_from(["text", "tool_use", "tool_result", "user", "assistant", "tool"])
    | st.sampled_from(["message", "function_call", "function_call_output", "incomplete"]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                (
                    *("content", "type", "text", "id", "name", "input", "choices", "message"),
                    *("role", "tool_calls", "function", "arguments", "usage", "stop_reason"),
                    *("finish_reason", "messages", "tools", "tool_use_id", "tool_call_id"),
                    *("input_schema", "system", "input", "output", "call_id", "status"),
                    *("instructions", "incomplete_details", "reason", "parameters"),
                    *("contents", "parts", "functionCall", "functionResponse", "args"),
                    *("functionDeclarations", "candidates", "usageMetadata", "finishReason"),
                    *("systemInstruction", "generationConfig", "toolConfig", "response"),
                )
            ),
            inner,
            max_size=5,
        )
    ),
    max_leaves=15,
)


@given(wire=any_json)
def test_any_malformed_wire_dict_raises_only_wire_format_error(wire: Any) -> None:
    for interface in INTERFACES.values():
        for parse in (interface.from_request, interface.from_response):
            with contextlib.suppress(WireFormatError):
                parse(wire)


@pytest.mark.parametrize("interface", sorted(INTERFACES))
def test_a_tool_that_is_not_an_object_is_named(interface: str) -> None:
    wire = get_interface(interface).build_request(
        [Message.user("hi")], [SEARCH], model="m", max_tokens=8, system=None
    )
    wire["tools"] = [5]
    with pytest.raises(WireFormatError, match=r"tools\[0\]"):
        get_interface(interface).from_request(wire)


def test_an_openai_assistant_turn_with_no_text_nor_calls_keeps_its_empty_content() -> None:
    """An assistant turn of no text and no tool calls (an answer cut before it said
    anything, given back) was sent with ``content: null``, which the API refuses beside no
    tool calls; beside them it stays null, as the API gives it."""
    said = [Message("user", "Why?"), Message("assistant", ""), Message("user", "And?")]
    called = Message("assistant", "", tool_calls=(ToolCall("call_1", "fetch_doc", {}),))
    body = to_openai_request(said, [], model="m", max_tokens=64)
    again = to_openai_request(
        [*said[:1], called, Message.tool_result("call_1", "x")], [], model="m", max_tokens=64
    )
    assert (body["messages"][1]["content"], again["messages"][1]["content"]) == ("", None)
