"""The official SDKs (anthropic, openai) on their own: sync, async, streaming and tools.

The main suite covers them in depth (tests/test_http_sdk.py); here they run at the
versions of the matrix, through the same recipe as the frameworks: intercept().
"""

from __future__ import annotations

import asyncio
import json
import re
import warnings
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import anthropic
import anyio
import openai
import pytest
from pydantic import BaseModel, Field

from replaygate.errors import TaskOutlivesBlockWarning
from replaygate.http import intercept
from replaygate.sim import EchoBehavior
from tests_frameworks.harness import (
    CHANGED,
    CLAUDE,
    GPT,
    QUESTION,
    Hosts,
    assert_marker_alone_records_and_replays,
    assert_one_miss,
    assert_recipe_replays,
    assert_retry_replayed_at_once,
    matrix_cases,
    record,
    replay_three_times,
    retry_cases,
)
from tests_frameworks.page import PAGE, assert_page_imports_resolve

PROVIDERS = {"anthropic": "anthropic SDK", "openai": "openai SDK"}
SCHEMA: dict[str, Any] = {"type": "object", "properties": {"city": {"type": "string"}}}
ANTHROPIC_TOOL = {"name": "weather", "description": "The weather.", "input_schema": SCHEMA}
OPENAI_TOOL = {
    "type": "function",
    "function": {"name": "weather", "description": "The weather.", "parameters": SCHEMA},
}


def ask(provider: str, hosts: Hosts, question: str, **extra: Any) -> Any:
    """One request, sync, through a new client with retries on."""
    messages = [{"role": "user", "content": question}]
    if provider == "anthropic":
        claude = anthropic.Anthropic(base_url=hosts.anthropic, max_retries=3)
        return claude.messages.create(model=CLAUDE, max_tokens=64, messages=messages, **extra)
    gpt = openai.OpenAI(base_url=hosts.openai, max_retries=3)
    return gpt.chat.completions.create(model=GPT, messages=messages, **extra)


def plain(provider: str, hosts: Hosts, question: str = QUESTION) -> str:
    reply = ask(provider, hosts, question)
    if provider == "anthropic":
        return str(reply.content[0].text)
    return str(reply.choices[0].message.content)


def streamed(provider: str, hosts: Hosts, question: str = QUESTION) -> str:
    events = ask(provider, hosts, question, stream=True)
    if provider == "anthropic":
        return "".join(e.delta.text for e in events if e.type == "content_block_delta")
    return "".join(c.choices[0].delta.content or "" for c in events if c.choices)


def with_tools(provider: str, hosts: Hosts, question: str = QUESTION) -> list[Any]:
    if provider == "anthropic":
        reply = ask(provider, hosts, question, tools=[ANTHROPIC_TOOL])
        return [(b.name, b.input) for b in reply.content if b.type == "tool_use"]
    reply = ask(provider, hosts, question, tools=[OPENAI_TOOL])
    calls = reply.choices[0].message.tool_calls or []
    return [(c.function.name, json.loads(c.function.arguments)) for c in calls]


def in_async(provider: str, hosts: Hosts, question: str = QUESTION) -> str:
    messages: Any = [{"role": "user", "content": question}]

    async def main() -> str:
        if provider == "anthropic":
            claude = anthropic.AsyncAnthropic(base_url=hosts.anthropic, max_retries=3)
            kwargs: Any = {"model": CLAUDE, "max_tokens": 64, "messages": messages}
            async with claude.messages.stream(**kwargs) as stream:
                return "".join([text async for text in stream.text_stream])
        gpt = openai.AsyncOpenAI(base_url=hosts.openai, max_retries=3)
        reply = await gpt.chat.completions.create(model=GPT, messages=messages)
        return str(reply.choices[0].message.content)

    return asyncio.run(main())


class Reading(BaseModel):
    """A structured output whose constraints Anthropic's structured outputs do not take:
    the SDK moves them into each field's description (``{minItems: 2}``)."""

    values: list[int] = Field(min_length=2)
    above: int = Field(gt=5)


def parsed(hosts: Hosts, question: str = QUESTION) -> dict[str, Any]:
    """``messages.parse`` of a :class:`Reading` (``output_format``)."""
    claude = anthropic.Anthropic(base_url=hosts.anthropic, max_retries=3)
    reply = claude.messages.parse(
        model=CLAUDE,
        max_tokens=1024,
        messages=[{"role": "user", "content": question}],
        output_format=Reading,
    )
    assert reply.parsed_output is not None
    return reply.parsed_output.model_dump()


def test_a_parsed_output_with_constraints_records_from_the_echo_simulator(store: Path) -> None:
    """What the echo simulator answers an ``output_format`` validates as the model class."""
    expected = record(store, parsed, behavior=EchoBehavior())
    assert replay_three_times(store, parsed) == expected
    assert_one_miss(store, partial(parsed, question=CHANGED))


ECHO = f"echo: {QUESTION}"
CASES = matrix_cases(
    PROVIDERS,
    (
        ("plain", plain, ECHO),
        ("stream", streamed, ECHO),
        ("tools", with_tools, [("weather", {"city": "Paris"})]),
        ("async", in_async, ECHO),
    ),
)


@pytest.mark.parametrize(("provider", "recipe", "expected"), CASES)
def test_recorded_run_replays_offline_and_a_changed_prompt_misses(
    store: Path, provider: str, recipe: Callable[..., object], expected: object
) -> None:
    run, miss = partial(recipe, provider), partial(recipe, provider, question=CHANGED)
    assert_recipe_replays(store, run, expected, miss)


@pytest.mark.parametrize("provider", retry_cases(PROVIDERS))
def test_replayed_429_is_retried_at_once(store: Path, provider: str) -> None:
    assert_retry_replayed_at_once(store, partial(plain, provider))


def in_trio(hosts: Hosts, question: str = QUESTION) -> list[str]:
    """Ten AsyncAnthropic calls in a task group under trio, each asked in time, then one
    asked past its deadline (an agent's time budget spent), which goes to a fallback."""
    claude = anthropic.AsyncAnthropic(base_url=hosts.anthropic, max_retries=3)

    async def answer(question: str, budget: float) -> str:
        try:
            with anyio.fail_after(budget):
                reply = await claude.messages.create(
                    model=CLAUDE, max_tokens=64, messages=[{"role": "user", "content": question}]
                )
                return str(reply.content[0].text)
        except TimeoutError:
            return f"out of time: {question}"

    async def main() -> list[str]:
        answers = [""] * 10

        async def one(i: int) -> None:
            answers[i] = await answer(f"{question} ({i})", 30)

        async with anyio.create_task_group() as group:
            for i in range(10):
                group.start_soon(one, i)
        return [*answers, await answer(question, 0)]

    return anyio.run(main, backend="trio")


def test_a_task_group_under_trio_replays_each_its_answer_and_a_spent_deadline(
    store: Path,
) -> None:
    """A replayed send past its deadline was answered, where live trio cancels it: the
    replay missed the request the recording had never stored."""
    expected = record(store, in_trio, behavior=EchoBehavior())
    assert expected[3] == f"echo: {QUESTION} (3)" and expected[-1] == f"out of time: {QUESTION}"
    assert replay_three_times(store, in_trio) == expected


def test_a_trio_task_left_running_as_its_block_ends_is_warned_of(store: Path) -> None:
    """A task started inside an intercept() block into a nursery opened outside it sends
    after the block, to the network, unanswered; under asyncio the block warned of such a
    task, under trio it said nothing."""

    async def main() -> list[str]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            async with anyio.create_task_group() as group:
                with intercept(store):
                    group.start_soon(anyio.sleep_forever, name="left-running")
                group.cancel_scope.cancel()
        return [str(w.message) for w in caught if w.category is TaskOutlivesBlockWarning]

    (warned,) = anyio.run(main, backend="trio")
    assert warned.startswith(
        "1 trio task(s) started inside this intercept() block still run as it ends "
        "(left-running: anyio."
    ), warned
    assert warned.endswith("or enter it around trio.run(...) or anyio.run(...)")


USER_TESTS = """
import asyncio

import anthropic
import openai
import pytest


def messages(question):
    return [{"role": "user", "content": question}]


@pytest.mark.replaygate(fixtures="agent.jsonl")
def test_claude_answers():
    reply = anthropic.Anthropic().messages.create(
        model="claude-sonnet-4-6", max_tokens=1024, messages=messages(QUESTION)
    )
    assert reply.content[0].text == f"echo: {QUESTION}"


@pytest.mark.replaygate(fixtures="agent.jsonl")
def test_gpt_answers_async():
    gpt = openai.AsyncOpenAI()
    create = gpt.chat.completions.create(model="gpt-4o", messages=messages(QUESTION))
    assert asyncio.run(create).choices[0].message.content == f"echo: {QUESTION}"


@pytest.mark.replaygate(fixtures="agent.jsonl")
def test_changed_question():
    anthropic.Anthropic().messages.create(
        model="claude-sonnet-4-6", max_tokens=1024, messages=messages(CHANGED)
    )
"""


def test_the_marker_alone_records_from_the_simulator_and_replays(tmp_path: Path) -> None:
    assert_marker_alone_records_and_replays(tmp_path, USER_TESTS, fixtures=2)


def test_the_page_recipe_imports_what_exists() -> None:
    """docs/frameworks.md's code for this framework parses and imports only what exists."""
    assert_page_imports_resolve("The official SDKs")


def test_the_page_names_no_model_the_anthropic_sdk_calls_deprecated() -> None:
    """The SDK warns on every call to a deprecated model, and a retired one answers
    nothing live: the recipes of docs/frameworks.md name current models."""
    from anthropic._data import DEPRECATED_MODELS

    named = set(re.findall(r"claude-[\w.-]+", PAGE.read_text(encoding="utf-8")))
    assert named, "docs/frameworks.md names no Claude model"
    assert not named & set(DEPRECATED_MODELS), sorted(named & set(DEPRECATED_MODELS))
