"""Text normalization shared by the text assertions."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

_SPACE = re.compile(r"\s+")
_PREVIEW = 160


_KEPT = ("<super>", "<sub>")
"""The compatibility forms :func:`fold` keeps: ``10⁶`` is not ``106``, nor ``x₂`` ``x2``."""


_PRESENTATION = str.maketrans("", "", "\ufe0e\ufe0f")
"""The variation selectors that ask for a character's text or emoji presentation (``❤``
or ``❤️``): they change how it is drawn, not what it says."""


def fold(text: str) -> str:
    """``text`` in NFKC (full and half width folded, ``ﬁ`` is ``fi``, ``cafe\u0301`` is
    ``café``), but for superscripts and subscripts, which would change what it says, and
    without the selectors of text or emoji presentation (``❤️`` is ``❤``)."""
    if text.isascii():
        return text
    folded = unicodedata.normalize("NFC", "".join(map(_folded_char, text)))
    return folded.translate(_PRESENTATION)


def _folded_char(char: str) -> str:
    """``char`` in NFKC, or as it is when a superscript or subscript."""
    if unicodedata.decomposition(char).startswith(_KEPT):
        return char
    return unicodedata.normalize("NFKC", char)


def normalize(text: str, *, ignore_case: bool = True) -> str:
    """:func:`fold` (NFKC, superscripts and subscripts kept, presentation selectors
    dropped), whitespace runs collapsed, case folded if asked."""
    folded = _SPACE.sub(" ", fold(text)).strip()
    return folded.casefold() if ignore_case else folded


def require_text(text: Any, what: str) -> str:
    """``text`` if it is a string; TypeError naming ``what`` and the type given otherwise
    (a model's turn with only tool calls has no text: ``None``)."""
    if not isinstance(text, str):
        raise TypeError(f"{what} must be a string, got {type(text).__name__}")
    return text


def preview(text: str) -> str:
    """``text`` shortened for an error message, repr-quoted."""
    return repr(text if len(text) <= _PREVIEW else text[: _PREVIEW - 3] + "...")
