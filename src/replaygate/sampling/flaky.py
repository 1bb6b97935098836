"""Flaky detection: the same test, run more than once on the same code, must agree.

A test whose outcomes differ is flaky. Seed 003, 6.1: either add sampling (declare
``n`` and a floor) or downgrade it to observe-only; left as a gate, the team soon
learns to ignore its red.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest import TestReport

ADVICE = (
    "each of these gave different outcomes on the same code. Either sample it "
    "(@pytest.mark.sampled(n=5, floor=4) with assertions on what the output must "
    "satisfy) or downgrade it to observe-only (a signal); left as a gate, its red "
    "soon gets ignored."
)


@dataclass(frozen=True)
class FlakyTest:
    """A test and its outcome in each run."""

    nodeid: str
    outcomes: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.nodeid}: {', '.join(self.outcomes)}"


def outcome_of(reports: Sequence[TestReport]) -> str:
    """``failed`` if any phase failed, ``skipped`` if one was skipped, else ``passed``."""
    if any(r.failed for r in reports):
        phase = next(r.when for r in reports if r.failed)
        return "failed" if phase == "call" else f"error in {phase}"
    if any(r.skipped for r in reports):
        return "skipped"
    return "passed"


def find_flaky(runs: Mapping[str, Sequence[str]]) -> list[FlakyTest]:
    """The tests (nodeid -> outcome per run) whose outcomes are not all the same."""
    return [FlakyTest(node, tuple(out)) for node, out in runs.items() if len(set(out)) > 1]


def report_lines(flaky: Sequence[FlakyTest], tests: int, runs: int) -> list[str]:
    """The text of the flaky summary."""
    if not flaky:
        return [f"no flaky tests: {tests} unsampled test(s) gave the same outcome {runs} times"]
    return [
        f"{len(flaky)} flaky test(s) out of {tests} run {runs} times:",
        *(f"  {test}" for test in flaky),
        ADVICE,
    ]
