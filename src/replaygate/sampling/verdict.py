"""The verdict of a sampled case: ``pass``, ``observe`` or ``block``.

``pass`` when at least ``floor`` of ``n`` samples passed; ``block`` when every
sample failed; ``observe`` in between: some passed, fewer than the floor.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from replaygate.fixtures.fixture import MAX_SAMPLE
from replaygate.jsondoc import shown
from replaygate.type_names import numpy_note

Verdict = Literal["pass", "observe", "block"]

MAX_SAMPLES = MAX_SAMPLE + 1
"""The most samples a case may declare: one per sample index a store holds."""


@dataclass(frozen=True)
class SampleSpec:
    """A case's declared sample count ``n`` and pass floor ``floor`` (1 <= floor <= n)."""

    n: int
    floor: int

    def __post_init__(self) -> None:
        for name, value in (("n", self.n), ("floor", self.floor)):
            if isinstance(value, bool) or not isinstance(value, int):
                said = f"{value!r}{numpy_note(value)}{rate_note(name, value)}"
                raise ValueError(f"{name} must be an integer, got {said}")
        if self.n < 1:
            raise ValueError(f"n must be at least 1, got {self.n}")
        if self.n > MAX_SAMPLES:
            raise ValueError(
                f"n must be at most {MAX_SAMPLES:,} (a store holds sample indices 0 to "
                f"{MAX_SAMPLE:,}), got {shown(self.n)}"
            )
        if not 1 <= self.floor <= self.n:
            raise ValueError(
                f"floor must be between 1 and n={self.n}, got {self.floor}"
                f"{percent_note(self.n, self.floor)}"
            )


def rate_note(name: str, value: object) -> str:
    """For a floor given as a pass rate (``0.8``, or ``1.0`` for every sample), what the
    floor counts instead; ``""`` for any other value."""
    if name == "floor" and isinstance(value, float) and 0 < value <= 1:
        return (
            "; the floor counts samples, not a rate: how many of the n samples must pass "
            "(floor=4 with n=5 for 80%)"
        )
    return ""


def percent_note(n: int, floor: int) -> str:
    """For a floor above ``n`` that reads as a percent (``floor=80`` with ``n=5``: from 20
    to 100), the count it likely meant; ``""`` for any other floor (``6`` with ``n=5``
    is one too many, no percent)."""
    if not max(n, 19) < floor <= 100:
        return ""
    meant = min(n, max(1, -(-n * floor // 100)))
    return (
        f"; the floor counts samples, not a percent: how many of the n={n} samples must pass "
        f"(floor={meant} for {floor}%)"
    )


def verdict_of(passes: int, n: int, floor: int) -> Verdict:
    """``pass`` if ``passes >= floor``, ``block`` if ``passes == 0``, else ``observe``."""
    SampleSpec(n, floor)
    if not 0 <= passes <= n:
        raise ValueError(f"passes must be between 0 and n={n}, got {passes}")
    if passes >= floor:
        return "pass"
    return "block" if passes == 0 else "observe"
