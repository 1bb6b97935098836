"""Maintenance signals (seed 003, 7.2), found in the last distinct recordings of the history.

Replays of the same fixtures are not new evidence: runs are counted as distinct
recordings (:mod:`replaygate.report.evidence`).

- ``always passes``: a gate that passed every sample of every recent recording no
  longer separates good from bad;
- ``near threshold``: a gate whose pass count sat at its case's floor, or one below,
  in at least half the recent recordings: too few samples, or a floor set too close;
- ``trending down``: a metric whose fitted trend over the recent recordings moved the
  wrong way by more than the tolerance (points for shares, a fraction of its mean for
  amounts), and whose latest value is worse than the first by more than it too. A cost
  is compared only with costs priced alike (:mod:`replaygate.report.costs`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from replaygate.evals.config import ReportConfig
from replaygate.evals.gate import PRICED
from replaygate.evals.history import HistoryRun
from replaygate.evals.metrics import METRICS
from replaygate.report.costs import latest_priced, priced_apart
from replaygate.report.evidence import case_evidence, distinct_runs, plural, recordings_text
from replaygate.report.words import assertion_words
from replaygate.sampling import AssertionStats

SignalKind = Literal["always passes", "near threshold", "trending down"]


@dataclass(frozen=True)
class Signal:
    """One maintenance signal: its kind, what it is about, and the evidence."""

    kind: SignalKind
    subject: str
    detail: str


def _slope(values: Sequence[float]) -> float:
    """The least-squares slope of ``values`` against 0, 1, 2, ..."""
    n = len(values)
    mean_x = (n - 1) / 2
    mean_y = math.fsum(values) / n
    spread = sum((x - mean_x) ** 2 for x in range(n))
    return math.fsum((x - mean_x) * (y - mean_y) for x, y in enumerate(values)) / spread


def trend_signals(
    runs: Sequence[HistoryRun], config: ReportConfig, *, priced_at: HistoryRun | None = None
) -> list[Signal]:
    """Metrics whose fitted change over ``runs`` is worse than the tolerance, and whose
    latest value is worse than the first by more than it too: one outlier the latest
    recordings recovered from tilts the fitted line, but no metric fell or rose.

    Costs are those of the runs priced alike with ``priced_at`` (default: the latest of
    ``runs`` with a cost); costs priced otherwise are left out, and the signal says so."""
    apart = {id(run) for run in priced_apart(runs, priced_at or latest_priced(runs))}
    found = []
    for name, metric in METRICS.items():
        priced = name in PRICED
        measured = [
            (run, value)
            for run in runs
            if not (priced and id(run) in apart) and (value := run.metrics.get(name)) is not None
        ]
        values = [value for _, value in measured]
        left_out = sum(run.metrics.get(name) is not None for run in runs) - len(values)
        if len(values) < config.min_runs:
            continue
        change = _slope(values) * (len(values) - 1)
        mean = math.fsum(values) / len(values)
        share = metric.scale == "share"
        scale = 1.0 if share else mean
        worse = 1.0 if metric.better == "lower" else -1.0  # the sign of a change for the worse
        ends = values[-1] - values[0]
        if not scale or min(worse * change, worse * ends) / scale <= config.trend:
            continue
        shown = f"{abs(change):.3f}" if share else f"{abs(change) / mean * 100:.1f}% of its mean"
        way = "fell" if change < 0 else "rose"
        alike = f" priced alike, {left_out} priced at other prices left out" if left_out else ""
        changed = _cases_changed([run for run, _ in measured])
        found.append(
            Signal(
                "trending down",
                name,
                f"{way} from {metric.format(values[0])} to {metric.format(values[-1])} over "
                f"the last {plural(len(values), 'distinct recording')}{alike} (fitted trend: "
                f"{way} by {shown}; tolerance {config.trend:g}){changed}",
            )
        )
    return found


def _cases_changed(runs: Sequence[HistoryRun]) -> str:
    """``; the cases changed over these recordings ...`` when ``runs`` did not all run
    the same cases (a case added, renamed or removed): a metric then moves with the
    cases as well as with the agent. Empty when they did."""
    held = [{case.case for case in run.cases} for run in runs]
    every = set().union(*held)
    apart = every - held[0].intersection(*held[1:]) if held else set()
    if not apart:
        return ""
    return (
        f"; the cases changed over these recordings ({len(apart)} of the {len(every)} "
        f"cases not run in every one, e.g. {sorted(apart)[0]}): part of the change may be "
        "the cases', not the agent's"
    )


def assertion_signals(runs: Sequence[HistoryRun], config: ReportConfig) -> list[Signal]:
    """Gates that always pass, and gates hovering at their case's floor.

    Counted over the distinct recordings of each case: replays of the same answers
    count once.
    """
    found = []
    for evidence in case_evidence(runs):
        seen: dict[str, list[tuple[AssertionStats, int]]] = {}
        for summary in evidence.recordings:
            for stats in summary.assertions:
                if stats.kind == "gate":
                    seen.setdefault(stats.name, []).append((stats, summary.floor))
        for name, history in seen.items():
            if len(history) < config.min_runs:
                continue
            found.extend(_assertion_signal(f"{evidence.case} / {name}", history))
    return found


def _assertion_signal(subject: str, history: list[tuple[AssertionStats, int]]) -> list[Signal]:
    recordings = plural(len(history), "distinct recording")
    total = sum(stats.samples for stats, _ in history)
    if all(stats.passes == stats.samples for stats, _ in history):
        return [
            Signal(
                "always passes",
                subject,
                f"passed all {total} samples of {recordings}: it no longer separates good "
                "from bad; tighten it or retire it",
            )
        ]
    near = [
        (stats, floor)
        for stats, floor in history
        if stats.samples >= 3 and floor - 1 <= stats.passes <= floor
    ]
    if not near or 2 * len(near) < len(history):
        return []
    latest, floor = history[-1]
    return [
        Signal(
            "near threshold",
            subject,
            f"at its floor or one below in {len(near)} of {recordings} (latest: "
            f"{assertion_words(latest, floor)}): take more samples or revisit the floor",
        )
    ]


def find_signals(runs: Sequence[HistoryRun], config: ReportConfig) -> tuple[list[Signal], str]:
    """The signals in the last ``config.window`` distinct recordings, and what was examined."""
    distinct = distinct_runs(runs)
    window = distinct[-config.window :]
    held = recordings_text(len(distinct), len(runs))
    if len(window) < config.min_runs:
        return [], (
            f"{held} in the history; maintenance signals need at least "
            f"{plural(config.min_runs, 'distinct recording')}"
        )
    trends = trend_signals(window, config, priced_at=latest_priced(runs))
    signals = assertion_signals(window, config) + trends
    return signals, f"the last {len(window)} of {held} examined"
