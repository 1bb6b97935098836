"""The report's plots, drawn by matplotlib and returned as inline SVG.

Each SVG gets a ``<title>``, ``role="img"`` and ids prefixed so that several plots
can share one page. Text stays text (``svg.fonttype = none``) and no date is
embedded, so the same data gives the same SVG. With fewer than :data:`FEW` points
each point is drawn large and values are written beside them (where a line starts, ends
and changes: :func:`_label`), so one or three runs read as numbers rather than as a flat
line. A run without a value breaks its line, and the plot says so (:func:`_gaps`).

The axes are placed once per figure by :func:`_lay_out`, from the measured extent of
their titles, tick labels, axis labels and legends, so that nothing is cut at the
figure's edge. Their ticks do not depend on their size (run axes list their ticks, value
axes ask for at most :data:`VALUE_TICKS`), so one measurement is the final one; matplotlib's
constrained layout measured every figure twice and drew it once more before saving it.
"""

from __future__ import annotations

import io
import logging
import math
import re
import warnings
from collections.abc import Callable, Mapping, Sequence
from functools import wraps
from itertools import zip_longest
from types import ModuleType
from typing import TYPE_CHECKING, Any, ParamSpec

from replaygate.evals.gate import PRICED
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
UNMEASURED = {
    "shares": "no share measured\nin these runs",
    "cost": "no cost measured in these runs\n(run without a price table)",
    "steps": "no steps counted\nin these runs",
}
"""What a plot of the metrics says where its runs hold no value of it."""
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
    """Run ``draw`` under the report's matplotlib settings (nothing global is changed).

    A character its fonts lack (an emoji in a name) is not warned of: the browser draws
    the SVG's text in fonts of its own (``svg.fonttype: none``), matplotlib only measures
    it, and it warned on stderr once per drawing step."""

    @wraps(draw)
    def styled(*args: P.args, **kwargs: P.kwargs) -> str:
        matplotlib = _matplotlib()
        with matplotlib.rc_context(_RC), warnings.catch_warnings():
            warnings.filterwarnings("ignore", r"Glyph \d+ .* missing from font", UserWarning)
            return draw(*args, **kwargs)

    return styled


def _matplotlib() -> ModuleType:
    """matplotlib, imported without the two lines it warns on stderr where the home
    folder cannot be written (a read-only or shared ``HOME``: it keeps its settings and
    font cache in a temporary folder then, which a report drawn once does not miss)."""
    logger = logging.getLogger("matplotlib")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        return require("matplotlib", "report", "drawing the report's charts")
    finally:
        logger.setLevel(level)


DPI = 72
"""Points per inch: the SVG's own, so text measured for the layout is the text drawn."""
PAD = 6.0
"""Points between any text and the figure's edge, and between two axes' texts."""
VALUE_TICKS = 7
"""At most this many intervals between the ticks of a value axis, whatever its height."""


def _figure(width: float, height: float) -> Figure:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), dpi=DPI)


def _value_axis(ax: Axes) -> None:
    """Ticks of the value (y) axis chosen from its limits alone, never from its height."""
    from matplotlib.ticker import MaxNLocator  # matplotlib is there: @_styled

    ax.yaxis.set_major_locator(MaxNLocator(VALUE_TICKS, steps=[1, 2, 2.5, 5, 10]))


def _renderer(figure: Figure) -> Any:
    """A renderer that measures text as the saved SVG draws it."""
    from matplotlib.backends.backend_svg import RendererSVG

    width, height = figure.get_size_inches() * DPI
    return RendererSVG(width, height, io.StringIO(), image_dpi=DPI)  # type: ignore[no-untyped-call]


def _lay_out(figure: Figure, legend: Any = None, under: Axes | None = None) -> None:
    """Place the figure's axes, side by side in one row, so that each one's titles, tick
    labels and axis labels (its measured extent past its frame) stay inside the figure and
    clear of its neighbour's, the axes equally wide. ``legend`` goes under the axes
    ``under``, or under all of them, centred, when ``under`` is None."""
    renderer = _renderer(figure)
    axes = figure.axes
    width, height = figure.get_size_inches() * DPI
    frames = [ax.get_window_extent(renderer) for ax in axes]
    boxes = [ax.get_tightbbox(renderer) or frame for ax, frame in zip(axes, frames, strict=True)]
    left = [frame.x0 - box.x0 for frame, box in zip(frames, boxes, strict=True)]
    right = [box.x1 - frame.x1 for frame, box in zip(frames, boxes, strict=True)]
    below = [frame.y0 - box.y0 for frame, box in zip(frames, boxes, strict=True)]
    top = max(box.y1 - frame.y1 for frame, box in zip(frames, boxes, strict=True)) + PAD
    gaps = [right[i] + left[i + 1] + PAD for i in range(len(axes) - 1)]
    bottom = max(below) + PAD
    extent = legend.get_window_extent(renderer) if legend is not None else None
    if extent is not None:
        ticks = below[axes.index(under)] if under is not None else max(below)
        bottom = max(bottom, ticks + PAD / 2 + extent.height + PAD)
    x = left[0] + PAD
    each = (width - x - right[-1] - PAD - sum(gaps)) / len(axes)
    tall = height - bottom - top
    for index, ax in enumerate(axes):
        ax.set_position((x / width, bottom / height, each / width, tall / height))
        x += each + (gaps[index] if index < len(gaps) else 0.0)
        _keep_title(ax)
    if extent is None:
        return
    if under is None:
        legend.set_bbox_to_anchor((0.5, PAD / height), transform=figure.transFigure)
        return
    frame = under.get_position()  # centred under it, as far as the figure's edges allow
    half = (extent.width / 2 + PAD) / width
    middle = min(max((frame.x0 + frame.x1) / 2, half), 1 - half)
    anchor = (middle, (bottom - below[axes.index(under)] - PAD / 2) / height)
    legend.set_bbox_to_anchor(anchor, transform=figure.transFigure)


def _keep_title(ax: Axes) -> None:
    """Keep the title of ``ax`` where it was measured (:func:`_lay_out`), its baseline a pad
    above the frame, unless the value axis writes an offset there (``1e6``), which may push
    it up: else matplotlib works out its place again as it draws the axes, measuring the
    value axis's ticks once more for that offset (a sixth of the CPU of saving the figure).
    Nothing else moves it: the run axis's ticks are under the frame."""
    title = ax.get_title()
    if title and not ax.yaxis.offsetText.get_text():
        ax.set_title(title, y=1.0)


def to_svg(figure: Figure, *, title: str, prefix: str) -> str:
    """``figure`` as an inline ``<svg>`` element with ``title`` and unique ids, the rule of
    its style that names every element (``*``) kept to its own."""
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None})
    svg = buffer.getvalue()
    svg = svg[svg.index("<svg") :]
    svg = re.sub(r"<metadata>.*?</metadata>\s*", "", svg, flags=re.DOTALL)
    svg = re.sub(r'\bid="([^"]+)"', rf'id="{prefix}-\1"', svg)
    svg = re.sub(r"url\(#([^)]+)\)", rf"url(#{prefix}-\1)", svg)
    svg = re.sub(r'href="#([^"]+)"', rf'href="#{prefix}-\1"', svg)
    svg = re.sub(r"(<style[^>]*>)\s*\*\s*\{", r"\1svg.plot * {", svg)  # not the page's
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


def _draw(
    ax: Axes, values: Sequence[float | None], *, few: bool, series: int = 0, **style: Any
) -> None:
    """One series: a line through its points, broken where a run has no value (``None``);
    with ``few`` points in the plot, large points drawn so that several series on the same
    value stay visible (each smaller than the last)."""
    if any(v is not None for v in values):
        size = max(3.0, 9.0 - 1.5 * series) if few else 4.0
        ys = [math.nan if v is None else float(v) for v in values]
        ax.plot(range(len(values)), ys, marker="o", markersize=size, **style)


def _gaps(
    ax: Axes, series: Mapping[str, Sequence[float | None]], apart: Sequence[bool] = ()
) -> None:
    """Say under ``ax`` which of its drawn ``series`` lack a value in some runs, one per
    line: their lines break there, and a gap alone could pass for runs not shown. The
    runs flagged in ``apart`` had a value, left out: priced at other prices."""
    said: list[str] = []
    broken = 0  # the series whose line breaks
    for name, values in series.items():
        if not any(v is not None for v in values):
            continue
        before = len(said)
        shown = name.replace("_", " ")
        flagged = [index < len(apart) and apart[index] for index in range(len(values))]
        missing = sum(v is None and not out for v, out in zip(values, flagged, strict=True))
        if missing:
            said.append(f"no {shown} in {missing} of {len(values)} runs")
        if any(flagged):
            said.append(
                f"{shown} of {sum(flagged)} of {len(values)} runs left out:\n"
                "priced at other prices (named above)"
            )
        broken += len(said) > before
    if said:
        breaks = "the line breaks there" if broken == 1 else "their lines break there"
        ax.set_xlabel(",\n".join(said) + f":\n{breaks}", fontsize=7, color="#555")


def _above_zero(ax: Axes) -> None:
    """Keep the value axis of an amount (a cost, steps: never below 0) from reading below
    0: the margin under its points, which made a cost of 0 read as lying between -0.075 and
    0.075, is cut to a tenth of the axis's height above 0, short of any tick below 0."""
    low, high = ax.get_ylim()
    if ax.lines and low < 0 <= min(y for line in ax.lines for _, y in _line_points(line)):
        ax.set_ylim(-0.1 * high, high)


def _line_points(line: Line2D) -> list[tuple[float, float]]:
    """The points of ``line`` that hold a value (a gap is NaN)."""
    xs: Any = line.get_xdata()
    ys: Any = line.get_ydata()
    return [(float(x), float(y)) for x, y in zip(xs, ys, strict=True) if not math.isnan(y)]


LABEL_GAP = 2.0
"""Points between a value's label and the edge of its point."""
LABEL_PAD = 0.15
"""The white box around a label, as a fraction of its font size."""
LABELLED_LINES = 6
"""Lines past which no value is written beside its point: the labels of that many lines
at one point pile up over each other."""


def _label(ax: Axes, fmt: Callable[[float], str], *, few: bool) -> None:
    """With ``few`` points in the plot (fewer than :data:`FEW`) and at most
    :data:`LABELLED_LINES` lines, write values beside their points; call it once the axes
    are laid out (:func:`_lay_out`).

    A line's value is written at its first and last point and where it changes (as
    written), the latest first; a value that several lines share at a point is written
    once (in gray). A label goes below its point in the upper half of the axes and above it
    in the lower half, else on the other side, else beside it, shifted along to stay
    inside the axes; where each place would cover a label already written, or a point of
    another value, it is left out: no label is ever drawn over another, so none reads as a
    number cut short. Labels are backed in white so that a line behind them does not strike
    them through.
    """
    from matplotlib.colors import to_hex

    if not few or not ax.lines or len(ax.lines) > LABELLED_LINES:
        return
    wanted: dict[tuple[float, str], tuple[float, set[str]]] = {}
    points: list[tuple[Any, float, str]] = []  # each point: where it is drawn, its radius, value
    for line in ax.lines:
        drawn = _line_points(line)
        texts = [fmt(y) for _, y in drawn]
        for index, ((x, y), text) in enumerate(zip(drawn, texts, strict=True)):
            points.append((ax.transData.transform((x, y)), line.get_markersize() / 2, text))
            if index in (0, len(drawn) - 1) or text != texts[index - 1]:
                wanted.setdefault((x, text), (y, set()))[1].add(to_hex(line.get_color()))
    renderer = _renderer(ax.figure)  # type: ignore[arg-type]
    frame = ax.get_window_extent(renderer).padded(-1.0)  # clear of the frame's line
    low, high = ax.get_ylim()
    right_end = max(x for x, _ in wanted)
    reach = max(radius for _, radius, _ in points) + LABEL_GAP
    placed: list[Any] = []
    for (x, text), (y, colors) in sorted(
        wanted.items(), key=lambda item: (-item[0][0], -item[1][0])
    ):
        label = ax.annotate(
            text,
            (x, y),
            xytext=(0.0, 0.0),
            textcoords="offset points",
            va="center",
            fontsize=7,
            color=colors.pop() if len(colors) == 1 else "#333333",
            bbox={"boxstyle": f"round,pad={LABEL_PAD}", "facecolor": "white", "edgecolor": "none"},
            annotation_clip=False,
        )
        vertical = (-1, 1) if y > (low + high) / 2 else (1, -1)
        beside = (-1, 1) if x == right_end else (1, -1)
        places = [("center", 0, side) for side in vertical] + [
            ("right" if side < 0 else "left", side, 0) for side in beside
        ]
        for align, across, up in places:
            box = _placed(label, align, across * reach, up, reach, renderer, frame)
            clear = box is not None and not any(box.overlaps(other) for other in placed)
            if clear and not any(_covers(box, p, r) for p, r, value in points if value != text):
                placed.append(box)
                break
        else:
            label.remove()


def _placed(
    label: Any, align: str, dx: float, up: int, reach: float, renderer: Any, frame: Any
) -> Any:
    """Put ``label`` ``dx`` points beside its point, or ``up`` (1 or -1) over or under it
    by ``reach`` and half its height, shifted along to stay inside ``frame``; its box (with
    its white backing), or None where it cannot stay inside."""
    label.set_horizontalalignment(align)
    label.xyann = (dx, 0.0)
    pad = LABEL_PAD * label.get_fontsize()
    box = label.get_window_extent(renderer).padded(pad)
    dy = up * (reach + box.height / 2)
    shift = max(0.0, frame.x0 - box.x0) - max(0.0, box.x1 - frame.x1) if up else 0.0
    label.xyann = (dx + shift, dy)
    box = label.get_window_extent(renderer).padded(pad)
    inside = frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1
    return box if inside else None


def _covers(box: Any, point: Any, radius: float) -> bool:
    """Whether ``box`` covers part of the point drawn at ``point`` with ``radius``."""
    x, y = point
    return bool(
        box.x0 < x + radius and x - radius < box.x1 and box.y0 < y + radius and y - radius < box.y1
    )


@_styled
def metrics_plot(
    series: Mapping[str, Sequence[float | None]],
    labels: Sequence[str],
    priced_apart: Sequence[bool] = (),
) -> str:
    """Shares, cost and steps per run over the runs of the history. The costs of the runs
    flagged in ``priced_apart`` (priced at other prices than the costs compared:
    :mod:`replaygate.report.costs`) are left out, and the plot says so under it."""
    figure = _figure(9.0, 3.2)
    axes = figure.subplots(1, 3)
    shares, *amounts = axes
    shares.set_title("shares")
    drawn = [name for name in SHARES if any(v is not None for v in series.get(name, []))]
    few = len(labels) < FEW
    for index, name in enumerate(drawn):
        _draw(shares, series[name], few=few, series=index, label=name.replace("_", " "))
    shares.set_ylim(-0.12, 1.12)
    _gaps(shares, {name: series[name] for name in drawn})
    legend = None
    if shares.lines:  # under the shares' run labels, placed by _lay_out
        legend = figure.legend(
            handles=shares.lines,
            fontsize=7,
            loc="upper center",
            ncols=2,
            frameon=False,
            borderaxespad=0,
        )
    for ax, (name, label) in zip(amounts, AMOUNTS, strict=True):
        ax.set_title(label)
        apart = priced_apart if name in PRICED and any(priced_apart) else ()
        values = [None if out else v for v, out in zip_longest(series.get(name, []), apart)]
        _draw(ax, values, few=few, color="#b5651d")
        ax.margins(y=0.3)
        _above_zero(ax)
        _gaps(ax, {name: values}, apart)
    for ax, name in zip(axes, ["shares", *(name for name, _ in AMOUNTS)], strict=True):
        if ax.lines:
            _run_axis(ax, labels)
            _value_axis(ax)
        else:
            _empty(ax, UNMEASURED[name] if labels else "no runs yet")
    _lay_out(figure, legend, under=shares)
    for ax, name in zip(axes, ["success", *(name for name, _ in AMOUNTS)], strict=True):
        _label(ax, METRICS[name].format, few=few)
    return to_svg(figure, title="Metrics over time", prefix="metrics")


LEGEND_MOST = 48
"""Assertions named in the weekly plot's legend; past these it says how many more there are."""
LEGEND_COLUMNS = 3


@_styled
def weekly_plot(weeks: Sequence[str], rates: Mapping[str, Sequence[float | None]]) -> str:
    """The pass rate of each assertion, week by week.

    The legend sits under the plot, in as many columns (up to :data:`LEGEND_COLUMNS`) as
    fit the figure's width, and the figure grows with it, so many assertions (or long
    names, cut at :data:`LEGEND_LONGEST`) never squeeze the plot away.
    """
    drawn = [
        (name, values)
        for name, values in sorted(rates.items())
        if any(v is not None for v in values)
    ]
    names = [visible(cut(name, LEGEND_LONGEST)) for name, _ in drawn[:LEGEND_MOST]]
    if len(drawn) > LEGEND_MOST:
        names.append(f"and {len(drawn) - LEGEND_MOST} more assertions")
    figure = _figure(9.0, 3.0)
    ax = figure.subplots()
    ax.set_title("weekly pass rate per assertion")
    ran = sum(any(v[week] is not None for _, v in drawn) for week in range(len(weeks)))
    few = ran < FEW  # the weeks with samples: a week without runs is no point
    for index, (_, values) in enumerate(drawn):
        _draw(ax, values, few=few, series=index)
    legend = None
    if ax.lines:
        _run_axis(ax, weeks, most=12)
        ax.set_ylim(-0.12, 1.12)
        _value_axis(ax)
        ax.set_ylabel("passes / samples")
        handles: list[Any] = list(ax.lines[:LEGEND_MOST])
        if len(drawn) > LEGEND_MOST:
            from matplotlib.lines import Line2D

            handles.append(Line2D([], [], linestyle="none"))
        legend = _legend_below(figure, handles, names)
    else:
        _empty(ax, "no runs yet")
    _lay_out(figure, legend)
    _label(ax, "{:.0%}".format, few=few)
    return to_svg(figure, title="Weekly pass rate per assertion", prefix="weekly")


def _legend_below(figure: Figure, handles: list[Any], names: list[str]) -> Any:
    """A legend of ``names`` in the most columns (up to :data:`LEGEND_COLUMNS`, one up to 4
    names) that fit the figure's width; the figure grows by its height."""
    renderer = _renderer(figure)
    width, height = figure.get_size_inches()
    for columns in range(1 if len(names) <= 4 else LEGEND_COLUMNS, 0, -1):
        # Labels given with their lines: one that starts with "_" is shown as well.
        legend = figure.legend(
            handles, names, fontsize=7, loc="lower center", ncols=columns, borderaxespad=0
        )
        extent = legend.get_window_extent(renderer)
        if columns == 1 or extent.width <= width * DPI - 2 * PAD:
            break
        legend.remove()
    figure.set_size_inches(width, height + (extent.height + PAD) / DPI)
    return legend


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
    _lay_out(figure)
    return to_svg(figure, title="Fixture age histogram", prefix="ages")


def metric_label(name: str) -> str:
    """A metric's description for the report."""
    info = METRICS.get(name)
    return info.description if info else name
