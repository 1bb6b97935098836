"""Which answer a request gets: counted per conversation, never by arrival order.

The simulator numbers the answers to each conversation (its messages and tools): the
first time a conversation is answered is its answer 0, the next time the same
conversation comes in its answer 1, and so on. Whatever depends on the answer (the
random choices of a seeded behaviour, the response id) is derived from the seed, the
conversation and that number alone, so clients that send their requests at once get
exactly what they would get one after another, in any order. The ids of an answer (the
response's, its tool calls') are made of its :meth:`Draw.tag`: unique to the answer, as a
real API's ids are, and the same for the same seed and conversation. What is not an
answer (a request's id, a conversation the Conversations API makes, a compaction) is
counted the same way by what names it (:meth:`Draws.counted`): the n-th request of the
same body, the n-th conversation made of the same items.
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import orjson

from replaygate import exact_json
from replaygate.models.types import Message, ToolSpec


def by_position(messages: Sequence[Message]) -> list[Message]:
    """``messages`` with each tool call's id (and the results naming it) renamed by its
    place in the conversation, ``toolu_01``, ``toolu_02``, ...: an id is the answer's
    own, unique, and says nothing of the conversation (a result names the latest call
    of its id)."""
    named: dict[str, str] = {}
    renamed = []
    for message in messages:
        calls = []
        for call in message.tool_calls:
            named[call.id] = f"toolu_{len(named) + 1:02d}"
            calls.append(dataclasses.replace(call, id=named[call.id]))
        answers = message.tool_call_id
        answers = named.get(answers, answers) if answers is not None else None
        renamed.append(dataclasses.replace(message, tool_calls=tuple(calls), tool_call_id=answers))
    return renamed


def digest_of(*parts: object) -> bytes:
    """A digest of ``parts`` (JSON values, numbers of any size) as JSON, keys sorted."""
    return hashlib.sha256(exact_json.dumps(list(parts), sort_keys=True)).digest()


def conversation_digest(messages: Sequence[Message], tools: Sequence[ToolSpec]) -> bytes:
    """A digest of the conversation as the behaviour reads it (messages and tools), its
    tool call ids by position (:func:`by_position`)."""
    listed = [by_position(messages), list(tools)]
    text = orjson.dumps(listed, default=dict, option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(text).digest()


def json_form(body: bytes) -> bytes:
    """A request ``body`` as JSON in one spelling (keys sorted, compact), so that a body a
    recording replayed, known only as JSON, counts as the bytes a client sent would; a
    body that is not JSON (or nested too deep to write again) as it is."""
    try:
        return exact_json.dumps(exact_json.loads(body), sort_keys=True)
    except (orjson.JSONDecodeError, TypeError):
        return body


def request_digest(kind: bytes, route: str, body: bytes) -> bytes:
    """A digest of a request to ``route`` with ``body`` (:func:`json_form`), for ``kind``
    (what is drawn or named for it)."""
    return hashlib.sha256(b"%s\0%s\0%s" % (kind, route.encode(), json_form(body))).digest()


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

    def tag(self, seed: int, *named: object) -> str:
        """This answer's part of an id, ``<number>_<12 hex digits>``: the number counts
        the answers to the conversation (``0001`` the first), the digits come from
        ``seed``, the conversation, the number and ``named`` (what the id stands for, by
        its ``repr``), so no other answer of the seed has it."""
        material = b"%d:%s:%d:%s" % (
            seed,
            self.digest.hex().encode(),
            self.number,
            repr(named).encode("utf-8"),
        )
        return f"{self.number + 1:04d}_{hashlib.sha256(material).hexdigest()[:12]}"


class Draws:
    """Counts the answers given to each conversation, or what else a digest names (not
    thread-safe)."""

    def __init__(self) -> None:
        self._answered: Counter[bytes] = Counter()

    def peek(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> Draw:
        """The draw the next answer to this conversation gets, not counted (:meth:`take`)."""
        digest = conversation_digest(messages, tools)
        return Draw(digest, self._answered[digest])

    def take(self, draw: Draw) -> None:
        """Count the answer of ``draw`` (from :meth:`peek`) as given."""
        self._answered[draw.digest] += 1

    def next(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> Draw:
        """The draw of the next answer to this conversation, counted."""
        return self.counted(conversation_digest(messages, tools))

    def counted(self, digest: bytes) -> Draw:
        """The draw of the next of what ``digest`` names (0 the first), counted."""
        draw = Draw(digest, self._answered[digest])
        self.take(draw)
        return draw
