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


_IGNORABLE = (
    (0x00AD, 0x00AD),  # a soft hyphen, drawn only where a line breaks
    (0x034F, 0x034F),  # the combining grapheme joiner
    (0x115F, 0x1160),  # the Hangul fillers
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),  # Mongolian variation selectors and vowel separator
    (0x2061, 0x206F),  # invisible operators, deprecated format characters
    (0x3164, 0x3164),
    (0xFE00, 0xFE0D),  # variation selectors (FE0E and FE0F: below)
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0001),  # the language tag (the tags of a flag's emoji sequence are kept)
    (0xE0080, 0xE0FFF),  # the variation selectors of ideographs among them
)
"""The rest of Unicode's default ignorable code points (``Default_Ignorable_Code_Point``),
drawn as nothing, but for the joiners U+200C and U+200D and the tags U+E0020 to U+E007F,
which make an emoji sequence or a Persian word what it is."""

UNSEEN = (
    DIRECTION_MARKS
    + "\u061c"
    + "".join(BIDI_CONTROLS)
    + ZERO_WIDTH
    + "".join(chr(c) for low, high in _IGNORABLE for c in range(low, high + 1))
)
"""Characters drawn as nothing that say nothing, dropped before text is compared: the
direction marks and controls a model's Arabic answer holds around its words (the Arabic
letter mark U+061C among them), a zero-width space, a word joiner, a byte order mark, a
soft hyphen (``retrie\u00adval``, copied from a page, is ``retrieval``), and Unicode's
other default ignorable characters."""

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
