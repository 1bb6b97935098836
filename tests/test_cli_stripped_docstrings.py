"""Under ``python -OO`` (docstrings stripped) each command's help is still its own."""

from __future__ import annotations

import click
from click.testing import CliRunner

from replaygate.click_once import OnceCommand, OnceGroup


def _tool() -> OnceGroup:
    """A group and a command whose docstrings are gone, as ``-OO`` leaves them."""

    def tool() -> None:
        """Look after the widgets.

        Every widget is checked.
        """

    @click.pass_context
    def check(ctx: click.Context) -> None:
        """Check every widget; exit 1 if any is broken."""

    tool.__doc__ = None
    check.__doc__ = None
    group = click.group(cls=OnceGroup)(tool)
    group.add_command(click.command("check", cls=OnceCommand)(check))
    return group


def test_help_is_read_from_the_source_when_docstrings_are_stripped() -> None:
    group = _tool()
    listing = CliRunner().invoke(group, ["--help"]).output
    assert "Look after the widgets." in listing
    assert "Every widget is checked." in listing
    assert "Check every widget; exit 1 if any is broken." in listing
    own = CliRunner().invoke(group, ["check", "--help"]).output
    assert "Check every widget; exit 1 if any is broken." in own


def test_a_command_without_a_docstring_still_has_none() -> None:
    def bare() -> None:
        pass

    command = click.command(cls=OnceCommand)(bare)
    assert command.help is None
    assert CliRunner().invoke(command, ["--help"]).exit_code == 0
