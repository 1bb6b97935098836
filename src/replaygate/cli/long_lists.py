"""A long list on a terminal: its first lines, and how to see every one.

On a terminal, thousands of lines (a verify of a store with 5,000 damaged fixtures, a
patrol of 100,000 fixtures) scroll past what a reader can see, and so does the base64 of
an image or a PDF in a fixture ``show`` prints; piped or redirected (a CI log, ``| less``,
``> report.txt``) every line is printed, whole.
"""

from __future__ import annotations

import sys
from typing import Any

from replaygate.sanitize.secret_entropy import encoded_text
from replaygate.sanitize.walk import map_strings

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


ENCODED_SHOWN = 64
"""Characters of a long base64 value (an image, a document) shown on a terminal."""


def cut_encoded(document: Any) -> tuple[Any, int]:
    """On a terminal, ``document`` (JSON) with each base64 value
    (:func:`~replaygate.sanitize.secret_entropy.encoded_text`: 1,024 characters or more of
    base64 text alone, or a data URL of it) cut to its first :data:`ENCODED_SHOWN`
    characters and its length, and how many were cut (text is left whole); elsewhere
    ``document`` itself and 0."""
    if not on_terminal():
        return document, 0
    cut = 0

    def shorter(text: str) -> str:
        nonlocal cut
        if not encoded_text(text):
            return text
        cut += 1
        return f"{text[:ENCODED_SHOWN]}... ({len(text):,} characters)"

    return map_strings(document, shorter), cut


def cut_line(cut: int) -> str:
    """The line that says how many base64 values were cut and how to see them whole."""
    return (
        f"... {cut} base64 value(s) cut on a terminal: pipe the output (`| less`) to see them whole"
    )
