"""The threads of one process take a lock in turn before its file: a thread waiting for
another thread of its process sleeps until it is let in, where it tried the file every
2 ms (the interpreter taken from the thread holding the lock, several times a write's own
CPU time spent in tries with 16 threads recording into one store); the turn is free in a
forked child, whose parent thread holding it is not there."""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock, Timeout

from replaygate.locks import Lock, lock_at

pytestmark = pytest.mark.slow  # threads and forked processes racing for a lock


def test_a_thread_waiting_for_another_thread_does_not_try_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tries = {"count": 0}
    take_file = Lock._acquire

    def counted(self: Lock) -> None:
        tries["count"] += 1
        take_file(self)

    monkeypatch.setattr(Lock, "_acquire", counted)
    lock = lock_at(tmp_path / "store.jsonl.lock")
    held, waited = threading.Event(), []
    with lock:

        def wait() -> None:
            held.set()
            with lock_at(tmp_path / "store.jsonl.lock"):
                waited.append(tries["count"])

        other = threading.Thread(target=wait)
        other.start()
        held.wait()
        time.sleep(0.2)  # 100 tries of the file at filelock's 2 ms
        before = tries["count"]
    other.join()
    assert before == 1  # this thread's own take
    assert waited == [2]  # the waiting thread tried once, when let in


def test_threads_still_take_the_lock_one_at_a_time(tmp_path: Path) -> None:
    inside, most = [0], [0]

    def work() -> None:
        for _ in range(20):
            with lock_at(tmp_path / "x.lock"):
                inside[0] += 1
                most[0] = max(most[0], inside[0])
                time.sleep(0.0005)
                inside[0] -= 1

    threads = [threading.Thread(target=work) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert most == [1] and inside == [0]


def test_a_thread_takes_a_lock_it_holds_again_and_lets_it_go_at_its_last_level(
    tmp_path: Path,
) -> None:
    lock = lock_at(tmp_path / "x.lock")
    with lock, lock_at(tmp_path / "x.lock"):
        assert lock.lock_counter == 2
    assert not lock.is_locked
    with lock:  # free again for this thread and the others
        pass


def test_a_lock_taken_again_asks_nothing_of_filelock_and_a_forced_release_frees_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    takes = {"count": 0}
    take = FileLock.acquire

    def counted(self: FileLock, *args: Any, **kwargs: Any) -> Any:
        takes["count"] += 1
        return take(self, *args, **kwargs)

    monkeypatch.setattr(FileLock, "acquire", counted)
    lock = lock_at(tmp_path / "x.lock")
    with lock, lock, lock:
        assert (lock.lock_counter, takes["count"]) == (3, 1)
        other = threading.Thread(target=lock.release)  # a thread not holding it
        other.start()
        other.join()
        assert lock.lock_counter == 3 and lock.is_locked
    assert (lock.lock_counter, lock.is_locked) == (0, False)
    lock.acquire()
    lock.acquire()
    lock.release(force=True)
    assert (lock.lock_counter, lock.is_locked) == (0, False)
    freed: list[int] = []

    def take_and_let_go() -> None:
        with lock.acquire(timeout=5):
            freed.append(lock.lock_counter)

    taker = threading.Thread(target=take_and_let_go)
    taker.start()
    taker.join()
    assert freed == [1]


@pytest.mark.parametrize("how", ["timeout", "not blocking"])
def test_a_bounded_take_while_another_thread_holds_it_times_out(tmp_path: Path, how: str) -> None:
    lock = lock_at(tmp_path / "x.lock")
    outcome: list[Any] = []
    with lock:

        def take() -> None:
            other = lock_at(tmp_path / "x.lock")
            try:
                other.acquire(timeout=0.05) if how == "timeout" else other.acquire(blocking=False)
            except Timeout as err:
                outcome.append(err)

        thread = threading.Thread(target=take)
        thread.start()
        thread.join()
    assert len(outcome) == 1 and outcome[0].lock_file == str(tmp_path / "x.lock")
    with lock:  # the failed take left the turn free
        pass


def _take_in_child(path: str) -> None:
    """Take the lock at ``path`` (the parent's object where filelock keeps its locks across
    a fork, as it did before its version 4; a new one where it refuses that object)."""
    lock = lock_at(path)
    try:
        lock.acquire(timeout=5)
    except Timeout:
        os._exit(1)
    lock.release()
    os._exit(0)


def test_a_forked_child_takes_a_lock_a_thread_of_its_parent_held_as_it_forked(
    tmp_path: Path,
) -> None:
    path = str(tmp_path / "x.lock")
    holding, done = threading.Event(), threading.Event()

    def hold() -> None:
        with lock_at(path):
            holding.set()
            done.wait(5)

    holder = threading.Thread(target=hold)
    holder.start()
    holding.wait()
    child = multiprocessing.get_context("fork").Process(target=_take_in_child, args=(path,))
    child.start()
    time.sleep(0.1)
    done.set()  # the parent's thread lets it go: the child takes it
    holder.join()
    child.join(10)
    assert child.exitcode == 0


def test_a_store_refreshed_while_its_lock_is_held_is_not_looked_at_again_in_that_hold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No other writer can write while this thread holds the store's lock, and its own
    writes are indexed as they are made: a record's refresh and its write's are one look
    at the store (a folder of thousands of files is listed once a write, not twice)."""
    from replaygate.fixtures.fixture import Fixture, make_meta
    from replaygate.fixtures.store import FixtureStore

    scans = {"count": 0}
    scan = FixtureStore._scan

    def counted(self: FixtureStore) -> None:
        scans["count"] += 1
        scan(self)

    meta = make_meta("anthropic.messages", "2023-06-01", "sim")
    store, other = FixtureStore.open(tmp_path / "s"), FixtureStore.open(tmp_path / "s")
    monkeypatch.setattr(FixtureStore, "_scan", counted)
    other.put(Fixture.create({"n": 1}, [{"text": "a"}], meta))
    with store.lock():
        store.refresh()
        store.put(Fixture.create({"n": 2}, [{"text": "b"}], meta))
        store.refresh()
        assert scans == {"count": 2}  # other's put, this one's first refresh
        assert len(store) == 2
    other.put(Fixture.create({"n": 3}, [{"text": "c"}], meta))
    store.refresh()  # a hold of its own, or none: looked at again
    assert len(store) == 3 and scans == {"count": 4}
