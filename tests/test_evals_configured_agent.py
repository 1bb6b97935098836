"""The agent ``[tool.replaygate] agent`` names is looked for beside the pyproject.toml, as
its other paths are, from any working folder; an error names the file and the key.

Its module is looked for there first, then on the import path, however the command runs
(in process, ``--jobs N``, ``python -m replaygate``, ``run_eval`` given its name): a module
of the same name in the working folder is never run in its place."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from replaygate.cli import main
from replaygate.evals import load_agent, load_eval_cases, run_eval
from replaygate.evals.errors import AgentLoadError
from replaygate.models.replay import RequestSettings

MODULE = """
from dataclasses import dataclass

from replaygate.models.types import Usage


@dataclass(frozen=True)
class Answer:
    final: str
    usage: Usage
    steps: tuple = ()


def answer(model, question):
    return Answer("RAG retrieves, then generates.", Usage(0, 0))
"""

PYPROJECT = """\
[tool.replaygate]
cases = "cases.jsonl"
fixtures = "fixtures.jsonl"
agent = "{agent}"
model = "claude-sonnet-4-5"
max_tokens = 64
"""


@pytest.fixture
def subfolder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A project whose agent module is beside its pyproject.toml, entered at a subfolder
    (the project's folder on no import path)."""
    (tmp_path / "beside_config_agent.py").write_text(MODULE, encoding="utf-8")
    case = {"id": "rag", "question": "What is RAG?", "must_contain": ["retrieves"]}
    case.update(samples=3, floor=3)
    (tmp_path / "cases.jsonl").write_text(json.dumps(case) + "\n", encoding="utf-8")
    (tmp_path / "fixtures.jsonl").write_text("", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    yield tmp_path
    sys.modules.pop("beside_config_agent", None)


@pytest.mark.slow  # the eval runner's whole flow
def test_a_configured_agent_is_found_beside_the_config_from_a_subfolder(subfolder: Path) -> None:
    # it was looked for in the working folder: "Error: --agent 'beside_config_agent:answer':
    # cannot import", from a subfolder only
    pyproject = subfolder / "pyproject.toml"
    pyproject.write_text(PYPROJECT.format(agent="beside_config_agent:answer"), encoding="utf-8")
    done = CliRunner().invoke(main, ["eval", "--no-history"])
    assert done.exit_code == 0, done.output
    assert "rag: 3/3 samples passed" in done.output
    assert sys.path[0] == str(subfolder)


def test_a_configured_agent_that_cannot_be_loaded_names_the_file_and_key(subfolder: Path) -> None:
    pyproject = subfolder / "pyproject.toml"
    pyproject.write_text(PYPROJECT.format(agent="no_such_agent_xyz:answer"), encoding="utf-8")
    done = CliRunner().invoke(main, ["eval", "--no-history"])
    assert done.exit_code == 2, done.output
    assert done.output.splitlines()[-1] == (
        f"Error: {pyproject}:4: tool.replaygate.agent 'no_such_agent_xyz:answer': cannot import "
        "'no_such_agent_xyz': No module named 'no_such_agent_xyz' (looked for in "
        f"{subfolder}, then on the import path)"
    )
    given = CliRunner().invoke(main, ["eval", "--agent", "no_such_agent_xyz:f", "--no-history"])
    assert given.exit_code == 2, given.output
    assert "Error: --agent 'no_such_agent_xyz:f': cannot import 'no_such_agent_xyz'" in (
        given.output
    )
    assert f"(looked for in {subfolder / 'sub'}, then on the import path)" in given.output


SPEC = "beside_config_agent:answer"
SHADOW = MODULE.replace("RAG retrieves, then generates.", "The working folder's module.")
"""A module of the agent's name in the working folder, whose answer fails the case."""


@pytest.fixture
def shadowed(subfolder: Path) -> Path:
    """The project of :func:`subfolder`, configured with its agent, whose working folder
    holds another module of the agent's name."""
    (subfolder / "pyproject.toml").write_text(PYPROJECT.format(agent=SPEC), encoding="utf-8")
    (subfolder / "sub" / "beside_config_agent.py").write_text(SHADOW, encoding="utf-8")
    return subfolder


@pytest.mark.slow  # the eval runner's whole flow
def test_a_configured_agent_is_the_projects_not_the_working_folders(shadowed: Path) -> None:
    done = CliRunner().invoke(main, ["eval", "--no-history"])
    assert done.exit_code == 0, done.output
    assert "rag: 3/3 samples passed" in done.output
    assert sys.modules["beside_config_agent"].__file__ == str(shadowed / "beside_config_agent.py")


@pytest.mark.slow  # --jobs starts processes; python -m replaygate starts an interpreter
@pytest.mark.parametrize(
    "start",
    [["--jobs", "2"], [sys.executable, "-m", "replaygate"], [sys.executable, "-m", "replaygate",
     "--jobs", "2"]],
    ids=["--jobs 2", "python -m replaygate", "python -m replaygate --jobs 2"],
)  # fmt: skip
def test_every_way_of_running_runs_the_configured_agent(shadowed: Path, start: list[str]) -> None:
    # each ran the working folder's module (the fork server's import path and python -m's
    # begin with the working folder), where the command in process ran the project's
    if start[0] == "--jobs":
        done = CliRunner().invoke(main, ["eval", "--no-history", *start])
        status, output = done.exit_code, done.output
    else:
        argv = [*start[:3], "eval", "--no-history", *start[3:]]
        ran = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
        status, output = ran.returncode, ran.stdout + ran.stderr
    assert status == 0, output
    assert "rag: 3/3 samples passed" in output


@pytest.mark.slow  # python -m replaygate starts an interpreter
def test_python_m_finds_an_agent_on_the_import_path_as_the_console_script_does(
    shadowed: Path,
) -> None:
    # python -m put the working folder first on the import path: its module of the
    # name ran, where the console script ran the one of the import path
    installed = shadowed / "installed"
    installed.mkdir()
    (shadowed / "beside_config_agent.py").rename(installed / "beside_config_agent.py")
    env = {**os.environ, "PYTHONPATH": str(installed)}
    argv = [sys.executable, "-m", "replaygate", "eval", "--no-history"]
    ran = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False, env=env)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "rag: 3/3 samples passed" in ran.stdout


@pytest.mark.slow  # the eval runner's whole flow
def test_run_eval_looks_for_the_agent_named_in_its_folder_first(shadowed: Path) -> None:
    cases = load_eval_cases(shadowed / "cases.jsonl")
    store, settings = shadowed / "fixtures.jsonl", RequestSettings("claude-sonnet-4-5", 64)
    given = run_eval(cases, store, agent=SPEC, settings=settings, agent_folder=shadowed)
    assert given.cases[0].sampled.verdict == "pass"
    # the working folder's module is the default folder's: one module of a name a process
    # holds, so it is refused, naming both, not silently the other
    with pytest.raises(AgentLoadError) as refused:
        run_eval(cases, store, agent=SPEC, settings=settings)
    assert str(refused.value) == (
        f"--agent {SPEC!r}: {shadowed / 'sub'} holds the module 'beside_config_agent' "
        f"({shadowed / 'sub' / 'beside_config_agent.py'}), but another module of that name is "
        f"already imported ({shadowed / 'beside_config_agent.py'}), and a process holds one "
        "module of a name: give the agent itself, not its name, or run from a folder that "
        "holds no other 'beside_config_agent'"
    )
    sys.modules.pop("beside_config_agent")
    working = run_eval(cases, store, agent=SPEC, settings=settings)
    assert working.cases[0].sampled.verdict == "block"  # the working folder's, by default
    # a process of --jobs, whose fork server imported a module of that name by its own
    # import path, imports the one looked for anew
    replaced = load_agent(SPEC, folder=shadowed, replace=True)
    assert replaced.run.__code__.co_filename == str(shadowed / "beside_config_agent.py")


def test_an_agent_missing_from_another_projects_package_of_its_name_names_that_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # --agent trip_agent.evals:trip given from tests/ found trip_agent installed from
    # another checkout, and said only "No module named 'trip_agent.evals'"
    other = tmp_path / "other" / "other_trip_pkg"
    other.mkdir(parents=True)
    (other / "__init__.py").write_text("", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path / "other"))
    monkeypatch.chdir(tmp_path)
    try:
        with pytest.raises(AgentLoadError) as refused:
            load_agent("other_trip_pkg.evals:trip")
    finally:
        sys.modules.pop("other_trip_pkg", None)
    assert str(refused.value) == (
        "--agent 'other_trip_pkg.evals:trip': cannot import 'other_trip_pkg.evals': No module "
        f"named 'other_trip_pkg.evals' ('other_trip_pkg' was looked for in {tmp_path}, then "
        f"on the import path, and the one found is {other}, which holds no 'evals')"
    )
