"""Chat Completions' deprecated ``functions`` and ``function_call`` (LangChain's older
OpenAI functions agents, Instructor's ``FUNCTIONS`` mode) are answered as the API answers
them: a ``function_call`` forced by name (``none`` offers none), finished
``function_call``, streamed as ``delta.function_call`` pieces, and the API's errors for a
bad list or choice. They were ignored: a forced call was answered with text, and every
error was answered 200."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from replaygate import Fixture
from replaygate.hygiene.drift_script import ScriptLines
from replaygate.models.providers.openai_chat import (
    as_function_call,
    from_openai_response,
    to_openai_response,
)
from replaygate.models.types import ModelResponse, ToolCall
from replaygate.sim import ScriptBehavior, Simulator
from replaygate.sim.streaming import openai_chunks
from sdks import openai

WEATHER = {
    "name": "get_weather",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}
ASKED = [{"role": "user", "content": "Weather in Paris?"}]
CALLED = {
    "role": "assistant",
    "tool_calls": [
        {"id": "c", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}
    ],
}
RESULT = {"role": "tool", "tool_call_id": "c", "content": "sunny"}


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    with Simulator(behavior="echo") as sim:
        yield openai.OpenAI(api_key="k", base_url=sim.openai_base_url, max_retries=0)


def test_a_forced_function_call_is_answered_as_one(client: Any) -> None:
    forced = {"name": "get_weather"}
    reply = client.chat.completions.create(
        model="gpt-4o-mini", messages=ASKED, functions=[WEATHER], function_call=forced
    )
    choice = reply.choices[0]
    assert choice.finish_reason == "function_call"
    assert choice.message.tool_calls is None
    assert choice.message.function_call.name == "get_weather"
    assert json.loads(choice.message.function_call.arguments) == {"city": "echo: Weather in Paris?"}
    assert from_openai_response(reply.model_dump()).tool_calls[0].name == "get_weather"
    stream = client.chat.completions.create(
        model="gpt-4o-mini",
        messages=ASKED,
        functions=[WEATHER],
        function_call=forced,
        stream=True,
    )
    chunks = [chunk.choices[0] for chunk in stream]
    pieces = [c.delta.function_call for c in chunks if c.delta.function_call]
    assert pieces[0].name == "get_weather"
    assert "".join(p.arguments for p in pieces) == choice.message.function_call.arguments
    assert chunks[-1].finish_reason == "function_call"


def test_a_function_result_is_read_and_none_offers_no_function(client: Any) -> None:
    called = {"name": "get_weather", "arguments": '{"city":"Paris"}'}
    history = [
        *ASKED,
        {"role": "assistant", "content": None, "function_call": called},
        {"role": "function", "name": "get_weather", "content": "sunny"},
    ]
    for messages, choice in ((history, "auto"), (ASKED, "none")):
        reply = client.chat.completions.create(
            model="gpt-4o-mini", messages=messages, functions=[WEATHER], function_call=choice
        )
        assert reply.choices[0].finish_reason == "stop"
        assert reply.choices[0].message.function_call is None


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"functions": []}, "Invalid 'functions': empty array"),
        ({"functions": [{"description": "x"}]}, r"'functions\[0\]\.name'"),
        ({"functions": "x"}, "Invalid type for 'functions': expected an array"),
        ({"functions": ["x"]}, r"Invalid type for 'functions\[0\]': expected an object"),
        ({"functions": [WEATHER], "function_call": {}}, r"'function_call\.name'"),
        ({"functions": [WEATHER], "function_call": 5}, "Invalid type for 'function_call'"),
        ({"function_call": "auto"}, "'function_call' is only allowed when 'functions'"),
        (
            {"functions": [WEATHER], "function_call": {"name": "nope"}},
            "no function named 'nope' was specified in the 'functions' parameter",
        ),
        ({"functions": [WEATHER], "function_call": "any"}, "Invalid value: 'any'"),
        (
            {"functions": [WEATHER], "tools": [{"type": "function", "function": WEATHER}]},
            "'functions' and 'tools' cannot both be provided",
        ),
        (
            {"functions": [WEATHER], "messages": [*ASKED, CALLED, RESULT]},
            "'tool_calls' cannot be used when 'functions' are present",
        ),
        (
            {"functions": [WEATHER], "messages": [{"role": "function", "content": "x"}]},
            "messages with role 'function' must have a 'name'",
        ),
    ],
)
def test_a_bad_functions_request_is_refused(client: Any, fields: dict[str, Any], said: str) -> None:
    body = {"model": "gpt-4o-mini", "messages": ASKED, **fields}
    with pytest.raises(openai.BadRequestError, match=said):
        client.chat.completions.create(**body)


def test_drift_finds_the_script_line_of_a_streamed_function_call() -> None:
    """A stream's ``delta.function_call`` was read as no call, so no line of a script said
    what a fixture recorded from it said, and drift left the fixture unsent."""
    call = ToolCall(id="call_1", name="get_weather", arguments={"city": "Paris"})
    answer = ModelResponse(tool_calls=(call,), stop_reason="tool_use")
    wire = as_function_call(to_openai_response(answer, model="gpt-4o-mini"))
    events = [{"data": event.data} for event in openai_chunks(wire, chunk_size=4)]
    body = {"model": "gpt-4o-mini", "messages": ASKED, "functions": [WEATHER], "stream": True}
    request = {"method": "POST", "path": "/v1/chat/completions", "headers": {}, "body": body}
    fixture = Fixture.create(request, [{"status": 200, "headers": {}, "events": events}])
    lines = ScriptLines(ScriptBehavior([ModelResponse(text="no"), answer]))
    assert lines.line_of(fixture) == 1
