"""AWS event streams (``application/vnd.amazon.eventstream``): Amazon Bedrock's streamed
answers (``POST /model/{model}/invoke-with-response-stream`` and ``/converse-stream``),
read into events and written back.

A message of the stream is framed in binary (lengths, typed headers, a payload and CRC32
checksums). A fixture keeps each message as an event a reviewer can read:

- a ``chunk`` event (``:message-type`` ``event``) as ``{"event": "chunk", "data": ...}``,
  ``data`` the text its payload's ``bytes`` carries base64-encoded (an Anthropic stream
  event's JSON); the payload's ``p``, padding of random length that hides the size of
  the answer, is not kept;
- an event of the Converse API's stream (``messageStart``, ``contentBlockDelta``, ...,
  ``metadata``: :data:`CONVERSE_EVENTS`) as ``{"event": <its type>, "data": <its
  payload>}``, its JSON payload without its ``p`` padding;
- an exception (``:message-type`` ``exception``, ``throttlingException``,
  ``modelStreamErrorException``, ...) as ``{"event": <its type>, "data": <its payload>}``.

A replay writes them back as messages the SDK's reader (botocore's) takes, checksums
included. A message of another kind (an ``error`` message, an event of another type)
is refused: Bedrock's model streams send none.
"""

from __future__ import annotations

import base64
import binascii
import functools
import struct
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import orjson

from replaygate.errors import WireFormatError, not_utf8_text
from replaygate.http.sse import SSEEvent

CONTENT_TYPE = "application/vnd.amazon.eventstream"
CHUNK = "chunk"
CONVERSE_EVENTS = frozenset(
    {
        "messageStart",
        "contentBlockStart",
        "contentBlockDelta",
        "contentBlockStop",
        "messageStop",
        "metadata",
    }
)
"""The event types of the Converse API's stream (botocore's ``ConverseStreamOutput``), each
a JSON payload of its own, where ``invoke-with-response-stream`` sends ``chunk`` events."""
_PRELUDE = struct.Struct("!III")
_CRC = struct.Struct("!I")
_SIZED = {0: 0, 1: 0, 2: 1, 3: 2, 4: 4, 5: 8, 8: 8, 9: 16}
"""The value sizes of the header types of fixed size (``6`` bytes and ``7`` string carry
their length)."""
_STRING = 7


def is_aws_stream(content_type: object) -> bool:
    """Whether a response's ``content-type`` value is an AWS event stream's."""
    return isinstance(content_type, str) and content_type.lower().startswith(CONTENT_TYPE)


def answers_aws_stream(headers: Iterable[tuple[str, str]]) -> bool:
    """Whether response ``headers`` (name and value pairs) label an AWS event stream."""
    return any(name.lower() == "content-type" and is_aws_stream(value) for name, value in headers)


class AWSEventParser:
    """Feeds on bytes as they arrive and yields each complete message as an
    :class:`~replaygate.http.sse.SSEEvent` (see the module docstring)."""

    WHY = "an AWS event stream is checksummed messages of Bedrock's events"

    def __init__(self) -> None:
        self._buffer = b""
        self._count = 0

    def feed(self, chunk: bytes) -> Iterator[SSEEvent]:
        """Events completed by ``chunk``; a message that is damaged or of a kind not kept
        raises a :class:`~replaygate.errors.WireFormatError` naming it."""
        self._buffer += chunk
        while len(self._buffer) >= _PRELUDE.size:
            total, _, prelude_crc = _PRELUDE.unpack_from(self._buffer)
            if binascii.crc32(self._buffer[:8]) != prelude_crc:  # its length is no length
                where = f"stream event {self._count}"
                raise WireFormatError(where, "the checksum of its prelude does not match")
            if len(self._buffer) < total:
                return
            message, self._buffer = self._buffer[:total], self._buffer[total:]
            yield self._event(message)
            self._count += 1

    def tail(self, whole_lines: bool = False) -> SSEEvent | None:
        """None; bytes of a message the stream ended inside are refused, but with
        ``whole_lines`` (a stream the client closed inside one), where they are left out."""
        if self._buffer and not whole_lines:
            raise WireFormatError(
                f"stream event {self._count}",
                f"the stream ended inside a message ({len(self._buffer)} bytes of it)",
            )
        return None

    def _event(self, message: bytes) -> SSEEvent:
        """The event of one whole ``message``."""
        where = f"stream event {self._count}"
        try:
            headers, payload = _unframed(message)
            return _as_event(headers, payload)
        except WireFormatError as err:
            raise WireFormatError(where, err.reason) from None
        except UnicodeDecodeError as err:
            raise WireFormatError(where, not_utf8_text(err, byte=False)) from None
        except (IndexError, struct.error):
            raise WireFormatError(where, "its headers run past their block") from None


def _unframed(message: bytes) -> tuple[dict[str, str], bytes]:
    """The string headers and the payload of one message, its checksums checked."""
    if len(message) < _PRELUDE.size + _CRC.size:
        raise WireFormatError("", f"a message of {len(message)} bytes cannot hold its prelude")
    total, length, _ = _PRELUDE.unpack_from(message)  # the prelude's checksum checked
    if total < _PRELUDE.size + length + _CRC.size:
        raise WireFormatError("", f"a message of {total} bytes cannot hold its headers")
    if binascii.crc32(message[:-4]) != _CRC.unpack_from(message, total - 4)[0]:
        raise WireFormatError("", "the checksum of the message does not match")
    start = _PRELUDE.size
    headers = _headers(message[start : start + length])
    return headers, message[start + length : -4]


def _headers(raw: bytes) -> dict[str, str]:
    """The string-valued headers of a message's header block (others are passed over)."""
    headers: dict[str, str] = {}
    i = 0
    while i < len(raw):
        size = raw[i]
        name = raw[i + 1 : i + 1 + size].decode("utf-8")
        kind, i = raw[i + 1 + size], i + 2 + size
        if kind in (6, _STRING):
            length = struct.unpack_from("!H", raw, i)[0]
            value, i = raw[i + 2 : i + 2 + length], i + 2 + length
            if kind == _STRING:
                headers[name] = value.decode("utf-8")
        elif kind in _SIZED:
            i += _SIZED[kind]
        else:
            raise WireFormatError("", f"header {name!r} has no type of the format ({kind})")
    return headers


def _as_event(headers: Mapping[str, str], payload: bytes) -> SSEEvent:
    """The event kept of a message of ``headers`` and ``payload``."""
    kind = headers.get(":message-type")
    if kind == "exception":
        return SSEEvent(data=payload.decode("utf-8"), event=_exception_type(headers))
    name = headers.get(":event-type")
    if kind == "event" and name in CONVERSE_EVENTS:
        return SSEEvent(data=_unpadded(payload), event=name)
    if kind != "event" or name != CHUNK:
        raise WireFormatError(
            "",
            f"a message of type {kind!r} ({name!r}): only chunk events, the Converse "
            "API's events and exceptions are kept",
        )
    try:
        carried = orjson.loads(payload)["bytes"]
        return SSEEvent(data=base64.b64decode(carried, validate=True).decode("utf-8"), event=CHUNK)
    except (orjson.JSONDecodeError, KeyError, TypeError, binascii.Error):
        raise WireFormatError(
            "", "a chunk whose payload is no JSON object of base64 bytes"
        ) from None


def _unpadded(payload: bytes) -> str:
    """The JSON object of a Converse event's ``payload`` without its ``p`` padding."""
    try:
        said = orjson.loads(payload)
    except orjson.JSONDecodeError:
        said = None
    if not isinstance(said, dict):
        raise WireFormatError("", "a Converse event whose payload is no JSON object")
    said.pop("p", None)
    return orjson.dumps(said).decode("utf-8")


def _exception_type(headers: Mapping[str, str]) -> str:
    """The ``:exception-type`` of an exception message, the name its event is kept under:
    one missing, or ``chunk``, would be replayed as another message than was sent."""
    name = headers.get(":exception-type", "")
    if not name or name == CHUNK:
        raise WireFormatError(
            "",
            f"an exception whose :exception-type is {name!r}, which no replay could tell "
            "from a chunk event or write back",
        )
    return name


def stream_bytes(events: list[Any]) -> bytes:
    """The wire bytes of recorded ``events`` (see the module docstring);
    :class:`WireFormatError` names an event that is not an object of a name and data."""
    out = []
    for i, event in enumerate(events):
        name = event.get("event") if isinstance(event, dict) else None
        data = event.get("data") if isinstance(event, dict) else None
        if type(name) is not str or not name or type(data) is not str or len(event) != 2:
            raise WireFormatError(
                f"response.events[{i}]", "expected an object of an event name and its data"
            )
        out.append(_message(name, data.encode("utf-8")))
    return b"".join(out)


def _message(name: str, data: bytes) -> bytes:
    """The framed message of the event ``name`` carrying ``data``."""
    if name == CHUNK:
        payload = orjson.dumps({"bytes": base64.b64encode(data).decode("ascii")})
    else:
        payload = data
    block = _headers_of(name)
    total = _PRELUDE.size + len(block) + len(payload) + _CRC.size
    prelude = struct.pack("!II", total, len(block))
    framed = prelude + _CRC.pack(binascii.crc32(prelude)) + block + payload
    return framed + _CRC.pack(binascii.crc32(framed))


@functools.lru_cache(maxsize=256)
def _headers_of(name: str) -> bytes:
    """The framed header block of a message of the event ``name``: a chunk, a Converse
    event or an exception (the same for every message of one name)."""
    if name == CHUNK or name in CONVERSE_EVENTS:
        head = {":event-type": name, ":content-type": "application/json", ":message-type": "event"}
    else:
        head = {
            ":exception-type": name,
            ":content-type": "application/json",
            ":message-type": "exception",
        }
    return b"".join(_header(key, value) for key, value in head.items())


def _header(name: str, value: str) -> bytes:
    """One string header as framed."""
    key, text = name.encode("utf-8"), value.encode("utf-8")
    return bytes([len(key)]) + key + bytes([_STRING]) + struct.pack("!H", len(text)) + text
