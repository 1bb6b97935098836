"""A case whose agent gave up (raised a failure it declares) is named so: in the eval's
case line, in the history and in the report's "what failed", not only in the results."""

from __future__ import annotations

import html
import json
import sqlite3
from pathlib import Path

import pytest

from replaygate.assertions.kinds import Outcome
from replaygate.evals import CaseResult, EvalResults, History, HistoryError
from replaygate.evals.scorers import CaseCounts
from replaygate.report import build_report
from replaygate.sampling import SampledResult, SampleResult
from unplotted_reports import unplotted  # noqa: F401  (a pytest fixture)

REASON = "GiveUp: gave up after calling the model on What is the speed of light? " + "x" * 60


def results(gave_up: int, reason: str = REASON) -> EvalResults:
    """One case of 3 samples, the first ``gave_up`` of them given up (the rest passed)."""
    samples = tuple(
        SampleResult(
            i,
            (Outcome("contains", "gate", i >= gave_up, "", None, "contains"),),
            {"final": "" if i < gave_up else "fast", "error": reason if i < gave_up else None},
        )
        for i in range(3)
    )
    sampled = SampledResult("light", 3, 3, samples, {"contains": "mentions light"})
    counts = CaseCounts(3, sampled.verdict == "pass", 3, False, 0, 0, 0, 0, 30, 3, 3)
    return EvalResults((CaseResult(sampled, counts),), {"time": "2026-11-01T10:00:00Z"})


def test_the_case_line_names_the_give_up_with_its_reason_cut_short() -> None:
    # "light: 0/3 ... -> block; failing: contains [gate] 0/3": the reason was in the JSON only
    (line,) = results(3).summary()
    assert line.endswith(f"; failing: contains [gate] 0/3; gave up 3/3: {REASON[:80]}...")
    (passed,) = results(0).summary()
    assert "gave up" not in passed
    (one_line,) = results(1, "GiveUp: two\nlines \x1b[2J").summary()  # one line, no escape
    assert one_line.endswith("; gave up 1/3: GiveUp: two\\u000alines \\u001b[2J")


@pytest.mark.usefixtures("unplotted")  # what failed is in the page's words
def test_the_report_names_the_give_up_in_what_failed(tmp_path: Path) -> None:
    with History.open(tmp_path / "h.db") as history:
        history.append(results(2))
        (run,) = history.runs()
    assert run.gave_up["light"].samples == 2
    page = html.unescape(build_report([run]))
    assert f"gave up 2/3: {REASON[:80]}...; contains: 1 of 3 samples passed, floor 3" in page


def test_a_give_up_edited_into_another_case_is_named_with_its_run(tmp_path: Path) -> None:
    with History.open(tmp_path / "h.db") as history:
        history.append(results(1))
    with sqlite3.connect(tmp_path / "h.db") as db:
        (info,) = db.execute("SELECT info FROM runs").fetchone()
        edited = json.loads(info)
        edited["gave_up"] = {"ghost": edited["gave_up"]["light"]}
        db.execute("UPDATE runs SET info = ?", (json.dumps(edited),))
    with History.open(tmp_path / "h.db") as history, pytest.raises(HistoryError) as raised:
        history.export()
    assert "info.gave_up.ghost: names no case of the run" in str(raised.value)
