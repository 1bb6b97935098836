"""The responses the simulator served, kept for follow-ups that name one by its id.

The Responses API keeps a conversation on the server: a request naming
``previous_response_id`` continues from that response (its input and its output),
without sending them again. The simulator keeps the most recent conversations,
bounded, so a long-running server does not grow without end.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from replaygate.models.types import Message
from replaygate.sim.bounded import KEPT_CONVERSATIONS, Bounded

FIRST_CREATED_AT = 1_700_000_000
"""The ``created_at`` of the first response, and of the first conversation, the simulator
serves (later ones count up a second each)."""

__all__ = ["FIRST_CREATED_AT", "KEPT_CONVERSATIONS", "Conversations", "held_id", "not_served"]


def held_id(prefix: str, number: int, held: object) -> str:
    """The id of something the server holds, ``<prefix>_<number>_<digest>``: ``number``
    counts what this server served, ``digest`` names ``held`` (by its ``repr``, the same
    for the same conversation). Another simulator's id (one replayed from fixtures) is
    then not this one's for another conversation: the same id names the same
    conversation, served as many answers in."""
    digest = hashlib.sha256(repr(held).encode("utf-8")).hexdigest()[:12]
    return f"{prefix}_{number:04d}_{digest}"


def not_served(what: str) -> str:
    """Why the simulator does not hold ``what``, which an id of its own names."""
    return (
        f" The simulator holds only the {what} it served since it started; one replayed "
        "from fixtures is not among them: record the conversation anew from its start "
        "(record mode rerecord)."
    )


class Conversations:
    """Served response id -> the whole conversation up to and including that response."""

    def __init__(self, limit: int = KEPT_CONVERSATIONS) -> None:
        self._kept: Bounded[tuple[Message, ...]] = Bounded(limit)
        self.limit = limit

    def __len__(self) -> int:
        return len(self._kept)

    def remember(self, response_id: str, messages: Sequence[Message]) -> None:
        """Keep ``messages`` (the request's conversation plus the answer) as ``response_id``."""
        self._kept.put(response_id, tuple(messages))

    def forget(self, response_id: str) -> None:
        """No longer keep ``response_id`` (deleted): a request continuing it is refused."""
        if response_id in self._kept:
            del self._kept[response_id]

    def history(self, response_id: str) -> tuple[Message, ...] | None:
        """The conversation that ended with ``response_id``, or None if it is not kept."""
        return self._kept.get(response_id)
