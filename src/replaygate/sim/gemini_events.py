"""Gemini's ``streamGenerateContent?alt=sse`` stream, built from a whole response (pure).

Each event's data is a ``generateContent`` response holding a piece of the answer:
the text in pieces, then the function calls whole; the last chunk carries the
``finishReason`` and the whole ``usageMetadata`` (the earlier ones count the prompt
only). There is no end marker: the stream ends with the body.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from replaygate.http.sse import SSEEvent
from replaygate.sim.streaming import DEFAULT_CHUNK, Patch, json_event, split_pieces, unpatched


def gemini_events(
    response: Mapping[str, Any], *, chunk_size: int = DEFAULT_CHUNK, patch: Patch | None = None
) -> list[SSEEvent]:
    """The SSE stream of ``response`` (a ``generateContent`` body); ``patch`` transforms
    every chunk (drift injection)."""
    patch = patch or unpatched
    candidate = (response.get("candidates") or [{}])[0]
    parts = (candidate.get("content") or {}).get("parts") or []
    text = "".join(str(p["text"]) for p in parts if "text" in p)
    pieces: list[list[dict[str, Any]]] = [[{"text": p}] for p in split_pieces(text, chunk_size)]
    calls = [p for p in parts if "functionCall" in p]
    if calls:
        pieces.append(calls)
    pieces = pieces or [[{"text": ""}]]
    usage = dict(response.get("usageMetadata") or {})
    prompt_only = {k: v for k, v in usage.items() if k == "promptTokenCount"}
    events = []
    for n, chunk_parts in enumerate(pieces, start=1):
        last = n == len(pieces)
        chunk_candidate: dict[str, Any] = {
            "content": {"role": "model", "parts": chunk_parts},
            "index": candidate.get("index", 0),
        }
        if last:
            chunk_candidate["finishReason"] = candidate.get("finishReason", "STOP")
        chunk = {
            **{k: v for k, v in response.items() if k not in ("candidates", "usageMetadata")},
            "candidates": [chunk_candidate],
            "usageMetadata": usage if last else prompt_only,
        }
        events.append(json_event(None, patch(chunk)))
    return events


def gemini_error_event(code: int, status: str, message: str) -> SSEEvent:
    """An error chunk, as the API sends when a stream fails midway."""
    body = {"error": {"code": code, "message": message, "status": status}}
    return json_event(None, body)
