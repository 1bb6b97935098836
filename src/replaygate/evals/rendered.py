"""Reports shown in three forms: plain text, Markdown and JSON."""

from __future__ import annotations

import json
from typing import Any, Protocol

from replaygate.reasons import BIDI_CONTROLS, DIRECTION_MARKS, LINE_SEPARATORS, ZERO_WIDTH

_UNSEEN = str.maketrans(
    {
        char: f"\\u{ord(char):04x}"
        for char in [*BIDI_CONTROLS, *DIRECTION_MARKS, *ZERO_WIDTH, *LINE_SEPARATORS]
    }
)
"""Each bidirectional embedding, override or isolate, direction mark and character of no
width written as its escape, as the report writes them: a case id holding U+202E shows
the rest of its line backwards on a terminal and in a pull-request comment (``FAIL case
x`` then the reason, reversed), and ``rag``, U+200B, ``basics`` missing from the results
beside ``ragbasics`` new in them read as one case said missing and new at once; a line
or paragraph separator (U+2028, U+2029) breaks the line where a log is read line by line."""


def unseen_escaped(text: str) -> str:
    """``text`` with each character of :data:`_UNSEEN` as its escape."""
    return text.translate(_UNSEEN)


class Forms(Protocol):
    """A report's forms: ``text()``, ``markdown()`` and ``to_json()``."""

    def text(self) -> str: ...
    def markdown(self) -> str: ...
    def to_json(self) -> dict[str, Any]: ...


class Rendered:
    """A report with the three :class:`Forms`; :meth:`render` picks one by name."""

    def render(self: Forms, fmt: str) -> str:
        """``text``, ``markdown`` or ``json``; the text and Markdown forms show each
        character that reorders what follows it, or is drawn as nothing, as its escape
        (``\\u202e``, ``\\u200b``)."""
        if fmt == "markdown":
            return unseen_escaped(self.markdown())
        if fmt == "json":
            return json.dumps(self.to_json(), indent=2, ensure_ascii=False)
        return unseen_escaped(self.text())
