"""The report's plots, drawn by matplotlib and returned as inline SVG.

Each SVG gets a ``<title>``, ``role="img"`` and ids prefixed so that several plots
can share one page. Text stays text (``svg.fonttype = none``) and no date is
embedded, so the same data gives the same SVG. With fewer than :data:`FEW` points
each point is drawn large with its value written beside it, so one or three runs
read as numbers rather than as a flat line.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Callable, Mapping, Sequence
from functools import wraps
from typing import TYPE_CHECKING, Any, ParamSpec

from replaygate.evals.metrics import METRICS
from replaygate.extras import require
from replaygate.report.words import cut, visible

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

SHARES = ("success", "citation_precision", "citation_recall", "fabricated")
FEW = 10
"""Fewer points than this are labelled with their values."""
AMOUNTS = (("cost", "cost per run"), ("steps", "steps per run"))
_RC: Any = {
    "svg.fonttype": "none",
    "svg.hashsalt": "replaygate",
    "font.size": 9.0,
    "text.parse_math": False,  # a name holding $...$ is drawn as written, never as a formula
}
LEGEND_LONGEST = 60
"""Characters of an assertion's name shown in a legend; a longer one is cut there."""
P = ParamSpec("P")


def _styled(draw: Callable[P, str]) -> Callable[P, str]:
    """Run ``draw`` under the report's matplotlib settings (nothing global is changed)."""

    @wraps(draw)
    def styled(*args: P.args, **kwargs: P.kwargs) -> str:
        matplotlib = require("matplotlib", "report", "drawing the report's charts")
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


def _run_axis(ax: Axes, labels: Sequence[str], most: int = 6) -> None:
    """Label the x axis with at most ``most`` of ``labels``, evenly spaced: they stay
    readable however many runs or weeks there are."""
    step = max(1, math.ceil(len(labels) / most))
    ticks = list(range(0, len(labels), step))
    ax.set_xticks(ticks, [labels[i] for i in ticks], rotation=30, ha="right")
    ax.set_xlim(-0.5, max(len(labels) - 0.5, 0.5))


def _draw(ax: Axes, values: Sequence[float | None], *, series: int = 0, **style: Any) -> None:
    """One series: a line through its points; with few points, large points drawn so
    that several series on the same value stay visible (each smaller than the last)."""
    xs, ys = _points(values)
    if ys:
        few = len(values) < FEW
        size = max(3.0, 9.0 - 1.5 * series) if few else 4.0
        ax.plot(xs, ys, marker="o", markersize=size, **style)


def _line_points(line: Line2D) -> list[tuple[float, float]]:
    xs: Any = line.get_xdata()
    ys: Any = line.get_ydata()
    return [(float(x), float(y)) for x, y in zip(xs, ys, strict=True)]


LABEL_STEP = 0.08
"""Distance of a label from its point, and the least distance between two labels, as a
fraction of the axis height."""


def _label(ax: Axes, fmt: Callable[[float], str]) -> None:
    """With fewer than :data:`FEW` points per line, write each value beside its point.

    A value that several lines share at a point is written once (in gray). A label
    goes below its point in the upper half of the axes and above it in the lower
    half; where that would cover another point or a label already placed at the same
    x it takes the other side, and where both would, it goes beside the point. Labels are backed
    in white so that a line behind them does not strike them through.
    """
    from matplotlib.colors import to_hex

    lines = [(_line_points(line), to_hex(line.get_color())) for line in ax.lines]
    if not lines or any(len(points) >= FEW for points, _ in lines):
        return
    found: dict[tuple[float, str], tuple[float, set[str]]] = {}
    for points, color in lines:
        for x, y in points:
            found.setdefault((x, fmt(y)), (y, set()))[1].add(color)
    low, high = ax.get_ylim()
    step = LABEL_STEP * (high - low)
    taken: dict[float, list[float]] = {}  # per x, the heights of its points and labels
    for x, _ in found:
        taken[x] = [y for (other, _), (y, _) in found.items() if other == x]
    right_end = max(taken)
    for (x, text), (y, colors) in sorted(found.items(), key=lambda item: -item[1][0]):
        color = colors.pop() if len(colors) == 1 else "#333333"
        backing = {"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "none"}
        style: dict[str, Any] = {"fontsize": 7, "color": color, "bbox": backing}
        sides = (-1, 1) if y > (low + high) / 2 else (1, -1)
        placed = taken[x]
        for side in sides:
            center = y + side * step
            if low < center < high and all(abs(center - o) >= step * 0.99 for o in placed):
                placed.append(center)
                ax.text(x, center, text, ha="center", va="center", **style)
                break
        else:  # beside the point, on the side that stays inside the axes
            last = x == right_end
            ax.annotate(
                text,
                (x, y),
                xytext=(-8 if last else 8, 0),
                textcoords="offset points",
                ha="right" if last else "left",
                va="center",
                **style,
            )


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
    drawn = [name for name in SHARES if any(v is not None for v in series.get(name, []))]
    for index, name in enumerate(drawn):
        _draw(shares, series[name], series=index, label=name.replace("_", " "))
    shares.set_ylim(-0.12, 1.12)
    _label(shares, METRICS["success"].format)
    if shares.lines:
        shares.legend(
            fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.3), ncol=2, frameon=False
        )
    for ax, (name, label) in zip(amounts, AMOUNTS, strict=True):
        ax.set_title(label)
        _draw(ax, series.get(name, []), color="#b5651d")
        ax.margins(y=0.3)
        _label(ax, METRICS[name].format)
    for ax in axes:
        if ax.lines:
            _run_axis(ax, labels)
        else:
            _empty(ax, "no runs yet")
    return to_svg(figure, title="Metrics over time", prefix="metrics")


LEGEND_MOST = 48
"""Assertions named in the weekly plot's legend; past these it says how many more there are."""
LEGEND_COLUMNS = 3


@_styled
def weekly_plot(weeks: Sequence[str], rates: Mapping[str, Sequence[float | None]]) -> str:
    """The pass rate of each assertion, week by week.

    The legend sits under the plot, in columns, and the figure grows with it, so many
    assertions (or long names, cut at :data:`LEGEND_LONGEST`) never squeeze the plot away.
    """
    drawn = [
        (name, values)
        for name, values in sorted(rates.items())
        if any(v is not None for v in values)
    ]
    names = [visible(cut(name, LEGEND_LONGEST)) for name, _ in drawn[:LEGEND_MOST]]
    if len(drawn) > LEGEND_MOST:
        names.append(f"and {len(drawn) - LEGEND_MOST} more assertions")
    columns = 1 if len(names) <= 4 else LEGEND_COLUMNS
    rows = math.ceil(len(names) / columns)
    figure = _figure(9.0, 3.0 + 0.16 * rows)
    ax = figure.subplots()
    ax.set_title("weekly pass rate per assertion")
    for index, (_, values) in enumerate(drawn):
        _draw(ax, values, series=index)
    if ax.lines:
        _run_axis(ax, weeks, most=12)
        ax.set_ylim(-0.12, 1.12)
        _label(ax, "{:.0%}".format)
        ax.set_ylabel("passes / samples")
        handles: list[Any] = list(ax.lines[:LEGEND_MOST])
        if len(drawn) > LEGEND_MOST:
            from matplotlib.lines import Line2D

            handles.append(Line2D([], [], linestyle="none"))
        # Labels given with their lines: one that starts with "_" is shown as well.
        figure.legend(handles, names, fontsize=7, loc="outside lower center", ncols=columns)
    else:
        _empty(ax, "no runs yet")
    return to_svg(figure, title="Weekly pass rate per assertion", prefix="weekly")


@_styled
def ages_plot(days: Sequence[float], undated: int, future: int = 0) -> str:
    """A histogram of fixture ages in days (``undated`` and ``future`` fixtures, dated
    later than now, are counted in the title)."""
    figure = _figure(9.0, 2.8)
    ax = figure.subplots()
    title = "fixture age (days since recorded_at)"
    if undated:
        title += f"; {undated} without a date"
    if future:
        title += f"; {future} dated later than now"
    ax.set_title(title)
    if days:
        top = max(days)
        bins: Any = min(30, max(1, int(top) + 1))
        ax.hist(list(days), bins=bins, range=(0.0, max(1.0, top + 0.5)), color="#4c72b0")
        from matplotlib.ticker import MaxNLocator  # matplotlib is there: @_styled

        for axis in (ax.xaxis, ax.yaxis):  # whole days and whole fixtures, never 0.2 of one
            axis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("days")
        ax.set_ylabel("fixtures")
    else:
        _empty(ax, "no dated fixtures")
    return to_svg(figure, title="Fixture age histogram", prefix="ages")


def metric_label(name: str) -> str:
    """A metric's description for the report."""
    info = METRICS.get(name)
    return info.description if info else name
