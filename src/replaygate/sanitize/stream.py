"""Text split across stream events: redacted on the whole text of each block.

A streamed answer arrives in fragments (``alice@corp.co`` + ``m, thanks``), so a
rule run on each event alone would miss what straddles two of them. The fragments
of one block are joined as a client joins them, and the rules run on the whole:

- an Anthropic ``content_block_delta``: each string field of its ``delta`` (``text``,
  ``partial_json``, ``thinking``...) per content block; the ``completion`` of the events
  of the legacy Text Completions API (``/v1/complete``);
- an OpenAI Chat Completions chunk: each string field of a choice's ``delta``, at any
  depth, per choice and field (``content``, ``refusal``, ``reasoning_content``,
  ``reasoning``, ``audio.transcript``, a tool call's ``function.arguments``, the
  entries of a list by their ``index``), as the openai SDK accumulates them; the
  ``text`` of a choice of a legacy Completions chunk (``/v1/completions``), per choice;
- a Responses API ``*.delta`` event: its ``delta`` text per event type, item and
  part (``output_text``, ``refusal``, ``reasoning_summary_text``, ``reasoning_text``,
  ``function_call_arguments``, ``custom_tool_call_input``, ``mcp_call_arguments``,
  ``code_interpreter_call_code``, ``audio.transcript``...);
- a Gemini candidate's text parts;
- a Bedrock Converse stream's ``contentBlockDelta``: each string field of its ``delta``
  at any depth (``text``, ``toolUse.input``, ``reasoningContent.text``) per
  ``contentBlockIndex``;
- for the secret scan only, the events of a shape of a server's own (:func:`field_fragments`):
  each string field by its path.

Field ``type`` and ``index`` values, and encoded data (audio bytes, a thinking block's
signature: :func:`~.secret_entropy.encoded_field`, ``response.audio.delta``), are no
text and are not redacted; the encoded data split across events
(:func:`encoded_fragments`: audio, the encrypted or signed ``reasoning_details`` of
OpenAI-compatible servers, a Gemini candidate's ``thoughtSignature``) is joined for the
secret scan too. When the rules change a block's text, the first fragment carries the
whole redacted text and the others become empty, so a client that accumulates the deltas
gets the redacted text, and the ``logprobs`` of a legacy Completions choice, whose tokens
hold the text as it was in pieces no rule matches, become null. The events are the parsed
``data`` of each event, changed in place.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import orjson

from replaygate import exact_json
from replaygate.sanitize.secret_entropy import encoded_field
from replaygate.sanitize.walk import KeepFn

Fragment = tuple[dict[str, Any], str]
Group = tuple[Any, ...]
_NOT_TEXT = frozenset({"index", "type"})
"""Delta fields a client replaces rather than joins (the openai SDK's accumulation)."""
_AUDIO_DELTAS = frozenset({"response.audio.delta", "response.output_audio.delta"})
"""Responses API deltas of base64 audio, not text."""
_SPEECH_DELTA = "speech.audio.delta"
"""An event of text to speech streamed as events (``audio.speech.create(...,
stream_format="sse")``), whose ``audio`` is base64 audio, not text."""
_WHERE = ("item_id", "output_index", "content_index", "summary_index")


def event_data(event: Any, unparsed: Any = None) -> Any:
    """The parsed JSON ``data`` of a recorded stream event; ``unparsed`` if it has none."""
    data = event.get("data") if isinstance(event, dict) else None
    if not isinstance(data, str):
        return unparsed
    try:
        return exact_json.loads(data.encode("utf-8", "surrogatepass"))
    except (orjson.JSONDecodeError, UnicodeEncodeError):
        return unparsed


def _place(value: Any, default: Any) -> Any:
    """``value`` when it can name a place in a group (an integer or a string), else ``default``."""
    return value if isinstance(value, int | str) else default


def _text_fields(
    delta: dict[str, Any], holder: str = "", outer: str = "", encoded: bool = False
) -> Iterator[tuple[str, Fragment]]:
    """The text fields of one delta object (under the field ``holder`` of an object under
    ``outer``): strings but ``type``, ``index`` and encoded data; its fields of encoded
    data instead when ``encoded``."""
    for name, value in delta.items():
        if (
            isinstance(value, str)
            and name not in _NOT_TEXT
            and encoded_field(name, delta, holder, outer) == encoded
        ):
            yield name, (delta, name)


def _anthropic(event: dict[str, Any]) -> Iterator[tuple[Group, Fragment]]:
    if event.get("type") == "completion" and isinstance(event.get("completion"), str):
        yield ("completion",), (event, "completion")  # the legacy Text Completions API
    delta = event.get("delta")
    if event.get("type") != "content_block_delta" or not isinstance(delta, dict):
        return
    for name, fragment in _text_fields(delta):
        yield ("block", _place(event.get("index"), None), name), fragment


def _accumulated(
    delta: dict[str, Any], group: Group, holder: str, outer: str, encoded: bool
) -> Iterator[tuple[Group, Fragment]]:
    """Each text field of ``delta`` (under the field ``holder`` of an object under
    ``outer``; each field of encoded data when ``encoded``) at any depth, by its path: an
    object in a list by its ``index`` (else its position), as the openai SDK joins a
    stream's deltas."""
    for name, fragment in _text_fields(delta, holder, outer, encoded):
        yield (*group, name), fragment
    for name, value in delta.items():
        if isinstance(value, dict):
            yield from _accumulated(value, (*group, name), name, holder, encoded)
        elif isinstance(value, list):
            for n, entry in enumerate(value):
                if isinstance(entry, dict):
                    place = (*group, name, _place(entry.get("index"), n))
                    yield from _accumulated(entry, place, name, holder, encoded)


_COMPLETION_TEXT = "completion text"
"""The last place of a legacy Completions choice's group, whose ``logprobs`` hold its tokens."""


def _choices(event: dict[str, Any], encoded: bool) -> Iterator[tuple[Group, Fragment]]:
    """The fields of each Chat Completions choice's delta: its text, or its encoded data;
    the ``text`` of a legacy Completions choice (text)."""
    choices = event.get("choices")
    for position, choice in enumerate(choices if isinstance(choices, list) else []):
        if not isinstance(choice, dict):
            continue
        group = ("choice", _place(choice.get("index"), position))
        delta = choice.get("delta")
        if isinstance(delta, dict):
            yield from _accumulated(delta, group, "delta", "", encoded)
        elif not encoded and isinstance(choice.get("text"), str):
            yield (*group, _COMPLETION_TEXT), (choice, "text")


def _openai(event: dict[str, Any]) -> Iterator[tuple[Group, Fragment]]:
    return _choices(event, encoded=False)


def _openai_responses(event: dict[str, Any]) -> Iterator[tuple[Group, Fragment]]:
    kind = event.get("type")
    if (
        isinstance(kind, str)
        and kind.endswith(".delta")
        and kind not in _AUDIO_DELTAS
        and isinstance(event.get("delta"), str)
    ):
        yield ("item", kind, *(_place(event.get(name), None) for name in _WHERE)), (event, "delta")


def _gemini_parts(event: dict[str, Any]) -> Iterator[tuple[Any, dict[str, Any]]]:
    """``(candidate index, part)`` of each part of each Gemini candidate."""
    candidates = event.get("candidates")
    for position, candidate in enumerate(candidates if isinstance(candidates, list) else []):
        content = candidate.get("content") if isinstance(candidate, dict) else None
        parts = content.get("parts") if isinstance(content, dict) else None
        index = _place(candidate.get("index"), position)
        for part in parts if isinstance(parts, list) else []:
            if isinstance(part, dict):
                yield index, part


def _gemini(event: dict[str, Any]) -> Iterator[tuple[Group, Fragment]]:
    for index, part in _gemini_parts(event):
        if isinstance(part.get("text"), str):
            yield ("candidate", index, bool(part.get("thought"))), (part, "text")


def _converse_delta(event: dict[str, Any]) -> tuple[Group, dict[str, Any]] | None:
    """The group and ``delta`` of a Bedrock Converse stream's ``contentBlockDelta`` event
    (its data: a ``delta`` and the ``contentBlockIndex`` of its block), else None."""
    delta, index = event.get("delta"), event.get("contentBlockIndex")
    if not isinstance(delta, dict) or type(index) is not int:
        return None
    return ("converse", index), delta


def _converse(event: dict[str, Any]) -> Iterator[tuple[Group, Fragment]]:
    """Each text field of a Converse ``delta`` at any depth (``text``, ``toolUse.input``,
    ``reasoningContent.text``), per content block, as a client joins them."""
    found = _converse_delta(event)
    if found is not None:
        yield from _accumulated(found[1], found[0], "delta", "", False)


def _encoded(event: dict[str, Any]) -> Iterator[tuple[Group, Fragment]]:
    kind = event.get("type")
    if kind in _AUDIO_DELTAS and isinstance(event.get("delta"), str):
        yield ("item", kind, *(_place(event.get(name), None) for name in _WHERE)), (event, "delta")
    if kind == _SPEECH_DELTA and isinstance(event.get("audio"), str):
        yield ("speech", kind), (event, "audio")
    yield from _choices(event, encoded=True)
    if (converse := _converse_delta(event)) is not None:  # a reasoning block's signature
        yield from _accumulated(converse[1], converse[0], "delta", "", True)
    for index, part in _gemini_parts(event):
        if isinstance(part.get("thoughtSignature"), str) and encoded_field(
            "thoughtSignature", part, "parts"
        ):
            yield ("candidate", index, "thoughtSignature"), (part, "thoughtSignature")


_Source = Callable[[dict[str, Any]], Iterator[tuple[Group, Fragment]]]


def _grouped(events: list[Any], sources: tuple[_Source, ...]) -> dict[Group, list[Fragment]]:
    groups: dict[Group, list[Fragment]] = {}
    for event in events:
        if isinstance(event, dict):
            for source in sources:
                for group, fragment in source(event):
                    groups.setdefault(group, []).append(fragment)
    return groups


def fragments(events: list[Any]) -> dict[Group, list[Fragment]]:
    """The text fragments of each block, in stream order."""
    return _grouped(events, (_anthropic, _openai, _openai_responses, _gemini, _converse))


def encoded_fragments(events: list[Any]) -> dict[Group, list[Fragment]]:
    """The fragments of encoded data split across events, per block, in stream order: the
    base64 audio of a Responses API ``response.audio.delta`` or
    ``response.output_audio.delta``, and of speech's ``speech.audio.delta``; each field of
    encoded data of a Chat Completions choice's delta, as the openai SDK joins it
    (``audio.data``, the ``data`` of a ``reasoning.encrypted`` and the ``signature`` of a
    ``reasoning.text`` entry of ``reasoning_details``, by its ``index``); a Gemini
    candidate's ``thoughtSignature``."""
    return _grouped(events, (_encoded,))


def _leaves(value: Any, where: Group) -> Iterator[tuple[Group, Fragment]]:
    """The string fields of ``value`` at any depth, each by its path below ``where``."""
    if isinstance(value, dict):
        for name, child in value.items():
            if isinstance(child, str):
                yield (*where, name), (value, name)
            else:
                yield from _leaves(child, (*where, name))
    elif isinstance(value, list):
        for position, child in enumerate(value):
            yield from _leaves(child, (*where, position))


_KNOWN: tuple[_Source, ...] = (
    _anthropic,
    _openai,
    _openai_responses,
    _gemini,
    _converse,
    _encoded,
)


def field_fragments(events: list[Any]) -> dict[Group, list[Fragment]]:
    """The string fields of the events no known stream shape reads (a server's format of its
    own: Ollama's NDJSON lines, SSE events of JSON it names itself), the values of each field
    path joined in stream order, for the paths two or more events hold."""
    groups: dict[Group, list[Fragment]] = {}
    for event in events:
        if isinstance(event, dict) and not any(next(read(event), None) for read in _KNOWN):
            for group, fragment in _leaves(event, ()):
                groups.setdefault(group, []).append(fragment)
    return {group: parts for group, parts in groups.items() if len(parts) > 1}


Groups = dict[Group, list[Fragment]]


def all_fragments(events: list[Any]) -> tuple[Groups, Groups, Groups]:
    """:func:`fragments`, :func:`encoded_fragments` and :func:`field_fragments` of
    ``events``, each source of a known shape asked once of each event."""
    texts: Groups = {}
    encoded: Groups = {}
    fields: Groups = {}
    for event in events:
        if not isinstance(event, dict):
            continue
        known = False
        for source in _KNOWN:
            groups = encoded if source is _encoded else texts
            for group, fragment in source(event):
                groups.setdefault(group, []).append(fragment)
                known = True
        if not known:
            for group, fragment in _leaves(event, ()):
                fields.setdefault(group, []).append(fragment)
    return texts, encoded, {group: parts for group, parts in fields.items() if len(parts) > 1}


def redact_fragments(events: list[Any], apply: Callable[[str], str]) -> set[tuple[int, str]]:
    """Apply ``apply`` to each block's whole text; the fragments' (container id, field).

    The returned locations are those a per-event pass must leave alone.
    """
    seen: set[tuple[int, str]] = set()
    for group, parts in fragments(events).items():
        whole = "".join(container[name] for container, name in parts)
        redacted = apply(whole)
        if redacted != whole:
            for i, (container, name) in enumerate(parts):
                container[name] = redacted if i == 0 else ""
                if group[-1] == _COMPLETION_TEXT and container.get("logprobs") is not None:
                    container["logprobs"] = None  # its tokens: the text as it was
        seen.update((id(container), name) for container, name in parts)
    return seen


def apply_in_place(
    value: Any,
    apply: Callable[[str], str],
    skip: set[tuple[int, str]],
    keep: KeepFn,
    holder: str = "",
    outer: str = "",
) -> Any:
    """``value`` (under the field ``holder`` of an object under ``outer``) with ``apply``
    run on its string leaves in place, except the ``skip`` ones and those ``keep`` names."""
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, str):
                if (id(value), k) not in skip and not keep(str(k), value, holder, outer):
                    value[k] = apply(v)
            else:
                apply_in_place(v, apply, skip, keep, str(k), holder)
        return value
    if isinstance(value, list):
        for i, v in enumerate(value):
            if isinstance(v, str):
                value[i] = apply(v)
            else:
                apply_in_place(v, apply, skip, keep, holder, outer)
        return value
    return apply(value) if isinstance(value, str) else value
