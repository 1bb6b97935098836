"""Which run the report's gate judged, and whether it is the latest run the page shows.

``report --results R`` gates ``R``, while "Latest run" is the history's latest run: the
two are one run only when the history holds ``R``'s run as its latest. A results file
has no history id; its run is found in the history by what it holds (time, commit,
run information, metrics, cases and the digest of their answers), so a replay of the
same recordings at another time is another run.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from replaygate.evals.giveups import GAVE_UP
from replaygate.evals.history import HistoryRun
from replaygate.evals.reference import Reference


@dataclass(frozen=True)
class GatedRun:
    """The results a gate judged: their file, run time and commit, the history's run of
    them (when it holds it) and the latest run of the history."""

    file: str
    time: str | None
    commit: str | None
    held: HistoryRun | None
    latest: HistoryRun | None

    @property
    def is_latest(self) -> bool:
        """Whether the gated results are the latest run of the history."""
        return self.held is not None and self.held is self.latest

    def about(self) -> str:
        """``the results file F (the run at T, commit C, run ID of the history)``."""
        time = f"the run at {self.time}" if self.time else "a run of no stated time"
        held = f"run {self.held.id} of the history" if self.held else "not in the history"
        commit = (self.commit or "unknown")[:12]
        return f"the results file {self.file} ({time}, commit {commit}, {held})"

    def mismatch(self) -> str | None:
        """What the page must say when the gated results are not its latest run."""
        if self.is_latest:
            return None
        if self.latest is None:
            return "The history holds no run: no latest run is shown beside these results."
        return (
            f"These results are not the run shown as the latest run above (run "
            f"{self.latest.id} at {self.latest.time}): the gate and the latest run are two "
            "different runs."
        )


def gated_run(results: Reference, runs: Sequence[HistoryRun]) -> GatedRun:
    """Where the gated ``results`` stand among ``runs`` (oldest first)."""
    info = results.run.info if results.run is not None else {}
    time, commit = info.get("time"), info.get("commit")
    held = None
    if results.run is not None:  # of no stated time: the history gave it the time it was kept
        timed = bool(time)
        mine = _held_as(HistoryRun.of(results.run), timed=timed)
        held = next((run for run in reversed(runs) if _held_as(run, timed=timed) == mine), None)
    latest = runs[-1] if runs else None
    return GatedRun(results.source, str(time) if time else None, commit, held, latest)


def _held_as(run: HistoryRun, *, timed: bool = True) -> str:
    """What the history holds of ``run`` but its id, as canonical JSON; the give-ups its
    information keeps are left out, as a run stored before they were kept has none (its
    answers' digest tells them apart), and so are the names of the shard files a merged
    run was made of: the same shards merged again from other paths are the run the
    history holds (``eval merge`` appends nothing), though the results file names them
    as found that time. Not ``timed`` (results that state no time: shards merged from
    files whose ``eval.time`` was deleted), the time the history gave the run is left out
    too: its run information, which states none, tells it apart."""
    info = {key: value for key, value in run.info.items() if key != GAVE_UP}
    shards = info.get("shards")
    if isinstance(shards, list):
        info["shards"] = [
            {k: v for k, v in s.items() if k != "file"} if isinstance(s, dict) else s
            for s in shards
        ]
    held = {**run.to_json(), "id": None, "info": info}
    if not timed:
        held["time"] = None
    return json.dumps(held, sort_keys=True, default=str)
