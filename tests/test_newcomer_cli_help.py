"""What `replaygate COMMAND --help` tells a reader to type works.

An option's help that names another flag (``--seed``: "with --simulator") sends the
reader to that flag of the same command; a flag the command does not take is a usage
error the moment they follow the help. An example that needs no project configuration
runs as written beside the files it names.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest

from cli_commands import EVERY
from replaygate.examples.research_copilot import shipped_eval_cases
from run_cli import replaygate

FLAG = re.compile(r"(?<![\w-])--[a-z][a-z-]*")


@pytest.mark.parametrize("path", sorted(EVERY), ids=" ".join)
def test_an_option_help_names_only_flags_of_its_own_command(path: tuple[str, ...]) -> None:
    command = EVERY[path]
    own = {flag for param in command.params for flag in (*param.opts, *param.secondary_opts)}
    named = {
        (param.name, flag)
        for param in command.params
        if isinstance(param, click.Option) and param.help
        for flag in FLAG.findall(param.help)
        if flag not in own
    }
    assert not named, f"replaygate {' '.join(path)}: help names flags it does not take: {named}"


def example_of(path: tuple[str, ...]) -> list[str]:
    """The ``Example:`` command line of a command's help, as words."""
    after = (EVERY[path].help or "").partition("Example:")[2]
    lines = re.sub(r"\\\n\s*", " ", after).splitlines()
    return shlex.split(next(line for line in lines if line.strip().startswith("replaygate ")))


@pytest.mark.slow
def test_the_eval_example_runs_as_written_beside_its_cases_and_fixtures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    first = shipped_eval_cases().read_text(encoding="utf-8").splitlines(keepends=True)[0]
    Path("eval_cases.jsonl").write_text(first, encoding="utf-8")
    words = example_of(("eval",))
    assert words[:2] == ["replaygate", "eval"] and "--agent" in words  # no default agent
    spec = words[words.index("--agent") + 1]
    recorded = replaygate(
        "eval", "--agent", spec, "--cases", "eval_cases.jsonl", "--fixtures", "fixtures.jsonl",
        "--record-mode", "record-missing", "--approve-live", "--simulator", "--no-history",
    )  # fmt: skip
    assert recorded.returncode == 0, recorded.stderr
    done = replaygate(*words[1:])
    assert done.returncode == 0, done.stderr
    assert Path("results.json").exists()
