"""A mapping that keeps its most recent entries and forgets the oldest first.

The simulator holds state between requests (responses a follow-up names, Anthropic
threads, OpenAI conversations); each holds at most a number of entries, so a
long-running server does not grow without end.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

V = TypeVar("V")

KEPT_CONVERSATIONS = 1024
"""How many of each kind of conversation the simulator keeps; the oldest is forgotten
first."""


class Bounded(Generic[V]):
    """Key -> value, at most ``limit`` entries. An entry put or touched becomes the most
    recent; beyond the limit the least recent is forgotten, and ``on_forget`` (if given)
    is told its key."""

    def __init__(
        self, limit: int = KEPT_CONVERSATIONS, on_forget: Callable[[str], None] | None = None
    ) -> None:
        if limit < 1:
            raise ValueError(f"limit must be at least 1, not {limit}")
        self.limit = limit
        self._on_forget = on_forget
        self._kept: OrderedDict[str, V] = OrderedDict()

    def __len__(self) -> int:
        return len(self._kept)

    def __contains__(self, key: object) -> bool:
        return key in self._kept

    def __getitem__(self, key: str) -> V:
        return self._kept[key]

    def __delitem__(self, key: str) -> None:
        del self._kept[key]

    def values(self) -> list[V]:
        """The values kept, the least recent first."""
        return list(self._kept.values())

    def get(self, key: str) -> V | None:
        """The value of ``key``, or None if it is not kept."""
        return self._kept.get(key)

    def put(self, key: str, value: V) -> None:
        """Keep ``value`` as ``key``, the most recent entry, forgetting the oldest beyond
        the limit."""
        self._kept[key] = value
        self.touch(key)

    def touch(self, key: str) -> None:
        """Make ``key`` (kept) the most recent entry, forgetting the oldest beyond the limit."""
        self._kept.move_to_end(key)
        while len(self._kept) > self.limit:
            forgotten, _ = self._kept.popitem(last=False)
            if self._on_forget is not None:
                self._on_forget(forgotten)
