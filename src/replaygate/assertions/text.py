"""Text normalization shared by the text assertions."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

_SPACE = re.compile(r"\s+")
_PREVIEW = 160


def normalize(text: str, *, ignore_case: bool = True) -> str:
    """NFKC (full and half width folded), whitespace runs collapsed, case folded if asked."""
    folded = _SPACE.sub(" ", unicodedata.normalize("NFKC", text)).strip()
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
