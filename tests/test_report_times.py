"""The report places runs by the instant their time names, in UTC, whatever UTC offset
the machine that ran them wrote it with."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from replaygate.evals.history import History, HistoryRun
from replaygate.evals.metrics import METRICS
from replaygate.evals.reference import CaseSummary
from replaygate.report import build_report, write_report
from replaygate.report.data import week_of
from unplotted_reports import unplot


@pytest.mark.parametrize(
    ("time", "week"),
    [
        ("2026-01-05T01:00:00+05:00", "2026-W01"),  # Sunday 4 January, 20:00 UTC
        ("2026-01-04T20:00:00-05:00", "2026-W02"),  # Monday 5 January, 01:00 UTC
        ("2026-01-05T00:00:00Z", "2026-W02"),
    ],
)
def test_a_run_counts_in_its_week_in_utc(time: str, week: str) -> None:
    assert week_of(time) == week


def test_the_metrics_plot_labels_each_run_by_its_time_in_utc(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    drawn: list[Sequence[str]] = []

    def metrics_plot(_series: object, labels: Sequence[str], *_: object) -> str:
        drawn.append(labels)
        return ""

    unplot(monkeypatch, metrics_plot=metrics_plot)
    cases = (CaseSummary("rag", 5, 4, 5),)
    runs = [
        HistoryRun("east", "2026-11-30T10:00:00+05:00", None, {"success": 1.0}, cases),
        HistoryRun("utc", "2026-11-30T06:00:00Z", None, {"success": 1.0}, cases),
    ]
    build_report(runs, now=datetime(2026, 12, 1, tzinfo=UTC))
    assert drawn == [["11-30 05:00", "11-30 06:00"]]


def test_a_stored_run_dated_after_the_report_is_left_out_with_a_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # It stood as the latest run for ever, every new run drawn before it.
    unplot(monkeypatch)
    path = tmp_path / "history.db"
    cases = (CaseSummary("rag", 5, 4, 5),)
    metrics = {name: None for name in METRICS} | {"success": 1.0}  # every run holds each
    with History.open(path) as history:
        history.add(HistoryRun("now", "2026-11-30T06:00:00Z", None, metrics, cases))
        history.add(HistoryRun("later", "2026-11-30T06:30:00Z", None, metrics, cases))
    notes: list[str] = []
    now = datetime(2026, 11, 30, 6, 15, tzinfo=UTC)
    monkeypatch.setattr("replaygate.evals.history.FUTURE_MARGIN", timedelta(minutes=10))
    page = write_report(tmp_path / "r.html", history=path, now=now, left_out=notes).read_text()
    assert notes == [
        "run 'later': time: 2026-11-30T06:30:00Z is later than now (2026-11-30T06:15:00Z): "
        "the clock was wrong where the run was made; correct its time, or leave the run out"
    ]
    assert "Run <code>now</code>" in page and "1 damaged run(s)" in page
