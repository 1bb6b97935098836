"""``verify --repair`` names a store's lock that is no regular file (a symlink, a folder)
and what to do, and leaves the file it would have repaired unchanged."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from replaygate.cli import main
from replaygate.examples.research_copilot import shipped_fixtures

FILE = "a lock is a regular file replaygate makes and takes only as such"


def _damaged(lock: Path, kind: str) -> str:
    """Make ``lock`` a folder or a dangling symlink; what the error says of it."""
    if kind == "folder":
        lock.mkdir()
        return f"its lock {lock} is a folder; {FILE}: remove it"
    missing = lock.parent / "gone" / "x"
    os.symlink(missing, lock)
    return (
        f"its lock {lock} is a symlink to {str(missing)!r}, which does not exist; "
        f"{FILE}: remove the link"
    )


@pytest.mark.parametrize("kind", ["folder", "symlink"])
def test_a_lock_that_is_no_file_is_named_by_the_repair(tmp_path: Path, kind: str) -> None:
    store = tmp_path / "t.jsonl"
    store.write_bytes(shipped_fixtures().read_bytes() + b'{"key": "abc')
    before = store.read_bytes()
    said = _damaged(tmp_path / "t.jsonl.lock", kind)
    result = CliRunner().invoke(main, ["verify", str(store), "--repair"])
    assert result.exit_code == 2, result.output
    assert result.output.splitlines()[-1] == (
        f"Error: {store}: cannot repair it: {said}; the file is unchanged"
    )
    assert store.read_bytes() == before


def test_the_lock_of_a_folder_store_is_named_by_the_repair(tmp_path: Path) -> None:
    root = tmp_path / "fixtures"
    folder = root / "anthropic.messages@2023-06-01"
    folder.mkdir(parents=True)
    cut = folder / "0123456789ab.json"
    cut.write_bytes(b'{"key": "0123456789ab", "request": {')
    said = _damaged(root / ".replaygate.lock", "symlink")
    result = CliRunner().invoke(main, ["verify", str(root), "--repair"])
    assert result.exit_code == 2, result.output
    assert result.output.splitlines()[-1] == (
        f"Error: {cut}: cannot repair it: {said}; the file is unchanged"
    )
    assert cut.read_bytes() == b'{"key": "0123456789ab", "request": {'
