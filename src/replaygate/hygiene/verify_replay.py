"""Whether a recorded response can be replayed: read by the HTTP replay or an interface's converter.

How a fixture's responses are read (its *reader*) is a small number, the same in every
process: :data:`NO_READER`, :data:`HTTP_READER` (the request is an HTTP envelope),
:data:`MODEL_API_READER` (an HTTP envelope of a model API's path, whose streamed events
each carry JSON, as the SDKs parse them; one of an interface whose answers hold typed
blocks has a reader of its own, :mod:`.verify_blocks`), or one of the interfaces by
name. A sample line is read as the fixture it applies to, under the interface of its
own ``meta`` when it has one.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import orjson

from replaygate.errors import WireFormatError
from replaygate.http.aws_events import is_aws_stream
from replaygate.http.envelope import is_model_api
from replaygate.http.exchange import HTTP_REPLACE
from replaygate.http.recorded import replayed
from replaygate.http.routes import by_hand, credentials_refused, stored_refusal_reason
from replaygate.hygiene.verify_blocks import BLOCKS, check_blocks
from replaygate.interfaces import interface_of
from replaygate.jsondoc import syntax_error
from replaygate.models.providers import INTERFACES
from replaygate.models.providers.anthropic import ANTHROPIC_STOPS
from replaygate.models.types import STOP_REASONS

NO_READER, HTTP_READER, MODEL_API_READER = 0, 1, 2
_FIRST_INTERFACE = 3
_NAMES = sorted(INTERFACES)
_CODES = {name: code for code, name in enumerate(_NAMES, start=_FIRST_INTERFACE)}
_BLOCKED = sorted(BLOCKS)
_FIRST_BLOCKED = _FIRST_INTERFACE + len(_NAMES)
_BLOCKED_CODES = {name: code for code, name in enumerate(_BLOCKED, start=_FIRST_BLOCKED)}
"""The readers of a model API's HTTP answers that hold typed blocks, by interface."""
_HTTP_READERS = frozenset((HTTP_READER, MODEL_API_READER, *_BLOCKED_CODES.values()))
ANTHROPIC_READER = _CODES["anthropic.messages"]
_STOPS = frozenset((*STOP_REASONS, *ANTHROPIC_STOPS))
_TOKENS = ("input_tokens", "output_tokens")


def reader_of(request: Mapping[str, Any], meta: Mapping[str, Any] | None) -> int:
    """How the responses recorded for ``request`` under ``meta`` are read."""
    if "method" in request and "path" in request:
        path = str(request["path"])
        interface = interface_of(path)
        if interface == "http":  # a model API's other paths: embeddings, count_tokens, ...
            return MODEL_API_READER if is_model_api(path) else HTTP_READER
        return _BLOCKED_CODES.get(interface, MODEL_API_READER)
    return _interface_reader(meta)


def is_http_reader(reader: int) -> bool:
    """Whether ``reader`` reads the answers of an HTTP envelope."""
    return reader in _HTTP_READERS


def sample_reader(base: int, meta: Mapping[str, Any] | None) -> int:
    """How a sample line with ``meta`` is read, applied to a fixture read by ``base``."""
    if base in _HTTP_READERS or meta is None:
        return base
    return _interface_reader(meta)


def _interface_reader(meta: Mapping[str, Any] | None) -> int:
    return _CODES.get(str((meta or {}).get("interface")), NO_READER)


def unknown_interface(reader: int, meta: Mapping[str, Any] | None) -> str | None:
    """Why ``meta.interface`` of a fixture read by ``reader`` names no interface it replays
    under, or None: a request in the engine's form replays only under a known interface,
    so a misspelt name is refused by every replay. A name that is missing or no string
    is a problem of the meta itself."""
    name = (meta or {}).get("interface")
    if reader != NO_READER or type(name) is not str or not name:
        return None
    return (
        f"meta.interface {name!r} is not a known interface (known: {', '.join(_NAMES)}); "
        "a request in the engine's form replays only under one of them: correct the name, "
        "or re-record the fixture"
    )


def response_problems(
    response: Any, where: str, reader: int, meta: Mapping[str, Any] | None = None
) -> Iterator[str]:
    """Why ``response`` (at ``where``, recorded under ``meta``) could not be replayed by
    ``reader``, if it could not; or why it should not be: a model API's refusal of the
    credentials it was recorded with, unless written by hand (``meta.source: "hand"``)."""
    if replays_plainly(response, reader):
        return
    refused = _refused(response, reader, meta)
    if refused is not None:
        yield f"{where} {stored_refusal_reason(refused, HTTP_REPLACE)}"
        return
    interface = None if reader in _HTTP_READERS else INTERFACES[_NAMES[reader - _FIRST_INTERFACE]]
    try:
        if interface is None:
            replayed(response, model_api=reader != HTTP_READER)
            if reader != HTTP_READER or _aws_stream(response):
                events = _event_data(response.get("events", ()))
                if reader >= _FIRST_BLOCKED:
                    check_blocks(_BLOCKED[reader - _FIRST_BLOCKED], response, events)
        else:
            if not isinstance(response, dict):
                raise WireFormatError("response", "expected an object")
            interface.from_response(response)
    except WireFormatError as err:
        kind = "an HTTP" if interface is None else f"a valid {interface.name}"
        detail = err.path.replace("response", where, 1)
        yield f"{where} is not {kind} response: {detail}: {err.reason}"


def _refused(response: Any, reader: int, meta: Mapping[str, Any] | None) -> int | None:
    """The status of a model API's recorded refusal of the credentials sent, if
    ``response`` is one that was not written by hand."""
    if reader not in _HTTP_READERS or reader == HTTP_READER:
        return None
    if type(response) is not dict or by_hand(meta):
        return None
    return credentials_refused(response.get("status"), response.get("body"))


def _aws_stream(response: dict[str, Any]) -> bool:
    """Whether ``response`` (one :func:`replayed` took) is an AWS event stream (Amazon
    Bedrock's), whose every event carries JSON, as its SDK reads it: recorded as ``http``,
    under the path of the model it calls."""
    headers = response.get("headers") or {}
    return "events" in response and is_aws_stream(headers.get("content-type"))


def _event_data(events: list[dict[str, Any]]) -> list[Any]:
    """The data of each event of a model API's stream, read as JSON (None for OpenAI's
    ``[DONE]`` and for the last event of a stream cut short, kept ``unterminated``, which
    may end anywhere in its JSON). An event whose data is not JSON is refused: the SDK
    would fail to parse it on replay, naming no fixture. The data is JSON kept as a
    string, so a hand edit of it easily breaks an escape."""
    read: list[Any] = []
    for i, event in enumerate(events):
        data = event["data"]
        if data == "[DONE]" or event.get("unterminated"):
            read.append(None)
            continue
        try:
            read.append(orjson.loads(data))
        except orjson.JSONDecodeError as err:
            raise WireFormatError(
                f"response.events[{i}].data",
                f"not JSON ({syntax_error(err, line=False)}), where a model API sends JSON "
                "(an edit broke its escaping?)",
            ) from None
    return read


def replays_plainly(response: Any, reader: int) -> bool:
    """Whether ``response`` is known to replay by ``reader`` without a converter: there is
    nothing to read, nothing reads it, or it is a plain Messages API response."""
    return (
        response is None
        or reader == NO_READER
        or (reader == ANTHROPIC_READER and type(response) is dict and plain_anthropic(response))
    )


def plain_anthropic(response: dict[str, Any]) -> bool:
    """Whether ``response`` is plainly a Messages API response the converter reads: a list
    of content blocks, each a text block with its text or a tool call with its id, name
    and input, a known ``stop_reason``, both token counts, 0 or more, and no ``type`` but
    ``message``. False means
    "not known": the converter decides, and says why (a block of another type may be a
    newer API's, or a misspelt one).
    """
    blocks, usage, stop = (
        response.get("content"),
        response.get("usage"),
        response.get("stop_reason"),
    )
    if (
        type(blocks) is not list
        or (stop is not None and (type(stop) is not str or stop not in _STOPS))
        or response.get("type", "message") != "message"
    ):
        return False
    if type(usage) is not dict:
        return False
    for name in _TOKENS:
        count = usage.get(name)
        if type(count) is not int or count < 0:
            return False
    return all(map(_plain_block, blocks))


def _plain_block(block: Any) -> bool:
    if type(block) is not dict:
        return False
    kind = block.get("type")
    if kind == "text":
        return type(block.get("text")) is str
    return (
        kind == "tool_use"
        and type(block.get("id")) is str
        and type(block.get("name")) is str
        and type(block.get("input")) is dict
    )
