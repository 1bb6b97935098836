"""The HTML report: self-contained, with its three plots, tables and maintenance signals."""

from __future__ import annotations

import os
import re
import sqlite3
import sys
import warnings
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from click.testing import CliRunner

from counted_outputs import run_output
from extras import needs_matplotlib
from forked_cli import Forker
from read_only_sqlite import make_sqlite_read_only
from replaygate.assertions.kinds import Outcome
from replaygate.cli.history_cmds import report_cmd
from replaygate.errors import MissingExtraError
from replaygate.evals import (
    CaseResult,
    EvalResults,
    History,
    HistoryError,
    ReportConfig,
)
from replaygate.evals.history import HistoryRun
from replaygate.evals.scorers import CaseCounts
from replaygate.fixtures.fixture import Fixture
from replaygate.fixtures.store import FixtureStore
from replaygate.report import (
    build_report,
    find_signals,
    fixture_ages,
    weekly_pass_rates,
    write_report,
)
from replaygate.report.evidence import distinct_runs
from replaygate.report.page import SCOPE, run_labels
from replaygate.report.plots import LABELLED_LINES, ages_plot, metrics_plot, weekly_plot
from replaygate.report.words import assertion_words
from replaygate.sampling import AssertionStats, SampledResult, SampleResult
from unplotted_reports import unplotted  # noqa: F401  (a pytest fixture)

if TYPE_CHECKING:
    from matplotlib.figure import Figure

# Each test renders the report with matplotlib: end to end.
pytestmark = [pytest.mark.slow, needs_matplotlib]

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def run(
    time: str, citations: int, success_cases: int, cost: float, answer: str = ""
) -> EvalResults:
    """An eval run; its answers (hence its recording) differ with ``answer`` or ``time``.

    Case 0 passes ``citations`` of 5 samples (it passes with 4), the others 5; the cases
    past those ``success_cases`` asks to pass are blocked by a ``grounded`` check."""
    cases = []
    passing_others = success_cases - (citations >= 4)
    for index in range(4):
        passes = citations if index == 0 else 5
        grounded = (Outcome("grounded", "gate", False, "", None, "custom"),)
        samples = tuple(
            SampleResult(
                i,
                (
                    Outcome("contains", "gate", True, "", 1.0, "contains"),
                    Outcome("citations", "gate", i < passes, "", None, "set"),
                    *(grounded if index > passing_others else ()),
                ),
                run_output(
                    answer or f"answer of {time}",
                    cited=["doc-a"] if i < passes else [],
                    fetched=["doc-a"],
                    input_tokens=100,
                    output_tokens=10,
                    steps=3,
                ),
            )
            for i in range(5)
        )
        sampled = SampledResult(f"case-{index}", 5, 4, samples)
        ok = sampled.verdict == "pass"
        counts = CaseCounts(5, ok, 5, True, passes, passes, 5, 0, 500, 50, 15, cost)
        cases.append(CaseResult(sampled, counts))
    return EvalResults(tuple(cases), {"time": time, "commit": "0123456789abcdef"})


WEEKS = [
    ("2026-11-02T09:00:00Z", 4, 4, 0.010),
    ("2026-11-09T09:00:00Z", 4, 4, 0.011),
    ("2026-11-16T09:00:00Z", 3, 3, 0.012),
    ("2026-11-23T09:00:00Z", 4, 2, 0.013),
    ("2026-11-24T09:00:00Z", 3, 1, 0.014),
]


def write_history(path: Path) -> Path:
    """A history of the :data:`WEEKS` runs at ``path``."""
    with History.open(path) as opened:
        for time, citations, success, cost in WEEKS:
            opened.append(run(time, citations, success, cost))
    return path


@pytest.fixture
def history(tmp_path: Path) -> Path:
    return write_history(tmp_path / "history.db")


@pytest.fixture(scope="module")
def shared_history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A :data:`WEEKS` history the module's tests only read."""
    return write_history(tmp_path_factory.mktemp("shared") / "history.db")


def write_store(path: Path) -> Path:
    """A store of three fixtures: recorded 1 and 30 days before :data:`NOW`, and undated."""
    with FixtureStore.open(path) as opened:
        for day, recorded in enumerate(["2026-11-29T12:00:00Z", "2026-10-31T12:00:00Z", None]):
            meta = {"recorded_at": recorded} if recorded else {"source": "hand"}
            request = {
                "model": "m",
                "max_tokens": 1,
                "messages": [{"role": "user", "content": f"{day}"}],
            }
            opened.put(Fixture.create(request, [{"text": "x"}], meta))
    return path


@pytest.fixture
def store(tmp_path: Path) -> Path:
    return write_store(tmp_path / "fixtures.jsonl")


@pytest.fixture(scope="module")
def written(shared_history: Path) -> Path:
    """The report of :func:`shared_history` and a :func:`write_store` store, written once
    for the tests that only read it (its plots take about a second to draw)."""
    folder = shared_history.parent
    store = write_store(folder / "fixtures.jsonl")
    return write_report(
        folder / "out" / "report.html", history=shared_history, stores=[store], now=NOW
    )


@pytest.fixture(scope="module")
def page(written: Path) -> str:
    return written.read_text(encoding="utf-8")


def test_the_report_is_one_self_contained_file(page: str) -> None:
    assert page.startswith("<!doctype html>")
    assert "<script" not in page
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?!#|data:)[a-z]+:""", page, re.I)
    assert not re.search(r"url\((?!#)", page)
    assert "<link" not in page and "@import" not in page
    assert page.count("<svg") == 3
    for title in ("Metrics over time", "Weekly pass rate per assertion", "Fixture age histogram"):
        assert re.search(rf'<title id="[a-z]+-title">{title}</title>', page)
    ids = re.findall(r'\bid="([^"]+)"', page)
    assert len(ids) == len(set(ids)), "ids must be unique across the inlined plots"
    assert "Run <code>" in page and "commit <code>0123456789ab</code>" in page
    assert "2 fixture(s) in:" in page and "1 without a date" in page
    assert "from 5 distinct recordings.</p>" in page


def test_the_report_styles_nothing_but_itself(page: str) -> None:
    """Shown inside another page (a notebook's ``IPython.display.HTML``), the report leaves
    that page's body, tables and headings as they were: each rule of its styles, the plots'
    too, names the report's element or a plot."""
    body = page[page.index("<body>") : page.index("</body>")]
    assert body.startswith(f"<body><div class='{SCOPE}'>") and body.endswith("</div>")
    styles = "".join(re.findall(r"<style[^>]*>(.*?)</style>", page, re.DOTALL))
    selectors = [
        each.strip() for rule in re.findall(r"([^{}]+)\{", styles) for each in rule.split(",")
    ]
    assert len(selectors) > 15
    assert [s for s in selectors if not s.startswith((f".{SCOPE}", "svg.plot "))] == []


def test_the_report_lists_the_maintenance_signals(page: str) -> None:
    section = page[page.index("<h2>Maintenance signals</h2>") : page.index("<h2>Metrics over time")]
    assert "the last 5 of 5 distinct recordings examined" in section
    assert "always passes</td><td>case-0 / contains" in section
    assert "near threshold</td><td>case-0 / citations" in section
    assert "trending down</td><td>success" in section
    assert "trending down</td><td>cost" in section
    assert "case-1 / citations" in section  # passes 5/5 every run: no longer discriminates


def test_signals_need_enough_runs(history: Path) -> None:
    with History.open(history) as opened:
        runs = opened.runs()
    signals, note = find_signals(runs[:2], ReportConfig(min_runs=3))
    assert signals == []
    assert note == (
        "2 distinct recordings in the history; maintenance signals need at least "
        "3 distinct recordings"
    )
    signals, _ = find_signals(runs, ReportConfig(window=3, min_runs=3, trend=0.4))
    kinds = {(s.kind, s.subject) for s in signals}
    assert ("trending down", "success") in kinds  # 0.75 -> 0.25 over the last 3 runs
    assert not any(kind == "trending down" and s == "cost" for kind, s in kinds)  # +15% < 40%


def test_weekly_pass_rates_sum_cases_and_runs(history: Path) -> None:
    with History.open(history) as opened:
        weeks, rates = weekly_pass_rates(opened.runs())
    assert weeks == ["2026-W45", "2026-W46", "2026-W47", "2026-W48"]
    assert rates["contains"] == [1.0, 1.0, 1.0, 1.0]
    assert rates["citations"][0] == pytest.approx(19 / 20)
    assert rates["citations"][3] == pytest.approx((19 + 18) / 40)


def test_fixture_ages_come_from_recorded_at(store: Path, tmp_path: Path) -> None:
    ages = fixture_ages([store, tmp_path / "missing.jsonl"], now=NOW)
    assert sorted(ages.days) == [1.0, 30.0]
    assert ages.undated == 1


@pytest.mark.slow
def test_the_same_history_gives_the_same_page(
    shared_history: Path, written: Path, tmp_path: Path
) -> None:
    store = written.parent.parent / "fixtures.jsonl"
    again = write_report(tmp_path / "report.html", history=shared_history, stores=[store], now=NOW)
    assert again.read_bytes() == written.read_bytes()


@pytest.fixture(scope="module")
def empty_report() -> tuple[str, list[Figure]]:
    """The report of an empty history, and the figures of its three plots (of no runs, no
    weeks and no fixtures): drawn once for the tests that read them."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        figures = kept_figures(monkeypatch)
        page = build_report([], now=NOW)
    return page, figures


def test_an_empty_history_still_renders_and_a_missing_one_is_an_error(
    empty_report: tuple[str, list[Figure]], tmp_path: Path
) -> None:
    page, _ = empty_report
    assert "No run in the history yet" in page and page.count("<svg") == 3
    with pytest.raises(HistoryError, match=r"no history at .*run `replaygate eval` first"):
        write_report(tmp_path / "r.html", history=tmp_path / "none.db")


def test_without_matplotlib_the_report_says_which_extra_to_install(
    history: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(MissingExtraError, match=r"pip install 'replaygate\[report\]'"):
        write_report(tmp_path / "r.html", history=history)


def replayed(path: Path, recordings: list[tuple[str, int]], replays: int) -> list[HistoryRun]:
    """A history where each recording (answer, citation passes) is replayed ``replays`` times."""
    with History.open(path) as opened:
        for day in range(replays):
            for hour, (answer, citations) in enumerate(recordings):
                time = f"2026-11-{day + 2:02d}T{hour + 9:02d}:00:00Z"
                opened.append(run(time, citations, 4, 0.01, answer))
        return opened.runs()


def test_replays_of_the_same_recordings_are_not_counted_as_new_evidence(tmp_path: Path) -> None:
    runs = replayed(tmp_path / "two.db", [("first", 4), ("second", 3)], replays=5)
    signals, note = find_signals(runs, ReportConfig(window=8, min_runs=3))
    assert signals == []
    assert note == (
        "2 distinct recordings (10 runs: replays of the same answers count once) in the "
        "history; maintenance signals need at least 3 distinct recordings"
    )
    runs = replayed(tmp_path / "three.db", [("a", 5), ("b", 4), ("c", 3)], replays=4)
    signals, note = find_signals(runs, ReportConfig(window=8, min_runs=3))
    assert note.startswith("the last 3 of 3 distinct recordings (12 runs:")
    always = {s.subject: s.detail for s in signals if s.kind == "always passes"}
    assert always["case-0 / contains"].startswith(
        "passed all 15 samples of 3 distinct recordings:"
    )  # 12 replays would have claimed 60 samples
    (near,) = [s for s in signals if s.kind == "near threshold"]
    assert near.subject == "case-0 / citations"
    assert near.detail.startswith(
        "at its floor or one below in 2 of 3 distinct recordings "
        "(latest: citations: 3 of 5 samples passed, floor 4)"
    )


def test_a_history_without_answer_digests_counts_each_run(history: Path) -> None:
    with History.open(history) as opened:
        runs = [replace(r, answers={}) for r in opened.runs()]
    assert [r.id for r in distinct_runs(runs)] == [r.id for r in runs]
    last = runs[-1].cases
    same = [replace(r, cases=last, answers={c.case: "same" for c in last}) for r in runs]
    assert [r.id for r in distinct_runs(same)] == [runs[-1].id]


def test_the_same_answers_judged_otherwise_are_told_apart(tmp_path: Path) -> None:
    # A check made weaker after it blocked a recording: the replay it passed stood for
    # both, and the report called the check "always passes".
    with History.open(tmp_path / "h.db") as opened:
        opened.append(run("2026-11-02T09:00:00Z", 0, 4, 0.01, "a"))  # blocked
        for day in range(3, 6):
            opened.append(run(f"2026-11-{day:02d}T09:00:00Z", 5, 4, 0.01, "a"))
        runs = opened.runs()
    assert [r.id for r in distinct_runs(runs)] == [runs[0].id, runs[-1].id]
    weeks, rates = weekly_pass_rates(runs)
    assert (weeks, rates["citations"]) == (["2026-W45"], [pytest.approx((0 + 5 * 4) / 25)])


def test_weekly_pass_rates_count_a_replayed_recording_once(tmp_path: Path) -> None:
    with History.open(tmp_path / "h.db") as opened:
        for _ in range(3):
            opened.append(run("2026-11-02T09:00:00Z", 1, 4, 0.01, "replayed"))
        opened.append(run("2026-11-03T09:00:00Z", 5, 4, 0.01, "fresh"))
        weeks, rates = weekly_pass_rates(opened.runs())
    assert weeks == ["2026-W45"]
    assert rates["citations"] == [pytest.approx((16 + 20) / 40)]  # not (3 * 16 + 20) / 80


def test_a_week_without_runs_breaks_the_weekly_lines(tmp_path: Path) -> None:
    # runs in weeks 45 and 48 were drawn as two weeks in a row, joined by one line
    with History.open(tmp_path / "h.db") as opened:
        opened.append(run("2026-11-02T09:00:00Z", 5, 4, 0.01, "a"))
        opened.append(run("2026-11-23T09:00:00Z", 3, 4, 0.01, "b"))
        weeks, rates = weekly_pass_rates(opened.runs())
    assert weeks == ["2026-W45", "2026-W46", "2026-W47", "2026-W48"]
    assert rates["contains"] == [1.0, None, None, 1.0]
    with History.open(tmp_path / "old.db") as opened:  # a time edited by hand: year 999
        opened.append(run("0999-12-20T09:00:00Z", 5, 4, 0.01, "a"))
        opened.append(run("1000-01-01T09:00:00Z", 3, 4, 0.01, "b"))
        weeks, rates = weekly_pass_rates(opened.runs())
    assert weeks == ["0999-W51", "0999-W52", "1000-W01"]
    assert rates["contains"] == [1.0, None, 1.0]


def test_the_latest_run_says_what_failed_in_words(page: str) -> None:
    latest = page[page.index("<h2>Latest run</h2>") : page.index("<h2>Maintenance signals")]
    assert "<td>observe: 3 of 5 samples passed, floor 4</td>" in latest
    assert "<td>citations: 3 of 5 samples passed, floor 4</td>" in latest
    assert "<td>pass: 5 of 5 samples passed, floor 4</td><td>none failed in 5 samples</td>" in (
        latest
    )


def test_words_for_a_signal_say_it_never_blocks() -> None:
    stats = AssertionStats("tone", "signal", "custom", 2, 5)
    assert assertion_words(stats, 4) == "tone: 2 of 5 samples passed (a signal: never blocks)"
    gate = AssertionStats("citations", "gate", "set", 4, 5)
    assert assertion_words(gate, 4) == "citations: 4 of 5 samples passed, floor 4"
    one = AssertionStats("citations", "gate", "set", 1, 1)
    assert assertion_words(one, 1) == "citations: 1 of 1 sample passed, floor 1"


@pytest.fixture
def figures(monkeypatch: pytest.MonkeyPatch) -> list[Figure]:
    """The figures the plots draw, kept as each is turned into its SVG."""
    return kept_figures(monkeypatch)


def kept_figures(monkeypatch: pytest.MonkeyPatch) -> list[Figure]:
    """A list that keeps each figure the plots draw from now on, as it is turned into SVG."""
    from replaygate.report import plots

    kept: list[Figure] = []
    to_svg = plots.to_svg

    def keep(figure: Figure, *, title: str, prefix: str) -> str:
        kept.append(figure)
        return to_svg(figure, title=title, prefix=prefix)

    monkeypatch.setattr(plots, "to_svg", keep)
    return kept


def assert_nothing_cut(figure: Figure) -> None:
    """Each axes with its titles, tick labels and axis labels, and each legend, lies inside
    the figure, and no two of them overlap."""
    from replaygate.report import plots

    renderer = plots._renderer(figure)
    edge = figure.bbox
    parts = [ax.get_tightbbox(renderer) for ax in figure.axes]
    parts += [legend.get_window_extent(renderer) for legend in figure.legends]
    for part in parts:
        assert part is not None
        inside = (edge.x0, edge.y0) <= (part.x0, part.y0) and part.x1 <= edge.x1
        assert inside and part.y1 <= edge.y1, (part, edge)
    for index, part in enumerate(parts):
        for other in parts[index + 1 :]:
            assert not part.overlaps(other), (part, other)


def test_value_labels_at_the_ends_of_a_share_stay_inside_its_frame(figures: list[Figure]) -> None:
    # "1.000" above a point at 1 whose place below was taken straddled the frame's line
    from replaygate.report import plots

    shares = {"success": [1.0, 1.0], "citation_recall": [0.9, 0.0], "fabricated": [0.0, 0.1]}
    metrics_plot(shares, ["r0", "r1"])
    (figure,) = figures
    renderer = plots._renderer(figure)
    axes = figure.axes[0]
    frame = axes.get_window_extent(renderer)
    labels = [t for t in axes.texts if t.get_text()]
    assert labels
    for label in labels:
        box = label.get_window_extent(renderer)
        assert frame.y0 <= box.y0 and box.y1 <= frame.y1, label.get_text()


@pytest.mark.parametrize(("count", "labelled"), [(1, True), (3, True), (12, False)])
def test_few_runs_are_drawn_as_labelled_points(
    count: int, labelled: bool, figures: list[Figure]
) -> None:
    series = {"success": [0.5 + i / 100 for i in range(count)], "cost": [0.01] * count}
    svg = metrics_plot(series, [f"r{i}" for i in range(count)])
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    assert ("0.500" in texts) is labelled
    # a cost the same in every run is written where its line starts and where it ends
    assert (texts.count("0.01") == min(count, 2)) is labelled
    assert_nothing_cut(figures[0])


def test_an_amount_axis_never_reads_below_zero() -> None:
    # a cost of 0 in every run was drawn on an axis from -0.075 to 0.075
    series = {"success": [0.5, 0.5], "cost": [0.0, 0.0], "steps": [0.0, 10.0]}
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", metrics_plot(series, ["r0", "r1"]))
    assert not [t for t in texts if t.startswith(("-", "\u2212"))]
    assert "0.00" in texts and "0.0" in texts  # each axis still shows its 0


def test_a_plot_of_runs_that_measured_none_of_its_metrics_says_so(
    figures: list[Figure], empty_report: tuple[str, list[Figure]]
) -> None:
    # a history run of no price table: its cost plot said "no runs yet" beside its runs
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", metrics_plot({"success": [0.5]}, ["r0"]))
    assert "no runs yet" not in texts
    assert "(run without a price table)" in texts and "no steps counted" in texts
    assert_nothing_cut(figures[0])
    page, _ = empty_report  # its plot of metrics, of no runs: metrics_plot({}, [])
    plot = page[page.index("<h2>Metrics over time") : page.index("<h2>Weekly pass rate")]
    assert re.findall(r"<text[^>]*>([^<]*)</text>", plot).count("no runs yet") == 3


@pytest.mark.parametrize(("lines", "labelled"), [(LABELLED_LINES, True), (15, False)])
def test_the_weeks_of_many_assertions_carry_no_value_labels(lines: int, labelled: bool) -> None:
    # 15 assertions over 3 weeks: their labels piled up over each other at each week
    rates = {f"a{i}": [0.4 + i / 100, 0.5, 0.6 + i / 100] for i in range(lines)}
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", weekly_plot(["W1", "W2", "W3"], rates))
    assert ("50%" in texts) is labelled


def test_a_name_of_a_character_no_font_has_is_drawn_without_a_warning() -> None:
    # the browser draws it; matplotlib printed "Glyph 128293 ... missing" at each step
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        svg = weekly_plot(["W1"], {"fire \U0001f525": [0.5]})
    assert "fire \U0001f525" in svg


def test_one_week_is_drawn_as_a_labelled_point(figures: list[Figure]) -> None:
    weekly = weekly_plot(["2026-W45"], {"citations": [0.8]})
    assert "80%" in re.findall(r"<text[^>]*>([^<]*)</text>", weekly)
    assert_nothing_cut(figures[0])


def test_few_weeks_with_runs_among_weeks_without_are_labelled_points() -> None:
    weeks = [f"2026-W{w:02d}" for w in range(1, 13)]
    rates: dict[str, list[float | None]] = {"citations": [None] * 12}
    rates["citations"][0], rates["citations"][11] = 0.8, 0.6
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", weekly_plot(weeks, rates))
    assert "80%" in texts and "60%" in texts


def test_runs_of_one_minute_are_told_apart_on_the_time_axis() -> None:
    def at(time: str) -> HistoryRun:
        return HistoryRun(time, time, None, {}, ())

    apart = [at("2026-12-02T21:44:46Z"), at("2026-12-02T22:45:03+01:00")]
    assert run_labels(apart) == ["12-02 21:44", "12-02 21:45"]
    together = [at("2026-12-02T21:44:46Z"), at("2026-12-02T21:44:59Z")]
    assert run_labels(together) == ["12-02 21:44:46", "12-02 21:44:59"]
    years = [at("2025-01-01T00:00:00Z"), at("2026-01-01T00:00:00Z")]  # read alike without
    assert run_labels(years) == ["2025-01-01 00:00", "2026-01-01 00:00"]
    one = [at("2026-12-02T06:00:00Z"), at("2026-12-02T01:00:00-05:00"), at("2026-12-02T06:00Z")]
    assert run_labels(one) == ["12-02 06:00:00", "12-02 06:00:00 (2)", "12-02 06:00:00 (3)"]


LONG = [f"assertion {i:02} " + "w" * (10 * i) for i in range(8)]
DRAWN = {
    "runs to the second, tiny and huge amounts": lambda: metrics_plot(
        {
            "success": [i / 12 for i in range(12)],
            "fabricated": [0.0] * 12,
            "citation_precision": [0.9] * 12,
            "citation_recall": [1.0] * 12,
            "cost": [1e-6 * i for i in range(12)],
            "steps": [123456.0 * i for i in range(12)],
        },
        [f"11-02 09:00:{i:02}" for i in range(12)],
    ),
    "long assertion names": lambda: weekly_plot(
        ["2026-W45", "2026-W46"], {name: [0.5, 1.0] for name in LONG}
    ),
}
"""Plots drawn for :func:`test_nothing_of_a_plot_is_cut_at_its_edge_or_drawn_over`; those
of no runs and no fixtures are the empty history's (:func:`empty_report`)."""


@pytest.mark.parametrize("draw", DRAWN.values(), ids=DRAWN.keys())
def test_nothing_of_a_plot_is_cut_at_its_edge_or_drawn_over(
    draw: Callable[[], str], figures: list[Figure]
) -> None:
    # A long assertion name in three columns made the weekly legend wider than the figure.
    # (The legend of more assertions than it names: test_hostile_report_names.py.)
    draw()
    (figure,) = figures
    assert_nothing_cut(figure)


def test_nothing_of_the_plots_of_an_empty_history_is_cut_or_drawn_over(
    empty_report: tuple[str, list[Figure]],
) -> None:
    # metrics_plot({}, []), weekly_plot([], {}) and ages_plot([], 0): no runs, no fixtures
    _, figures = empty_report
    assert len(figures) == 3
    for figure in figures:
        assert_nothing_cut(figure)


@pytest.mark.parametrize("days", [[0.1, 0.3], [0.0] * 40, [2.5, 7.0, 180.0]])
def test_fixture_ages_are_counted_in_whole_days_and_fixtures(
    days: list[float], figures: list[Figure]
) -> None:
    svg = ages_plot(days, 1, 1)  # one without a date, one dated later than now: a long title
    assert_nothing_cut(figures[0])
    ticks = [
        t for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg) if t.strip("−-0123456789.") == ""
    ]
    assert ticks and all(float(t.replace("−", "-")).is_integer() for t in ticks), ticks


@pytest.mark.usefixtures("unplotted")  # the note and the runs counted are words of the page
@pytest.mark.parametrize(
    ("column", "value", "field"),
    [("runs.time", "yesterday", "time"), ("metrics.value", 1e308, "metrics.success")],
)
def test_a_damaged_stored_run_is_left_out_of_the_report_with_a_note(
    history: Path, tmp_path: Path, column: str, value: object, field: str
) -> None:
    # Such a run (merged before merge checked runs) made every report end in a traceback.
    table, name = column.split(".")
    with History.open(history) as opened:
        damaged = opened.runs()[1].id
    with sqlite3.connect(history) as raw:
        key = "id" if table == "runs" else "run"
        raw.execute(f"UPDATE {table} SET {name} = ? WHERE {key} = ?", (value, damaged))
    raw.close()
    out = tmp_path / "report.html"
    result = CliRunner().invoke(report_cmd, ["--out", str(out), "--history", str(history)])
    assert result.exit_code == 0, result.output
    assert f"note: left out of the report, damaged: run '{damaged}': {field}: " in result.stderr
    page = out.read_text(encoding="utf-8")
    assert "1 damaged run(s) of the history are left out" in page and damaged in page
    assert "from 4 distinct recordings" in page


@pytest.mark.usefixtures("unplotted")
def test_a_read_only_history_is_reported(
    history: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # It said "not a replaygate history database (attempt to write a readonly database)".
    before = history.read_bytes()
    make_sqlite_read_only(monkeypatch)
    out = tmp_path / "report.html"
    result = CliRunner().invoke(report_cmd, ["--out", str(out), "--history", str(history)])
    assert result.exit_code == 0, result.output
    assert "from 5 distinct recordings" in out.read_text(encoding="utf-8")
    assert history.read_bytes() == before


@pytest.mark.usefixtures("unplotted")
def test_the_gate_names_the_results_it_judged_and_whether_they_are_the_latest_run(
    history: Path, tmp_path: Path
) -> None:
    # The gate of another run than the latest stood under it with nothing saying so.
    baseline = run(*WEEKS[0]).write(tmp_path / "baseline.json")
    with History.open(history, read_only=True) as opened:
        second, latest = opened.runs()[1], opened.runs()[-1]
    judged = {
        "latest": run(*WEEKS[-1]).write(tmp_path / "latest.json"),
        "earlier": run(*WEEKS[1]).write(tmp_path / "earlier.json"),
        "elsewhere": run("2026-11-25T09:00:00Z", 4, 4, 0.01).write(tmp_path / "other.json"),
    }
    pages = {}
    for name, results in judged.items():
        out = tmp_path / f"{name}.html"
        args = ["--out", str(out), "--history", str(history), "--results", str(results)]
        done = CliRunner().invoke(report_cmd, [*args, "--baseline", str(baseline)])
        assert done.exit_code == 0, done.output
        page = out.read_text(encoding="utf-8")
        pages[name] = page[page.index("<h2>Gate</h2>") : page.index("<h2>Maintenance")]
    commit = "commit 0123456789ab"
    assert (
        f"<p>The gate judges the results file {judged['latest']} (the run at "
        f"{WEEKS[-1][0]}, {commit}, run {latest.id} of the history): the latest run shown "
        "above.</p>"
    ) in pages["latest"]
    not_latest = (
        f"<p class='fail'>These results are not the run shown as the latest run above (run "
        f"{latest.id} at {WEEKS[-1][0]}): the gate and the latest run are two different runs."
    )
    assert "class='fail'>These results" not in pages["latest"]
    assert (
        f"<p>The gate judges the results file {judged['earlier']} (the run at {WEEKS[1][0]}, "
        f"{commit}, run {second.id} of the history).</p>{not_latest}"
    ) in pages["earlier"]
    assert (
        f"<p>The gate judges the results file {judged['elsewhere']} (the run at "
        f"2026-11-25T09:00:00Z, {commit}, not in the history).</p>{not_latest}"
    ) in pages["elsewhere"]


def test_a_baseline_without_results_is_refused_not_ignored(history: Path, tmp_path: Path) -> None:
    # The report was written without any gate, and nothing said the baseline went unused.
    baseline = run(*WEEKS[0]).write(tmp_path / "baseline.json")
    out = tmp_path / "report.html"
    args = ["--out", str(out), "--history", str(history), "--baseline", str(baseline)]
    result = CliRunner().invoke(report_cmd, args)
    assert result.exit_code == 2, result.output
    assert "--baseline needs --results" in result.output
    assert not out.exists()


def test_a_utf8_name_an_ascii_locale_holds_as_bytes_is_shown_as_its_text() -> None:
    # LC_ALL=C holds café as the surrogates of its bytes: the page showed the fixtures of
    # /work/caf\xc3\xa9/rc.jsonl, where a UTF-8 locale shows /work/café/rc.jsonl
    from replaygate.report.words import visible

    held = os.fsencode("/work/café/").decode("ascii", "surrogateescape") + "\udce9.jsonl"
    assert visible(held) == "/work/café/\\xe9.jsonl"


def test_a_line_separator_or_a_soft_hyphen_in_a_case_id_is_shown_as_its_escape() -> None:
    # as the gate shows them: a page broke "rag", U+2028, "FAIL case x" into two lines, the
    # second a FAIL of its own, and hid a soft hyphen ("eval", U+00AD, "sets" read as evalsets)
    from replaygate.report.words import visible

    assert visible("rag\u2028FAIL x\u2029") == "rag\\u2028FAIL x\\u2029"
    assert visible("eval\u00adsets") == "eval\\u00adsets"


@needs_matplotlib
@pytest.mark.slow  # a process of its own: matplotlib warns as it is first imported
def test_a_home_that_cannot_be_written_draws_the_plots_saying_nothing(
    forker: Forker, tmp_path: Path
) -> None:
    # `make demo` with a read-only HOME printed matplotlib's "mkdir -p failed ...
    # Permission denied" and a line of advice about MPLCONFIGDIR among its own lines
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MPL", "XDG_"))}
    env["HOME"] = os.devnull  # no folder can be made under it, even by root
    code = "from replaygate.report.plots import ages_plot; print(ages_plot([1.0, 30.0], 0)[:4])"
    # forked from an interpreter that imported the command line, not matplotlib
    done = forker.capture([], cwd=tmp_path, env=env, code=code)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"<svg\n", b"")
