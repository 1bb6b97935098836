"""The report's plots, drawn by matplotlib and returned as inline SVG.

Each SVG gets a ``<title>``, ``role="img"`` and ids prefixed so that several plots
can share one page. Text stays text (``svg.fonttype = none``) and no date is
embedded, so the same data gives the same SVG.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Mapping, Sequence
from functools import wraps
from typing import TYPE_CHECKING, Any, ParamSpec

from replaygate.evals.metrics import METRICS
from replaygate.extras import require

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

SHARES = ("success", "citation_precision", "citation_recall", "fabricated")
AMOUNTS = (("cost", "cost per run"), ("steps", "steps per run"))
_RC: Any = {"svg.fonttype": "none", "svg.hashsalt": "replaygate", "font.size": 9.0}
P = ParamSpec("P")


def _styled(draw: Callable[P, str]) -> Callable[P, str]:
    """Run ``draw`` under the report's matplotlib settings (nothing global is changed)."""

    @wraps(draw)
    def styled(*args: P.args, **kwargs: P.kwargs) -> str:
        matplotlib = require("matplotlib", "report", "the report's charts")
        with matplotlib.rc_context(_RC):
            return draw(*args, **kwargs)

    return styled


def _figure(width: float, height: float) -> Figure:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def to_svg(figure: Figure, *, title: str, prefix: str) -> str:
    """``figure`` as an inline ``<svg>`` element with ``title`` and unique ids."""
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None})
    svg = buffer.getvalue()
    svg = svg[svg.index("<svg") :]
    svg = re.sub(r"<metadata>.*?</metadata>\s*", "", svg, flags=re.DOTALL)
    svg = re.sub(r'\bid="([^"]+)"', rf'id="{prefix}-\1"', svg)
    svg = re.sub(r"url\(#([^)]+)\)", rf"url(#{prefix}-\1)", svg)
    svg = re.sub(r'href="#([^"]+)"', rf'href="#{prefix}-\1"', svg)
    escaped = title.replace("&", "&amp;").replace("<", "&lt;")
    svg = re.sub(
        r"<svg\b([^>]*)>",
        rf'<svg\1 role="img" aria-labelledby="{prefix}-title" class="plot">'
        rf'<title id="{prefix}-title">{escaped}</title>',
        svg,
        count=1,
    )
    return svg


def _empty(ax: Axes, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, color="#666")
    ax.set_xticks([])
    ax.set_yticks([])


def _run_axis(ax: Axes, labels: Sequence[str]) -> None:
    step = max(1, len(labels) // 8)
    ticks = list(range(0, len(labels), step))
    ax.set_xticks(ticks, [labels[i] for i in ticks], rotation=30, ha="right")


def _points(values: Sequence[float | None]) -> tuple[list[int], list[float]]:
    xs = [i for i, v in enumerate(values) if v is not None]
    return xs, [float(v) for v in values if v is not None]


@_styled
def metrics_plot(series: Mapping[str, Sequence[float | None]], labels: Sequence[str]) -> str:
    """Shares, cost and steps per run over the runs of the history."""
    figure = _figure(9.0, 3.2)
    axes = figure.subplots(1, 3)
    shares, *amounts = axes
    shares.set_title("shares")
    for name in SHARES:
        xs, ys = _points(series.get(name, []))
        if ys:
            shares.plot(xs, ys, marker="o", label=name.replace("_", " "))
    shares.set_ylim(-0.02, 1.02)
    if shares.lines:
        shares.legend(fontsize=7, loc="lower left")
    for ax, (name, label) in zip(amounts, AMOUNTS, strict=True):
        ax.set_title(label)
        xs, ys = _points(series.get(name, []))
        if ys:
            ax.plot(xs, ys, marker="o", color="#b5651d")
    for ax in axes:
        if ax.lines:
            _run_axis(ax, labels)
        else:
            _empty(ax, "no runs yet")
    return to_svg(figure, title="Metrics over time", prefix="metrics")


@_styled
def weekly_plot(weeks: Sequence[str], rates: Mapping[str, Sequence[float | None]]) -> str:
    """The pass rate of each assertion, week by week."""
    figure = _figure(9.0, 3.0)
    ax = figure.subplots()
    ax.set_title("weekly pass rate per assertion")
    for name, values in sorted(rates.items()):
        xs, ys = _points(values)
        if ys:
            ax.plot(xs, ys, marker="o", label=name)
    if ax.lines:
        ax.set_xticks(range(len(weeks)), list(weeks))
        ax.set_ylim(-0.02, 1.02)
        ax.set_ylabel("passes / samples")
        ax.legend(fontsize=7, loc="lower left")
    else:
        _empty(ax, "no runs yet")
    return to_svg(figure, title="Weekly pass rate per assertion", prefix="weekly")


@_styled
def ages_plot(days: Sequence[float], undated: int) -> str:
    """A histogram of fixture ages in days."""
    figure = _figure(9.0, 2.8)
    ax = figure.subplots()
    title = "fixture age (days since recorded_at)"
    if undated:
        title += f"; {undated} without a date"
    ax.set_title(title)
    if days:
        top = max(days)
        bins: Any = min(30, max(1, int(top) + 1))
        ax.hist(list(days), bins=bins, range=(0.0, max(1.0, top + 0.5)), color="#4c72b0")
        ax.set_xlabel("days")
        ax.set_ylabel("fixtures")
    else:
        _empty(ax, "no dated fixtures")
    return to_svg(figure, title="Fixture age histogram", prefix="ages")


def metric_label(name: str) -> str:
    """A metric's description for the report."""
    info = METRICS.get(name)
    return info.description if info else name
