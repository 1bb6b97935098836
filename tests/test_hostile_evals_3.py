"""Outputs that vary, used as a team would: a judge named as another model while its
model sends the model under test's id (law 8); shards of two runs merged as one; a
case id that turns its line around in the gate's output; an export merged into a
history run by run; a fixture dated later than now drawn as recorded today; a history cut short;
a case id holding a character that reorders the line it is printed on."""

from __future__ import annotations

import json
import random
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from counted_outputs import ONE_RUN
from extras import needs_matplotlib
from replaygate.assertions import Judge, JudgeIndependenceError
from replaygate.assertions.kinds import Outcome
from replaygate.evals import CaseResult, EvalResults, History
from replaygate.evals.baseline import update_baseline
from replaygate.evals.cases import load_eval_cases
from replaygate.evals.errors import CaseFormatError, HistoryError
from replaygate.evals.history import read_export
from replaygate.evals.scorers import CaseCounts
from replaygate.evals.shards import Shard
from replaygate.examples.research_copilot import shipped_eval_cases
from replaygate.fixtures.fixture import Fixture
from replaygate.fixtures.store import FixtureStore
from replaygate.models.replay import ReplayModel
from replaygate.report import build_report, fixture_ages
from replaygate.sampling import SampledResult, SampleResult
from run_cli import replaygate
from test_history import run

RUBRIC = "The answer cites its source. 5: cited; 1: not cited."


def replayed(tmp_path: Path, model: str) -> ReplayModel:
    return ReplayModel(tmp_path / "judge.jsonl", model=model, max_tokens=256)


@pytest.mark.parametrize(
    "under_test", ["claude-sonnet-4-5", "us.anthropic.claude-sonnet-4-5-20250929-v1:0"]
)
def test_a_judge_id_cannot_make_the_model_under_test_its_own_judge(
    tmp_path: Path, under_test: str
) -> None:
    # judge_id names a judge whose id cannot be read; here the judge's requests name
    # the model under test, and judge_id="gpt-4o" let it grade its own answers.
    judge = replayed(tmp_path, "claude-sonnet-4-5")
    for tested in (under_test, replayed(tmp_path, under_test)):
        with pytest.raises(
            JudgeIndependenceError,
            match=r"judge_id='gpt-4o' names the judge, but its ReplayModel sends model "
            r"'claude-sonnet-4-5': refusing a judge that is the model under test",
        ):
            Judge(judge, RUBRIC, threshold=4, under_test=tested, judge_id="gpt-4o")


def test_a_judge_id_still_names_a_model_whose_id_tells_no_base_model(tmp_path: Path) -> None:
    deployment = replayed(tmp_path, "grader-deployment")  # an Azure deployment's name
    judge = Judge(
        deployment, RUBRIC, threshold=4, under_test="claude-sonnet-4-5", judge_id="gpt-4o"
    )
    assert judge.judge_id == "gpt-4o"
    with pytest.raises(JudgeIndependenceError, match="both are of family 'anthropic'"):
        Judge(deployment, RUBRIC, threshold=4, under_test="claude-sonnet-4-5", judge_id="claude-3")


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::replaygate.sampling.advice.SamplingWarning")
def test_shards_run_with_other_request_settings_are_refused(tmp_path: Path) -> None:
    # One store holds the recordings of both system prompts: each shard replayed, the
    # store's digest agreed, and the merge passed off two runs' cases as one run's.
    shipped = [json.loads(line) for line in shipped_eval_cases().read_text("utf-8").splitlines()]
    first = next(c for c in shipped if Shard(1, 2).holds(c["id"]))
    second = next(c for c in shipped if Shard(2, 2).holds(c["id"]))
    lines = (json.dumps({**c, "samples": 1, "floor": 1}) + "\n" for c in (first, second))
    (tmp_path / "cases.jsonl").write_text("".join(lines), "utf-8")
    run = ("--agent", "replaygate.examples.research_copilot:copilot", "--cases", "cases.jsonl",
           "--fixtures", "fixtures.jsonl", "--no-progress")  # fmt: skip
    for system in ((), ("--system", "Be brief.")):
        record = ("--record-mode", "record-missing", "--approve-live", "--simulator")
        recorded = replaygate("eval", *run, *system, *record, "--no-history", cwd=tmp_path)
        assert recorded.returncode == 0, recorded.stderr
    parts = ["s1.json", "s2.json"]
    for index, system in enumerate([(), ("--system", "Be brief.")], 1):
        ran = replaygate(
            "eval", *run, *system, "--shard", f"{index}/2", "--out", parts[index - 1], cwd=tmp_path
        )
        assert ran.returncode == 0, ran.stderr
    refused = replaygate("eval", "merge", *parts, "--out", "merged.json", cwd=tmp_path)
    assert refused.returncode == 2
    assert refused.stderr.startswith(
        "Error: s2.json: sent other requests than s1.json (eval.settings_digest '"
    )
    assert "the request settings (model, max_tokens, system) changed between these shards" in (
        refused.stderr
    )
    assert not (tmp_path / "merged.json").exists()
    again = replaygate("eval", *run, "--shard", "2/2", "--out", "s2.json", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    merged = replaygate("eval", "merge", *parts, "--out", "merged.json", "--no-history",
                        cwd=tmp_path)  # fmt: skip
    assert merged.returncode == 0, merged.stderr
    assert "settings_digest" not in (tmp_path / "merged.json").read_text("utf-8")


def one_sample_case(case_id: str) -> CaseResult:
    outcome = Outcome("contains", "gate", True, "", 1.0, "contains")
    sampled = SampledResult(case_id, 1, 1, (SampleResult(0, (outcome,), ONE_RUN),))
    return CaseResult(sampled, CaseCounts(1, True, 1, True, 1, 1, 1, 0, 5, 5, 1, 0.1))


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_the_gate_shows_a_case_id_that_reorders_its_line_as_escapes(
    tmp_path: Path, fmt: str
) -> None:
    # "\u202e" (RIGHT-TO-LEFT OVERRIDE) in a case id turned the rest of the FAIL line
    # around on a terminal and in a pull-request comment; the report showed it escaped.
    # "\u2028" (LINE SEPARATOR) broke the line where a log is read line by line.
    hidden = "rag\u202e\u2066bas\u2028ics"
    when = {"time": "2026-11-30T06:00:00Z"}
    baseline = tmp_path / "baseline.json"
    both = EvalResults((one_sample_case("kept"), one_sample_case(hidden)), when)
    update_baseline(baseline, both, reason="first baseline")
    results = EvalResults((one_sample_case("kept"),), when).write(tmp_path / "results.json")
    done = replaygate("gate", "--baseline", str(baseline), "--results", str(results),
                      "--format", fmt)  # fmt: skip
    assert done.returncode == 1, done.stderr
    said = "case rag\\u202e\\u2066bas\\u2028ics is in the baseline but not in the results"
    assert said in done.stdout
    assert not {"\u202e", "\u2066", "\u2028"} & set(done.stdout)
    shown = replaygate("gate", "--baseline", str(baseline), "--results", str(results), "--json")
    assert hidden in json.loads(shown.stdout)["problems"][0]  # as stored, for tools


def test_an_export_is_merged_in_one_transaction(tmp_path: Path) -> None:
    # Each run was committed on its own: an export of 5,000 runs took minutes of disk
    # syncs to merge, and a merge stopped half-way kept half of the export.
    source, target = tmp_path / "ci.db", tmp_path / "local.db"
    with History.open(source) as opened:
        for day in range(1, 6):
            opened.append(run(f"2026-11-0{day}T06:00:00Z", 4))
        opened.export_to(tmp_path / "runs.json")
    runs = read_export(tmp_path / "runs.json")
    with History.open(target) as opened:
        opened.add(runs[0])
        statements: list[str] = []
        opened._db.set_trace_callback(statements.append)
        assert opened.merge(runs) == (4, 1)
        opened._db.set_trace_callback(None)
        assert [r.id for r in opened.runs()] == [r.id for r in runs]
    assert statements.count("COMMIT") == 1


def dated_store(path: Path, *times: str) -> Path:
    """A store of one fixture per time, each recorded (``meta.recorded_at``) then."""
    with FixtureStore.open(path) as opened:
        for n, recorded in enumerate(times):
            request = {
                "model": "m",
                "max_tokens": 1,
                "messages": [{"role": "user", "content": f"{n}"}],
            }
            opened.put(Fixture.create(request, [{"text": "x"}], {"recorded_at": recorded}))
    return path


NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def test_a_fixture_dated_later_than_now_is_counted_apart_not_as_new(tmp_path: Path) -> None:
    # A fixture recorded on a machine whose clock was years ahead was drawn as 0 days
    # old, the freshest of the store, for ever; its age is unknown.
    store = dated_store(
        tmp_path / "fixtures.jsonl",
        "2026-11-29T12:00:00Z",
        "2099-01-01T00:00:00Z",
        "2026-11-30T12:30:00+00:00",  # within the hour clocks may differ by: today
    )
    ages = fixture_ages([store], now=NOW)
    assert sorted(ages.days) == [0.0, 1.0]
    assert (ages.undated, ages.future) == (0, 1)


@pytest.mark.slow
@needs_matplotlib
def test_the_report_says_how_many_fixtures_are_dated_later_than_now(tmp_path: Path) -> None:
    store = dated_store(tmp_path / "fixtures.jsonl", "2026-11-29T12:00:00Z", "2099-01-01T00:00:00Z")
    page = build_report([], stores=[store], now=NOW)
    assert "; 1 fixture(s) in: " in page
    assert "1 fixture(s) dated later than now are left out" in page
    assert "; 1 dated later than now" in page  # the histogram's title


def test_a_history_cut_short_is_named_damaged_and_left_as_it_is(tmp_path: Path) -> None:
    # A history a full disk or a partial copy cut short was "not a replaygate history
    # database", as if another file had been named.
    history = tmp_path / "history.db"
    with History.open(history) as opened:
        for day in range(1, 10):
            opened.append(run(f"2026-11-0{day}T06:00:00Z", 4))
    cut = history.read_bytes()[: history.stat().st_size // 2]
    history.write_bytes(cut)
    for command in (("history", "export", "--json"), ("report", "--out", "report.html")):
        done = replaygate(*command, "--history", str(history), cwd=tmp_path)
        assert done.returncode == 2, done
        assert done.stderr.startswith(
            f"Error: {history}: the history is damaged (database disk image is malformed); it "
            "was left as it is: restore it from a copy"
        ), done.stderr
    assert history.read_bytes() == cut
    assert not (tmp_path / "report.html").exists()


def test_a_history_with_a_damaged_table_is_refused_before_a_run_is_appended(
    tmp_path: Path,
) -> None:
    # A page of table runs overwritten: export and report named the history damaged, but
    # an append (eval) wrote into it, said the run was appended, and changed the file.
    history = tmp_path / "history.db"
    with History.open(history) as opened:
        opened.append(run("2026-11-01T06:00:00Z", 4))
    with sqlite3.connect(history) as db:
        page = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'runs'").fetchone()[0]
        size = db.execute("PRAGMA page_size").fetchone()[0]
    db.close()
    data = bytearray(history.read_bytes())
    start = (page - 1) * size + 8  # the page's header kept: its cells point past its end
    data[start : page * size] = random.Random(0).randbytes(size - 8)
    history.write_bytes(bytes(data))
    with pytest.raises(HistoryError, match=r"history\.db: the history is damaged \(On tree page"):
        History.open(history)
    assert history.read_bytes() == bytes(data)


@pytest.mark.parametrize(("char", "name"), [("\u202e", "RIGHT-TO-LEFT OVERRIDE"),
                                             ("\u2067", "RIGHT-TO-LEFT ISOLATE")])  # fmt: skip
def test_a_case_id_that_reorders_its_line_is_refused_by_line(
    tmp_path: Path, char: str, name: str
) -> None:
    # Accepted, the id turned the rest of each line printing it around (a FAIL line of
    # the gate, its pull-request comment): "rag" + U+202E + "basics is missing" showed
    # "rag gnissim si scisab". Arabic or Hebrew needs none of these; a mark is taken.
    case = {"question": "q?", "must_contain": ["x"], "samples": 1, "floor": 1}
    lines = [{**case, "id": "\u0645\u062b\u0627\u0644\u200f-1"}, {**case, "id": f"rag{char}basics"}]
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), "utf-8")
    with pytest.raises(CaseFormatError) as caught:
        load_eval_cases(path)
    assert str(caught.value).startswith(
        f"{path}:2: field 'id' holds U+{ord(char):04X} {name}, which changes the order a "
        "terminal or a page shows what follows it in"
    )
    path.write_text(json.dumps(lines[0]) + "\n", "utf-8")
    assert [c.id for c in load_eval_cases(path)] == [lines[0]["id"]]
