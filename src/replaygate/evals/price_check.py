"""Whether the costs of a baseline and of a run were priced at one price table.

A cost is tokens times a price: a cheaper entry in ``[tool.replaygate.prices]`` or a
``--prices`` file lowers every cost the gate compares, and would hide a rise of the
tokens. Results keep the table that priced them (``eval.prices``, its ``models``
too), a baseline keeps it in ``source.prices``. The gate compares the currency and the
price of the run's model (and the baseline's) in both.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from replaygate.evals.kept import run_about
from replaygate.evals.reference import Reference


@dataclass(frozen=True)
class PriceDifference:
    """What the gate says of the two tables: ``differ`` when they priced differently,
    else the baseline does not say which prices it used."""

    text: str
    differ: bool


def _table(about: Mapping[str, Any]) -> Mapping[str, Any] | None:
    prices = about.get("prices")
    if isinstance(prices, Mapping) and isinstance(prices.get("models"), Mapping):
        return prices
    return None


def _shown(table: Mapping[str, Any], model: str) -> str:
    price = table["models"].get(model)
    rates = (
        f"{price.get('input')} in, {price.get('output')} out per million tokens"
        if isinstance(price, Mapping)
        else "no price"
    )
    as_of = f", as of {table['as_of']}" if table.get("as_of") else ""
    return f"{table.get('currency')} {rates} for {model} ({table.get('source')}{as_of})"


def price_difference(baseline: Reference, now: Reference) -> PriceDifference | None:
    """How the prices of ``baseline`` and ``now`` differ, or None when they are one."""
    old_about, new_about = run_about(baseline), run_about(now)
    old, new = _table(old_about), _table(new_about)
    if new is None or not old_about:  # a reference that says nothing of its run
        return None
    if old is None:
        return PriceDifference(
            "cost: the baseline does not keep the prices it was priced at, so a change of "
            "prices would read as a change of cost (`replaygate baseline update` keeps them)",
            False,
        )
    models = [m for m in (new_about.get("model"), old_about.get("model")) if isinstance(m, str)]
    for model in dict.fromkeys(models):
        rates = old["models"].get(model), new["models"].get(model)
        if old.get("currency") != new.get("currency") or (
            None not in rates and len(set(map(str, rates))) > 1
        ):
            return PriceDifference(
                f"cost: the baseline was priced at {_shown(old, model)}, the results at "
                f"{_shown(new, model)}: costs of two price tables are not compared; if the "
                "prices changed, take them into the baseline with `replaygate baseline "
                "update --reason ...`",
                True,
            )
    return None
