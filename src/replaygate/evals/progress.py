"""Progress of an eval run: a rich bar on a terminal, nothing in CI logs."""

from __future__ import annotations

import os
from typing import Protocol

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn


class Reporter(Protocol):
    """Told when each case is done."""

    def case_done(self, case_id: str, verdict: str) -> None:
        """One more case finished with ``verdict``."""
        ...


class Quiet:
    """Reports nothing."""

    def case_done(self, case_id: str, verdict: str) -> None:
        """Do nothing."""

    def __enter__(self) -> Quiet:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


class Bar:
    """A rich progress bar on stderr, one step per case."""

    def __init__(self, total: int, console: Console) -> None:
        self._progress = Progress(
            TextColumn("[bold]eval"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.description}"),
            TimeElapsedColumn(),
            console=console,
            transient=False,
        )
        self._task = self._progress.add_task("", total=total)

    def case_done(self, case_id: str, verdict: str) -> None:
        """Advance the bar and show the last case."""
        self._progress.update(self._task, advance=1, description=f"{case_id}: {verdict}")

    def __enter__(self) -> Bar:
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()


def wants_bar(console: Console | None = None) -> bool:
    """True on an interactive terminal outside CI (``CI`` unset)."""
    if os.environ.get("CI"):
        return False
    return (console or Console(stderr=True)).is_terminal


def reporter(total: int, enabled: bool | None = None) -> Bar | Quiet:
    """A bar when ``enabled`` (default: :func:`wants_bar`), else :class:`Quiet`."""
    console = Console(stderr=True)
    if enabled is None:
        enabled = wants_bar(console)
    return Bar(total, console) if enabled else Quiet()
