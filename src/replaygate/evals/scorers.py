"""Scorers: success, citation precision and recall, fabricated citations, cost, steps.

Each case is reduced to :class:`CaseCounts` (sums over its samples); the run's
metrics are ratios of the summed counts (micro averages), so a case with more
samples weighs more in the citation metrics, and cost and steps are per run:

- ``success``: share of cases whose sampled verdict is ``pass``;
- ``citation_precision``: cited ids that were expected / all cited ids, and
  ``citation_recall``: expected ids cited / all expected ids (cases with
  ``expected_doc_ids`` only; a sample that raised cited nothing);
- ``fabricated``: citations of documents the run never fetched / all citations (every
  id compared in NFKC form, the fetched ones too);
- ``cost``: tokens times the price table, per run (``cost_total`` for all runs), over
  the cases that did not opt out (``"cost": false``, kept as ``cost_skipped``); a
  model without a price is a :class:`~replaygate.evals.errors.PriceError`;
  ``tokens`` and ``steps`` per run.

A metric with nothing to measure (no citation at all, no price table, every case
opted out of cost) is ``None``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import asdict, dataclass
from typing import Any

from replaygate.assertions.citations import citation_id
from replaygate.evals.cases import EvalCase
from replaygate.evals.metrics import METRICS
from replaygate.evals.prices import PriceTable
from replaygate.jsondoc import FieldError, got
from replaygate.jsonfields import count, flag, join, mapping, optional_number, within
from replaygate.sampling import SampledResult

Metrics = dict[str, float | None]


@dataclass(frozen=True)
class CaseCounts:
    """Sums over one case's samples, from which every metric is computed."""

    samples: int
    passed: bool
    runs: int = 0
    scored: bool = False
    cited: int = 0
    correct: int = 0
    expected: int = 0
    fabricated: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    steps: int = 0
    cost: float | None = None
    cost_skipped: bool = False

    def to_json(self) -> dict[str, Any]:
        """The stored JSON object."""
        return asdict(self)

    @staticmethod
    def from_json(obj: Mapping[str, Any]) -> CaseCounts:
        """The inverse of :meth:`to_json`, as strict: a count that is not a whole number
        (5.7 is not cut to 5), a flag that is not true or false, or a cost that is not a
        number is a :class:`~replaygate.jsondoc.FieldError` naming ``counts.<field>``."""
        with within("counts"):
            mapping(obj)
            optional: dict[str, Any] = {k: count(obj, k, 0) for k in _INT_FIELDS if k in obj}
            optional.update({k: flag(obj, k) for k in ("scored", "cost_skipped") if k in obj})
            return CaseCounts(
                samples=count(obj, "samples", 0),
                passed=flag(obj, "passed"),
                cost=optional_number(obj, "cost", 0),
                **optional,
            )


_INT_FIELDS = (
    "runs",
    "cited",
    "correct",
    "expected",
    "fabricated",
    "input_tokens",
    "output_tokens",
    "steps",
)


SUMMED = ("runs", "cited", "fabricated", "input_tokens", "output_tokens", "steps")
"""The counts a case's sample outputs give by themselves (:class:`OutputSums`)."""


@dataclass(frozen=True)
class OutputSums:
    """What the outputs of one case's samples add up to: the runs (samples whose output is
    an object), their cited ids and those of documents they never fetched, their tokens
    and steps; and the ids each run cited, from which ``correct`` follows once the ids the
    case expects are known (a results file does not keep them)."""

    runs: int = 0
    cited: int = 0
    fabricated: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    steps: int = 0
    citations: tuple[frozenset[str], ...] = ()

    def correct(self, expected: AbstractSet[str]) -> int:
        """The ids of ``expected`` cited, over every run."""
        return sum(len(ids & expected) for ids in self.citations)

    def most_correct(self, expected: int) -> int:
        """The most ``correct`` can be for a case expecting ``expected`` ids: each run
        cites at most that many of them, and at most every id it cites."""
        return sum(min(len(ids), expected) for ids in self.citations)


def output_sums(sampled: SampledResult) -> OutputSums:
    """Sum the outputs of ``sampled``'s samples (an output that is no object, of a sample
    that raised, is no run and cites nothing), every id in NFKC form. A field missing from
    an output counts as none; one that is not what an eval writes (a count that is not a
    whole number, ids that are no list of strings) is a
    :class:`~replaygate.jsondoc.FieldError` naming ``sample_results[i].output.<field>``."""
    runs = cited = fabricated = tokens_in = tokens_out = steps = 0
    citations: list[frozenset[str]] = []
    for position, sample in enumerate(sampled.samples):
        output = sample.output
        if not isinstance(output, Mapping):
            continue
        try:  # no context manager per sample: a results file is read on every gate
            ids = _ids(output, "citations")
            fetched = _ids(output, "fetched")
            tokens_in += _whole(output, "input_tokens")
            tokens_out += _whole(output, "output_tokens")
            steps += _whole(output, "steps")
        except FieldError as err:
            at = join(f"sample_results[{position}].output", err.field)
            raise FieldError(at, str(err)) from None
        runs += 1
        cited += len(ids)
        fabricated += len(ids - fetched)
        citations.append(ids)
    return OutputSums(runs, cited, fabricated, tokens_in, tokens_out, steps, tuple(citations))


def _ids(output: Mapping[str, Any], field: str) -> frozenset[str]:
    """The ids of ``output[field]`` (none when missing), each in NFKC form."""
    # ids compared in one form (NFKC), as cited ids are read and expected ones taken:
    # a fetched "doc-cafe\u0301" is the "doc-caf\u00e9" its answer cites
    value = output.get(field, ())
    if not isinstance(value, list | tuple) or not all(isinstance(i, str) for i in value):
        raise FieldError(
            field, f"must be a list of strings, as an eval writes it, got {got(value)}"
        )
    return frozenset(map(citation_id, value))


def _whole(output: Mapping[str, Any], field: str) -> int:
    """``output[field]`` (0 when missing), a whole number of at least 0."""
    value = output.get(field, 0)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise FieldError(
            field, f"must be a whole number of at least 0, as an eval writes it, got {got(value)}"
        )
    return value


def score_case(
    case: EvalCase, sampled: SampledResult, prices: PriceTable | None, model: str
) -> CaseCounts:
    """Sum ``case``'s samples (:func:`output_sums`): citations against expected and
    fetched ids, tokens, cost.

    Raises :class:`~replaygate.evals.errors.PriceError` when ``prices`` has no price
    for ``model`` and the case did not opt out of cost.
    """
    expected = set(map(citation_id, case.expected_doc_ids))
    sums = output_sums(sampled)
    return CaseCounts(
        samples=sampled.n,
        passed=sampled.verdict == "pass",
        runs=sums.runs,
        scored=bool(expected),
        cited=sums.cited,
        correct=sums.correct(expected),
        expected=len(expected) * sampled.n,
        fabricated=sums.fabricated,
        input_tokens=sums.input_tokens,
        output_tokens=sums.output_tokens,
        steps=sums.steps,
        cost=prices.required_cost(model, sums.input_tokens, sums.output_tokens)
        if prices is not None and case.cost
        else None,
        cost_skipped=not case.cost,
    )


def _ratio(numerator: float, denominator: float) -> float | None:
    return numerator / denominator if denominator else None


def metrics_of(counts: Sequence[CaseCounts]) -> Metrics:
    """The run's metrics from its cases' counts (keys in :data:`METRICS` order)."""
    scored = [c for c in counts if c.scored]
    runs = sum(c.runs for c in counts)
    priced = [c for c in counts if not c.cost_skipped]
    costs = [c.cost for c in priced if c.cost is not None]
    # fsum: correctly rounded, so every Python gives the same total (3.12's sum compensates)
    cost_total = math.fsum(costs) if priced and len(costs) == len(priced) else None
    cited = sum(c.cited for c in counts)
    values: Metrics = {
        "success": _ratio(sum(c.passed for c in counts), len(counts)),
        "citation_precision": _ratio(sum(c.correct for c in scored), sum(c.cited for c in scored)),
        "citation_recall": _ratio(sum(c.correct for c in scored), sum(c.expected for c in scored)),
        "fabricated": _ratio(sum(c.fabricated for c in counts), cited),
        "cost": None if cost_total is None else _ratio(cost_total, sum(c.runs for c in priced)),
        "cost_total": cost_total,
        "tokens": _ratio(sum(c.input_tokens + c.output_tokens for c in counts), runs),
        "steps": _ratio(sum(c.steps for c in counts), runs),
    }
    return {name: values[name] for name in METRICS}
