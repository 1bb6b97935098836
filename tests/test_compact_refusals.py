"""What ``replaygate compact`` refuses, reads and locks.

A fixture whose request was edited by hand, with a sample line of the request it was
recorded for, is refused as ``verify`` names it, never folded into the edited one. A
store file named otherwise than ``.jsonl`` is read as JSONL, as every other command
reads it. A file without sample lines is only read: no lock is taken for it, so a
read-only folder with nothing to fold passes, and one that cannot be locked says
compact.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from replaygate import Fixture, FixtureStore
from replaygate.cli import main
from replaygate.fixtures.fixture import make_meta
from replaygate.fixtures.store import record_response
from wire_shapes import text_answer

META = make_meta("anthropic.messages", "2023-06-01", "hand", recorded_at="2025-01-01T00:00:00Z")
AS_ROOT = os.geteuid() == 0


def _request(text: str) -> dict[str, Any]:
    return {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": text}]}


def _store(path: Path, *, sampled: bool = True) -> Path:
    """A store at ``path`` holding fixtures ``a`` and ``b``, and a sample line of ``a``
    when ``sampled``; its lock file is removed (a checkout holds none)."""
    with FixtureStore.open(path) as store:
        store.put(Fixture.create(_request("a"), [text_answer("a0")], META))
        store.put(Fixture.create(_request("b"), [text_answer("b0")], META))
        if sampled:
            record_response(store, _request("a"), text_answer("a1"), sample=1, meta=META)
    Path(f"{path}.lock").unlink()
    return path


def _compact(*args: str) -> Result:
    return CliRunner().invoke(main, ["compact", *args])


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _edit_request(path: Path, number: int) -> None:
    """Edit the request of the fixture at line ``number`` of ``path`` by hand, its key and
    seal kept."""
    lines = path.read_bytes().splitlines(keepends=True)
    fixture = json.loads(lines[number - 1])
    fixture["request"]["messages"][0]["content"] = "edited"
    lines[number - 1] = json.dumps(fixture).encode() + b"\n"
    path.write_bytes(b"".join(lines))


@pytest.mark.parametrize("check", [False, True], ids=["compact", "compact --check"])
def test_a_sample_of_a_fixture_whose_request_was_edited_is_refused_naming_its_line(
    here: Path, check: bool
) -> None:
    store = _store(here / "s.jsonl")
    _edit_request(store, 1)
    before = store.read_bytes()
    done = _compact(*(["--check"] if check else []), "s.jsonl")
    assert done.exit_code == 2, done.output
    assert done.output.startswith("Error: s.jsonl:1: key "), done.output
    assert "does not match its request" in done.output
    assert "its sample line(s) (line 3) have no fixture of their request" in done.output
    assert "the file is left as it is" in done.output
    assert store.read_bytes() == before
    assert sorted(os.listdir(here)) == ["s.jsonl"]


def test_a_store_file_not_named_jsonl_is_read_as_jsonl_as_verify_reads_it(here: Path) -> None:
    backup = here / "store.backup"
    _store(here / "s.jsonl").rename(backup)
    assert CliRunner().invoke(main, ["verify", "store.backup"]).exit_code == 0
    checked = _compact("--check", "store.backup")
    assert checked.exit_code == 1, checked.output
    assert checked.output == "store.backup: would fold 1 sample line(s) into 1 fixture(s)\n"
    done = _compact("store.backup")
    assert done.exit_code == 0, done.output
    assert done.output == "store.backup: folded 1 sample line(s) into 1 fixture(s)\n"
    assert len(backup.read_bytes().splitlines()) == 2
    with FixtureStore.open(backup) as store:
        found = store.lookup(_request("a"))
    assert found is not None and found.responses == (text_answer("a0"), text_answer("a1"))


def test_a_store_with_nothing_to_fold_is_only_read(here: Path) -> None:
    store = _store(here / "rc.jsonl", sampled=False)
    before = store.read_bytes()
    done = _compact("rc.jsonl")
    assert (done.exit_code, done.output) == (0, "nothing to compact under rc.jsonl\n")
    assert store.read_bytes() == before
    assert os.listdir(here) == ["rc.jsonl"], "no lock file is made"


def test_a_lock_that_cannot_be_taken_fails_only_a_file_to_fold_saying_compact(
    here: Path,
) -> None:
    _store(here / "clean.jsonl", sampled=False)
    Path("clean.jsonl.lock").mkdir()  # a lock no process can open
    clean = _compact("clean.jsonl")
    assert (clean.exit_code, clean.output) == (0, "nothing to compact under clean.jsonl\n")
    store = _store(here / "rc.jsonl")
    Path("rc.jsonl.lock").mkdir()
    before = store.read_bytes()
    done = _compact("rc.jsonl")
    assert done.exit_code == 2, done.output
    assert done.output.startswith("Error: rc.jsonl: cannot compact it: its lock "), done.output
    assert "is a folder" in done.output and "the file is left as it is" in done.output
    assert "write a fixture" not in done.output
    assert store.read_bytes() == before


@pytest.fixture
def read_only(here: Path) -> Iterator[Path]:
    """A folder ``ro`` that cannot be written (skipped for root, who writes there)."""
    if AS_ROOT:
        pytest.skip("root writes into a read-only folder")
    folder = here / "ro"
    folder.mkdir()
    yield folder
    folder.chmod(0o700)


def test_a_read_only_folder_with_nothing_to_fold_passes(read_only: Path) -> None:
    _store(read_only / "rc.jsonl", sampled=False)
    read_only.chmod(0o500)
    done = _compact("ro")
    assert (done.exit_code, done.output) == (0, "nothing to compact under ro\n")


def test_a_read_only_folder_with_sample_lines_is_named_saying_compact(read_only: Path) -> None:
    store = _store(read_only / "rc.jsonl")
    before = store.read_bytes()
    read_only.chmod(0o500)
    done = _compact("ro")
    assert done.exit_code == 2, done.output
    assert done.output.startswith("Error: ro/rc.jsonl: cannot compact it: its lock "), done.output
    assert "Permission denied; the file is left as it is" in done.output
    assert store.read_bytes() == before
