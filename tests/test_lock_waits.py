"""Waiting for a store's lock: said once, never silent; and a reader makes no lock file.

``compact`` and ``verify --repair`` waited without a word while another process held
the store's lock: after :data:`~replaygate.locks.WAIT_SAID_AFTER` seconds they say once
on stderr which lock they wait for, and go on once it is free (Ctrl-C still stops them).
A read-only command on a store ending in a cut line took the lock to wait for a writer
possibly half way through its append, and so left a new ``.lock`` file in the user's
tree: it now waits only where a writer made the lock file, and makes none.
"""

from __future__ import annotations

import fcntl
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock, Timeout

from deadline import finishes, started
from forked_cli import Forker
from replaygate import Fixture, FixtureStore, locks
from replaygate.fixtures.fixture import make_meta
from replaygate.fixtures.store import PartialTailError, record_response
from replaygate.fixtures.store.compact import compact
from replaygate.fixtures.store.repair import repair_partial_tail
from replaygate.hygiene.verify import verify_store
from replaygate.locks import lock_at
from run_cli import replaygate

META = make_meta("anthropic.messages", "2023-06-01", "hand", recorded_at="2025-01-01T00:00:00Z")
WAITING = "replaygate: waiting for the lock "


def _request(text: str) -> dict[str, Any]:
    return {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": text}]}


def _answer(text: str) -> dict[str, Any]:
    return {
        "type": "message",
        "content": [{"type": "text", "text": text}],
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


def _fixture(text: str) -> Fixture:
    return Fixture.create(_request(text), [_answer(f"{text}0")], META)


def _with_a_sample_line(path: Path) -> Path:
    """A store at ``path`` holding one fixture and a sample line for ``compact`` to fold."""
    with FixtureStore.open(path) as store:
        store.put(_fixture("a"))
        record_response(store, _request("a"), _answer("a1"), sample=1, meta=META)
    return path


def _cut(path: Path) -> bytes:
    """A store at ``path`` whose last line was cut short; the cut line's whole bytes."""
    second = _fixture("b").to_line()
    path.write_bytes(_fixture("a").to_line() + second[:30])
    return second


class Stderr:
    """sys.stderr for the test: what is written, and the moment a wait is said."""

    def __init__(self) -> None:
        self.text = ""
        self.waiting = threading.Event()

    def write(self, text: str) -> int:
        self.text += text
        if WAITING in self.text:
            self.waiting.set()
        return len(text)

    def flush(self) -> None:
        """Nothing is buffered."""


def _caught_stderr(monkeypatch: pytest.MonkeyPatch) -> Stderr:
    """stderr caught from here on in the test (pytest sets its own as the test starts),
    and a wait said after 10 ms instead of a second."""
    monkeypatch.setattr(locks, "WAIT_SAID_AFTER", 0.01)
    caught = Stderr()
    monkeypatch.setattr(sys, "stderr", caught)
    return caught


@contextmanager
def _held(lock: Path) -> Iterator[None]:
    """``lock`` held by another lock object, on a file handle of its own, as another
    process holds it."""
    holder = FileLock(str(lock))
    holder.acquire()
    try:
        yield
    finally:
        holder.release()


@pytest.mark.parametrize(
    ("repair", "frozen"),
    [(False, False), (True, False), (False, True)],
    ids=["compact", "verify --repair", "compact, time.monotonic frozen as freezegun does"],
)
def test_a_rewrite_waits_for_the_lock_says_so_once_and_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, repair: bool, frozen: bool
) -> None:
    stderr = _caught_stderr(monkeypatch)
    if frozen:
        monkeypatch.setattr(time, "monotonic", lambda: 1.0)
    store = _with_a_sample_line(tmp_path / "s.jsonl")
    if repair:
        store.write_bytes(store.read_bytes() + b'{"key": "cut')
    before = store.read_bytes()
    lock = tmp_path / "s.jsonl.lock"
    with _held(lock):
        thread, outcome = started(lambda: repair_partial_tail(store) if repair else compact(store))
        assert stderr.waiting.wait(10), outcome
        assert store.read_bytes() == before  # it waits
    finishes(thread.join, seconds=10)
    assert not isinstance(outcome[0], BaseException), outcome
    assert store.read_bytes() != before  # and goes on once the lock is free
    assert stderr.text.count(WAITING) == 1, stderr.text
    assert f"{WAITING}{lock}: another process holds it" in stderr.text


def test_a_free_lock_is_taken_without_a_word(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stderr = _caught_stderr(monkeypatch)
    compact(_with_a_sample_line(tmp_path / "s.jsonl"))
    assert stderr.text == ""


def test_a_lock_this_thread_holds_through_another_object_is_refused_not_waited_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # filelock refuses the wait that could never end; it was waited for, "another
    # process holds it", for ever
    stderr = _caught_stderr(monkeypatch)
    lock = tmp_path / "s.jsonl.lock"

    def in_one_thread() -> object:
        with _held(lock):
            try:
                return lock_at(lock).acquire()
            except RuntimeError as err:
                return err

    refused = finishes(in_one_thread, seconds=5)
    assert isinstance(refused, RuntimeError) and "Deadlock" in str(refused), refused
    assert stderr.text == ""


def _listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.parametrize(
    "args",
    [
        ("verify", "{store}"),
        ("patrol", "{store}"),
        ("checksum", "{store}"),
        ("compact", "--check", "{store}"),
        ("prune", "--unused", "{store}"),
        ("show", "0123456789ab", "--fixtures", "{store}"),
    ],
    ids=lambda args: args[0],
)
@pytest.mark.parametrize("layout", ["file", "folder"])
def test_a_read_only_command_on_a_cut_store_leaves_no_new_file(
    tmp_path: Path, args: tuple[str, ...], layout: str
) -> None:
    store = tmp_path / "fixtures"
    store.mkdir()
    again = _fixture("a").to_line()  # a request recorded again: verify opens the store
    (store / "s.jsonl").write_bytes(again + again + _fixture("b").to_line()[:30])
    if layout == "file":
        store = store / "s.jsonl"
    before = _listing(tmp_path)
    done = replaygate(*(arg.format(store=store) for arg in args), cwd=tmp_path)
    assert "Traceback" not in done.stderr
    assert "truncated last line" in done.stdout + done.stderr or args[0] == "checksum"
    assert _listing(tmp_path) == before


def test_opening_a_cut_store_makes_no_lock_file(tmp_path: Path) -> None:
    _cut(tmp_path / "s.jsonl")
    with pytest.raises(PartialTailError):
        FixtureStore.open(tmp_path / "s.jsonl")
    assert os.listdir(tmp_path) == ["s.jsonl"]


@pytest.mark.parametrize("layout", ["file", "folder"])
def test_a_reader_still_waits_for_a_writer_half_way_through_its_append(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: str
) -> None:
    # the writer holds the file's own lock, as any writer appending to it does (a folder
    # store's holds the folder's too; a store opened on the file alone only the file's)
    stderr = _caught_stderr(monkeypatch)
    path = tmp_path / "s.jsonl"
    whole = _cut(path)
    store = tmp_path if layout == "folder" else path
    with _held(tmp_path / "s.jsonl.lock"):
        thread, outcome = started(lambda: FixtureStore.open(store))
        assert stderr.waiting.wait(10)
        with path.open("ab") as handle:  # the writer ends its append, then lets go
            handle.write(whole[30:])
    finishes(thread.join, seconds=10)
    opened = outcome[0]
    assert isinstance(opened, FixtureStore), outcome
    with opened:
        assert len(opened) == 2
    assert sorted(os.listdir(tmp_path)) == ["s.jsonl", "s.jsonl.lock"]  # the writer's own


def test_verify_waits_for_a_writer_half_way_through_its_append(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # it reported the append under way as a truncated last line, exit 1
    stderr = _caught_stderr(monkeypatch)
    path = tmp_path / "s.jsonl"
    whole = _cut(path)
    with _held(tmp_path / "s.jsonl.lock"):
        thread, outcome = started(lambda: verify_store(path))
        assert stderr.waiting.wait(10), outcome
        with path.open("ab") as handle:  # the writer ends its append, then lets go
            handle.write(whole[30:])
    finishes(thread.join, seconds=10)
    assert outcome == [(2, [])]


def test_a_reader_waits_for_each_file_half_way_through_an_append_in_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # two stores of one file each in a folder, each written by a writer of its own: the
    # folder's reader waits for the first, then finds the second cut and waits for it too
    stderr = _caught_stderr(monkeypatch)
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    ends = [_cut(first), _cut(second)]
    holders = [FileLock(f"{path}.lock") for path in (first, second)]
    for holder in holders:
        holder.acquire()
    try:
        thread, outcome = started(lambda: FixtureStore.open(tmp_path))
        for path, whole, holder in zip((first, second), ends, holders, strict=True):
            assert stderr.waiting.wait(10), outcome
            assert stderr.text.splitlines()[-1].startswith(f"{WAITING}{path}.lock: another")
            stderr.waiting.clear()  # the next wait said sets it again
            with path.open("ab") as handle:  # the writer ends its append, then lets go
                handle.write(whole[30:])
            holder.release()
    finally:
        for holder in holders:
            holder.release()
    finishes(thread.join, seconds=10)
    opened = outcome[0]
    assert isinstance(opened, FixtureStore), outcome
    with opened:
        assert len(opened) == 4  # "a" and "b" in each file, both lines whole
    assert stderr.text.count(WAITING) == 2, stderr.text


@contextmanager
def _leased(path: Path) -> Iterator[None]:
    """``path`` read-leased by this process, as a file server leases a file its clients
    read: an open of it for writing answers "Resource temporarily unavailable" until
    the lease ends."""
    path.touch()
    fd = os.open(path, os.O_RDONLY)
    ignored = signal.signal(signal.SIGIO, signal.SIG_IGN)  # the lease holder's break notice
    try:
        try:
            fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_RDLCK)
        except OSError as err:
            pytest.skip(f"no file lease on this file system: {err}")
        yield
    finally:
        os.close(fd)  # ends the lease
        signal.signal(signal.SIGIO, ignored)


@pytest.mark.skipif(not hasattr(fcntl, "F_SETLEASE"), reason="needs Linux's file leases")
def test_a_leased_lock_file_is_waited_for_not_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stderr = _caught_stderr(monkeypatch)
    store = _with_a_sample_line(tmp_path / "s.jsonl")
    before = store.read_bytes()
    lock = tmp_path / "s.jsonl.lock"
    with _leased(lock):
        with pytest.raises(Timeout):  # held, as filelock sees it: not "cannot be made"
            lock_at(lock).acquire(blocking=False)
        thread, outcome = started(lambda: compact(store))
        assert stderr.waiting.wait(10), outcome
        assert store.read_bytes() == before
    finishes(thread.join, seconds=10)
    assert not isinstance(outcome[0], BaseException), outcome
    assert store.read_bytes() != before
    assert sorted(os.listdir(tmp_path)) == ["s.jsonl", "s.jsonl.lock"]  # no probe left


# -- the command line, in a process of its own ----------------------------------------

LAUNCH = (
    "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "import sys; from replaygate import locks; locks.WAIT_SAID_AFTER = 0.05; "
    "from replaygate.cli import main; main()"
)
"""``replaygate ARGS`` saying a wait after 50 ms, hearing Ctrl-C as a terminal's commands
do even where the suite runs with SIGINT ignored (started with ``&`` from a script)."""


class Command:
    """A command's process and the pipes of its stdout and stderr."""

    def __init__(self, forker: Forker, args: tuple[str, ...]) -> None:
        out, err = os.pipe(), os.pipe()
        try:
            self.process = forker.start(
                list(args), stdout=out[1], stderr=err[1], cwd=Path.cwd(), code=LAUNCH
            )
        finally:
            os.close(out[1])
            os.close(err[1])
        self.stdout = open(out[0], encoding="utf-8")  # noqa: SIM115 (closed by communicate)
        self.stderr = open(err[0], encoding="utf-8")  # noqa: SIM115
        self.returncode: int | None = None

    def communicate(self) -> tuple[str, str]:
        """What it wrote on stdout and stderr once it ended (its exit status then set)."""
        with self.stdout, self.stderr:
            said = self.stdout.read(), self.stderr.read()
        self.returncode = self.process.wait(20)
        return said


@contextmanager
def _command_waiting(forker: Forker, lock: Path, *args: str) -> Iterator[Command]:
    """``replaygate ARGS`` started while this process holds ``lock``, once it said that
    it waits for it (the one line it wrote on stderr so far)."""
    holder = FileLock(str(lock))
    holder.acquire()
    try:
        command = Command(forker, args)
        said = finishes(command.stderr.readline, seconds=20)
        end = "another process holds it; going on once it is free (Ctrl-C stops)\n"
        assert said == f"{WAITING}{lock}: {end}"
        yield command
    finally:
        holder.release()


@pytest.mark.slow  # starts replaygate in a process of its own
@pytest.mark.parametrize("repair", [False, True], ids=["compact", "verify --repair"])
def test_the_command_says_once_that_it_waits_then_goes_on(
    forker: Forker, tmp_path: Path, repair: bool
) -> None:
    store = _with_a_sample_line(tmp_path / "s.jsonl")
    if repair:
        store.write_bytes(store.read_bytes() + b'{"key": "cut')
    args = ("verify", "--repair", str(store)) if repair else ("compact", str(store))
    with _command_waiting(forker, tmp_path / "s.jsonl.lock", *args) as command:
        pass
    out, err = finishes(command.communicate, seconds=20)
    assert command.returncode == 0, out + err
    assert WAITING not in err and "Traceback" not in err  # said once, before
    assert ("removed a partial tail" if repair else "folded 1 sample line") in out


@pytest.mark.slow  # starts replaygate in a process of its own
def test_ctrl_c_stops_a_command_waiting_for_the_lock(forker: Forker, tmp_path: Path) -> None:
    store = _with_a_sample_line(tmp_path / "s.jsonl")
    before = store.read_bytes()
    lock = tmp_path / "s.jsonl.lock"
    with _command_waiting(forker, lock, "compact", str(store)) as command:
        os.kill(command.process.pid, signal.SIGINT)
        out, err = finishes(command.communicate, seconds=20)
    assert command.returncode == 130, out + err
    assert err.startswith("Interrupted: the compaction stopped") and "Traceback" not in err
    assert store.read_bytes() == before
