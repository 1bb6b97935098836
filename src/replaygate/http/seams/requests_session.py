"""``requests.Session.send``, answered by the session.

Every request of a ``Session`` (and of ``requests.get`` and its siblings) passes there
with its body prepared, whatever adapter is mounted. A replayed response is a
``requests.Response`` whose body is read from the recorded chunks (a stream cut while
recording raises ``ChunkedEncodingError`` at the same point); a live one is sent by the
original ``send`` (adapters, hooks), to the session's ``live_origin`` if it has one (a
loopback one past the session's proxies), and its body recorded as the caller reads it.
A redirect is followed here, as ``send`` follows it, one request per hop: each hop is
recorded and replayed as its own fixture, as through ``httpx``, so a redirect recorded
through one library is followed on replay through the other.
"""

from __future__ import annotations

import datetime
import time
from collections.abc import Callable, Iterator
from typing import Any, cast
from urllib.parse import urlsplit

import requests
from requests.hooks import dispatch_hook
from requests.structures import CaseInsensitiveDict
from requests.utils import get_encoding_from_headers
from urllib3.response import HTTPResponse

from replaygate.http.active import answering, live_call
from replaygate.http.adapter import FORWARDED_HOST
from replaygate.http.exchange import Exchange, LiveSlot
from replaygate.http.own_app import own_app
from replaygate.http.recorded import Replayed, is_event_stream
from replaygate.http.recording import Recording
from replaygate.http.seams import Patch, unproxied
from replaygate.http.seams.chunked_body import body_bytes, chunked_raw
from replaygate.http.streams import LiveBody, ReplayByteStream, TeeByteStream
from replaygate.http.transport import handed_headers
from replaygate.http.wire import WireRequest, reason_phrase, wire_request


class _Errors:
    """``requests``' errors under the names the byte streams look them up by."""

    TransportError = requests.RequestException
    RemoteProtocolError = requests.exceptions.ChunkedEncodingError
    DecodingError = requests.exceptions.ContentDecodingError


class _Replay(ReplayByteStream):
    library = _Errors


class _Tee(TeeByteStream):
    library = _Errors


def _raw(
    request: requests.PreparedRequest,
    status: int,
    headers: list[tuple[str, str]],
    stream: ReplayByteStream | TeeByteStream,
) -> HTTPResponse:
    """A response's ``raw``: urllib3's response over the body stream, as requests' adapter
    gives (``read``, ``stream``, ``decode_content``, ``status``, ``headers``)."""
    return chunked_raw(request.method or "GET", request.url or "", status, headers, stream)


class _LiveBody:
    """The decoded body of a live ``requests.Response``, as the recorder reads it."""

    def __init__(self, live: requests.Response) -> None:
        self._live = live

    def iter_bytes(self) -> Iterator[bytes]:
        return self._live.iter_content(chunk_size=None)

    def close(self) -> None:
        self._live.close()


def _response(
    request: requests.PreparedRequest,
    status: int,
    headers: list[tuple[str, str]],
    stream: ReplayByteStream | TeeByteStream,
) -> requests.Response:
    response = requests.Response()
    response.status_code = status
    response.headers = CaseInsensitiveDict(headers)
    response.encoding = get_encoding_from_headers(response.headers)
    response.raw = _raw(request, status, headers, stream)
    response.reason = reason_phrase(status)
    response.url = request.url or ""
    response.request = request
    return response


def _request_of(request: requests.PreparedRequest) -> WireRequest:
    """The request as the envelope reads it; a streamed body is read, then sent as read."""
    content = body_bytes(request.body)
    if not isinstance(request.body, str | bytes | None):
        request.body = content
    method, url = request.method or "GET", request.url or ""
    # http.client sends a header given as text in Latin-1
    return wire_request(method, url, request.headers.items(), content, "latin-1")


def _replayed(
    answer: Replayed, request: requests.PreparedRequest, start: float
) -> requests.Response:
    stream = _Replay(answer.by_event())  # an event per chunk, as a server sends them
    response = _response(request, answer.status, list(answer.headers), stream)
    response.elapsed = datetime.timedelta(seconds=time.perf_counter() - start)
    return response


def _teed(exchange: Exchange, slot: LiveSlot, live: requests.Response) -> requests.Response:
    headers = list(live.headers.items())
    decoders = getattr(live.raw, "CONTENT_DECODERS", None)  # urllib3's, as it decodes
    stream = is_event_stream(headers)
    recording = Recording(exchange, slot, live.status_code, headers, stream, decoders)
    kept = handed_headers(headers)
    tee = _Tee(cast(LiveBody, _LiveBody(live)), recording)
    response = _response(live.request, live.status_code, kept, tee)
    response.reason = live.reason
    response.url = live.url
    response.history = live.history
    response.cookies = live.cookies
    response.elapsed = live.elapsed
    return response


def _redirected(
    session: requests.Session,
    response: requests.Response,
    request: requests.PreparedRequest,
    follow: bool,
    options: dict[str, Any],
) -> requests.Response:
    """``response`` as ``send`` leaves it: the last of the redirects it follows, each hop
    sent through this send, or, not following them, with the request of the next hop as
    its ``next`` (for code that follows them itself)."""
    if not follow:
        hops = session.resolve_redirects(response, request, yield_requests=True, **options)
        response._next = next(hops, None)  # type: ignore[attr-defined]  # as send sets it
        return response
    history = list(session.resolve_redirects(response, request, **options))
    if history:
        history.insert(0, response)
        response = history.pop()
        response.history = history
    return response


def _make(original: Callable[..., requests.Response]) -> Callable[..., requests.Response]:
    def send(
        session: requests.Session, request: requests.PreparedRequest, **options: Any
    ) -> requests.Response:
        __tracebackhide__ = True
        exchange = answering()
        if exchange is None:
            return original(session, request, **options)
        start = time.perf_counter()
        sent = _request_of(request)
        if own_app(request.url or "", request.headers, sent.content):
            return original(session, request, **options)
        plan = exchange.plan(sent)
        follow = options.pop("allow_redirects", True)
        if isinstance(plan, Replayed):
            response = _replayed(plan, request, start)
            response = dispatch_hook("response", request.hooks, response, **options)  # type: ignore[no-untyped-call]
        else:
            moved = exchange.live_url(request.url or "")
            hop = {**options, "stream": True, "allow_redirects": False}
            if moved is not None:
                request.headers[FORWARDED_HOST] = urlsplit(request.url or "").netloc
                request.url = moved
                if unproxied(moved):  # the simulator: past HTTP_PROXY, as NO_PROXY sends it
                    hop["proxies"] = {}
            with (
                live_call(),
                exchange.sending(plan),
            ):  # one hop: each redirect is a request of its own, as in httpx
                live = original(session, request, **hop)
            response = _teed(exchange, plan, live)
        response = _redirected(session, response, request, follow, options)
        if not options.get("stream", session.stream):
            response.content  # noqa: B018 - read the body, as a send that does not stream does
        return response

    return send


def patches(name: str) -> list[Patch]:
    """``requests.Session.send``."""
    return [(requests.Session, "send", _make)]
