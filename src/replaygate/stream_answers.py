"""The answer a recorded stream holds, assembled from its events, for the simulator to learn.

A recording that replays a streamed answer tells the simulator of it
(:meth:`~replaygate.sim.app.SimApp.learn`); what the simulator keeps is the answer's
body, as a non-streamed request would have had it. A Responses stream ends with the
whole response (``response.completed``, ``response.incomplete``); a Messages stream is
put together from its ``message_start`` and its content blocks' deltas.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import orjson


def event_objects(events: Sequence[Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each event's name and JSON object (events of another shape are passed over)."""
    for event in events:
        if not isinstance(event, Mapping):
            continue
        try:
            data = orjson.loads(str(event.get("data")))
        except orjson.JSONDecodeError:
            continue
        if isinstance(data, dict):
            yield str(event.get("event") or data.get("type") or ""), data


RESPONSES_ENDS = frozenset({"response.completed", "response.incomplete"})
"""The events that end a Responses stream with the whole answer (one stopped at
``max_output_tokens`` is an answer too, continued as a completed one is)."""


def responses_answer(events: Sequence[Any]) -> dict[str, Any] | None:
    """The response a Responses stream ended with (:data:`RESPONSES_ENDS`), or None."""
    for name, data in event_objects(events):
        response = data.get("response")
        if name in RESPONSES_ENDS and isinstance(response, dict):
            return response
    return None


def responses_started(events: Sequence[Any]) -> dict[str, Any] | None:
    """The response a Responses stream started with (its ``response.created``), or None:
    all a stream read only in part holds of it."""
    for name, data in event_objects(events):
        response = data.get("response")
        if name == "response.created" and isinstance(response, dict):
            return response
    return None


def messages_answer(events: Sequence[Any]) -> dict[str, Any] | None:
    """The message a Messages stream holds (its id, content blocks, stop reason and usage),
    or None when it does not start and stop as one does (cut short, or ended by an error
    event), as a Responses stream is read only when it completed."""
    message: dict[str, Any] | None = None
    blocks: dict[int, dict[str, Any]] = {}
    partial: dict[int, str] = {}
    stopped = False
    for name, data in event_objects(events):
        stopped = stopped or name == "message_stop"
        if name == "message_start" and isinstance(data.get("message"), dict):
            message = dict(data["message"])
        elif name == "message_delta" and message is not None:
            _end(message, data)
        index = data.get("index")
        if not isinstance(index, int):
            continue
        if name == "content_block_start" and isinstance(data.get("content_block"), dict):
            blocks[index] = dict(data["content_block"])
        elif name == "content_block_delta" and index in blocks:
            _add(blocks[index], partial, index, data.get("delta"))
    if message is None or not stopped:  # a stream cut short holds no whole answer
        return None
    for index, text in partial.items():
        with contextlib.suppress(orjson.JSONDecodeError):  # a stream cut short: left as given
            blocks[index]["input"] = orjson.loads(text)
    message["content"] = [blocks[i] for i in sorted(blocks)]
    return message


def _end(message: dict[str, Any], data: Mapping[str, Any]) -> None:
    """A ``message_delta`` applied: the stop reason and sequence it gives, and its usage
    counts over those of ``message_start``."""
    delta = data.get("delta")
    if isinstance(delta, Mapping):
        message.update({k: delta[k] for k in ("stop_reason", "stop_sequence") if k in delta})
    usage = data.get("usage")
    if isinstance(usage, Mapping):
        message["usage"] = {**(message.get("usage") or {}), **usage}


def _add(block: dict[str, Any], partial: dict[int, str], index: int, delta: Any) -> None:
    """One delta added to its block: text, a citation, thinking, a signature, or a tool
    call's arguments (JSON in pieces, read at the end)."""
    if not isinstance(delta, Mapping):
        return
    kind = delta.get("type")
    if kind == "input_json_delta":
        partial[index] = partial.get(index, "") + str(delta.get("partial_json", ""))
        return
    if kind == "citations_delta":
        cited = block.get("citations")
        block["citations"] = [*(cited if isinstance(cited, list) else ()), delta.get("citation")]
        return
    field = {"text_delta": "text", "thinking_delta": "thinking", "signature_delta": "signature"}
    name = field.get(str(kind))
    if name is not None:
        block[name] = str(block.get(name, "")) + str(delta.get(name, ""))
