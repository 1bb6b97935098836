"""Server-sent events: one event type, an encoder and an incremental parser.

A recorded stream is the list of its events in order. ``data`` is kept as the text
the server sent (JSON for both providers, ``[DONE]`` for OpenAI's sentinel), so a
replayed stream carries the events and lines that were recorded (comments, ``id:`` and
``retry:`` fields are not kept, line ends are ``\n``, and a byte-order mark that began
the stream is not sent again: a reader ignores it, as the event stream format says). A
block of ``id:`` or ``retry:`` fields alone is an event to the SDKs' readers, with no data
(the OpenAI SDK fails reading it as JSON; the Anthropic SDK passes over it): it is kept as
an event of empty data, which they read alike on replay. A
stream that ended without the blank line closing its last event keeps that event as
``unterminated``: a client does not dispatch it as an event, but a reader of lines sees
it, on replay as live. So does a stream the client closed in the middle of an event (a
server or proxy whose chunks are not events, read a line at a time), with the lines of
that event it received whole.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from replaygate.errors import WireFormatError, not_utf8_text

BOM = b"\xef\xbb\xbf"
"""The UTF-8 byte-order mark, which a reader ignores at the start of a stream."""


@dataclass(frozen=True)
class SSEEvent:
    """One server-sent event: an optional ``event:`` name and its ``data:`` text;
    ``terminated`` is false for the last event of a stream that ended before its blank line."""

    data: str
    event: str | None = None
    terminated: bool = True

    def encode(self) -> bytes:
        """The event as it goes on the wire, blank line included (when terminated)."""
        return event_text(self.data, self.event, self.terminated).encode("utf-8")

    def to_json(self) -> dict[str, Any]:
        """The form stored in a fixture."""
        stored: dict[str, Any] = {"event": self.event} if self.event else {}
        stored["data"] = self.data
        if not self.terminated:
            stored["unterminated"] = True
        return stored

    @staticmethod
    def from_json(obj: dict[str, Any]) -> SSEEvent:
        """The inverse of :meth:`to_json`."""
        terminated = obj.get("unterminated") is not True
        return SSEEvent(data=str(obj["data"]), event=obj.get("event"), terminated=terminated)


def event_text(data: str, event: str | None = None, terminated: bool = True) -> str:
    """The wire text of an event named ``event`` (or unnamed) with ``data``: one ``data:``
    line per line of ``data``, then the blank line that ends it unless not ``terminated``."""
    lines = data.replace("\n", "\ndata: ")
    end = "\n\n" if terminated else "\n"
    return f"data: {lines}{end}" if event is None else f"event: {event}\ndata: {lines}{end}"


def encode_events(events: Iterable[SSEEvent]) -> bytes:
    """A whole stream as bytes."""
    return b"".join(e.encode() for e in events)


class SSEParser:
    """Feeds on bytes as they arrive and yields each complete event. A line ends in LF,
    CRLF or a lone CR (as the event stream format allows), a CRLF split across two
    chunks included. A byte-order mark that begins the stream is ignored, split across
    chunks or not (it would hide the first field's name)."""

    WHY = "an event stream is UTF-8 text"
    """What a refusal of the stream says it must be."""

    def __init__(self) -> None:
        self._buffer = b""
        self._count = 0
        self._after_cr = False
        self._head: bytes | None = b""  # the stream's first bytes while they may be a BOM

    def feed(self, chunk: bytes) -> Iterator[SSEEvent]:
        """Events completed by ``chunk``; an event that is not UTF-8 text raises a
        :class:`~replaygate.errors.WireFormatError` naming it (:meth:`_decoded`)."""
        if self._head is not None:
            chunk = self._without_bom(chunk)
        if not chunk:  # nothing arrived: a CR that ended the last chunk may still pair
            return
        if self._after_cr and chunk[:1] == b"\n":
            chunk = chunk[1:]  # the LF of a CRLF whose CR ended the last chunk
        self._after_cr = chunk[-1:] == b"\r"
        self._buffer += chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        while b"\n\n" in self._buffer:
            raw, self._buffer = self._buffer.split(b"\n\n", 1)
            event = _parse_block(self._decoded(raw))
            if event is not None:
                self._count += 1
                yield event

    def _without_bom(self, chunk: bytes) -> bytes:
        """``chunk`` after the stream's first bytes, a BOM they begin with left out; empty
        while those bytes are still a part of one."""
        head = self._head + chunk if self._head else chunk
        if len(head) < len(BOM) and BOM.startswith(head):
            self._head = head
            return b""
        self._head = None
        return head.removeprefix(BOM)

    @property
    def pending(self) -> bytes:
        """Bytes of an event not yet terminated (a stream cut mid-event leaves some)."""
        return (self._head or b"") + self._buffer

    def tail(self, whole_lines: bool = False) -> SSEEvent | None:
        """The event the pending bytes hold, not terminated (None when they hold none);
        with ``whole_lines``, the event their complete lines hold (a stream closed in the
        middle of an event: what a reader of lines got of it). Refused as :meth:`feed`
        refuses an event that is not UTF-8 text."""
        pending = self.pending
        if whole_lines:
            pending = pending[: pending.rfind(b"\n") + 1]
        event = _parse_block(self._decoded(pending))
        return None if event is None else SSEEvent(event.data, event.event, terminated=False)

    def _decoded(self, raw: bytes) -> str:
        """The text of the next event's bytes ``raw``; not UTF-8, a
        :class:`~replaygate.errors.WireFormatError` naming the event by its index among
        the stream's events, as a fixture stores them."""
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as err:
            reason = not_utf8_text(err, byte=False)
            raise WireFormatError(f"stream event {self._count}", reason) from None


def _parse_block(block: str) -> SSEEvent | None:
    name: str | None = None
    data: list[str] = []
    dispatched = False  # a field the SDKs' readers dispatch an event for, data or not
    for line in block.split("\n"):
        if not line or line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if field == "event":
            name = value
        elif field == "data":
            data.append(value)
        dispatched = dispatched or field in _DISPATCHED
    if not dispatched:
        return None
    return SSEEvent(data="\n".join(data), event=name)


_DISPATCHED = frozenset({"event", "data", "id", "retry"})
"""The fields a block needs one of to be an event to the SDKs' readers (a block of
comments or unknown fields alone is none)."""


def parse_events(body: bytes) -> list[SSEEvent]:
    """Every complete event of a whole stream."""
    return list(SSEParser().feed(body))
