"""Tool results sent back in one user turn, as the Anthropic and Gemini wire shapes want."""

from __future__ import annotations

from typing import Any


class ResultTurns:
    """The turns of a wire conversation being built, where consecutive tool results share
    one user turn: their parts go in the turn's list under ``field``."""

    def __init__(self, field: str) -> None:
        self.field = field
        self.turns: list[dict[str, Any]] = []
        self._results: dict[str, Any] | None = None
        """The turn of tool results the next result joins, if the last turn is one."""

    def add(self, turn: dict[str, Any]) -> None:
        """A turn of the conversation (a user or assistant message)."""
        self.turns.append(turn)
        self._results = None

    def add_result(self, part: dict[str, Any]) -> None:
        """A tool result: joins the results just before it, or starts a user turn."""
        if self._results is None:
            self._results = {"role": "user", self.field: []}
            self.turns.append(self._results)
        self._results[self.field].append(part)
