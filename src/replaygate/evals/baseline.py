"""The committed baseline: the metrics a change is gated against, and why they are what they are.

``update_baseline`` replaces the metrics and case summaries with those of a results
file and appends to the baseline's ``history`` the reason given, the date, the git
commit and what changed (law 9). Without a reason it refuses and writes nothing.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from replaygate.errors import shown_file
from replaygate.evals.case_changes import case_changes
from replaygate.evals.errors import BaselineError
from replaygate.evals.git import head_commit, is_dirty
from replaygate.evals.reference import (
    BASELINE_FORMAT,
    BASELINE_VERSION,
    SOURCE_FIELDS,
    Reference,
    load_reference,
    load_run,
    reference_from_json,
)
from replaygate.evals.results import EvalResults, read_back_text, read_json
from replaygate.evals.scorers import Metrics
from replaygate.evals.shards import check_whole_run
from replaygate.evals.traced import written_digest
from replaygate.fixtures.fixture import now_iso
from replaygate.jsonfields import escape_surrogates, lone_surrogate
from replaygate.locks import lock_at
from replaygate.outputs import real_file, write_text
from replaygate.reasons import reason_problem


@dataclass(frozen=True)
class Baseline:
    """A parsed baseline document: its reference values and its change history."""

    reference: Reference
    history: tuple[Mapping[str, Any], ...]
    source: Mapping[str, Any]

    @property
    def metrics(self) -> Metrics:
        """The baseline metrics."""
        return self.reference.metrics

    def to_json(self) -> dict[str, Any]:
        """The stored document: each case's summary with its ``counts`` (when kept)."""
        counts = self.reference.counts
        return {
            "format": BASELINE_FORMAT,
            "version": BASELINE_VERSION,
            "metrics": dict(self.reference.metrics),
            "cases": {
                c.case: {
                    **c.to_json(),
                    **({"counts": counts[c.case].to_json()} if c.case in counts else {}),
                }
                for c in self.reference.cases
            },
            "source": dict(self.source),
            "history": [dict(entry) for entry in self.history],
        }


def _baseline_of(obj: Any, name: str) -> Baseline:
    """A parsed baseline or results document as a :class:`Baseline` (a results file's
    reference holds its run, and it has no history)."""
    reference = reference_from_json(obj, name)
    if obj.get("format") != BASELINE_FORMAT:
        return Baseline(reference, (), {})
    return Baseline(reference, tuple(obj.get("history", [])), reference.about)


def load_baseline(path: str | os.PathLike[str]) -> Baseline:
    """Read a baseline file (its history too); a damaged one is a ResultsError naming the
    field, so that ``update_baseline`` leaves it as it is."""
    return _baseline_of(read_json(path, "baseline"), str(path))


def load_gated(
    baseline: str | os.PathLike[str], results: str | os.PathLike[str]
) -> tuple[Reference, Reference]:
    """The baseline (:func:`~replaygate.evals.reference.load_reference`) and the results
    of a run to gate against it
    (:func:`~replaygate.evals.reference.load_run`): the results of one shard of a run
    are refused, as the other shards' cases would read as dropped from the baseline."""
    compared = load_reference(baseline)
    run = load_run(results, baseline)
    if run.run is not None:
        use = "gated alone, the other shards' cases would read as missing from the baseline"
        check_whole_run(run.run, shown_file(str(results)), use)
    return compared, run


def _there(path: Path) -> bool:
    """Whether something is at ``path`` to be read as the baseline: a symlink loop or a
    file that cannot be looked at is (reading it says why), where ``Path.exists`` took
    it for no baseline and a new one was begun."""
    try:
        path.stat()
    except (FileNotFoundError, NotADirectoryError):  # the folder above is a file: the
        return False  # write names it
    except OSError:  # a loop, a file that cannot be looked at: reading it says why
        pass
    return True


def _existing_dir(path: Path) -> Path:
    for folder in (path.parent, *path.parent.parents):
        if folder.is_dir():
            return folder
    return Path.cwd()


def metric_changes(before: Metrics, after: Metrics) -> dict[str, dict[str, float | None]]:
    """The metrics whose value changed, as ``{name: {"from": old, "to": new}}``."""
    names = list(dict.fromkeys([*before, *after]))
    return {
        name: {"from": before.get(name), "to": after.get(name)}
        for name in names
        if before.get(name) != after.get(name)
    }


def update_baseline(
    path: str | os.PathLike[str],
    results: EvalResults,
    *,
    reason: str | None,
    results_name: str = "",
    now: str | None = None,
) -> Baseline:
    """Write ``results`` as the new baseline at ``path``, with the reason in its history.

    Refuses (:class:`BaselineError`, nothing written) without a non-blank ``reason``
    or with results holding no case. The history entry holds the reason, the date,
    the git commit of the baseline's repository (and whether the tree was dirty),
    the results file, the metrics that changed, the cases added and removed, and the cases
    whose samples, floor or assertions changed (``cases_changed``), and the digest of
    what it wrote (:func:`~replaygate.evals.traced.written_digest`).
    """
    target = Path(path)
    if not reason:
        raise BaselineError(
            f"refusing to update {target} without a reason: a changed baseline must say why "
            '(law 9). Pass --reason "...". Nothing was written.'
        )
    if (problem := reason_problem(reason)) is not None:
        raise BaselineError(
            f"refusing to update {target}: {problem}; a changed baseline must say why in text "
            "a reviewer can read (law 9). Nothing was written."
        )
    from replaygate.sanitize.secret_scan import secret_detector  # the scan of a fixture's note

    if (detector := secret_detector(reason)) is not None:
        raise BaselineError(
            f"refusing to update {target}: the reason holds a secret-looking value "
            f"({detector}), which the baseline's history would keep in a file that is "
            "committed (law 4): say why without it. Nothing was written."
        )
    if not results.cases:
        raise BaselineError(f"refusing to update {target}: the results hold no case")
    use = f"as the new baseline of {target} it would drop the cases of the other shards"
    check_whole_run(results, shown_file(results_name or "the results"), use)
    if lone_surrogate(reason) is not None:  # a byte that is not UTF-8, from the shell
        raise BaselineError(
            f"refusing to update {target}: the reason '{escape_surrogates(reason)}' is not "
            "UTF-8 text, and the baseline keeps it as text. Nothing was written."
        )
    if _there(target) and not target.is_file():
        load_baseline(target)  # a folder, a FIFO, a device, a loop: named before a lock
        # file is made beside it (/dev/null.lock)
    target.parent.mkdir(parents=True, exist_ok=True)
    # Read, changed and written under one lock: two updates at once would each append
    # their entry to the history they read, and the one written last would drop the other.
    # The lock is beside the file a linked baseline links to, where it is written, so that
    # an update through the link and one through the file take turns too.
    with lock_at(f"{real_file(target)}.lock"):
        previous = load_baseline(target) if _there(target) else None
        if previous is not None and previous.reference.run is not None:
            raise BaselineError(
                f"refusing to update {shown_file(str(target))}: it holds the results of a "
                "run (replaygate.sampling.results), not a baseline: writing the baseline "
                "there would replace every output of that run. Give another --baseline "
                "file. Nothing was written."
            )
        source = {k: results.info[k] for k in SOURCE_FIELDS if k in results.info}
        plain = Reference.of(results, str(target))
        # a case read without counts (a plain sampling results file) has none to keep
        counts = {case.id: case.counts for case in results.cases if case.counts_known}
        new_reference = Reference(
            plain.metrics, plain.cases, str(target), counts=counts, about=source
        )
        before_cases = {c.case for c in previous.reference.cases} if previous else set()
        after_cases = {c.case for c in new_reference.cases}
        repo = _existing_dir(target.resolve())
        entry: dict[str, Any] = {
            "date": now or now_iso(),
            "reason": reason.strip(),
            "commit": head_commit(repo),
            "dirty": is_dirty(repo),
            "results": escape_surrogates(results_name) or None,  # a name that is not UTF-8
            "changes": metric_changes(previous.metrics if previous else {}, new_reference.metrics),
            "cases_added": sorted(after_cases - before_cases),
            "cases_removed": sorted(before_cases - after_cases),
            "cases_changed": {
                change.case: change.to_json()
                for change in (case_changes(previous.reference, new_reference) if previous else ())
            },
        }
        # read back as load_baseline reads it: a baseline it would refuse (a run's model
        # that is no JSON or not Unicode text) replaced the old one and its history
        name = f"{shown_file(str(target))}: not written: the baseline"
        content = Baseline(new_reference, (), source).to_json()
        entry["digest"] = written_digest(read_back_text(content, name, BaselineError)[1])
        baseline = Baseline(new_reference, (*(previous.history if previous else ()), entry), source)
        text, document = read_back_text(baseline.to_json(), name, BaselineError)
        _baseline_of(document, name)
        # In one step: a crash leaves the old baseline, never half of a new one
        write_text(target, text)
    return baseline
