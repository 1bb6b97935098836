"""Ctrl-C and SIGTERM end every command the same way: one line on stderr saying it was
interrupted and what was kept, exit status 130, never a traceback.

A SIGTERM (``timeout``, a cancelled CI job, ``kill``) is taken as a Ctrl-C: it raises
:class:`KeyboardInterrupt` where the command is, so the command cleans up as it does on
Ctrl-C (a temporary file removed, a line being appended cut back, the processes it started
stopped) before it ends. Every write of a store, a results file, a report or a baseline is
whole or absent (a temporary file renamed, a line appended with one write, an SQLite
transaction), so an interrupted command leaves each file as it was or as it is written.
"""

from __future__ import annotations

import atexit
import contextlib
import signal
import threading
from collections.abc import Iterator

import click

EXIT_STATUS = 130
"""The exit status of an interrupted command, after SIGTERM too: 128 + SIGINT, as a shell
reports a process Ctrl-C ended."""

INTERRUPTED: dict[str, str] = {
    "eval": "Interrupted: the eval stopped; only a run that finishes writes results and history",
    "record": "Interrupted: the recording stopped; the store keeps every fixture recorded "
    "before (each write is whole or absent)",
    "compact": "Interrupted: the compaction stopped; the store holds the same fixtures "
    "(each file is as it was, or compacted whole)",
    "prune": "Interrupted: the pruning stopped; each file is as it was, or without its "
    "unused fixtures and backed up",
    "verify": "Interrupted: the verification stopped; with --repair, each file is as it was, "
    "or cut or moved aside, and backed up",
    "import-cassettes": "Interrupted: the import stopped; each fixture imported is stored "
    "whole (importing again adds the rest)",
    "history": "Interrupted: replaygate history stopped; each run merged is stored whole, "
    "an export is written whole or not at all",
    "baseline": "Interrupted: the baseline update stopped; the baseline is as it was, "
    "or updated whole",
    "report": "Interrupted: the report stopped; the report file is as it was, or written whole",
    "calibrate": "Interrupted: the calibration stopped; the sheet and its verdicts are each "
    "as they were, or written whole",
    "drift": "Interrupted: the drift check stopped; each report file is as it was, "
    "or written whole",
    "demo": "Interrupted: the demo stopped; what it wrote under --out is kept",
    "flaky": "Interrupted: the flaky run stopped; its pytest runs were stopped, nothing reported",
}
"""The line an interrupted command ends with, for each command that writes (or runs
others); the others (:func:`interrupted`) write nothing."""


def interrupted(command: str | None) -> str:
    """The line ``replaygate COMMAND`` ends with when interrupted."""
    if command in INTERRUPTED:
        return INTERRUPTED[command]
    named = f"replaygate {command}" if command else "replaygate"
    return f"Interrupted: {named} stopped; nothing was written"


@contextlib.contextmanager
def sigterm_as_ctrl_c() -> Iterator[None]:
    """Inside the block, SIGTERM raises :class:`KeyboardInterrupt` as Ctrl-C does, where
    SIGTERM has its default handling (which ends the process on the spot) and this is the
    main thread (the only one a handler can be set in)."""
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
    ):
        yield
        return
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


@contextlib.contextmanager
def interrupts_deferred() -> Iterator[None]:
    """Inside the block, a Ctrl-C (or a SIGTERM taken as one: :func:`sigterm_as_ctrl_c`) is
    noted and raised as :class:`KeyboardInterrupt` once the block is done, so what it
    builds is whole and known to the command's clean-up (an SDK's client, whose finalizer
    fails on one built in part). A handler runs in the main thread whichever thread got
    the signal, so this holds where blocking the signals in one thread does not (a
    simulator serving in another)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    raising = [
        signum
        for signum in (signal.SIGINT, signal.SIGTERM)
        if signal.getsignal(signum) is signal.default_int_handler
    ]
    noted: list[int] = []
    for signum in raising:
        signal.signal(signum, lambda signum, frame: noted.append(signum))
    try:
        yield
    finally:
        for signum in raising:
            signal.signal(signum, signal.default_int_handler)
    if noted:
        raise KeyboardInterrupt


def signals_ignored_from_now() -> None:
    """Once a command is over, a Ctrl-C or SIGTERM while the process ends (the interpreter's
    own clean-up takes a moment) changes nothing: its work is done, and the exit status is
    the command's, not the signal's."""
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, signal.SIG_IGN)


def end_interrupted(command: str | None) -> click.exceptions.Exit:
    """Say that ``command`` was interrupted (:func:`interrupted`) and return the exit to
    raise; another Ctrl-C or SIGTERM while the process ends changes nothing."""
    for signum in (signal.SIGINT, signal.SIGTERM):
        atexit.register(signal.signal, signum, signal.SIG_IGN)
    click.echo(interrupted(command), err=True)
    return click.exceptions.Exit(EXIT_STATUS)
