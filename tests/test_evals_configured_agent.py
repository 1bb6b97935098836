"""The agent ``[tool.replaygate] agent`` names is looked for beside the pyproject.toml, as
its other paths are, from any working folder; an error names the file and the key."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from replaygate.cli import main

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
        "'no_such_agent_xyz': No module named 'no_such_agent_xyz' (looked for on the import "
        f"path and in {subfolder})"
    )
    given = CliRunner().invoke(main, ["eval", "--agent", "no_such_agent_xyz:f", "--no-history"])
    assert given.exit_code == 2, given.output
    assert "Error: --agent 'no_such_agent_xyz:f': cannot import 'no_such_agent_xyz'" in (
        given.output
    )
    assert f"(looked for on the import path and in {subfolder / 'sub'})" in given.output
