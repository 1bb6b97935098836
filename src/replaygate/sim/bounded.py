"""A mapping that keeps its most recent entries and forgets the oldest first.

The simulator holds state between requests (responses a follow-up names, Anthropic
threads, OpenAI conversations); each holds at most a number of entries, so a
long-running server does not grow without end.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Generic, TypeVar

V = TypeVar("V")
Item = TypeVar("Item", bound=Mapping[str, Any])

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
        self._placed: dict[str, int] = {}  # key -> how many keys were put before it first
        self._puts = 0
        self._deleted: OrderedDict[str, None] = OrderedDict()  # the last ``limit`` deleted

    def __len__(self) -> int:
        return len(self._kept)

    def __contains__(self, key: object) -> bool:
        return key in self._kept

    def __getitem__(self, key: str) -> V:
        return self._kept[key]

    def __delitem__(self, key: str) -> None:
        del self._kept[key]
        self._deleted[key] = None
        while len(self._deleted) > self.limit:
            gone, _ = self._deleted.popitem(last=False)
            self._placed.pop(gone, None)

    def place(self, key: str) -> int | None:
        """Where ``key`` was put (since it was last deleted) among the keys put, for a key
        kept or among the last ``limit`` deleted: a list's cursor naming one deleted since
        pages on from its place, as a list of the API does; None for a key never put, or
        forgotten."""
        return self._placed.get(key)

    def values(self) -> list[V]:
        """The values kept, the least recent first."""
        return list(self._kept.values())

    def get(self, key: str) -> V | None:
        """The value of ``key``, or None if it is not kept."""
        return self._kept.get(key)

    def put(self, key: str, value: V) -> None:
        """Keep ``value`` as ``key``, the most recent entry, forgetting the oldest beyond
        the limit."""
        if key not in self._kept:  # new, or put again once deleted: placed last
            self._deleted.pop(key, None)
            self._placed[key] = self._puts
            self._puts += 1
        self._kept[key] = value
        self.touch(key)

    def touch(self, key: str) -> None:
        """Make ``key`` (kept) the most recent entry, forgetting the oldest beyond the limit."""
        self._kept.move_to_end(key)
        while len(self._kept) > self.limit:
            forgotten, _ = self._kept.popitem(last=False)
            self._placed.pop(forgotten, None)
            if self._on_forget is not None:
                self._on_forget(forgotten)


def beside(
    items: Sequence[Item],
    place: Callable[[str], int | None],
    cursor: str,
    *,
    newer: bool,
) -> list[Item]:
    """The ``items`` (each with its ``id``, in the order given) put after ``cursor``
    (``newer``) or before it, as :meth:`Bounded.place` places them: a list's page after or
    before the item the cursor names, held or deleted since; none for a cursor of no place."""
    at = place(cursor)
    if at is None:
        return []
    placed = [(place(str(item["id"])), item) for item in items]
    return [item for p, item in placed if p is not None and (p > at if newer else p < at)]
