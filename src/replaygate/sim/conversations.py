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
"""The ``created_at`` of the first response, and of the first conversation, the simulator
serves (later ones count up a second each)."""

__all__ = ["FIRST_CREATED_AT", "KEPT_CONVERSATIONS", "Conversations"]


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

    def history(self, response_id: str) -> tuple[Message, ...] | None:
        """The conversation that ended with ``response_id``, or None if it is not kept."""
        return self._kept.get(response_id)
