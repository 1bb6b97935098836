"""Which runs' costs the report compares: those priced alike with the latest priced run.

A cost is tokens times a price: costs priced in two currencies, or at two prices of the
model, are two numbers that no trend or plot may compare, as the gate refuses to
(:mod:`~replaygate.evals.price_check`). Each run keeps the table that priced it in
``info["prices"]``; the costs (``cost``, ``cost_total``) compared are those of the runs
priced alike with the latest run that has a cost, as the gate tells them
(:func:`~replaygate.evals.price_check.kept_price_difference`: the currency, and the
price of each run's model, in both tables). The others are left out of the signals and
the plots, and named with the prices that priced them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from replaygate.evals.gate import PRICED
from replaygate.evals.history import HistoryRun
from replaygate.evals.price_check import (
    kept_price_difference,
    price_words,
    table_kept,
    table_words,
)
from replaygate.report.evidence import plural


def _priced(run: HistoryRun) -> bool:
    """Whether ``run`` has a cost."""
    return any(run.metrics.get(name) is not None for name in PRICED)


def latest_priced(runs: Sequence[HistoryRun]) -> HistoryRun | None:
    """The latest of ``runs`` that has a cost: its prices are the ones compared."""
    return next((run for run in reversed(runs) if _priced(run)), None)


def priced_apart(runs: Sequence[HistoryRun], reference: HistoryRun | None) -> list[HistoryRun]:
    """The runs of ``runs`` with a cost not priced alike with ``reference``'s (none when
    ``reference`` is None): another currency or another price of a model, or prices not
    shown to be alike (a run that names no model, a table without its model's price)."""
    if reference is None:
        return []
    return [run for run in runs if _priced(run) and not _alike(run, reference)]


def _alike(run: HistoryRun, reference: HistoryRun) -> bool:
    if run is reference:
        return True
    difference = kept_price_difference(run.info, reference.info)
    return difference is None or difference.compared


def pricing(info: Mapping[str, Any]) -> str:
    """The prices a run was priced at, as its ``info`` keeps them, after ``priced at``."""
    table = table_kept(info)
    if table is None:
        return "a price table it does not keep"
    model = info.get("model")
    if not isinstance(model, str):
        return f"{table.get('currency')} ({table_words(table)}), for a model it does not name"
    if not isinstance(table["models"].get(model), Mapping):
        return f"{table.get('currency')} ({table_words(table)}), which has no price for {model}"
    return price_words(table, model)


def currency(run: HistoryRun | None) -> str | None:
    """The currency of the table that priced ``run``, or None when it keeps none."""
    table = table_kept(run.info) if run is not None else None
    named = table.get("currency") if table is not None else None
    return named if isinstance(named, str) and named else None


def apart_words(apart: Sequence[HistoryRun]) -> list[str]:
    """What :func:`priced_apart` left out, one line per set of prices: ``the costs of 3
    runs priced at USD 3.0 in, 15.0 out ..., the latest at T``."""
    by_prices: dict[str, list[HistoryRun]] = {}
    for run in apart:
        by_prices.setdefault(pricing(run.info), []).append(run)
    return [
        f"the costs of {plural(len(runs), 'run')} priced at {prices}, the latest at {runs[-1].time}"
        for prices, runs in by_prices.items()
    ]
