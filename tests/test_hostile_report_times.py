"""Run times at the edge of the calendar: a time with no UTC equivalent is refused."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from replaygate.assertions.kinds import Outcome
from replaygate.cli.history_cmds import report_cmd
from replaygate.evals import CaseResult, EvalResults, History, HistoryError
from replaygate.evals.scorers import CaseCounts
from replaygate.sampling import SampledResult, SampleResult
from unplotted_reports import unplotted  # noqa: F401  (a pytest fixture)

EDGE = "0001-01-01T00:00:00+01:00"  # 0000-12-31T23:00:00Z: a year no datetime holds


def run(time: str, answer: str = "x") -> EvalResults:
    outcome = Outcome("a", "gate", True, "", None, "custom")
    sampled = SampledResult("c", 1, 1, (SampleResult(0, (outcome,), {"final": answer}),))
    counts = CaseCounts(1, True, 1, True, 1, 1, 1, 0, 5, 5, 1, 0.1)
    return EvalResults((CaseResult(sampled, counts),), {"time": time})


def test_a_run_whose_time_has_no_utc_equivalent_is_refused(tmp_path: Path) -> None:
    with History.open(tmp_path / "history.db") as opened:
        with pytest.raises(HistoryError, match=rf"time: {re.escape(EDGE)} has no UTC equivalent"):
            opened.append(run(EDGE))
        assert len(opened) == 0
        opened.append(run("0001-01-01T00:00:00Z"))  # the first instant there is
        assert len(opened) == 1


@pytest.mark.usefixtures("unplotted")  # the run is left out before any plot is drawn
def test_such_a_stored_run_is_left_out_of_the_report_with_a_note(tmp_path: Path) -> None:
    # Stored before add refused it, it ended every report in an OverflowError.
    history = tmp_path / "history.db"
    with History.open(history) as opened:
        opened.append(run("2026-11-01T00:00:00Z"))
        opened.append(run("2026-11-02T00:00:00Z", "y"))
        stored = opened.runs()[1].id
    with sqlite3.connect(history) as raw:
        raw.execute("UPDATE runs SET time = ? WHERE id = ?", (EDGE, stored))
    raw.close()
    out = tmp_path / "report.html"
    result = CliRunner().invoke(report_cmd, ["--out", str(out), "--history", str(history)])
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    assert f"run '{stored}': time: {EDGE} has no UTC equivalent" in result.stderr
    assert "1 damaged run(s) of the history are left out" in out.read_text(encoding="utf-8")
