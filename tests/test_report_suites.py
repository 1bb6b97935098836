"""The report compares the runs of one cases file: a one-case smoke run appended to the
history of the full suite is neither "the latest run" nor a point of its trends."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from replaygate.assertions.kinds import Outcome
from replaygate.cli.history_cmds import report_cmd
from replaygate.evals import CaseResult, EvalResults, History, HistoryError
from replaygate.evals.history import HistoryRun
from replaygate.evals.scorers import CaseCounts
from replaygate.report.suites import same_cases_file, suite_runs
from replaygate.sampling import SampledResult, SampleResult
from unplotted_reports import unplot

FULL = "evals/cases.jsonl"


def results(time: str, cases_file: str | None, cases: int, answer: str) -> EvalResults:
    """A run of ``cases`` cases, each passing 5 of 5 samples, answering ``answer``."""
    made = []
    for index in range(cases):
        samples = tuple(
            SampleResult(
                i,
                (Outcome("contains", "gate", True, "", 1.0, "contains"),),
                {"final": f"{answer} {index}"},
            )
            for i in range(5)
        )
        counts = CaseCounts(5, True, 5, True, 5, 5, 5, 0, 500, 50, 15, 0.01 * cases)
        made.append(CaseResult(SampledResult(f"case-{index}", 5, 4, samples), counts))
    info = {"time": time, "commit": "0123456789abcdef"}
    if cases_file is not None:
        info["cases_file"] = cases_file
    return EvalResults(tuple(made), info)


def write_history(path: Path) -> Path:
    """The full suite run three times (the first named by an older absolute path, the
    third replaying the second's recording), then a one-case smoke run, the latest."""
    with History.open(path) as opened:
        opened.append(results("2026-11-02T09:00:00Z", "/ci/proj/evals/cases.jsonl", 4, "a"))
        opened.append(results("2026-11-09T09:00:00Z", FULL, 4, "b"))
        opened.append(results("2026-11-10T09:00:00Z", FULL, 4, "b"))
        opened.append(results("2026-11-11T09:00:00Z", "smoke.jsonl", 1, "b"))
    return path


@pytest.fixture
def history(tmp_path: Path) -> Path:
    return write_history(tmp_path / "history.db")


def test_the_runs_of_the_latest_runs_cases_file_are_compared_the_others_named(
    history: Path,
) -> None:
    with History.open(history, read_only=True) as opened:
        runs = opened.runs()
    smoke = suite_runs(runs)
    assert smoke.cases_file == "smoke.jsonl"
    assert [run.time for run in smoke.runs] == ["2026-11-11T09:00:00Z"]
    assert smoke.left_out() == [f"3 runs of {FULL}, the latest at 2026-11-10T09:00:00Z"]
    full = suite_runs(runs, prefer="/ci/proj/evals/cases.jsonl")  # the configured file
    assert full.cases_file == FULL and len(full.runs) == 3
    assert full.left_out() == ["1 run of smoke.jsonl, the latest at 2026-11-11T09:00:00Z"]
    assert suite_runs(runs, "/elsewhere/smoke.jsonl").runs == smoke.runs
    assert suite_runs(runs, prefer="/ci/proj/other.jsonl").cases_file == "smoke.jsonl"
    with pytest.raises(
        HistoryError,
        match=f"no run of the cases file nope.jsonl in the history: its runs ran {FULL}, "
        "smoke.jsonl",
    ):
        suite_runs(runs, "nope.jsonl")


def test_a_cases_file_named_with_a_newline_is_named_on_one_line() -> None:
    # "no run of the cases file a\nb.jsonl in the history" took two lines, and a run
    # merged from an export names its cases file as it came
    runs = [
        HistoryRun.of(results("2026-11-10T09:00:00Z", "x\ny.jsonl", 1, "a"), "r1"),
        HistoryRun.of(results("2026-11-11T09:00:00Z", "smoke.jsonl", 1, "b"), "r2"),
    ]
    with pytest.raises(HistoryError) as caught:
        suite_runs(runs, "a\nb.jsonl")
    assert str(caught.value) == (
        "no run of the cases file 'a\\nb.jsonl' in the history: its runs ran "
        "'x\\ny.jsonl', smoke.jsonl"
    )
    assert suite_runs(runs).left_out() == [
        "1 run of 'x\\ny.jsonl', the latest at 2026-11-10T09:00:00Z"
    ]


def test_runs_naming_no_cases_file_are_a_suite_of_their_own(tmp_path: Path) -> None:
    with History.open(tmp_path / "h.db") as opened:
        opened.append(results("2026-11-02T09:00:00Z", None, 2, "a"))
        opened.append(results("2026-11-03T09:00:00Z", FULL, 2, "a"))
        runs = opened.runs()
    assert suite_runs(runs).left_out() == [
        "1 run naming no cases file (made in Python), the latest at 2026-11-02T09:00:00Z"
    ]
    assert suite_runs([]).runs == ()


def write_two_suites(path: Path) -> Path:
    """A suite at the project's root and a one-case smoke suite under smoke/, each run
    three times in turn, after a run of each named by an older absolute path."""
    with History.open(path) as opened:
        opened.append(results("2026-11-01T09:00:00Z", "/ci/proj/cases.jsonl", 8, "a"))
        opened.append(results("2026-11-01T10:00:00Z", "/ci/proj/smoke/cases.jsonl", 1, "a"))
        for day in (2, 3, 4):
            opened.append(results(f"2026-11-0{day}T09:00:00Z", "cases.jsonl", 8, "a"))
            opened.append(results(f"2026-11-0{day}T10:00:00Z", "smoke/cases.jsonl", 1, "a"))
    return path


def test_two_cases_files_of_one_name_in_two_folders_are_two_suites(tmp_path: Path) -> None:
    # cases.jsonl "ended" smoke/cases.jsonl: all eight runs were called runs of
    # smoke/cases.jsonl, --cases cases.jsonl too, and nothing was left out
    with History.open(write_two_suites(tmp_path / "h.db"), read_only=True) as opened:
        runs = opened.runs()
    suite = suite_runs(runs, "cases.jsonl")
    assert suite.cases_file == "cases.jsonl"
    assert [len(run.cases) for run in suite.runs] == [8, 8, 8, 8]
    assert suite.left_out() == ["4 runs of smoke/cases.jsonl, the latest at 2026-11-04T10:00:00Z"]
    smoke = suite_runs(runs)  # the latest run's
    assert smoke.cases_file == "smoke/cases.jsonl"
    assert [len(run.cases) for run in smoke.runs] == [1, 1, 1, 1]
    assert suite_runs(runs, "/ci/proj/smoke/cases.jsonl").runs == smoke.runs
    assert suite_runs(runs, "/elsewhere/cases.jsonl").runs == suite.runs
    assert suite_runs(runs, prefer="cases.jsonl").runs == suite.runs
    only_old = [run for run in runs if run.time.endswith("01T09:00:00Z")]
    assert suite_runs(only_old, "cases.jsonl").runs == tuple(only_old)  # as older runs name it


@pytest.mark.parametrize(
    ("first", "second", "same"),
    [
        (FULL, FULL, True),
        (FULL, "./evals/cases.jsonl", True),
        (FULL, "/ci/proj/evals/cases.jsonl", True),
        ("cases.jsonl", "/ci/proj/evals/cases.jsonl", True),
        (FULL, "C:\\ci\\proj\\evals\\cases.jsonl", True),
        ("/a/evals/cases.jsonl", "/b/evals/cases.jsonl", False),
        (FULL, "smoke.jsonl", False),
        (FULL, "/ci/proj/other/cases.jsonl", False),
        ("cases.jsonl", "smoke/cases.jsonl", False),
        ("cases.jsonl", FULL, False),
        ("smoke/./cases.jsonl", "smoke/cases.jsonl", True),
        (FULL, None, False),
        (None, None, True),
    ],
)
def test_two_names_of_a_cases_file(first: str | None, second: str | None, same: bool) -> None:
    assert same_cases_file(first, second) is same
    assert same_cases_file(second, first) is same


def _text(page: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page))


@pytest.mark.slow
def test_report_shows_the_configured_suite_and_names_the_smoke_run_left_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a 1-case smoke run was "the latest run", a new recording and a point of the trends
    unplot(monkeypatch)  # the words alone are checked
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text(f'[tool.replaygate]\ncases = "{FULL}"\n')
    write_history(tmp_path / ".replaygate" / "history.db")
    done = CliRunner().invoke(report_cmd, ["--out", "rep.html"])
    assert done.exit_code == 0, done.output
    assert (
        "note: left out of the report, runs of another cases file: 1 run of smoke.jsonl, the "
        "latest at 2026-11-11T09:00:00Z (--cases FILE reports on them)" in done.output
    )
    page = _text((tmp_path / "rep.html").read_text(encoding="utf-8"))
    assert "from 2 distinct recordings (3 runs: replays of the same answers count once)" in page
    assert f"Runs of the cases file {FULL} only" in page
    latest = page[page.index("Latest run") :]
    assert "2026-11-10T09:00:00Z" in latest[:200] and "case-3" in latest

    smoke = CliRunner().invoke(report_cmd, ["--out", "smoke.html", "--cases", "smoke.jsonl"])
    assert smoke.exit_code == 0, smoke.output
    page = _text((tmp_path / "smoke.html").read_text(encoding="utf-8"))
    assert "Runs of the cases file smoke.jsonl only" in page
    assert f"3 runs of {FULL}, the latest at 2026-11-10T09:00:00Z" in page

    missing = CliRunner().invoke(report_cmd, ["--out", "x.html", "--cases", "nope.jsonl"])
    assert missing.exit_code == 2
    assert (  # named relative to the project, as the runs name their cases files
        f"no run of the cases file nope.jsonl in the history: its runs ran {FULL}, smoke.jsonl"
        in missing.output
    )
    assert not (tmp_path / "x.html").exists()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize(
    ("given", "said"),
    [
        (["--cases", "nope.jsonl"], "no run of the cases file "),
        (["--history", "none.db"], "no history at none.db"),
    ],
    ids=["cases no run ran", "no history"],
)
def test_report_says_what_is_wrong_with_its_inputs_before_it_opens_its_output(
    history: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: list[str], said: str
) -> None:
    # an --out FIFO was opened first: one no process read hid the error behind
    # 'no process reads it', and a reader got an empty page
    monkeypatch.chdir(tmp_path)
    os.mkfifo(tmp_path / "page.fifo")
    args = ["--out", "page.fifo", *given]
    if "--history" not in given:
        args += ["--history", str(history)]
    done = CliRunner().invoke(report_cmd, args)
    assert done.exit_code == 2, done.output
    assert said in done.output


def test_report_cases_is_the_file_given_from_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a project's cases.jsonl and smoke/cases.jsonl: `report --cases cases.jsonl` showed
    # the smoke suite's runs; from smoke/, cases.jsonl is the smoke suite's
    unplot(monkeypatch)  # the words alone are checked
    (tmp_path / "smoke").mkdir()
    (tmp_path / "pyproject.toml").write_text('[tool.replaygate]\ncases = "cases.jsonl"\n')
    write_two_suites(tmp_path / ".replaygate" / "history.db")
    history = str(tmp_path / ".replaygate" / "history.db")
    for folder, shown, other in (
        ("", "cases.jsonl", "smoke/cases.jsonl"),
        ("smoke", "smoke/cases.jsonl", "cases.jsonl"),
    ):
        monkeypatch.chdir(tmp_path / folder)
        args = ["--out", "r.html", "--cases", "cases.jsonl", "--history", history]
        args += ["--config", str(tmp_path / "pyproject.toml")]
        done = CliRunner().invoke(report_cmd, args)
        assert done.exit_code == 0, done.output
        assert f"runs of another cases file: 4 runs of {other}, the latest at" in done.output
        page = _text((tmp_path / folder / "r.html").read_text(encoding="utf-8"))
        assert f"Runs of the cases file {shown} only" in page
        assert "from 1 distinct recording (4 runs" in page
