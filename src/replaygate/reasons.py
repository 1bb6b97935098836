"""The reason a changed baseline or fixture gives (law 9): text a reviewer can read.

A reason is refused when it shows nothing: empty, white space, or only characters a
terminal or a browser draws as nothing (a zero-width space, a byte order mark, a
combining mark with nothing to combine with, a Hangul filler). It is refused too when it
holds a control character other than a line break or a tab: printed in a report, an
escape sequence (``\\x1b[8m``) hides what follows it or rewrites what a terminal shows.
"""

from __future__ import annotations

import unicodedata

INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cn", "Co", "Cs", "Me", "Mn", "Zl", "Zp", "Zs"})
"""Unicode categories of characters drawn as nothing (or as a box for a character the font
lacks): controls, formats (zero-width space, joiners, direction marks), unassigned and
private use, surrogates, combining marks, separators and spaces."""
FILLERS = frozenset("\u115f\u1160\u180e\u2800\u3164\uffa0")
"""Letters and symbols drawn blank: the Hangul fillers, the Mongolian vowel separator, the
blank Braille pattern."""
ALLOWED_CONTROLS = frozenset("\n\t\r")
"""Control characters a reason may hold: a reason of several lines, from a file."""


def visible(char: str) -> bool:
    """Whether ``char`` is drawn as something."""
    return not (
        char.isspace() or char in FILLERS or unicodedata.category(char) in INVISIBLE_CATEGORIES
    )


def reason_problem(reason: str | None) -> str | None:
    """Why ``reason`` is not one a reviewer can read, or None when it is."""
    if reason is None or not reason.strip():
        return "no reason was given"
    control = next(
        (c for c in reason if unicodedata.category(c) == "Cc" and c not in ALLOWED_CONTROLS),
        None,
    )
    if control is not None:
        return (
            f"the reason holds the control character {control!r} (at {reason.index(control)}), "
            "which a terminal does not print as text"
        )
    if not any(visible(c) for c in reason):
        shown = ", ".join(f"U+{ord(c):04X}" for c in dict.fromkeys(reason))
        return f"the reason shows nothing: it holds only invisible characters ({shown})"
    return None
