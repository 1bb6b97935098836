"""A long list on a terminal: its first lines, and how to see every one.

On a terminal, thousands of lines (a verify of a store with 5,000 damaged fixtures, a
patrol of 100,000 fixtures) scroll past what a reader can see, and so do the base64 of
an image or a PDF and the numbers of an embedding, one a line, in a fixture ``show``
prints; piped or redirected (a CI log, ``| less``, ``> report.txt``) every line is
printed, whole.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
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
LONG_NUMBERS = 64
"""Numbers a list holds from which it is cut on a terminal (an embedding's vector)."""
NUMBERS_SHOWN = 3
"""Numbers of such a list shown on a terminal."""


@dataclass(frozen=True)
class Cut:
    """How many long values :func:`cut_encoded` cut: base64 values and lists of numbers."""

    encoded: int = 0
    numbers: int = 0

    def __bool__(self) -> bool:
        return bool(self.encoded or self.numbers)

    def __add__(self, other: Cut) -> Cut:
        return Cut(self.encoded + other.encoded, self.numbers + other.numbers)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def cut_encoded(document: Any) -> tuple[Any, Cut]:
    """On a terminal, ``document`` (JSON) with each base64 value
    (:func:`~replaygate.sanitize.secret_entropy.encoded_text`: 1,024 characters or more of
    base64 text alone, or a data URL of it) cut to its first :data:`ENCODED_SHOWN`
    characters and its length, and each list of :data:`LONG_NUMBERS` numbers or more (an
    embedding's vector, a request's token ids) to its first :data:`NUMBERS_SHOWN` and its
    length, and how many were cut (text is left whole); elsewhere ``document`` itself and
    nothing cut."""
    if not on_terminal():
        return document, Cut()
    encoded = numbers = 0

    def shorter(text: str) -> str:
        nonlocal encoded
        if not encoded_text(text):
            return text
        encoded += 1
        return f"{text[:ENCODED_SHOWN]}... ({len(text):,} characters)"

    def walk(value: Any) -> Any:
        nonlocal numbers
        if isinstance(value, dict):
            return {name: walk(child) for name, child in value.items()}
        if not isinstance(value, list):
            return value
        if len(value) >= LONG_NUMBERS and all(_is_number(item) for item in value):
            numbers += 1
            start = ", ".join(repr(item) for item in value[:NUMBERS_SHOWN])
            return f"[{start}, ... ({len(value):,} numbers)]"
        return [walk(child) for child in value]

    shown = walk(map_strings(document, shorter))
    return shown, Cut(encoded, numbers)


def cut_line(cut: Cut) -> str:
    """The line that says how many long values were cut and how to see them whole."""
    parts = [f"{cut.encoded} base64 value(s)"] if cut.encoded else []
    parts += [f"{cut.numbers} list(s) of numbers"] if cut.numbers else []
    return (
        f"... {' and '.join(parts)} cut on a terminal: pipe the output (`| less`) to see them whole"
    )
