"""Every ``replaygate`` command, subcommands included, by its path (``("baseline",
"update")``), for the tests that check each command's help."""

from __future__ import annotations

from collections.abc import Iterator

import click

from replaygate.cli import main


def walk(
    group: click.Group, ctx: click.Context, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    """Each command of ``group`` and of its subgroups, depth first, with its path."""
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, name
        yield (*path, name), command
        if isinstance(command, click.Group):
            yield from walk(command, ctx, (*path, name))


with click.Context(main) as _root:
    EVERY: dict[tuple[str, ...], click.Command] = dict(walk(main, _root))
