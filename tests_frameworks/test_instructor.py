"""Instructor's structured output on the OpenAI client, recorded and replayed, retries on.

Instructor retries a response that fails validation by asking again with the error
(its ``max_retries``); any other error, a miss included, ends the call after one
attempt as ``InstructorRetryException`` with the miss as its cause and its message.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import instructor
import openai
import pytest
from instructor.core import InstructorRetryException
from pydantic import BaseModel, field_validator

from replaygate.errors import FixtureMismatchError, ReplayErrorCaughtWarning
from replaygate.fixtures.store import FixtureStore
from replaygate.http import intercept
from replaygate.models.types import Message, ModelResponse, ToolCall, ToolSpec
from replaygate.sim import EchoBehavior, ScriptBehavior
from tests_frameworks.harness import (
    CHANGED,
    GPT,
    QUESTION,
    Hosts,
    ToolThenAnswer,
    assert_marker_alone_records_and_replays,
    assert_one_miss,
    assert_recipe_replays,
    assert_retry_replayed_at_once,
    record,
    replay_three_times,
    run_replay_errors,
)
from tests_frameworks.page import assert_page_imports_resolve

ROW = "OpenAI client"
PARIS: dict[str, Any] = {"name": "Paris", "population": 2100000}
LYON: dict[str, Any] = {"name": "Lyon", "population": 520000}
ANSWERS = ToolThenAnswer({"City": PARIS, "PartialCity": PARIS})


class City(BaseModel):
    """What every recipe here extracts."""

    name: str
    population: int


def messages(question: str) -> list[Any]:
    return [{"role": "user", "content": question}]


def client(hosts: Hosts) -> instructor.Instructor:
    """Instructor over the OpenAI client, the SDK's retries on."""
    return instructor.from_openai(openai.OpenAI(base_url=hosts.openai, max_retries=3))


def plain(hosts: Hosts, question: str = QUESTION) -> dict[str, Any]:
    create = client(hosts).chat.completions.create
    city = create(model=GPT, response_model=City, max_retries=2, messages=messages(question))
    return city.model_dump()


def streamed(hosts: Hosts, question: str = QUESTION) -> list[dict[str, Any]]:
    partials = client(hosts).chat.completions.create_partial(
        model=GPT, response_model=City, max_retries=2, messages=messages(question)
    )
    return [part.model_dump() for part in partials]


def in_async(hosts: Hosts, question: str = QUESTION) -> dict[str, Any]:
    async def main() -> dict[str, Any]:
        aclient = instructor.from_openai(openai.AsyncOpenAI(base_url=hosts.openai, max_retries=3))
        create = aclient.chat.completions.create
        city = await create(
            model=GPT, response_model=City, max_retries=2, messages=messages(question)
        )
        return city.model_dump()

    return asyncio.run(main())


PARTIALS = [
    {"name": None, "population": None},
    {"name": "Paris", "population": None},
    PARIS,
]
CASES = [
    pytest.param(recipe, expected, marks=pytest.mark.matrix(ROW, cell), id=cell)
    for cell, recipe, expected in (
        ("plain", plain, PARIS),
        ("stream", streamed, PARTIALS),
        ("async", in_async, PARIS),
    )
]


@pytest.mark.parametrize(("recipe", "expected"), CASES)
def test_recorded_run_replays_offline_and_a_changed_prompt_misses(
    store: Path, recipe: Callable[..., object], expected: object
) -> None:
    miss = partial(recipe, question=CHANGED)
    error = assert_recipe_replays(
        store, recipe, expected, miss, behavior=ANSWERS, raises=InstructorRetryException
    )
    assert isinstance(error.__cause__, openai.OpenAIError)  # the miss, which the SDK let through


class TwoCities:
    """Calls the tool offered twice in one turn (parallel calls), or answers the city in
    JSON when offered none (Instructor's JSON modes)."""

    def respond(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        if not tools:
            return ModelResponse(text=json.dumps(PARIS))
        calls = tuple(
            ToolCall(id=f"call_{i}", name=tools[0].name, arguments=city)
            for i, city in enumerate((PARIS, LYON))
        )
        return ModelResponse(tool_calls=calls, stop_reason="tool_use")


def in_mode(mode: instructor.Mode, hosts: Hosts, question: str = QUESTION) -> Any:
    """One extraction in ``mode``: ``PARALLEL_TOOLS`` extracts every city called."""
    made = instructor.from_openai(openai.OpenAI(base_url=hosts.openai, max_retries=3), mode=mode)
    many = mode == instructor.Mode.PARALLEL_TOOLS
    extracted = made.chat.completions.create(
        model=GPT,
        response_model=Iterable[City] if many else City,
        max_retries=2,
        messages=messages(question),
    )
    return [c.model_dump() for c in extracted] if many else extracted.model_dump()


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        (instructor.Mode.PARALLEL_TOOLS, [PARIS, LYON]),
        (instructor.Mode.JSON_SCHEMA, PARIS),
        (instructor.Mode.MD_JSON, PARIS),
        (instructor.Mode.RESPONSES_TOOLS, PARIS),
    ],
    ids=lambda value: value.name if isinstance(value, instructor.Mode) else "",
)
def test_other_modes_record_from_the_simulator_and_replay(
    store: Path, mode: instructor.Mode, expected: Any
) -> None:
    """Parallel tool calls, JSON answers and the Responses API's tools."""
    run, miss = partial(in_mode, mode), partial(in_mode, mode, question=CHANGED)
    assert_recipe_replays(
        store, run, expected, miss, behavior=TwoCities(), raises=InstructorRetryException
    )


ECHOED = {"name": f"echo: {QUESTION}", "population": 0}
"""What the echo simulator answers a request forcing the City tool, or asking for its JSON."""


@pytest.mark.parametrize(
    "mode", [instructor.Mode.TOOLS, instructor.Mode.JSON_SCHEMA], ids=lambda mode: mode.name
)
def test_the_echo_simulator_answers_what_the_request_forces(
    store: Path, mode: instructor.Mode
) -> None:
    """Instructor forces its tool (``tool_choice``) or a JSON schema (``response_format``);
    the echo simulator answered text, which no retry could parse."""
    run, miss = partial(in_mode, mode), partial(in_mode, mode, question=CHANGED)
    assert_recipe_replays(
        store, run, ECHOED, miss, behavior=EchoBehavior(), raises=InstructorRetryException
    )


def invalid_then_valid() -> ScriptBehavior:
    """A model whose first answer fails validation (population is not a number)."""
    bad = ToolCall(id="call_1", name="City", arguments={"name": "Paris", "population": "many"})
    good = ToolCall(id="call_2", name="City", arguments=PARIS)
    return ScriptBehavior(
        [ModelResponse(tool_calls=(call,), stop_reason="tool_use") for call in (bad, good)]
    )


@pytest.mark.matrix(ROW, "tools")
def test_a_validation_retry_replays_in_order(store: Path) -> None:
    assert record(store, plain, behavior=invalid_then_valid()) == PARIS
    assert len(FixtureStore.open(store)) == 2  # the question, then the question and the error
    assert replay_three_times(store, plain) == PARIS
    assert_one_miss(store, partial(plain, question=CHANGED), raises=InstructorRetryException)


def positive_city(error: str) -> type[BaseModel]:
    """``City`` whose population must be positive, the validation error saying ``error``:
    its words go into the request asking again, not into the first."""

    class City(BaseModel):
        name: str
        population: int

        @field_validator("population")
        @classmethod
        def positive(cls, population: int) -> int:
            if population <= 0:
                raise ValueError(error)
            return population

    return City


def negative_then_positive(mode: instructor.Mode) -> ScriptBehavior:
    """A model whose first city has a negative population: called as Instructor's tool,
    or answered as JSON."""
    cities = ({**PARIS, "population": -1}, PARIS)
    if mode == instructor.Mode.JSON_SCHEMA:
        return ScriptBehavior([ModelResponse(text=json.dumps(city)) for city in cities])
    calls = (ToolCall(id=f"call_{i}", name="City", arguments=c) for i, c in enumerate(cities))
    return ScriptBehavior(
        [ModelResponse(tool_calls=(call,), stop_reason="tool_use") for call in calls]
    )


def checked(mode: instructor.Mode, error: str, hosts: Hosts) -> dict[str, Any]:
    made = instructor.from_openai(openai.OpenAI(base_url=hosts.openai, max_retries=5), mode=mode)
    city = made.chat.completions.create(
        model=GPT, response_model=positive_city(error), max_retries=3, messages=messages(QUESTION)
    )
    return city.model_dump()


@pytest.mark.parametrize(
    "mode", [instructor.Mode.TOOLS, instructor.Mode.JSON_SCHEMA], ids=lambda mode: mode.name
)
def test_a_changed_validation_retry_misses_once_after_the_first_answer_replays(
    store: Path, mode: instructor.Mode
) -> None:
    """The first request replays its invalid answer; the request asking again carries a
    validation error worded otherwise: a miss, sent once, that ends the call (Instructor's
    ``max_retries`` and the SDK's left it alone) naming the new words."""
    run = partial(checked, mode, "population must be positive")
    assert record(store, run, behavior=negative_then_positive(mode)) == PARIS
    assert replay_three_times(store, run) == PARIS
    with (
        pytest.warns(ReplayErrorCaughtWarning),  # it reached the test only as Instructor's
        intercept(store) as exchange,
        pytest.raises(InstructorRetryException) as caught,
    ):
        checked(mode, "population must be above zero", Hosts())
    assert (exchange.sent, exchange.replays) == (2, 1)
    assert isinstance(caught.value.__cause__, FixtureMismatchError)
    assert "above zero" in str(caught.value)


@pytest.mark.matrix(ROW, "retry")
def test_replayed_429_is_retried_at_once(store: Path) -> None:
    assert_retry_replayed_at_once(store, plain, behavior=ANSWERS)


USER_TESTS = """
import asyncio

import instructor
import openai
import pytest
from pydantic import BaseModel, field_validator

pytestmark = pytest.mark.replaygate(fixtures="agent.jsonl")


class City(BaseModel):
    name: str
    population: int


def messages(question):
    return [{"role": "user", "content": question}]


def test_extracts_a_city():
    client = instructor.from_openai(openai.OpenAI())
    city = client.chat.completions.create(
        model="gpt-4o", response_model=City, max_retries=2, messages=messages(QUESTION)
    )
    assert city.model_dump() == {"name": "Paris", "population": 2100000}


def test_extracts_a_city_async():
    client = instructor.from_openai(openai.AsyncOpenAI())
    create = client.chat.completions.create(
        model="gpt-4o", response_model=City, max_retries=2, messages=messages("And async?")
    )
    assert asyncio.run(create).model_dump() == {"name": "Paris", "population": 2100000}


def test_changed_question():
    client = instructor.from_openai(openai.OpenAI())
    client.chat.completions.create(model="gpt-4o", response_model=City, messages=messages(CHANGED))
"""
CITY_CALL = {"tool_calls": [{"id": "call_1", "name": "City", "arguments": PARIS}]}


def test_the_marker_alone_records_from_the_simulator_and_replays(tmp_path: Path) -> None:
    script = [CITY_CALL, CITY_CALL]
    assert_marker_alone_records_and_replays(tmp_path, USER_TESTS, fixtures=2, script=script)


RETRY_TESTS = """
import asyncio

import instructor
import openai
import pytest
from instructor.core import InstructorRetryException
from pydantic import BaseModel, field_validator
from tenacity import Retrying, stop_after_attempt

pytestmark = pytest.mark.replaygate(fixtures="agent.jsonl")
MESSAGES = [{"role": "user", "content": "a question never recorded"}]


class City(BaseModel):
    name: str


def test_max_retries():
    client = instructor.from_openai(openai.OpenAI())
    client.chat.completions.create(
        model="gpt-4o", response_model=City, max_retries=3, messages=MESSAGES
    )


def test_max_retries_async():
    client = instructor.from_openai(openai.AsyncOpenAI())
    asyncio.run(
        client.chat.completions.create(
            model="gpt-4o", response_model=City, max_retries=3, messages=MESSAGES
        )
    )


def test_a_tenacity_retrying():
    client = instructor.from_openai(openai.OpenAI())
    client.chat.completions.create(
        model="gpt-4o",
        response_model=City,
        max_retries=Retrying(stop=stop_after_attempt(3)),
        messages=MESSAGES,
    )


@pytest.mark.replaygate(fixtures="agent.jsonl", expect_caught_errors=True)
def test_the_test_expects_instructor_s_error():
    client = instructor.from_openai(openai.OpenAI())
    with pytest.raises(InstructorRetryException, match="no fixture recorded"):
        client.chat.completions.create(
            model="gpt-4o", response_model=City, max_retries=3, messages=MESSAGES
        )
"""


def test_a_miss_retried_by_max_retries_fails_the_test_once(tmp_path: Path) -> None:
    """``max_retries`` (a number, or a tenacity ``Retrying``, which sends the miss again
    each attempt) ends in ``InstructorRetryException`` wrapping the miss: the test fails
    with it, once, and the plugin adds nothing at teardown. A test that expects that
    error itself is marked ``expect_caught_errors=True`` and passes."""
    summary, output = run_replay_errors(tmp_path, RETRY_TESTS)
    assert set(summary) == {
        ("FAILED", "test_max_retries"),
        ("FAILED", "test_max_retries_async"),
        ("FAILED", "test_a_tenacity_retrying"),
    }, output
    for (_, name), reason in summary.items():
        assert reason.startswith("instructor.") and "InstructorRetryException: " in reason, output
        if name != "test_a_tenacity_retrying":  # its message names tenacity's RetryError
            assert "no fixture recorded for this HTTP request" in reason, output
    assert "test_caught.py::test_the_test_expects_instructor_s_error PASSED" in output, output


def test_the_page_recipe_imports_what_exists() -> None:
    """docs/frameworks.md's code for this framework parses and imports only what exists."""
    assert_page_imports_resolve("Instructor")
