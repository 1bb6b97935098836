"""The numbers behind the plots, read from the history and the fixture stores."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from replaygate.evals.history import FUTURE_MARGIN, HistoryRun
from replaygate.fixtures.store import FixtureStore
from replaygate.jsonfields import parse_time
from replaygate.report.evidence import case_evidence
from replaygate.wall_clock import wall_now


def week_of(text: str) -> str:
    """The ISO week of a time in UTC: ``2026-W03`` (whatever UTC offset it was written with)."""
    return _week(_monday(text))


def _monday(text: str) -> date:
    """The Monday that opens the ISO week of a time in UTC."""
    day = parse_time(text).astimezone(UTC).date()
    return day - timedelta(days=day.weekday())


def _week(day: date) -> str:
    """The ISO week of ``day``: ``2026-W03``."""
    year, week, _ = day.isocalendar()
    return f"{year:04d}-W{week:02d}"


def metric_series(runs: Sequence[HistoryRun]) -> dict[str, list[float | None]]:
    """Each metric's value per run, in run order (``None`` where a run has none)."""
    names = list(dict.fromkeys(name for run in runs for name in run.metrics))
    return {name: [run.metrics.get(name) for run in runs] for name in names}


def weekly_pass_rates(
    runs: Sequence[HistoryRun],
) -> tuple[list[str], dict[str, list[float | None]]]:
    """The weeks, and per assertion name its pass rate in each week (passes / samples).

    Counts are summed over every case and distinct recording of the week: a replay of
    answers already counted that week adds nothing. The weeks are every one from the
    first run's to the latest run's, so a week without runs breaks each line (``None``)
    rather than joining the weeks around it as if they followed each other.
    """
    by_week: dict[date, list[HistoryRun]] = {}
    for run in runs:
        by_week.setdefault(_monday(run.time), []).append(run)
    ran = sorted(by_week)
    if not ran:
        return [], {}
    mondays = [ran[0] + timedelta(weeks=i) for i in range((ran[-1] - ran[0]).days // 7 + 1)]
    sums: dict[str, dict[date, list[int]]] = {}
    for week in ran:
        for evidence in case_evidence(by_week[week]):
            for summary in evidence.recordings:
                for stats in summary.assertions:
                    entry = sums.setdefault(stats.name, {}).setdefault(week, [0, 0])
                    entry[0] += stats.passes
                    entry[1] += stats.samples
    rates = {
        name: [
            (counts[w][0] / counts[w][1]) if w in counts and counts[w][1] else None for w in mondays
        ]
        for name, counts in sums.items()
    }
    weeks = [_week(monday) for monday in mondays]
    return weeks, rates


@dataclass(frozen=True)
class Ages:
    """Fixture ages in days (from ``meta.recorded_at``), how many had no date, and how
    many were dated later than the present (a wrong clock where they were recorded)."""

    days: tuple[float, ...]
    undated: int
    future: int = 0


def fixture_ages(stores: Iterable[str | os.PathLike[str]], *, now: datetime | None = None) -> Ages:
    """The age of every fixture of ``stores`` at ``now`` (default: the current time); one
    dated more than :data:`~replaygate.evals.history.FUTURE_MARGIN` later is counted
    apart, not drawn as a fixture recorded today."""
    moment = now or wall_now()
    days: list[float] = []
    undated = future = 0
    for path in stores:
        if not Path(path).exists():
            continue
        with FixtureStore.open(path) as store:
            for fixture in store:
                recorded = (fixture.meta or {}).get("recorded_at")
                try:
                    when = parse_time(str(recorded)) if recorded else None
                except ValueError:
                    when = None
                if when is None:
                    undated += 1
                    continue
                if when - moment > FUTURE_MARGIN:
                    future += 1
                    continue
                days.append(max(0.0, (moment - when).total_seconds() / 86400))
    return Ages(tuple(days), undated, future)
