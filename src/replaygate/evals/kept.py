"""What a baseline keeps beside its case summaries, and reading it from either side.

A baseline written by ``baseline update`` keeps each case's counts (the sums its
metrics come from, and whether the case opted out of cost) and, in ``source``, the
run's model and the prices that priced it (a reference's ``counts`` and ``about``,
read with the baseline: :func:`~replaygate.evals.reference.reference_from_json`). A
results file holds both already. The gate reads them through :func:`case_counts` and
:func:`run_about`, so it can compare the metrics over the cases both sides hold, see a
case newly opted out of cost, and refuse to compare costs of two price tables.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from replaygate.evals.reference import Reference
from replaygate.evals.scorers import CaseCounts


def case_counts(reference: Reference) -> Mapping[str, CaseCounts]:
    """The counts of each case of ``reference`` that it holds (every case of a results
    file but one read without them, as in a plain sampling results file; those a
    baseline keeps)."""
    if reference.run is not None:
        return {case.id: case.counts for case in reference.run.cases if case.counts_known}
    return reference.counts


def run_about(reference: Reference) -> Mapping[str, Any]:
    """What ``reference`` says of the run it was made of (model, prices, ...)."""
    if reference.run is not None:
        return reference.run.info
    return reference.about
