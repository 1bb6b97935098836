"""Which answer a request gets: counted per conversation, never by arrival order.

The simulator numbers the answers to each conversation (its messages and tools): the
first time a conversation is answered is its answer 0, the next time the same
conversation comes in its answer 1, and so on. Whatever depends on the answer (the
random choices of a seeded behaviour, the response id) is derived from the seed, the
conversation and that number alone, so clients that send their requests at once get
exactly what they would get one after another, in any order.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import orjson

from replaygate.models.types import Message, ToolSpec


def conversation_digest(messages: Sequence[Message], tools: Sequence[ToolSpec]) -> bytes:
    """A digest of the conversation as the behaviour reads it (messages and tools)."""
    text = orjson.dumps([list(messages), list(tools)], default=dict, option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(text).digest()


@dataclass(frozen=True)
class Draw:
    """Answer ``number`` (0 the first time) to the conversation of ``digest``."""

    digest: bytes
    number: int

    def rng(self, seed: int, purpose: bytes = b"") -> random.Random:
        """A random stream of this answer's own, from ``seed`` and the answer; another
        ``purpose`` (the thought before the answer) draws from another stream."""
        material = b"%d:%s:%d%s" % (seed, self.digest.hex().encode(), self.number, purpose)
        return random.Random(int.from_bytes(hashlib.sha256(material).digest()[:8], "big"))


class Draws:
    """Counts the answers given to each conversation (not thread-safe)."""

    def __init__(self) -> None:
        self._answered: Counter[bytes] = Counter()

    def next(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> Draw:
        """The draw of the next answer to this conversation."""
        digest = conversation_digest(messages, tools)
        number = self._answered[digest]
        self._answered[digest] += 1
        return Draw(digest, number)
