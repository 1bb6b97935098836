"""Counts said in words, as the report shows them."""

from __future__ import annotations

from replaygate.evals.reference import CaseSummary
from replaygate.sampling import AssertionStats


def assertion_words(stats: AssertionStats, floor: int) -> str:
    """``citations: 4 of 5 samples passed, floor 4`` (a signal says it never blocks)."""
    text = f"{stats.name}: {stats.passes} of {stats.samples} samples passed"
    if stats.kind == "gate":
        return f"{text}, floor {floor}"
    return f"{text} (a signal: never blocks)"


def case_words(case: CaseSummary) -> str:
    """``observe: 3 of 5 samples passed, floor 4``."""
    return f"{case.verdict}: {case.passes} of {case.samples} samples passed, floor {case.floor}"


def failed_assertions(case: CaseSummary) -> str:
    """What failed in a case, in words; ``none failed`` when every sample passed each one."""
    failed = [assertion_words(a, case.floor) for a in case.assertions if a.passes < a.samples]
    return "; ".join(failed) or f"none failed in {case.samples} samples"
