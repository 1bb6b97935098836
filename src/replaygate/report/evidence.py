"""What the history really holds: distinct recordings, not replays counted again.

Replaying the same fixtures gives the same answers (law 6): ten replays of one
recording are one piece of evidence about the model, not ten. A run's case is known
by the digest of what its samples answered (``HistoryRun.answers``) and by how they were
judged (:func:`_judged`: its floor, its passes, each check's passes); runs whose every
case answered the same and was judged the same are one recording, and the latest of
them stands for it, in the place of the first: recordings are in the order they were
made, so a replay of an old recording adds no evidence and moves none. The same
answers judged otherwise (a case's checks changed between the runs, a check made weaker
after it failed) are told apart: a check that failed them once is never said to have
always passed. A run without digests (an older history) counts as its own recording.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from replaygate.evals.history import HistoryRun
from replaygate.evals.reference import CaseSummary


def _judged(case: CaseSummary) -> Hashable:
    """How a case's samples were judged: its samples, floor and passes, and each check's
    passes (a check's description, which may be reworded, left out)."""
    checks = tuple((a.name, a.kind, a.passes, a.samples) for a in case.assertions)
    return (case.samples, case.floor, case.passes, checks)


def _case_key(run: HistoryRun, case: CaseSummary) -> Hashable:
    """What ``case`` of ``run`` is evidence of: its answers as judged, or the run itself
    when the answers are not known."""
    digest = run.answers.get(case.case)
    return (digest, _judged(case)) if digest else ("run", run.id)


def _run_key(run: HistoryRun) -> Hashable:
    if run.cases and all(run.answers.get(case.case) for case in run.cases):
        return tuple(sorted((case.case, _case_key(run, case)) for case in run.cases))
    return run.id


def distinct_runs(runs: Sequence[HistoryRun]) -> list[HistoryRun]:
    """One run per distinct recording: the latest, in the order of the recordings' first
    runs (when each was made), which a later replay does not change."""
    latest: dict[Hashable, HistoryRun] = {}
    for run in runs:
        latest[_run_key(run)] = run  # a key keeps the place of its first run
    return list(latest.values())


@dataclass(frozen=True)
class CaseEvidence:
    """A case's distinct recordings among some runs (the latest summary of each)."""

    case: str
    recordings: tuple[CaseSummary, ...]


def case_evidence(runs: Sequence[HistoryRun]) -> list[CaseEvidence]:
    """Per case, in order of first appearance, the summary of each distinct recording
    (its latest run's), in the order of the recordings' first runs."""
    latest: dict[str, dict[Hashable, CaseSummary]] = {}
    for run in runs:
        for case in run.cases:
            latest.setdefault(case.case, {})[_case_key(run, case)] = case
    return [CaseEvidence(case, tuple(recordings.values())) for case, recordings in latest.items()]


def recordings_text(recordings: int, runs: int) -> str:
    """``3 distinct recordings (12 runs: replays of the same answers count once)``."""
    text = plural(recordings, "distinct recording")
    if runs == recordings:
        return text
    return f"{text} ({plural(runs, 'run')}: replays of the same answers count once)"


def plural(count: int, noun: str) -> str:
    """``1 run``, ``3 runs``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"
