"""Rows left of a run whose row of table runs was deleted by hand: a merge of that run is
refused by name with what to do, and report and export say the rows are there; nothing
stored is lost or rewritten."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from replaygate.cli.history_cmds import history_group
from replaygate.evals import History, HistoryError, read_export
from test_history import run


def edited(tmp_path: Path) -> tuple[Path, str, list[tuple[object, ...]]]:
    """A history of two runs whose latest run's row was deleted, its export beside it
    (holding that run), the deleted id and every row left in the database."""
    path = tmp_path / "h.db"
    with History.open(path) as history:
        history.append(run("2026-11-01T10:00:00Z", 5))
        gone = history.append(run("2026-11-02T10:00:00Z", 4, answer="y")).id
        history.export_to(tmp_path / "runs.json")
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM runs WHERE id = ?", (gone,))
    return path, gone, dump(path)


def dump(path: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as db:
        return [
            (table, *row)
            for table in ("runs", "metrics", "cases", "assertions")
            for row in db.execute(f"SELECT * FROM {table} ORDER BY rowid")
        ]


def test_merging_a_run_whose_rows_are_left_names_it_and_writes_nothing(tmp_path: Path) -> None:
    # "cannot write the history (UNIQUE constraint failed: metrics.run, metrics.name)"
    path, gone, before = edited(tmp_path)
    with History.open(path) as history, pytest.raises(HistoryError) as raised:
        history.merge(read_export(tmp_path / "runs.json"))
    said = str(raised.value)
    assert said.startswith(
        f"{path}: cannot add run {gone!r}: table runs holds no row of it, but 8 row(s) of "
        "table metrics, 1 row(s) of table cases, 2 row(s) of table assertions are left of it"
    )
    assert "nothing was written" in said and f"DELETE FROM cases WHERE run = '{gone}'" in said
    assert dump(path) == before


def test_report_and_export_say_the_rows_left_are_there(tmp_path: Path) -> None:
    path, gone, before = edited(tmp_path)
    skipped: list[str] = []
    with History.open(path, read_only=True) as history:
        assert len(history.runs(skipped=skipped)) == 1
    (note,) = skipped
    assert note.startswith(f"run {gone!r}: table runs holds no row of it, but 8 row(s)")
    exported = CliRunner().invoke(
        history_group, ["export", "--history", str(path), "--out", str(tmp_path / "e.json")]
    )
    assert exported.exit_code == 0, exported.output
    assert f"note: not exported: run {gone!r}: table runs holds no row of it" in exported.stderr
    assert "they are kept as they are" in exported.stderr
    assert dump(path) == before
