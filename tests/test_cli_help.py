"""Every command explains itself: a purpose, help for each option, and an example that parses.

The example of each command (and subcommand) is parsed with the command's own
parser, so an example with a flag the command does not take fails here.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest

from cli_commands import EVERY
from replaygate.cli import COMMANDS, PURPOSES, main
from run_cli import replaygate

# Its tests import the provider SDKs through replaygate (the example agent).


def example_lines(help_text: str) -> list[str]:
    """The command lines after ``Example:`` (a trailing ``\\`` continues a line)."""
    _, found, after = help_text.partition("Example:")
    assert found, "no 'Example:' section"
    joined = re.sub(r"\\\n\s*", " ", after)
    return [line.strip() for line in joined.splitlines() if line.strip().startswith("replaygate ")]


def parse(line: str) -> click.Context:
    """``line`` parsed as the command line does, down to the last subcommand."""
    args = shlex.split(line)[1:]
    ctx = main.make_context("replaygate", args, resilient_parsing=False)
    command: click.Command = main
    while isinstance(command, click.Group):
        rest = [*ctx._protected_args, *ctx.args]
        if not rest and command.invoke_without_command:
            break  # a group that runs on its own (`replaygate eval --cases ...`)
        name, found, rest = command.resolve_command(ctx, rest)
        assert found is not None and name is not None
        ctx = found.make_context(name, rest, parent=ctx, resilient_parsing=False)
        command = found
    return ctx


def make_paths_of(line: str, root: Path) -> None:
    """Create the files and folders an example names, for options that must exist."""
    for token in shlex.split(line):
        if token.startswith("-") or "://" in token or ":" in token:
            continue
        if re.fullmatch(r"[\w.-]+(/[\w.-]+)*\.(json|jsonl|csv|toml|db|html)", token):
            (root / token).parent.mkdir(parents=True, exist_ok=True)
            (root / token).touch()
        elif re.fullmatch(r"[\w.-]+(/[\w.-]+)+/?", token):
            (root / token).mkdir(parents=True, exist_ok=True)


def test_every_command_module_is_walked() -> None:
    assert {path[0] for path in EVERY} == set(COMMANDS)
    assert ("baseline", "update") in EVERY and ("history", "export") in EVERY


@pytest.mark.parametrize("path", sorted(EVERY), ids=" ".join)
def test_a_command_says_what_it_is_for_with_an_example_that_parses(
    path: tuple[str, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    command = EVERY[path]
    purpose = (command.help or "").strip().splitlines()
    assert purpose and purpose[0].endswith("."), f"no one-line purpose: {command.help!r}"
    options = [p for p in command.params if isinstance(p, click.Option) and not p.hidden]
    assert [o.name for o in options if not o.help] == [], "options without help"
    shown = command.get_help(click.Context(command, info_name=path[-1]))
    assert re.findall(r"\[[^\]]*\bNone\b[^\]]*\]", shown) == [], "a range of no bound shown"
    lines = example_lines(command.help or "")
    assert lines, "no command line in the Example: section"
    monkeypatch.chdir(tmp_path)
    for line in lines:
        assert line.startswith(f"replaygate {' '.join(path)}"), line
        make_paths_of(line, tmp_path)
        assert parse(line).command_path.startswith(f"replaygate {' '.join(path)}")


def test_the_example_is_printed_as_written_by_help() -> None:
    done = replaygate("record", "--help")
    assert done.returncode == 0
    assert "\n  Example:\n\n      replaygate record --agent" in done.stdout
    assert '--fixtures rc.jsonl --approve-live --simulator "What is RAG?"' in done.stdout


def test_an_example_with_a_wrong_flag_does_not_parse() -> None:
    with pytest.raises(click.NoSuchOption):
        parse("replaygate verify tests/fixtures --repiar")
    with pytest.raises(click.UsageError, match="-q no longer takes a question"):
        parse('replaygate run -q "What is RAG?"')


def test_the_listing_s_purposes_are_the_commands_own() -> None:
    """``replaygate --help`` lists :data:`PURPOSES` without importing the commands: each
    must be its command's first line of help, as click would list it."""
    own = {name: EVERY[(name,)].get_short_help_str(limit=1000) for name in COMMANDS}
    assert own == PURPOSES


def test_the_listing_shows_every_purpose_whole() -> None:
    listing = " ".join(replaygate("--help").stdout.split())
    for name in COMMANDS:
        purpose = (EVERY[(name,)].help or "").strip().splitlines()[0]
        assert f" {name} {purpose}" in listing, name


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_the_show_example_shows_what_the_record_example_recorded(tmp_path: Path) -> None:
    """``show``'s example names a whole key, one the ``record`` example records."""
    [record] = example_lines(EVERY[("record",)].help or "")
    [show] = example_lines(EVERY[("show",)].help or "")
    recorded = replaygate(*shlex.split(record)[1:], cwd=tmp_path)
    assert recorded.returncode == 0, recorded.stderr
    shown = replaygate(*shlex.split(show)[1:], cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith("# rc.jsonl:1\n")


def test_sim_help_names_the_apis_the_simulator_does_not_serve() -> None:
    """``replaygate sim --help`` said it speaks "the OpenAI wire format": a recording of
    text to speech or a file upload from it stopped with a 404."""
    said = " ".join((EVERY[("sim",)].help or "").split())
    assert "not OpenAI's audio or images" in said
    assert "Anthropic's Message Batches and Files API" in said
    assert "Azure OpenAI's, Vertex AI's and Amazon Bedrock's" in said
    served = " ".join((EVERY[("sim", "serve")].help or "").split())
    assert "GOOGLE_GEMINI_BASE_URL, or HttpOptions(base_url=URL), for google-genai's" in served
    assert "api_base=URL for LiteLLM's bedrock/ models" in served  # Converse, served too
