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

from collections.abc import Iterable, Iterator

MIN_RUN = 16
_IN, _OUT = ord("a"), ord(" ")
_RUN_TABLE = bytes(_IN if 0x21 <= b <= 0x7E and b not in b"\"'\\" else _OUT for b in range(256))
_MARKER = bytes([_IN]) * MIN_RUN
_OUT_BYTE = bytes([_OUT])


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
        marks = data.translate(_RUN_TABLE)
        spans = []
        start = marks.find(_MARKER)
        while start >= 0:
            end = marks.find(_OUT_BYTE, start + MIN_RUN)
            end = len(marks) if end < 0 else end
            spans.append((start, end))
            start = marks.find(_MARKER, end)
        return Runs(data, tuple(spans))

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


def at_string_start(data: bytes, start: int) -> bool:
    """Whether ``start`` is the first character of a JSON string (after an unescaped quote)."""
    return start > 0 and data[start - 1] == ord('"') and (start < 2 or data[start - 2] != ord("\\"))


def contains_any(text: bytes, words: Iterable[bytes]) -> bool:
    """Whether one of ``words`` occurs in ``text``."""
    return any(text.find(word) >= 0 for word in words)  # ``in`` raises and catches first
