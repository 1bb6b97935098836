"""A one-value option named twice is refused, where click kept the last value."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from replaygate.cli import main
from replaygate.click_once import OnceCommand, OnceGroup
from run_cli import replaygate


def _commands(group: click.Group, ctx: click.Context) -> list[click.Command]:
    found: list[click.Command] = [group]
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, name
        if isinstance(command, click.Group):
            found += _commands(command, click.Context(command, parent=ctx, info_name=name))
        else:
            found.append(command)
    return found


def test_every_command_refuses_a_repeated_one_value_option() -> None:
    commands = _commands(main, click.Context(main, info_name="replaygate"))
    assert len(commands) > 25
    loose = [c.name for c in commands if not isinstance(c, OnceCommand | OnceGroup)]
    assert loose == []


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["sim", "serve", "--faults", "429:0.1", "--faults", "500:0.2"], "'--faults'"),
        (["eval", "--agent", "a:b", "--agent", "c:d"], "'--agent'"),
        (["verify", "s.jsonl", "--jobs", "1", "--jobs=2"], "'--jobs'"),
        (["eval", "--progress", "--no-progress"], "'--progress' / '--no-progress'"),
        (["diff", "--base", "HEAD", "--reason", "a", "--reason", "b"], "'--reason'"),
    ],
)
def test_the_second_value_is_refused_naming_the_option(args: list[str], option: str) -> None:
    done = CliRunner().invoke(main, args)
    assert done.exit_code == 2, done.output
    assert f"Error: Option {option} was given 2 times; it takes one value" in done.output


def test_options_gathering_values_and_plain_flags_may_be_repeated() -> None:
    @click.command(cls=OnceCommand)
    @click.option("--changed", multiple=True)
    @click.option("-v", "verbose", count=True)
    @click.option("--json", "as_json", is_flag=True)
    def command(changed: tuple[str, ...], verbose: int, as_json: bool) -> None:
        click.echo(f"{changed} {verbose} {as_json}")

    done = CliRunner().invoke(command, ["--changed", "a", "--json", "-vv", "--changed=b", "--json"])
    assert done.exit_code == 0, done.output
    assert done.output == "('a', 'b') 2 True\n"


def test_a_repeated_option_of_a_group_is_refused_before_its_command_runs() -> None:
    ran: list[str] = []

    @click.group(cls=OnceGroup)
    @click.option("--config")
    def group(config: str | None) -> None:
        ran.append("group")

    @group.command()
    def sub() -> None:
        ran.append("sub")

    done = CliRunner().invoke(group, ["--config", "a", "--config", "b", "sub"])
    assert done.exit_code == 2 and "Option '--config' was given 2 times" in done.output
    assert ran == []
    assert isinstance(group.get_command(click.Context(group), "sub"), OnceCommand)


def test_several_paths_to_a_command_taking_one_say_to_pass_their_folder(tmp_path: Path) -> None:
    # It was click's "Got unexpected extra argument (fx/b.jsonl)" alone, for the files a
    # shell pattern gave (`replaygate verify fx/*.jsonl`).
    (tmp_path / "fx").mkdir()
    for name in ("a.jsonl", "b.jsonl"):
        (tmp_path / "fx" / name).write_bytes(b"")
    done = replaygate("verify", "fx/a.jsonl", "fx/b.jsonl", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.endswith(
        "Error: Got unexpected extra argument (fx/b.jsonl): replaygate verify takes one PATH, "
        "and 2 were given (a shell pattern such as fixtures/*.jsonl gives one each): pass "
        "the folder that holds them (fx), whose every store is read, or run the command "
        "once for each\n"
    )
    other = replaygate("checksum", "fx/a.jsonl", "nothing-there", cwd=tmp_path)
    assert other.stderr.endswith("Error: Got unexpected extra argument (nothing-there)\n")
