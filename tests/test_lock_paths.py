"""A store whose lock file cannot be made (under ``/proc`` or ``/sys``) is refused at once.

filelock retries for as long as the lock file cannot be opened where its folder is
there: ``/proc`` answers "No such file or directory" to a new file, so a write, a
``compact`` or a ``verify --repair`` of such a store waited for ever. Each now ends at
once with an error naming the lock file and why, and what was stored is unchanged.
"""

from __future__ import annotations

import errno
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock

from deadline import finishes
from replaygate import Fixture, FixtureStore
from replaygate.errors import StoreWriteError
from replaygate.fixtures.fixture import make_meta
from replaygate.fixtures.store import record_response
from replaygate.locks import lock_at
from replaygate.sampling.queue import Observation, append_observation
from run_cli import replaygate
from test_history import run

pytestmark = pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")

META = make_meta("anthropic.messages", "2023-06-01", "hand", recorded_at="2025-01-01T00:00:00Z")
NO_FILE_MADE = "No such file or directory: its folder makes no new file"


def _request(text: str) -> dict[str, Any]:
    return {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": text}]}


def _fixture(text: str) -> Fixture:
    return Fixture.create(_request(text), [{"type": "message", "content": []}], META)


def test_a_lock_whose_file_cannot_be_made_raises_at_once_naming_it() -> None:
    lock = lock_at("/proc/self/x.jsonl.lock")
    err = finishes(lock.acquire, seconds=5)
    assert isinstance(err, OSError) and err.filename == "/proc/self/x.jsonl.lock"
    assert NO_FILE_MADE in str(err)
    assert not lock.is_locked


def test_one_the_file_system_refuses_is_refused_with_its_own_reason() -> None:
    err = finishes(lock_at("/sys/x.jsonl.lock").acquire, seconds=5)  # sysfs makes no file
    assert isinstance(err, OSError) and err.filename == "/sys/x.jsonl.lock"
    assert err.errno == errno.ENOENT or os.strerror(err.errno) in str(err)


def test_a_lock_refused_by_filelock_is_named_as_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # filelock names a lock it may not open by its whole path (a read-only folder, for a
    # user who is not root): `baseline update` said /home/me/project/evals/baseline.json.lock
    def denied(self: FileLock, *args: object, **kwargs: object) -> None:
        raise PermissionError(errno.EACCES, "Permission denied", os.path.abspath(self.lock_file))

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(FileLock, "acquire", denied)
    lock = lock_at("read-only/baseline.json.lock")
    with pytest.raises(PermissionError) as caught:
        lock.acquire()
    assert caught.value.filename == "read-only/baseline.json.lock"
    assert str(caught.value) == "[Errno 13] Permission denied: 'read-only/baseline.json.lock'"
    assert not lock.is_locked


@pytest.mark.parametrize("store", ["/proc/self/x.jsonl", "/proc/x.jsonl"])
def test_writing_a_store_under_proc_is_refused_naming_its_lock(store: str) -> None:
    opened = FixtureStore.open(store)
    for write in (
        lambda: opened.put(_fixture("a")),
        lambda: record_response(opened, _request("a"), {"content": []}, sample=0, meta=META),
    ):
        err = finishes(write, seconds=5)
        assert isinstance(err, StoreWriteError)
        assert f"its lock {store}.lock: {NO_FILE_MADE}" in str(err)
        assert "what was stored is unchanged" in str(err)


def test_compact_of_a_store_linked_into_proc_exits_2_and_makes_no_file(tmp_path: Path) -> None:
    link = tmp_path / "s.jsonl"
    link.symlink_to("/proc/version")  # read before any lock is made beside what it leads to
    done = finishes(lambda: replaygate("compact", str(link)), seconds=10)
    assert done.returncode == 2, done.stderr
    assert f"Error: {link}:1: malformed JSON" in done.stderr
    assert "Traceback" not in done.stderr
    assert link.is_symlink() and os.listdir(tmp_path) == ["s.jsonl"]


def test_a_baseline_under_proc_exits_2_naming_its_lock(tmp_path: Path) -> None:
    results = run("2026-12-01T00:00:00Z", 4).write(tmp_path / "results.json")
    args = ["--results", str(results), "--baseline", "/proc/self/b.json", "--reason", "new"]
    done = finishes(lambda: replaygate("baseline", "update", *args), seconds=10)
    assert done.returncode == 2, done.stderr
    assert f"/proc/self/b.json.lock: {NO_FILE_MADE.lower()}" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_sampling_queue_under_proc_is_refused_naming_its_lock() -> None:
    entry = Observation("case", 1, 3, 2, (), "2026-12-01T00:00:00Z")
    err = finishes(lambda: append_observation("/proc/self/q.jsonl", entry), seconds=5)
    assert isinstance(err, OSError) and err.filename == "/proc/self/q.jsonl.lock"


@pytest.mark.slow  # starts a process whose command line is the store
def test_verify_repair_of_a_store_whose_lock_cannot_be_made_exits_2_unchanged(
    tmp_path: Path,
) -> None:
    # /proc/PID/cmdline holds a process's arguments: one made of a fixture line and the
    # start of another is a store with a cut last line, whose lock cannot be made beside it
    cut = _fixture("a").to_line() + b'{"key": "tr'
    holder = subprocess.Popen([cut], executable="/bin/cat", stdin=subprocess.PIPE)
    try:
        link = tmp_path / "s.jsonl"
        link.symlink_to(f"/proc/{holder.pid}/cmdline")
        before = cut + b"\0"
        deadline = time.monotonic() + 10
        while link.read_bytes() != before:  # cat not started yet: its parent's command line
            assert time.monotonic() < deadline, link.read_bytes()
        assert replaygate("verify", str(link)).returncode == 1  # the cut line, repairable
        done = finishes(lambda: replaygate("verify", "--repair", str(link)), seconds=10)
        assert done.returncode == 2, done.stdout + done.stderr
        lock = f"/proc/{holder.pid}/cmdline.lock"
        assert f"cannot repair it: its lock {lock}: {NO_FILE_MADE}" in done.stderr
        assert "the file is unchanged" in done.stderr and "Traceback" not in done.stderr
        assert link.read_bytes() == before and os.listdir(tmp_path) == ["s.jsonl"]
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(5)
