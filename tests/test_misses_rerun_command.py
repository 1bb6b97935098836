"""The command the list of a run's misses names, for a run made from outside its rootdir."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest

from replaygate.pytest_plugin.misses import _rerun

OPTIONS = "--replaygate-record-mode=record-missing --replaygate-approve-live"


def _config(here: Path, root: Path, args: list[str], simulator: str = "") -> pytest.Config:
    """A run's config as ``_rerun`` reads it: made in ``here``, rooted at ``root``."""
    return cast(
        pytest.Config,
        SimpleNamespace(
            invocation_params=SimpleNamespace(dir=here),
            rootpath=root,
            args=args,
            getoption=lambda name, default=None: simulator or default,
            getini=lambda name: "",
            pluginmanager=SimpleNamespace(get_plugin=lambda name: object()),
        ),
    )


def test_a_run_from_outside_the_rootdir_names_its_tests_not_lf(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``pytest proj/tests`` from above the project: a bare ``pytest --lf`` there takes the
    working folder as its rootdir, without the project's settings or cache (its tests
    failed to import), so the command names the tests, as paths from there."""
    monkeypatch.delenv("CI", raising=False)
    root = tmp_path / "proj"
    config = _config(tmp_path, root, ["proj/tests"])
    command = _rerun(config, OPTIONS, ["tests/test_agent.py::test_plan"], every=True)
    assert command == f"`pytest 'proj/tests/test_agent.py::test_plan' {OPTIONS}`"
    inside = _config(root / "tests", root, [])
    assert "--lf" in _rerun(inside, OPTIONS, ["tests/test_agent.py::test_plan"], every=True)


def test_a_script_run_from_outside_the_rootdir_names_the_paths_it_was_given(
    tmp_path: Path,
) -> None:
    """A script answers the run's requests in order, so the command runs the same tests:
    from outside the rootdir, those of the paths this run was given."""
    root = tmp_path / "proj"
    script = "--replaygate-simulator=script:answers.jsonl"
    config = _config(tmp_path, root, ["proj/tests", "proj/more tests"], "script:answers.jsonl")
    command = _rerun(config, f"{OPTIONS} {script}", ["tests/test_agent.py::test_plan"], every=True)
    assert command.startswith(f"`pytest proj/tests 'proj/more tests' {OPTIONS} {script}`")
    inside = _config(root, root, ["tests"], "script:answers.jsonl")
    assert _rerun(inside, OPTIONS, [], every=True).startswith(f"`pytest {OPTIONS}`")


def test_lf_is_named_only_where_it_reruns_the_tests_that_missed_alone() -> None:
    """``pytest tests/test_a.py`` after a run in which ``test_b`` missed too leaves
    ``test_b`` among pytest's last failures: ``--lf`` would record its miss as well, which
    this run's list does not show, so the tests are named instead."""
    from replaygate.pytest_plugin.misses import _lf_reruns_only

    def config(failed: object) -> pytest.Config:
        plugin = SimpleNamespace(lastfailed=failed)
        return cast(
            pytest.Config,
            SimpleNamespace(pluginmanager=SimpleNamespace(get_plugin=lambda n: plugin)),
        )

    missed = ["tests/test_a.py::test_a"]
    assert _lf_reruns_only(config({"tests/test_a.py::test_a": True}), missed)
    assert not _lf_reruns_only(
        config({"tests/test_a.py::test_a": True, "tests/test_b.py::test_b": True}), missed
    )
    assert _lf_reruns_only(config(None), missed)  # no cache: _keeps_failures decides
    assert _lf_reruns_only(config({_Id("tests/test_a.py::test_a"): True}), missed)  # pytest 9


class _Id:
    """A key of pytest 9's last failures, its ``NodeId``: a node id as its ``str``."""

    def __init__(self, nodeid: str) -> None:
        self.nodeid = nodeid

    def __str__(self) -> str:
        return self.nodeid


def test_a_suite_of_one_test_is_told_no_script_caveat() -> None:
    """docs/quickstart-own-project.md's suite is one test: its miss said a run of that
    test alone "would get the lines written for the tests before it", of which there are
    none, right above the page's command that records it alone."""
    from replaygate.pytest_plugin.recording import from_simulator_hint
    from replaygate.pytest_plugin.suite_run import whole_suite_of_one

    def session(items: int, source: str = "TESTPATHS", **chosen: object) -> pytest.Session:
        options = {"keyword": "", "markexpr": "", "deselect": None, "lf": False, **chosen}
        config = SimpleNamespace(
            args_source=getattr(pytest.Config.ArgsSource, source),
            getoption=lambda name, default=None: options.get(name, default),
        )
        return cast(pytest.Session, SimpleNamespace(items=[object()] * items, config=config))

    assert whole_suite_of_one(session(1)) and whole_suite_of_one(session(1, "INVOCATION_DIR"))
    assert not whole_suite_of_one(session(2))
    assert not whole_suite_of_one(session(1, "ARGS"))  # a test named: others may come first
    assert not whole_suite_of_one(session(1, keyword="plan"))
    assert not whole_suite_of_one(session(1, lf=True))
    test = "tests/test_agent.py::test_plan"
    assert "tests before it" in from_simulator_hint(test)
    assert "script:FILE" in from_simulator_hint(test, alone=True)
    assert "tests before it" not in from_simulator_hint(test, alone=True)
