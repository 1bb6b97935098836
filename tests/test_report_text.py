"""The report shows any case id as text: markup is escaped, characters a page would hide
or act on (controls, text direction overrides) are written out, a very long id or gate
message is shown whole (its rest folded behind a ``<details>``).
A fixture store named for its age histogram must be there; many weeks stay readable."""

from __future__ import annotations

from datetime import UTC, datetime
from html import escape
from pathlib import Path

import pytest
from click.testing import CliRunner

from extras import needs_matplotlib
from priced_runs import JPY, USD, priced_run
from replaygate.cli import main
from replaygate.evals.gate import GateReport, Row
from replaygate.evals.history import History, HistoryRun
from replaygate.evals.reference import CaseSummary
from replaygate.report import build_report
from replaygate.report.plots import weekly_plot
from unplotted_reports import unplot, unplotted  # noqa: F401  (unplotted: a pytest fixture)

pytestmark = needs_matplotlib


IDS = [
    "<script>alert(1)</script>",
    "evil\u202etxt.exe",
    "nul\x00bell\x07",
    "é" * 3000,
    "ok",
    "rag\u200bbasics",
]


def page() -> str:
    cases = tuple(CaseSummary(case, 5, 4, 5) for case in IDS)
    run = HistoryRun("run-1", "2026-11-30T06:00:00Z", None, {"success": 1.0}, cases)
    return build_report([run], now=datetime(2026, 12, 1, tzinfo=UTC))


@pytest.mark.usefixtures("unplotted")
def test_case_ids_are_shown_as_text() -> None:
    html = page()
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "evil\\u202etxt.exe" in html and "\u202e" not in html
    assert "nul\\u0000bell\\u0007" in html and "\x00" not in html and "\x07" not in html
    assert "rag\\u200bbasics" in html and "\u200b" not in html  # read as ragbasics
    # whole: its first 1,000 characters, then its rest behind a <details> that says so
    assert f"<td>{'é' * 1000}<details><summary>2,000 more characters</summary>" in html
    assert f"</summary>{'é' * 2000}</details></td>" in html
    wraps = ".replaygate-report td, .replaygate-report li, .replaygate-report figcaption"
    assert f"{wraps} {{ overflow-wrap: anywhere; }}" in html  # a long word wraps


UNTRACED = (
    "evals/baseline.json: its metrics, cases or source are not what its last update wrote "
    "(2026-12-05T10:00:00Z, reason 'flaky-tests: 6 samples') (metrics.success is 0.75 where "
    "its history last set 0.875; metrics.citation_recall is 0.8 where its history last set "
    "0.9333333333333333): it was edited by hand, or a merge joined two updates, and no reason "
    "for that change is kept. Run the eval and make its results the baseline with "
    "`replaygate baseline update --results FILE --reason ...` (after a merge, on the merged "
    "tree), or restore the file from git"
)
"""The gate's message for a baseline that is not what its last update wrote: what to do
comes after its 400th character."""


@pytest.mark.usefixtures("unplotted")
def test_a_long_gate_message_is_shown_whole() -> None:
    # it was cut at 300 characters, "... (539 characters)": the advice to run
    # `baseline update` or restore the file was what was cut
    note = "the cases " + ", ".join(f"case-{i:04d}" for i in range(200)) + " are new"
    gate = GateReport((), (UNTRACED,), (note,))
    html = build_report([], gate=gate, now=datetime(2026, 12, 1, tzinfo=UTC))
    assert f"<li class='fail'>{escape(UNTRACED)}</li>" in html
    start, rest = note[: note.rindex(" ", 0, 1000) + 1], note[note.rindex(" ", 0, 1000) + 1 :]
    assert len(start) <= 1000 and start.endswith("case-0089, ")
    summary = f"<summary>{len(rest):,} more characters</summary>"
    assert f"<li>{start}<details>{summary}{rest}</details></li>" in html


@pytest.mark.usefixtures("unplotted")
def test_failed_cases_and_metrics_are_tinted() -> None:
    # among many cases, one that failed read like those that passed: only its words said so
    cases = (CaseSummary("a", 5, 4, 5), CaseSummary("b", 5, 4, 2), CaseSummary("c", 5, 4, 0))
    run = HistoryRun("run-1", "2026-11-30T06:00:00Z", None, {"success": 1 / 3}, cases)
    rows = (Row("success", 1.0, 1 / 3, "-0.667", "drop <= 0.020", "FAIL"),)
    rows += (Row("steps", 3.0, 3.0, "+0.0%", "rise <= 25.0%", "ok"),)
    html = build_report([run], gate=GateReport(rows, ()), now=datetime(2026, 12, 1, tzinfo=UTC))
    assert "<tr><td>a</td>" in html
    assert "<tr class='failed'><td>b</td>" in html and "<tr class='failed'><td>c</td>" in html
    assert "<tr class='failed'><td>success</td>" in html and "<tr><td>steps</td>" in html
    assert "tr.failed td { background: #fdecee; }" in html


def test_a_fixture_store_named_but_not_there_is_an_error(tmp_path: Path) -> None:
    History.open(tmp_path / "h.db").close()
    args = ["report", "--history", str(tmp_path / "h.db"), "--out", str(tmp_path / "r.html")]
    result = CliRunner().invoke(main, [*args, "--fixtures", str(tmp_path / "fixtures.jsnol")])
    assert result.exit_code == 2, result.output
    assert "fixtures.jsnol: no such store (a typo?)" in result.output
    assert not (tmp_path / "r.html").exists()


@pytest.mark.slow  # draws a plot: the first in a process imports matplotlib
def test_a_year_of_weeks_is_labelled_readably() -> None:
    weeks = [f"2026-W{week:02d}" for week in range(1, 53)]
    svg = weekly_plot(weeks, {"contains": [1.0] * len(weeks)})
    shown = [week for week in weeks if week in svg]
    assert 6 <= len(shown) <= 12  # 52 labels side by side would overlap into a smear
    assert shown[0] == "2026-W01"


@pytest.mark.usefixtures("unplotted")
def test_run_information_of_another_shape_is_left_out_of_the_cost_meaning() -> None:
    # a merged export keeps its run's info as it came: prices as a string ended the
    # report in a traceback
    cases = (CaseSummary("case", 5, 4, 5),)
    for info in ({"prices": "usd"}, {"prices": {"currency": ["USD"]}}):
        run = HistoryRun("r", "2026-11-30T06:00:00Z", None, {"cost": 0.1}, cases, info=info)
        html = build_report([run], now=datetime(2026, 12, 1, tzinfo=UTC))
        assert "Run <code>r</code>" in html and "USD" not in html


@pytest.mark.usefixtures("unplotted")
def test_the_report_command_names_a_file_with_a_newline_on_one_line(tmp_path: Path) -> None:
    # "report: r\nr.html" took two lines, as did a --fixtures store not there
    History.open(tmp_path / "h.db").close()
    out, typo = tmp_path / "r\nr.html", tmp_path / "f\nf.jsonl"
    args = ["report", "--history", str(tmp_path / "h.db"), "--out", str(out)]
    written = CliRunner().invoke(main, args)
    assert written.exit_code == 0, written.output
    assert written.output == f"report: {str(out)!r}\n"
    missing = CliRunner().invoke(main, [*args, "--fixtures", str(typo)])
    assert missing.exit_code == 2, missing.output
    assert f"Error: --fixtures {str(typo)!r}: no such store" in missing.output


def test_a_fixture_store_that_is_a_symlink_loop_or_to_nothing_is_named_so(tmp_path: Path) -> None:
    # both were "no such store (a typo?)", the name of a file that is there
    History.open(tmp_path / "h.db").close()
    (tmp_path / "loop.jsonl").symlink_to("loop.jsonl")
    (tmp_path / "gone.jsonl").symlink_to("nowhere.jsonl")
    args = ["report", "--history", str(tmp_path / "h.db"), "--out", str(tmp_path / "r.html")]
    for name, what in [("loop.jsonl", "a symlink loop"), ("gone.jsonl", "a symlink to")]:
        result = CliRunner().invoke(main, [*args, "--fixtures", str(tmp_path / name)])
        assert result.exit_code == 2, result.output
        assert f"Error: {tmp_path / name}: is {what}" in result.output
    assert not (tmp_path / "r.html").exists()


def test_costs_of_other_prices_are_left_out_of_the_plot_and_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the cost per run plotted USD and JPY on one axis, and nothing said so
    plotted: list[tuple[object, ...]] = []
    unplot(monkeypatch, metrics_plot=lambda *given: plotted.append(given) or "")
    runs = [priced_run(day, 0.0042, USD) for day in (1, 2, 3)]
    runs += [priced_run(day, 0.676, JPY) for day in (4, 5)]
    html = build_report(runs, now=datetime(2026, 12, 1, tzinfo=UTC))
    assert (
        "Costs priced at JPY 450.0 in, 2250.0 out per million tokens for claude-sonnet-4-5 "
        "(jpy.toml), as the latest run with a cost (2026-11-05T10:00:00Z) was, only: costs "
        "of other prices (another currency, another price of the model) are not compared, "
        "so these are left out of the signals and the plots:</p><ul><li>the costs of 3 runs "
        "priced at USD 3.0 in, 15.0 out per million tokens for claude-sonnet-4-5 "
        "(replaygate/evals/data/prices.toml, as of 2026-01-15), the latest at "
        "2026-11-03T10:00:00Z</li></ul>"
    ) in html
    assert "as does a cost priced at other prices (named above)." in html
    ((series, _, apart),) = plotted
    assert apart == [True, True, True, False, False]
    assert series["cost"] == [
        0.0042,
        0.0042,
        0.0042,
        0.676,
        0.676,
    ]  # as kept: the plot leaves out those flagged

    plotted.clear()
    html = build_report(runs[:3], now=datetime(2026, 12, 1, tzinfo=UTC))
    assert "Costs priced at" not in html and "other prices" not in html
    assert plotted[0][2] == [False, False, False]
