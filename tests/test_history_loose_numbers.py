"""A stored run whose ``info`` or ``tags`` hold NaN or Infinity is named as damaged
(a case's tags by the case).

A hand-edited history whose run's info held ``"input": NaN`` was exported with the
``NaN`` literal (exit 0), which is no JSON: ``history merge`` of that export refused it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from replaygate.cli.history_cmds import history_group
from replaygate.evals import History
from test_history import two_runs_edited


@pytest.mark.parametrize(
    ("update", "field", "value"),
    [
        ("UPDATE runs SET info = '{\"input\": NaN}' WHERE id = 'one'", "info", "NaN"),
        ("UPDATE runs SET info = '{\"input\": -Infinity}' WHERE id = 'one'", "info", "-Infinity"),
        ("UPDATE runs SET info = '{\"input\": 1e999}' WHERE id = 'one'", "info", "1e999"),
        ("UPDATE cases SET tags = '[NaN]' WHERE run = 'one'", "cases.rag.tags", "NaN"),
    ],
    ids=["nan", "infinity", "overflow", "tags"],
)
def test_a_stored_loose_number_is_named_and_never_exported(
    tmp_path: Path, update: str, field: str, value: str
) -> None:
    path, out = tmp_path / "h.db", tmp_path / "runs.json"
    two_runs_edited(path, update)
    said = f"{path}: run 'one': {field}: must hold JSON: {value} is"
    for args in (["--out", str(out)], ["--json"]):
        result = CliRunner().invoke(history_group, ["export", "--history", str(path), *args])
        assert result.exit_code == 2, result.output
        assert said in result.output and "NaN," not in result.output
    assert not out.exists()
    with History.open(path, read_only=True) as history:
        skipped: list[str] = []
        assert [r.id for r in history.runs(skipped=skipped)] == ["two"]
        assert skipped[0].startswith(f"run 'one': {field}: must hold JSON: {value} is")
