"""Reports shown in three forms: plain text, Markdown and JSON."""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from typing import Any


class Rendered(ABC):
    """A report with a text, a Markdown and a JSON form; :meth:`render` picks one by name."""

    @abstractmethod
    def text(self) -> str:
        """The plain-text report."""

    @abstractmethod
    def markdown(self) -> str:
        """The Markdown report."""

    @abstractmethod
    def to_json(self) -> dict[str, Any]:
        """The report as JSON."""

    def render(self, fmt: str) -> str:
        """``text``, ``markdown`` or ``json``."""
        if fmt == "markdown":
            return self.markdown()
        if fmt == "json":
            return json.dumps(self.to_json(), indent=2, ensure_ascii=False)
        return self.text()
