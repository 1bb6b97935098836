"""The OpenAI Conversations API (``/v1/conversations``): conversations whose items the
server keeps, which a Responses request continues by naming one (``conversation``).

Routes: ``POST /v1/conversations`` (optional ``items``), ``GET``, ``POST`` (its
``metadata`` replaced) and ``DELETE /v1/conversations/{id}``, ``POST`` and ``GET
/v1/conversations/{id}/items`` (a page: ``limit`` up to 100, default 20; ``order``
``desc`` (the default) or ``asc``; ``after`` an item id), ``GET`` and ``DELETE
/v1/conversations/{id}/items/{item_id}``. An id the server does not hold is a 404. The
most recent :data:`KEPT_CONVERSATIONS` are kept.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

from replaygate.sim.bounded import KEPT_CONVERSATIONS, Bounded
from replaygate.sim.conversations import created_at, not_served
from replaygate.sim.draws import Draw, Draws, digest_of
from replaygate.sim.openai_lists import list_body, openai_page
from replaygate.sim.replies import openai_error

Answer = tuple[int, dict[str, Any]]
"""An HTTP status and its JSON body."""


def _error(status: int, message: str, param: str | None = None) -> Answer:
    return status, openai_error(message, param=param)


def conversation_not_found(conversation_id: str) -> str:
    """The 404's message for a conversation the server does not hold."""
    served = not_served("conversations") if conversation_id.startswith("conv_sim_") else ""
    return f"Conversation with id '{conversation_id}' not found.{served}"


def _text_part(role: str, text: str) -> dict[str, Any]:
    kind = "output_text" if role == "assistant" else "input_text"
    part: dict[str, Any] = {"type": kind, "text": text}
    if kind == "output_text":
        part["annotations"] = []
    return part


@dataclass
class _Held:
    """A conversation the server holds: the object, its items (oldest first), and how many
    items were ever added to it (the number of the next one's id)."""

    conversation: dict[str, Any]
    items: list[dict[str, Any]] = field(default_factory=list)
    added: int = 0


def _made_of(body: Any) -> tuple[list[Any], Any]:
    """The ``items`` (none when not a list) and ``metadata`` of a request making a
    conversation."""
    given = body if isinstance(body, Mapping) else {}
    items = given.get("items")
    return (items if isinstance(items, list) else []), given.get("metadata")


class ConversationStore:
    """Conversation id -> its items, oldest first. Ids come from the seed and what they
    name: a conversation's, ``conv_sim_<n>_<digits>``, counts the conversations made of
    the same items and metadata; an item's, ``item_sim_<n>_<digits>``, its place in its
    conversation. Neither depends on what else the simulator served, or when."""

    def __init__(self, limit: int = KEPT_CONVERSATIONS, seed: int = 0) -> None:
        self._kept: Bounded[_Held] = Bounded(limit)
        self.limit = limit
        self.seed = seed
        self._made = Draws()

    def _item(self, held: _Held, raw: Mapping[str, Any]) -> dict[str, Any]:
        """``raw`` (a Responses input or output item), added to ``held``, as the
        conversation keeps it: with an id, a type and a status, a message's text content
        as a list of parts."""
        item = dict(raw)
        item.setdefault("type", "message")
        if item["type"] == "message":
            role = str(item.get("role") or "user")
            content = item.get("content")
            if isinstance(content, str):
                item["content"] = [_text_part(role, content)]
        if "id" not in item:  # named by its conversation, its place and what it holds
            place = Draw(digest_of(held.conversation["id"], item), held.added)
            item["id"] = f"item_sim_{place.tag(self.seed)}"
        held.added += 1
        item.setdefault("status", "completed")
        return item

    def _new_id(self, items: list[Any], metadata: Any) -> str:
        """The id of a new conversation made of ``items`` and ``metadata``, one not held."""
        digest = digest_of(items, metadata)
        while True:  # one held may be learned from a replayed answer
            conversation_id = f"conv_sim_{self._made.counted(digest).tag(self.seed)}"
            if conversation_id not in self._kept:
                return conversation_id

    def create(self, items: list[Any], metadata: Any) -> dict[str, Any]:
        conversation_id = self._new_id(items, metadata)
        conversation = {
            "id": conversation_id,
            "object": "conversation",
            "created_at": created_at(0),
            "metadata": metadata if isinstance(metadata, Mapping) else {},
        }
        held = _Held(conversation)
        held.items.extend(self._item(held, i) for i in items)
        self._kept.put(conversation_id, held)
        return conversation

    def held(self, conversation_id: str) -> bool:
        return conversation_id in self._kept

    def items(self, conversation_id: str) -> list[dict[str, Any]]:
        """The items of a conversation held (oldest first)."""
        return self._kept[conversation_id].items

    def add(self, conversation_id: str, items: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """Append ``items`` to a conversation held; the items as kept."""
        held = self._kept[conversation_id]
        added = [self._item(held, i) for i in items]
        held.items.extend(added)
        self._kept.touch(conversation_id)
        return added

    def learn(self, method: str, route: str, body: Any, answer: Mapping[str, Any]) -> None:
        """Take ``answer``, replayed to ``method`` on ``route`` with ``body`` from a
        fixture, as given here: the conversation it made under its id, the items it added
        (as the answer lists them), what it deleted."""
        parts = [p for p in route.removeprefix("/v1/conversations").strip("/").split("/") if p]
        if not parts:
            made = answer.get("id")
            if method == "POST" and isinstance(made, str) and made not in self._kept:
                items, metadata = _made_of(body)
                self._made.counted(digest_of(items, metadata))  # a new one is numbered after
                held = _Held(dict(answer))
                held.items.extend(self._item(held, i) for i in items if isinstance(i, Mapping))
                self._kept.put(made, held)
            return
        if parts[0] not in self._kept:
            return
        held = self._kept[parts[0]]
        if method == "POST" and parts[1:] == ["items"]:
            added = answer.get("data")
            learned = [dict(i) for i in added or () if isinstance(i, Mapping)]
            held.items.extend(learned)
            held.added += len(learned)  # an item added later is the next
            self._kept.touch(parts[0])
        elif method == "POST" and len(parts) == 1:
            held.conversation["metadata"] = answer.get("metadata")
        elif method == "DELETE" and len(parts) == 1:
            del self._kept[parts[0]]
        elif method == "DELETE" and len(parts) == 3 and parts[1] == "items":
            held.items[:] = [i for i in held.items if i.get("id") != parts[2]]

    @staticmethod
    def _updated(conversation: dict[str, Any], body: Any) -> Answer:
        """``conversation`` given the ``metadata`` of an update's ``body`` (required, an
        object), as the API answers it."""
        given = body if isinstance(body, Mapping) else {}
        if "metadata" not in given:
            return _error(400, "Missing required parameter: 'metadata'.", "metadata")
        metadata = given["metadata"]
        if not isinstance(metadata, Mapping):
            return _error(400, "Invalid type for 'metadata': expected an object.", "metadata")
        conversation["metadata"] = dict(metadata)
        return 200, conversation

    def answer(self, method: str, route: str, query: str, body: Any) -> Answer:
        """The status and body answering ``method`` on ``route`` (under ``/v1/conversations``)."""
        parts = route.removeprefix("/v1/conversations").strip("/").split("/")
        parts = [p for p in parts if p]
        if not parts:
            if method != "POST":
                return _error(405, f"Invalid URL ({method} {route})")
            items = body.get("items") if isinstance(body, Mapping) else None
            if items is not None and not isinstance(items, list):
                return _error(400, "Invalid type for 'items': expected an array.", "items")
            return 200, self.create(*_made_of(body))
        conversation_id = parts[0]
        if conversation_id not in self._kept:
            return _error(404, conversation_not_found(conversation_id))
        conversation, items = self._kept[conversation_id].conversation, self.items(conversation_id)
        if len(parts) == 1:
            if method == "GET":
                return 200, conversation
            if method == "POST":
                return self._updated(conversation, body)
            if method == "DELETE":
                del self._kept[conversation_id]
                return 200, {
                    "id": conversation_id,
                    "object": "conversation.deleted",
                    "deleted": True,
                }
            return _error(405, f"Invalid URL ({method} {route})")
        if parts[1] != "items" or len(parts) > 3:
            return _error(404, f"Invalid URL ({method} {route})")
        if len(parts) == 3:
            found = next((i for i in items if i.get("id") == parts[2]), None)
            if found is None:
                return _error(404, f"Item with id '{parts[2]}' not found.")
            if method == "GET":
                return 200, found
            if method == "DELETE":
                items.remove(found)
                return 200, conversation
            return _error(405, f"Invalid URL ({method} {route})")
        if method == "POST":
            new = body.get("items") if isinstance(body, Mapping) else None
            if not isinstance(new, list):
                return _error(400, "Missing required parameter: 'items'.", "items")
            return 200, list_body(self.add(conversation_id, new), has_more=False)
        if method != "GET":
            return _error(405, f"Invalid URL ({method} {route})")
        return openai_page(items, parse_qs(query), ordered=True)
