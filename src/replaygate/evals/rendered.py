"""Reports shown in three forms: plain text, Markdown and JSON."""

from __future__ import annotations

import json
from typing import Any, Protocol


class Forms(Protocol):
    """A report's forms: ``text()``, ``markdown()`` and ``to_json()``."""

    def text(self) -> str: ...
    def markdown(self) -> str: ...
    def to_json(self) -> dict[str, Any]: ...


class Rendered:
    """A report with the three :class:`Forms`; :meth:`render` picks one by name."""

    def render(self: Forms, fmt: str) -> str:
        """``text``, ``markdown`` or ``json``."""
        if fmt == "markdown":
            return self.markdown()
        if fmt == "json":
            return json.dumps(self.to_json(), indent=2, ensure_ascii=False)
        return self.text()
