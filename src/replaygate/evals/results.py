"""Eval results: the sampling results file, extended with counts, metrics and run info.

The file is a :mod:`replaygate.sampling.results` document (so ``load_results`` and
``replaygate calibrate`` read it) with three additions::

    {"format": "replaygate.sampling.results", "version": 1,
     "eval": {"time": ..., "commit": ..., "mode": "replay", "model": ..., ...},
     "metrics": {"success": 0.75, "citation_precision": 1.0, ...},
     "cases": [{...sampled case..., "tags": [...], "counts": {...}, "metrics": {...}}]}

See ``docs/evals.md`` for every field.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from replaygate import jsondoc
from replaygate.evals.errors import ResultsError
from replaygate.evals.scorers import CaseCounts, Metrics, metrics_of
from replaygate.jsondoc import check_document, parse_items, strings_field
from replaygate.sampling import SampledResult
from replaygate.sampling.results import FORMAT, VERSION


@dataclass(frozen=True)
class CaseResult:
    """One eval case: its sampled result, its counts and its tags."""

    sampled: SampledResult
    counts: CaseCounts
    tags: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        """The case id."""
        return self.sampled.case

    def to_json(self) -> dict[str, Any]:
        """The case object: the sampling case plus ``tags``, ``counts`` and ``metrics``."""
        return {
            **self.sampled.to_json(),
            "tags": list(self.tags),
            "counts": self.counts.to_json(),
            "metrics": metrics_of([self.counts]),
        }

    @staticmethod
    def from_json(obj: Mapping[str, Any]) -> CaseResult:
        """The inverse of :meth:`to_json`; a plain sampling case gets minimal counts."""
        sampled = SampledResult.from_json(obj)
        counts_obj = obj.get("counts")
        if counts_obj is None:
            counts = CaseCounts(samples=sampled.n, passed=sampled.verdict == "pass")
        else:
            counts = CaseCounts.from_json(counts_obj)
        return CaseResult(sampled, counts, strings_field(obj, "tags"))


@dataclass(frozen=True)
class EvalResults:
    """Every case of one eval run, and what the run was (``info``)."""

    cases: tuple[CaseResult, ...]
    info: Mapping[str, Any] = field(default_factory=dict)

    @property
    def metrics(self) -> Metrics:
        """The run's metrics (see :mod:`replaygate.evals.scorers`)."""
        return metrics_of([c.counts for c in self.cases])

    def case(self, case_id: str) -> CaseResult:
        """The case called ``case_id``."""
        for case in self.cases:
            if case.id == case_id:
                return case
        raise KeyError(case_id)

    def to_json(self) -> dict[str, Any]:
        """The whole results document."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "eval": dict(self.info),
            "metrics": self.metrics,
            "cases": [c.to_json() for c in self.cases],
        }

    def write(self, path: str | os.PathLike[str]) -> Path:
        """Write the document to ``path`` (pretty, UTF-8, non-ASCII kept)."""
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(self.to_json(), ensure_ascii=False, indent=2) + "\n"
        target.write_text(text, encoding="utf-8")
        return target

    def summary(self) -> list[str]:
        """One line per case, as :meth:`SampledResult.summary` prints it."""
        return [c.sampled.summary() for c in self.cases]


def results_from_json(obj: Any, name: str) -> EvalResults:
    """Validate a parsed results document; :class:`ResultsError` names the field."""
    document = check_document(
        obj,
        name,
        format=FORMAT,
        version=VERSION,
        what="a replaygate results file",
        error=ResultsError,
    )
    cases = parse_items(
        document, "cases", name, lambda case, _where: CaseResult.from_json(case), ResultsError
    )
    first: dict[str, int] = {}
    for i, case in enumerate(cases):
        if case.id in first:
            raise ResultsError(
                f"{name}: cases[{i}]: case {case.id!r} is already at cases[{first[case.id]}]; "
                "a case is listed once (its metrics would count twice)"
            )
        first[case.id] = i
    info = document.get("eval", {})
    return EvalResults(tuple(cases), info if isinstance(info, dict) else {})


def read_json(path: str | os.PathLike[str], what: str) -> Any:
    """Parse the JSON file at ``path``; :class:`ResultsError` says why it cannot be read."""
    return jsondoc.read_json(path, what, ResultsError)


def load_eval_results(path: str | os.PathLike[str]) -> EvalResults:
    """Read an eval results file (a plain sampling results file works too)."""
    return results_from_json(read_json(path, "results"), str(path))


def case_ids(results: Sequence[CaseResult]) -> list[str]:
    """The ids of ``results``, in order."""
    return [c.id for c in results]
