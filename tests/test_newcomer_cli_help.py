"""What `replaygate COMMAND --help` tells a reader to type exists on that command.

An option's help that names another flag (``--seed``: "with --simulator") sends the
reader to that flag of the same command; a flag the command does not take is a usage
error the moment they follow the help.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import click
import pytest

from replaygate.cli import main

FLAG = re.compile(r"(?<![\w-])--[a-z][a-z-]*")


def walk(
    group: click.Group, ctx: click.Context, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, name
        yield (*path, name), command
        if isinstance(command, click.Group):
            yield from walk(command, ctx, (*path, name))


with click.Context(main) as _root:
    EVERY = dict(walk(main, _root))


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
