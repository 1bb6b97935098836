"""Gemini's ``streamGenerateContent?alt=sse`` stream, built from a whole response (pure).

Each event's data is a ``generateContent`` response holding a piece of one candidate
(each candidate in turn, with its ``index``, when ``candidateCount`` asks for several):
its thought in pieces (parts marked ``thought``), the text in pieces, then the function
calls whole; a candidate's last chunk carries its ``finishReason``, and the stream's last
chunk the whole ``usageMetadata`` (the earlier ones count the prompt only, with its
``promptTokensDetails``). There is no
end marker: the stream ends with the body.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from replaygate.http.sse import SSEEvent
from replaygate.sim.streaming import DEFAULT_CHUNK, Patch, json_event, split_pieces, unpatched

_PROMPT_COUNTS = ("promptTokenCount", "promptTokensDetails", "trafficType")
"""What of ``usageMetadata`` a chunk before the last carries: the prompt's counts (and
Vertex AI's ``trafficType``)."""


def gemini_events(
    response: Mapping[str, Any], *, chunk_size: int = DEFAULT_CHUNK, patch: Patch | None = None
) -> list[SSEEvent]:
    """The SSE stream of ``response`` (a ``generateContent`` body); ``patch`` transforms
    every chunk (drift injection)."""
    patch = patch or unpatched
    chunks = [
        piece
        for candidate in response.get("candidates") or [{}]
        for piece in _candidate_chunks(candidate, chunk_size)
    ]
    usage = dict(response.get("usageMetadata") or {})
    prompt_only = {k: v for k, v in usage.items() if k in _PROMPT_COUNTS}
    rest = {k: v for k, v in response.items() if k not in ("candidates", "usageMetadata")}
    events = []
    for n, piece in enumerate(chunks, start=1):
        chunk = {
            **rest,
            "candidates": [piece],
            "usageMetadata": usage if n == len(chunks) else prompt_only,
        }
        events.append(json_event(None, patch(chunk)))
    return events


def _candidate_chunks(candidate: Mapping[str, Any], chunk_size: int) -> list[dict[str, Any]]:
    """The streamed pieces of one candidate: its thought and its text in pieces, then its
    function calls whole, the last with its ``finishReason``."""
    parts = (candidate.get("content") or {}).get("parts") or []
    thought = "".join(str(p["text"]) for p in parts if "text" in p and p.get("thought"))
    text = "".join(str(p["text"]) for p in parts if "text" in p and not p.get("thought"))
    pieces: list[list[dict[str, Any]]] = [
        [{"text": p, "thought": True}] for p in split_pieces(thought, chunk_size)
    ]
    pieces += [[{"text": p}] for p in split_pieces(text, chunk_size)]
    calls = [p for p in parts if "functionCall" in p]
    if calls:
        pieces.append(calls)
    index = candidate.get("index", 0)
    chunks: list[dict[str, Any]] = [
        {"content": {"role": "model", "parts": piece}, "index": index} for piece in pieces
    ] or [{"content": {"role": "model"}, "index": index}]  # an empty answer: no parts
    chunks[-1]["finishReason"] = candidate.get("finishReason", "STOP")
    return chunks


def gemini_error_event(code: int, status: str, message: str) -> SSEEvent:
    """An error chunk, as the API sends when a stream fails midway."""
    body = {"error": {"code": code, "message": message, "status": status}}
    return json_event(None, body)
