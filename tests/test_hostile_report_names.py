"""The report with hostile assertion names: the plots draw them as plain text."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from extras import needs_matplotlib
from replaygate.assertions.kinds import Outcome
from replaygate.cli.history_cmds import report_cmd
from replaygate.evals import CaseResult, EvalResults, History
from replaygate.evals.scorers import CaseCounts
from replaygate.report import page as report_page
from replaygate.sampling import SampledResult, SampleResult
from test_report import assert_nothing_cut, kept_figures
from unplotted_reports import unplot

pytestmark = [pytest.mark.slow, needs_matplotlib]

NAMES = (
    r"costs $\frac$ or more",  # not valid mathtext: matplotlib raised on it
    "price $x^2$",  # valid mathtext: drawn as a formula, not as written
    "_private",  # a leading underscore: matplotlib leaves such a label out of the legend
    "<script>alert(1)</script>",
    "\u202eright to left\u200b",
    "w" * 2000,
)


def history_with(path: Path, names: tuple[str, ...]) -> Path:
    outcomes = tuple(Outcome(name, "gate", False, name, None, "custom") for name in names)
    sampled = SampledResult("case", 1, 1, (SampleResult(0, outcomes, {"final": "x"}),))
    counts = CaseCounts(1, False, 1, True, 1, 1, 1, 0, 500, 50, 15, 0.1)
    run = EvalResults((CaseResult(sampled, counts),), {"time": "2026-11-01T00:00:00Z"})
    with History.open(path) as opened:
        opened.append(run)
    return path


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.handlers: list[str] = []
        self.texts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.handlers += [name for name, _ in attrs if name.startswith("on")]

    def handle_data(self, data: str) -> None:
        self.texts.append(data)


def test_assertion_names_are_drawn_as_written_in_the_legend(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    figures = kept_figures(monkeypatch)
    history = history_with(tmp_path / "history.db", NAMES)
    out = tmp_path / "report.html"
    result = CliRunner().invoke(report_cmd, ["--out", str(out), "--history", str(history)])
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    parsed = Tags()
    parsed.feed(out.read_text(encoding="utf-8"))
    assert "script" not in parsed.tags and parsed.handlers == []
    text = "\n".join(parsed.texts)
    for name in (r"costs $\frac$ or more", "price $x^2$", "_private"):
        assert name in parsed.texts, name  # the legend, as written
    assert "w" * 2000 not in text  # cut, in the table and in the legend
    assert "\u202e" not in text
    for figure in figures:  # the long name cut, the legend within the figure
        assert_nothing_cut(figure)


def test_the_report_of_one_run_with_many_assertions_renders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Only its plot of assertions is drawn: the others, of one run's metrics and of no
    # fixtures, are those the test above draws and checks, whatever the assertions' names.
    unplot(monkeypatch, weekly_plot=report_page.weekly_plot)
    figures = kept_figures(monkeypatch)
    names = tuple(f"check {i:02}" for i in range(60))
    history = history_with(tmp_path / "history.db", names)
    out = tmp_path / "report.html"
    result = CliRunner().invoke(
        report_cmd, ["--out", str(out), "--history", str(history)], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    page = out.read_text(encoding="utf-8")
    assert ">check 47<" in page and ">check 48<" not in page and ">and 12 more assertions<" in page
    assert len(figures) == 1
    for figure in figures:  # the tall legend of 49 lines too
        assert_nothing_cut(figure)
