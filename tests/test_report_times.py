"""The report places runs by the instant their time names, in UTC, whatever UTC offset
the machine that ran them wrote it with."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import pytest

from replaygate.evals.history import HistoryRun
from replaygate.evals.reference import CaseSummary
from replaygate.report import build_report
from replaygate.report.data import week_of


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

    def metrics_plot(_series: object, labels: Sequence[str]) -> str:
        drawn.append(labels)
        return ""

    monkeypatch.setattr("replaygate.report.page.metrics_plot", metrics_plot)
    monkeypatch.setattr("replaygate.report.page.weekly_plot", lambda *_: "")
    monkeypatch.setattr("replaygate.report.page.ages_plot", lambda *_: "")
    cases = (CaseSummary("rag", 5, 4, 5),)
    runs = [
        HistoryRun("east", "2026-11-30T10:00:00+05:00", None, {"success": 1.0}, cases),
        HistoryRun("utc", "2026-11-30T06:00:00Z", None, {"success": 1.0}, cases),
    ]
    build_report(runs, now=datetime(2026, 12, 1, tzinfo=UTC))
    assert drawn == [["11-30 05:00", "11-30 06:00"]]
