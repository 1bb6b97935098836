"""Whether the costs of a baseline and of a run were priced at one price table.

A cost is tokens times a price: a cheaper entry in ``[tool.replaygate.prices]`` or a
``--prices`` file lowers every cost the gate compares, and would hide a rise of the
tokens. Results keep the table that priced them (``eval.prices``, its ``models``
too), a baseline keeps it in ``source.prices`` (both read, and their shape checked,
with the file: :func:`~replaygate.evals.prices.kept_prices`). The gate compares the
currency and the price of the run's model (and the baseline's) in both. Costs it
cannot show were priced alike (results that keep no table or name no model, a model
one table has no price for) are not compared, as costs of two tables are not; a
baseline written before it kept its prices is only noted.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from replaygate.evals.kept import run_about
from replaygate.evals.reference import Reference

TAKE_IN = (
    "if the prices changed, take them into the baseline with `replaygate baseline update "
    "--reason ...`"
)
"""What to do when the baseline's prices are not the results'."""
GATE_WRITTEN = "gate the results file `replaygate eval --out FILE` writes, which keeps them"
"""What to do when the results keep too little to tell their prices."""


@dataclass(frozen=True)
class PriceDifference:
    """What the gate says of the two tables: ``compared`` False when the costs are not
    compared (priced differently, or not shown to be priced alike), True when they are
    but the baseline does not say which prices it used."""

    text: str
    compared: bool


def table_kept(about: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The price table ``about`` keeps in ``prices`` (with its ``models``), or None."""
    prices = about.get("prices")
    if isinstance(prices, Mapping) and isinstance(prices.get("models"), Mapping):
        return prices
    return None


def table_words(table: Mapping[str, Any]) -> str:
    """Where ``table`` came from, and as of when."""
    as_of = f", as of {table['as_of']}" if table.get("as_of") else ""
    return f"{table.get('source')}{as_of}"


def price_words(table: Mapping[str, Any], model: str) -> str:
    """``model``'s price in a kept ``table`` (which has one), in words: ``USD 3.0 in, 15.0
    out per million tokens for claude-sonnet-4-6 (prices.toml, as of 2026-01-15)``."""
    price = table["models"][model]
    rates = f"{price.get('input')} in, {price.get('output')} out per million tokens"
    return f"{table.get('currency')} {rates} for {model} ({table_words(table)})"


def _not_compared(why: str, what_to_do: str = TAKE_IN) -> PriceDifference:
    return PriceDifference(
        f"cost: {why}: costs of two price tables are not compared; {what_to_do}", False
    )


def price_difference(baseline: Reference, now: Reference) -> PriceDifference | None:
    """How the prices of ``baseline`` and ``now`` differ, or None when they are one (or
    when neither side keeps a table, as references built in Python without one: nothing
    tells two tables apart)."""
    return kept_price_difference(run_about(baseline), run_about(now))


def kept_price_difference(
    old_about: Mapping[str, Any], new_about: Mapping[str, Any]
) -> PriceDifference | None:
    """How the prices kept by two runs differ (what each says of its run: a baseline's
    ``source``, a results file's ``eval``, a history run's ``info``, with its ``model``
    and ``prices``), ``old_about`` the one compared with ``new_about``: None when they
    were priced alike, a :class:`PriceDifference` whose ``compared`` says whether their
    costs are compared all the same (only ``old_about`` keeps no table)."""
    old, new = table_kept(old_about), table_kept(new_about)
    model = new_about.get("model")
    if old is None and new is None:
        return None
    if new is None:
        return _not_compared(
            "the results do not keep the prices they were priced at (eval.prices), so "
            "whether they are the baseline's cannot be told",
            GATE_WRITTEN,
        )
    if old is None:
        return PriceDifference(
            "cost: the baseline does not keep the prices it was priced at, so a change of "
            "prices would read as a change of cost (`replaygate baseline update` keeps them)",
            True,
        )
    if not isinstance(model, str):
        return _not_compared(
            "the results do not name the model they ran (eval.model), so which of the "
            "prices priced them cannot be told",
            GATE_WRITTEN,
        )
    models = [m for m in (model, old_about.get("model")) if isinstance(m, str)]
    for each in dict.fromkeys(models):
        difference = _model_difference(old, new, each)
        if difference is not None:
            return difference
    return None


def _model_difference(
    old: Mapping[str, Any], new: Mapping[str, Any], model: str
) -> PriceDifference | None:
    """How ``model``'s price differs in the tables ``old`` (the baseline's) and ``new``."""
    for side, table in (("baseline's", old), ("results'", new)):
        if model not in table["models"]:
            return _not_compared(
                f"the {side} price table ({table_words(table)}) has no price for {model}, so "
                "whether both were priced alike cannot be told"
            )
    rates = old["models"][model], new["models"][model]
    if old.get("currency") != new.get("currency") or rates[0] != rates[1]:
        return _not_compared(
            f"the baseline was priced at {price_words(old, model)}, the results at "
            f"{price_words(new, model)}"
        )
    return None
