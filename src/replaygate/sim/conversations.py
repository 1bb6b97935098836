"""The responses the simulator served, kept for follow-ups that name one by its id.

The Responses API keeps a conversation on the server: a request naming
``previous_response_id`` continues from that response (its input and its output),
without sending them again. The simulator keeps the most recent conversations,
bounded, so a long-running server does not grow without end.
"""

from __future__ import annotations

from collections.abc import Sequence

from replaygate.models.types import Message
from replaygate.sim.bounded import KEPT_CONVERSATIONS, Bounded

FIRST_CREATED_AT = 1_700_000_000
"""The ``created_at`` of what the simulator makes before any message (:func:`created_at`)."""

__all__ = ["KEPT_CONVERSATIONS", "Conversations", "created_at", "not_served"]


def created_at(before: int) -> int:
    """The ``created_at`` of what is made after ``before`` messages (or items) of its
    conversation: a second after :data:`FIRST_CREATED_AT` for each, so a later turn is
    created later, whatever else the simulator served in between."""
    return FIRST_CREATED_AT + before


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
