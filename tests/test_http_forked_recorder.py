"""A recording session made before a fork (multiprocessing's ``fork`` start method: a
pool of workers, a server that forks its workers) records in the forked process too:
its store takes a write lock of that process's own, and nothing recorded is lost."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

import pytest

from loopback import EchoesMessages, serving
from replaygate.errors import FixtureMismatchError, SessionEndedError
from replaygate.fixtures.store import FixtureStore
from replaygate.http import Exchange, block_network, httpx2_client
from sdks import anthropic

pytestmark = pytest.mark.slow  # forks a process


def ask(exchange: Exchange, base: str, question: str) -> str:
    """``question`` asked through the anthropic SDK over a client of ``exchange``."""
    http = httpx2_client(exchange)
    with anthropic.Anthropic(api_key="k", base_url=base, http_client=http) as client:
        reply = client.messages.create(
            model="m", max_tokens=8, messages=[{"role": "user", "content": question}]
        )
    return str(reply.content[0].text)


def ask_replaying(store: Path, base: str, question: str) -> str:
    """``question`` asked replaying ``store`` (in a worker process: a session of its own)."""
    return ask(Exchange(store), base, question)


@pytest.mark.parametrize("layout", ["store.jsonl", "folder"])
def test_a_session_forked_after_a_write_records_in_the_child(tmp_path: Path, layout: str) -> None:
    store = tmp_path / layout
    exchange = Exchange(store, mode="record-missing", approve_live=True)
    with serving(EchoesMessages) as base:
        assert ask(exchange, base, "before") == "echo: before"  # the store's lock is made
        child = multiprocessing.get_context("fork").Process(
            target=ask, args=(exchange, base, "in the child")
        )
        child.start()
        child.join()
        assert child.exitcode == 0
        assert ask(exchange, base, "after") == "echo: after"
    asked = sorted(f.request["body"]["messages"][0]["content"] for f in FixtureStore.open(store))
    assert asked == ["after", "before", "in the child"]
    with block_network():
        replay = Exchange(store)
        assert [ask(replay, base, q) for q in asked] == [f"echo: {q}" for q in asked]


def test_a_miss_in_a_worker_process_reaches_the_parent_whole(tmp_path: Path) -> None:
    # the copy the SDKs re-raise could not be pickled: a pool's MaybeEncodingError, or a
    # PicklingError, stood for the miss, its diff lost
    store = tmp_path / "store.jsonl"
    with serving(EchoesMessages) as base:
        ask(Exchange(store, mode="record-missing", approve_live=True), base, "hi")
    pool = multiprocessing.get_context("fork").Pool(1)
    with block_network(), pool, pytest.raises(FixtureMismatchError) as missed:
        pool.apply(ask_replaying, (store, base, "changed"))
    assert missed.value.differences == ("body.messages[0].content: 'hi' != 'changed'",)
    assert str(missed.value).startswith("no fixture recorded for this HTTP request (POST ")


_FORKED: list[Exchange] = []
"""The session a forked worker asks through (its copy, made before the fork)."""


def ask_forked(base: str, question: str) -> str:
    """``question`` asked over the copy of the session in :data:`_FORKED`."""
    return ask(_FORKED[0], base, question)


def ask_twice(base: str, question: str) -> None:
    """``question`` asked twice over the copy of the session in :data:`_FORKED`."""
    ask_forked(base, question)
    ask_forked(base, question)


def test_a_forked_worker_sending_past_the_recording_says_it_counts_its_own(
    tmp_path: Path,
) -> None:
    # a pool sharing identical requests out otherwise than when they were recorded missed
    # with "sent 2 times in this session ... A retry or a loop sends it more often", a
    # retry or a loop the code did not have
    store = tmp_path / "store.jsonl"
    with serving(EchoesMessages) as base:
        ask(Exchange(store, mode="record-missing", approve_live=True), base, "hi")
    _FORKED[:] = [Exchange(store)]
    pool = multiprocessing.get_context("fork").Pool(1)
    with block_network(), pool, pytest.raises(FixtureMismatchError) as missed:
        pool.apply(ask_twice, (base, "hi"))
    _FORKED.clear()
    assert "sent 2 times in this process (a copy forked from its session's)" in str(missed.value)
    assert "Each process forked from a session (a multiprocessing pool's worker)" in str(
        missed.value
    )


def test_a_worker_forked_from_a_session_that_has_ended_refuses_what_it_is_sent(
    tmp_path: Path,
) -> None:
    # a ProcessPoolExecutor of a session-scoped fixture forks its worker in the first test
    # that uses it: the worker kept that test's session after it ended, and recorded the
    # next test's request into the first test's store (replayed from there, green)
    store = tmp_path / "store.jsonl"
    exchange = Exchange(store, mode="record-missing", approve_live=True)
    _FORKED[:] = [exchange]
    pool = multiprocessing.get_context("fork").Pool(1)
    with serving(EchoesMessages) as base, pool:
        assert pool.apply(ask_forked, (base, "first")) == "echo: first"
        pid = pool.apply(os.getpid)
        exchange.after_end = lambda request, done: SessionEndedError(f"{request} {done}")
        with pytest.raises(SessionEndedError) as refused:
            pool.apply(ask_forked, (base, "second"))
    _FORKED.clear()
    said = f"POST /v1/messages was sent in process {pid}, forked from process {os.getpid()} "
    assert said in str(refused.value)
    assert str(refused.value).endswith(
        "Neither replayed nor recorded. Make such a pool in the test, or in a fixture of "
        "function scope."
    )
    asked = [f.request["body"]["messages"][0]["content"] for f in FixtureStore.open(store)]
    assert asked == ["first"]
