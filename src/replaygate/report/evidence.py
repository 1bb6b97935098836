"""What the history really holds: distinct recordings, not replays counted again.

Replaying the same fixtures gives the same answers (law 6): ten replays of one
recording are one piece of evidence about the model, not ten. A run's case is known
by the digest of what its samples answered (``HistoryRun.answers``); runs whose every
case answered the same are one recording, and the latest of them stands for it (it
was scored by the newest assertions). A run without digests (an older history)
counts as its own recording.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from replaygate.evals.history import HistoryRun
from replaygate.evals.reference import CaseSummary


def _run_key(run: HistoryRun) -> Hashable:
    if run.cases and all(run.answers.get(case.case) for case in run.cases):
        return tuple(sorted(run.answers.items()))
    return run.id


def distinct_runs(runs: Sequence[HistoryRun]) -> list[HistoryRun]:
    """One run per distinct recording: the latest, in the order of those latest runs."""
    latest = {_run_key(run): index for index, run in enumerate(runs)}
    return [runs[index] for index in sorted(latest.values())]


@dataclass(frozen=True)
class CaseEvidence:
    """A case's distinct recordings among some runs (the latest summary of each)."""

    case: str
    recordings: tuple[CaseSummary, ...]


def case_evidence(runs: Sequence[HistoryRun]) -> list[CaseEvidence]:
    """Per case, in order of first appearance, the summary of each distinct recording."""
    latest: dict[str, dict[Hashable, CaseSummary]] = {}
    for run in runs:
        for case in run.cases:
            digest = run.answers.get(case.case)
            key: Hashable = digest if digest else ("run", run.id)
            by_recording = latest.setdefault(case.case, {})
            by_recording.pop(key, None)  # the latest run of a recording keeps its place last
            by_recording[key] = case
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
