"""The reason a changed baseline or fixture gives (law 9): text a reviewer can read.

A reason is refused when it shows nothing: empty, white space, or only characters a
terminal or a browser draws as nothing (a zero-width space, a byte order mark, a
combining mark with nothing to combine with, a Hangul filler). It is refused too when it
holds a control character other than a line break or a tab: printed in a report, an
escape sequence (``\\x1b[8m``) hides what follows it or rewrites what a terminal shows,
as does a carriage return not followed by a line feed (``approved\\rrefused`` prints
``refused``). A character the Unicode data of this Python does not know yet (an emoji
newer than it) is taken as drawn, not refused on an older Python only.

A reason holding a bidirectional embedding, override or isolate (U+202A to U+202E,
U+2066 to U+2069) is refused as well, balanced or not: a terminal or a review page shows
the text between them in another order than it is stored (``approved`` stored after
U+202E shows ``devorppa``), the reordering of "Trojan Source" code. Arabic or Hebrew
text never needs them: the Unicode bidirectional algorithm orders it, and the marks
U+200E, U+200F and U+061C (left-to-right, right-to-left and Arabic letter marks) that
place a neutral character among it are taken. So is one holding U+2028 LINE SEPARATOR
or U+2029 PARAGRAPH SEPARATOR: a report or a log read line by line breaks the reason
there, a terminal does not; a line feed is the line break a reason may hold.
"""

from __future__ import annotations

import unicodedata

INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs", "Me", "Mn", "Zl", "Zp", "Zs"})
"""Unicode categories of characters drawn as nothing (or as a box for a character the font
lacks): controls, formats (zero-width space, joiners, direction marks), private use,
surrogates, combining marks, separators and spaces."""
FILLERS = frozenset("\u115f\u1160\u180e\u2800\u3164\uffa0")
"""Letters and symbols drawn blank: the Hangul fillers, the Mongolian vowel separator, the
blank Braille pattern."""
BIDI_CONTROLS = {
    **{chr(c): unicodedata.name(chr(c)) for c in range(0x202A, 0x202F)},
    **{chr(c): unicodedata.name(chr(c)) for c in range(0x2066, 0x206A)},
}
"""The characters that reorder the text shown after them, with their Unicode names: the
embeddings and overrides (LRE, RLE, PDF, LRO, RLO) and the isolates (LRI, RLI, FSI,
PDI)."""
DIRECTION_MARKS = "\u200e\u200f"
"""The left-to-right and right-to-left marks: they place a neutral character among
right-to-left text, and are drawn as nothing."""
ZERO_WIDTH = "\u200b\u2060\ufeff\u00ad"
"""A zero-width space, a word joiner, a byte order mark and a soft hyphen (drawn only where
a page breaks a line), drawn as nothing: ``rag``, U+200B, ``basics`` reads as
``ragbasics``."""
LINE_SEPARATORS = {c: unicodedata.name(c) for c in "\u2028\u2029"}
"""The Unicode line and paragraph separators, with their names: a log or a report read
line by line (``str.splitlines``, JavaScript) breaks the reason there, a terminal or a
``grep`` does not, so one reason reads as two lines in one place and one in another."""
ALLOWED_CONTROLS = frozenset("\n\t")
"""Control characters a reason may hold: a reason of several lines, from a file (and a
carriage return before a line feed, the line end of a file written on Windows)."""


def visible(char: str) -> bool:
    """Whether ``char`` is drawn as something."""
    return not (
        char.isspace() or char in FILLERS or unicodedata.category(char) in INVISIBLE_CATEGORIES
    )


def _loose_control(reason: str, at: int) -> bool:
    """Whether the character of ``reason`` at ``at`` is a control character a reason may
    not hold: not a line feed or a tab, nor a carriage return that ends a line."""
    char = reason[at]
    if char == "\r":
        return not reason.startswith("\n", at + 1)
    return unicodedata.category(char) == "Cc" and char not in ALLOWED_CONTROLS


def reason_problem(reason: str | None) -> str | None:
    """Why ``reason`` is not one a reviewer can read, or None when it is."""
    if not reason:
        return "no reason was given"
    if not reason.strip():
        return "the reason is blank: it holds only white space"
    at = next((i for i, c in enumerate(reason) if _loose_control(reason, i)), None)
    if at is not None:
        return (
            f"the reason holds the control character {reason[at]!r} (at {at}), "
            "which a terminal does not print as text"
        )
    if not any(visible(c) for c in reason):
        shown = ", ".join(f"U+{ord(c):04X}" for c in dict.fromkeys(reason))
        return f"the reason shows nothing: it holds only invisible characters ({shown})"
    for names, why in (
        (
            BIDI_CONTROLS,
            "changes the order a terminal shows text in; write the reason without it (a U+200E "
            "or U+200F mark is enough to place a neutral character in right-to-left text)",
        ),
        (
            LINE_SEPARATORS,
            "some readers of a report or a log break a line at and others do not; write the "
            "reason without it (a line feed starts a new line)",
        ),
    ):
        at = next((i for i, c in enumerate(reason) if c in names), None)
        if at is not None:
            char = reason[at]
            return f"the reason holds U+{ord(char):04X} {names[char]} (at {at}), which {why}"
    return None


_UNSEEN = str.maketrans(
    {
        char: f"\\u{ord(char):04x}"
        for char in [*BIDI_CONTROLS, *DIRECTION_MARKS, *ZERO_WIDTH, *LINE_SEPARATORS]
    }
)
"""Each bidirectional embedding, override or isolate, direction mark and character of no
width written as its escape, as the reports and the commands' JSON write them (the
escape reads back as the same character in JSON): a case id holding U+202E shows
the rest of its line backwards on a terminal and in a pull-request comment (``FAIL case
x`` then the reason, reversed), and ``rag``, U+200B, ``basics`` missing from the results
beside ``ragbasics`` new in them read as one case said missing and new at once; a line
or paragraph separator (U+2028, U+2029) breaks the line where a log is read line by line.
A fixture's text holding U+202E, printed by ``show``, showed a reviewer another answer
than the one stored."""


def unseen_escaped(text: str) -> str:
    """``text`` with each character of :data:`_UNSEEN` as its escape."""
    return text.translate(_UNSEEN)
