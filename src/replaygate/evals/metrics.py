"""The metrics an eval run reports, and how each one is compared.

A metric is a share in [0, 1] (compared in absolute points: a drop of 0.02 is two
percentage points) or an amount (cost, steps, tokens: compared relative to the
baseline, so a rise of 0.10 is ten percent). ``better`` says which way is good.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

Scale = Literal["share", "amount"]
Direction = Literal["higher", "lower"]


@dataclass(frozen=True)
class Metric:
    """One reported metric: its name, what it means, its scale and its good direction."""

    name: str
    description: str
    scale: Scale
    better: Direction

    def format(self, value: float | None) -> str:
        """``value`` for a table: shares with three decimals, amounts with four digits."""
        if value is None:
            return "n/a"
        if self.scale == "share":
            return f"{value:.3f}"
        return f"{value:.4g}"


METRICS: dict[str, Metric] = {
    m.name: m
    for m in (
        Metric("success", "share of cases whose sampled verdict is pass", "share", "higher"),
        Metric(
            "citation_precision",
            "cited doc ids that were expected, over all cited ids",
            "share",
            "higher",
        ),
        Metric(
            "citation_recall",
            "expected doc ids that were cited, over all expected ids",
            "share",
            "higher",
        ),
        Metric(
            "fabricated",
            "citations of documents the agent never fetched, over all citations",
            "share",
            "lower",
        ),
        Metric("cost", "mean cost of one agent run, from the price table", "amount", "lower"),
        Metric("cost_total", "cost of every run of every case", "amount", "lower"),
        Metric("tokens", "mean input plus output tokens of one agent run", "amount", "lower"),
        Metric(
            "steps", "mean trace steps (tool calls and the answer) of one run", "amount", "lower"
        ),
    )
}
"""Every metric, in report order."""

ALIASES: dict[str, tuple[str, ...]] = {"citation": ("citation_precision", "citation_recall")}
"""Short names that stand for several metrics in limits (``--max-drop citation=0.05``)."""


def metric(name: str) -> Metric:
    """The metric called ``name``; KeyError lists the known ones."""
    try:
        return METRICS[name]
    except KeyError:
        known = ", ".join([*METRICS, *ALIASES])
        raise KeyError(f"unknown metric {name!r}; known: {known}") from None


def check_limit_names(limits: Mapping[str, float]) -> list[str]:
    """The names in ``limits`` that are neither a metric nor an alias."""
    return [name for name in limits if name not in METRICS and name not in ALIASES]
