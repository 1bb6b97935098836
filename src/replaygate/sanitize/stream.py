"""Text split across stream events: redacted on the whole text of each block.

A streamed answer arrives in fragments (``alice@corp.co`` + ``m, thanks``), so a
rule run on each event alone would miss what straddles two of them. The fragments
of one block (an Anthropic content block's ``text``, ``partial_json`` or
``thinking`` deltas; an OpenAI choice's ``content`` or ``refusal``, or one tool
call's ``arguments``; a Responses API output item's text, refusal or function-call
argument deltas; a Gemini candidate's text parts) are joined and the rules run on
the whole; when that changes it, the first fragment carries the whole redacted text
and the others become empty, so a client that accumulates the deltas gets the
redacted text. The events are the parsed ``data`` of each event, changed in place.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import orjson

from replaygate import exact_json

Fragment = tuple[dict[str, Any], str]
_ANTHROPIC_DELTA_FIELDS = ("text", "partial_json", "thinking")
_OPENAI_DELTA_FIELDS = ("content", "refusal")


def event_data(event: Any, unparsed: Any = None) -> Any:
    """The parsed JSON ``data`` of a recorded stream event; ``unparsed`` if it has none."""
    data = event.get("data") if isinstance(event, dict) else None
    if not isinstance(data, str):
        return unparsed
    try:
        return exact_json.loads(data.encode("utf-8", "surrogatepass"))
    except (orjson.JSONDecodeError, UnicodeEncodeError):
        return unparsed


def _anthropic(event: dict[str, Any]) -> Iterator[tuple[tuple[Any, ...], Fragment]]:
    delta = event.get("delta")
    if event.get("type") != "content_block_delta" or not isinstance(delta, dict):
        return
    for name in _ANTHROPIC_DELTA_FIELDS:
        if isinstance(delta.get(name), str):
            yield ("block", event.get("index"), name), (delta, name)


def _openai(event: dict[str, Any]) -> Iterator[tuple[tuple[Any, ...], Fragment]]:
    choices = event.get("choices")
    if not isinstance(choices, list):
        return
    for position, choice in enumerate(choices):
        delta = choice.get("delta") if isinstance(choice, dict) else None
        if not isinstance(delta, dict):
            continue
        index = choice.get("index", position)
        for name in _OPENAI_DELTA_FIELDS:
            if isinstance(delta.get(name), str):
                yield ("choice", index, name), (delta, name)
        calls = delta.get("tool_calls")
        for n, call in enumerate(calls if isinstance(calls, list) else []):
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(function, dict) and isinstance(function.get("arguments"), str):
                yield ("call", index, call.get("index", n)), (function, "arguments")


_RESPONSES_DELTAS = frozenset(
    {
        "response.output_text.delta",
        "response.refusal.delta",
        "response.function_call_arguments.delta",
    }
)


def _openai_responses(event: dict[str, Any]) -> Iterator[tuple[tuple[Any, ...], Fragment]]:
    kind = event.get("type")
    if kind in _RESPONSES_DELTAS and isinstance(event.get("delta"), str):
        yield (
            ("item", kind, event.get("output_index"), event.get("content_index")),
            (event, "delta"),
        )


def _gemini(event: dict[str, Any]) -> Iterator[tuple[tuple[Any, ...], Fragment]]:
    candidates = event.get("candidates")
    for position, candidate in enumerate(candidates if isinstance(candidates, list) else []):
        content = candidate.get("content") if isinstance(candidate, dict) else None
        parts = content.get("parts") if isinstance(content, dict) else None
        index = candidate.get("index", position)
        for part in parts if isinstance(parts, list) else []:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                yield ("candidate", index, bool(part.get("thought"))), (part, "text")


def fragments(events: list[Any]) -> dict[tuple[Any, ...], list[Fragment]]:
    """The text fragments of each block, in stream order."""
    groups: dict[tuple[Any, ...], list[Fragment]] = {}
    for event in events:
        if isinstance(event, dict):
            for source in (_anthropic, _openai, _openai_responses, _gemini):
                for group, fragment in source(event):
                    groups.setdefault(group, []).append(fragment)
    return groups


def redact_fragments(events: list[Any], apply: Callable[[str], str]) -> set[tuple[int, str]]:
    """Apply ``apply`` to each block's whole text; the fragments' (container id, field).

    The returned locations are those a per-event pass must leave alone.
    """
    seen: set[tuple[int, str]] = set()
    for parts in fragments(events).values():
        whole = "".join(container[name] for container, name in parts)
        redacted = apply(whole)
        if redacted != whole:
            for i, (container, name) in enumerate(parts):
                container[name] = redacted if i == 0 else ""
        seen.update((id(container), name) for container, name in parts)
    return seen


def apply_in_place(value: Any, apply: Callable[[str], str], skip: set[tuple[int, str]]) -> Any:
    """``value`` with ``apply`` run on its string leaves in place, except the ``skip`` ones."""
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, str):
                if (id(value), k) not in skip:
                    value[k] = apply(v)
            else:
                apply_in_place(v, apply, skip)
        return value
    if isinstance(value, list):
        for i, v in enumerate(value):
            value[i] = apply(v) if isinstance(v, str) else apply_in_place(v, apply, skip)
        return value
    return apply(value) if isinstance(value, str) else value
