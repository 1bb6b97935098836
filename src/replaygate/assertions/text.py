"""Text normalization shared by the text assertions."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from replaygate.reasons import BIDI_CONTROLS, DIRECTION_MARKS, ZERO_WIDTH
from replaygate.unicode_forms import cut

_SPACE = re.compile(r"\s+")
_PREVIEW = 160


_KEPT = ("<super>", "<sub>")
"""The compatibility forms :func:`fold` keeps: ``10⁶`` is not ``106``, nor ``x₂`` ``x2``."""


UNSEEN = DIRECTION_MARKS + "\u061c" + "".join(BIDI_CONTROLS) + ZERO_WIDTH
"""Characters drawn as nothing that say nothing, dropped before text is compared: the
direction marks and controls a model's Arabic answer holds around its words (the Arabic
letter mark U+061C among them), a zero-width space, a word joiner, a byte order mark."""

HYPHENS = {"\u2010": "-", "\u2011": "-"}
"""A hyphen and a non-breaking hyphen, which models write in ``retrieval‑augmented`` or
``doc‑rag``: the hyphen-minus."""
_DRAWN_ALIKE = str.maketrans(
    {
        "\ufe0e": None,  # the variation selectors that ask for a character's text or
        "\ufe0f": None,  # emoji presentation (❤ or ❤️): drawn otherwise, says the same
        **HYPHENS,
        "\u2018": "'",  # typographic quotes and apostrophes (don’t, “context”)
        "\u2019": "'",
        "\u201c": '"',
        "\u201d": '"',
        **dict.fromkeys(UNSEEN),
    }
)
"""What :func:`fold` drops or writes as ASCII: characters that say what another does, or
are drawn as nothing and say nothing (the joiners U+200C and U+200D are kept: they make
an emoji sequence, or a Persian word, what it is)."""


def fold(text: str) -> str:
    """``text`` in NFKC (full and half width folded, ``ﬁ`` is ``fi``, ``cafe\u0301`` is
    ``café``), but for superscripts and subscripts, which would change what it says;
    without the selectors of text or emoji presentation (``❤️`` is ``❤``), direction
    marks and controls, zero-width spaces and word joiners; typographic
    hyphens, quotes and apostrophes as their ASCII ones (``don’t`` is ``don't``)."""
    if text.isascii():
        return text
    folded = unicodedata.normalize("NFC", "".join(map(_folded_char, text)))
    return folded.translate(_DRAWN_ALIKE)


def _folded_char(char: str) -> str:
    """``char`` in NFKC, or as it is when a superscript or subscript."""
    if unicodedata.decomposition(char).startswith(_KEPT):
        return char
    return unicodedata.normalize("NFKC", char)


def normalize(text: str, *, ignore_case: bool = True) -> str:
    """:func:`fold` (NFKC, superscripts and subscripts kept, presentation selectors
    dropped), whitespace runs collapsed, case folded if asked: Unicode's full case folding
    (``ß`` is ``ss``), but for the dotted ``İ``, which is ``i`` (its lower case in Turkish,
    where the default gives ``i`` and a combining dot, so ``İSTANBUL`` did not hold
    ``istanbul``); the dotless ``ı`` stays a letter of its own."""
    folded = _SPACE.sub(" ", fold(text)).strip()
    return folded.replace("\u0130", "i").casefold() if ignore_case else folded


def require_text(text: Any, what: str) -> str:
    """``text`` if it is a string; TypeError naming ``what`` and the type given otherwise
    (a model's turn with only tool calls has no text: ``None``)."""
    if not isinstance(text, str):
        raise TypeError(f"{what} must be a string, got {type(text).__name__}")
    return text


def preview(text: str) -> str:
    """``text`` shortened for an error message (never within a letter and its accent, nor
    an emoji sequence), repr-quoted."""
    return repr(text if len(text) <= _PREVIEW else cut(text, _PREVIEW - 3) + "...")
