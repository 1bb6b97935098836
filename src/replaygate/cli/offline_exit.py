"""The network block of the ``replaygate`` program, held to the end of its process.

A replaying command (``run``, ``eval`` without ``--record-mode``) and one recording from
the simulator block the network while their runs last (law 3). A tracing client the agent
loads sends on after them: LangSmith's thread uploads the runs it holds once the main
thread ends, an OpenTelemetry exporter flushes its spans from an :mod:`atexit` handler.
Where the process ends with the command (:mod:`.program`), the block is held from the
command's first run to the interpreter's exit, as the pytest plugin holds a session's
(:mod:`replaygate.pytest_plugin.offline`), and each attempt made after the command is told
on stderr with the switch that stops its sender. A command run in a process that goes on
(click's ``CliRunner``, ``main()`` called from Python) keeps its blocks to its runs.
"""

from __future__ import annotations

from contextlib import AbstractContextManager

from replaygate.cli.program import PROGRAM
from replaygate.http.side_request import refusal_told, tell_once
from replaygate.network import Refusal, block_network

_held: list[AbstractContextManager[None]] = []


def offline_to_exit() -> None:
    """In the program, block the network from now to the interpreter's exit (entered once,
    never left); elsewhere nothing.

    Import this module after :mod:`replaygate.network` (inside the command, whose module
    loaded it): at interpreter exit module globals are cleared in reverse order of loading,
    so the hold ends while network's are intact."""
    if PROGRAM.running and not _held:
        hold = block_network(on_refusal=_tell_after_command)
        hold.__enter__()
        _held.append(hold)


def _tell_after_command(refusal: Refusal) -> None:
    if not PROGRAM.ended:
        return  # the command's own runs: refused as their blocks refuse them
    tell_once(
        refusal_told(
            refusal,
            "after the command",
            "replaygate keeps the network blocked until the process ends",
            "turn it off",
        )
    )
