"""The Responses API's typed event stream, built from a whole response body (pure).

The stream is what the real API sends: ``response.created`` and
``response.in_progress`` (the response with no output yet); for each output item
``response.output_item.added``, its content (``response.content_part.added``, the
``response.output_text.delta`` pieces, ``response.output_text.done``, or for a refusal
``response.refusal.delta`` pieces and ``response.refusal.done``;
``response.content_part.done``; or ``response.function_call_arguments.delta`` pieces
and ``response.function_call_arguments.done``; or for a reasoning item's summary parts
``response.reasoning_summary_part.added``, the ``response.reasoning_summary_text.delta``
pieces, ``response.reasoning_summary_text.done``, ``response.reasoning_summary_part.done``),
``response.output_item.done``; and
last ``response.completed`` (or ``response.incomplete``) with the whole response.
Every event carries its ``sequence_number``, so the SDK's stream helper accumulates
the same response as a plain call returns. The deltas of text, of a call's arguments and
of a reasoning summary carry ``obfuscation``, the padding the API adds to them unless
``stream_options.include_obfuscation`` is false (:func:`obfuscation`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from replaygate.http.sse import SSEEvent
from replaygate.sim.logprobs import streamed
from replaygate.sim.streaming import (
    DEFAULT_CHUNK,
    Patch,
    json_event,
    obfuscation,
    split_pieces,
    unpatched,
)

OBFUSCATED = frozenset(
    {
        "response.output_text.delta",
        "response.function_call_arguments.delta",
        "response.reasoning_summary_text.delta",
    }
)
"""The delta events the API pads with an ``obfuscation`` field."""


class _Sequence:
    """Numbers the events of one stream as they are made; pads its delta events
    (:data:`OBFUSCATED`) with an ``obfuscation`` drawn from ``padded``, the response id,
    unless that is None."""

    def __init__(self, padded: str | None) -> None:
        self.events: list[SSEEvent] = []
        self.padded = padded

    def add(self, kind: str, **fields: Any) -> None:
        number = len(self.events)
        data = {"type": kind, "sequence_number": number, **fields}
        if self.padded is not None and kind in OBFUSCATED:
            data["obfuscation"] = obfuscation(self.padded, number)
        self.events.append(json_event(kind, data))


_STREAMED_PARTS = {"output_text": "text", "refusal": "refusal"}
"""The content parts whose words stream in pieces, and the field holding them."""


def _content(seq: _Sequence, where: dict[str, Any], part: Mapping[str, Any], size: int) -> None:
    """The events of one content part of a message item."""
    kind = str(part.get("type"))
    if kind not in _STREAMED_PARTS:
        seq.add("response.content_part.added", **where, part=dict(part))
        seq.add("response.content_part.done", **where, part=dict(part))
        return
    field = _STREAMED_PARTS[kind]
    text = str(part.get(field, ""))
    tokens = streamed(part.get("logprobs"))
    scored: dict[str, Any] = {"logprobs": tokens} if kind == "output_text" else {}
    opened = {**part, field: "", **({"logprobs": []} if "logprobs" in part else {})}
    seq.add("response.content_part.added", **where, part=opened)
    if tokens:  # asked for: a delta a token, with its log probabilities
        for token in tokens:
            seq.add(f"response.{kind}.delta", **where, delta=token["token"], logprobs=[token])
    else:
        for piece in split_pieces(text, size):
            seq.add(f"response.{kind}.delta", **where, delta=piece, **scored)
    seq.add(f"response.{kind}.done", **where, **{field: text}, **scored)
    seq.add("response.content_part.done", **where, part=dict(part))


def _summary(seq: _Sequence, where: dict[str, Any], part: Mapping[str, Any], size: int) -> None:
    """The events of one summary part of a reasoning item."""
    text = str(part.get("text", ""))
    seq.add("response.reasoning_summary_part.added", **where, part={**part, "text": ""})
    for piece in split_pieces(text, size):
        seq.add("response.reasoning_summary_text.delta", **where, delta=piece)
    seq.add("response.reasoning_summary_text.done", **where, text=text)
    seq.add("response.reasoning_summary_part.done", **where, part=dict(part))


def _item(seq: _Sequence, index: int, item: Mapping[str, Any], size: int) -> None:
    """The events of one output item, from ``added`` to ``done``."""
    kind = item.get("type")
    where = {"item_id": item.get("id"), "output_index": index}
    if kind == "message":
        opened: dict[str, Any] = {**item, "status": "in_progress", "content": []}
    elif kind == "function_call":
        opened = {**item, "status": "in_progress", "arguments": ""}
    elif kind == "reasoning":
        opened = {**item, "summary": []}
    else:
        opened = dict(item)
    seq.add("response.output_item.added", output_index=index, item=opened)
    if kind == "message":
        for content_index, part in enumerate(item.get("content") or []):
            _content(seq, {**where, "content_index": content_index}, part, size)
    elif kind == "function_call":
        arguments = str(item.get("arguments", ""))
        for piece in split_pieces(arguments, size):
            seq.add("response.function_call_arguments.delta", **where, delta=piece)
        seq.add("response.function_call_arguments.done", **where, arguments=arguments)
    elif kind == "reasoning":
        for summary_index, part in enumerate(item.get("summary") or []):
            _summary(seq, {**where, "summary_index": summary_index}, part, size)
    seq.add("response.output_item.done", output_index=index, item=dict(item))


def responses_events(
    response: Mapping[str, Any],
    *,
    chunk_size: int = DEFAULT_CHUNK,
    patch: Patch | None = None,
    obfuscate: bool = True,
) -> list[SSEEvent]:
    """The Responses API stream of ``response`` (a response body).

    ``patch`` transforms the response object of every lifecycle event (drift
    injection); ``obfuscate`` false leaves out the deltas' ``obfuscation``, as
    ``stream_options.include_obfuscation: false`` asks the API.
    """
    patch = patch or unpatched
    seq = _Sequence(str(response.get("id")) if obfuscate else None)
    started = {**response, "status": "in_progress", "output": [], "usage": None}
    started.update(incomplete_details=None, completed_at=None)
    seq.add("response.created", response=patch(dict(started)))
    seq.add("response.in_progress", response=patch(dict(started)))
    for index, item in enumerate(response.get("output") or []):
        _item(seq, index, item, chunk_size)
    incomplete = response.get("status") == "incomplete"
    final = "response.incomplete" if incomplete else "response.completed"
    seq.add(final, response=patch(dict(response)))
    return seq.events


def responses_error_event(sequence_number: int, message: str) -> SSEEvent:
    """An ``error`` event, as the API sends when a stream fails midway."""
    data = {
        "type": "error",
        "code": "server_error",
        "message": message,
        "param": None,
        "sequence_number": sequence_number,
    }
    return json_event("error", data)
