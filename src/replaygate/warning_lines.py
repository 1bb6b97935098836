"""replaygate's own warnings on the command line (and in the processes a command starts):
one ``warning: <message>`` line on stderr, as a command's notes are, not Python's form
naming a source file, a line number and the code there."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from typing import TextIO

import click

from replaygate.errors import ReplaygateWarning


@contextlib.contextmanager
def warnings_as_lines() -> Iterator[None]:
    """Within, a :class:`~replaygate.errors.ReplaygateWarning` shown is printed as a
    ``warning:`` line; any other warning as Python prints it."""
    with warnings.catch_warnings():
        python_shows = warnings.showwarning

        def show(
            message: Warning | str,
            category: type[Warning],
            filename: str,
            lineno: int,
            file: TextIO | None = None,
            line: str | None = None,
        ) -> None:
            if issubclass(category, ReplaygateWarning):
                click.echo(f"warning: {message}", err=True)
            else:
                python_shows(message, category, filename, lineno, file, line)

        warnings.showwarning = show
        yield
