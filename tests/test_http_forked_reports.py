"""A session copied into a forked process (``multiprocessing``'s ``fork``: a pool's
workers) tells the session it was copied from what it did there, as it happens: the
replay errors it raised, which a worker may catch and go on from, its sends and its
recordings (:mod:`replaygate.http.forked`). A miss the worker sends back, which the
parent raises again, is the parent's to see, and is not told as caught."""

from __future__ import annotations

import gc
import multiprocessing
import shutil
import tempfile
import time
import warnings
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from echo_recording import ASKING, record_echoes
from loopback import EchoesMessages, serving
from nested_pytest import sessions_loading
from replaygate.errors import (
    KEPT_ERRORS,
    FixtureMismatchError,
    NothingRecordedWarning,
    ReplayErrorCaughtWarning,
)
from replaygate.fixtures.store import FixtureStore
from replaygate.http import Exchange, intercept
from sdks import anthropic

pytestmark = pytest.mark.slow  # forks processes

FORK = multiprocessing.get_context("fork")

BASE = "http://127.0.0.1:9"
"""Where the replayed clients send: nowhere, replay never goes live."""

DIFF = "body.messages[0].content: 'hi' != 'changed'"

sessions_find_their_modules = sessions_loading(anthropic)


def ask(base: str, question: str) -> str:
    """``question`` asked by a client the code under test builds itself."""
    client = anthropic.Anthropic(api_key="k", base_url=base, max_retries=0)
    reply = client.messages.create(
        model="m", max_tokens=8, messages=[{"role": "user", "content": question}]
    )
    return str(reply.content[0].text)


def ask_with_fallback(base: str, question: str) -> str:
    """:func:`ask`, any error caught and another answer given, as a framework's fallback."""
    try:
        return ask(base, question)
    except Exception:
        return "fallback"


def catch_then_hang(question: str, told: Any) -> None:
    """A worker that catches a miss, says so, and works on until it is killed."""
    ask_with_fallback(BASE, question)
    told.set()
    time.sleep(60)


def in_pool(work: Callable[..., str], *args: Any) -> str:
    """``work(*args)`` in a fork pool's worker, the pool terminated as it is left."""
    with FORK.Pool(1) as pool:
        return pool.apply(work, args)


def in_executor(work: Callable[..., str], *args: Any) -> str:
    """``work(*args)`` in a fork ``ProcessPoolExecutor``'s worker."""
    with ProcessPoolExecutor(1, mp_context=FORK) as pool:
        return pool.submit(work, *args).result()


@pytest.fixture(scope="module")
def answered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store holding the answer to "hi", recorded once for the module's tests."""
    store = tmp_path_factory.mktemp("answered") / "store.jsonl"
    with serving(EchoesMessages) as base, intercept(store, "record-missing", approve_live=True):
        assert ask(base, "hi") == "echo: hi"
    return store


@pytest.fixture
def recorded(answered: Path, tmp_path: Path) -> Path:
    """A copy of :func:`answered`, the store one test replays."""
    store = tmp_path / "store.jsonl"
    shutil.copyfile(answered, store)
    return store


@pytest.mark.parametrize("run", [in_pool, in_executor])
def test_a_miss_a_forked_worker_caught_is_raised_by_the_session(
    recorded: Path, run: Callable[..., str]
) -> None:
    caught = pytest.warns(ReplayErrorCaughtWarning, match="did not leave it")
    with caught, intercept(recorded) as session:
        assert run(ask_with_fallback, BASE, "changed") == "fallback"
    [error] = session.raised
    assert isinstance(error, FixtureMismatchError)
    assert error.differences == (DIFF,)
    assert session.sent == 1
    with pytest.raises(FixtureMismatchError) as raised:
        session.raise_caught()
    assert raised.value is error
    assert any(note.startswith("replaygate: raised in process ") for note in error.__notes__)


@pytest.mark.parametrize("run", [in_pool, in_executor])
def test_a_miss_a_forked_worker_sent_back_is_the_parent_s_to_see(
    recorded: Path, run: Callable[..., str]
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", ReplayErrorCaughtWarning)
        with intercept(recorded) as session, pytest.raises(FixtureMismatchError) as missed:
            run(ask, BASE, "changed")
    assert missed.value.differences == (DIFF,)
    assert (session.sent, session.raised) == (1, [])


def ask_many(first: int, count: int) -> str:
    """``count`` questions the store has no answer to, each miss caught."""
    return " ".join(ask_with_fallback(BASE, f"changed {first + i}") for i in range(count))


def test_a_session_keeps_the_first_errors_its_workers_told(recorded: Path) -> None:
    half = KEPT_ERRORS // 2 + 2
    with pytest.warns(ReplayErrorCaughtWarning), intercept(recorded) as session:
        in_pool(ask_many, 0, half)
        in_pool(ask_many, half, half)
    assert session.sent == 2 * half
    assert len(session.raised) == KEPT_ERRORS
    assert all(f"'changed {i}'" in str(e) for i, e in enumerate(session.raised))  # in order


def test_a_worker_killed_after_it_caught_a_miss_told_it_as_it_caught_it(recorded: Path) -> None:
    told = FORK.Event()
    with pytest.warns(ReplayErrorCaughtWarning), intercept(recorded) as session:
        worker = FORK.Process(target=catch_then_hang, args=("changed", told))
        worker.start()
        assert told.wait(30)
        worker.terminate()
        worker.join()
    assert [error.differences for error in session.raised] == [(DIFF,)]


def test_what_a_forked_worker_records_is_the_session_s(tmp_path: Path) -> None:
    store = tmp_path / "store.jsonl"
    with warnings.catch_warnings():
        warnings.simplefilter("error", NothingRecordedWarning)
        with (
            serving(EchoesMessages) as base,
            intercept(store, "record-missing", approve_live=True) as session,
        ):
            assert in_pool(ask, base, "hi") == "echo: hi"
    assert (session.sent, session.recorded, session.raised) == (1, 1, [])
    [fixture] = FixtureStore.open(store)
    assert fixture.request["body"]["messages"][0]["content"] == "hi"


def test_the_folder_workers_tell_in_is_made_as_they_fork_and_removed_with_the_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    exchange = Exchange(tmp_path / "store.jsonl")
    assert exchange._forked.folder is None  # never forked: none
    worker = FORK.Process(target=int)
    worker.start()
    worker.join()
    folder = Path(exchange._forked.folder or "")
    assert folder.parent == tmp_path
    assert list(folder.iterdir()) == []  # a worker that told nothing made no file
    del exchange
    gc.collect()
    assert not folder.exists()


POOLED = (
    """
import concurrent.futures
import multiprocessing
import os

import anthropic
import pytest
from replaygate.errors import FixtureMismatchError

PROMPT = os.environ.get("PROMPT", "hi")
FORK = multiprocessing.get_context("fork")
"""
    + ASKING
    + """

@pytest.mark.replaygate
def test_pool():
    with FORK.Pool(1) as pool:
        assert pool.apply(ask_with_fallback, (PROMPT,))


@pytest.mark.replaygate
def test_executor():
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=FORK) as pool:
        assert pool.submit(ask_with_fallback, PROMPT).result()


@pytest.mark.replaygate
def test_the_test_expects_the_miss():
    with FORK.Pool(1) as pool:
        if PROMPT == "hi":
            pool.apply(ask, (PROMPT,))
        else:
            with pytest.raises(FixtureMismatchError):
                pool.apply(ask, (PROMPT,))
"""
)


def test_under_pytest_what_a_forked_worker_records_is_the_test_s(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_pooled=POOLED)
    recording = ["--replaygate-record-mode=record-missing", "--replaygate-approve-live"]
    result = pytester.runpytest(*recording, "--replaygate-simulator=echo")
    result.assert_outcomes(passed=3)  # none "recorded nothing"
    # what the workers replayed is the test's too: no fixture unused, "never requested"
    pytester.runpytest("--replaygate-strict").assert_outcomes(passed=3)


def test_under_pytest_a_miss_a_forked_worker_caught_fails_the_test(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    for test in ("test_pool", "test_executor", "test_the_test_expects_the_miss"):
        record_echoes(pytester.path / f"tests/fixtures/test_pooled/{test}.jsonl", ["hi"])
    pytester.makepyfile(test_pooled=POOLED)
    monkeypatch.setenv("PROMPT", "changed")
    result = pytester.runpytest("-rE")
    result.assert_outcomes(passed=3, errors=2)
    result.stdout.fnmatch_lines(
        [
            "*ERROR at teardown of test_pool*",
            "*the code under test caught a replay error and went on*",
            "*no fixture recorded for this HTTP request*",
            f"*{DIFF.replace('[', '?').replace(']', '?')}*",
            "*ERROR at teardown of test_executor*",
        ]
    )
    assert "ERROR at teardown of test_the_test_expects_the_miss" not in result.stdout.str()
