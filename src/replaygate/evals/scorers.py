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

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from replaygate.assertions.citations import citation_id
from replaygate.evals.cases import EvalCase
from replaygate.evals.metrics import METRICS
from replaygate.evals.prices import PriceTable
from replaygate.jsonfields import count, flag, mapping, optional_number, within
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


def score_case(
    case: EvalCase, sampled: SampledResult, prices: PriceTable | None, model: str
) -> CaseCounts:
    """Sum ``case``'s samples: citations against expected and fetched ids, tokens, cost.

    Raises :class:`~replaygate.evals.errors.PriceError` when ``prices`` has no price
    for ``model`` and the case did not opt out of cost.
    """
    expected = set(map(citation_id, case.expected_doc_ids))
    runs = cited = correct = fabricated = tokens_in = tokens_out = steps = 0
    for sample in sampled.samples:
        output = sample.output
        if not isinstance(output, Mapping):
            continue
        runs += 1
        # ids compared in one form (NFKC), as cited ids are read and expected ones taken:
        # a fetched "doc-cafe\u0301" is the "doc-caf\u00e9" its answer cites
        citations = set(map(citation_id, output.get("citations", ())))
        fetched = set(map(citation_id, output.get("fetched", ())))
        cited += len(citations)
        correct += len(citations & expected)
        fabricated += len(citations - fetched)
        tokens_in += int(output.get("input_tokens", 0))
        tokens_out += int(output.get("output_tokens", 0))
        steps += int(output.get("steps", 0))
    return CaseCounts(
        samples=sampled.n,
        passed=sampled.verdict == "pass",
        runs=runs,
        scored=bool(expected),
        cited=cited,
        correct=correct,
        expected=len(expected) * sampled.n,
        fabricated=fabricated,
        input_tokens=tokens_in,
        output_tokens=tokens_out,
        steps=steps,
        cost=prices.required_cost(model, tokens_in, tokens_out)
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
    cost_total = sum(costs) if priced and len(costs) == len(priced) else None
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
