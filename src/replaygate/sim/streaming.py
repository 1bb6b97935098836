"""Synthesis of server-sent event streams from whole response bodies (pure functions).

Each provider's stream is built from the response body it would have sent without
streaming, so an SDK that accumulates the stream gets back the same message.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import string
from collections.abc import Callable, Mapping
from typing import Any

from replaygate import exact_json
from replaygate.http.sse import SSEEvent

Patch = Callable[[dict[str, Any]], dict[str, Any]]
DEFAULT_CHUNK = 24


def split_pieces(text: str, size: int = DEFAULT_CHUNK) -> list[str]:
    """``text`` cut into pieces of at most ``size`` characters (none for an empty text)."""
    if size < 1:
        raise ValueError("piece size must be at least 1")
    return [text[i : i + size] for i in range(0, len(text), size)]


def json_event(event: str | None, data: Any) -> SSEEvent:
    """An SSE event named ``event`` (or unnamed: None) whose data is ``data`` as compact JSON."""
    return SSEEvent(data=exact_json.dumps(data).decode("utf-8"), event=event)


def unpatched(body: dict[str, Any]) -> dict[str, Any]:
    """The :data:`Patch` that changes nothing."""
    return body


def anthropic_message_start(message: Mapping[str, Any]) -> dict[str, Any]:
    """The ``message`` of a ``message_start`` event: no content, no stop reason yet."""
    usage = dict(message.get("usage") or {})
    usage["output_tokens"] = min(1, int(usage.get("output_tokens", 0)))
    start = dict(message)
    start.update(content=[], stop_reason=None, stop_sequence=None, usage=usage)
    return start


def _anthropic_block(index: int, block: Mapping[str, Any], size: int) -> list[SSEEvent]:
    """The events of one content block: its start, its deltas (a text's citations and then
    its text, a tool call's arguments as JSON, a thought and then its signature), its
    stop. A redacted thought comes whole in its start."""
    events: list[SSEEvent] = []
    kind = block.get("type")
    if kind == "tool_use":
        start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
        pieces = ["", *split_pieces(json.dumps(block.get("input", {}), ensure_ascii=False), size)]
        deltas = [{"type": "input_json_delta", "partial_json": p} for p in pieces]
    elif kind == "thinking":
        start = {"type": "thinking", "thinking": "", "signature": ""}
        deltas = [
            {"type": "thinking_delta", "thinking": p}
            for p in split_pieces(str(block.get("thinking", "")), size)
        ]
        deltas.append({"type": "signature_delta", "signature": str(block.get("signature", ""))})
    elif kind == "redacted_thinking":
        start, deltas = dict(block), []
    else:
        citations = block.get("citations")
        cited = citations if isinstance(citations, list) else None
        start = {"type": "text", "text": "", **({} if cited is None else {"citations": []})}
        # each citation comes as a delta of its own, before the text
        deltas = [{"type": "citations_delta", "citation": c} for c in cited or ()]
        deltas += [
            {"type": "text_delta", "text": p}
            for p in split_pieces(str(block.get("text", "")), size)
        ]
    events.append(
        json_event(
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": start},
        )
    )
    events.extend(
        json_event(
            "content_block_delta", {"type": "content_block_delta", "index": index, "delta": d}
        )
        for d in deltas
    )
    events.append(json_event("content_block_stop", {"type": "content_block_stop", "index": index}))
    return events


DELTA_USAGE = (
    "input_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
    "server_tool_use",
)
"""The counts of a message's usage its stream's ``message_delta`` repeats beside
``output_tokens``, as the API sends them (cumulative, as ``MessageDeltaUsage`` holds them)."""


def anthropic_events(
    message: Mapping[str, Any], *, chunk_size: int = DEFAULT_CHUNK, patch: Patch | None = None
) -> list[SSEEvent]:
    """The Messages API stream of ``message`` (a response body), as the real API sends it.

    ``patch`` transforms the ``message`` of ``message_start`` (drift injection).
    """
    start = (patch or unpatched)(anthropic_message_start(message))
    events = [
        json_event("message_start", {"type": "message_start", "message": start}),
        json_event("ping", {"type": "ping"}),
    ]
    for index, block in enumerate(message.get("content") or []):
        events.extend(_anthropic_block(index, block, chunk_size))
    usage = message.get("usage") or {}
    # the API's last usage is the whole count, input and cache too: LangChain reads it
    # alone, and drops the usage of message_start
    counts = {k: usage[k] for k in DELTA_USAGE if usage.get(k) is not None}
    events.append(
        json_event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {
                    "stop_reason": message.get("stop_reason"),
                    "stop_sequence": message.get("stop_sequence"),
                },
                "usage": {**counts, "output_tokens": int(usage.get("output_tokens", 0))},
            },
        )
    )
    events.append(json_event("message_stop", {"type": "message_stop"}))
    return events


def anthropic_error_event(error_type: str, message: str) -> SSEEvent:
    """An ``error`` event, as the API sends when a stream fails midway."""
    return json_event("error", {"type": "error", "error": {"type": error_type, "message": message}})


def openai_error_chunk(message: str) -> SSEEvent:
    """A Chat Completions stream's failure midway: a ``data:`` line holding the error
    object (no event name, no ``[DONE]`` after it), as the API sends one."""
    error = {"message": message, "type": "server_error", "param": None, "code": None}
    return json_event(None, {"error": error})


def _openai_tool_deltas(index: int, call: Mapping[str, Any], size: int) -> list[dict[str, Any]]:
    function = call.get("function") or {}
    first = {
        "index": index,
        "id": call.get("id"),
        "type": "function",
        "function": {"name": function.get("name"), "arguments": ""},
    }
    rest = [
        {"index": index, "function": {"arguments": piece}}
        for piece in split_pieces(str(function.get("arguments", "")), size)
    ]
    return [first, *rest]


def _function_call_deltas(function: Mapping[str, Any], size: int) -> list[dict[str, Any]]:
    """The ``delta.function_call`` pieces of a deprecated ``function_call``: its name with
    empty arguments, then the arguments' pieces, as the API streams them."""
    first = {"name": function.get("name"), "arguments": ""}
    pieces = split_pieces(str(function.get("arguments", "")), size)
    return [first, *({"arguments": piece} for piece in pieces)]


_PADDING = string.ascii_letters + string.digits


def obfuscation(stream_id: str, number: int) -> str:
    """The ``obfuscation`` of event ``number`` of the OpenAI stream of the answer
    ``stream_id``: 1 to 15 letters and digits, as random-looking as the API's padding
    (which hides the length of a delta from an observer of the connection) but drawn from
    the answer's id and the event's number, so the same answer streams the same bytes."""
    digest = hashlib.sha256(f"{stream_id}:{number}".encode()).digest()
    return "".join(_PADDING[b % len(_PADDING)] for b in digest[1 : 2 + digest[0] % 15])


_NO_LOGPROBS: dict[str, Any] = {"content": None, "refusal": None}
"""The log probabilities of a Chat Completions chunk, before its tokens' are filled in."""


def openai_chunks(
    completion: Mapping[str, Any],
    *,
    include_usage: bool = False,
    chunk_size: int = DEFAULT_CHUNK,
    patch: Patch | None = None,
    obfuscate: bool = False,
) -> list[SSEEvent]:
    """The Chat Completions stream of ``completion`` (a response body), ``[DONE]`` included.

    The first chunk names the role (and opens the first tool call when there is no
    text, or the refusal, as ``""``, of a message that refuses); then come the text
    pieces, the refusal's (a token a chunk, with its ``logprobs``, in a choice that holds
    them), then each tool call's id and name followed by
    pieces of its arguments (a deprecated ``function_call``'s name, then its arguments'
    pieces, under ``function_call``), then a chunk with the finish reason; each choice in turn,
    under its index (``n`` asked for several). ``include_usage`` adds ``"usage": null`` to every
    chunk and a last chunk with no choices and the usage, as ``stream_options`` asks.
    ``obfuscate`` pads every chunk with an ``obfuscation`` (:func:`obfuscation`), as the API
    does unless ``stream_options.include_obfuscation`` is false. ``patch`` transforms every
    chunk object (drift injection).
    """
    patch = patch or unpatched
    numbers = itertools.count()

    def sent(body: dict[str, Any]) -> SSEEvent:
        if obfuscate:
            body["obfuscation"] = obfuscation(str(completion.get("id")), next(numbers))
        return json_event(None, patch(body))

    base: dict[str, Any] = {
        "id": completion.get("id"),
        "object": "chat.completion.chunk",
        "created": completion.get("created", 0),
        "model": completion.get("model"),
    }
    for name in ("service_tier", "system_fingerprint"):
        if name in completion:
            base[name] = completion[name]
    events: list[SSEEvent] = []
    for number, choice in enumerate(completion.get("choices") or [{}]):
        index = choice.get("index", number)

        def chunk(
            delta: dict[str, Any],
            finish_reason: str | None = None,
            index: Any = index,
            logprobs: Any = None,
        ) -> SSEEvent:
            body = dict(base)
            body["choices"] = [
                {
                    "index": index,
                    "delta": delta,
                    "logprobs": logprobs,
                    "finish_reason": finish_reason,
                }
            ]
            if include_usage:
                body["usage"] = None
            return sent(body)

        message = choice.get("message") or {}
        text = message.get("content") or ""
        tool_deltas = [
            _openai_tool_deltas(i, call, chunk_size)
            for i, call in enumerate(message.get("tool_calls") or [])
        ]
        function = message.get("function_call")
        function_deltas = _function_call_deltas(function, chunk_size) if function else []
        said = message.get("content") is not None  # "" too: cut before it said anything
        first: dict[str, Any] = {"role": "assistant", "content": "" if said else None}
        if not text and tool_deltas:
            first["tool_calls"] = [tool_deltas[0].pop(0)]
        if not text and function_deltas:
            first["function_call"] = function_deltas.pop(0)
        refused = message.get("refusal") or ""
        first["refusal"] = "" if refused else None  # a refusal's stream opens its field
        events.append(chunk(first))
        scored = choice.get("logprobs") or {}
        for field, said_text in (("content", text), ("refusal", refused)):
            tokens = scored.get(field)
            if tokens:  # asked for: a chunk a token, with its log probabilities
                events.extend(
                    chunk({field: t["token"]}, logprobs={**_NO_LOGPROBS, field: [t]})
                    for t in tokens
                )
            else:
                events.extend(
                    chunk({field: piece}) for piece in split_pieces(said_text, chunk_size)
                )
        events.extend(chunk({"tool_calls": [d]}) for deltas in tool_deltas for d in deltas)
        events.extend(chunk({"function_call": d}) for d in function_deltas)
        events.append(chunk({}, choice.get("finish_reason") or "stop"))
    if include_usage:
        last = dict(base)
        last["choices"] = []
        last["usage"] = completion.get("usage")
        events.append(sent(last))
    events.append(SSEEvent(data="[DONE]"))
    return events
