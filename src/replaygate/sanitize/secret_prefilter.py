"""The secret scan's first pass: one look at a serialized fixture to skip a clean one.

Python's regular expressions walk a text character by character unless the pattern
starts with a literal, so the first pass does not run the rules over the whole
fixture. It finds, with one ``bytes.translate`` and substring searches, the *runs*:
stretches of at least :data:`MIN_RUN` printable ASCII characters without white space
or quotes. Every secret the rules find lies in such a run (a PEM header, which holds a
space, is searched for on its own), so each rule module checks only the runs, and
the text just before them (``api_key = "..."``, ``Bearer ...``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

MIN_RUN = 16
RUN_BYTES = bytes(range(0x21, 0x7F)).translate(None, b"\"'\\")
"""What a run is made of: printable ASCII but white space and quotes (and backslashes)."""
_IN, _OUT = ord("a"), ord(" ")
_OUT_BYTE = bytes([_OUT])


def table_of(members: bytes) -> bytes:
    """A :meth:`bytes.translate` table marking ``members`` for :func:`stretches`."""
    return bytes(_IN if b in members else _OUT for b in range(256))


_RUN_TABLE = table_of(RUN_BYTES)


def stretches(data: bytes, table: bytes, size: int) -> list[tuple[int, int]]:
    """The spans of ``data`` of at least ``size`` bytes that ``table`` (:func:`table_of`) marks."""
    marks = data.translate(table)
    marker = bytes([_IN]) * size
    spans = []
    start = marks.find(marker)
    while start >= 0:
        end = marks.find(_OUT_BYTE, start + size)
        end = len(marks) if end < 0 else end
        spans.append((start, end))
        start = marks.find(marker, end)
    return spans


BYTES_FROM = 4096
"""Characters from which :func:`text_spans` finds a text's spans with :func:`stretches`."""


def text_spans(
    text: str, pattern: re.Pattern[str], table: bytes, size: int
) -> Iterator[tuple[int, int]]:
    """The spans of the matches of ``pattern`` in ``text``: of each stretch of at least
    ``size`` characters of one class, the ASCII characters ``table`` marks (``?`` not among
    them). A long text is searched as bytes (:func:`stretches`), where the pattern would
    try each character."""
    if len(text) < BYTES_FROM:
        return (match.span() for match in pattern.finditer(text))
    return iter(stretches(text.encode("ascii", "replace"), table, size))


class Runs:
    """A serialized fixture and the spans of its runs."""

    __slots__ = ("_joined", "_lowered", "data", "spans")

    def __init__(self, data: bytes, spans: tuple[tuple[int, int], ...]) -> None:
        self.data = data
        self.spans = spans
        self._joined: bytes | None = None
        self._lowered: bytes | None = None

    @staticmethod
    def of(data: bytes) -> Runs:
        """The runs of ``data``."""
        return Runs(data, tuple(stretches(data, _RUN_TABLE, MIN_RUN)))

    def texts(self, size: int = MIN_RUN) -> Iterator[bytes]:
        """Each run of at least ``size`` bytes."""
        return (self.data[s:e] for s, e in self.spans if e - s >= size)

    def joined(self) -> bytes:
        """The runs joined by spaces."""
        if self._joined is None:
            data = self.data
            self._joined = b" ".join([data[s:e] for s, e in self.spans])
        return self._joined

    def lowered(self) -> bytes:
        """:meth:`joined` in lower case."""
        if self._lowered is None:
            self._lowered = self.joined().lower()
        return self._lowered


_FOLDS = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})
"""The letters beyond ASCII that a pattern ignoring case matches to an ASCII letter."""


def folded(text: str) -> str | None:
    """``text`` in lower case, each letter a pattern ignoring case takes for an ASCII letter
    made that letter, character for character (an index in it is one in ``text``); None
    where lower case changes the length."""
    if not text.isascii() and any(chr(special) in text for special in _FOLDS):
        text = text.translate(_FOLDS)
    lowered = text.lower()
    return lowered if len(lowered) == len(text) else None


def at_string_start(data: bytes, start: int) -> bool:
    """Whether ``start`` is the first character of a JSON string (after an unescaped quote)."""
    return start > 0 and data[start - 1] == ord('"') and (start < 2 or data[start - 2] != ord("\\"))


def contains_any(text: bytes, words: Iterable[bytes]) -> bool:
    """Whether one of ``words`` occurs in ``text``."""
    return any(text.find(word) >= 0 for word in words)  # ``in`` raises and catches first
