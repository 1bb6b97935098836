"""The metrics an eval run reports, and how each one is compared.

A metric is a share in [0, 1] (compared in absolute points: a drop of 0.02 is two
percentage points) or an amount (cost, steps, tokens: compared relative to the
baseline, so a rise of 0.10 is ten percent). ``better`` says which way is good.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from replaygate.digits import a_decimal
from replaygate.jsondoc import FieldError, got
from replaygate.jsonfields import agree, mapping, present

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
        """``value`` for a table: shares with three decimals, amounts with four significant
        digits, those that round to 10,000 or more whole with thousands separated (12,345
        tokens, not 1.234e+04; 9,999.6 as 10,000, not 1e+04)."""
        if value is None:
            return "n/a"
        if self.scale == "share":
            return f"{value:.3f}"
        shown = f"{value:.4g}"
        if math.isfinite(value) and abs(float(shown)) >= 10_000:
            return f"{value:,.0f}"
        return shown


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


MAX_AMOUNT = 1e15
"""The largest amount a metric may hold: beyond any real cost, token or step count, and
within what the report can plot."""


def every_metric(metrics: Mapping[str, Any], held_by: str) -> None:
    """Refuse (:class:`FieldError` naming it) a metric of :data:`METRICS` that ``metrics``
    lacks: an eval measures each (null when it measured none), so ``held_by`` (every run,
    every results file) holds each, and one without was emptied by hand."""
    for name in METRICS:
        present(metrics, name, f"a number, or null when the run measured none, as in {held_by}")


def check_metrics(value: Any) -> dict[str, float | None]:
    """A ``metrics`` object: known metrics, each null or a number in its range (a share
    from 0 to 1, an amount from 0 to :data:`MAX_AMOUNT`); else :class:`FieldError`."""
    checked: dict[str, float | None] = {}
    for name, number in mapping(value).items():
        if name not in METRICS:
            raise FieldError(name, f"is not a metric (known: {', '.join(METRICS)})")
        top = 1.0 if METRICS[name].scale == "share" else MAX_AMOUNT
        is_number = isinstance(number, int | float) and not isinstance(number, bool)
        if number is not None and not (is_number and 0 <= number <= top):
            bound = f"from 0 to {top:,.0f}"
            raise FieldError(name, f"must be null or a number {bound}, got {got(number)}")
        checked[name] = None if number is None else float(number)
    return checked


def check_agreement(
    stored: Mapping[str, Any], computed: Mapping[str, float | None], source: str
) -> None:
    """Refuse ``stored`` metrics unless each of ``computed`` is there, as ``source`` give it."""
    for name, value in computed.items():
        if name not in stored:
            raise FieldError(name, f"is missing; {source} give {got(value)}")
        agree(stored, name, value, source)


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


def known_metrics(name: str) -> str:
    """What to write for a limit's ``name``, one :func:`check_limit_names` found: the
    metric it is close to (``sucess``: did you mean success?) and the known names."""
    known = [*METRICS, *ALIASES]
    close = difflib.get_close_matches(name, known, n=1)
    hint = f"did you mean {close[0]}? " if close else ""
    return f"{hint}known: {', '.join(known)}"


def percent_limit(name: str, text: str) -> float:
    """The limit ``text`` (``10%``, the form the gate's table prints an amount's limit in)
    of the metric (or alias) ``name`` as a fraction: 0.10. A share's limit is in points,
    so ``2%`` given for one is refused: it could mean two points or two percent of the
    baseline. The number is written in the digits 0-9. ValueError says what is wrong."""
    number = text.strip().removesuffix("%").strip()
    if _shares(name):
        raise ValueError(
            f"{text.strip()!r}: {name} is a share, whose limit is in points, written as a "
            f"fraction ({name}=0.02 allows two points); a percentage is for an amount "
            "(cost=10%)"
        )
    if not a_decimal(number):  # float() reads '１0' and '1_0' too
        raise ValueError(
            f"{text.strip()!r} is not a number nor a percentage written in the digits 0-9"
        )
    return float(number) / 100


def _shares(name: str) -> bool:
    """Whether the metric ``name`` (or each metric of the alias ``name``) is a share."""
    targets = ALIASES.get(name, (name,))
    return any(t in METRICS and METRICS[t].scale == "share" for t in targets)


def share_limit_problem(name: str, limit: float) -> str | None:
    """Why ``limit`` cannot be the limit of the metric (or alias) ``name``: a share's
    limit is in points from 0 to 1, so ``success=2`` (meant as two points, read as 200)
    could never fail. ``inf`` is no limit, for a share too. None when it can be."""
    if not _shares(name) or limit <= 1 or limit == math.inf:
        return None
    return (
        f"{name} is a share, whose limit is in points from 0 to 1, written as a fraction "
        f"({name}=0.02 allows two points), got {limit:g}"
    )


def expand_limits(limits: Mapping[str, float]) -> dict[str, float]:
    """Limits by metric name, aliases expanded (an explicit metric wins over its alias)."""
    expanded: dict[str, float] = {}
    for name, value in limits.items():
        for target in ALIASES.get(name, ()):
            expanded.setdefault(target, value)
    expanded.update((name, value) for name, value in limits.items() if name in METRICS)
    return expanded
