"""A ``[tool.replaygate]`` that is not a table is an error naming it, its line and what it is.

``tool = {replaygate = "x"}``, ``replaygate = 5`` under ``[tool]`` or an array of tables
``[[tool.replaygate]]`` were reported as ``tool.replaygate.: expected a table`` (a key
path ending in a dot, and not a word of what was found), and by the commands that read
only its sanitize table as ``tool.replaygate.sanitize: expected a table, got None``,
naming a table the file does not hold, on no line.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from replaygate.evals.config import load_config
from replaygate.evals.errors import ConfigError
from replaygate.sanitize import SanitizeConfigError, store_config
from run_cli import replaygate

NOT_A_TABLE = [
    ('tool = {replaygate = "x"}\n', 1, "the string 'x'"),
    ("[tool]\nname = 1\nreplaygate = 5\n", 3, "int 5"),
    ('[[tool.replaygate]]\nagent = "x"\n', 1, "an array of tables ([[...]])"),
]


@pytest.mark.parametrize(("text", "line", "found"), NOT_A_TABLE)
def test_the_eval_config_names_the_section_that_is_not_a_table(
    tmp_path: Path, text: str, line: int, found: str
) -> None:
    (tmp_path / "pyproject.toml").write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path / "pyproject.toml")
    assert str(caught.value).endswith(
        f"pyproject.toml:{line}: tool.replaygate: expected a table, got {found}"
    )


@pytest.mark.parametrize(("text", "line", "found"), NOT_A_TABLE)
def test_the_sanitize_config_names_the_section_that_is_not_a_table(
    tmp_path: Path, text: str, line: int, found: str
) -> None:
    (tmp_path / "pyproject.toml").write_text(text)
    with pytest.raises(SanitizeConfigError) as caught:
        store_config(tmp_path / "rc.jsonl")
    assert caught.value.key == "tool.replaygate"
    assert str(caught.value).endswith(
        f"pyproject.toml:{line}: tool.replaygate: expected a table, got {found}"
    )


def test_a_command_says_where_the_section_is_not_a_table(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool]\nreplaygate = 5\n")
    (tmp_path / "rc.jsonl").write_text("")
    done = replaygate("run", "--fixtures", "rc.jsonl", "What is RAG?", cwd=tmp_path)
    assert done.returncode == 2, done
    assert done.stderr.endswith("pyproject.toml:2: tool.replaygate: expected a table, got int 5\n")
