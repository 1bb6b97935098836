"""What the demo's writes leave beside its files in its ``--out`` folder (a temporary file
of a write that was stopped, a lock, the history's SQLite journal) is the demo's: the
next demo there goes on. Any other name is a file of the user's, and refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from replaygate.demo import LOCK, MARK, foreign_files
from replaygate.fixtures.store.writing import lock_path


def _temporary(name: str) -> str:
    """The name ``atomic_write`` gives the temporary file of a write of ``name``."""
    return f".{name}.4242.tmp"


@pytest.mark.parametrize(
    "name",
    [
        _temporary(MARK),
        _temporary("results.json"),
        _temporary("report.html"),
        "history.db-journal",
        "history.db-wal",
        "history.db-shm",
        lock_path(Path("eval_fixtures.jsonl"), folder=False).name,
        LOCK,
    ],
)
def test_what_the_demos_writes_leave_beside_its_files_is_the_demos(
    tmp_path: Path, name: str
) -> None:
    (tmp_path / name).write_bytes(b"")
    assert foreign_files(tmp_path) == []


@pytest.mark.parametrize(
    "name", [_temporary("notes.txt"), "results.json.lock", "report.html-journal"]
)
def test_a_name_of_another_shape_is_the_users(tmp_path: Path, name: str) -> None:
    (tmp_path / name).write_bytes(b"")
    assert foreign_files(tmp_path) == [repr(name)]
