"""Trim: drop the response fields a team's code never reads, keep everything else.

The allowlist of an interface names the top-level response fields the code reads.
Trimming drops a field only when replaygate knows it as a field of that interface
(:data:`KNOWN_FIELDS`) and the allowlist does not name it. So:

- the fields the code reads (the business fields) are kept, because they are listed;
- a field replaygate does not know (one the provider added since) is kept, so a
  parser that starts depending on it shows up in the fixture diff and in drift;
- the fields replaygate's own converters read (:data:`REQUIRED_FIELDS`) are always
  kept, so a trimmed fixture still replays.

Trimming applies to the top-level fields of a message object (Anthropic), a
completion (OpenAI Chat Completions), a response object (OpenAI Responses) or a
``generateContent`` response (Gemini): a plain response body, the ``message`` of an
Anthropic stream's ``message_start`` event, each Chat Completions or Gemini stream
chunk, and the ``response`` of a Responses stream's lifecycle events
(``response.created``, ``response.completed``, ...).
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
            "obfuscation",  # a stream chunk's padding
        }
    ),
    "openai.responses": frozenset(
        {
            "id",
            "object",
            "created_at",
            "completed_at",
            "status",
            "error",
            "incomplete_details",
            "instructions",
            "max_output_tokens",
            "max_tool_calls",
            "model",
            "output",
            "parallel_tool_calls",
            "previous_response_id",
            "reasoning",
            "service_tier",
            "store",
            "temperature",
            "text",
            "tool_choice",
            "tools",
            "top_logprobs",
            "top_p",
            "truncation",
            "usage",
            "user",
            "metadata",
            "background",
            "prompt_cache_key",
            "safety_identifier",
        }
    ),
    "google.generate_content": frozenset(
        {
            "candidates",
            "promptFeedback",
            "usageMetadata",
            "modelVersion",
            "responseId",
            "createTime",
        }
    ),
}
"""The response fields of each interface, as documented by its provider."""

REQUIRED_FIELDS: dict[str, frozenset[str]] = {
    "anthropic.messages": frozenset({"content", "stop_reason", "usage"}),
    "openai.chat.completions": frozenset({"choices", "usage"}),
    "openai.responses": frozenset({"id", "output", "status", "incomplete_details", "usage"}),
    "google.generate_content": frozenset({"candidates", "promptFeedback", "usageMetadata"}),
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


def trim_event(event: Any, dropped: frozenset[str]) -> Any:
    """A stream event's data with the object it carries trimmed: the ``message`` of a
    ``message_start``, the ``response`` of a Responses lifecycle event, or a whole Chat
    Completions or Gemini chunk (``event`` itself when it is none of these)."""
    if not dropped or not isinstance(event, dict):
        return event
    kind = event.get("type")
    message, response = event.get("message"), event.get("response")
    if kind == "message_start" and isinstance(message, dict):
        return {**event, "message": trim_object(message, dropped)}
    if isinstance(kind, str) and kind.startswith("response.") and isinstance(response, dict):
        return {**event, "response": trim_object(response, dropped)}
    whole = "choices" in event or "candidates" in event
    return trim_object(event, dropped) if whole else event
