"""``patrol`` and ``prune`` read the project's hits log and search the project's tests
folder by default, whatever folder they run from (``cd tests; replaygate prune
fixtures``); a default reference folder that is not there is said, and ``prune`` then
deletes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from replaygate.cli import main
from replaygate.fixtures import hits
from test_patrol import play, put

MODULE = "def test_one(anthropic_client):\n    ...\n\ndef test_two(anthropic_client):\n    ...\n"


def deselected(project: Path, tests: str) -> Path:
    """A project, its tests in ``tests``, whose last run (``pytest -k one``) played
    test_one's store only; the store of test_two, whose module still defines it."""
    (project / "pyproject.toml").write_text(f"[tool.pytest.ini_options]\ntestpaths = ['{tests}']\n")
    (project / tests).mkdir()
    (project / tests / "test_a.py").write_text(MODULE)
    fixtures = project / tests / "fixtures" / "test_a"
    put(fixtures / "test_one.jsonl", "one", "2026-01-01T00:00:00Z")
    put(fixtures / "test_two.jsonl", "two", "2026-01-01T00:00:00Z")
    play(
        fixtures / "test_one.jsonl",
        "one",
        project / hits.DEFAULT_DIR,
        "20261130T000000Z-0001",
        project,
    )
    return fixtures / "test_two.jsonl"


def test_from_the_tests_folder_the_project_s_hits_and_references_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept = deselected(tmp_path, "tests")
    before = kept.read_bytes()
    monkeypatch.chdir(tmp_path / "tests")
    done = CliRunner().invoke(main, ["prune", "fixtures", "--unused", "--runs", "1", "--yes"])
    assert done.exit_code == 0, done.output
    assert "last 1 test session(s), 0 eval run(s); kept: 1 played, 1 referenced only" in done.output
    assert "nothing to prune" in done.output
    assert kept.read_bytes() == before
    report = CliRunner().invoke(main, ["patrol", "fixtures", "--runs", "1", "--json"])
    assert report.exit_code == 0, report.output
    found = json.loads(report.output)
    assert (found["hits_dir"], found["refs"], found["missing_refs"]) == (
        "../.replaygate/hits",
        ["../tests"],
        None,
    )
    assert found["summary"]["unused"] == 0


def test_without_the_default_tests_folder_no_reference_is_searched_and_nothing_deleted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The tests live in ``test/``: the default ``--refs`` (the project's ``tests``) is not
    there, so test_two's module is not searched: patrol and prune's dry run say so, and
    prune --yes deletes nothing until the folder is named."""
    kept = deselected(tmp_path, "test")
    before = kept.read_bytes()
    monkeypatch.chdir(tmp_path)
    table = CliRunner().invoke(main, ["patrol", "test/fixtures", "--runs", "1"])
    assert table.exit_code == 0, table.output
    assert (
        "no reference searched: tests, the default --refs (the project's tests folder), is no "
        "folder; name the folders of code that may name a store with --refs"
    ) in table.output
    assert "(`replaygate prune test/fixtures --unused --runs 1` lists them)" in table.output
    listed = CliRunner().invoke(main, ["prune", "test/fixtures", "--unused", "--runs", "1"])
    assert listed.exit_code == 0, listed.output
    assert listed.output.splitlines()[-2:] == [
        "dry run: would delete 1 fixture(s); add --yes to delete",
        "no reference searched: tests, the default --refs (the project's tests folder), is no "
        "folder; name the folders of code that may name a store with --refs: --yes deletes "
        "nothing until then",
    ]
    done = CliRunner().invoke(main, ["prune", "test/fixtures", "--unused", "--runs", "1", "--yes"])
    assert done.exit_code == 2, done.output
    assert (
        "Error: no reference searched: tests, the default --refs (the project's tests "
        "folder), is no folder, so code may name test/fixtures/test_a/test_two.jsonl:1, "
        "which no run counted played: name the folders of code that may name a store "
        "with --refs (e.g. --refs test --refs src); nothing deleted"
    ) in " ".join(done.output.split())
    assert kept.read_bytes() == before
    named = ["prune", "test/fixtures", "--unused", "--runs", "1", "--refs", "test", "--yes"]
    done = CliRunner().invoke(main, named)
    assert done.exit_code == 0, done.output
    assert "nothing to prune" in done.output
    assert kept.read_bytes() == before


def test_a_tests_folder_of_stores_alone_searches_nothing_and_nothing_is_deleted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A monorepo run from its top: the stores are under the top's ``tests/fixtures``, the
    tests in its packages (``services/a/tests``). The default ``--refs``, the top's
    ``tests``, holds the stores alone, so the module defining the skipped test_two is not
    searched: said as for a folder that is not there, and prune --yes deletes nothing."""
    kept = deselected(tmp_path, "tests")
    (tmp_path / "services" / "a").mkdir(parents=True)
    (tmp_path / "tests" / "test_a.py").rename(tmp_path / "services" / "a" / "test_a.py")
    (kept.parent / "test_one.jsonl.lock").touch()
    before = kept.read_bytes()
    monkeypatch.chdir(tmp_path)
    table = CliRunner().invoke(main, ["patrol", "tests/fixtures", "--runs", "1"])
    assert table.exit_code == 0, table.output
    assert (
        "no reference searched: tests, the default --refs (the project's tests folder), holds "
        "no file but fixture stores; name the folders of code that may name a store with --refs"
    ) in table.output
    argv = ["prune", "tests/fixtures", "--unused", "--runs", "1", "--yes"]
    done = CliRunner().invoke(main, argv)
    assert done.exit_code == 2, done.output
    assert "holds no file but fixture stores, so code may name tests/fixtures/test_a/" in (
        " ".join(done.output.split())
    )
    assert kept.read_bytes() == before
    done = CliRunner().invoke(main, [*argv, "--refs", "services"])
    assert done.exit_code == 0, done.output
    assert "nothing to prune" in done.output
    assert kept.read_bytes() == before


def test_stores_of_a_package_with_a_hits_log_of_its_own_are_refused_from_the_top(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A monorepo's package run from inside it logs its plays under the package: read from
    the top's log, its fixtures were all UNUSED, and prune --yes deleted them. patrol and
    prune of a folder holding them name the package's log and the command to run."""
    package = tmp_path / "services" / "a"
    package.mkdir(parents=True)
    kept = deselected(package, "tests")
    (tmp_path / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    top = tmp_path / "tests" / "fixtures" / "test_top" / "test_top.jsonl"  # a run from the top
    put(top, "top", "2026-01-01T00:00:00Z")
    play(top, "top", tmp_path / hits.DEFAULT_DIR, "20261201T000000Z-0002", tmp_path)
    before = kept.read_bytes()
    monkeypatch.chdir(tmp_path)
    for argv in (["patrol", "services"], ["prune", "services", "--unused", "--refs", ".", "--yes"]):
        done = CliRunner().invoke(main, argv)
        assert done.exit_code == 2, done.output
        assert (
            "is a store of the project at services/a, whose runs log the fixtures they play "
            "to services/a/.replaygate/hits, not to .replaygate/hits, the log of the project at "
            ". read for services: its fixtures would read as unplayed. Patrol and prune each "
            "project's stores apart (replaygate patrol services/a)"
        ) in " ".join(done.output.split())
    assert kept.read_bytes() == before
    done = CliRunner().invoke(main, ["prune", "services/a", "--unused", "--runs", "1", "--yes"])
    assert done.exit_code == 0, done.output
    assert "kept: 1 played, 1 referenced only" in done.output
