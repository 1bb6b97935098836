"""A store played by a test that did not pass keeps every fixture: a test that failed
(errored, skipped as it ran, was interrupted) after its first request never sent the
others, which is no sign that they are unused. The pytest plugin notes how each test
ended beside the hits (``<run>-<pid>.outcomes``); a log written before it did still
reads, and judges as it did."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from replaygate.cli import main
from replaygate.fixtures import hits
from test_patrol import play, put

RUN = "20261130T000000Z-0001"
PLAN = "tests/test_agent.py::test_plan"
MODULE = "def test_plan(anthropic_client):\n    ...\n"
HELD = "kept: 1 played, 0 referenced only, 1 in stores of tests that did not pass"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tests" / "fixtures").mkdir(parents=True)
    (tmp_path / "tests" / "test_agent.py").write_text(MODULE)
    yield tmp_path


def first_turn_played(project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """test_plan's store holds its two turns; in the last run test_plan played the first."""
    store = project / "tests" / "fixtures" / "test_agent" / "test_plan.jsonl"
    put(store, "first turn", "2026-01-01T00:00:00Z")
    put(store, "second turn", "2026-01-01T00:00:00Z")
    monkeypatch.setenv("PYTEST_CURRENT_TEST", f"{PLAN} (call)")
    play(store, "first turn", project / hits.DEFAULT_DIR, RUN, project)
    return store


def ended(project: Path, outcome: str | None) -> None:
    """The run noted how test_plan ended (None: it started and never ended, another test
    of the run did)."""
    log = hits.OutcomeLog(project / hits.DEFAULT_DIR, RUN)
    if outcome is None:
        log.note("tests/test_agent.py::test_other", "passed")
    else:
        log.note(PLAN, outcome)


@pytest.mark.parametrize("outcome", ["failed", "skipped", "interrupted", None])
def test_the_store_of_a_test_that_did_not_pass_keeps_what_it_did_not_reach(
    project: Path, monkeypatch: pytest.MonkeyPatch, outcome: str | None
) -> None:
    store = first_turn_played(project, monkeypatch)
    ended(project, outcome)
    before = store.read_bytes()
    done = CliRunner().invoke(main, ["prune", "--unused", "tests/fixtures", "--runs", "1", "--yes"])
    assert done.exit_code == 0, done.output
    assert HELD in done.output
    assert f"did not pass in the runs counted ({PLAN}: failed, errored" in done.output
    assert "nothing to prune" in done.output
    assert store.read_bytes() == before
    report = CliRunner().invoke(main, ["patrol", "tests/fixtures", "--runs", "1", "--json"])
    rows = {row["fixture"]: row for row in json.loads(report.output)["fixtures"]}
    second = rows["tests/fixtures/test_agent/test_plan.jsonl:2"]
    assert (second["plays"], second["failed_tests"], second["unused"]) == (0, [PLAN], False)
    assert json.loads(report.output)["summary"]["held_by_failed_tests"] == 1
    table = CliRunner().invoke(main, ["patrol", "tests/fixtures", "--runs", "1"]).output
    assert "unplayed unreferenced failed-test" in table
    assert "1 fixture(s) neither played nor referenced are kept" in table


@pytest.mark.parametrize("outcome", ["passed", "written before outcomes were"])
def test_a_passing_run_and_a_log_written_before_judge_as_they_did(
    project: Path, monkeypatch: pytest.MonkeyPatch, outcome: str
) -> None:
    """A test that passed no longer asks what it did not play; a run logged before
    outcomes were noted (no ``.outcomes`` file) is read as it was."""
    first_turn_played(project, monkeypatch)
    if outcome == "passed":
        ended(project, outcome)
    done = CliRunner().invoke(main, ["prune", "--unused", "tests/fixtures", "--runs", "1"])
    assert done.exit_code == 0, done.output
    assert "kept: 1 played, 0 referenced only\n" in done.output
    assert "tests/fixtures/test_agent/test_plan.jsonl:2" in done.output


def test_a_test_that_failed_in_any_run_counted_keeps_its_store(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A later run in which it passed without the second turn does not undo the failed
    one among the runs counted."""
    store = first_turn_played(project, monkeypatch)
    ended(project, "failed")
    later = "20261201T000000Z-0002"
    play(store, "first turn", project / hits.DEFAULT_DIR, later, project)
    hits.OutcomeLog(project / hits.DEFAULT_DIR, later).note(PLAN, "passed")
    both = CliRunner().invoke(main, ["prune", "--unused", "tests/fixtures", "--runs", "2"])
    assert HELD in both.output, both.output
    assert "nothing to prune" in both.output
    last = CliRunner().invoke(main, ["prune", "--unused", "tests/fixtures", "--runs", "1"])
    assert "tests/fixtures/test_agent/test_plan.jsonl:2" in last.output, last.output


def test_a_damaged_outcome_line_is_named(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first_turn_played(project, monkeypatch)
    (project / hits.DEFAULT_DIR / f"{RUN}-7.outcomes").write_text('{"test": 3}\n')
    for command in (["patrol", "tests/fixtures"], ["prune", "--unused", "tests/fixtures"]):
        done = CliRunner().invoke(main, command)
        assert done.exit_code == 2, done.output
        assert (
            f"Error: damaged hits log: .replaygate/hits/{RUN}-7.outcomes:1: not an outcome "
            "line: field 'test' must be text, got 3"
        ) in done.output


def test_outcomes_go_with_their_run_s_hits_and_older_readers_pass_them_over(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "hits"
    runs = [f"2026113{d}T000000Z-ab0{d}" for d in range(4)]
    for run in runs:
        log = hits.HitLog(folder, run, tmp_path)
        log.note(tmp_path / "s.jsonl", "265288aeb827")
        log.flush()
        hits.OutcomeLog(folder, run).note("tests/test_x.py::test_y", "failed")
    (folder / "20261205T000000Z-ab09-5.outcomes").write_bytes(b"")  # its hits were deleted
    assert len(list(hits.read_hits(folder))) == 4  # the hits readers read *.jsonl alone
    assert hits.trim(folder, keep_runs=2) == 2 * 3
    assert sorted(p.name.split("-")[1] for p in folder.glob("*.jsonl")) == ["ab03"]
    assert sorted(p.name.split("-")[1] for p in folder.glob("*.outcomes")) == ["ab03", "ab09"]
    assert hits.read_outcomes(folder) == {
        runs[3]: {"tests/test_x.py::test_y": False},
        "20261205T000000Z-ab09": {},
    }


FAILING = """\
from pathlib import Path

import pytest

from replaygate.models.replay import ReplayModel
from replaygate.models.types import Message

HERE = Path(__file__).parent / "fixtures"


def plan(store):
    model = ReplayModel(HERE / store, model="claude-test-model", max_tokens=100)
    model.complete([Message.user("first turn")], [])
    return model


def test_plain_failure():
    assert False


def test_fails():
    plan("fails.jsonl")
    raise RuntimeError("a bug in the tool loop")


def test_interrupted():
    plan("interrupted.jsonl")
    raise KeyboardInterrupt
"""


@pytest.mark.slow  # pytest sessions of the plugin: tests fail, the last is interrupted
def test_the_plugin_notes_a_failed_and_an_interrupted_test(pytester: pytest.Pytester) -> None:
    """Of a run that replays something; one that replays nothing leaves no trace."""
    fixtures = pytester.path / "tests" / "fixtures"
    stores = [fixtures / "fails.jsonl", fixtures / "interrupted.jsonl"]
    for store in stores:
        put(store, "first turn", "2026-01-01T00:00:00Z")
        put(store, "second turn", "2026-01-01T00:00:00Z")
    (pytester.path / "tests" / "test_agent.py").write_text(FAILING)
    pytester.makepyprojecttoml("[tool.pytest.ini_options]\n")
    pytester.inline_run("-p", "no:cacheprovider", "-k", "plain").assertoutcome(failed=1)
    assert not (pytester.path / ".replaygate").exists()
    session = pytester.inline_run("-p", "no:cacheprovider", no_reraise_ctrlc=True)
    assert session.ret == pytest.ExitCode.INTERRUPTED
    noted = [
        json.loads(line)
        for file in (pytester.path / hits.DEFAULT_DIR).glob("*.outcomes")
        for line in file.read_text().splitlines()
    ]
    assert [(n["test"], n["outcome"]) for n in noted] == [
        ("tests/test_agent.py::test_plain_failure", "failed"),  # kept till the run played
        ("tests/test_agent.py::test_fails", "failed"),
        ("tests/test_agent.py::test_interrupted", "interrupted"),
    ]
    before = [store.read_bytes() for store in stores]
    done = CliRunner().invoke(
        main, ["prune", "--unused", str(fixtures), "--runs", "1", "--refs", str(fixtures), "--yes"]
    )
    assert done.exit_code == 0, done.output
    assert (
        "kept: 2 played, 0 referenced only, 2 in stores of tests that did not pass" in done.output
    )
    assert [store.read_bytes() for store in stores] == before


def test_outcomes_wait_for_the_run_s_hits_looked_for_once_a_second_and_as_it_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder, run = tmp_path / "hits", "20261205T000000Z-ab01"
    looks: list[bool] = []
    looked = hits.OutcomeLog.played
    monkeypatch.setattr(hits.OutcomeLog, "played", lambda self: looks.append(True) or looked(self))
    log = hits.OutcomeLog(folder, run)
    log.note("tests/test_x.py::test_a", "passed")  # nothing played yet: kept
    hit_log = hits.HitLog(folder, run, tmp_path)
    hit_log.note(tmp_path / "s.jsonl", "265288aeb827")
    hit_log.flush()
    log.note("tests/test_x.py::test_b", "failed")  # within a second of the last look
    assert len(looks) == 1 and not log.file.exists()
    log.settle()
    assert hits.read_outcomes(folder) == {
        run: {"tests/test_x.py::test_a": True, "tests/test_x.py::test_b": False}
    }
    idle = hits.OutcomeLog(folder, "20261205T000000Z-ab02")
    idle.note("tests/test_x.py::test_a", "passed")
    idle.settle()  # a run that played nothing leaves no trace
    assert not idle.file.exists()


def test_a_test_id_is_asked_about_only_as_its_line_is_written(tmp_path: Path) -> None:
    # every test of a session was scanned for secrets as it ended, the import of the
    # secret scanner included, in a run whose outcomes no file ever holds
    folder, asked = tmp_path / "hits", []

    def writable(test: str) -> bool:
        asked.append(test)
        return "secret" not in test

    idle = hits.OutcomeLog(folder, "20261205T000000Z-ab03", writable)
    idle.note("tests/test_x.py::test_a", "passed")
    idle.settle()
    assert asked == []
    run = "20261205T000000Z-ab04"
    log = hits.OutcomeLog(folder, run, writable)
    log.note("tests/test_x.py::test_a", "passed")
    log.note("tests/test_x.py::test_secret", "passed")
    hit_log = hits.HitLog(folder, run, tmp_path)
    hit_log.note(tmp_path / "s.jsonl", "265288aeb827")
    hit_log.flush()
    log.settle()
    assert asked == ["tests/test_x.py::test_a", "tests/test_x.py::test_secret"]
    assert hits.read_outcomes(folder) == {run: {"tests/test_x.py::test_a": True}}
