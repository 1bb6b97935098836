"""``prune --yes`` deletes nothing while a test session or an eval run of the project is
replaying: what such a run plays is logged as it goes, so a fixture it has yet to replay
reads as unused, and was deleted from under it (the run then missed it)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from replaygate.fixtures import hits
from replaygate.fixtures.running import RUNNING, marked_running, runs_in_progress
from test_prune import prune, setup_store, stored_keys

HITS = Path(".replaygate") / "hits"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tests" / "fixtures").mkdir(parents=True)
    yield tmp_path


def test_prune_deletes_nothing_while_a_run_replays_then_deletes_once_it_ended(
    project: Path,
) -> None:
    store = project / "tests" / "fixtures" / "rag.jsonl"
    keys = setup_store(project, store)
    with marked_running(project / HITS, "20261201T000000Z-0002") as mark:
        listed = prune(str(store), "--unused")
        refused = prune(str(store), "--unused", "--yes")
        assert stored_keys(store) == set(keys.values())  # the run still finds every one
    running = (
        f"a test session or eval run is replaying now (its mark {HITS / mark.file.name}, held "
        "until it ends): a fixture it has yet to play reads as unused until it has played it"
    )
    assert listed.exit_code == 0, listed.output
    assert f"{running}: --yes deletes nothing until it has ended\n" in listed.output
    assert refused.exit_code == 2, refused.output
    assert refused.output.endswith(f"Error: {running}: prune once it has ended; nothing deleted\n")
    assert not mark.file.exists()  # removed as the run ended
    done = prune(str(store), "--unused", "--yes")
    assert done.exit_code == 0, done.output
    assert stored_keys(store) == {keys["played"], keys["referenced"]}


def test_the_mark_of_a_run_that_was_killed_holds_nothing_back(project: Path) -> None:
    store = project / "tests" / "fixtures" / "rag.jsonl"
    keys = setup_store(project, store)
    left = project / HITS / f"20261130T000000Z-0001-4242{RUNNING}"  # its lock went with it
    left.write_bytes(b"")
    assert runs_in_progress(project / HITS) == []
    done = prune(str(store), "--unused", "--yes")
    assert done.exit_code == 0, done.output
    assert stored_keys(store) == {keys["played"], keys["referenced"]}
    hits.trim(project / HITS, keep_runs=0)  # removed with its run's files
    assert not left.exists()


def test_an_eval_run_and_a_test_session_hold_their_mark_while_they_replay(
    project: Path, pytester: pytest.Pytester
) -> None:
    (project / HITS).mkdir(parents=True)  # the project's runs were logged before
    with hits.logging_run(project / HITS, project, "eval") as log:
        assert runs_in_progress(project / HITS) == [log.file.stem]
    assert runs_in_progress(project / HITS) == []
    (pytester.path / HITS).mkdir(parents=True)
    pytester.makepyfile(
        test_held="""
        from pathlib import Path
        from replaygate.fixtures.running import runs_in_progress

        def test_held(pytestconfig):
            assert len(runs_in_progress(Path(pytestconfig.rootpath, ".replaygate/hits"))) == 1
        """
    )
    pytester.runpytest("-p", "no:randomly").assert_outcomes(passed=1)
    assert runs_in_progress(pytester.path / HITS) == []
