"""A store given to ``replaygate eval`` as ``--fixtures PATH`` only, not named by
``[tool.replaygate] fixtures``, is the eval's store too: while the runs counted hold no
eval run, ``prune --unused`` refuses to offer its fixtures when the project's baseline
(``source.fixtures``) or a run of its history names it, as it refuses the configured
store's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from replaygate.cli import main
from replaygate.evals import EvalResults, update_baseline
from replaygate.evals.history import History
from replaygate.fixtures import hits
from test_gate_compared_cases import OLD
from test_patrol import play, put

PYPROJECT = """\
[tool.replaygate]
cases = "evals/cases.jsonl"
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A project whose eval is run with ``--fixtures evals/alt.jsonl``; its hits log
    holds two test sessions and no eval run (a fresh clone where only the tests ran)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    put(tmp_path / "evals" / "alt.jsonl", "an eval question", "2026-11-01T00:00:00Z")
    put(tmp_path / "evals" / "alt.jsonl", "another", "2026-11-01T00:00:00Z")
    for n in range(2):
        log = hits.HitLog(tmp_path / hits.DEFAULT_DIR, f"20261130T00000{n}Z-test", tmp_path)
        log.note(tmp_path / "tests" / "fixtures" / "other.jsonl", "0123456789ab")
        log.flush()
    yield tmp_path


def eval_results(fixtures: object, time: str = "2026-11-30T00:00:00Z") -> EvalResults:
    """The results of an eval run that played ``fixtures`` (as ``eval --fixtures`` names it)."""
    return EvalResults(OLD, {"time": time, "mode": "replay", "model": "m",
                             "fixtures": fixtures})  # fmt: skip


def prune(*args: str) -> Result:
    return CliRunner().invoke(main, ["prune", "--unused", *args])


def test_a_store_the_baseline_names_is_not_pruned_while_no_eval_run_is_logged(
    project: Path,
) -> None:
    store = project / "evals" / "alt.jsonl"
    before = store.read_bytes()
    assert "would delete 2 fixture(s)" in prune("evals").output  # offered whole: the fault
    update_baseline(project / "evals" / "baseline.json", eval_results("evals/alt.jsonl"),
                    reason="first")  # fmt: skip
    done = prune("evals", "--yes")
    assert done.exit_code == 2, done.output
    assert (
        "no eval run in the hits log at .replaygate/hits, only 2 test session(s), which do "
        "not play evals/alt.jsonl:1 and 1 more of the eval's store evals/alt.jsonl "
        "(source.fixtures of the baseline evals/baseline.json): run `replaygate eval` first"
    ) in done.output
    assert store.read_bytes() == before
    assert not store.with_name("alt.jsonl.bak").exists()


def test_a_store_a_history_run_names_is_not_pruned_from_any_folder(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with History.open(project / ".replaygate" / "history.db") as history:
        history.append(eval_results("evals/alt.jsonl"))
    (project / "tests").mkdir()
    monkeypatch.chdir(project / "tests")  # the name is the project's, not the folder's
    done = prune("../evals", "--yes", "--hits-dir", "../.replaygate/hits")
    assert done.exit_code == 2, done.output
    assert (
        "of the eval's store ../evals/alt.jsonl (an eval run of the history "
        "../.replaygate/history.db): run `replaygate eval` first"
    ) in done.output
    assert (project / "evals" / "alt.jsonl").exists()


def test_a_store_no_eval_names_is_offered(project: Path) -> None:
    update_baseline(project / "evals" / "baseline.json", eval_results("evals/other.jsonl"),
                    reason="first")  # fmt: skip
    done = prune("evals")
    assert done.exit_code == 0, done.output
    assert "dry run: would delete 2 fixture(s)" in done.output


def test_a_baseline_prune_cannot_read_is_named_and_nothing_deleted(project: Path) -> None:
    (project / "pyproject.toml").write_text(PYPROJECT + 'baseline = "gate/baseline.json"\n')
    (project / "gate").mkdir()
    (project / "gate" / "baseline.json").write_text("{not json")
    before = (project / "evals" / "alt.jsonl").read_bytes()
    done = prune("evals", "--yes")
    assert done.exit_code == 2, done.output
    assert done.output.startswith("Error: gate/baseline.json: ")
    assert done.output.rstrip().endswith(
        "(patrol and prune read it to tell the eval's stores, which no test session "
        "plays): make it readable, or move it aside; nothing deleted"
    )
    assert (project / "evals" / "alt.jsonl").read_bytes() == before


def test_a_history_prune_cannot_read_is_named_and_nothing_deleted(project: Path) -> None:
    (project / ".replaygate" / "history.db").write_text("not a database")
    done = prune("evals", "--yes")
    assert done.exit_code == 2, done.output
    assert done.output.startswith("Error: .replaygate/history.db: ")
    assert "(patrol and prune read it to tell the eval's stores" in done.output
    assert (project / "evals" / "alt.jsonl").exists()


def test_a_name_no_file_can_have_names_no_store(project: Path) -> None:
    """A baseline edited by hand whose source.fixtures holds a NUL, or is no text."""
    baseline = project / "evals" / "baseline.json"
    update_baseline(baseline, eval_results("evals/alt.jsonl\x00"), reason="first")
    assert "\\u0000" in baseline.read_text()
    for fixtures in ("evals/alt.jsonl\x00", 5):
        with History.open(project / ".replaygate" / "history.db") as history:
            history.append(eval_results(fixtures))
    done = prune("evals")
    assert done.exit_code == 0, done.output
    assert "dry run: would delete 2 fixture(s)" in done.output


def test_patrol_calls_the_eval_s_store_of_unknown_use_while_no_eval_run_is_logged(
    project: Path,
) -> None:
    update_baseline(project / "evals" / "baseline.json", eval_results("evals/alt.jsonl"),
                    reason="first")  # fmt: skip
    done = CliRunner().invoke(main, ["patrol", "evals"])
    assert done.exit_code == 0, done.output
    rows = [line.split() for line in done.output.splitlines() if line.startswith("evals/")]
    assert [row[4:] for row in rows] == [["-", "0", "unreferenced"]] * 2
    assert (
        "no eval run in the hits log at .replaygate/hits, only 2 test session(s): the use of "
        "the 2 fixture(s) of the eval's store evals/alt.jsonl is unknown (played: -),\n"
        "as source.fixtures of the baseline evals/baseline.json names it: run `replaygate "
        "eval` (it logs which fixtures it replays), then patrol again\n"
    ) in done.output
    assert "0 not played in the last 2 run(s), 0 neither played nor referenced\n" in done.output
    assert "UNUSED" not in done.output and "`replaygate prune" not in done.output


def test_patrol_names_a_history_it_cannot_read(project: Path) -> None:
    (project / ".replaygate" / "history.db").write_text("not a database")
    done = CliRunner().invoke(main, ["patrol", "evals"])
    assert done.exit_code == 2, done.output
    assert done.output.startswith("Error: .replaygate/history.db: ")
    assert done.output.endswith("make it readable, or move it aside\n")


def test_patrol_shows_what_a_test_session_played_of_the_eval_s_store(project: Path) -> None:
    store = project / "evals" / "alt.jsonl"
    update_baseline(project / "evals" / "baseline.json", eval_results("evals/alt.jsonl"),
                    reason="first")  # fmt: skip
    play(store, "another", project / hits.DEFAULT_DIR, "20261130T000009Z-test", project)
    done = CliRunner().invoke(main, ["patrol", "evals"])
    assert done.exit_code == 0, done.output
    played = {line.split()[0]: line.split()[4] for line in done.output.splitlines()
              if line.startswith("evals/")}  # fmt: skip
    assert played == {"evals/alt.jsonl:1": "-", "evals/alt.jsonl:2": "1"}
    assert "the use of the 1 fixture(s) of the eval's store evals/alt.jsonl is unknown" in (
        done.output
    )


def test_an_eval_run_of_another_store_does_not_let_the_eval_s_store_be_pruned(
    project: Path,
) -> None:
    """An eval run of an experiment's store is counted; the eval's store the baseline
    names, which no counted run played, is not offered, and patrol says so."""
    update_baseline(project / "evals" / "baseline.json", eval_results("evals/alt.jsonl"),
                    reason="first")  # fmt: skip
    experiment = project / "experiments" / "fixtures.jsonl"
    key = put(experiment, "tried once", "2026-11-01T00:00:00Z")
    log = hits.HitLog(project / hits.DEFAULT_DIR, "20261130T000009Z-eval", project,
                      runner="eval")  # fmt: skip
    log.note(experiment, key)
    log.flush()
    before = (project / "evals" / "alt.jsonl").read_bytes()
    done = prune("evals", "--yes")
    assert done.exit_code == 2, done.output
    assert (
        "none of the 1 eval run(s) in the hits log at .replaygate/hits plays "
        "evals/alt.jsonl:1 and 1 more of the eval's store evals/alt.jsonl (source.fixtures "
        "of the baseline evals/baseline.json): run `replaygate eval` first"
    ) in done.output
    assert (project / "evals" / "alt.jsonl").read_bytes() == before
    done = CliRunner().invoke(main, ["patrol", "evals"])
    assert done.exit_code == 0, done.output
    assert (
        "none of the 1 eval run(s) in the hits log at .replaygate/hits plays it: the use of "
        "the 2 fixture(s) of the eval's store evals/alt.jsonl is unknown (played: -),\n"
    ) in done.output
    assert "UNUSED" not in done.output


def test_only_the_last_runs_of_the_history_name_the_eval_s_stores(project: Path) -> None:
    """A store the eval left (its runs since play another) goes, as --runs counts."""
    with History.open(project / ".replaygate" / "history.db") as history:
        history.append(eval_results("evals/alt.jsonl", "2026-11-01T00:00:00Z"))
        history.append(eval_results("evals/new.jsonl", "2026-11-02T00:00:00Z"))
    assert prune("evals", "--runs", "2").exit_code == 2
    done = prune("evals", "--runs", "1")
    assert done.exit_code == 0, done.output
    assert "dry run: would delete 2 fixture(s)" in done.output
