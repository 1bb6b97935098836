"""Model upgrades (seed 003, 7.1): classify each failure of a candidate run.

Run the baseline first, then the candidate, and sort every failing gate of the
candidate before touching any assertion:

- ``structure changed``: a structure assertion fails: fix the fixtures or the parser;
- ``distribution shifted``: a semantic assertion passes less often, but not never:
  revisit its threshold (measure the new distribution first);
- ``broken``: every sample fails: fix the implementation, never the assertion;
- ``expectation changed``: the case's samples or floor, or this assertion (its kind or
  description), differ from the baseline's: the failure is not the model's alone, so
  run both models on one cases file.

When most semantic assertions that passed in the baseline fail at once, suspect
the assertions first: they probably depend on the old model's wording.

The candidate is checked on the baseline's cases: those it lacks are listed (the
upgrade is not checked on them); one shard of a run, or a run with no case in common
with the baseline (another suite), is refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from replaygate.errors import shown_file
from replaygate.evals.case_changes import CaseChange, case_changes
from replaygate.evals.errors import ResultsError
from replaygate.evals.reference import CaseSummary, Reference
from replaygate.evals.rendered import Rendered
from replaygate.evals.shards import check_whole_run
from replaygate.evals.table import markdown_table, markdown_text, text_table
from replaygate.sampling import AssertionStats

Classification = Literal[
    "structure changed", "distribution shifted", "broken", "expectation changed"
]
ADVICE: dict[str, str] = {
    "structure changed": "fix the fixtures or the parser",
    "distribution shifted": "revisit the threshold: measure the new distribution, then set "
    "the floor on its low side",
    "broken": "fix the implementation; never change the assertion",
    "expectation changed": "the case expects otherwise than in the baseline: run both "
    "models on one cases file",
}
SUSPECT_SHARE = 0.5
"""More than this share of semantic assertions flipping at once means: suspect them."""
COMBINED = "(all gates)"
"""The assertion name of a case that fails although no single gate is below its floor."""
HEADER = ("case", "assertion", "baseline", "candidate", "class", "what to do")


@dataclass(frozen=True)
class Failure:
    """One failing gate of the candidate, classified."""

    case: str
    assertion: str
    category: str
    before: tuple[int, int] | None
    after: tuple[int, int]
    classification: Classification

    @property
    def advice(self) -> str:
        """What to do about it."""
        return ADVICE[self.classification]

    @property
    def pre_existing(self) -> bool:
        """True when the baseline passed it no more often (not caused by the upgrade)."""
        if self.before is None:
            return False
        (bp, bn), (ap, an) = self.before, self.after
        return bp * an <= ap * bn

    def cells(self) -> list[str]:
        """Table cells."""
        before = "-" if self.before is None else f"{self.before[0]}/{self.before[1]}"
        label = self.classification + (" (already failing)" if self.pre_existing else "")
        after = f"{self.after[0]}/{self.after[1]}"
        return [self.case, self.assertion, before, after, label, self.advice]


@dataclass(frozen=True)
class UpgradeReport(Rendered):
    """Every classified failure, whether to suspect the assertions first, and the
    baseline's cases the candidate lacks (``missing``: the upgrade is not checked on them)."""

    failures: tuple[Failure, ...]
    flipped: int
    semantic_passing: int
    missing: tuple[str, ...] = ()

    @property
    def failed(self) -> bool:
        """The candidate has a failure the baseline did not have, or lacks a baseline case."""
        return bool(self.missing) or any(not f.pre_existing for f in self.failures)

    @property
    def suspect_assertions(self) -> bool:
        """Most semantic assertions that passed in the baseline fail in the candidate."""
        return self.semantic_passing > 0 and self.flipped / self.semantic_passing > SUSPECT_SHARE

    @property
    def warning(self) -> str | None:
        """The "suspect the assertions" advice, when it applies."""
        if not self.suspect_assertions:
            return None
        return (
            f"{self.flipped} of {self.semantic_passing} semantic assertions flipped from pass to "
            "fail at once: suspect the assertions first (they probably depend on the old "
            "model's wording), not the model"
        )

    @property
    def missing_note(self) -> str | None:
        """What the candidate lacks, when it lacks a baseline case."""
        if not self.missing:
            return None
        return (
            f"{len(self.missing)} case(s) of the baseline not in the candidate, so not "
            f"checked: {', '.join(self.missing)}; run the candidate model on the baseline's "
            "cases file"
        )

    def text(self) -> str:
        """A table of failures, the warning, the missing cases, and a count per class."""
        lines = [text_table(HEADER, [f.cells() for f in self.failures])] if self.failures else []
        if self.warning:
            lines.append(f"WARNING {self.warning}")
        if self.missing_note:
            lines.append(f"MISSING {self.missing_note}")
        lines.append(self._summary())
        return "\n".join(lines)

    def markdown(self) -> str:
        """The same as Markdown."""
        lines: list[str] = []
        if self.failures:
            rows = [[markdown_text(cell) for cell in f.cells()] for f in self.failures]
            lines += [markdown_table(HEADER, rows), ""]
        if self.warning:
            lines += [f"**Warning:** {self.warning}", ""]
        if self.missing_note:
            lines += [f"**Missing:** {markdown_text(self.missing_note)}", ""]
        lines.append(self._summary())
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        """The report as JSON."""
        return {
            "failures": [
                {
                    "case": f.case,
                    "assertion": f.assertion,
                    "category": f.category,
                    "baseline": list(f.before) if f.before else None,
                    "candidate": list(f.after),
                    "class": f.classification,
                    "pre_existing": f.pre_existing,
                    "advice": f.advice,
                }
                for f in self.failures
            ],
            "flipped": self.flipped,
            "semantic_passing": self.semantic_passing,
            "suspect_assertions": self.suspect_assertions,
            "warning": self.warning,
            "missing": list(self.missing),
        }

    def _summary(self) -> str:
        counts = self._counts() if self.failures else "no failing gate in the candidate"
        if self.missing:
            counts += f"; {len(self.missing)} case(s) of the baseline missing"
        return f"upgrade: {counts}"

    def _counts(self) -> str:
        counts = {name: 0 for name in ADVICE}
        for failure in self.failures:
            counts[failure.classification] += 1
        if not counts["expectation changed"]:  # a class apart, named only when it happened
            del counts["expectation changed"]
        return ", ".join(f"{n} {name}" for name, n in counts.items())


def classify(category: str, passes: int) -> Classification:
    """The class of a failing gate: structure first, then broken (no pass), else shifted."""
    if category == "structure":
        return "structure changed"
    return "broken" if passes == 0 else "distribution shifted"


def _changed(change: CaseChange | None, assertion: str) -> bool:
    """Whether the case's samples or floor, or the assertion, differ from the baseline's."""
    if change is None:
        return False
    changed = {a.name for a in change.assertions}
    return (
        change.samples[0] != change.samples[1]
        or change.floor[0] != change.floor[1]
        or (assertion == COMBINED or assertion in changed)
    )


def _failing(case: CaseSummary, stats: AssertionStats) -> bool:
    return stats.kind == "gate" and stats.passes < min(case.floor, stats.samples)


def _stats(case: CaseSummary | None, name: str) -> AssertionStats | None:
    if case is None:
        return None
    return next((a for a in case.assertions if a.name == name), None)


def classify_upgrade(baseline: Reference, candidate: Reference) -> UpgradeReport:
    """Classify every failing gate of ``candidate`` against ``baseline``, and list the
    baseline's cases it lacks. :class:`ResultsError` when ``candidate`` is one shard of a
    run, or has no case in common with ``baseline`` (the results of another suite)."""
    if candidate.run is not None:
        use = "as the candidate it would be checked on its own cases only"
        check_whole_run(candidate.run, shown_file(candidate.source), use)
    ids = {case.case for case in candidate.cases}
    if not ids & {case.case for case in baseline.cases}:
        raise ResultsError(
            f"{shown_file(candidate.source)}: no case in common with "
            f"{shown_file(baseline.source)}: the results of another suite (cases file); run "
            "the candidate model on the baseline's cases"
        )
    failures: list[Failure] = []
    flipped = semantic_passing = 0
    changes = {change.case: change for change in case_changes(baseline, candidate)}
    for case in candidate.cases:
        old_case = baseline.case(case.case)
        change = changes.get(case.case)
        failing_here = False
        for stats in case.assertions:
            old = _stats(old_case, stats.name)
            semantic = stats.kind == "gate" and stats.category != "structure"
            was_passing = old_case is not None and old is not None and not _failing(old_case, old)
            if semantic and was_passing:
                semantic_passing += 1
            if not _failing(case, stats):
                continue
            failing_here = True
            if semantic and was_passing:
                flipped += 1
            before = (old.passes, old.samples) if old else None
            failures.append(
                Failure(
                    case.case,
                    stats.name,
                    stats.category,
                    before,
                    (stats.passes, stats.samples),
                    "expectation changed"
                    if _changed(change, stats.name)
                    else classify(stats.category, stats.passes),
                )
            )
        if case.verdict != "pass" and not failing_here:
            before = (old_case.passes, old_case.samples) if old_case else None
            failures.append(
                Failure(
                    case.case,
                    COMBINED,
                    "custom",
                    before,
                    (case.passes, case.samples),
                    "expectation changed"
                    if _changed(change, COMBINED)
                    else classify("custom", case.passes),
                )
            )
    missing = tuple(case.case for case in baseline.cases if case.case not in ids)
    return UpgradeReport(tuple(failures), flipped, semantic_passing, missing)
