"""What ``replaygate eval`` writes and says around a run: the results file and the
history run both or neither, a shard's digest of the store it replayed (``eval merge``
refuses shards of two stores), and a re-record hint that carries the run's flags."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from replaygate.cli import main
from replaygate.examples.research_copilot import shipped_eval_cases, shipped_fixtures

pytestmark = pytest.mark.filterwarnings("ignore::replaygate.sampling.advice.SamplingWarning")

AGENT = "replaygate.examples.research_copilot:copilot"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The first two shipped cases, sampled once, and a copy of the shipped store."""
    lines = shipped_eval_cases().read_text(encoding="utf-8").splitlines()[:2]
    cases = [{**json.loads(line), "samples": 1, "floor": 1} for line in lines]
    (tmp_path / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases))
    (tmp_path / "f.jsonl").write_bytes(shipped_fixtures().read_bytes())
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CI", "1")
    return tmp_path


def run(*args: str, fixtures: str = "f.jsonl") -> Result:
    base = ["--agent", AGENT, "--cases", "cases.jsonl", "--fixtures", fixtures]
    return CliRunner().invoke(main, ["eval", *base, *args])


def full_history(project: Path) -> Path:
    """A history that opens but takes no run, as a full disk refuses one."""
    assert run("--history", "h.db").exit_code == 0
    with sqlite3.connect(project / "h.db") as db:
        db.execute(
            "CREATE TRIGGER full BEFORE INSERT ON runs "
            "BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END"
        )
    return project / "h.db"


@pytest.mark.slow  # the eval runner's whole flow
def test_a_history_that_cannot_take_the_run_leaves_no_new_results_file(project: Path) -> None:
    history = full_history(project)
    result = run("--history", str(history), "--out", "results.json")
    assert result.exit_code == 2, result.output
    assert "database or disk is full" in result.output
    assert "the results file results.json was not written (the results and the history run " in (
        result.output
    )
    assert not (project / "results.json").exists()


@pytest.mark.slow  # the eval runner's whole flow
def test_a_history_that_cannot_take_the_run_leaves_the_old_results_file(project: Path) -> None:
    history = full_history(project)
    (project / "results.json").write_text("the results of an earlier run\n")
    result = run("--history", str(history), "--out", "results.json")
    assert result.exit_code == 2, result.output
    assert "the results file results.json was left as it was" in result.output
    assert (project / "results.json").read_text() == "the results of an earlier run\n"


@pytest.mark.slow  # the eval runner's whole flow
def test_merge_refuses_shards_that_replayed_two_versions_of_the_store(project: Path) -> None:
    assert run("--shard", "1/2", "--out", "s1.json").exit_code == 0
    with (project / "f.jsonl").open("a") as store:
        store.write("\n")  # the store changed between the shards
    assert run("--shard", "2/2", "--out", "s2.json").exit_code == 0
    merged = CliRunner().invoke(main, ["eval", "merge", "s1.json", "s2.json", "--no-history"])
    assert merged.exit_code == 2, merged.output
    assert "s2.json: replayed other fixtures than s1.json (eval.fixtures_digest " in merged.output
    assert "the fixture store 'f.jsonl' changed between these shards" in merged.output


@pytest.mark.slow  # the eval runner's whole flow
def test_merge_names_both_stores_of_shards_that_replayed_two_stores(project: Path) -> None:
    # a copy of the same store under another name was said to have changed between them
    assert run("--shard", "1/2", "--out", "s1.json").exit_code == 0
    (project / "copy.jsonl").write_bytes((project / "f.jsonl").read_bytes())
    assert run("--shard", "2/2", "--out", "s2.json", fixtures="copy.jsonl").exit_code == 0
    merged = CliRunner().invoke(main, ["eval", "merge", "s1.json", "s2.json", "--no-history"])
    assert merged.exit_code == 2, merged.output
    assert (
        "s2.json: replayed other fixtures than s1.json: it read the fixture store 'copy.jsonl', "
        "and s1.json 'f.jsonl'; run every shard on the same one"
    ) in merged.output
    assert "changed between these shards" not in merged.output


@pytest.mark.slow  # the eval runner's whole flow
def test_merge_takes_shards_of_one_store(project: Path) -> None:
    assert run("--shard", "1/2", "--out", "s1.json").exit_code == 0
    assert run("--shard", "2/2", "--out", "s2.json").exit_code == 0
    merged = CliRunner().invoke(main, ["eval", "merge", "s1.json", "s2.json", "--no-history"])
    assert merged.exit_code == 0, merged.output


@pytest.mark.slow  # the eval runner's whole flow
def test_the_rerecord_hint_of_a_miss_carries_the_request_settings_given(project: Path) -> None:
    result = run("--no-history", "--system", "Be brief.", "--max-tokens", "300")
    assert result.exit_code == 2, result.output
    assert (
        "re-record: `replaygate eval --record-mode record-missing --approve-live --agent "
        f"{AGENT} --cases cases.jsonl --fixtures f.jsonl --max-tokens 300 --system "
        "'Be brief.'`. Otherwise revert the change." in result.output
    )
