"""Reports shown in three forms: plain text, Markdown and JSON."""

from __future__ import annotations

import json
from typing import Any, Protocol

from replaygate.reasons import BIDI_CONTROLS

_REORDERING = str.maketrans({char: f"\\u{ord(char):04x}" for char in BIDI_CONTROLS})
"""Each bidirectional embedding, override or isolate written as its escape: a case id
holding U+202E shows the rest of its line backwards on a terminal and in a pull-request
comment (``FAIL case x`` then the reason, reversed)."""


def reordering_escaped(text: str) -> str:
    """``text`` with each character that reorders what follows it as its escape."""
    return text.translate(_REORDERING)


class Forms(Protocol):
    """A report's forms: ``text()``, ``markdown()`` and ``to_json()``."""

    def text(self) -> str: ...
    def markdown(self) -> str: ...
    def to_json(self) -> dict[str, Any]: ...


class Rendered:
    """A report with the three :class:`Forms`; :meth:`render` picks one by name."""

    def render(self: Forms, fmt: str) -> str:
        """``text``, ``markdown`` or ``json``; the text and Markdown forms show each
        character that reorders what follows it as its escape (``\\u202e``)."""
        if fmt == "markdown":
            return reordering_escaped(self.markdown())
        if fmt == "json":
            return json.dumps(self.to_json(), indent=2, ensure_ascii=False)
        return reordering_escaped(self.text())
