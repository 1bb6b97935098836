"""What a run is compared against: metrics and per-case pass counts.

Both a baseline file and a results file give one (:func:`load_reference`), so
``gate`` and ``upgrade`` accept either.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from replaygate.assertions.kinds import check_category, check_kind
from replaygate.evals.errors import ResultsError
from replaygate.evals.results import EvalResults, read_json, results_from_json
from replaygate.evals.scorers import Metrics
from replaygate.jsondoc import FieldError, count_field, json_fields
from replaygate.sampling import AssertionStats, SampledResult, verdict_of
from replaygate.sampling.results import FORMAT as RESULTS_FORMAT
from replaygate.sampling.verdict import MAX_SAMPLES

BASELINE_FORMAT = "replaygate.eval.baseline"
BASELINE_VERSION = 1


@dataclass(frozen=True)
class CaseSummary:
    """A case's declared samples and floor, its passes, verdict and per-assertion counts."""

    case: str
    samples: int
    floor: int
    passes: int
    assertions: tuple[AssertionStats, ...] = ()

    @property
    def verdict(self) -> str:
        """``pass``, ``observe`` or ``block``."""
        return verdict_of(self.passes, self.samples, self.floor)

    @staticmethod
    def of(sampled: SampledResult) -> CaseSummary:
        """The summary of a sampled result."""
        return CaseSummary(
            sampled.case, sampled.n, sampled.floor, sampled.passes, tuple(sampled.assertions())
        )

    def to_json(self) -> dict[str, Any]:
        """The stored object (the case id is its key)."""
        return {
            **json_fields(self, ("samples", "floor", "passes", "verdict")),
            "assertions": {a.name: a.to_json() for a in self.assertions},
        }

    @staticmethod
    def from_json(case: str, obj: Mapping[str, Any]) -> CaseSummary:
        """The inverse of :meth:`to_json`."""
        assertions = []
        for name, a in obj.get("assertions", {}).items():
            try:
                passes, samples = count_field(a, "passes", 0), count_field(a, "samples", 0)
            except FieldError as err:
                raise FieldError(f"assertions.{name}.{err.field}", str(err)) from None
            kind, category = check_kind(a["kind"]), check_category(a.get("category", "custom"))
            description = str(a.get("description", ""))
            assertions.append(AssertionStats(name, kind, category, passes, samples, description))
        summary = CaseSummary(
            case,
            count_field(obj, "samples", 1, MAX_SAMPLES),
            count_field(obj, "floor", 1),
            count_field(obj, "passes", 0),
            tuple(assertions),
        )
        summary.verdict  # validates samples, floor and passes  # noqa: B018
        return summary


@dataclass(frozen=True)
class Reference:
    """Metrics and case summaries of a baseline or a results file."""

    metrics: Metrics
    cases: tuple[CaseSummary, ...]
    source: str

    def case(self, case_id: str) -> CaseSummary | None:
        """The summary of ``case_id``, if the reference has it."""
        return next((c for c in self.cases if c.case == case_id), None)

    @staticmethod
    def of(results: EvalResults, source: str) -> Reference:
        """The reference an eval run makes."""
        cases = tuple(CaseSummary.of(c.sampled) for c in results.cases)
        return Reference(results.metrics, cases, source)


def _finite(value: Any) -> bool:
    """True for a number that is a finite float (never true or false)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # an integer beyond the range of a float
        return False


def metrics_from_json(obj: Any, name: str) -> Metrics:
    """A ``metrics`` object: metric name -> number or null."""
    if not isinstance(obj, dict):
        raise ResultsError(f"{name}: 'metrics' must be an object")
    metrics: Metrics = {}
    for key, value in obj.items():
        if value is not None and not _finite(value):
            raise ResultsError(f"{name}: metrics.{key} must be a number or null, got {value!r}")
        metrics[str(key)] = None if value is None else float(value)
    return metrics


def reference_from_json(obj: Any, name: str) -> Reference:
    """A parsed baseline or results document as a :class:`Reference`."""
    if isinstance(obj, dict) and obj.get("format") == RESULTS_FORMAT:
        return Reference.of(results_from_json(obj, name), name)
    if not isinstance(obj, dict) or obj.get("format") != BASELINE_FORMAT:
        raise ResultsError(
            f"{name}: neither a baseline ({BASELINE_FORMAT!r}) nor a results file "
            f"({RESULTS_FORMAT!r})"
        )
    if obj.get("version") != BASELINE_VERSION:
        raise ResultsError(f"{name}: unsupported baseline version {obj.get('version')!r}")
    cases_obj = obj.get("cases", {})
    if not isinstance(cases_obj, dict):
        raise ResultsError(f"{name}: 'cases' must be an object keyed by case id")
    cases = []
    for case_id, case in cases_obj.items():
        try:
            cases.append(CaseSummary.from_json(case_id, case))
        except FieldError as err:
            raise ResultsError(f"{name}: cases.{case_id}.{err.field}: {err}") from None
        except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as err:
            raise ResultsError(f"{name}: cases.{case_id}: {type(err).__name__}: {err}") from None
    return Reference(metrics_from_json(obj.get("metrics", {}), name), tuple(cases), name)


def load_reference(path: str | os.PathLike[str]) -> Reference:
    """Read a baseline or a results file."""
    return reference_from_json(read_json(path, "baseline or results"), str(path))
