"""Trim: drop the response fields a team's code never reads, keep everything else.

The allowlist of an interface names the top-level response fields the code reads.
Trimming drops a field only when replaygate knows it as a field of that interface
(:data:`KNOWN_FIELDS`) and the allowlist does not name it. So:

- the fields the code reads (the business fields) are kept, because they are listed;
- a field replaygate does not know (one the provider added since) is kept, so a
  parser that starts depending on it shows up in the fixture diff and in drift;
- the fields replaygate's own converters read (:data:`REQUIRED_FIELDS`) are always
  kept, so a trimmed fixture still replays.

Trimming applies to the top-level fields of a message object (Anthropic) or a
completion (OpenAI): a plain response body, the ``message`` of an Anthropic stream's
``message_start`` event, and each OpenAI stream chunk.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

KNOWN_FIELDS: dict[str, frozenset[str]] = {
    "anthropic.messages": frozenset(
        {
            "id",
            "type",
            "role",
            "model",
            "content",
            "stop_reason",
            "stop_sequence",
            "usage",
            "container",
        }
    ),
    "openai.chat.completions": frozenset(
        {
            "id",
            "object",
            "created",
            "model",
            "choices",
            "usage",
            "system_fingerprint",
            "service_tier",
        }
    ),
}
"""The response fields of each interface, as documented by its provider."""

REQUIRED_FIELDS: dict[str, frozenset[str]] = {
    "anthropic.messages": frozenset({"content", "stop_reason", "usage"}),
    "openai.chat.completions": frozenset({"choices", "usage"}),
}
"""Fields the engine converters read: never trimmed."""


def dropped_fields(interface: str, keep: Collection[str]) -> frozenset[str]:
    """The fields trimming drops for ``interface`` with allowlist ``keep``."""
    known = KNOWN_FIELDS.get(interface, frozenset())
    return known - frozenset(keep) - REQUIRED_FIELDS.get(interface, frozenset())


def trim_object(obj: Any, dropped: frozenset[str]) -> Any:
    """``obj`` without the ``dropped`` top-level fields (``obj`` itself if none is there)."""
    if not dropped or not isinstance(obj, dict) or dropped.isdisjoint(obj):
        return obj
    return {k: v for k, v in obj.items() if k not in dropped}
