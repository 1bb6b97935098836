"""The eval report: one self-contained HTML file (opens offline) with plots and signals.

Plots are drawn by matplotlib and inlined as SVG: metrics over time, the weekly pass
rate of each assertion and the age of the fixtures; the maintenance signals of seed
003 (7.2) list assertions that always pass, assertions hovering at their floor and
metrics trending the wrong way::

    from replaygate.report import write_report

    write_report("report.html", history=".replaygate/history.db", stores=["fixtures.jsonl"])

Needs the ``report`` extra (matplotlib).
"""

from __future__ import annotations

from replaygate.report.data import fixture_ages, metric_series, weekly_pass_rates
from replaygate.report.page import build_report, write_report
from replaygate.report.signals import Signal, find_signals
from replaygate.report.suites import Suite, suite_runs

__all__ = [
    "Signal",
    "Suite",
    "build_report",
    "find_signals",
    "fixture_ages",
    "metric_series",
    "suite_runs",
    "weekly_pass_rates",
    "write_report",
]
