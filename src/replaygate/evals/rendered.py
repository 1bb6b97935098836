"""Reports shown in three forms: plain text, Markdown and JSON."""

from __future__ import annotations

import json
from typing import Any, Protocol

from replaygate.reasons import unseen_escaped


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
