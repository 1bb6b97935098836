"""Progress of long work (eval cases, recordings, verified files, drift requests).

A rich bar on stderr when stderr is a terminal outside CI, nothing otherwise (a pipe,
a CI log, a test runner, ``TERM=dumb``). Unless forced on, the bar appears only for big inputs (more
than :data:`BIG` items) or once the work has taken :data:`SLOW` seconds.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Protocol

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

BIG = 50
"""More items than this show a bar at once."""
SLOW = 2.0
"""Seconds after which a smaller job shows its bar too."""


class Reporter(Protocol):
    """Told when each case is done."""

    def case_done(self, case_id: str, verdict: str) -> None:
        """One more case finished with ``verdict``."""
        ...


class Quiet:
    """Reports nothing."""

    def advance(self, description: str = "") -> None:
        """Do nothing."""

    def case_done(self, case_id: str, verdict: str) -> None:
        """Do nothing."""

    def __enter__(self) -> Quiet:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


class Bar:
    """A rich progress bar on ``console``, one step per item.

    ``eager`` draws it from the start; otherwise it appears once the work has taken
    :data:`SLOW` seconds.
    """

    def __init__(self, total: int, console: Console, label: str = "eval", *, eager: bool = True):
        self._progress = Progress(
            TextColumn(f"[bold]{label}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.description}"),
            TimeElapsedColumn(),
            console=console,
            transient=False,
            redirect_stdout=sys.stdout.isatty(),  # lines printed meanwhile go above the bar
        )
        self._task = self._progress.add_task("", total=total)
        self._eager = eager
        self._shown = False
        self._since = time.monotonic()

    def _show(self) -> None:
        self._progress.start()
        self._shown = True

    def advance(self, description: str = "") -> None:
        """One more item done; ``description`` says which."""
        if not self._shown and time.monotonic() - self._since >= SLOW:
            self._show()
        self._progress.update(self._task, advance=1, description=description)

    def case_done(self, case_id: str, verdict: str) -> None:
        """Advance the bar and show the last case."""
        self.advance(f"{case_id}: {verdict}")

    def __enter__(self) -> Bar:
        self._since = time.monotonic()
        if self._eager:
            self._show()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._shown:
            self._progress.stop()


def stderr_console() -> Console:
    """The console progress is drawn on: stderr (text printed through it kept as it is)."""
    return Console(stderr=True, markup=False, highlight=False)


def wants_bar(console: Console | None = None) -> bool:
    """True on an interactive terminal outside CI (``CI`` unset) that can redraw a line:
    not ``TERM=dumb`` (an editor's shell, a log viewer), where the bar came out once, at
    the end, as a line of 80 columns whatever the terminal's width."""
    if os.environ.get("CI"):
        return False
    console = console or stderr_console()
    return console.is_terminal and not console.is_dumb_terminal


def reporter(total: int, enabled: bool | None = None, *, label: str = "eval") -> Bar | Quiet:
    """A bar of ``total`` items, or :class:`Quiet`.

    ``enabled`` forces it on or off; by default it is drawn on a terminal outside CI,
    at once for more than :data:`BIG` items, else once the work proves slow.
    """
    console = stderr_console()
    if enabled is None:
        if not wants_bar(console):
            return Quiet()
        return Bar(total, console, label, eager=total > BIG)
    return Bar(total, console, label) if enabled else Quiet()
