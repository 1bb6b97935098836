"""``aiohttp.ClientSession._request`` (behind ``request``, ``get``, ``post``...), answered by
the session.

The patched method adds one middleware, innermost, to the request's own (aiohttp's
client middlewares): it sees the request as it would go on the wire (URL with its
query, merged headers, body) after the session's settings and the user's middlewares,
on every redirect hop. A replayed response is a ``ClientResponse`` whose ``content``
hands the recorded chunks over as they are read (``resp.content.iter_chunked``, ``async
for line in resp.content``, ``resp.json()``); a stream cut while recording raises
``ClientPayloadError`` at the same point. A live event stream is recorded as the caller
reads it (up to where it releases the response); any other live body is read whole
first, then handed over the same way (cut meanwhile, the part read, then the error). A
live request goes to the session's ``live_origin`` if it has one (a loopback one past
the session's proxies).
"""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, cast

import aiohttp
from aiohttp import hdrs
from aiohttp.base_protocol import BaseProtocol
from aiohttp.helpers import TimerNoop
from multidict import CIMultiDict, CIMultiDictProxy, istr
from yarl import URL

from replaygate.http.active import answering, live_call
from replaygate.http.adapter import FORWARDED_HOST
from replaygate.http.exchange import Exchange, LiveSlot
from replaygate.http.own_app import sent_as_is
from replaygate.http.recorded import Replayed, is_event_stream
from replaygate.http.recording import Recording
from replaygate.http.seams import Patch, moving_for, unproxied
from replaygate.http.streams import LiveBody, ReplayByteStream, TeeByteStream
from replaygate.http.wire import WireRequest, reason_phrase, wire_request

Handler = Callable[[aiohttp.ClientRequest], Awaitable[aiohttp.ClientResponse]]

READ_LIMIT = 2**16
"""The buffer size of a handed-over body (aiohttp's default)."""


class _Errors:
    """``aiohttp``'s errors under the names the byte streams look them up by."""

    TransportError = aiohttp.ClientError
    RemoteProtocolError = aiohttp.ClientPayloadError
    DecodingError = aiohttp.ClientPayloadError


class _Replay(ReplayByteStream):
    library = _Errors


class _Tee(TeeByteStream):
    library = _Errors


class _InMemory:
    """The flow control a reader asks of its connection: there is none, the body is here."""

    connected = True
    _reading_paused = False  # read by aiohttp before 3.14 as it feeds or drains the buffer

    def pause_reading(self) -> None:
        """Nothing to pause."""

    def resume_reading(self, resume_parser: bool = True) -> None:
        """Nothing to resume."""


class _Content(aiohttp.StreamReader):
    """A response's ``content`` that pulls the next chunk of a body stream when a read
    finds nothing buffered. ``ended`` runs when the body fails, or when the response is
    released before its end (aiohttp then sets an error on its content); a failure is
    raised again by every later read, as aiohttp's own reader does. With
    ``http_chunks``, each chunk is one HTTP chunk of a chunked body, as
    ``resp.content.iter_chunks()`` reports it (``end_of_http_chunk``)."""

    def __init__(
        self, chunks: AsyncIterator[bytes], ended: Callable[[], None], http_chunks: bool = False
    ) -> None:
        super().__init__(cast(BaseProtocol, _InMemory()), READ_LIMIT)
        self._chunks = chunks
        self._ended = ended
        self._http_chunks = http_chunks

    async def _next(self) -> bytes | None:
        return await anext(self._chunks, None)

    async def _wait(self, func_name: str) -> None:
        try:
            chunk = await self._next()
        except Exception as err:
            self.set_exception(err)
            raise
        if chunk is None:
            self.feed_eof()
        elif self._http_chunks:
            self.begin_http_chunk_receiving()
            self.feed_data(chunk)
            self.end_http_chunk_receiving()
        else:
            self.feed_data(chunk)

    def set_exception(self, exc: BaseException, *args: Any) -> None:
        super().set_exception(exc, *args)
        self._ended()


class _LiveContent(_Content):
    """The ``content`` of a live stream being recorded: a read that is cancelled (a
    timeout) leaves the pull of the next chunk running, as aiohttp's own reader leaves
    the connection, so the next read gets it and the stream goes on."""

    _pulling: asyncio.Future[bytes | None] | None = None

    async def _next(self) -> bytes | None:
        if self._pulling is None:
            self._pulling = asyncio.ensure_future(anext(self._chunks, None))
        pulling = self._pulling
        try:
            chunk = await asyncio.shield(pulling)
        except asyncio.CancelledError:
            if pulling.cancelled():  # the pull itself: the event loop is shutting down
                self._pulling = None
            raise  # else the pull goes on (or is done): the next read takes its chunk
        except BaseException:
            self._pulling = None
            raise
        self._pulling = None
        return chunk


async def _single(body: bytes) -> AsyncIterator[bytes]:
    yield body


async def _cut(body: bytes, error: BaseException) -> AsyncIterator[bytes]:
    """The part of a body read before ``error`` cut it, then the error."""
    if body:
        yield body
    raise error


class _LiveBody:
    """A live response's ``content``, as the recorder reads it (the response releases its
    connection itself): what arrives, or with ``http_chunks`` each whole HTTP chunk."""

    def __init__(self, content: aiohttp.StreamReader, http_chunks: bool) -> None:
        self._content = content
        self._http_chunks = http_chunks

    def aiter_bytes(self) -> AsyncIterator[bytes]:
        if self._http_chunks:
            return self._whole_http_chunks()
        return aiter(self._content.iter_any())

    async def _whole_http_chunks(self) -> AsyncIterator[bytes]:
        parts: list[bytes] = []
        async for data, end_of_http_chunk in self._content.iter_chunks():
            parts.append(data)
            if end_of_http_chunk:
                yield b"".join(parts)
                parts.clear()
        if any(parts):
            yield b"".join(parts)

    async def aclose(self) -> None:
        """Nothing to close: the response does it."""

    def close(self) -> None:
        """Nothing to close: the response does it."""


@functools.cache
def _takes_stream_writer() -> bool:
    return "stream_writer" in inspect.signature(aiohttp.ClientResponse).parameters


def _response_options(request: aiohttp.ClientRequest, session: aiohttp.ClientSession) -> Any:
    """What ``ClientResponse`` takes for a request already sent."""
    options: dict[str, Any] = {
        "writer": None,
        "continue100": None,
        "timer": TimerNoop(),
        "request_info": request.request_info,
        "traces": [],
        "loop": request.loop,
        "session": session,
    }
    if _takes_stream_writer():
        options["stream_writer"] = _Sent()
    return options


class _Sent:
    """The writer of a request whose body is already out: nothing more to send."""

    output_size = 0


def _replayed(
    answer: Replayed, request: aiohttp.ClientRequest, session: aiohttp.ClientSession
) -> aiohttp.ClientResponse:
    response = request.response_class(
        request.method, request.original_url, **_response_options(request, session)
    )
    response.version = aiohttp.HttpVersion11
    response.status = answer.status
    response.reason = reason_phrase(answer.status)
    response._headers = CIMultiDictProxy(
        CIMultiDict((_parsed_name(k), v) for k, v in answer.headers)
    )
    response._raw_headers = tuple((k.encode(), v.encode()) for k, v in answer.headers)
    answer = answer.by_event()
    stream = _Replay(answer)
    response.content = _Content(aiter(stream), stream.close, answer.streamed)
    return response


_KNOWN_NAMES: dict[str, istr] = {
    name.lower(): name for name in vars(hdrs).values() if isinstance(name, istr)
}
"""The header names aiohttp's parser hands over in its own spelling (``Content-Type``),
whatever the case a server sent them in."""


def _parsed_name(name: str) -> str:
    """``name`` as aiohttp's parser names a received header: a known one in aiohttp's
    spelling, any other as it came (a replayed one lower-case, as recorded)."""
    return _KNOWN_NAMES.get(name, name)


_DECOMPRESSED = frozenset({"gzip", "deflate", "br", "zstd"})
"""The content codings aiohttp undoes, each when it is the only one named (br and zstd
only with their packages installed, else aiohttp refuses the response itself)."""


def _decoded(live: aiohttp.ClientResponse, decompress: bool) -> frozenset[str]:
    """The content coding of ``live`` that aiohttp undid: the one its only
    ``content-encoding`` line names, when aiohttp decodes it; none when it does not
    decompress, or when several lines name codings (aiohttp reads one line and undoes one
    coding at most: the rest are left on the body, and the response is refused)."""
    lines = live.headers.getall(hdrs.CONTENT_ENCODING, [])
    if not decompress or len(lines) != 1:
        return frozenset()
    return _DECOMPRESSED & {lines[0].strip().lower()}


async def _teed(
    exchange: Exchange, slot: LiveSlot, live: aiohttp.ClientResponse, decompress: bool
) -> aiohttp.ClientResponse:
    headers = list(live.headers.items())
    stream, decoded = is_event_stream(headers), _decoded(live, decompress)
    recording = Recording(exchange, slot, live.status, headers, stream, decoded)
    chunked = live.headers.get(hdrs.TRANSFER_ENCODING, "").lower() == "chunked"
    tee = _Tee(cast(LiveBody, _LiveBody(live.content, chunked)), recording)
    if recording.stream:
        live.content = _LiveContent(aiter(tee), tee.close, chunked)
    else:
        read: list[bytes] = []
        try:
            async for chunk in tee:
                read.append(chunk)
        except aiohttp.ClientError as err:  # cut: not recorded; met where it is read, as live
            live.content = _Content(_cut(b"".join(read), err), tee.close)
            return live
        live.content = _Content(_single(b"".join(read)), tee.close)
    return live


async def _request_of(request: aiohttp.ClientRequest) -> WireRequest:
    """The request as the envelope reads it (a payload keeps what it read for the send).

    A body aiohttp compresses itself (``compress=``) is compressed as it is sent, after
    this reads it plain under a header naming the coding already: it is read with that
    coding left out, as the plain payload it is."""
    body = request.body
    content = body if isinstance(body, bytes) else await body.as_bytes()
    headers = list(request.headers.items())
    if request.compress:
        added = ("content-encoding", request.compress)
        headers = [(k, v) for k, v in headers if (k.lower(), v) != added]
    return wire_request(request.method, str(request.url), headers, content)


def _middleware(exchange: Exchange, session: aiohttp.ClientSession, decompress: bool) -> Any:
    async def answer(request: aiohttp.ClientRequest, handler: Handler) -> aiohttp.ClientResponse:
        __tracebackhide__ = True
        sent = await _request_of(request)
        if sent_as_is(str(request.url), request.headers, sent.content):
            return await handler(request)
        plan = await exchange.aplan(sent)
        if isinstance(plan, Replayed):
            return _replayed(plan, request, session)
        moved = exchange.live_url(str(request.url))
        if moved is not None:
            request.headers[FORWARDED_HOST] = request.url.host_port_subcomponent or ""
            request.url = URL(moved)
            request.headers[hdrs.HOST] = request.url.host_port_subcomponent or ""
            if unproxied(moved):  # the simulator: past HTTP_PROXY, as NO_PROXY sends it
                request.update_proxy(None, None, None)
        with live_call(), exchange.sending(plan):
            live = await handler(request)
        return await _teed(exchange, plan, live, decompress)

    return answer


async def _to_loopback_unproxied(
    request: aiohttp.ClientRequest, handler: Handler
) -> aiohttp.ClientResponse:
    """A request to a loopback host goes there past the session's proxy (``NO_PROXY``)."""
    if unproxied(str(request.url)):
        request.update_proxy(None, None, None)
    return await handler(request)


def _make(original: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    async def _request(session: aiohttp.ClientSession, *args: Any, **options: Any) -> Any:
        exchange = answering()
        if exchange is None and moving_for() is None:
            return await original(session, *args, **options)
        chosen = options.pop("middlewares", None)
        theirs = getattr(session, "_middlewares", ()) if chosen is None else chosen
        if exchange is None:  # the library of a moved send's transport (LiteLLM's)
            middlewares = (*theirs, _to_loopback_unproxied)
            return await original(session, *args, middlewares=middlewares, **options)
        decompress = options.get("auto_decompress")
        if decompress is None:
            decompress = session.auto_decompress
        middlewares = (*theirs, _middleware(exchange, session, bool(decompress)))
        return await original(session, *args, middlewares=middlewares, **options)

    return _request


def patches(name: str) -> list[Patch]:
    """``aiohttp.ClientSession._request``."""
    return [(aiohttp.ClientSession, "_request", _make)]
