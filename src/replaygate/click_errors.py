"""The error of a command that cannot run, shared by both command lines.

``replaygate`` (:mod:`replaygate.cli`) and the simulator's ``sim serve``
(:mod:`replaygate.sim.cli`) both print it as ``Error: ...`` and exit 2; it lives apart
from either so that the simulator's command line does not import the main one.
"""

from __future__ import annotations

import click


class CommandError(click.ClickException):
    """A command that cannot run: printed as ``Error: ...``, exit status 2."""

    exit_code = 2
