"""A folder store writing into one of its ``.jsonl`` files takes that file's own lock.

A ``.jsonl`` file in a folder is a store of its own to ``compact``, ``prune`` and
``verify --repair`` (they lock ``<file>.lock``), while a store opened on the folder
locked only ``<folder>/.replaygate.lock``. A sample it appended while ``compact`` of the
folder rewrote the file was lost (recording 10 samples of 40 fixtures while compacting
lost samples of some), and a re-recording rewrote the file at the places its lines had
before the compaction moved them; opening the folder removed the temporary file of a
compact under way. Each lock holder here is another process.

Writers in other processes hold the locks: the module runs in ``make test``, not in
the inner loop.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from deadline import finishes, started
from replaygate import Fixture, FixtureStore
from replaygate.fixtures.fixture import make_meta
from replaygate.fixtures.store import record_response
from replaygate.fixtures.store.leftovers import LeftoverTempWarning

pytestmark = pytest.mark.slow

META = make_meta("anthropic.messages", "2023-06-01", "hand", recorded_at="2025-01-01T00:00:00Z")
HOLD = (
    "import sys; from filelock import FileLock; lock = FileLock(sys.argv[1]); lock.acquire(); "
    "print('held', flush=True); sys.stdin.read()"
)


def _request(text: str) -> dict[str, Any]:
    return {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": text}]}


def _answer(text: str) -> dict[str, Any]:
    return {"type": "message", "content": [{"type": "text", "text": text}]}


@contextmanager
def _held(lock: Path) -> Iterator[None]:
    """``lock`` held by another process until the block ends."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(lock)], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
        yield
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(5)


def _folder_with_jsonl(tmp_path: Path) -> tuple[Path, Path]:
    folder = tmp_path / "fixtures"
    folder.mkdir()
    jsonl = folder / "test_x.jsonl"
    jsonl.write_bytes(
        Fixture.create(_request("a"), [_answer("a0")], META).to_line()
        + Fixture.create(_request("b"), [_answer("b0")], META).to_line()
    )
    return folder, jsonl


def test_a_sample_appended_through_the_folder_waits_for_the_files_own_lock(
    tmp_path: Path,
) -> None:
    folder, jsonl = _folder_with_jsonl(tmp_path)
    store = FixtureStore.open(folder)
    before = jsonl.read_bytes()
    with _held(Path(f"{jsonl}.lock")):
        thread, outcome = started(
            lambda: record_response(store, _request("b"), _answer("b1"), sample=1, meta=META)
        )
        time.sleep(0.2)
        assert thread.is_alive(), outcome  # it waits, where it appended at once
        assert jsonl.read_bytes() == before
    finishes(lambda: thread.join(), seconds=5)
    assert not isinstance(outcome[0], BaseException), outcome
    with FixtureStore.open(jsonl) as alone:
        found = alone.lookup(_request("b"))
        assert found is not None and found.responses == (_answer("b0"), _answer("b1"))
    store.close()


def test_a_rerecord_through_the_folder_finds_its_line_where_a_rewrite_moved_it(
    tmp_path: Path,
) -> None:
    folder, jsonl = _folder_with_jsonl(tmp_path)
    store = FixtureStore.open(folder)
    new = Fixture.create(_request("b"), [_answer("b-new")], META)
    moved = Fixture.create(_request("c"), [_answer("c0")], META).to_line()
    with _held(Path(f"{jsonl}.lock")):
        thread, outcome = started(lambda: store.put(new, replace=True))
        time.sleep(0.2)
        assert thread.is_alive(), outcome
        # What the lock's holder does meanwhile (as compact does): the file is written
        # again, every line of it at another place.
        jsonl.write_bytes(moved + jsonl.read_bytes())
    finishes(lambda: thread.join(), seconds=5)
    assert not isinstance(outcome[0], BaseException), outcome
    lines = jsonl.read_bytes().splitlines(keepends=True)
    assert lines[0] == moved and len(lines) == 3, lines
    with FixtureStore.open(jsonl) as alone:
        assert alone.lookup(_request("a")) == Fixture.create(_request("a"), [_answer("a0")], META)
        found = alone.lookup(_request("b"))
        assert found is not None and found.responses == (_answer("b-new"),)
    store.close()


def test_opening_a_folder_waits_for_a_rewrite_under_way_of_a_jsonl_file_in_it(
    tmp_path: Path,
) -> None:
    # Opening a folder store removes the temporary files of interrupted writes in it: it
    # removed that of a compact under way in another process (15 compacts of 15 failed,
    # "cannot write a fixture: No such file or directory"), which held the file's own
    # lock, not the folder's.
    folder, jsonl = _folder_with_jsonl(tmp_path)
    tmp = jsonl.with_name(f".{jsonl.name}.4242.tmp")
    rewritten = Fixture.create(_request("a"), [_answer("a1")], META).to_line()
    with _held(Path(f"{jsonl}.lock")):
        tmp.write_bytes(rewritten)  # a rewrite half way, by the lock's holder
        thread, outcome = started(lambda: FixtureStore.open(folder))
        time.sleep(0.2)
        assert thread.is_alive(), outcome
        assert tmp.exists()
        tmp.replace(jsonl)  # the rewrite ends
    finishes(lambda: thread.join(), seconds=5)
    store = outcome[0]
    assert isinstance(store, FixtureStore), outcome
    with store:
        assert store.lookup(_request("a")) == Fixture.create(_request("a"), [_answer("a1")], META)
    assert jsonl.read_bytes() == rewritten


def test_a_leftover_of_a_jsonl_file_in_a_folder_is_still_removed(tmp_path: Path) -> None:
    folder, jsonl = _folder_with_jsonl(tmp_path)
    leftovers = [jsonl.with_name(f".{jsonl.name}.4242.tmp"), folder / ".test_x.jsonl.bak.7.tmp"]
    for leftover in leftovers:
        leftover.write_bytes(b"half a rewrite")
    with pytest.warns(LeftoverTempWarning, match="removed 2 temporary file"):
        FixtureStore.open(folder).close()
    assert not any(leftover.exists() for leftover in leftovers)
