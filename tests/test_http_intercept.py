"""intercept(): clients built inside user code are recorded and replayed, then restored."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import importlib.machinery
import inspect
import multiprocessing
import multiprocessing.reduction
import pickle
import re
import runpy
import socket
import sys
import threading
import unittest
import warnings
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest

from replaygate import held_blocks, network
from replaygate.errors import (
    CAUGHT_NOTE,
    BlockDroppedWarning,
    FixtureMismatchError,
    LiveCallNotApproved,
    NetworkBlockedError,
    ProcessOutsideBlockWarning,
    ReplayErrorCaughtWarning,
    StoreWriteError,
    TaskOutlivesBlockWarning,
)
from replaygate.fixtures.store import FixtureStore
from replaygate.http import block_network, intercept
from replaygate.network import network_blocked, refusals
from replaygate.sim import Simulator
from sdks import anthropic, openai


def user_code(base_url: str | None) -> dict[str, Any]:
    """An agent that builds its own SDK clients, knowing nothing of replaygate."""
    with anthropic.Anthropic(api_key="user-key", base_url=base_url) as claude:
        message = claude.messages.create(
            model="m", max_tokens=32, messages=[{"role": "user", "content": "plan"}]
        )
    gpt_url = f"{base_url}/v1" if base_url else None
    with openai.OpenAI(api_key="user-key", base_url=gpt_url) as gpt:
        chunks = gpt.chat.completions.create(
            model="g", messages=[{"role": "user", "content": "summarize"}], stream=True
        )
        dumped = [c.model_dump(mode="json") for c in chunks]
    return {"message": message.model_dump(mode="json"), "chunks": dumped}


async def async_user_code(base_url: str | None) -> dict[str, Any]:
    async with (
        anthropic.AsyncAnthropic(api_key="user-key", base_url=base_url) as claude,
        claude.messages.stream(
            model="m", max_tokens=32, messages=[{"role": "user", "content": "async plan"}]
        ) as stream,
    ):
        events = [e.model_dump(mode="json") async for e in stream]
    return {"events": events}


ORIGINALS = {
    (cls, name): cls.__dict__[name]
    for cls, name in (
        (httpx2.Client, "send"),
        (httpx2.AsyncClient, "send"),
        (httpx.Client, "send"),
        (httpx.AsyncClient, "send"),
        (httpx2.HTTPTransport, "handle_request"),
        (httpx.AsyncHTTPTransport, "handle_async_request"),
        (BaseProcess, "start"),
    )
}


def assert_restored() -> None:
    for (cls, name), original in ORIGINALS.items():
        assert cls.__dict__[name] is original


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_intercept_records_and_replays_clients_built_by_user_code(tmp_path: Path) -> None:
    store = tmp_path / "agent.jsonl"
    with Simulator(behavior="echo") as sim:
        with intercept(store, "record-missing", approve_live=True, source="sim") as session:
            live = user_code(sim.url)
            live_async = asyncio.run(async_user_code(sim.url))
        assert session.recorded == 3
        assert len(sim.requests) == 3
    assert_restored()
    assert len(FixtureStore.open(store)) == 3
    with block_network(), intercept(store) as session:
        assert user_code(None) == live
        assert asyncio.run(async_user_code(None)) == live_async
    assert session.replays == 3
    assert_restored()


def test_intercept_replay_miss_is_loud_and_restores(tmp_path: Path) -> None:
    with block_network(), intercept(tmp_path / "none.jsonl"), pytest.raises(FixtureMismatchError):
        user_code(None)
    assert_restored()


def test_intercept_refuses_recording_without_approval(tmp_path: Path) -> None:
    with pytest.raises(LiveCallNotApproved), intercept(tmp_path / "x.jsonl", "record-missing"):
        pass
    assert_restored()


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_nested_intercepts_answer_from_the_innermost_and_unwind(tmp_path: Path) -> None:
    outer_store, inner_store = tmp_path / "outer.jsonl", tmp_path / "inner.jsonl"
    with (
        Simulator(behavior="echo") as sim,
        intercept(outer_store, "record-missing", approve_live=True),
        httpx2.Client(base_url=sim.url) as client,
    ):
        client.post("/v1/messages", json={"n": 1}, headers={"x-api-key": "k"})
        with intercept(inner_store, "record-missing", approve_live=True):
            client.post("/v1/messages", json={"n": 2}, headers={"x-api-key": "k"})
        client.post("/v1/messages", json={"n": 3}, headers={"x-api-key": "k"})
    assert_restored()
    outer = sorted(f.request["body"]["n"] for f in FixtureStore.open(outer_store))
    inner = sorted(f.request["body"]["n"] for f in FixtureStore.open(inner_store))
    assert (inner, outer) == ([2], [1, 3])  # answered once, by the innermost


def _recorded_bodies(store: Path) -> list[int]:
    return sorted(f.request["body"]["n"] for f in FixtureStore.open(store))


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_blocks_open_at_once_in_two_tasks_record_each_into_its_own_store(tmp_path: Path) -> None:
    """Two agent runs at once (asyncio.gather), each in its own block: the block entered
    last answered both, and wrote the other's turns into its store."""

    async def case(name: str, url: str, turns: range, both_in: asyncio.Event) -> None:
        with intercept(tmp_path / f"{name}.jsonl", "record-missing", approve_live=True):
            if name == "a":  # a waits inside its block until b has entered its own
                await both_in.wait()
            else:
                both_in.set()
            async with httpx2.AsyncClient(base_url=url) as client:
                for n in turns:
                    await client.post("/v1/messages", json={"n": n}, headers={"x-api-key": "k"})
                    await asyncio.sleep(0)

    async def both(url: str) -> None:
        both_in = asyncio.Event()
        await asyncio.gather(
            case("a", url, range(0, 4), both_in), case("b", url, range(4, 6), both_in)
        )

    with Simulator(behavior="echo") as sim:
        asyncio.run(both(sim.url))
    assert_restored()
    assert (_recorded_bodies(tmp_path / "a.jsonl"), _recorded_bodies(tmp_path / "b.jsonl")) == (
        [0, 1, 2, 3],
        [4, 5],
    )


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_blocks_open_at_once_in_two_threads_record_each_into_its_own_store(
    tmp_path: Path,
) -> None:
    both_in = threading.Barrier(2)

    def case(name: str, url: str, turns: range) -> None:
        with intercept(tmp_path / f"{name}.jsonl", "record-missing", approve_live=True):
            both_in.wait(timeout=10)
            with httpx2.Client(base_url=url) as client:
                for n in turns:
                    client.post("/v1/messages", json={"n": n}, headers={"x-api-key": "k"})

    with Simulator(behavior="echo") as sim:
        threads = [
            threading.Thread(target=case, args=("a", sim.url, range(0, 3))),
            threading.Thread(target=case, args=("b", sim.url, range(3, 5))),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
    assert_restored()
    assert _recorded_bodies(tmp_path / "a.jsonl") == [0, 1, 2]
    assert _recorded_bodies(tmp_path / "b.jsonl") == [3, 4]


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_send_from_a_pool_thread_is_answered_by_the_open_block(tmp_path: Path) -> None:
    """A thread of a pool started before the block begins with an empty context: the block
    open in the process answers it (as frameworks run sync work in executors)."""
    store = tmp_path / "pool.jsonl"
    with (
        ThreadPoolExecutor(1) as pool,
        Simulator(behavior="echo") as sim,
        httpx2.Client(base_url=sim.url) as client,
    ):
        pool.submit(lambda: None).result()  # the thread exists before the block
        with intercept(store, "record-missing", approve_live=True):
            sent = pool.submit(
                client.post, "/v1/messages", json={"n": 7}, headers={"x-api-key": "k"}
            )
            sent.result(timeout=30)
    assert _recorded_bodies(store) == [7]


def with_fallback(base_url: str | None) -> str:
    """An agent that falls back to a canned answer when its model call fails (LangChain's
    ``with_fallbacks``, pydantic-ai's ``FallbackModel``)."""
    try:
        return str(user_code(base_url)["message"]["content"][0]["text"])
    except Exception:
        return "fallback answer"


def test_a_miss_the_code_under_test_caught_warns_as_the_block_ends(tmp_path: Path) -> None:
    # outside pytest's fixture, the block ended green on the fallback's answer
    with (
        pytest.warns(ReplayErrorCaughtWarning) as warned,
        intercept(tmp_path / "none.jsonl") as session,
    ):
        assert with_fallback(None) == "fallback answer"
    (warning,) = warned
    assert str(warning.message).startswith(
        "1 replay error(s) raised inside this intercept() block did not leave it: the code "
        "under test caught them and went on (a framework's fallback model or retry), so what "
        "it returned is not what was recorded. The first: no fixture recorded for this HTTP "
        "request (POST https://api.anthropic.com/v1/messages): key "
    )
    assert "Call `raise_caught()` on the block's session" in str(warning.message)
    with pytest.raises(FixtureMismatchError) as raised:
        session.raise_caught()
    assert raised.value is session.raised[0]
    assert CAUGHT_NOTE in raised.value.__notes__


def test_a_decorated_coroutine_function_runs_inside_its_block(tmp_path: Path) -> None:
    # @intercept(store) on an async def entered and left the block as the coroutine was
    # made: it ran outside it, its requests sent to the network, and pytest (anyio,
    # pytest-asyncio) took the test for a sync one
    @intercept(tmp_path / "none.jsonl")
    async def ask() -> None:
        async with httpx2.AsyncClient() as client:
            await client.get("https://api.example.invalid/v1/models")

    assert inspect.iscoroutinefunction(ask)
    with pytest.raises(FixtureMismatchError):
        asyncio.run(ask())
    block = intercept(tmp_path / "none.jsonl")
    with block, pytest.raises(RuntimeError, match="entered already"), block:
        pass  # one object, one block at a time: a second would close the first's


def test_a_decorated_generator_function_runs_inside_its_block(tmp_path: Path) -> None:
    # @intercept(store) on a generator function (a pytest yield fixture) left the block as
    # the generator was made: its body ran outside it, its request sent to the network
    @intercept(tmp_path / "none.jsonl")
    def ask() -> Iterator[str]:
        yield "ready"
        with httpx2.Client() as client:
            client.get("https://api.example.invalid/v1/models")

    asking = ask()
    assert inspect.isgeneratorfunction(ask) and next(asking) == "ready"
    with pytest.raises(FixtureMismatchError):
        next(asking)
    with pytest.raises(TypeError, match=r"<locals>\.agen, an async generator function"):

        @intercept(tmp_path / "none.jsonl")
        async def agen() -> AsyncIterator[int]:
            yield 1


def test_a_decorated_generator_function_warns_of_a_caught_miss_at_its_decorator(
    tmp_path: Path,
) -> None:
    # its block's warning named the line of the code driving the generator, not its own
    @intercept(tmp_path / "none.jsonl")  # GENERATOR
    def answers() -> Iterator[str]:
        yield with_fallback(None)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", ResourceWarning)
        assert list(answers()) == ["fallback answer"]
    (warning,) = caught
    assert warning.category is ReplayErrorCaughtWarning and warning.filename == __file__
    source = Path(__file__).read_text(encoding="utf-8").splitlines()
    assert source[warning.lineno - 1].endswith("# GENERATOR")


def upload_traces() -> None:
    """An exporter that uploads spans and swallows its failure (the OpenAI Agents SDK's)."""
    with contextlib.suppress(Exception), httpx2.Client() as client:
        client.post("https://api.openai.com/v1/traces/ingest", json={"data": []})


def test_a_caught_miss_of_telemetry_warns_how_to_stop_it(tmp_path: Path) -> None:
    # the Agents SDK's trace upload was told as a fallback's answer, "what it returned is not
    # what was recorded", with neither what it was nor the switch that stops it
    with pytest.warns(ReplayErrorCaughtWarning) as warned, intercept(tmp_path / "none.jsonl"):
        upload_traces()
    said = str(warned[0].message)
    assert "what it returned" not in said
    assert "(POST https://api.openai.com/v1/traces/ingest)" in said
    assert "This request is to no model API" in said
    assert "OPENAI_AGENTS_DISABLE_TRACING=1" in said


def test_a_miss_leaving_the_block_names_the_misses_caught_before_it(tmp_path: Path) -> None:
    with pytest.raises(FixtureMismatchError) as raised, intercept(tmp_path / "none.jsonl"):
        assert with_fallback(None) == "fallback answer"  # the first miss, hidden
        asyncio.run(async_user_code(None))
    (note,) = raised.value.__notes__
    assert note.startswith(
        "1 other replay error(s) raised inside this intercept() block were caught by the "
        "code under test before this one. The first: no fixture recorded for this HTTP "
        "request (POST https://api.anthropic.com/v1/messages): key "
    )
    with pytest.raises(FixtureMismatchError) as alone, intercept(tmp_path / "none.jsonl"):
        user_code(None)
    assert not getattr(alone.value, "__notes__", None)


def falls_back_then_fails(base_url: str | None) -> None:
    """A model that misses, then a fallback that misses too, raised again by the
    framework as a bare ``Exception`` with the miss's text and no cause (LiteLLM's
    ``completion(fallbacks=...)``)."""
    with contextlib.suppress(Exception):
        user_code(base_url)  # the first miss, caught by the fallback
    try:
        asyncio.run(async_user_code(base_url))
    except Exception as error:
        said = str(error)
    raise Exception(f"litellm.InternalServerError: {said}")  # outside: no context


def test_a_framework_error_leaving_the_block_names_the_misses_caught_before_it(
    tmp_path: Path,
) -> None:
    # a fallback's miss raised again as a framework's own error (LiteLLM's bare Exception)
    # left the block with no word of the first model's miss, the one that names the change
    with (
        pytest.raises(Exception, match=r"^litellm\.InternalServerError") as raised,
        intercept(tmp_path / "none.jsonl"),
    ):
        falls_back_then_fails(None)
    (note,) = raised.value.__notes__
    assert note.startswith(
        "1 other replay error(s) raised inside this intercept() block were caught by the "
        "code under test before this one. The first: no fixture recorded for this HTTP "
        "request (POST https://api.anthropic.com/v1/messages): key "
    )
    key = re.compile(r"key (\w+) not in")
    assert key.findall(note) != key.findall(str(raised.value))  # the fallback's is not told
    # an error of the code's own, carrying no miss, is told of those it went on from
    with pytest.raises(AssertionError) as failed, intercept(tmp_path / "none.jsonl"):
        assert with_fallback(None) == "the model's answer"
    (told,) = failed.value.__notes__
    assert told.startswith("1 replay error(s) raised inside this intercept() block were caught")
    assert "before this error. The first: no fixture recorded" in told


def test_a_miss_leaving_the_block_names_none_of_its_own_retries(tmp_path: Path) -> None:
    # a framework's retries of the miss (LiteLLM Router's num_retries) were named as
    # "2 other replay error(s) ... caught before this one", the first of them this very miss
    def retried(tries: int) -> dict[str, Any]:
        for _ in range(tries - 1):
            with contextlib.suppress(FixtureMismatchError):
                return user_code(None)
        return user_code(None)

    with pytest.raises(FixtureMismatchError) as raised, intercept(tmp_path / "none.jsonl"):
        retried(3)
    # and were told nowhere: a CrewAI agent running its task again on the miss
    # (max_retry_limit) sent it three times, the test failing with a miss silent about it
    (note,) = raised.value.__notes__
    assert note.startswith("replaygate: this request missed 3 times so far: the code under ")
    assert "max_retry_limit" in note


def test_a_miss_leaving_the_block_names_none_the_block_itself_caught(tmp_path: Path) -> None:
    # a miss the block's own pytest.raises expected was named in the note of the next miss
    # as 'caught by the code under test', the one the reader was sent to first
    with pytest.raises(FixtureMismatchError) as raised, intercept(tmp_path / "none.jsonl"):
        with pytest.raises(FixtureMismatchError):
            user_code(None)
        asyncio.run(async_user_code(None))
    assert not getattr(raised.value, "__notes__", None)


def test_a_miss_a_fallback_caught_warns_beside_one_the_block_caught(tmp_path: Path) -> None:
    # the block's own pytest.raises catching one miss silenced the warning of every other:
    # a fallback's answer to another request passed green
    with pytest.warns(ReplayErrorCaughtWarning) as warned, intercept(tmp_path / "none.jsonl"):
        with pytest.raises(FixtureMismatchError):
            asyncio.run(async_user_code(None))
        assert with_fallback(None) == "fallback answer"
    assert "1 replay error(s) raised inside this intercept() block" in str(warned[0].message)


def test_raise_caught_passes_over_a_miss_the_block_itself_caught(tmp_path: Path) -> None:
    # it raised the miss the block's pytest.raises expected, not the one a fallback hid
    with warnings.catch_warnings(), intercept(tmp_path / "none.jsonl") as session:
        warnings.simplefilter("error", ReplayErrorCaughtWarning)  # both reached the block
        with pytest.raises(FixtureMismatchError):
            asyncio.run(async_user_code(None))
        assert with_fallback(None) == "fallback answer"
        with pytest.raises(FixtureMismatchError) as caught:
            session.raise_caught()
    assert caught.value is session.raised[1]
    assert session.shown is None  # the block's own code is its alone


def test_a_miss_the_block_itself_catches_does_not_warn(tmp_path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", ReplayErrorCaughtWarning)
        with intercept(tmp_path / "none.jsonl") as session:
            with pytest.raises(FixtureMismatchError):
                user_code(None)
            with contextlib.suppress(FixtureMismatchError):  # the block's own catch
                asyncio.run(async_user_code(None))
        assert len(session.raised) == 2
        with intercept(tmp_path / "none.jsonl") as clean:
            pass
    clean.raise_caught()  # nothing raised: nothing to raise


SCRIPT = """
from replaygate.errors import FixtureMismatchError
from replaygate.http import intercept
from test_http_intercept import user_code

def run_agent():
    try:
        return user_code(None)
    except Exception:
        return "fallback answer"

with intercept(STORE):
    answer = run_agent()
    def own_catch():
        try:
            user_code(None)
        except FixtureMismatchError:
            return "caught in the block"
"""


def test_a_miss_caught_by_a_function_of_the_module_holding_the_block_warns(
    tmp_path: Path,
) -> None:
    # every function of a module whose top level held the block counted as the block's
    # own code, so a newcomer's first script ended green on its fallback, no warning
    script = tmp_path / "first_script.py"
    script.write_text(SCRIPT, encoding="utf-8")
    store = str(tmp_path / "none.jsonl")
    with pytest.warns(ReplayErrorCaughtWarning) as warned:
        ran = runpy.run_path(str(script), {"STORE": store})
    assert ran["answer"] == "fallback answer" and len(warned) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error", ReplayErrorCaughtWarning)
        block = SCRIPT.replace("    answer = run_agent()\n", "")
        script.write_text(block + "    assert own_catch() == 'caught in the block'\n")
        runpy.run_path(str(script), {"STORE": store})  # a function of the block catches


def test_a_hidden_miss_of_a_script_run_as_main_is_warned_of_under_deprecation_errors(
    tmp_path: Path,
) -> None:
    # from Python 3.12 the warning, given the globals of a script's __main__ (a loader,
    # a __spec__ of None), raised "DeprecationWarning: Module globals is missing a
    # __spec__.loader" in its place under -W error::DeprecationWarning (and a ValueError
    # under runpy.run_path, the test above)
    script = tmp_path / "first_script.py"
    script.write_text(SCRIPT, encoding="utf-8")
    main = {
        "__name__": "__main__",
        "__file__": str(script),
        "__spec__": None,
        "__loader__": importlib.machinery.SourceFileLoader("__main__", str(script)),
        "STORE": str(tmp_path / "none.jsonl"),
    }
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", ResourceWarning)  # another test's, collected here
        warnings.simplefilter("error", DeprecationWarning)
        exec(compile(SCRIPT, str(script), "exec"), main)
    assert main["answer"] == "fallback answer"
    assert [w.category for w in caught] == [ReplayErrorCaughtWarning]


def test_a_block_entered_through_an_exit_stack_reads_its_own_catch(tmp_path: Path) -> None:
    # the code that entered it was ExitStack.enter_context's, so every catch warned
    with warnings.catch_warnings():
        warnings.simplefilter("error", ReplayErrorCaughtWarning)
        with contextlib.ExitStack() as stack:
            stack.enter_context(intercept(tmp_path / "none.jsonl"))
            with pytest.raises(FixtureMismatchError):
                user_code(None)


def _unittest_case(store: Path) -> type[unittest.TestCase]:
    """A unittest case whose ``setUp`` enters the block: its tests fail on a miss, in a
    ``subTest`` too, or pass on one, a fallback's or the failure a test expects."""

    class Agent(unittest.TestCase):
        def setUp(self) -> None:
            self.enterContext(intercept(store))  # ENTERED

        def test_miss(self) -> None:
            user_code(None)

        def test_miss_in_subtest(self) -> None:
            with self.subTest("plan"):
                user_code(None)

        def test_fallback(self) -> None:
            self.assertEqual(with_fallback(None), "fallback answer")

        @unittest.expectedFailure
        def test_expected_failure(self) -> None:
            user_code(None)

    return Agent


@pytest.mark.parametrize(
    "test", ["test_miss", "test_miss_in_subtest", "test_fallback", "test_expected_failure"]
)
def test_a_block_a_unittest_setup_entered_warns_of_a_hidden_miss_only(
    test: str, tmp_path: Path
) -> None:
    # a miss that failed the test was warned of as one the code under test caught and
    # went on from, at a line of unittest's cleanup that named no code of the test's
    result = unittest.TestResult()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", ResourceWarning)
        _unittest_case(tmp_path / "none.jsonl")(test).run(result)
    warned = [w for w in caught if w.category is ReplayErrorCaughtWarning]
    if test in ("test_fallback", "test_expected_failure"):  # passed on a miss
        assert result.wasSuccessful()
        (warning,) = warned
        source = Path(__file__).read_text(encoding="utf-8").splitlines()
        assert warning.filename == __file__ and source[warning.lineno - 1].endswith("# ENTERED")
    else:
        assert len(result.errors) == 1 and warned == []


def test_a_block_decorating_a_function_reads_its_own_catch_and_warns_at_it(
    tmp_path: Path,
) -> None:
    # @intercept(store) on a test: its own except was warned of as the code under test's,
    # at a line of the code calling the test (unittest's suite.py)
    store = tmp_path / "none.jsonl"

    @intercept(store)
    def own_catch() -> None:
        with pytest.raises(FixtureMismatchError):
            user_code(None)

    @intercept(store)  # DECORATED
    def fallback() -> str:
        return with_fallback(None)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", ResourceWarning)
        own_catch()
        assert caught == []
        assert fallback() == "fallback answer"
    (warning,) = caught
    assert warning.category is ReplayErrorCaughtWarning and warning.filename == __file__
    source = Path(__file__).read_text(encoding="utf-8").splitlines()
    assert source[warning.lineno - 1].endswith("# DECORATED")


def test_a_task_still_running_as_its_block_ends_is_warned_of(tmp_path: Path) -> None:
    """A task started inside a replaying block that sends after it ended: the clients were
    no longer patched, and its send went to the network without a word."""

    async def late(go: asyncio.Event) -> None:
        await go.wait()

    async def run() -> list[str]:
        go, never = asyncio.Event(), asyncio.Event()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            warnings.simplefilter("ignore", ResourceWarning)
            with intercept(tmp_path / "s.jsonl"):
                awaited = asyncio.create_task(late(go), name="awaited")
                left = asyncio.create_task(late(never), name="left-running")
                go.set()
                await awaited
            left.cancel()
        return [str(w.message) for w in caught if w.category is TaskOutlivesBlockWarning]

    warned = asyncio.run(run())
    assert len(warned) == 1, warned
    where = f"{__name__}.{test_a_task_still_running_as_its_block_ends_is_warned_of.__name__}"
    assert warned[0].startswith(
        "1 asyncio task(s) started inside this intercept() block still run as it ends "
        f"(left-running: {where}.<locals>.late): what they send after it is neither "
        "answered from the store nor recorded"
    )


def test_a_task_still_running_as_an_error_ends_its_block_is_named_on_the_error(
    tmp_path: Path,
) -> None:
    """asyncio.gather raised the first miss out of a replaying block while the batch's
    other tasks waited their turn (LangChain's abatch with max_concurrency): they sent
    after it, to the network, and nothing said so."""

    async def run() -> list[str]:
        never = asyncio.Event()
        with pytest.raises(FixtureMismatchError) as missed, intercept(tmp_path / "s.jsonl"):
            waiting = asyncio.create_task(never.wait(), name="waiting")
            user_code(None)
        waiting.cancel()
        return missed.value.__notes__

    notes = asyncio.run(run())
    assert notes[-1].startswith(
        "replaygate: 1 asyncio task(s) started inside this intercept() block still run as "
        "it ends (waiting: asyncio.locks.Event.wait): what they send after it is neither "
        "answered from the store nor recorded"
    ), notes
    assert notes[-1].endswith(
        "or enter it around asyncio.run(...), which cancels them before it returns."
    )


def test_a_block_whose_tasks_ended_inside_it_gives_no_such_warning(tmp_path: Path) -> None:
    async def run() -> None:
        with intercept(tmp_path / "s.jsonl"):
            await asyncio.gather(asyncio.sleep(0), asyncio.sleep(0))

    with warnings.catch_warnings():
        warnings.simplefilter("error", TaskOutlivesBlockWarning)
        asyncio.run(run())


def test_a_task_outliving_its_block_is_not_answered_by_a_later_block(tmp_path: Path) -> None:
    """A task one test's block started sent after that block ended, inside the next
    test's block (pytest-asyncio's module loop): it was answered from, and recorded into,
    the next test's store. Now no block answers it, and its refusal says why."""

    async def run() -> tuple[str, int]:
        go = asyncio.Event()

        async def late() -> None:
            await go.wait()
            async with httpx2.AsyncClient(verify=False) as client:  # no TLS context to load
                await client.post("http://api.anthropic.com/v1/messages", json={"n": 1})

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", TaskOutlivesBlockWarning)
            with intercept(tmp_path / "a.jsonl"):
                task = asyncio.create_task(late())
        with intercept(tmp_path / "b.jsonl") as later, pytest.raises(httpx2.ConnectError) as err:
            go.set()
            await task
        return str(err.value), len(later.raised)

    refused, missed = asyncio.run(run())
    assert missed == 0
    assert "made by a task started inside an intercept() block (or a pytest" in refused
    assert str(refusals()[-1]).endswith(
        "a task left running by an intercept() block that has ended)"
    )


def test_a_task_another_block_started_is_not_warned_of_by_this_one(tmp_path: Path) -> None:
    """Two blocks open at once in two tasks: the one ending first warned of a task the
    other started, and awaited, inside its own block."""

    async def run() -> None:
        started, go = asyncio.Event(), asyncio.Event()

        async def first() -> None:
            with intercept(tmp_path / "a.jsonl"):
                await started.wait()
            go.set()

        async def second() -> None:
            with intercept(tmp_path / "b.jsonl"):
                task = asyncio.create_task(go.wait(), name="the second block's")
                started.set()
                await task

        await asyncio.gather(first(), second())

    with warnings.catch_warnings():
        warnings.simplefilter("error", TaskOutlivesBlockWarning)
        asyncio.run(run())


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_stream_left_by_a_break_and_closed_gives_no_such_warning(tmp_path: Path) -> None:
    # the loop closes the SDK iterator the break dropped in a task of its own, which the
    # code neither started nor could await
    async def read_three(store: Path, **options: Any) -> int:
        with intercept(store, **options):
            async with openai.AsyncOpenAI(api_key="k") as client:
                stream = await client.chat.completions.create(
                    model="g", messages=[{"role": "user", "content": "long " * 20}], stream=True
                )
                read = 0
                async for _ in stream:
                    read += 1
                    if read == 3:
                        break
                await stream.close()
        return read

    store = tmp_path / "s.jsonl"
    with Simulator(behavior="echo") as sim, warnings.catch_warnings():
        warnings.simplefilter("error", TaskOutlivesBlockWarning)
        recorded = asyncio.run(
            read_three(store, mode="record-missing", approve_live=True, live_origin=sim.url)
        )
        assert asyncio.run(read_three(store)) == recorded == 3


class _Started:
    """What a process start hands back, where no process is started."""

    sentinel = -1

    def poll(self) -> int:
        return 0


def _started_warnings(
    method: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **block: Any
) -> list[str]:
    """The warnings of a process started by ``method`` inside a block (replay, unless
    ``block`` says otherwise) and one started after it, its ``_Popen`` stubbed so that no
    process is made."""
    process_class = type(multiprocessing.get_context(method).Process())  # type: ignore[attr-defined]
    monkeypatch.setattr(process_class, "_Popen", staticmethod(lambda process: _Started()))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", ResourceWarning)
        with intercept(tmp_path / "s.jsonl", **block):
            process_class(target=print).start()
        process_class(target=print).start()
    outside = (w for w in caught if w.category is ProcessOutsideBlockWarning)
    return [f"{w.filename}: {w.message}" for w in outside]


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_a_process_that_does_not_share_the_block_is_warned_of_as_it_starts(
    method: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    warned = _started_warnings(method, tmp_path, monkeypatch)
    assert warned == [
        f"{__file__}: a process was started by {method!r} inside an intercept() block: it "
        "does not share the block, so what it sends is neither answered from the store nor "
        "recorded, and beyond loopback it is refused, the network being blocked there too. "
        "Start it by 'fork', or enter intercept() in the process itself (a pool's "
        "initializer)"
    ]
    assert_restored()


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_a_refusal_in_a_process_started_afresh_says_no_block_answers_it(
    method: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a spawned worker's refused model call told it to record with approval (or from the
    # live API), which sends it live unrecorded: no block of the test reaches the worker
    def look_up() -> str:
        with pytest.raises(NetworkBlockedError) as refused:
            socket.getaddrinfo("api.anthropic.com", 443)
        return str(refused.value)

    started: list[Any] = []  # the target the process would run

    def popen(process: BaseProcess) -> _Started:
        started.append(process._target)  # type: ignore[attr-defined]
        return _Started()

    process_class = type(multiprocessing.get_context(method).Process())  # type: ignore[attr-defined]
    monkeypatch.setattr(process_class, "_Popen", staticmethod(popen))
    with warnings.catch_warnings(), intercept(tmp_path / "s.jsonl"):
        warnings.simplefilter("ignore", ProcessOutsideBlockWarning)
        process_class(target=look_up).start()
    said = started[0]()  # as the worker runs it, its own process holding no block
    assert said.endswith(f"refused (from {__name__}): {network.started_afresh(method)}")
    assert f"this process was started by {method!r} inside a block" in said


REFUSED: list[str] = []
"""What the model's host looked up in :class:`_OwnRun` said."""


class _OwnRun(multiprocessing.context.SpawnProcess):
    """A process whose class has a ``run()`` of its own, no target."""

    def run(self) -> None:
        with pytest.raises(NetworkBlockedError) as refused:
            socket.getaddrinfo("api.anthropic.com", 443)
        REFUSED.append(str(refused.value))


def test_a_process_with_a_run_of_its_own_started_afresh_runs_it_blocked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a Process subclass overriding run(), started by spawn in a replaying test, reached
    # the network as addressed (law 3): only a target was run blocked
    sent: list[bytes] = []  # the process as it goes to the worker

    def popen(process: BaseProcess) -> _Started:
        multiprocessing.context.set_spawning_popen(process)  # as spawn's Popen pickles it
        try:
            sent.append(multiprocessing.reduction.ForkingPickler.dumps(process))
        finally:
            multiprocessing.context.set_spawning_popen(None)
        return _Started()

    monkeypatch.setattr(_OwnRun, "_Popen", staticmethod(popen))
    REFUSED.clear()
    with warnings.catch_warnings(), intercept(tmp_path / "s.jsonl"):
        warnings.simplefilter("ignore", ProcessOutsideBlockWarning)
        _OwnRun().start()
    pickle.loads(sent[0]).run()  # as the worker runs it, its own process holding no block
    assert [said.split(": ", 1)[1] for said in REFUSED] == [network.started_afresh("spawn")]


def test_a_process_started_while_recording_live_is_told_it_reaches_the_network(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recording = {"mode": "record-missing", "approve_live": True}
    (warned,) = _started_warnings("spawn", tmp_path, monkeypatch, **recording)
    assert "nor recorded, and goes to the network as the code addresses it." in warned


def test_a_forked_process_shares_the_block_and_is_not_warned_of(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _started_warnings("fork", tmp_path, monkeypatch) == []


def test_a_recording_whose_working_folder_changed_refuses_before_sending(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A notebook's %cd inside a block given a relative store: the next live answer was sent
    # and lost, with filelock's "Deadlock: lock 'rc.jsonl.lock' is already held by a
    # different FileLock instance", and a stray lock was left in the new folder.
    sent: list[str] = []

    def live(request: httpx2.Request) -> httpx2.Response:
        sent.append(request.content.decode())
        return httpx2.Response(200, json={"echo": sent[-1]})

    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    with intercept("rc.jsonl", "record-missing", approve_live=True) as session:
        client = httpx2.Client(transport=httpx2.MockTransport(live))
        client.post("https://api.example.com/v1/ask", json={"q": 1})
        monkeypatch.chdir(tmp_path / "sub")
        with pytest.raises(StoreWriteError) as refused:
            client.post("https://api.example.com/v1/ask", json={"q": 2})
        with pytest.raises(StoreWriteError, match="cannot write a fixture: opened by"):
            session.store.put(next(iter(FixtureStore.open(tmp_path / "rc.jsonl"))))
    assert str(refused.value) == (
        f"rc.jsonl: cannot record here: opened by this relative path in {tmp_path}, it "
        f"names another store now that the working folder is {tmp_path / 'sub'}: give the "
        f"store as an absolute path, or change back to {tmp_path} (nothing was sent)"
    )
    assert len(sent) == 1 and list((tmp_path / "sub").iterdir()) == []
    assert len(FixtureStore.open(tmp_path / "rc.jsonl")) == 1


def test_a_block_left_open_across_notebook_cells_warns_only_of_misses_no_cell_showed(
    tmp_path: Path,
) -> None:
    # Entered in one cell and left in a later one: a miss a cell between raised, shown under
    # that cell, was warned of at the end as one the code under test caught and went on from.
    cells: dict[str, Any] = {"__name__": "__main__", "store": str(tmp_path / "none.jsonl")}

    def run_cell(source: str) -> None:
        exec(compile(source, "<cell>", "exec"), cells)  # as IPython runs a cell's code

    run_cell("from replaygate.http import intercept\nblock = intercept(store)\nblock.__enter__()")
    with pytest.raises(FixtureMismatchError):
        run_cell("from test_http_intercept import user_code\nuser_code(None)")
    with warnings.catch_warnings():
        warnings.simplefilter("error", ReplayErrorCaughtWarning)
        run_cell("block.__exit__(None, None, None)")
    run_cell("block.__enter__()")
    run_cell("from test_http_intercept import with_fallback\nanswer = with_fallback(None)")
    with pytest.warns(ReplayErrorCaughtWarning, match="the code under test caught them"):
        run_cell("block.__exit__(None, None, None)")
    assert cells["answer"] == "fallback answer"


def test_a_block_left_open_as_the_interpreter_exits_says_what_it_caught(tmp_path: Path) -> None:
    # A script or notebook that entered a block by hand and never left it: a miss its
    # fallback caught went unsaid, the block ended by the exit without a word (exit status 0)
    cells: dict[str, Any] = {"__name__": "__main__", "store": str(tmp_path / "none.jsonl")}
    run = "from replaygate.http import intercept\nblock = intercept(store)\nblock.__enter__()"
    exec(compile(run, "<cell>", "exec"), cells)
    fallback = "from test_http_intercept import with_fallback\nwith_fallback(None)"
    exec(compile(fallback, "<cell>", "exec"), cells)
    with pytest.warns(ReplayErrorCaughtWarning, match="the code under test caught them"):
        held_blocks.end_open_blocks()  # what the exit runs (atexit), the namespace still whole
    assert not network_blocked() and httpx2.Client.send.__module__ == "httpx2._client"


def test_a_block_entered_by_hand_warns_of_a_fallback_of_its_own_module(tmp_path: Path) -> None:
    # A script (or a notebook cell) that entered the block by hand and defined its agent's
    # fallback itself: every function of the module was taken for the block's own code,
    # so the miss that fallback caught was said nowhere.
    script = tmp_path / "script.py"
    script.write_text(
        "from replaygate.http import intercept\n"
        "from test_http_intercept import user_code\n"
        "def ask():\n"
        "    try:\n"
        "        return user_code(None)\n"
        "    except Exception:\n"
        "        return 'fallback answer'\n"
        "block = intercept(store)\n"
        "block.__enter__()\n"
        "answer = ask()\n",
        encoding="utf-8",
    )
    ran: dict[str, Any] = {"__name__": "__main__", "store": str(tmp_path / "none.jsonl")}
    exec(compile(script.read_text("utf-8"), str(script), "exec"), ran)
    with pytest.warns(ReplayErrorCaughtWarning, match="the code under test caught them"):
        ran["block"].__exit__(None, None, None)
    assert ran["answer"] == "fallback answer"


def test_a_block_entered_by_code_run_in_globals_of_no_name_warns(tmp_path: Path) -> None:
    # exec(code, {...}) gives the code globals with no __name__: the warning was given a
    # module of None, which warnings drops without a word
    ran: dict[str, Any] = {"store": str(tmp_path / "none.jsonl")}
    code = (
        "from replaygate.http import intercept\n"
        "from test_http_intercept import with_fallback\n"
        "with intercept(store):\n"
        "    with_fallback(None)\n"
    )
    with pytest.warns(ReplayErrorCaughtWarning, match="the code under test caught them"):
        exec(compile(code, "<run>", "exec"), ran)


def test_a_block_entered_and_dropped_unleft_says_it_ends_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # intercept(store).__enter__() keeps no object: the collector closed the block at once,
    # without a word, and what the code sent after it went to the network unanswered.
    store = tmp_path / "none.jsonl"
    with pytest.warns(BlockDroppedWarning, match="its object dropped without leaving it") as w:
        intercept(store).__enter__()  # DROPPED
    source = Path(__file__).read_text(encoding="utf-8").splitlines()
    assert w[0].filename == __file__ and source[w[0].lineno - 1].endswith("# DROPPED")
    assert httpx2.Client.send.__module__ == "httpx2._client"  # no block left patching
    block = intercept(store)
    block.__enter__()
    block.__exit__(None, None, None)
    with warnings.catch_warnings():
        warnings.simplefilter("error", BlockDroppedWarning)
        del block  # left: nothing to say
        exiting = threading.Event()
        exiting.set()  # as the interpreter exits (IPython's exit drops a notebook's blocks)
        monkeypatch.setattr(held_blocks, "_EXITING", exiting)
        intercept(store).__enter__()
    assert httpx2.Client.send.__module__ == "httpx2._client"
    monkeypatch.undo()
    ignored: list[Any] = []
    monkeypatch.setattr(sys, "unraisablehook", ignored.append)
    with warnings.catch_warnings():
        warnings.simplefilter("error", BlockDroppedWarning)  # raised in __del__, ignored
        intercept(store).__enter__()
    assert [type(u.exc_value) for u in ignored] == [BlockDroppedWarning]
    assert httpx2.Client.send.__module__ == "httpx2._client"  # ended all the same


def test_a_network_block_entered_and_dropped_unleft_says_it_ends_there() -> None:
    # block_network().__enter__() in a notebook cell: the collector ended the block at once,
    # without a word, and every connection after it was made as addressed
    with pytest.warns(BlockDroppedWarning, match=r"this block_network\(\) block was") as w:
        block_network().__enter__()  # DROPPED
    source = Path(__file__).read_text(encoding="utf-8").splitlines()
    assert w[0].filename == __file__ and source[w[0].lineno - 1].endswith("# DROPPED")
    assert "the network is open after it" in str(w[0].message)
    assert not network_blocked()
    held = block_network()
    held.__enter__()
    assert network_blocked()
    held.__exit__(None, None, None)
    assert not network_blocked()


def test_a_replay_whose_working_folder_changed_reads_the_store_it_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A notebook's %cd after the cell that entered the block: each answer failed with
    # "removed from disk since the store was indexed", and a miss said "0 fixtures ...
    # there is no store at rc.jsonl: record it first".
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    client = httpx2.Client(transport=httpx2.MockTransport(lambda _: httpx2.Response(200, json=1)))
    with intercept("rc.jsonl", "record-missing", approve_live=True):
        client.post("https://api.example.com/v1/ask", json={"q": 1})
    with intercept("rc.jsonl"):
        monkeypatch.chdir(tmp_path / "sub")
        assert client.post("https://api.example.com/v1/ask", json={"q": 1}).json() == 1
        with pytest.raises(FixtureMismatchError) as missed:
            client.post("https://api.example.com/v1/ask", json={"q": 2})
    assert "not in rc.jsonl (1 fixture)\nnearest recorded request: key " in str(missed.value)
    assert list((tmp_path / "sub").iterdir()) == []


def test_a_patch_made_over_the_blocks_while_one_lasts_is_kept_after_it(tmp_path: Path) -> None:
    # Sentry's HttpxIntegration, set up by a sentry_sdk.init() inside a block (an app
    # factory a test calls), wraps Client.send over replaygate's patch: the block's end set
    # the method back to what it was before, and Sentry's spans and trace headers were gone
    # for the rest of the process
    before = httpx2.Client.__dict__["send"]
    seen: list[str] = []
    store = tmp_path / "s.jsonl"
    answered = httpx2.MockTransport(lambda request: httpx2.Response(200, text="live"))
    try:
        with intercept(store):
            beneath = httpx2.Client.send

            def theirs(client: httpx2.Client, request: httpx2.Request, **options: Any) -> Any:
                seen.append(request.url.path)
                return beneath(client, request, **options)

            httpx2.Client.send = theirs  # type: ignore[method-assign]
        assert httpx2.Client.send is theirs
        with httpx2.Client(transport=answered) as client:
            assert client.get("http://127.0.0.1:9/outside").text == "live"  # no block: as is
            with intercept(store, mode="record-missing", approve_live=True):
                assert client.get("http://127.0.0.1:9/recorded").text == "live"
            with intercept(store):
                assert client.get("http://127.0.0.1:9/recorded").text == "live"
        assert seen == ["/outside", "/recorded"]  # the replay answered above it
        assert len(store.read_text().splitlines()) == 1  # recorded once, beneath it too
    finally:
        httpx2.Client.send = before  # type: ignore[method-assign]
