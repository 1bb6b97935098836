"""History runs priced at a price table, as `replaygate eval` keeps it in a run's info."""

from __future__ import annotations

from typing import Any

from replaygate.evals.history import HistoryRun
from replaygate.evals.reference import CaseSummary

MODEL = "claude-sonnet-4-5"


def price_table(
    currency: str, source: str, rates: tuple[float, float], as_of: str | None = None
) -> Any:
    """A kept price table pricing :data:`MODEL` at ``rates`` (input, output)."""
    prices = {"input": rates[0], "output": rates[1]}
    return {"source": source, "currency": currency, "as_of": as_of, "models": {MODEL: prices}}


USD = price_table("USD", "replaygate/evals/data/prices.toml", (3.0, 15.0), "2026-01-15")
JPY = price_table("JPY", "jpy.toml", (450.0, 2250.0))


def priced_run(day: int, cost: float, prices: Any, **metrics: float) -> HistoryRun:
    """A run on November ``day`` of one case, its own recording, costing ``cost`` (and
    ``cost_total`` ten times it) at ``prices``."""
    return HistoryRun(
        f"r{day}",
        f"2026-11-{day:02}T10:00:00Z",
        None,
        {"cost": cost, "cost_total": 10 * cost, **metrics},
        (CaseSummary("case-0", 5, 4, 5),),
        info={"model": MODEL, "prices": prices},
        answers={"case-0": f"answers of day {day}"},
    )
