"""Flaky detection: the same test, run more than once on the same code, must agree.

A test that passed in one run and failed (or errored) in another is flaky. A test
that never passed is not flaky, whatever mix of failures and errors it gave: it is a
real failure. A skip is neither a pass nor a failure. Seed 003, 6.1: either add sampling (declare
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


def is_failure(outcome: str) -> bool:
    """Whether ``outcome`` (of :func:`outcome_of`) is a failure or an error in any phase."""
    return outcome not in ("passed", "skipped")


def find_flaky(runs: Mapping[str, Sequence[str]]) -> list[FlakyTest]:
    """The tests (nodeid -> outcome per run) that passed in one run and failed in another."""
    return [
        FlakyTest(node, tuple(out))
        for node, out in runs.items()
        if "passed" in out and any(is_failure(o) for o in out)
    ]


def failed_every_run(runs: Mapping[str, Sequence[str]]) -> list[str]:
    """The tests (sorted) that failed, or errored, in every run: real failures."""
    return sorted(node for node, out in runs.items() if out and all(map(is_failure, out)))


def report_lines(flaky: Sequence[FlakyTest], tests: int, runs: int) -> list[str]:
    """The text of the flaky summary."""
    if not flaky:
        return [
            f"no flaky tests: none of {tests} unsampled test(s) passed in one of {runs} "
            "runs and failed in another"
        ]
    return [
        f"{len(flaky)} flaky test(s) out of {tests} run {runs} times:",
        *(f"  {test}" for test in flaky),
        ADVICE,
    ]
