"""The values written beside the points of few runs, read from the SVG the report inlines:
each one whole, none over another or over a point of another value, all inside their axes;
and a run without a value breaks its line, said under the plot."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence

import pytest

from extras import needs_matplotlib
from replaygate.evals.metrics import METRICS
from replaygate.report.plots import metrics_plot, weekly_plot

pytestmark = [pytest.mark.slow, needs_matplotlib]

SVG = "{http://www.w3.org/2000/svg}"
Box = tuple[float, float, float, float]


def _box(d: str) -> Box:
    numbers = [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?", d)]
    xs, ys = numbers[0::2], numbers[1::2]
    return min(xs), min(ys), max(xs), max(ys)


def _overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def axes_of(svg: str) -> list[tuple[Box, list[tuple[Box, str]], list[tuple[float, float]]]]:
    """Per axes of ``svg``: its frame, its value labels (white box and text) and the
    centres of its points."""
    root = ET.fromstring(svg)
    found = []
    for axes in root.iter(f"{SVG}g"):
        if not re.search(r"-axes_\d+$", axes.get("id", "")):
            continue
        background = axes.find(f"{SVG}g/{SVG}path")
        assert background is not None
        labels = []
        for group in axes.iter(f"{SVG}g"):
            backing, text = group.find(f"{SVG}g/{SVG}path"), group.find(f"{SVG}text")
            if re.search(r"-text_\d+$", group.get("id", "")) and backing is not None:
                assert text is not None and "#ffffff" in backing.get("style", "")
                labels.append((_box(backing.get("d", "")), text.text or ""))
        points = [(float(u.get("x", 0)), float(u.get("y", 0))) for u in axes.iter(f"{SVG}use")]
        found.append((_box(background.get("d", "")), labels, points))
    return found


def check_labels(svg: str, series: Sequence[Mapping[str, Sequence[float | None]]]) -> None:
    """Each axes' labels lie inside it, cover no other label, and each reads a whole value
    of its series, the latest of each among them; ``series`` lists each axes' series with
    their formatter's metric name as key."""
    drawn = axes_of(svg)
    for (frame, labels, points), values in zip(drawn, series, strict=True):
        shown = {
            METRICS[name].format(v) for name, vs in values.items() for v in vs if v is not None
        }
        latest = {METRICS[name].format(vs[-1]) for name, vs in values.items() if vs[-1] is not None}
        texts = [text for _, text in labels]
        assert set(texts) <= shown, (texts, shown)  # whole values, none cut or run together
        assert latest <= set(texts), (latest, texts)
        for index, (box, text) in enumerate(labels):
            assert frame[0] <= box[0] and box[2] <= frame[2], (text, box, frame)
            assert frame[1] <= box[1] and box[3] <= frame[3], (text, box, frame)
            for other, other_text in labels[index + 1 :]:
                assert not _overlap(box, other), (text, other_text)
        assert points


# The trial's report: 8 replays of one recording, its values the same in every run.
STABLE = {
    "success": [0.8888888] * 8,
    "citation_precision": [1.0] * 8,
    "citation_recall": [0.7777777] * 8,
    "fabricated": [0.0] * 8,
    "cost": [0.004362] * 8,
    "steps": [3.296] * 8,
}
# 7 runs: three costs alike, then changes; an outlier run of success, recovered.
CHANGING = {
    "success": [1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0],
    "citation_precision": [1.0, 1.0, 0.95, 0.95, 1.0, 0.0, 1.0],
    "cost": [0.0003134, 0.0003134, 0.0003134, 0.0004, 0.0003134, 0.0005, 0.0005],
    "steps": [3.0, 3.5, 4.0, 4.5, 5.0, 5.5, 6.0],
}


@pytest.mark.parametrize("series", [STABLE, CHANGING], ids=["stable", "changing"])
def test_each_value_label_is_whole_inside_its_axes_and_clear_of_the_others(
    series: dict[str, list[float]],
) -> None:
    # 8 runs ~18.6 points apart, labels ~40 wide: the cost row read 0.00<0.00<...0.004362
    svg = metrics_plot(series, [f"12-05 09:54:{i:02}" for i in range(len(series["success"]))])
    shares = {k: v for k, v in series.items() if k not in ("cost", "steps")}
    check_labels(svg, [shares, {"cost": series["cost"]}, {"steps": series["steps"]}])


def test_a_stable_value_is_written_where_its_line_starts_and_ends() -> None:
    svg = metrics_plot({"success": [0.5] * 8, "cost": [0.004362] * 8}, [str(i) for i in range(8)])
    (_, shares, _), (_, cost, _), _ = axes_of(svg)
    assert [text for _, text in shares] == ["0.500", "0.500"]
    assert [text for _, text in cost] == ["0.004362", "0.004362"]


def test_no_label_covers_a_point_of_another_value() -> None:
    # a label beside its point may cover its own line's next point of the same value, at
    # its own height; one over a point at another height hides another value
    for _, labels, points in axes_of(metrics_plot(CHANGING, [str(i) for i in range(7)])):
        for box, text in labels:
            middle = (box[1] + box[3]) / 2
            for x, y in points:
                if box[0] - 3 < x < box[2] + 3 and box[1] - 3 < y < box[3] + 3:
                    assert abs(y - middle) < 1, (text, box, (x, y))


def test_the_weekly_labels_are_whole_and_clear_of_each_other() -> None:
    rates = {f"a{i}": [0.5, 0.5 + i / 50, 0.9 - i / 40, 0.6] for i in range(5)}
    svg = weekly_plot(["W1", "W2", "W3", "W4"], rates)
    ((frame, labels, _),) = axes_of(svg)
    shown = {f"{v:.0%}" for values in rates.values() for v in values}
    assert labels and {text for _, text in labels} <= shown
    for index, (box, _) in enumerate(labels):
        assert frame[0] <= box[0] and box[2] <= frame[2]
        assert not any(_overlap(box, other) for other, _ in labels[index + 1 :])


def test_a_run_without_a_cost_breaks_the_line_and_the_plot_says_so() -> None:
    # the line was drawn straight across the runs of no cost, as if they had one
    cost = [0.004, 0.004, None, None, 0.005, 0.005]
    svg = metrics_plot({"success": [1.0] * 6, "cost": cost}, [str(i) for i in range(6)])
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    assert "no cost in 2 of 6 runs:" in texts and "the line breaks there" in texts
    root = ET.fromstring(svg)
    lines = [
        p.get("d", "")
        for g in root.iter(f"{SVG}g")
        if re.search(r"-line2d_\d+$", g.get("id", ""))
        for p in g.iter(f"{SVG}path")
        if "#b5651d" in p.get("style", "") and "fill: none" in p.get("style", "")
    ]
    (cost_line,) = lines
    assert cost_line.count("M") == 2  # two pieces: the runs before the gap and after it
    assert "no success" not in " ".join(texts)


def test_costs_priced_at_other_prices_are_left_out_of_the_plot_and_said_so() -> None:
    # USD and JPY costs were drawn on one axis: 0.0042 and 0.676 as one line
    cost = [0.0042, 0.0042, None, 0.676, 0.676]
    apart = [True, True, False, False, False]
    svg = metrics_plot({"success": [1.0] * 5, "cost": cost}, [str(i) for i in range(5)], apart)
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    assert "no cost in 1 of 5 runs," in texts and "cost of 2 of 5 runs left out:" in texts
    assert "priced at other prices (named above):" in texts and "the line breaks there" in texts
    assert "0.0042" not in texts and "0.676" in texts
