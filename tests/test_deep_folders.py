"""Folders nested deeply: walked at any depth, and named where the system refuses a path.

Python 3.11's ``os.walk`` calls itself once per level, so a tree about 1,000 folders
deep ended every command in ``RecursionError``. Past the system's path limit a folder
cannot be listed: a store refuses it, naming it, and ``prune`` deletes nothing, since a
reference in it would not be seen.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from replaygate.fixtures.store import FixtureStore, store_files
from replaygate.fixtures.store.leftovers import leftover_temp_files
from replaygate.hygiene.refs import find_references
from run_cli import replaygate
from test_prune import setup_store, stored_keys
from test_store import fixture

# Each test builds folders nested hundreds of levels, or past the path limit: end to end.
pytestmark = pytest.mark.slow

RECURSION_LIMIT = 400
"""Python's recursion limit while a test walks a deep tree (:func:`shallow_stack`), lowered
from its default 1,000: a walk that calls itself once per level fails past it as it fails
past 1,000, on a tree less than half as deep."""
DEEP = RECURSION_LIMIT + 100
"""Deeper than Python's recursion limit, within the path limit (a tree walked by its
paths costs the square of its depth: the system follows each path from the top)."""


@pytest.fixture
def shallow_stack() -> Iterator[None]:
    """Python's recursion limit lowered to :data:`RECURSION_LIMIT` for the test."""
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(RECURSION_LIMIT)
    try:
        yield
    finally:
        sys.setrecursionlimit(before)


Nest = Callable[..., Path]

LONG = "a" * 200
"""A folder's name of 200 characters: a path past the system's limit in a score of them,
where one of ``a`` folders takes two thousand (a walk lists each folder by its path,
which the system follows from the top: a deep walk costs the square of its depth)."""


def _remove(top: Path, part: str) -> None:
    """Remove the chain ``top/part/part/...``, a level at a time: ``shutil.rmtree`` recurses."""
    chain, moved = top / part, top / "b"
    while (chain / part).is_dir():
        os.rename(chain / part, moved)
        shutil.rmtree(chain)
        os.rename(moved, chain)
    shutil.rmtree(chain)


@pytest.fixture
def nest() -> Iterator[Nest]:
    """``nest(top, depth, name, data, part="a")``: the folders ``top/part/part/...``,
    ``depth`` of them, the last holding the file ``name``; its path. Made through open
    folders, so a path past the system's limit can be made too; removed afterwards."""
    made: list[tuple[Path, str]] = []

    def make(top: Path, depth: int, name: str, data: bytes, part: str = "a") -> Path:
        made.append((top, part))
        fd = os.open(top, os.O_RDONLY)
        for _ in range(depth):
            os.mkdir(part, dir_fd=fd)
            inner = os.open(part, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        file = os.open(name, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(file, data)
        os.close(file)
        os.close(fd)
        return top.joinpath(*[part] * depth, name)

    yield make
    for top, part in made:
        _remove(top, part)


@pytest.mark.usefixtures("shallow_stack")
def test_a_folder_store_deeper_than_the_recursion_limit_is_read(tmp_path: Path, nest: Nest) -> None:
    root = tmp_path / "store"
    FixtureStore.open(root).put(fixture(0))
    deep = nest(root, DEEP, "deep.jsonl", fixture(1).to_line())
    leftover = deep.with_name(".deep.jsonl.999.tmp")
    leftover.write_bytes(b"half a rewrite")
    assert deep in store_files(root)
    assert leftover_temp_files(root) == [leftover]
    assert replaygate("checksum", str(root)).returncode == 0
    verified = replaygate("verify", str(root))  # the leftover is a problem: exit 1
    assert "Traceback" not in verified.stderr and verified.returncode == 1
    assert "2 fixture(s) checked" in verified.stdout


@pytest.mark.usefixtures("shallow_stack")
def test_a_reference_deeper_than_the_recursion_limit_is_found(tmp_path: Path, nest: Nest) -> None:
    tests = tmp_path / "tests"
    tests.mkdir()
    named = nest(tests, DEEP, "test_rag.py", b'STORE = "fixtures/rag.jsonl"\n')
    found = find_references([tests], {"rag.jsonl"}, set(), set())
    assert found.by_name["rag.jsonl"] == {named} and not found.unread


def _past_the_path_limit(folder: Path) -> int:
    """How many :data:`LONG` folders under ``folder`` make a path longer than the system
    takes."""
    return os.pathconf(folder, "PC_PATH_MAX") // (len(LONG) + 1) + 1


def test_a_store_folder_past_the_path_limit_is_refused_by_name(tmp_path: Path, nest: Nest) -> None:
    root = tmp_path / "store"
    FixtureStore.open(root).put(fixture(0))
    nest(root, _past_the_path_limit(tmp_path), "deep.jsonl", fixture(1).to_line(), LONG)
    done = replaygate("checksum", str(root))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"Error: {root}/{LONG}/{LONG}/")
    assert done.stderr.endswith(f"/{LONG}: cannot read this folder: File name too long\n")


def test_a_reference_folder_past_the_path_limit_stops_the_prune(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, nest: Nest
) -> None:
    # a folder whose listing fails was passed over, and prune --yes deleted the
    # fixtures only its files name
    monkeypatch.chdir(tmp_path)
    store = tmp_path / "tests" / "fixtures" / "rag.jsonl"
    store.parent.mkdir(parents=True)
    keys = setup_store(tmp_path, store)
    nest(tmp_path / "tests", _past_the_path_limit(tmp_path), "test_deep.py", b"", LONG)
    patrolled = replaygate("patrol", str(store), "--refs", "tests", "--json")
    unread = json.loads(patrolled.stdout)["unread_refs"]
    assert [entry["why"] for entry in unread] == ["cannot read this folder: File name too long"]
    assert unread[0]["file"].startswith(f"tests/{LONG}/{LONG}/")
    done = replaygate("prune", "--unused", str(store), "--refs", "tests", "--yes")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "under --refs could not be read (cannot read this folder: File name too long)" in (
        done.stderr
    )
    assert "nothing deleted" in done.stderr
    assert set(keys.values()) <= stored_keys(store)
