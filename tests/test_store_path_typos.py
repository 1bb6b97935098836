"""A store path one typo away from a path there (``tests/fixture`` for ``tests/fixtures``,
``r.jsonl`` for ``rc.jsonl``) is named with the path meant: the commands said only "no
such file or folder" or "no fixture store at ...", ``run`` and a replay's miss said to
record it first (a second store beside the one meant), and pytest's ``--replaygate-dir``
misspelt replayed every test as never recorded."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest

from replaygate import FixtureMismatchError, FixtureStore, Message, ReplayModel
from replaygate.missing import found_above, typo_of
from replaygate.pytest_plugin.options import MODE, check_fixtures_dir
from run_cli import replaygate
from test_store_given import fixture

MEANT = "did you mean tests/fixtures, which is there?"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project whose store is tests/fixtures/rc.jsonl, the working folder."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tests" / "fixtures").mkdir(parents=True)
    with FixtureStore.open(tmp_path / "tests" / "fixtures" / "rc.jsonl") as store:
        store.put(fixture("one"))
    return tmp_path


def test_only_a_path_there_one_typo_away_is_named(project: Path) -> None:
    assert typo_of("tests/fixture") == "tests/fixtures"
    assert typo_of("tests/fixture/rc.jsonl") == "tests/fixtures/rc.jsonl"
    assert typo_of(project / "tests/fixturs") == str(project / "tests/fixtures")
    assert typo_of("tests/fixture/other.jsonl") is None  # spelt right, it is not there either
    assert typo_of("tests/cassettes") is None and typo_of("tests/fixtures") is None
    (project / "g").mkdir()  # `verify -` said "did you mean g, which is there?"
    assert typo_of("-") is None and typo_of("h") is None and typo_of("tests/f") is None


def test_the_commands_name_the_store_meant(project: Path) -> None:
    for command in (("verify",), ("checksum",), ("show", "abc", "--fixtures")):
        done = replaygate(*command, "tests/fixture")
        assert done.returncode == 2
        assert done.stderr == f"Error: tests/fixture: no such file or folder: {MEANT}\n", command
    patrolled = replaygate("patrol", "tests/fixture")
    assert patrolled.stderr == f"Error: no fixture store at tests/fixture: {MEANT}\n"
    agent = "replaygate.examples.research_copilot:copilot"
    ran = replaygate("run", "--agent", agent, "--fixtures", "tests/fixtures/r.jsonl", "q")
    assert ran.returncode == 2
    assert ran.stderr.startswith(
        "Error: no fixtures at tests/fixtures/r.jsonl (did you mean tests/fixtures/rc.jsonl, "
        "which is there?): record them first"
    )


def _config(root: Path, folder: str, mode: str) -> pytest.Config:
    """A run's config as ``check_fixtures_dir`` reads it: ``--replaygate-dir folder`` in
    ``mode``, run from its rootdir ``root``."""
    options = {"replaygate_dir": folder, MODE: mode}
    return cast(
        pytest.Config,
        SimpleNamespace(
            rootpath=root,
            invocation_params=SimpleNamespace(dir=root),
            getoption=lambda name, default=None: options.get(name, default),
        ),
    )


def test_a_misspelt_replaygate_dir_is_a_usage_error_replaying(project: Path) -> None:
    with pytest.raises(pytest.UsageError) as refused:
        check_fixtures_dir(_config(project, "tests/fixture", "replay"))
    assert str(refused.value) == (
        f"--replaygate-dir tests/fixture: {project}/tests/fixture is not there, but "
        f"{project}/tests/fixtures is: did you mean --replaygate-dir=tests/fixtures?"
    )
    check_fixtures_dir(_config(project, "tests/fixtures", "replay"))
    check_fixtures_dir(_config(project, "tests/recorded", "replay"))  # like none there
    check_fixtures_dir(_config(project, "tests/fixture", "record-missing"))  # a new folder


def test_a_path_given_from_below_the_folder_it_names_it_from_is_named_from_here(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `cd tests; replaygate verify tests/fixtures` said only "no such file or folder"
    monkeypatch.chdir(project / "tests")
    assert found_above("tests/fixtures") == "fixtures"
    assert found_above("tests/fixtures/rc.jsonl") == "fixtures/rc.jsonl"
    assert found_above("fixtures") is None  # there
    assert found_above("tests/recorded") is None
    done = replaygate("verify", "tests/fixtures")
    assert done.returncode == 2
    assert done.stderr == (
        "Error: tests/fixtures: no such file or folder: did you mean fixtures, which is there?\n"
    )


def test_a_replay_of_a_store_the_code_names_misspelt_names_the_store_meant(
    project: Path,
) -> None:
    replay = ReplayModel("tests/fixture/rc.jsonl", model="m", max_tokens=8)
    with pytest.raises(FixtureMismatchError) as missed:
        replay.complete([Message.user("hi")], [])
    assert (
        "there is no store at tests/fixture/rc.jsonl (a relative path, read from the working "
        f"folder, {project}): did you mean tests/fixtures/rc.jsonl, which is there?; if not: "
        "record it first" in str(missed.value)
    )
    # a store the pytest plugin derives from a test's name (test_x[2] beside test_x[1]) is
    # no misspelling: its session says so, and the miss says to record it
    session = ReplayModel("tests/fixtures/rc2.jsonl", model="m", max_tokens=8)
    assert "rc.jsonl, which is there" in _missed(session)
    session.session.store_named = False
    assert "which is there" not in _missed(session)


def _missed(model: ReplayModel) -> str:
    """The message of ``model``'s miss of a request its store does not hold."""
    with pytest.raises(FixtureMismatchError) as missed:
        model.complete([Message.user("hi")], [])
    return str(missed.value)
