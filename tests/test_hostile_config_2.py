"""A ``[tool.replaygate]`` that is not a table is an error naming it, its line and what it is.

``tool = {replaygate = "x"}``, ``replaygate = 5`` under ``[tool]`` or an array of tables
``[[tool.replaygate]]`` were reported as ``tool.replaygate.: expected a table`` (a key
path ending in a dot, and not a word of what was found), and by the commands that read
only its sanitize table as ``tool.replaygate.sanitize: expected a table, got None``,
naming a table the file does not hold, on no line. A CI stage or change class named
with a newline split the rows of ``ci plan``'s table, two change classes could share a
name, and a list holding an empty path was shown as "an array", not as what it held.
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


STAGE = '[[tool.replaygate.ci.stages]]\nname = "unit"\nwhen = "every-commit"\n'
CHANGE = '[[tool.replaygate.ci.changes]]\nname = "code"\npaths = ["src/**"]\nstages = ["unit"]\n'


@pytest.mark.parametrize(
    ("text", "line", "key", "reason"),
    [
        (
            STAGE.replace('"unit"', '"unit\\nhas_stages=false"'),
            2,
            "tool.replaygate.ci.stages[0].name",
            "must hold no control character (a newline, a tab, an escape): it is printed in "
            "tables and on terminals, got 'unit\\nhas_stages=false'",
        ),
        (
            STAGE + CHANGE.replace('"code"', '"code\\u001b[2J"'),
            5,
            "tool.replaygate.ci.changes[0].name",
            "must hold no control character",
        ),
        (
            STAGE + CHANGE + CHANGE,
            9,
            "tool.replaygate.ci.changes[1].name",
            "two change classes are named 'code'",
        ),
        (
            STAGE + CHANGE.replace('["src/**"]', '[""]'),
            6,
            "tool.replaygate.ci.changes[0].paths",
            "expected a list of non-empty strings, got list ['']",
        ),
        (
            STAGE + CHANGE.replace('["src/**"]', "['src\\app\\**']"),
            6,
            "tool.replaygate.ci.changes[0].paths",
            "'src\\\\app\\\\**' separates folders with a backslash, where git names each "
            "changed file with / on every system, Windows too, so it would match none: write "
            "'src/app/**'",
        ),
        (
            STAGE + "targets = ['tests/a.py::test_p[a\\b]', 'tests\\parse']\n",
            4,
            "tool.replaygate.ci.stages[0].targets",
            "'tests\\\\parse' separates folders with a backslash",
        ),
    ],
    ids=[
        "stage name",
        "change name",
        "change twice",
        "empty path",
        "backslashed glob",
        "backslashed target",
    ],
)
def test_ci_names_are_one_line_each_once_and_a_wrong_value_is_shown(
    tmp_path: Path, text: str, line: int, key: str, reason: str
) -> None:
    (tmp_path / "pyproject.toml").write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path / "pyproject.toml")
    assert caught.value.key == key
    assert caught.value.line == line
    assert caught.value.reason.startswith(reason)


@pytest.mark.parametrize("key", ["history", "fixtures", "cases", "baseline"])
def test_a_config_path_starting_with_a_tilde_is_refused_at_its_line(
    tmp_path: Path, key: str
) -> None:
    # nothing expands it: eval made a folder named ~ in the project and wrote there
    (tmp_path / "pyproject.toml").write_text(f'[tool.replaygate]\n{key} = "~/{key}.file"\n')
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path / "pyproject.toml")
    assert (caught.value.key, caught.value.line) == (f"tool.replaygate.{key}", 2)
    assert caught.value.reason.startswith(f"'~/{key}.file': the ~ was not expanded")
    assert not (tmp_path / "~").exists()
    (tmp_path / "~").mkdir()  # a folder really named ~ in the project is taken, as on the CLI
    load_config(tmp_path / "pyproject.toml")


@pytest.mark.parametrize("price", ["inf", "1e308"])
def test_a_price_no_cost_could_be_written_with_is_refused_at_its_line(
    tmp_path: Path, price: str
) -> None:
    # every cost came out infinite, and the results file held Infinity, which the gate
    # (and every JSON reader) refused
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.replaygate.prices]\n"m" = {{ input = {price}, output = 1 }}\n'
    )
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path / "pyproject.toml")
    assert (caught.value.key, caught.value.line) == ("tool.replaygate.prices.m.input", 2)
    assert caught.value.reason == f"must be at most 1,000,000, got {float(price)!r}"
