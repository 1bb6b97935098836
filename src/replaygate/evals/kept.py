"""What a baseline keeps beside its case summaries, and reading it from either side.

A baseline written by ``baseline update`` keeps each case's counts (the sums its
metrics come from, and whether the case opted out of cost) and, in ``source``, the
run's model and the prices that priced it (a reference's ``counts`` and ``about``). A
results file holds both already. The gate reads them through :func:`case_counts` and
:func:`run_about`, so it can compare the metrics over the cases both sides hold, see a
case newly opted out of cost, and refuse to compare costs of two price tables.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from replaygate.evals.metrics import check_agreement
from replaygate.evals.scorers import CaseCounts, metrics_of
from replaygate.jsonfields import agree, within

if TYPE_CHECKING:
    from replaygate.evals.reference import CaseSummary, Reference


def case_counts(reference: Reference) -> Mapping[str, CaseCounts]:
    """The counts of each case of ``reference`` that it holds (every case of a results
    file; those a baseline keeps)."""
    if reference.run is not None:
        return {case.id: case.counts for case in reference.run.cases}
    return reference.counts


def run_about(reference: Reference) -> Mapping[str, Any]:
    """What ``reference`` says of the run it was made of (model, prices, ...)."""
    if reference.run is not None:
        return reference.run.info
    return reference.about


def kept_counts(
    cases_obj: Mapping[str, Any], cases: Sequence[CaseSummary], metrics: Mapping[str, Any]
) -> dict[str, CaseCounts]:
    """The ``counts`` of each case of a baseline's ``cases`` object that has them, each
    agreeing with its case (samples, verdict); when every case has them, the baseline's
    ``metrics`` must be theirs. A :class:`~replaygate.jsondoc.FieldError` names the field."""
    counts: dict[str, CaseCounts] = {}
    for summary in cases:
        obj = cases_obj[summary.case]
        if "counts" not in obj:
            continue
        with within(f"cases.{summary.case}"):
            kept = CaseCounts.from_json(obj["counts"])
            with within("counts"):
                agree(obj["counts"], "samples", summary.samples, "its samples")
                agree(obj["counts"], "passed", summary.verdict == "pass", "its verdict")
        counts[summary.case] = kept
    if counts and len(counts) == len(cases):
        with within("metrics"):
            check_agreement(metrics, metrics_of(list(counts.values())), "its cases' counts")
    return counts
