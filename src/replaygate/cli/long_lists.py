"""A long list on a terminal: its first lines, and how to see every one.

On a terminal, thousands of lines (a verify of a store with 5,000 damaged fixtures, a
patrol of 100,000 fixtures) scroll past what a reader can see; piped or redirected (a CI
log, ``| less``, ``> report.txt``) every line is printed.
"""

from __future__ import annotations

import sys

SHOWN = 50
"""Lines of a long list shown on a terminal."""


def on_terminal() -> bool:
    """True when stdout is a terminal."""
    return sys.stdout is not None and sys.stdout.isatty()


def terminal_limit() -> int | None:
    """:data:`SHOWN` when stdout is a terminal, else None (no limit)."""
    return SHOWN if on_terminal() else None


def more_line(hidden: int, what: str) -> str:
    """The line that says how many items were not shown and how to see them."""
    return (
        f"... and {hidden} more {what} not shown on a terminal: pipe the output "
        "(`| less`) or add --json to see every one"
    )
