"""Texts that differ only in their Unicode form (NFC and NFD of ``é``): they print alike,
so where one is compared with another each is shown with its escapes and its form."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from typing import Any, Literal

Form = Literal["NFC", "NFD"]
"""A Unicode normal form a text may be saved in."""


def other_form(text: str, others: Iterable[str]) -> str | None:
    """The text among ``others`` that differs from ``text`` only in its Unicode form (the
    first in sorted order), or ``None``."""
    form = unicodedata.normalize("NFC", text)
    return next(
        (o for o in sorted(others) if o != text and unicodedata.normalize("NFC", o) == form),
        None,
    )


def escaped(char: str) -> str:
    """``\\u0301``, or ``\\U0001f525`` past the Basic Multilingual Plane."""
    code = ord(char)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def told(text: str) -> str:
    """``caf\\u00e9, NFC``: ``text`` with its characters past printable ASCII escaped, and
    its normal form."""
    shown = "".join(c if " " <= c <= "~" else escaped(c) for c in text)
    form = next((f for f in ("NFC", "NFD") if unicodedata.is_normalized(f, text)), None)
    return f"{shown}, {form or 'neither NFC nor NFD'}"


def normalized(value: Any, form: Form) -> Any:
    """The JSON ``value`` with every string in it, object keys included, in Unicode normal
    form ``form`` (``NFC``, ``NFD``)."""
    if isinstance(value, str):
        return unicodedata.normalize(form, value)
    if isinstance(value, list):
        return [normalized(item, form) for item in value]
    if isinstance(value, dict):
        return {normalized(k, form): normalized(v, form) for k, v in value.items()}
    return value


_JOINED = frozenset({"Mn", "Mc", "Me"})
"""Categories of the marks drawn on the character before them (an accent, a vowel sign)."""


def _joins_previous(text: str, at: int) -> bool:
    """Whether ``text[at]`` is drawn as one with the character before it: a combining mark,
    a variation selector, a skin tone, a joiner or what follows one, the second of a flag's
    two regional indicators."""
    char, before = text[at], text[at - 1]
    code = ord(char)
    if unicodedata.category(char) in _JOINED or "\u200d" in (char, before):
        return True
    if 0xFE00 <= code <= 0xFE0F or 0x1F3FB <= code <= 0x1F3FF or 0xE0020 <= code <= 0xE007F:
        return True  # a variation selector, a skin tone, a tag (a subdivision's flag)
    if 0x1F1E6 <= code <= 0x1F1FF:  # a flag is a pair: this one ends a pair opened before
        run = at
        while run > 0 and 0x1F1E6 <= ord(text[run - 1]) <= 0x1F1FF:
            run -= 1
        return (at - run) % 2 == 1
    return False


def cut(text: str, limit: int) -> str:
    """The start of ``text`` of at most ``limit`` characters, cut between two characters
    a reader sees apart: no accent cut from its letter (``cafe`` of ``cafe\\u0301``), no
    emoji sequence or flag cut in two (``🇩`` of ``🇩🇪``)."""
    end = min(limit, len(text))
    while 0 < end < len(text) and _joins_previous(text, end):
        end -= 1
    return text[:end]
