"""The types of the blocks of a model API's answer recorded at the HTTP layer.

The SDKs take a block of a type they do not know for one of a newer API: the Messages
API's ``tool_usee`` block becomes a text block of that type, which code reading
``tool_use`` blocks passes over, so the replay answers without the call. A type that
misspells one the engine reads is named (:func:`~replaygate.models.providers.kind_of`),
in the answer's body and in the events of its stream that carry a block.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from replaygate.models.providers import kind_of
from replaygate.models.providers.anthropic import READ_BLOCKS
from replaygate.models.providers.openai_responses import READ_ITEMS

BLOCKS: dict[str, tuple[str, tuple[str, ...], dict[str, str]]] = {
    "anthropic.messages": ("content", READ_BLOCKS, {"content_block_start": "content_block"}),
    "openai.responses": (
        "output",
        READ_ITEMS,
        {"response.output_item.added": "item", "response.output_item.done": "item"},
    ),
}
"""For each interface whose answers hold typed blocks: the body's list of them, the
types read, and the stream events that carry one (by event type, the field holding it)."""


def check_blocks(interface: str, response: dict[str, Any], events: Sequence[Any]) -> None:
    """Refuse (:class:`~replaygate.errors.WireFormatError`) a block of a misspelt type in
    the recorded ``response`` of ``interface`` (in :data:`BLOCKS`): in its JSON body, or
    in ``events``, the JSON data of each of its stream's events (None where it has none)."""
    field, read, carried = BLOCKS[interface]
    body = response.get("body")
    blocks = body.get(field) if type(body) is dict else None
    if type(blocks) is list:
        for i, block in enumerate(blocks):
            _check(block, read, f"response.body.{field}[{i}]")
    for i, data in enumerate(events):
        kind = data.get("type") if type(data) is dict else None
        name = carried.get(kind) if type(kind) is str else None
        if name is not None:
            _check(data.get(name), read, f"response.events[{i}].data.{name}")


def _check(block: Any, read: tuple[str, ...], path: str) -> None:
    """Refuse a block at ``path`` whose type misspells one of ``read``; a block that is no
    object, or has no string type, is the SDK's to refuse."""
    if type(block) is dict and type(block.get("type")) is str:
        kind_of(block, read, path)
