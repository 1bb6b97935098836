"""What every recipe test does: record from the simulator, replay offline, miss loudly.

A recipe is a function ``run(hosts) -> result`` that drives a framework the way a
user would. :func:`record` runs it once against the loopback simulator inside a
recording :func:`~replaygate.http.intercept`; :func:`replay_three_times` runs it
three times inside a replaying one (network blocked; the framework pointed at the
real API hosts, or at :data:`UNUSED_LOOPBACK` for a framework that shapes requests
by host) and checks the three results are equal; :func:`assert_one_miss` runs the
recipe with one word of the prompt changed and checks the miss reaches the test
once, after exactly one send, whatever retries the framework has turned on;
:func:`assert_retry_replayed_at_once` records a 429-then-200 and replays it;
:func:`assert_recipe_replays` is the first three in one, and :func:`matrix_cases` and
:func:`retry_cases` make a test's parameters, each marked with its support-matrix cell.

:func:`assert_marker_alone_records_and_replays` holds a user's own test file to the same
through the pytest plugin, as pytest-recording users write theirs: tests that carry
only ``@pytest.mark.replaygate(fixtures=...)``, build the framework's clients as its
docs do (for the real API), recorded from the plugin's simulator, then replayed.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import httpx2
import pytest

from replaygate.errors import FixtureMismatchError, ReplayErrorCaughtWarning, ReplaygateWarning
from replaygate.fixtures.store import FixtureStore
from replaygate.http import intercept
from replaygate.http.passthrough import caused_by_replaygate
from replaygate.models.types import Message, ModelResponse, ToolCall, ToolSpec
from replaygate.sim import Behavior, FaultPlan, Simulator

T = TypeVar("T")

FAKE_KEY = "test-key"
CLAUDE = "claude-sim-1"
GPT = "gpt-sim-1"
QUESTION = "Name one benefit of keep-alive connections."
CHANGED = "Name one benefit of persistent connections."
"""The question with one word changed: its recording must not answer it."""
WEATHER_ARGS: Mapping[str, Any] = {"city": "Paris"}
RECORDED_RETRY_AFTER = 1.0
"""Seconds the simulator announces on its 429: what a replay must not wait."""
NO_SLEEP = 0.5
"""A replayed 429-then-200 finishing within this many seconds waited neither the recorded
delay (1 s) nor a client's own backoff of half a second or more."""


def weather(city: str) -> str:
    """The tool every recipe offers: the weather in ``city``."""
    return f"sunny in {city}"


@dataclass(frozen=True)
class Hosts:
    """Where a recipe sends its requests: the simulator while recording, ``None`` (each
    client's default, the real API host) while replaying."""

    anthropic: str | None = None
    openai: str | None = None


UNUSED_LOOPBACK = Hosts(anthropic="http://127.0.0.1:9", openai="http://127.0.0.1:9/v1")
"""Hosts for a replay whose framework shapes requests by host (it adds fields for the
real OpenAI API): a custom loopback base, like the simulator's, where nothing listens."""


class ToolThenAnswer:
    """The simulated model: calls the first tool offered (once), then answers.

    With no tools it echoes the last user turn; after a tool result it answers with
    that result. ``arguments`` maps a tool name to the arguments it is called with.
    """

    def __init__(self, arguments: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        self.arguments = dict(arguments or {})

    def respond(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        """The next turn of the conversation."""
        if tools and not any(m.role == "tool" for m in messages):
            name = tools[0].name
            arguments = self.arguments.get(name, WEATHER_ARGS)
            call = ToolCall(id="call_weather_1", name=name, arguments=arguments)
            return ModelResponse(tool_calls=(call,), stop_reason="tool_use")
        last = messages[-1] if messages else Message.user("")
        if last.role == "tool":
            return ModelResponse(text=f"The tool says: {last.content}")
        return ModelResponse(text=f"echo: {last.content}")


class Sent:
    """The request bodies an async client sent, in order, kept by an event hook: to
    compare what a replayed run sent back (its thinking, its reasoning) with what the
    recording run sent."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []

    def client(self) -> httpx2.AsyncClient:
        """A new async client (one per event loop) keeping the bodies it sends here."""

        async def keep(request: httpx2.Request) -> None:
            self.bodies.append(request.content)

        return httpx2.AsyncClient(event_hooks={"request": [keep]})

    def json(self, index: int) -> Any:
        """The body of send ``index``, parsed."""
        return json.loads(self.bodies[index])


def record(
    store: Path,
    run: Callable[[Hosts], T],
    *,
    behavior: Behavior | None = None,
    faults: Sequence[str | None] = (),
) -> T:
    """``run`` once against a fresh simulator, recording every request into ``store``."""
    plan = FaultPlan.sequence(list(faults), retry_after=RECORDED_RETRY_AFTER)
    with (
        Simulator(behavior=behavior or ToolThenAnswer(), faults=plan) as sim,
        intercept(store, "record-missing", approve_live=True, source="sim") as exchange,
    ):
        result = run(Hosts(anthropic=sim.url, openai=sim.openai_base_url))
    assert exchange.recorded > 0, "the recipe sent nothing through replaygate"
    return result


def replay_three_times(store: Path, run: Callable[[Hosts], T], hosts: Hosts = Hosts()) -> T:
    """``run`` replayed offline three times; the three results must be equal."""
    results = []
    for _ in range(3):
        with intercept(store) as exchange:
            results.append(run(hosts))
        assert exchange.replays > 0
    assert results[0] == results[1] == results[2]
    return results[0]


def assert_one_miss(
    store: Path,
    run: Callable[[Hosts], object],
    *,
    raises: type[BaseException] | tuple[type[BaseException], ...] = FixtureMismatchError,
    changed: str = "persistent",
    hosts: Hosts = Hosts(),
) -> BaseException:
    """A replay of a changed request fails once, after one send, naming what changed.

    The error is the miss itself, or, where a framework wraps the errors of a client
    in one of its own (``raises``), that error with the miss as its cause and the
    miss's message. Either way its message shows ``changed``, a word of the new request.
    A wrapped miss never left the framework as itself: the block warns of it
    (``ReplayErrorCaughtWarning``), and of nothing else.
    """
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always", ReplaygateWarning)
        with intercept(store) as exchange, pytest.raises(raises) as caught:
            run(hosts)
    assert exchange.sent == 1, f"the miss was sent {exchange.sent} times: something retried it"
    wrapped = not isinstance(caught.value, FixtureMismatchError)
    told = [w.category for w in warned if issubclass(w.category, ReplaygateWarning)]
    assert told == ([ReplayErrorCaughtWarning] if wrapped else []), told
    assert caused_by_replaygate(caught.value), repr(caught.value)
    assert changed in str(caught.value), str(caught.value)
    return caught.value


def replay_timed(store: Path, run: Callable[[Hosts], T], hosts: Hosts) -> tuple[T, float, int]:
    """``run`` replayed once: its result, the seconds it took, and the sends answered."""
    with intercept(store) as exchange:
        start = time.perf_counter()
        result = run(hosts)
        elapsed = time.perf_counter() - start
    return result, elapsed, exchange.sent


def assert_retry_replayed_at_once(
    store: Path,
    run: Callable[[Hosts], object],
    hosts: Hosts = Hosts(),
    *,
    behavior: Behavior | None = None,
) -> None:
    """A 429-then-200 recorded from the simulator replays as two sends, the recorded
    result, and no wait."""
    expected = record(store, run, behavior=behavior, faults=["429", None])
    replay_timed(store, run, hosts)  # the first replay warms the framework's caches
    result, elapsed, sent = replay_timed(store, run, hosts)
    assert sent == 2, f"expected the 429 and its retry, the client sent {sent} request(s)"
    assert result == expected
    assert elapsed < NO_SLEEP, f"the replayed retry waited: {elapsed:.2f} s"


def assert_recipe_replays(
    store: Path,
    run: Callable[[Hosts], object],
    expected: object,
    miss: Callable[[Hosts], object],
    *,
    hosts: Hosts = Hosts(),
    behavior: Behavior | None = None,
    raises: type[BaseException] | tuple[type[BaseException], ...] = FixtureMismatchError,
) -> BaseException:
    """What every recipe is held to: ``run`` records ``expected`` from the simulator,
    replays it offline three times, and ``miss`` (the same run, one word of the prompt
    changed) fails once (:func:`assert_one_miss`, whose error it returns)."""
    assert record(store, run, behavior=behavior) == expected
    assert replay_three_times(store, run, hosts) == expected
    return assert_one_miss(store, miss, raises=raises, hosts=hosts)


Cell = tuple[str, Callable[..., object], object]
"""A cell of the support matrix a recipe covers: the column, the recipe, what it returns."""


def matrix_cases(rows: Mapping[str, str], cells: Sequence[Cell]) -> list[Any]:
    """``(name, recipe, expected)`` parameters, one per row of ``rows`` (a name, such as
    a provider, and its row in the support matrix) and cell, marked with that cell."""
    return [
        pytest.param(
            name, recipe, expected, marks=pytest.mark.matrix(row, cell), id=f"{name}-{cell}"
        )
        for name, row in rows.items()
        for cell, recipe, expected in cells
    ]


def retry_cases(rows: Mapping[str, str]) -> list[Any]:
    """One parameter per row of ``rows``, marked with the row's ``retry`` cell."""
    return [
        pytest.param(name, marks=pytest.mark.matrix(row, "retry"), id=name)
        for name, row in rows.items()
    ]


INNER_STORE = "agent.jsonl"
"""The store a user's test file names in its marker (``fixtures=``), under the plugin's
``tests/fixtures``."""
MISS_TEST = "test_changed_question"
"""The test of a user's test file that asks :data:`CHANGED`: left out of the recording,
so its replay is a miss."""
_OUTCOME = re.compile(r"^(test_\w+\.py::(?:\w+::)?\w+) (PASSED|FAILED|ERROR|SKIPPED)", re.M)


def inner_pytest(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """pytest on the test files of ``folder``, in a new interpreter of this environment
    (the placeholder API keys of this session in its environment)."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", *args],
        cwd=folder,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def _outcomes(done: subprocess.CompletedProcess[str]) -> dict[str, str]:
    return dict(_OUTCOME.findall(done.stdout))


CAUGHT = "Failed: replaygate: the code under test caught a replay error"
"""How the plugin's teardown error for a miss the code under test caught begins."""


def run_replay_errors(folder: Path, source: str) -> tuple[dict[tuple[str, str], str], str]:
    """A user's test file (``source``, its tests marked with a store never recorded, so
    every request misses) replayed by pytest: its summary, ``(FAILED|ERROR, test name)``
    -> the reason's first line, and its output. ``ERROR`` is the plugin's teardown error
    for a miss the code under test caught (a fallback answering instead); ``FAILED``, a
    miss that reached the test, wrapped or not."""
    (folder / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (folder / "test_caught.py").write_text(textwrap.dedent(source), encoding="utf-8")
    done = inner_pytest(folder, "-vv", "-rfE", "--tb=short")  # -vv: summary lines whole
    output = done.stdout + done.stderr
    found = re.findall(r"^(FAILED|ERROR) test_caught\.py::(\w+) - (.*)$", done.stdout, re.M)
    summary = {(kind, name): reason for kind, name, reason in found}
    assert len(summary) == len(found), output  # one report per test and kind
    assert "network attempts refused" not in output, output
    return summary, output


def assert_marker_alone_records_and_replays(
    folder: Path,
    source: str,
    *,
    fixtures: int,
    script: Sequence[Mapping[str, Any]] = (),
    more: Mapping[str, str] | None = None,
) -> None:
    """A user's test file (``source``, given ``QUESTION`` and ``CHANGED`` at its top)
    whose tests carry only the ``replaygate`` marker, naming :data:`INNER_STORE`, and ask
    for none of its fixtures: recorded by pytest from the plugin's simulator (``echo``,
    or ``script`` played in order), it leaves ``fixtures`` fixtures in the store, all
    from the simulator; replayed offline in strict mode, every test passes but
    :data:`MISS_TEST` (the same run asking :data:`CHANGED`, left out of the recording),
    which fails with the miss, its diff showing the word that changed; nothing tried
    the network. ``more`` (file name -> source) are test files run beside it, e.g. a
    page's example, held to the same but for the miss and the count."""
    (folder / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    header = f"QUESTION = {QUESTION!r}\nCHANGED = {CHANGED!r}\n"
    (folder / "test_inner.py").write_text(header + textwrap.dedent(source), encoding="utf-8")
    for name, text in (more or {}).items():
        (folder / name).write_text(textwrap.dedent(text), encoding="utf-8")
    behavior = "echo"
    if script:
        lines = "".join(json.dumps(line) + "\n" for line in script)
        (folder / "script.jsonl").write_text(lines, encoding="utf-8")
        behavior = "script:script.jsonl"
    record_flags = ("--replaygate-record-mode=record-missing", "--replaygate-approve-live")
    simulator = f"--replaygate-simulator={behavior}"
    recorded = inner_pytest(folder, "-k", f"not {MISS_TEST}", *record_flags, simulator)
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    tests = _outcomes(recorded)
    assert tests and set(tests.values()) == {"PASSED"}, recorded.stdout
    store = FixtureStore.open(folder / "tests" / "fixtures" / INNER_STORE)
    try:
        stored = list(store)
    finally:
        store.close()
    assert len(stored) == fixtures, [fixture.request for fixture in stored]
    assert all(fixture.meta and fixture.meta.get("source") == "sim" for fixture in stored)

    replayed = inner_pytest(folder, "--replaygate-strict", "--tb=short")
    output = replayed.stdout + replayed.stderr
    assert _outcomes(replayed) == {**tests, f"test_inner.py::{MISS_TEST}": "FAILED"}, output
    assert "no fixture recorded for this HTTP request" in output, output
    diff = [line for line in output.splitlines() if "keep-alive" in line and "!=" in line]
    assert any("persistent" in line for line in diff), output
    assert "network attempts refused" not in output, output
    assert "refused at interpreter exit" not in output, output
