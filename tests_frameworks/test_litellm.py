"""LiteLLM, sync and async, with ``num_retries`` on, recorded and replayed by intercept().

LiteLLM's sync path sends through httpx (its Anthropic client) or the openai SDK;
its async path through httpx clients on its aiohttp transport. A miss through its
sync OpenAI client crosses every layer unwrapped; its Anthropic client and its async
OpenAI client wrap every transport error, so there the test gets LiteLLM's
``InternalServerError`` carrying the miss (see replaygate.http.passthrough).
"""

from __future__ import annotations

import asyncio
import json
import threading
import warnings
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import litellm
import pytest
from litellm.exceptions import MidStreamFallbackError
from litellm.router import RetryPolicy
from pydantic import BaseModel

import replaygate.http
from replaygate.errors import FixtureMismatchError
from replaygate.fixtures.store import FixtureStore
from replaygate.models.types import Message, ModelResponse, ToolCall, ToolSpec
from replaygate.pytest_plugin.key_note import missing_key
from replaygate.sim import Simulator
from tests_frameworks.harness import (
    CAUGHT,
    CHANGED,
    CLAUDE,
    FAKE_KEY,
    GPT,
    QUESTION,
    WEATHER_ARGS,
    Hosts,
    assert_marker_alone_records_and_replays,
    assert_one_miss,
    assert_recipe_replays,
    assert_retry_replayed_at_once,
    matrix_cases,
    record,
    replay_three_times,
    run_replay_errors,
    weather,
)
from tests_frameworks.page import assert_page_imports_resolve, section

PROVIDERS = {"anthropic": "Anthropic model", "openai": "OpenAI model"}
ROUTED = {"anthropic": "Router, Anthropic model", "openai": "Router, OpenAI model"}
WEATHER_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "weather",
        "description": "The weather in a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}
MISS_RAISES = (FixtureMismatchError, litellm.InternalServerError)
"""The miss itself (the OpenAI client, sync), or LiteLLM's wrapper of it (its own
Anthropic client, and its async OpenAI client, wrap every transport error)."""


def arguments(provider: str, hosts: Hosts, question: str, **extra: Any) -> dict[str, Any]:
    """The keyword arguments of one completion, retries on (``bedrock``: a ``bedrock/``
    model, :func:`conversed`)."""
    if provider == "bedrock":
        return conversed(hosts, question, **extra)
    if provider == "anthropic":
        model, base = f"anthropic/{CLAUDE}", hosts.anthropic
    else:
        model, base = f"openai/{GPT}", hosts.openai
    if extra.get("stream"):
        extra["stream_options"] = {"include_usage": True}
    messages = [{"role": "user", "content": question}]
    return {
        "model": model,
        "messages": messages,
        "api_base": base,
        "max_tokens": 64,
        "num_retries": 3,
        **extra,
    }


def plain(provider: str, hosts: Hosts, question: str = QUESTION) -> str | None:
    response = litellm.completion(**arguments(provider, hosts, question))
    return response.choices[0].message.content


def joined(deltas: list[Any]) -> str:
    """The text of streamed chunks."""
    return "".join(c.choices[0].delta.content or "" for c in deltas if c.choices)


def streamed(provider: str, hosts: Hosts, question: str = QUESTION) -> str:
    return joined(list(litellm.completion(**arguments(provider, hosts, question, stream=True))))


def with_tools(provider: str, hosts: Hosts, question: str = QUESTION) -> list[tuple[str, Any]]:
    response = litellm.completion(**arguments(provider, hosts, question, tools=[WEATHER_TOOL]))
    calls = response.choices[0].message.tool_calls or []
    return [(c.function.name, json.loads(c.function.arguments)) for c in calls]


def in_async(provider: str, hosts: Hosts, question: str = QUESTION) -> tuple[str | None, str]:
    async def main() -> tuple[str | None, str]:
        whole = await litellm.acompletion(**arguments(provider, hosts, question))
        stream = await litellm.acompletion(**arguments(provider, hosts, question, stream=True))
        return whole.choices[0].message.content, joined([c async for c in stream])

    return asyncio.run(main())


def plain_async(provider: str, hosts: Hosts, question: str = QUESTION) -> str | None:
    async def main() -> str | None:
        response = await litellm.acompletion(**arguments(provider, hosts, question))
        return response.choices[0].message.content

    return asyncio.run(main())


class CallsOrJson:
    """Calls the tool offered twice in one turn, answers with what the tools said, or
    answers a city in JSON when offered no tool."""

    def respond(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        results = [m.content for m in messages if m.role == "tool"]
        if results:
            return ModelResponse(text=f"results: {'; '.join(results)}")
        if not tools:
            return ModelResponse(text=json.dumps({"city": "Paris"}))
        cities = ({"city": "Paris"}, {"city": "Rome"})
        calls = tuple(
            ToolCall(id=f"call_{i}", name=tools[0].name, arguments=c) for i, c in enumerate(cities)
        )
        return ModelResponse(tool_calls=calls, stop_reason="tool_use")


def parallel_async(provider: str, hosts: Hosts, question: str = QUESTION) -> tuple[Any, str]:
    """Two tool calls streamed in one turn (``acompletion``), their results sent back,
    the answer streamed."""

    async def main() -> tuple[Any, str]:
        first = arguments(provider, hosts, question, stream=True, tools=[WEATHER_TOOL])
        calls: dict[int, dict[str, str]] = {}
        async for chunk in await litellm.acompletion(**first):
            for call in (chunk.choices[0].delta.tool_calls or []) if chunk.choices else []:
                into = calls.setdefault(call.index, {"id": "", "name": "", "arguments": ""})
                into["id"] = into["id"] or call.id or ""
                into["name"] += call.function.name or ""
                into["arguments"] += call.function.arguments or ""
        said = [
            {
                "id": c["id"],
                "type": "function",
                "function": {"name": c["name"], "arguments": c["arguments"]},
            }
            for _, c in sorted(calls.items())
        ]
        results = [
            {
                "role": "tool",
                "tool_call_id": c["id"],
                "content": weather(**json.loads(c["function"]["arguments"])),
            }
            for c in said
        ]
        history = [*first["messages"], {"role": "assistant", "tool_calls": said}, *results]
        later = await litellm.acompletion(**{**first, "messages": history})
        return [json.loads(c["function"]["arguments"]) for c in said], joined(
            [c async for c in later]
        )

    return asyncio.run(main())


def formatted(provider: str, hosts: Hosts, question: str = QUESTION) -> tuple[Any, list[str]]:
    """A JSON-schema ``response_format`` (async), then two choices (``n=2``, OpenAI)."""

    class City(BaseModel):
        city: str

    async def main() -> Any:
        reply = await litellm.acompletion(
            **arguments(provider, hosts, question, response_format=City)
        )
        return json.loads(reply.choices[0].message.content)

    choices = []
    if provider == "openai":
        two = litellm.completion(**arguments(provider, hosts, question, n=2))
        choices = [choice.message.content for choice in two.choices]
    return asyncio.run(main()), choices


MORE = [
    pytest.param(recipe, provider, expected, id=f"{provider}-{recipe.__name__}")
    for provider in PROVIDERS
    for recipe, expected in (
        (
            parallel_async,
            ([{"city": "Paris"}, {"city": "Rome"}], "results: sunny in Paris; sunny in Rome"),
        ),
        (formatted, ({"city": "Paris"}, ['{"city": "Paris"}'] * 2 if provider == "openai" else [])),
    )
]


@pytest.mark.parametrize(("recipe", "provider", "expected"), MORE)
def test_more_usages_record_from_the_simulator_and_replay(
    store: Path, recipe: Callable[..., object], provider: str, expected: object
) -> None:
    """LiteLLM's async path with parallel tool calls streamed and their results sent back,
    a structured output, several choices."""
    run, miss = partial(recipe, provider), partial(recipe, provider, question=CHANGED)
    assert_recipe_replays(store, run, expected, miss, behavior=CallsOrJson(), raises=MISS_RAISES)


def responded(provider: str, hosts: Hosts, question: str = QUESTION) -> tuple[str, str]:
    """LiteLLM's Responses API (``responses``, then ``aresponses`` streamed), which it
    sends to OpenAI's ``/v1/responses`` and turns into a Messages request for Anthropic."""
    params = arguments(provider, hosts, question)
    given = {key: params[key] for key in ("model", "api_base", "num_retries")}
    whole = litellm.responses(input=question, max_output_tokens=64, **given)

    async def streamed() -> str:
        stream = await litellm.aresponses(
            input=question, max_output_tokens=64, stream=True, **given
        )
        return "".join([e.delta async for e in stream if e.type == "response.output_text.delta"])

    return whole.output_text, asyncio.run(streamed())


@pytest.mark.parametrize("provider", list(PROVIDERS))
def test_the_responses_api_records_from_the_simulator_and_replays(
    store: Path, provider: str
) -> None:
    run, miss = partial(responded, provider), partial(responded, provider, question=CHANGED)
    expected = (f"echo: {QUESTION}", f"echo: {QUESTION}")
    assert_recipe_replays(store, run, expected, miss, raises=MISS_RAISES)


THINKING = {"type": "enabled", "budget_tokens": 1024}
"""Claude's extended thinking, as LiteLLM passes it on (``thinking=``)."""


def thought_through(
    stream: bool, hosts: Hosts, question: str = QUESTION, provider: str = "anthropic"
) -> tuple[str | None, list[Any], list[Any]]:
    """Claude thinking before its tool call; the assistant message LiteLLM returned goes
    back as it came, its ``thinking_blocks`` with it, beside the tool's result: the
    answer, and the thinking blocks of both turns. ``stream``: ``acompletion`` streamed,
    its chunks built into a message (``stream_chunk_builder``)."""
    params = arguments(
        provider, hosts, question, tools=[WEATHER_TOOL], thinking=THINKING, max_tokens=2048
    )

    async def complete(messages: list[Any]) -> Any:
        if not stream:
            return litellm.completion(**{**params, "messages": messages}).choices[0].message
        chunks = await litellm.acompletion(**{**params, "messages": messages, "stream": True})
        built = litellm.stream_chunk_builder([c async for c in chunks], messages=messages)
        return built.choices[0].message

    async def main() -> tuple[str | None, list[Any], list[Any]]:
        called = await complete(params["messages"])
        results = [
            {
                "role": "tool",
                "tool_call_id": c.id,
                "content": weather(**json.loads(c.function.arguments)),
            }
            for c in called.tool_calls or []
        ]
        answered = await complete([*params["messages"], called, *results])
        return answered.content, called.thinking_blocks, answered.thinking_blocks

    return asyncio.run(main())


@pytest.mark.parametrize("stream", [False, True], ids=["completion", "acompletion-stream"])
def test_claude_s_thinking_blocks_go_back_with_the_tool_result_and_replay(
    store: Path, stream: bool
) -> None:
    """LiteLLM sends the ``thinking_blocks`` of the assistant message given back as the
    turn's first content, signed as they came (the simulator checks the signature, as the
    API does); the recorded request carrying them is the one the replay matched."""
    run = partial(thought_through, stream)
    answer, called, answered = record(store, run)
    assert answer == "The tool says: sunny in Paris"
    assert [block["type"] for block in [*called, *answered]] == ["thinking", "thinking"]
    assert replay_three_times(store, run) == (answer, called, answered)
    opened = FixtureStore.open(store)
    try:
        _, carrying = (fixture.request["body"] for fixture in opened)
    finally:
        opened.close()
    assert carrying["messages"][1]["content"][0] == dict(called[0])
    assert_one_miss(store, partial(run, question=CHANGED), raises=MISS_RAISES)


@pytest.mark.parametrize("stream", [False, True], ids=["completion", "acompletion-stream"])
def test_a_bedrock_model_s_thinking_goes_back_with_the_tool_result_and_replays(
    store: Path, stream: bool
) -> None:
    """Converse's reasoning block, its signature sent back in the next request: recording
    refused the signature (``reasoningContent``) as a high-entropy token."""
    run = partial(thought_through, stream, provider="bedrock")
    answer, called, answered = record(store, run)
    assert answer == "The tool says: sunny in Paris"
    assert [block["type"] for block in called] == ["thinking"]
    assert replay_three_times(store, run) == (answer, called, answered)
    wrapped = (*MISS_RAISES, litellm.ServiceUnavailableError)  # acompletion's stream
    assert_one_miss(store, partial(run, question=CHANGED), raises=wrapped)


def embedded(hosts: Hosts, question: str = QUESTION) -> tuple[list[int], bool, int]:
    """Two texts embedded (``embedding``), then one (``aembedding``, LiteLLM's async
    path): the vectors' sizes, whether the same text got the same vector, and the
    tokens counted."""
    params = {"model": "openai/text-embedding-3-small", "api_base": hosts.openai, "num_retries": 3}
    both = litellm.embedding(input=[question, "Another document."], **params)
    one = asyncio.run(litellm.aembedding(input=question, **params))
    vectors = [item["embedding"] for item in both.data]
    return (
        [len(v) for v in vectors],
        vectors[0] == one.data[0]["embedding"],
        both.usage.prompt_tokens,
    )


def test_embeddings_record_from_the_simulator_and_replay(store: Path) -> None:
    """The simulator answered ``/v1/embeddings`` 404 (recording stopped with
    ``UnservedRouteError``), and the secret scan refused the SDK's base64 vectors."""
    run, miss = embedded, partial(embedded, question=CHANGED)
    expected = ([1536, 1536], True, 16)
    assert_recipe_replays(store, run, expected, miss, raises=MISS_RAISES)


def router(provider: str, hosts: Hosts) -> litellm.Router:
    """A Router with one deployment, ``chat``: the model of ``provider`` at ``hosts``.

    Its own retry loop would send a miss again (``num_retries`` + 1 sends, with its
    waits): under replay it is given none, as docs/frameworks.md says."""
    params = arguments(provider, hosts, QUESTION)
    deployment = {key: params[key] for key in ("model", "api_base")}
    return litellm.Router(
        model_list=[{"model_name": "chat", "litellm_params": deployment}], num_retries=0
    )


def routed(provider: str, hosts: Hosts, question: str = QUESTION) -> tuple[str | None, str]:
    """The Router's completion, then its streamed completion."""
    chat = router(provider, hosts)
    messages = [{"role": "user", "content": question}]
    whole = chat.completion(model="chat", messages=messages, max_tokens=64)
    extra = {"stream_options": {"include_usage": True}} if provider == "openai" else {}
    stream = chat.completion(model="chat", messages=messages, max_tokens=64, stream=True, **extra)
    return whole.choices[0].message.content, joined(list(stream))


def routed_tools(provider: str, hosts: Hosts, question: str = QUESTION) -> list[tuple[str, Any]]:
    """The tool calls of the Router's completion offered :data:`WEATHER_TOOL`."""
    messages = [{"role": "user", "content": question}]
    response = router(provider, hosts).completion(
        model="chat", messages=messages, max_tokens=64, tools=[WEATHER_TOOL]
    )
    calls = response.choices[0].message.tool_calls or []
    return [(c.function.name, json.loads(c.function.arguments)) for c in calls]


def routed_async(provider: str, hosts: Hosts, question: str = QUESTION) -> str | None:
    """The Router's ``acompletion``."""

    async def main() -> str | None:
        chat = router(provider, hosts)
        messages = [{"role": "user", "content": question}]
        response = await chat.acompletion(model="chat", messages=messages, max_tokens=64)
        return response.choices[0].message.content

    return asyncio.run(main())


ECHO = f"echo: {QUESTION}"
CASES = matrix_cases(
    PROVIDERS,
    (
        ("plain", plain, ECHO),
        ("stream", streamed, ECHO),
        ("tools", with_tools, [("weather", {"city": "Paris"})]),
        ("async", in_async, (ECHO, ECHO)),
    ),
) + [
    pytest.param(provider, recipe, expected, marks=pytest.mark.matrix(row, *cells), id=ident)
    for provider, row in ROUTED.items()
    for ident, cells, recipe, expected in (
        (f"router-{provider}", ("plain", "stream"), routed, (ECHO, ECHO)),
        (f"router-{provider}-tools", ("tools",), routed_tools, [("weather", {"city": "Paris"})]),
        (f"router-{provider}-async", ("async",), routed_async, ECHO),
    )
]


def groq() -> tuple[str | None, str]:
    """A model of Groq's, asked through LiteLLM's client built for api.groq.com: its answer,
    plain, and streamed."""
    asked = {"model": "groq/llama-3.3-70b-versatile", "api_key": FAKE_KEY, "num_retries": 0}
    messages = [{"role": "user", "content": QUESTION}]
    reply = litellm.completion(messages=messages, **asked)
    chunks = litellm.completion(messages=messages, stream=True, **asked)
    return reply.choices[0].message.content, joined(list(chunks))


def test_a_groq_model_records_from_the_simulator_and_replays(store: Path) -> None:
    """LiteLLM's Groq client reads the ``service_tier`` of every answer, which the
    simulator's Chat Completions answers lacked: recording stopped with
    ``APIConnectionError: GroqException - 'ModelResponse' object has no attribute
    'service_tier'``."""
    with (
        Simulator(behavior="echo") as sim,
        replaygate.http.intercept(store, "record-missing", approve_live=True, live_origin=sim.url),
    ):
        assert groq() == (ECHO, ECHO)
    with replaygate.http.intercept(store):
        assert groq() == (ECHO, ECHO)


CONVERSE_MODEL = "bedrock/us.anthropic.claude-sonnet-4-6"
"""A ``bedrock/`` model: LiteLLM calls Bedrock's Converse API, signed with SigV4."""
AWS_KEYS = {
    "aws_access_key_id": "AKIAIOSFODNN7EXAMPLE",
    "aws_secret_access_key": "test",
    "aws_region_name": "us-east-1",
}


def conversed(hosts: Hosts, question: str, **extra: Any) -> dict[str, Any]:
    """The keyword arguments of one Converse call: to the simulator while recording, to
    ``bedrock-runtime.us-east-1.amazonaws.com`` (LiteLLM's default) while replaying."""
    base = {} if hosts.anthropic is None else {"api_base": hosts.anthropic}
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": question}]
    return {
        "model": CONVERSE_MODEL,
        "messages": messages,
        "max_tokens": 64,
        "num_retries": 3,
        **AWS_KEYS,
        **base,
        **extra,
    }


def converse_calls(hosts: Hosts, question: str = QUESTION) -> list[Any]:
    """A ``bedrock/`` model's answer plain and streamed, its tool call plain and streamed,
    the answer to the tool's result, its answer through ``acompletion``, streamed too, and
    in the JSON a ``response_format`` asks for."""
    whole = litellm.completion(**conversed(hosts, question))
    streamed = joined(list(litellm.completion(**conversed(hosts, question, stream=True))))
    asked = conversed(hosts, question, tools=[WEATHER_TOOL])
    called = litellm.completion(**asked).choices[0].message
    calls = [(c.function.name, json.loads(c.function.arguments)) for c in called.tool_calls]
    results = [
        {
            "role": "tool",
            "tool_call_id": c.id,
            "content": weather(**json.loads(c.function.arguments)),
        }
        for c in called.tool_calls
    ]
    history = [*asked["messages"], called, *results]
    answered = litellm.completion(**{**asked, "messages": history}).choices[0].message.content
    names = "".join(
        call.function.name or ""
        for chunk in litellm.completion(**asked, stream=True)
        for call in (chunk.choices[0].delta.tool_calls or [] if chunk.choices else [])
    )

    async def main() -> tuple[str | None, str]:
        reply = await litellm.acompletion(**conversed(hosts, question))
        stream = await litellm.acompletion(**conversed(hosts, question, stream=True))
        return reply.choices[0].message.content, joined([c async for c in stream])

    class City(BaseModel):
        city: str

    shaped = litellm.completion(**conversed(hosts, question, response_format=City))
    city = City.model_validate_json(shaped.choices[0].message.content).city
    return [
        whole.choices[0].message.content,
        streamed,
        calls,
        answered,
        names,
        asyncio.run(main()),
        city,
    ]


def test_a_bedrock_model_s_converse_calls_record_from_the_simulator_and_replay(
    store: Path,
) -> None:
    """``bedrock/`` models call Bedrock's Converse API, which the simulator did not serve:
    recording stopped with ``UnservedRouteError``. Its SigV4 signature and date are neither
    stored nor matched: the replay, signed seconds later, hits."""
    expected = [
        ECHO,
        ECHO,
        [("weather", dict(WEATHER_ARGS))],
        "The tool says: sunny in Paris",
        "weather",
        (ECHO, ECHO),
        ECHO,  # response_format: the schema Converse's outputConfig gives, once ignored
    ]
    miss = partial(converse_calls, question=CHANGED)
    assert_recipe_replays(store, converse_calls, expected, miss, raises=MISS_RAISES)
    text = store.read_text()
    assert "AWS4-HMAC-SHA256" not in text and "AKIAIOSFODNN7EXAMPLE" not in text
    assert "/converse-stream" in text


@pytest.mark.parametrize(("provider", "recipe", "expected"), CASES)
def test_recorded_run_replays_offline_and_a_changed_prompt_misses(
    store: Path, provider: str, recipe: Callable[..., object], expected: object
) -> None:
    run, miss = partial(recipe, provider), partial(recipe, provider, question=CHANGED)
    assert_recipe_replays(store, run, expected, miss, raises=MISS_RAISES)


@pytest.mark.parametrize(
    ("provider", "recipe"),
    [
        pytest.param(p, recipe, marks=pytest.mark.matrix(row, "retry"), id=f"{p}-{recipe.__name__}")
        for p, row in PROVIDERS.items()
        for recipe in (plain, plain_async)
    ],
)
def test_replayed_429_is_retried_at_once(
    store: Path, provider: str, recipe: Callable[..., object]
) -> None:
    assert_retry_replayed_at_once(store, partial(recipe, provider))


def gemini_completion(hosts: Hosts, question: str, **extra: Any) -> Any:
    """A completion of LiteLLM's Gemini client: at the simulator (which serves the Google
    API under ``/v1beta``) while recording, at Google's own API while replaying."""
    base = f"{hosts.anthropic}/v1beta" if hosts.anthropic else None
    messages = [{"role": "user", "content": question}]
    return litellm.completion(
        model="gemini/gemini-2.0-flash",
        messages=messages,
        api_base=base,
        api_key=FAKE_KEY,
        num_retries=3,
        **extra,
    )


def gemini(hosts: Hosts, question: str = QUESTION) -> str | None:
    return gemini_completion(hosts, question).choices[0].message.content


def gemini_tools(hosts: Hosts, question: str = QUESTION) -> list[tuple[str, Any]]:
    """The tool calls of LiteLLM's Gemini client offered :data:`WEATHER_TOOL`; it spells
    the request in snake_case (``function_declarations``, ``max_output_tokens``)."""
    response = gemini_completion(hosts, question, tools=[WEATHER_TOOL], max_tokens=64)
    calls = response.choices[0].message.tool_calls or []
    return [(c.function.name, json.loads(c.function.arguments)) for c in calls]


def test_a_miss_through_the_gemini_client_says_what_changed(store: Path) -> None:
    """LiteLLM's Gemini client reads ``status_code`` and ``message`` of the errors it
    catches: the miss reaches the test itself, with its message, sent once."""
    assert_recipe_replays(store, gemini, ECHO, partial(gemini, question=CHANGED))


def gemini_streamed(hosts: Hosts, question: str = QUESTION) -> str:
    return joined(list(gemini_completion(hosts, question, stream=True)))


def gemini_streamed_async(hosts: Hosts, question: str = QUESTION) -> str:
    async def main() -> str:
        base = f"{hosts.anthropic}/v1beta" if hosts.anthropic else None
        messages = [{"role": "user", "content": question}]
        stream = await litellm.acompletion(
            model="gemini/gemini-2.0-flash",
            messages=messages,
            api_base=base,
            api_key=FAKE_KEY,
            num_retries=3,
            stream=True,
        )
        return joined([chunk async for chunk in stream])

    return asyncio.run(main())


@pytest.mark.parametrize("recipe", [gemini_streamed, gemini_streamed_async])
def test_a_miss_in_a_gemini_stream_is_litellm_s_mid_stream_error(
    store: Path, recipe: Callable[..., str]
) -> None:
    """Streaming, LiteLLM's Gemini client wraps what its stream raises in its own
    ``MidStreamFallbackError`` (a ``ServiceUnavailableError``) with the miss's message,
    raised while handling the miss; it is not retried."""
    error = assert_recipe_replays(
        store,
        recipe,
        ECHO,
        partial(recipe, question=CHANGED),
        raises=MidStreamFallbackError,
    )
    assert isinstance(error.__context__, FixtureMismatchError)


def test_the_gemini_client_s_tool_calls_record_and_replay(store: Path) -> None:
    """The simulator reads LiteLLM's snake_case Gemini request as Google does: the
    model calls the tool offered, and the call replays."""
    expected = [("weather", {"city": "Paris"})]
    assert_recipe_replays(store, gemini_tools, expected, partial(gemini_tools, question=CHANGED))


def first_words(hosts: Hosts, question: str = QUESTION) -> tuple[str, Any]:
    """The first words of a streamed answer, and its stream, which the loop leaves unread
    and open: LiteLLM's wrapper of it is not closed by the collector before the
    interpreter exits, so a recording script ends with it open."""
    stream = litellm.completion(**arguments("openai", hosts, question, stream=True))
    for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:
            return chunk.choices[0].delta.content, stream
    raise AssertionError("the stream held no text")


def test_a_stream_left_open_is_recorded_by_the_end_of_the_block(store: Path) -> None:
    """Breaking out of a streamed completion, the usual way to take its first words: what
    was read before the block ends is in the store then, and replays."""
    words, stream = record(store, first_words)
    try:
        assert replay_three_times(store, lambda hosts: first_words(hosts)[0]) == words
    finally:
        stream.close()


def test_a_sync_callback_outlives_the_block_unwarned_as_the_page_says(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/frameworks.md: ``completion`` runs ``litellm.success_callback`` in LiteLLM's
    ``litellm-logging`` threads after it returns; the block ends while the callback still
    runs, and says nothing of it, so the page tells how to keep what it sends offline."""
    record(store, partial(plain, "anthropic"))
    running, release, done = threading.Event(), threading.Event(), threading.Event()
    threads: list[str] = []

    def callback(*_: Any) -> None:
        threads.append(threading.current_thread().name)
        running.set()
        release.wait(10)
        done.set()

    monkeypatch.setattr(litellm, "success_callback", [callback])
    try:
        with warnings.catch_warnings(record=True) as warned, replaygate.http.intercept(store):
            warnings.simplefilter("always")
            plain("anthropic", Hosts())
        assert running.wait(10) and not done.is_set()
    finally:
        release.set()
    assert threads[0].startswith("litellm-logging")
    assert not [w for w in warned if w.category.__module__.startswith("replaygate")]
    assert "`litellm-logging`" in section("LiteLLM")


USER_TESTS = """
import asyncio

import litellm
from litellm.exceptions import MidStreamFallbackError
import pytest
from pydantic import BaseModel

pytestmark = pytest.mark.replaygate(fixtures="agent.jsonl")


class City(BaseModel):
    name: str
    population: int


def ask(model, question):
    return litellm.completion(model=model, messages=[{"role": "user", "content": question}])


def test_gpt_answers():
    reply = ask("openai/gpt-4o", QUESTION)
    assert reply.choices[0].message.content == f"echo: {QUESTION}"


def test_claude_answers_async():
    messages = [{"role": "user", "content": QUESTION}]
    reply = asyncio.run(litellm.acompletion(model="anthropic/claude-sonnet-4-6", messages=messages))
    assert reply.choices[0].message.content == f"echo: {QUESTION}"


def test_claude_structured_output():
    messages = [{"role": "user", "content": QUESTION}]
    reply = litellm.completion(
        model="anthropic/claude-sonnet-4-6", messages=messages, response_format=City
    )
    assert City.model_validate_json(reply.choices[0].message.content)


def test_changed_question():
    ask("anthropic/claude-sonnet-4-6", CHANGED)
"""


def test_the_marker_alone_records_from_the_simulator_and_replays(tmp_path: Path) -> None:
    """An Anthropic model's structured output made LiteLLM fetch its beta headers from
    GitHub in each process, which replaying caught as a miss; ``LITELLM_OFFLINE_MODE``
    (tests_frameworks/conftest.py, docs/frameworks.md) keeps it to its bundled copy."""
    assert_marker_alone_records_and_replays(tmp_path, USER_TESTS, fixtures=3)


FALLBACK_TESTS = """
import litellm
from litellm.exceptions import MidStreamFallbackError
import pytest

pytestmark = pytest.mark.replaygate(fixtures="agent.jsonl")
MESSAGES = [{"role": "user", "content": "a question never recorded"}]
CLAUDE = {"model_name": "chat", "litellm_params": {"model": "anthropic/claude-sonnet-4-6"}}
LOCAL = {"model": "openai/gpt-4o", "mock_response": "fallback"}  # answers without a request


def test_router_falls_back():
    router = litellm.Router(
        model_list=[CLAUDE, {"model_name": "local", "litellm_params": LOCAL}],
        fallbacks=[{"chat": ["local"]}],
        num_retries=1,
    )
    reply = router.completion(model="chat", messages=MESSAGES)
    assert reply.choices[0].message.content == "fallback"


def test_router_retries_then_fails():
    router = litellm.Router(model_list=[CLAUDE], num_retries=1)
    router.completion(model="chat", messages=MESSAGES)


def test_completion_falls_back():
    reply = litellm.completion(
        model="anthropic/claude-sonnet-4-6", messages=MESSAGES, num_retries=2, fallbacks=[LOCAL]
    )
    assert reply.choices[0].message.content == "fallback"


def test_completion_retries_then_fails():
    litellm.completion(model="anthropic/claude-sonnet-4-6", messages=MESSAGES, num_retries=2)
"""


def test_a_miss_caught_by_fallbacks_still_fails_the_test(tmp_path: Path) -> None:
    """A Router's ``fallbacks`` and ``completion(fallbacks=...)`` hand a miss to a
    ``mock_response`` deployment that answers: the plugin fails the test at teardown,
    once, the Router's retries of the miss included. Without a fallback, the miss
    (sent again by the Router's ``num_retries``) fails the test once, as LiteLLM's
    ``InternalServerError`` carrying it, and nothing more."""
    summary, output = run_replay_errors(tmp_path, FALLBACK_TESTS)
    assert set(summary) == {
        ("ERROR", "test_router_falls_back"),
        ("FAILED", "test_router_retries_then_fails"),
        ("ERROR", "test_completion_falls_back"),
        ("FAILED", "test_completion_retries_then_fails"),
    }, output
    for name in ("test_router_falls_back", "test_completion_falls_back"):
        assert summary["ERROR", name].startswith(CAUGHT), output
    for name in ("test_router_retries_then_fails", "test_completion_retries_then_fails"):
        reason = summary["FAILED", name]
        assert reason.startswith("litellm.exceptions.InternalServerError"), output
        assert "no fixture recorded for this HTTP request" in reason, output


def test_the_page_recipe_imports_what_exists() -> None:
    """docs/frameworks.md's code for this framework parses and imports only what exists."""
    assert_page_imports_resolve("LiteLLM")


@pytest.mark.parametrize("policy", ["retry_policy", "model_group_retry_policy"])
def test_a_router_s_retry_policy_sends_a_miss_again_as_the_page_says(
    store: Path, policy: str
) -> None:
    """docs/frameworks.md: a Router's retry policy gives ``InternalServerError``, which a
    miss through LiteLLM's Anthropic client is, its own count of retries, whatever
    ``num_retries`` says; the page tells to leave it out of replayed tests."""
    retries = RetryPolicy(InternalServerErrorRetries=1)
    given = {"retry_policy": retries} if policy == "retry_policy" else {policy: {"chat": retries}}
    deployment = {"model_name": "chat", "litellm_params": {"model": f"anthropic/{CLAUDE}"}}
    chat = litellm.Router(model_list=[deployment], num_retries=0, **given)
    messages = [{"role": "user", "content": CHANGED}]
    with (
        pytest.raises(litellm.InternalServerError, match="no fixture recorded"),
        replaygate.http.intercept(store) as exchange,
    ):
        chat.completion(model="chat", messages=messages, max_tokens=64)
    assert exchange.sent == 2
    assert f"`{policy}`" in section("LiteLLM")


@pytest.mark.parametrize("asynchronous", [False, True], ids=["completion", "acompletion"])
@pytest.mark.parametrize(
    ("second", "told"),
    [
        ({"model": f"openai/{GPT}"}, True),
        ({"model": f"anthropic/{CLAUDE}", "api_key": "other"}, False),
        ({"model": f"anthropic/{CLAUDE}", "api_base": "https://eu.example.com"}, False),
        ({"model": f"anthropic/{CLAUDE}", "api_base": "https://gw.example.com/claude"}, True),
    ],
    ids=["two-models", "two-keys", "two-hosts", "two-paths"],
)
def test_a_miss_through_a_router_of_several_models_says_it_picks_at_random(
    store: Path, second: dict[str, str], told: bool, asynchronous: bool
) -> None:
    """A Router whose model group has deployments of several models sends each call to one
    picked at random, so a replay misses at random: its miss says so and how to make it
    deterministic; deployments of one model (other keys, hosts) send the same request."""
    chat = litellm.Router(
        model_list=[
            {"model_name": "chat", "litellm_params": {"model": f"anthropic/{CLAUDE}"}},
            {"model_name": "chat", "litellm_params": second},
        ],
        num_retries=0,
    )
    given: dict[str, Any] = {"model": "chat", "messages": [{"role": "user", "content": CHANGED}]}
    with pytest.raises(MISS_RAISES) as raised, replaygate.http.intercept(store):
        if asynchronous:
            asyncio.run(chat.acompletion(**given))
        else:
            chat.completion(**given)
    note = "LiteLLM's Router, whose model group 'chat' has deployments of several models or"
    assert (note in str(raised.value)) == told
    assert "one deployment per model group" in section("LiteLLM")


def responses_miss(provider: str, stream: bool, asynchronous: bool) -> None:
    """One call of LiteLLM's Responses API that is not recorded."""
    model = f"anthropic/{CLAUDE}" if provider == "anthropic" else f"openai/{GPT}"
    given: dict[str, Any] = {"model": model, "input": CHANGED, "stream": stream}

    async def later() -> None:
        answer = await litellm.aresponses(**given)
        if stream:
            [event async for event in answer]

    if asynchronous:
        asyncio.run(later())
    else:
        answer = litellm.responses(**given)
        if stream:
            list(answer)


@pytest.mark.parametrize("asynchronous", [False, True], ids=["responses", "aresponses"])
@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("provider", list(PROVIDERS))
def test_a_responses_api_miss_is_raised_once_as_the_page_says(
    store: Path, provider: str, stream: bool, asynchronous: bool
) -> None:
    """docs/frameworks.md: LiteLLM's ``InternalServerError`` carrying the miss's message,
    streamed or not, but an Anthropic model's stream lets ``FixtureMismatchError`` itself
    through."""
    expected = (
        FixtureMismatchError if provider == "anthropic" and stream else litellm.InternalServerError
    )
    with (
        pytest.raises(expected, match="no fixture recorded"),
        replaygate.http.intercept(store) as exchange,
    ):
        responses_miss(provider, stream, asynchronous)
    assert exchange.sent == 1


def completion_miss(model: str, stream: bool, asynchronous: bool) -> None:
    """One completion that is not recorded, ``num_retries`` on."""
    given: dict[str, Any] = {
        "model": model,
        "messages": [{"role": "user", "content": CHANGED}],
        "stream": stream,
        "num_retries": 3,
    }

    async def later() -> None:
        answer = await litellm.acompletion(**given)
        if stream:
            [chunk async for chunk in answer]

    if asynchronous:
        asyncio.run(later())
    else:
        answer = litellm.completion(**given)
        if stream:
            list(answer)


WRAPPED = litellm.InternalServerError
COMPLETION_MISSES = [
    (f"openai/{GPT}", False, False, FixtureMismatchError),
    (f"openai/{GPT}", False, True, WRAPPED),
    (f"openai/{GPT}", True, False, FixtureMismatchError),
    (f"openai/{GPT}", True, True, FixtureMismatchError),
    (f"anthropic/{CLAUDE}", False, False, WRAPPED),
    (f"anthropic/{CLAUDE}", False, True, WRAPPED),
    (f"anthropic/{CLAUDE}", True, False, FixtureMismatchError),
    (f"anthropic/{CLAUDE}", True, True, FixtureMismatchError),
    ("gemini/gemini-2.5-flash", False, False, FixtureMismatchError),
    ("gemini/gemini-2.5-flash", False, True, FixtureMismatchError),
    ("gemini/gemini-2.5-flash", True, False, MidStreamFallbackError),
    ("gemini/gemini-2.5-flash", True, True, MidStreamFallbackError),
    (CONVERSE_MODEL, False, False, FixtureMismatchError),
    (CONVERSE_MODEL, False, True, FixtureMismatchError),
    (CONVERSE_MODEL, True, False, FixtureMismatchError),
    (CONVERSE_MODEL, True, True, litellm.ServiceUnavailableError),
]
RETRIED_WORDING = (WRAPPED, litellm.ServiceUnavailableError)
"""The errors of acompletion that carry the miss's message and say ``LiteLLM Retried``."""


@pytest.mark.parametrize(("model", "stream", "asynchronous", "expected"), COMPLETION_MISSES)
def test_a_completion_miss_is_raised_once_as_the_page_says(
    store: Path,
    monkeypatch: pytest.MonkeyPatch,
    model: str,
    stream: bool,
    asynchronous: bool,
    expected: type[Exception],
) -> None:
    """docs/frameworks.md: the miss itself through LiteLLM's OpenAI client (and its
    Gemini client), LiteLLM's ``InternalServerError`` with the miss's message from its
    Anthropic client and its async OpenAI client when not streaming, and
    ``MidStreamFallbackError`` from a Gemini stream, ``ServiceUnavailableError`` from a
    ``bedrock/`` model's ``acompletion`` stream; sent once, ``num_retries`` on.
    ``acompletion``'s ``InternalServerError`` says ``LiteLLM Retried: 3 times`` all the
    same, which the page tells so that nobody reads it as three sends."""
    monkeypatch.setenv("GEMINI_API_KEY", "test")
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "test")
    monkeypatch.setenv("AWS_REGION_NAME", "us-east-1")
    with (
        pytest.raises(expected, match="no fixture recorded") as raised,
        replaygate.http.intercept(store) as exchange,
    ):
        completion_miss(model, stream, asynchronous)
    assert exchange.sent == 1
    # a RuntimeError, as the miss is, which LangGraph's default RetryPolicy does not retry
    # (LiteLLM raises a stream's mid-stream error in the stream, past that change)
    assert isinstance(raised.value, RuntimeError) == (expected is not MidStreamFallbackError)
    claimed = "LiteLLM Retried: 3 times"
    assert str(raised.value).endswith(claimed) == (asynchronous and expected in RETRIED_WORDING)
    assert f"`{claimed}`" in section("LiteLLM")


def test_litellm_s_rust_core_sends_past_intercept_as_the_page_says(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/frameworks.md: ``litellm.ocr`` is sent by LiteLLM's Rust core, which no patched
    client and no socket check of replaygate sees: inside a replaying block it reaches
    the address it names (here the simulator, which has no OCR route) and nothing of it
    is answered, refused or counted. The page tells to keep it out of replayed tests."""
    monkeypatch.setenv("MISTRAL_API_KEY", "test")
    document = {"type": "document_url", "document_url": "https://example.com/a.pdf"}
    with (
        Simulator() as sim,
        pytest.raises(litellm.NotFoundError, match="/v1/ocr"),
        replaygate.http.intercept(store) as exchange,
    ):
        litellm.ocr(model="mistral/mistral-ocr-latest", document=document, api_base=sim.url)
    assert exchange.sent == 0
    assert [request.path for request in sim.requests] == ["/v1/ocr"]
    assert "`ocr` always" in section("LiteLLM")
    assert "`LITELLM_RUST=true`" in section("LiteLLM")


@pytest.mark.parametrize(
    ("model", "variable"),
    [
        (f"openai/{GPT}", "OPENAI_API_KEY"),
        (f"anthropic/{CLAUDE}", "ANTHROPIC_API_KEY"),
        ("gemini/gemini-2.5-flash", "GEMINI_API_KEY"),
    ],
)
def test_litellm_s_error_for_a_missing_key_names_the_key_to_set(
    monkeypatch: pytest.MonkeyPatch, model: str, variable: str
) -> None:
    """LiteLLM raises errors of its own over the SDK's (or words them itself): the
    plugin's note naming the variable to set found none of them."""
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(Exception) as raised:
        litellm.completion(model=model, messages=[{"role": "user", "content": QUESTION}])
    assert missing_key(raised.value) == variable


@pytest.mark.parametrize(
    ("asynchronous", "expected"),
    [(False, litellm.APIConnectionError), (True, Exception)],
    ids=["completion", "acompletion"],
)
def test_fallbacks_that_all_miss_raise_the_last_and_tell_the_first_as_the_page_says(
    store: Path, asynchronous: bool, expected: type[Exception]
) -> None:
    """docs/frameworks.md: ``completion(fallbacks=...)`` whose every model misses raises the
    last miss's text as LiteLLM's own error, its cause dropped; the error leaving the block
    named nothing of the first model's miss, the one naming the change, and the sync one
    says it looks like a bug in LiteLLM."""
    given: dict[str, Any] = {
        "model": f"anthropic/{CLAUDE}",
        "messages": [{"role": "user", "content": CHANGED}],
        "max_tokens": 64,
        "fallbacks": [{"model": f"openai/{GPT}"}],
    }
    with (
        pytest.raises(expected, match="no fixture recorded") as raised,
        replaygate.http.intercept(store) as exchange,
    ):
        if asynchronous:
            asyncio.run(litellm.acompletion(**given))
        else:
            litellm.completion(**given)
    assert exchange.sent == 2
    assert "POST https://api.openai.com/v1/chat/completions" in str(raised.value)
    (note, *_) = raised.value.__notes__
    assert "caught by the code under test before this one. The first: no fixture recorded" in note
    assert "(POST https://api.anthropic.com/v1/messages)" in note
    bug = "This looks like a bug in LiteLLM rather than in your request"
    assert (bug in str(raised.value)) != asynchronous
    assert f"`{bug}`" in " ".join(section("LiteLLM").split())
