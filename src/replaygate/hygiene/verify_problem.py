"""A problem ``replaygate verify`` reports: what is wrong, and at which file and line."""

from __future__ import annotations

from dataclasses import dataclass

from replaygate.errors import located


@dataclass(frozen=True)
class StoreProblem:
    """One thing wrong with a store, where it is, and whether ``--repair`` can fix it."""

    file: str
    line: int
    reason: str
    repairable: bool = False
    refused: bool = False
    """The file could not be read safely at all (its type, its permissions, a line too long)."""

    def __str__(self) -> str:
        return f"{located(self.file, self.line)}: {self.reason}"
