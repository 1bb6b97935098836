"""Whether this process is the ``replaygate`` program, which ends with its command.

Set by :func:`replaygate.cli.run`; read by :mod:`.offline_exit`, which holds a replaying
command's network block to the process's end only there. Nothing is imported here: every
command, a quick ``verify`` in a pre-commit hook too, loads this module.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Program:
    """Whether the process is the program (``running``), and whether its command ended."""

    running: bool = False
    ended: bool = False


PROGRAM = Program()
"""This process's."""


def program_runs() -> None:
    """Mark this process as the program, which ends with its command."""
    PROGRAM.running = True


def command_ended() -> None:
    """Mark the program's command as ended."""
    PROGRAM.ended = True
