"""What a case expects, compared between a baseline and a run (law 9).

A case's ``samples`` and ``floor``, its assertions (kind and description) and whether
its cost is counted are its expectation. A run whose case expects less than the
baseline's (fewer samples, a samples and floor met more often at some pass rate, a
gate made a signal or removed, a containment gate that accepts more forms or asks
fewer terms, a case newly opted out of cost) is *weakened*: its score would rise with
no change to the agent, so the gate fails on it until the baseline is updated with a
reason. Any other change (a higher floor, a schema edited, a term added) is named,
never passed over in silence, and is weakened when the changed gate passes more often
than it did.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from replaygate.evals.expectations import contains_weaker
from replaygate.evals.kept import case_counts
from replaygate.evals.reference import CaseSummary, Reference
from replaygate.sampling import AssertionStats
from replaygate.sampling.results import PLAIN_ASSERT

_COUNTED = {True: "counted", False: 'opted out ("cost": false)'}


def as_strict(old: tuple[int, int], new: tuple[int, int]) -> bool:
    """Whether a case of ``new`` (samples, floor) meets its floor no more often than one
    of ``old`` at every pass rate per sample ``p``: ``P(Binomial(n_new, p) >= floor_new)
    <= P(Binomial(n_old, p) >= floor_old)`` for all ``p`` in [0, 1].

    Exactly when it asks at least as many passes and allows no more failures: then
    samples that meet the new floor meet the old one too (the first ``n_old`` of them,
    or those with more drawn up to ``n_old``); else it is met more often as ``p`` nears
    0 (fewer passes asked) or 1 (more failures allowed). 1 of 1 moved to 4 of 5 or 50
    of 99 is not as strict (an agent passing 90% of its samples meets 4 of 5 more
    often); 3 of 5 moved to 4 of 5 or 4 of 6 is.
    """
    (old_n, old_floor), (new_n, new_floor) = old, new
    return new_floor >= old_floor and new_n - new_floor <= old_n - old_floor


@dataclass(frozen=True)
class AssertionChange:
    """One assertion of a case with another kind or description in the run, or removed
    from the case (``after`` None)."""

    name: str
    before: AssertionStats
    after: AssertionStats | None

    @property
    def weakened(self) -> bool:
        """A gate of the baseline is now a signal, no longer declared, a containment check
        that accepts more (:func:`~replaygate.evals.expectations.contains_weaker`), or a
        gate changed otherwise (a schema edited) that passes more often than it did: what
        the change did cannot be told from what the agent did, so it is not passed."""
        after = self.after
        return self.before.kind == "gate" and (
            after is None
            or after.kind != "gate"
            or contains_weaker(self.before.description, after.description)
            or self.passes_more
        )

    @property
    def passes_more(self) -> bool:
        """The changed assertion passes a larger share of its samples than it did."""
        before, after = self.before, self.after
        return (
            after is not None
            and before.samples > 0
            and after.samples > 0
            and after.passes * before.samples > before.passes * after.samples
        )

    def text(self) -> str:
        """E.g. ``assertion contains changed: 'the text mentions ...' -> '...'``."""
        before, after = self.before, self.after
        if after is None:
            return f"assertion {self.name} [{before.kind}] removed"
        if before.kind != after.kind:
            return f"assertion {self.name} {before.kind} -> {after.kind}"
        text = f"assertion {self.name} changed: {before.description!r} -> {after.description!r}"
        if self.passes_more:
            text += (
                f" and passes more often ({before.passes}/{before.samples} -> "
                f"{after.passes}/{after.samples})"
            )
        return text

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
    cost: tuple[bool, bool] = (True, True)
    """Whether the case's cost is counted, in the baseline and in the run (a case with
    ``"cost": false`` opts out)."""

    @property
    def weakened(self) -> bool:
        """The run's case expects less than the baseline's: fewer samples, a samples and
        floor not as strict at every pass rate (:func:`as_strict`), a gate weakened
        (:attr:`AssertionChange.weakened`), or its cost no longer counted."""
        (old_n, new_n), (old_floor, new_floor) = self.samples, self.floor
        return (
            new_n < old_n
            or not as_strict((old_n, old_floor), (new_n, new_floor))
            or any(a.weakened for a in self.assertions)
            or self.cost == (True, False)
        )

    def text(self) -> str:
        """E.g. ``samples 5 -> 2, floor 4 -> 1``."""
        parts = [
            f"{name} {old} -> {new}"
            for name, (old, new) in (("samples", self.samples), ("floor", self.floor))
            if old != new
        ]
        if self.cost[0] != self.cost[1]:
            parts.append(f"cost {_COUNTED[self.cost[0]]} -> {_COUNTED[self.cost[1]]}")
        return ", ".join([*parts, *(a.text() for a in self.assertions)])

    def to_json(self) -> dict[str, Any]:
        """The change as a baseline's history keeps it."""
        return {
            "summary": self.text(),
            "samples": {"from": self.samples[0], "to": self.samples[1]},
            "floor": {"from": self.floor[0], "to": self.floor[1]},
            **(
                {"cost": {"from": self.cost[0], "to": self.cost[1]}}
                if self.cost[0] != self.cost[1]
                else {}
            ),
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


def case_change(
    before: CaseSummary, after: CaseSummary, cost: tuple[bool, bool] = (True, True)
) -> CaseChange | None:
    """How ``after`` expects differently from ``before`` (the same case), or None;
    ``cost`` says whether each counts its cost."""
    change = CaseChange(
        after.case,
        (before.samples, after.samples),
        (before.floor, after.floor),
        tuple(_assertion_changes(before, after)),
        cost,
    )
    unchanged = (before.samples, before.floor, cost[0]) == (after.samples, after.floor, cost[1])
    return None if unchanged and not change.assertions else change


def case_changes(baseline: Reference, now: Reference) -> list[CaseChange]:
    """Every case of both whose expectation changed, in the order of ``now``. Whether a
    case counts its cost is compared where both sides keep its counts."""
    changes: list[CaseChange] = []
    old_counts, new_counts = case_counts(baseline), case_counts(now)
    for case in now.cases:
        old = baseline.case(case.case)
        if old is None:
            continue
        before, after = old_counts.get(case.case), new_counts.get(case.case)
        cost = (True, True)
        if before is not None and after is not None:
            cost = (not before.cost_skipped, not after.cost_skipped)
        change = case_change(old, case, cost)
        if change is not None:
            changes.append(change)
    return changes
