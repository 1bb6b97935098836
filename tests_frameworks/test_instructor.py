"""Instructor's structured output on the Anthropic and OpenAI clients, recorded and
replayed, retries on.

Instructor retries a response that fails validation by asking again with the error
(its ``max_retries``); any other error, a miss included, ends the call after one
attempt as ``InstructorRetryException`` with the miss as its cause and its message.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterable, Sequence
from enum import StrEnum
from functools import partial
from pathlib import Path
from typing import Any, Literal

import anthropic
import instructor
import litellm
import openai
import pytest
from instructor.core import InstructorRetryException
from pydantic import BaseModel, Field, ValidationInfo, field_validator

from replaygate.errors import FixtureMismatchError, NetworkBlockedError, ReplayErrorCaughtWarning
from replaygate.fixtures.store import FixtureStore
from replaygate.http import intercept
from replaygate.models.types import Message, ModelResponse, ToolCall, ToolSpec
from replaygate.sim import EchoBehavior, ScriptBehavior
from tests_frameworks.harness import (
    CHANGED,
    CLAUDE,
    GPT,
    QUESTION,
    UNUSED_LOOPBACK,
    Hosts,
    ToolThenAnswer,
    assert_marker_alone_records_and_replays,
    assert_one_miss,
    assert_recipe_replays,
    assert_retry_replayed_at_once,
    matrix_cases,
    record,
    replay_three_times,
    retry_cases,
    run_replay_errors,
)
from tests_frameworks.page import assert_page_imports_resolve

CLIENTS = {"anthropic": "Anthropic client", "openai": "OpenAI client"}
"""The SDK client Instructor wraps -> its row in the support matrix."""
SDK_ERRORS: dict[str, type[Exception]] = {
    "anthropic": anthropic.AnthropicError,
    "openai": openai.OpenAIError,
}
PARIS: dict[str, Any] = {"name": "Paris", "population": 2100000}
LYON: dict[str, Any] = {"name": "Lyon", "population": 520000}
ANSWERS = ToolThenAnswer({"City": PARIS, "PartialCity": PARIS})


class City(BaseModel):
    """What every recipe here extracts."""

    name: str
    population: int


def messages(question: str) -> list[Any]:
    return [{"role": "user", "content": question}]


def client(
    provider: str, hosts: Hosts, mode: instructor.Mode | None = None, *, aio: bool = False
) -> Any:
    """Instructor over the ``provider`` SDK's client (async with ``aio``), in ``mode``
    (Instructor's default for it when ``None``), the SDK's retries on."""
    modes = {} if mode is None else {"mode": mode}
    if provider == "anthropic":
        made = (anthropic.AsyncAnthropic if aio else anthropic.Anthropic)(
            base_url=hosts.anthropic, max_retries=3
        )
        return instructor.from_anthropic(made, **modes)
    sdk = (openai.AsyncOpenAI if aio else openai.OpenAI)(base_url=hosts.openai, max_retries=3)
    return instructor.from_openai(sdk, **modes)


def ask(provider: str, question: str, **more: Any) -> dict[str, Any]:
    """The arguments of one extraction: the model and, for Claude, ``max_tokens``."""
    model = {"model": CLAUDE, "max_tokens": 1024} if provider == "anthropic" else {"model": GPT}
    return {
        "response_model": City,
        "max_retries": 2,
        **model,
        **more,
        "messages": messages(question),
    }


def plain(provider: str, hosts: Hosts, question: str = QUESTION) -> dict[str, Any]:
    city = client(provider, hosts).create(**ask(provider, question))
    return city.model_dump()


def streamed(provider: str, hosts: Hosts, question: str = QUESTION) -> list[dict[str, Any]]:
    partials = client(provider, hosts).create_partial(**ask(provider, question))
    return [part.model_dump() for part in partials]


def in_async(provider: str, hosts: Hosts, question: str = QUESTION) -> dict[str, Any]:
    async def main() -> dict[str, Any]:
        city = await client(provider, hosts, aio=True).create(**ask(provider, question))
        return city.model_dump()

    return asyncio.run(main())


def streamed_async(provider: str, hosts: Hosts, question: str = QUESTION) -> list[dict[str, Any]]:
    async def main() -> list[dict[str, Any]]:
        partials = client(provider, hosts, aio=True).create_partial(**ask(provider, question))
        return [part.model_dump() async for part in partials]

    return asyncio.run(main())


PARTIALS = [
    {"name": None, "population": None},
    {"name": "Paris", "population": None},
    PARIS,
]
CASES = matrix_cases(
    CLIENTS,
    (
        ("plain", plain, PARIS),
        ("stream", streamed, PARTIALS),
        ("async", in_async, PARIS),
        ("async", streamed_async, PARTIALS),
    ),
)


@pytest.mark.parametrize(("provider", "recipe", "expected"), CASES)
def test_recorded_run_replays_offline_and_a_changed_prompt_misses(
    store: Path, provider: str, recipe: Callable[..., object], expected: object
) -> None:
    run, miss = partial(recipe, provider), partial(recipe, provider, question=CHANGED)
    error = assert_recipe_replays(
        store, run, expected, miss, behavior=ANSWERS, raises=InstructorRetryException
    )
    assert isinstance(error.__cause__, SDK_ERRORS[provider])  # the miss, let through by the SDK


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


def in_mode(provider: str, mode: instructor.Mode, hosts: Hosts, question: str = QUESTION) -> Any:
    """One extraction in ``mode``: ``PARALLEL_TOOLS`` extracts every city called."""
    many = mode == instructor.Mode.PARALLEL_TOOLS
    model = Iterable[City] if many else City
    extracted = client(provider, hosts, mode).create(
        **ask(provider, question, response_model=model)
    )
    return [c.model_dump() for c in extracted] if many else extracted.model_dump()


def modes(*cases: tuple[str, instructor.Mode, Any]) -> Any:
    """``(provider, mode, expected)`` parameters, named by provider and mode."""
    return pytest.mark.parametrize(
        ("provider", "mode", "expected"),
        [pytest.param(*case, id=f"{case[0]}-{case[1].name}") for case in cases],
    )


@modes(
    ("anthropic", instructor.Mode.PARALLEL_TOOLS, [PARIS, LYON]),
    ("anthropic", instructor.Mode.JSON, PARIS),
    ("openai", instructor.Mode.PARALLEL_TOOLS, [PARIS, LYON]),
    ("openai", instructor.Mode.JSON_SCHEMA, PARIS),
    ("openai", instructor.Mode.MD_JSON, PARIS),
    ("openai", instructor.Mode.RESPONSES_TOOLS, PARIS),
)
def test_other_modes_record_from_the_simulator_and_replay(
    store: Path, provider: str, mode: instructor.Mode, expected: Any
) -> None:
    """Parallel tool calls, JSON answers and the Responses API's tools."""
    run = partial(in_mode, provider, mode)
    miss = partial(in_mode, provider, mode, question=CHANGED)
    assert_recipe_replays(
        store, run, expected, miss, behavior=TwoCities(), raises=InstructorRetryException
    )


ECHOED = {"name": f"echo: {QUESTION}", "population": 0}
"""What the echo simulator answers a request forcing the City tool, or asking for its JSON."""


@modes(
    ("anthropic", instructor.Mode.TOOLS, ECHOED),
    ("openai", instructor.Mode.TOOLS, ECHOED),
    ("openai", instructor.Mode.FUNCTIONS, ECHOED),
    ("openai", instructor.Mode.JSON_SCHEMA, ECHOED),
)
def test_the_echo_simulator_answers_what_the_request_forces(
    store: Path, provider: str, mode: instructor.Mode, expected: Any
) -> None:
    """Instructor forces its tool (``tool_choice``; the deprecated ``function_call`` of
    ``FUNCTIONS``, answered as a ``function_call``) or a JSON schema
    (``response_format``); the echo simulator answered text, which no retry could parse."""
    run = partial(in_mode, provider, mode)
    miss = partial(in_mode, provider, mode, question=CHANGED)
    assert_recipe_replays(
        store, run, expected, miss, behavior=EchoBehavior(), raises=InstructorRetryException
    )


class Kind(StrEnum):
    CAPITAL = "capital"
    TOWN = "town"


def trip_model(described: str = "the street") -> type[BaseModel]:
    """A model of the kinds a team extracts: nested and optional models, a Literal, an
    enum, a tuple, a list with a default; ``described`` a nested field's description."""

    class Address(BaseModel):
        street: str = Field(description=described)
        zip: str | None = None

    class Trip(BaseModel):
        city: str
        kind: Kind
        mode: Literal["train", "plane"]
        address: Address
        box: tuple[int, int]
        stops: list[str] = []
        note: str | None = None

    return Trip


class Hooked:
    """Instructor's client in ``mode`` (``from_provider`` when ``mode`` is None), counting
    the responses its ``completion:response`` hook is given."""

    def __init__(self, provider: str, hosts: Hosts, mode: instructor.Mode | None) -> None:
        if mode is not None:
            self.client = client(provider, hosts, mode)
        else:  # the OpenAI client's
            base = {"base_url": hosts.openai} if hosts.openai else {}
            self.client = instructor.from_provider(f"openai/{GPT}", **base)
        self.responses = 0
        self.client.on("completion:response", self.count)

    def count(self, response: object) -> None:
        self.responses += 1


def trip(
    provider: str, mode: instructor.Mode | None, hosts: Hosts, street: str = "the street"
) -> dict[str, Any]:
    hooked = Hooked(provider, hosts, mode)
    asked = ask(provider, QUESTION, response_model=trip_model(street))
    if mode is None:
        del asked["model"]  # from_provider's
    extracted = hooked.client.create(**asked)
    assert hooked.responses == 1
    return extracted.model_dump(mode="json")


TRIP = {
    "city": f"echo: {QUESTION}",
    "kind": "capital",
    "mode": "train",
    "address": {"street": f"echo: {QUESTION}", "zip": None},
    "box": [0, 0],
    "stops": [],
    "note": None,
}
"""What echo fills a Trip with: the least value of each required field, the defaults
of the others (every field, a strict schema's, in ``RESPONSES_TOOLS``)."""
TRIP_STRICT = {
    **TRIP,
    "address": {"street": f"echo: {QUESTION}", "zip": f"echo: {QUESTION}"},
    "note": f"echo: {QUESTION}",
}


@pytest.mark.parametrize(
    ("provider", "mode", "expected"),
    [
        pytest.param("openai", instructor.Mode.TOOLS, TRIP, id="openai-TOOLS"),
        pytest.param("openai", instructor.Mode.JSON_SCHEMA, TRIP, id="openai-JSON_SCHEMA"),
        pytest.param("openai", instructor.Mode.RESPONSES_TOOLS, TRIP_STRICT, id="openai-RESP"),
        pytest.param("openai", None, TRIP, id="openai-from_provider"),
        pytest.param("anthropic", instructor.Mode.TOOLS, TRIP, id="anthropic-TOOLS"),
    ],
)
def test_echo_fills_every_schema_instructor_sends_and_a_changed_description_misses(
    store: Path, provider: str, mode: instructor.Mode | None, expected: dict[str, Any]
) -> None:
    """A nested model with a tuple and a list defaulting to ``[]`` was refused in
    ``RESPONSES_TOOLS`` (``'default' is not permitted.``) and, in every OpenAI mode
    (``array schema missing items.``: pydantic writes a tuple as ``prefixItems``), where
    the API answers it. A changed field description is a miss naming its path."""
    run = partial(trip, provider, mode)
    assert record(store, run, behavior=EchoBehavior()) == expected
    assert replay_three_times(store, run) == expected
    miss = partial(trip, provider, mode, street="the street name")
    changed = "street.description: 'the street' != 'the street name'"
    assert_one_miss(store, miss, raises=InstructorRetryException, changed=changed)


class Allowed(BaseModel):
    """A name the validation context allows."""

    name: str

    @field_validator("name")
    @classmethod
    def allowed(cls, name: str, info: ValidationInfo) -> str:
        allowed = (info.context or {}).get("allowed", [])
        if name not in allowed:
            raise ValueError(f"name must be one of {allowed}")
        return name


def never_allowed(provider: str, mode: instructor.Mode, hosts: Hosts) -> int:
    """An extraction whose every answer the context's validator refuses: the attempts."""
    asked = ask(provider, QUESTION, response_model=Allowed, max_retries=2)
    with pytest.raises(InstructorRetryException) as refused:
        client(provider, hosts, mode).create(**asked, context={"allowed": ["Lyon"]})
    return refused.value.n_attempts


@modes(
    ("anthropic", instructor.Mode.TOOLS, 3),
    ("openai", instructor.Mode.TOOLS, 3),
    ("openai", instructor.Mode.RESPONSES_TOOLS, 3),
)
def test_each_retry_a_validation_context_refuses_records_and_replays_in_order(
    store: Path, provider: str, mode: instructor.Mode, expected: int
) -> None:
    """Each attempt carries the errors before it: one fixture each, replayed in order."""
    run = partial(never_allowed, provider, mode)
    assert record(store, run, behavior=EchoBehavior()) == expected
    assert len(FixtureStore.open(store)) == expected
    assert replay_three_times(store, run) == expected


def invalid_then_valid() -> ScriptBehavior:
    """A model whose first answer fails validation (population is not a number)."""
    bad = ToolCall(id="call_1", name="City", arguments={"name": "Paris", "population": "many"})
    good = ToolCall(id="call_2", name="City", arguments=PARIS)
    return ScriptBehavior(
        [ModelResponse(tool_calls=(call,), stop_reason="tool_use") for call in (bad, good)]
    )


@pytest.mark.parametrize(
    "provider",
    [
        pytest.param(name, marks=pytest.mark.matrix(row, "tools"), id=name)
        for name, row in CLIENTS.items()
    ],
)
def test_a_validation_retry_replays_in_order(store: Path, provider: str) -> None:
    run = partial(plain, provider)
    assert record(store, run, behavior=invalid_then_valid()) == PARIS
    assert len(FixtureStore.open(store)) == 2  # the question, then the question and the error
    assert replay_three_times(store, run) == PARIS
    miss = partial(plain, provider, question=CHANGED)
    assert_one_miss(store, miss, raises=InstructorRetryException)


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
    if mode in (instructor.Mode.JSON_SCHEMA, instructor.Mode.JSON):
        return ScriptBehavior([ModelResponse(text=json.dumps(city)) for city in cities])
    calls = (ToolCall(id=f"call_{i}", name="City", arguments=c) for i, c in enumerate(cities))
    return ScriptBehavior(
        [ModelResponse(tool_calls=(call,), stop_reason="tool_use") for call in calls]
    )


def checked(provider: str, mode: instructor.Mode, error: str, hosts: Hosts) -> dict[str, Any]:
    made = client(provider, hosts, mode)
    city = made.create(
        **ask(provider, QUESTION, response_model=positive_city(error), max_retries=3)
    )
    return city.model_dump()


@modes(
    ("anthropic", instructor.Mode.TOOLS, PARIS),
    ("anthropic", instructor.Mode.JSON, PARIS),
    ("openai", instructor.Mode.TOOLS, PARIS),
    ("openai", instructor.Mode.JSON_SCHEMA, PARIS),
)
def test_a_changed_validation_retry_misses_once_after_the_first_answer_replays(
    store: Path, provider: str, mode: instructor.Mode, expected: Any
) -> None:
    """The first request replays its invalid answer; the request asking again carries a
    validation error worded otherwise: a miss, sent once, that ends the call (Instructor's
    ``max_retries`` and the SDK's left it alone) naming the new words."""
    run = partial(checked, provider, mode, "population must be positive")
    assert record(store, run, behavior=negative_then_positive(mode)) == expected
    assert replay_three_times(store, run) == expected
    with (
        pytest.warns(ReplayErrorCaughtWarning),  # it reached the test only as Instructor's
        intercept(store) as exchange,
        pytest.raises(InstructorRetryException) as caught,
    ):
        checked(provider, mode, "population must be above zero", Hosts())
    assert (exchange.sent, exchange.replays) == (2, 1)
    assert isinstance(caught.value.__cause__, FixtureMismatchError)
    assert "above zero" in str(caught.value)


def test_a_file_instructor_downloads_is_refused_naming_its_bytes_as_the_remedy(
    store: Path,
) -> None:
    """Instructor looks up the host of an image it downloads for Claude before it sends
    it: the refusal said the connection came another way than an intercepted client (a
    websocket, gRPC, a raw socket); it names Instructor's lookup and the file's bytes."""
    claude = instructor.from_anthropic(anthropic.Anthropic(api_key="test"))
    image = instructor.Image.from_url("https://example.com/cat.png")
    content = [{"role": "user", "content": [QUESTION, image]}]
    with intercept(store), pytest.raises(NetworkBlockedError) as refused:
        claude.create(**{**ask("anthropic", QUESTION), "messages": content})
    said = str(refused.value)
    assert "(from instructor.v2.core.remote)" in said and "came another way" not in said, said
    assert said.endswith("(Image.from_path(...), Image.from_base64('data:image/png;base64,...')).")


@pytest.mark.parametrize("provider", retry_cases(CLIENTS))
def test_replayed_429_is_retried_at_once(store: Path, provider: str) -> None:
    assert_retry_replayed_at_once(store, partial(plain, provider), behavior=ANSWERS)


def through_litellm(provider: str, hosts: Hosts, question: str = QUESTION) -> tuple[Any, ...]:
    """Instructor over LiteLLM (``from_litellm``): ``completion``, then ``acompletion``
    whole and streamed as partial objects (the last one)."""
    model = f"anthropic/{CLAUDE}" if provider == "anthropic" else f"openai/{GPT}"
    base = hosts.anthropic if provider == "anthropic" else hosts.openai
    given: dict[str, Any] = {
        "model": model,
        "api_base": base,
        "max_tokens": 1024,
        "response_model": City,
        "max_retries": 2,
        "messages": messages(question),
    }
    city = instructor.from_litellm(litellm.completion).chat.completions.create(**given)

    async def later() -> tuple[dict[str, Any], dict[str, Any]]:
        chat = instructor.from_litellm(litellm.acompletion).chat.completions
        whole = await chat.create(**given)
        parts = [part.model_dump() async for part in chat.create_partial(**given)]
        return whole.model_dump(), parts[-1]

    return (city.model_dump(), *asyncio.run(later()))


@pytest.mark.parametrize("provider", list(CLIENTS))
def test_instructor_over_litellm_records_replays_and_misses_once(
    store: Path, provider: str
) -> None:
    """``from_litellm`` over ``completion`` and ``acompletion`` (LiteLLM's async clients on
    its aiohttp transport), streamed partials included: a miss reaches the test once, as
    ``InstructorRetryException`` over the miss (LiteLLM's sync OpenAI client) or over
    LiteLLM's ``InternalServerError`` carrying it (its Anthropic client)."""
    run = partial(through_litellm, provider)
    miss = partial(through_litellm, provider, question=CHANGED)
    error = assert_recipe_replays(
        store,
        run,
        (PARIS, PARIS, PARIS),
        miss,
        hosts=UNUSED_LOOPBACK,
        behavior=ANSWERS,
        raises=InstructorRetryException,
    )
    wrapped = litellm.InternalServerError if provider == "anthropic" else FixtureMismatchError
    assert isinstance(error.__cause__, wrapped)


USER_TESTS = """
import asyncio

import anthropic
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


def test_extracts_a_city_with_claude():
    client = instructor.from_anthropic(anthropic.Anthropic())
    partials = client.messages.create_partial(
        model="claude-sonnet-4-6",
        max_tokens=1024,
        response_model=City,
        max_retries=2,
        messages=messages(QUESTION),
    )
    assert [p.model_dump() for p in partials][-1] == {"name": "Paris", "population": 2100000}


def test_changed_question():
    client = instructor.from_openai(openai.OpenAI())
    client.chat.completions.create(model="gpt-4o", response_model=City, messages=messages(CHANGED))
"""
CITY_CALL = {"tool_calls": [{"id": "call_1", "name": "City", "arguments": PARIS}]}


def test_the_marker_alone_records_from_the_simulator_and_replays(tmp_path: Path) -> None:
    script = [CITY_CALL, CITY_CALL, CITY_CALL]
    assert_marker_alone_records_and_replays(tmp_path, USER_TESTS, fixtures=3, script=script)


RETRY_TESTS = """
import asyncio

import anthropic
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


def test_max_retries_claude_async():
    client = instructor.from_anthropic(anthropic.AsyncAnthropic())
    asyncio.run(
        client.messages.create(
            model="claude-sonnet-4-6",
            max_tokens=1024,
            response_model=City,
            max_retries=3,
            messages=MESSAGES,
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
        ("FAILED", "test_max_retries_claude_async"),
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
