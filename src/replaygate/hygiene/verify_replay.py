"""Whether a recorded response can be replayed: read by the HTTP replay or an interface's converter.

How a fixture's responses are read (its *reader*) is a small number, the same in every
process: :data:`NO_READER`, :data:`HTTP_READER` (the request is an HTTP envelope), or
one of the interfaces by name. A sample line is read as the fixture it applies to,
under the interface of its own ``meta`` when it has one.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from replaygate.errors import WireFormatError
from replaygate.http.recorded import replayed
from replaygate.models.providers import INTERFACES
from replaygate.models.types import STOP_REASONS

NO_READER, HTTP_READER = 0, 1
_NAMES = sorted(INTERFACES)
_CODES = {name: code for code, name in enumerate(_NAMES, start=2)}
ANTHROPIC_READER = _CODES["anthropic.messages"]
_STOPS = frozenset((*STOP_REASONS, "pause_turn"))
_TOKENS = ("input_tokens", "output_tokens")


def reader_of(request: Mapping[str, Any], meta: Mapping[str, Any] | None) -> int:
    """How the responses recorded for ``request`` under ``meta`` are read."""
    if "method" in request and "path" in request:
        return HTTP_READER
    return _interface_reader(meta)


def sample_reader(base: int, meta: Mapping[str, Any] | None) -> int:
    """How a sample line with ``meta`` is read, applied to a fixture read by ``base``."""
    if base == HTTP_READER or meta is None:
        return base
    return _interface_reader(meta)


def _interface_reader(meta: Mapping[str, Any] | None) -> int:
    return _CODES.get(str((meta or {}).get("interface")), NO_READER)


def response_problems(response: Any, where: str, reader: int) -> Iterator[str]:
    """Why ``response`` (at ``where``) could not be replayed by ``reader``, if it could not."""
    if replays_plainly(response, reader):
        return
    interface = None if reader == HTTP_READER else INTERFACES[_NAMES[reader - 2]]
    try:
        if interface is None:
            replayed(response)
        else:
            if not isinstance(response, dict):
                raise WireFormatError("response", "expected an object")
            interface.from_response(response)
    except WireFormatError as err:
        kind = "an HTTP" if interface is None else f"a valid {interface.name}"
        detail = err.path.replace("response", where, 1)
        yield f"{where} is not {kind} response: {detail}: {err.reason}"


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
    of content blocks, each an object with a string ``type`` (a text block with its
    text, a tool call with its id, name and input), a known ``stop_reason`` and integer
    token counts, or none. False means "not known": the converter decides, and says why.
    """
    blocks, usage, stop = (
        response.get("content"),
        response.get("usage"),
        response.get("stop_reason"),
    )
    if type(blocks) is not list or (
        stop is not None and (type(stop) is not str or stop not in _STOPS)
    ):
        return False
    if usage is not None:
        if type(usage) is not dict:
            return False
        for name in _TOKENS:
            count = usage.get(name)
            if count is not None and type(count) is not int:
                return False
    return all(map(_plain_block, blocks))


def _plain_block(block: Any) -> bool:
    if type(block) is not dict:
        return False
    kind = block.get("type")
    if kind == "text":
        return type(block.get("text")) is str
    if kind == "tool_use":
        return (
            type(block.get("id")) is str
            and type(block.get("name")) is str
            and type(block.get("input")) is dict
        )
    return type(kind) is str
