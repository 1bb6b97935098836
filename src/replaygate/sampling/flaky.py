"""Flaky detection: the same test, run more than once on the same code, must agree.

A test that passed in one run and failed (or errored) in another is flaky, and so is
one that ``xfail`` expects to fail, which failed (``xfailed``) in one run and passed
(``xpassed``) in another. A test that never passed is not flaky, whatever mix of
failures and errors it gave: it is a real failure. A skip is neither a pass nor a
failure. Seed 003, 6.1: either add sampling (declare
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
    "each of these gave different outcomes on the same code. Replayed from its fixtures "
    "(record mode replay, the default), a test gets the same recorded answers in each run, "
    "so its own code varied, not the model: identical requests sent at once (the parallel "
    "branches of a LangGraph graph, a batch, an asyncio.gather) get their recorded answers "
    "in the order they arrive (make each request its own: docs/frameworks.md#langchain), "
    "or a clock, randomness or state another test left decided it: make it deterministic, "
    "since sampling would replay the same. Calling the model live, either sample it "
    "(@pytest.mark.sampled(n=5, floor=4) with assertions on what the output must "
    "satisfy) or downgrade it to observe-only (a signal); left as a gate, its red "
    "soon gets ignored."
)
"""What a list of flaky tests ends with: the causes of a flaky replay, then seed 003's
advice for a test of a live model."""


@dataclass(frozen=True)
class FlakyTest:
    """A test and its outcome in each run."""

    nodeid: str
    outcomes: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.nodeid}: {', '.join(self.outcomes)}"


XPASSED_STRICT = "xpassed (strict)"
"""The outcome of a run a strict ``xfail`` marker failed for passing."""
_BODY_PASSED = ("passed", "xpassed", XPASSED_STRICT)
"""The outcomes of a run whose test body passed, whatever ``xfail`` made of it."""


def outcome_of(reports: Sequence[TestReport]) -> str:
    """The outcome of one run of a test from the reports of its phases: ``failed`` (or
    ``error in setup``...) if a phase failed (:data:`XPASSED_STRICT` when a strict
    ``xfail`` failed a pass), ``xfailed`` if it failed as ``xfail`` expects, ``skipped``,
    ``xpassed`` if it passed where a (non-strict) ``xfail`` expected a failure, else
    ``passed``."""
    failed = next((r for r in reports if r.failed), None)
    if failed is not None:
        if failed.when != "call":
            return f"error in {failed.when}"
        strict = isinstance(failed.longrepr, str) and failed.longrepr.startswith("[XPASS(strict)]")
        return XPASSED_STRICT if strict else "failed"
    if any(r.skipped for r in reports):
        return "xfailed" if any(hasattr(r, "wasxfail") for r in reports) else "skipped"
    return "xpassed" if any(hasattr(r, "wasxfail") for r in reports) else "passed"


def is_failure(outcome: str) -> bool:
    """Whether ``outcome`` (of :func:`outcome_of`) is a failure or an error in any phase
    (an expected failure, ``xfailed``, is none)."""
    return outcome not in ("passed", "skipped", "xfailed", "xpassed")


def find_flaky(runs: Mapping[str, Sequence[str]]) -> list[FlakyTest]:
    """The tests (nodeid -> outcome per run) whose body passed in one run and failed in
    another: ``passed`` (or ``xpassed``) and ``failed``, an error or ``xfailed``."""
    return [FlakyTest(node, tuple(out)) for node, out in runs.items() if _flaky(out)]


def _flaky(outcomes: Sequence[str]) -> bool:
    """Whether the test body passed in one of ``outcomes`` and failed in another."""
    passed = any(o in _BODY_PASSED for o in outcomes)
    return passed and any(o not in _BODY_PASSED and o != "skipped" for o in outcomes)


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
