"""A request field OpenAI's API does not take (a misspelt one, one a framework passes
through ``extra_body``, a Chat Completions field sent to the Responses API) is refused
by the API with a 400 naming it; the simulator answered it, so a recording that passed
against it failed on its first live request."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, get_type_hints

import pytest

from replaygate.sim import Simulator
from replaygate.sim.openai_params import CHAT_PARAMS, RESPONSES_PARAMS
from sdks import openai

HI = [{"role": "user", "content": "hi"}]
MOVED = (
    "Unsupported parameter: '{name}'. In the Responses API, this parameter has moved to "
    "'{instead}'. Try again with the new parameter. See the API documentation for more "
    "information: https://platform.openai.com/docs/api-reference/responses/create."
)


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    with Simulator(behavior="echo") as sim:
        yield openai.OpenAI(api_key="k", base_url=sim.openai_base_url, max_retries=0)


def _refusal(call: Any) -> dict[str, Any]:
    with pytest.raises(openai.BadRequestError) as refused:
        call()
    body: dict[str, Any] = refused.value.body
    return body


@pytest.mark.parametrize(
    ("api", "extra", "param"),
    [
        ("chat", {"reasoning_efort": "low"}, "reasoning_efort"),
        ("chat", {"max_output_tokens": 64}, "max_output_tokens"),
        ("responses", {"top_k": 5}, "top_k"),
        ("responses", {"stream_options": {"include_usage": True}}, "stream_options.include_usage"),
        ("responses", {"text": {"format": {"type": "text"}, "zzz": 1}}, "text.zzz"),
        (
            "responses",
            {"reasoning": {"effort": "low", "budget_tokens": 1024}},
            "reasoning.budget_tokens",
        ),
    ],
)
def test_a_field_the_api_does_not_take_is_refused_as_it_refuses_it(
    client: Any, api: str, extra: dict[str, Any], param: str
) -> None:
    if api == "chat":
        call = lambda: client.chat.completions.create(  # noqa: E731
            model="gpt-4o", messages=HI, extra_body=extra
        )
    else:
        call = lambda: client.responses.create(  # noqa: E731
            model="gpt-5-mini", input="hi", stream="stream_options" in extra, extra_body=extra
        )
    assert _refusal(call) == {
        "message": f"Unknown parameter: '{param}'.",
        "type": "invalid_request_error",
        "param": param,
        "code": "unknown_parameter",
    }


@pytest.mark.parametrize(
    ("name", "value", "instead"),
    [
        ("messages", HI, "input"),
        ("reasoning_effort", "low", "reasoning.effort"),
        ("response_format", {"type": "json_object"}, "text.format"),
        ("max_completion_tokens", 64, "max_output_tokens"),
    ],
)
def test_a_chat_field_sent_to_the_responses_api_names_the_one_to_send(
    client: Any, name: str, value: Any, instead: str
) -> None:
    body = _refusal(
        lambda: client.responses.create(model="gpt-5-mini", input="hi", extra_body={name: value})
    )
    assert body == {
        "message": MOVED.format(name=name, instead=instead),
        "type": "invalid_request_error",
        "param": None,
        "code": "unsupported_parameter",
    }


def test_another_server_s_model_takes_fields_of_its_own(client: Any) -> None:
    # an OpenAI-compatible server reached through the same route (vLLM's top_k, a
    # gateway's openai/ prefix) takes them: only OpenAI's models are checked
    for model in ("llama3.1", "openai/gpt-4o"):
        answer = client.chat.completions.create(model=model, messages=HI, extra_body={"top_k": 5})
        assert answer.choices[0].message.content == "echo: hi"
    assert client.responses.create(model="qwen3", input="hi", extra_body={"top_k": 5}).output_text


def test_every_field_the_installed_sdk_sends_is_taken() -> None:
    # a newer openai SDK may send a field the API has started to take: the simulator takes
    # each field of the SDK's request types, so that such a field is never refused here
    from openai.types.chat.completion_create_params import CompletionCreateParamsBase
    from openai.types.responses.response_create_params import ResponseCreateParamsBase

    assert set(get_type_hints(CompletionCreateParamsBase)) <= CHAT_PARAMS
    assert set(get_type_hints(ResponseCreateParamsBase)) <= RESPONSES_PARAMS


def test_a_tool_call_id_longer_than_the_api_takes_back_is_refused(client: Any) -> None:
    # an id another provider or a gateway made (portkey-6aa6db90-..., 44 characters) was
    # taken back, and a recording passed that failed live
    tools = [{"type": "function", "function": {"name": "search", "parameters": {"type": "object"}}}]
    long_id = "portkey-6aa6db90-1b84-4155-9f32-f658c97d6b1b"
    call = {"id": long_id, "type": "function", "function": {"name": "search", "arguments": "{}"}}
    turns = [*HI, {"role": "assistant", "tool_calls": [call]}]
    chat = _refusal(
        lambda: client.chat.completions.create(
            model="gpt-4o",
            tools=tools,
            messages=[*turns, {"role": "tool", "tool_call_id": long_id, "content": "r"}],
        )
    )
    assert chat["message"] == (
        "Invalid 'messages[1].tool_calls[0].id': string too long. Expected a string with "
        "maximum length 40, but got a string with length 44 instead."
    )
    assert (chat["param"], chat["code"]) == (
        "messages[1].tool_calls[0].id",
        "string_above_max_length",
    )
    call_id = "c" * 116
    items = [
        {"type": "function_call", "call_id": call_id, "name": "search", "arguments": "{}"},
        {"type": "function_call_output", "call_id": call_id, "output": "r"},
    ]
    responses = _refusal(
        lambda: client.responses.create(
            model="gpt-4o",
            input=[*HI, *items],
            tools=[{"type": "function", **tools[0]["function"]}],
        )
    )
    assert responses["message"] == (
        "Invalid 'input[1].call_id': string too long. Expected a string with maximum length "
        "64, but got a string with length 116 instead."
    )
