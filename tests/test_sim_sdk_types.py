"""The simulator's answers read strictly as the SDKs' own types: every field a type
requires is there and none it does not know. The SDKs build their objects without
validating, so a missing field passed unseen until code read it: a Responses API
``usage.input_tokens_details`` lacked ``cache_write_tokens``, which the openai SDK's
``ResponseUsage`` requires (an ``int``), and code reading it from a recording made with
the simulator got ``None``."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from functools import cache
from typing import Any

import httpx2
import pytest
from pydantic import BaseModel, TypeAdapter

from replaygate.http.sse import parse_events
from replaygate.models.types import Message, ModelResponse, ToolCall, ToolSpec
from replaygate.sim import Simulator
from replaygate.sim.responses_events import OBFUSCATED
from sdks import anthropic, openai

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
ASK_ANTHROPIC = {
    "model": "claude-sonnet-4-6",
    "max_tokens": 2048,
    "messages": [{"role": "user", "content": "hi"}],
}
ASK_CHAT = {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}
ASK_RESPONSES = {"model": "gpt-4o", "input": "hi"}
REFUSED = "I can't help with that."
ASK_REFUSAL: Any = [{"role": "user", "content": "refuse"}]
CHAT_TOOL = {"type": "function", "function": {"name": "weather", "parameters": SCHEMA}}
REASONING = {"model": "o4-mini", "reasoning": {"effort": "low", "summary": "auto"}}
CASES = [
    pytest.param("/v1/messages", ASK_ANTHROPIC, {}, id="messages"),
    pytest.param(
        "/v1/messages",
        ASK_ANTHROPIC,
        {"tools": [{"name": "weather", "input_schema": SCHEMA}]},
        id="messages-tools",
    ),
    pytest.param(
        "/v1/messages",
        ASK_ANTHROPIC,
        {"thinking": {"type": "enabled", "budget_tokens": 1024}},
        id="messages-thinking",
    ),
    pytest.param("/v1/chat/completions", ASK_CHAT, {"n": 2}, id="chat-n"),
    pytest.param("/v1/chat/completions", ASK_CHAT, {"tools": [CHAT_TOOL]}, id="chat-tools"),
    pytest.param(
        "/v1/chat/completions",
        ASK_CHAT,
        {"model": "o4-mini", "reasoning_effort": "low"},
        id="chat-reasoning",
    ),
    pytest.param("/v1/chat/completions", ASK_CHAT, {"messages": ASK_REFUSAL}, id="chat-refusal"),
    pytest.param("/v1/responses", ASK_RESPONSES, {}, id="responses"),
    pytest.param("/v1/responses", ASK_RESPONSES, {"input": ASK_REFUSAL}, id="responses-refusal"),
    pytest.param(
        "/v1/responses",
        ASK_RESPONSES,
        {"tools": [{"type": "function", "name": "weather", "parameters": SCHEMA}]},
        id="responses-tools",
    ),
    pytest.param(
        "/v1/responses",
        ASK_RESPONSES,
        {**REASONING, "max_output_tokens": 16},
        id="responses-reasoning-cut",
    ),
    pytest.param(  # its stream's text events gave each token's bytes, which they have not
        "/v1/responses",
        ASK_RESPONSES,
        {"include": ["message.output_text.logprobs"], "top_logprobs": 2},
        id="responses-logprobs",
    ),
]


class CallsOnce:
    """Refuses when asked to, else calls the first tool offered, or answers."""

    def respond(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        if messages[-1].content == "refuse":
            return ModelResponse(text=REFUSED, stop_reason="refusal")
        if tools:
            call = ToolCall(id="call_1", name=tools[0].name, arguments={"city": "Paris"})
            return ModelResponse(tool_calls=(call,), stop_reason="tool_use")
        return ModelResponse(text="Paris is sunny.")


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    with Simulator(behavior=CallsOnce()) as running:
        yield running


def unknown_fields(value: Any, path: str = "") -> list[str]:
    """The paths of the fields in ``value`` (a validated SDK object) its types do not know."""
    if isinstance(value, BaseModel):
        found = [f"{path}.{name}" for name in value.model_extra or {}]
        for name in type(value).model_fields:
            found += unknown_fields(getattr(value, name), f"{path}.{name}")
        return found
    if isinstance(value, list):
        return [p for i, item in enumerate(value) for p in unknown_fields(item, f"{path}[{i}]")]
    return []


def types(route: str) -> tuple[Any, Any]:
    """The SDK's type of ``route``'s body, and of one of its stream's events."""
    if route == "/v1/messages":
        return anthropic.types.Message, anthropic.types.RawMessageStreamEvent
    if route == "/v1/chat/completions":
        chat = openai.types.chat
        return chat.ChatCompletion, chat.ChatCompletionChunk
    responses = openai.types.responses
    return responses.Response, responses.ResponseStreamEvent


@cache
def adapter(kind: Any) -> TypeAdapter[Any]:
    """A validator of ``kind``, built once (an event union's takes tens of milliseconds)."""
    return TypeAdapter(kind)


UNDECLARED = frozenset({".store", ".response.store"})
"""Fields of the Responses API the openai SDK's types leave undeclared: whether the
response is stored (a response's, and that of a stream's lifecycle event)."""


def assert_reads_strictly(kind: Any, data: Any) -> None:
    found = [f for f in unknown_fields(adapter(kind).validate_python(data)) if f not in UNDECLARED]
    if data.get("type") in OBFUSCATED:  # the API's padding, which the SDK leaves undeclared
        found.remove(".obfuscation")
    assert found == [], data


@pytest.mark.parametrize(("route", "ask", "extra"), CASES)
def test_an_answer_and_its_stream_read_as_the_sdk_s_types(
    sim: Simulator, route: str, ask: dict[str, Any], extra: dict[str, Any]
) -> None:
    body_type, event_type = types(route)
    headers = {
        "x-api-key": "test",
        "anthropic-version": "2023-06-01",
        "authorization": "Bearer test",
    }
    with httpx2.Client(base_url=sim.url, headers=headers) as client:
        whole = client.post(route, json={**ask, **extra})
        streamed = client.post(route, json={**ask, **extra, "stream": True})
    assert whole.status_code == streamed.status_code == 200, whole.text
    assert_reads_strictly(body_type, whole.json())
    events = [e for e in parse_events(streamed.content) if e.data not in ("", "[DONE]")]
    assert events
    for event in events:
        data = json.loads(event.data)
        if data.get("type") != "ping":  # the anthropic SDK reads a ping apart from its events
            assert_reads_strictly(event_type, data)


def test_a_refusal_in_words_reaches_an_openai_client_as_the_api_s_refusal(sim: Simulator) -> None:
    client = openai.OpenAI(base_url=sim.openai_base_url, api_key="test", max_retries=0)
    chat = client.chat.completions.create(model="gpt-4o", messages=ASK_REFUSAL)
    with client.chat.completions.stream(model="gpt-4o", messages=ASK_REFUSAL) as stream:
        streamed = stream.get_final_completion()
    for completion in (chat, streamed):
        choice = completion.choices[0]
        said = (choice.message.refusal, choice.message.content, choice.finish_reason)
        assert said == (REFUSED, None, "stop")  # was the text as content, "content_filter"
    answered = client.responses.create(model="gpt-4o", input=ASK_REFUSAL)
    with client.responses.stream(model="gpt-4o", input=ASK_REFUSAL) as events:
        final = events.get_final_response()  # was "Didn't receive a `response.completed` event"
    for response in (answered, final):
        part = response.output[0].content[0]
        assert (response.status, part.type, part.refusal) == ("completed", "refusal", REFUSED)


class Sky(BaseModel):
    """A structured output the refusal below is asked for."""

    city: str


def test_a_refusal_asked_for_structured_output_keeps_its_words(sim: Simulator) -> None:
    client = openai.OpenAI(base_url=sim.openai_base_url, api_key="test", max_retries=0)
    chat = client.chat.completions.parse(model="gpt-4o", messages=ASK_REFUSAL, response_format=Sky)
    message = chat.choices[0].message
    assert (message.refusal, message.parsed) == (REFUSED, None)  # was '{"city": "I can't ..."}'
    answered = client.responses.parse(model="gpt-4o", input=ASK_REFUSAL, text_format=Sky)
    part = answered.output[0].content[0]
    assert (part.type, part.refusal, answered.output_parsed) == ("refusal", REFUSED, None)


def test_a_text_part_states_its_logprobs_as_the_api_does(sim: Simulator) -> None:
    client = openai.OpenAI(base_url=sim.openai_base_url, api_key="test", max_retries=0)
    answered = client.responses.create(model="gpt-4o", input="hi")
    with client.responses.stream(model="gpt-4o", input="hi") as events:
        final = events.get_final_response()
    for response in (answered, final):
        assert response.output[0].content[0].logprobs == []  # was None, the API says []


def test_a_refusal_s_chat_stream_opens_its_refusal_as_the_api_does(sim: Simulator) -> None:
    client = openai.OpenAI(base_url=sim.openai_base_url, api_key="test", max_retries=0)
    chunks = client.chat.completions.create(model="gpt-4o", messages=ASK_REFUSAL, stream=True)
    first = next(iter(chunks)).choices[0].delta
    assert (first.role, first.content, first.refusal) == ("assistant", None, "")  # was None


def test_a_chat_answer_names_its_service_tier_as_the_api_s_does(sim: Simulator) -> None:
    """LiteLLM's client for Groq reads the ``service_tier`` of every Chat Completions
    answer, which the simulator's lacked: its recording stopped on an AttributeError."""
    client = openai.OpenAI(api_key="test", base_url=sim.openai_base_url)
    assert client.chat.completions.create(**ASK_CHAT).service_tier == "default"
    assert client.chat.completions.create(**ASK_CHAT, service_tier="flex").service_tier == "flex"
    chunks = list(client.chat.completions.create(**ASK_CHAT, stream=True))
    assert {chunk.service_tier for chunk in chunks} == {"default"}


def test_a_chat_answer_names_its_system_fingerprint_as_the_api_s_does(sim: Simulator) -> None:
    """Every Chat Completions answer of the API, and each chunk of its stream, names the
    backend configuration that served it (``system_fingerprint``, ``fp_`` and ten hex
    digits), which code logging reproducibility reads; a recording from the simulator
    lacked it."""
    client = openai.OpenAI(api_key="test", base_url=sim.openai_base_url)
    named = client.chat.completions.create(**ASK_CHAT).system_fingerprint
    assert named is not None and re.fullmatch(r"fp_[0-9a-f]{10}", named)
    chunks = list(client.chat.completions.create(**ASK_CHAT, stream=True))
    assert {chunk.system_fingerprint for chunk in chunks} == {named}
    other = client.chat.completions.create(**{**ASK_CHAT, "model": "gpt-4o-mini"})
    assert other.system_fingerprint not in (None, named)


def test_a_chat_stream_s_chunks_carry_obfuscation_unless_asked_not_to(sim: Simulator) -> None:
    """The API pads every chunk of a Chat Completions stream (its ``ChatCompletionChunk``
    declares ``obfuscation``), the finish and the usage chunks too, unless
    ``stream_options.include_obfuscation`` is false; a stream recorded from the
    simulator had none."""
    client = openai.OpenAI(api_key="test", base_url=sim.openai_base_url)
    usage = {"include_usage": True}
    chunks = list(client.chat.completions.create(**ASK_CHAT, stream=True, stream_options=usage))
    padding = [chunk.obfuscation for chunk in chunks]
    assert chunks[-1].usage is not None and chunks[-2].choices[0].finish_reason == "stop"
    assert all(p and re.fullmatch(r"[A-Za-z0-9]{1,15}", p) for p in padding), padding
    again = list(client.chat.completions.create(**ASK_CHAT, stream=True, stream_options=usage))
    assert len(set(padding)) > 1 and padding != [c.obfuscation for c in again]  # per answer
    plain = {**usage, "include_obfuscation": False}
    unpadded = client.chat.completions.create(**ASK_CHAT, stream=True, stream_options=plain)
    assert {chunk.obfuscation for chunk in unpadded} == {None}


def test_a_chat_answer_names_the_snapshot_its_alias_points_at(sim: Simulator) -> None:
    """The API answers a request for ``gpt-4o`` as ``gpt-4o-2024-08-06``, in an answer and
    each chunk of its stream; the simulator named the alias."""
    client = openai.OpenAI(api_key="test", base_url=sim.openai_base_url)
    assert client.chat.completions.create(**ASK_CHAT).model == "gpt-4o-2024-08-06"
    chunks = client.chat.completions.create(**ASK_CHAT, stream=True)
    assert {chunk.model for chunk in chunks} == {"gpt-4o-2024-08-06"}
    dated = {**ASK_CHAT, "model": "gpt-4o-2024-11-20"}
    assert client.chat.completions.create(**dated).model == "gpt-4o-2024-11-20"
