"""What a case expects, compared between a baseline and a run (law 9).

A case's ``samples`` and ``floor`` and its assertions (kind and description) are its
expectation. A run whose case expects less than the baseline's (fewer samples, a
lower floor or pass share, a gate removed or made a signal) is *weakened*: its score
would rise with no change to the agent, so the gate fails on it until the baseline
is updated with a reason. Any other change is named, never passed over in silence.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from replaygate.evals.reference import CaseSummary, Reference
from replaygate.sampling import AssertionStats


@dataclass(frozen=True)
class AssertionChange:
    """One assertion of a case, added, removed, or with another kind or description."""

    name: str
    before: AssertionStats | None
    after: AssertionStats | None

    @property
    def weakened(self) -> bool:
        """A gate of the baseline is gone or is now a signal."""
        was_gate = self.before is not None and self.before.kind == "gate"
        return was_gate and (self.after is None or self.after.kind != "gate")

    def text(self) -> str:
        """E.g. ``assertion contains changed: 'the text mentions ...' -> '...'``."""
        before, after = self.before, self.after
        if before is None:
            return f"assertion {self.name} added"
        if after is None:
            return f"assertion {self.name} removed"
        if before.kind != after.kind:
            return f"assertion {self.name} {before.kind} -> {after.kind}"
        return f"assertion {self.name} changed: {before.description!r} -> {after.description!r}"

    def to_json(self) -> dict[str, Any]:
        """``{"from": {"kind", "description"} | null, "to": ...}``."""

        def side(stats: AssertionStats | None) -> dict[str, str] | None:
            return None if stats is None else {"kind": stats.kind, "description": stats.description}

        return {"from": side(self.before), "to": side(self.after)}


@dataclass(frozen=True)
class CaseChange:
    """A case whose expectation differs between the baseline and the run."""

    case: str
    samples: tuple[int, int]
    floor: tuple[int, int]
    assertions: tuple[AssertionChange, ...]

    @property
    def weakened(self) -> bool:
        """The run's case expects less than the baseline's: fewer samples, a lower floor
        or pass share, or a gate gone."""
        (old_n, new_n), (old_floor, new_floor) = self.samples, self.floor
        return (
            new_n < old_n
            or new_floor < old_floor
            or new_floor * old_n < old_floor * new_n
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
    """The assertions that differ; none when either side lists none (a baseline written
    before assertions were kept)."""
    if not before.assertions or not after.assertions:
        return []
    old = {a.name: a for a in before.assertions}
    new = {a.name: a for a in after.assertions}
    changes: list[AssertionChange] = []
    for name in dict.fromkeys([*old, *new]):
        was, now = old.get(name), new.get(name)
        same = (
            was is not None
            and now is not None
            and (was.kind, was.description) == (now.kind, now.description)
        )
        if not same:
            changes.append(AssertionChange(name, was, now))
    return changes


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
