"""Warnings about a case's sample count (seed 003, 6.1)."""

from __future__ import annotations

from collections.abc import Iterable

from replaygate.assertions.kinds import SEMANTIC_CATEGORIES
from replaygate.errors import ReplaygateWarning

MIN_SEMANTIC_SAMPLES = 3


class SamplingWarning(ReplaygateWarning):
    """A sampled case is declared in a way that cannot give a trustworthy verdict."""


class ObserveWarning(ReplaygateWarning):
    """A sampled case passed fewer samples than its floor: queued for observation."""


def sample_count_advice(
    case: str | None, n: int, categories: Iterable[str] | None, *, complete: bool = True
) -> str | None:
    """Why ``n`` samples do not suit the checks' ``categories`` (None: unknown), or None.

    Fewer than 3 samples cannot tell noise from a regression on a semantic assertion;
    structure-only checks need no sampling at all (keep n = 1). ``complete`` is false when
    ``categories`` may not be every check the case has: those a test body evaluated
    before a failed gate or assertion stopped each of its samples, when none ran to its
    end. A later check may be semantic, so seeing only structure says nothing: no advice
    to run once, which would leave those checks at n = 1.
    """
    known = None if categories is None else set(categories)
    semantic = known is None or not known or bool(known & SEMANTIC_CATEGORIES)
    if not semantic and not complete:
        return None
    if semantic and n < MIN_SEMANTIC_SAMPLES:
        return (
            f"{_lead(case)}{n} sample(s) on a semantic assertion cannot tell noise from a "
            f"regression; sample at least {MIN_SEMANTIC_SAMPLES} times (5 is usual) and set "
            "the floor on the low side of the measured pass distribution"
        )
    if not semantic and n > 1:
        return (
            f"{_lead(case)}only structure checks, sampled {n} times; structure does not vary by "
            "chance, so run it once (n=1) and let it fail fast"
        )
    return None


def signals_only_advice(case: str | None, kinds: Iterable[str]) -> str | None:
    """Why ``case``, whose checks are of ``kinds``, gates nothing, or None.

    A signal is recorded and never fails a sample, so a case of signals only passes every
    sample whatever they find (only a plain assertion could fail one): its ``pass`` says
    nothing about the output.
    """
    found = set(kinds)
    if not found or found != {"signal"}:
        return None
    return (
        f"{_lead(case)}every check is a signal, so the case gates nothing: its samples pass "
        "whatever the signals find (only a failed plain assertion fails one), and its "
        "verdict says nothing about the output; declare at least one check kind='gate' to "
        "let the case fail"
    )


def _lead(case: str | None) -> str:
    """``case: `` leading a warning about ``case`` (nothing when no case was named), as a
    warning can carry it: half of a surrogate pair (a case id from a file name that is not
    UTF-8) as its escape, which any stream can write."""
    if case is None:
        return ""
    return case.encode("utf-8", "backslashreplace").decode("utf-8") + ": "
