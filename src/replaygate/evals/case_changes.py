"""What a case expects, compared between a baseline and a run (law 9).

A case's ``samples`` and ``floor`` and its assertions (kind and description) are its
expectation. A run whose case expects less than the baseline's (fewer samples, a
lower pass rate demanded by its floor, a gate made a signal or removed) is
*weakened*: its score would rise with no change to the agent, so the gate fails on it
until the baseline is updated with a reason. The rate a floor demands weighs the
samples (:mod:`~replaygate.evals.demanded_rate`): 1 of 1 moved to 4 of 5 asks a lower
share but demands more, so it is not weakened. Any other change is named, never
passed over in silence.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from replaygate.evals.demanded_rate import demanded_rate
from replaygate.evals.reference import CaseSummary, Reference
from replaygate.sampling import AssertionStats
from replaygate.sampling.results import PLAIN_ASSERT

_SAME_RATE = 1e-9
"""Demanded rates closer than this are one rate (1 of 1 and 2 of 3 both demand 0.5)."""


@dataclass(frozen=True)
class AssertionChange:
    """One assertion of a case with another kind or description in the run, or removed
    from the case (``after`` None)."""

    name: str
    before: AssertionStats
    after: AssertionStats | None

    @property
    def weakened(self) -> bool:
        """A gate of the baseline is now a signal, or no longer declared."""
        return self.before.kind == "gate" and (self.after is None or self.after.kind != "gate")

    def text(self) -> str:
        """E.g. ``assertion contains changed: 'the text mentions ...' -> '...'``."""
        before, after = self.before, self.after
        if after is None:
            return f"assertion {self.name} [{before.kind}] removed"
        if before.kind != after.kind:
            return f"assertion {self.name} {before.kind} -> {after.kind}"
        return f"assertion {self.name} changed: {before.description!r} -> {after.description!r}"

    def to_json(self) -> dict[str, Any]:
        """``{"from": {"kind", "description"}, "to": {...}}``, ``"to"`` null when removed."""
        return {
            side: None if stats is None else {"kind": stats.kind, "description": stats.description}
            for side, stats in (("from", self.before), ("to", self.after))
        }


@dataclass(frozen=True)
class CaseChange:
    """A case whose expectation differs between the baseline and the run."""

    case: str
    samples: tuple[int, int]
    floor: tuple[int, int]
    assertions: tuple[AssertionChange, ...]

    @property
    def weakened(self) -> bool:
        """The run's case expects less than the baseline's: fewer samples, a lower pass
        rate demanded (:func:`~replaygate.evals.demanded_rate.demanded_rate`: a lower
        floor of as many samples or more is one), or a gate made a signal or removed."""
        (old_n, new_n), (old_floor, new_floor) = self.samples, self.floor
        return (
            new_n < old_n
            or demanded_rate(new_n, new_floor) < demanded_rate(old_n, old_floor) - _SAME_RATE
            or any(a.weakened for a in self.assertions)
        )

    def text(self) -> str:
        """E.g. ``samples 5 -> 2, floor 4 -> 1``."""
        parts = [
            f"{name} {old} -> {new}"
            for name, (old, new) in (("samples", self.samples), ("floor", self.floor))
            if old != new
        ]
        return ", ".join([*parts, *(a.text() for a in self.assertions)])

    def to_json(self) -> dict[str, Any]:
        """The change as a baseline's history keeps it."""
        return {
            "summary": self.text(),
            "samples": {"from": self.samples[0], "to": self.samples[1]},
            "floor": {"from": self.floor[0], "to": self.floor[1]},
            "assertions": {a.name: a.to_json() for a in self.assertions},
            "weakened": self.weakened,
        }


def _assertion_changes(before: CaseSummary, after: CaseSummary) -> list[AssertionChange]:
    """The assertions of both whose kind or description differ, then the checks ``before``
    declares that ``after`` does not (:func:`_removed`). An assertion only the run lists
    is not compared: the run lists the assertions its samples evaluated, the body's
    plain ``assert`` only when one failed."""
    old = {a.name: a for a in before.assertions}
    changed = [
        AssertionChange(now.name, old[now.name], now)
        for now in after.assertions
        if now.name in old
        and (old[now.name].kind, old[now.name].description) != (now.kind, now.description)
    ]
    return [*changed, *_removed(before, after, old)]


def _removed(
    before: CaseSummary, after: CaseSummary, old: dict[str, AssertionStats]
) -> list[AssertionChange]:
    """The checks ``before`` declares and ``after`` does not, when both say what they
    declare (a file written before results kept ``declared`` says nothing). One whose
    kind ``before`` does not show (no sample evaluated it) counts as a gate: what cannot
    be told is not passed as a signal."""
    if before.declared is None or after.declared is None:
        return []
    kept = set(after.declared)
    return [
        AssertionChange(name, old.get(name) or AssertionStats(name, "gate", "custom", 0, 0), None)
        for name in before.declared
        if name not in kept and name != PLAIN_ASSERT
    ]


def case_change(before: CaseSummary, after: CaseSummary) -> CaseChange | None:
    """How ``after`` expects differently from ``before`` (the same case), or None."""
    change = CaseChange(
        after.case,
        (before.samples, after.samples),
        (before.floor, after.floor),
        tuple(_assertion_changes(before, after)),
    )
    unchanged = before.samples == after.samples and before.floor == after.floor
    return None if unchanged and not change.assertions else change


def case_changes(baseline: Reference, now: Reference) -> list[CaseChange]:
    """Every case of both whose expectation changed, in the order of ``now``."""
    changes: list[CaseChange] = []
    for case in now.cases:
        old = baseline.case(case.case)
        change = None if old is None else case_change(old, case)
        if change is not None:
            changes.append(change)
    return changes
