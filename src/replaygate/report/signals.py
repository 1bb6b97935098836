"""Maintenance signals (seed 003, 7.2), found in the last runs of the history.

- ``always passes``: a gate that passed every sample of every recent run no longer
  separates good from bad;
- ``near threshold``: a gate whose pass count sat at its case's floor, or one
  below, in at least half the recent runs: too few samples, or a floor set too close;
- ``trending down``: a metric whose fitted trend over the recent runs moved the wrong
  way by more than the tolerance (points for shares, a fraction of its mean for
  amounts).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from replaygate.evals.config import ReportConfig
from replaygate.evals.history import HistoryRun
from replaygate.evals.metrics import METRICS

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
    mean_y = sum(values) / n
    spread = sum((x - mean_x) ** 2 for x in range(n))
    return sum((x - mean_x) * (y - mean_y) for x, y in enumerate(values)) / spread


def trend_signals(runs: Sequence[HistoryRun], config: ReportConfig) -> list[Signal]:
    """Metrics whose fitted change over ``runs`` is worse than the tolerance."""
    found = []
    for name, metric in METRICS.items():
        values = [v for v in (run.metrics.get(name) for run in runs) if v is not None]
        if len(values) < config.min_runs:
            continue
        change = _slope(values) * (len(values) - 1)
        worse = -change if metric.better == "higher" else change
        if metric.scale == "share":
            size, shown = worse, f"{abs(change):.3f}"
        else:
            mean = sum(values) / len(values)
            size = worse / mean if mean else 0.0
            shown = f"{abs(change) / mean * 100:.1f}%" if mean else "0"
        if size > config.trend:
            way = "fell" if change < 0 else "rose"
            found.append(
                Signal(
                    "trending down",
                    name,
                    f"{way} by {shown} over the last {len(values)} runs (fitted trend; "
                    f"tolerance {config.trend:g})",
                )
            )
    return found


def assertion_signals(runs: Sequence[HistoryRun], config: ReportConfig) -> list[Signal]:
    """Gates that always pass, and gates hovering at their case's floor."""
    seen: dict[tuple[str, str], list[tuple[int, int, int]]] = {}
    for run in runs:
        for case in run.cases:
            for stats in case.assertions:
                if stats.kind == "gate":
                    key = (case.case, stats.name)
                    seen.setdefault(key, []).append((stats.passes, stats.samples, case.floor))
    found = []
    for (case_id, name), history in seen.items():
        if len(history) < config.min_runs:
            continue
        subject = f"{case_id} / {name}"
        total = sum(samples for _, samples, _ in history)
        if all(passes == samples for passes, samples, _ in history):
            found.append(
                Signal(
                    "always passes",
                    subject,
                    f"passed all {total} samples of the last {len(history)} runs: it no longer "
                    "separates good from bad; tighten it or retire it",
                )
            )
            continue
        near = [
            (passes, floor)
            for passes, samples, floor in history
            if samples >= 3 and floor - 1 <= passes <= floor
        ]
        if near and 2 * len(near) >= len(history):
            floor = near[-1][1]
            found.append(
                Signal(
                    "near threshold",
                    subject,
                    f"at its floor ({floor}) or one below in {len(near)} of {len(history)} "
                    "runs: take more samples or revisit the floor",
                )
            )
    return found


def find_signals(runs: Sequence[HistoryRun], config: ReportConfig) -> tuple[list[Signal], str]:
    """The signals in the last ``config.window`` runs, and a note on what was examined."""
    window = list(runs[-config.window :])
    if len(window) < config.min_runs:
        return [], (
            f"{len(window)} run(s) in the history; maintenance signals need at least "
            f"{config.min_runs}"
        )
    signals = assertion_signals(window, config) + trend_signals(window, config)
    return signals, f"the last {len(window)} of {len(runs)} run(s) examined"
