"""``botocore.httpsession.URLLib3Session.send``, answered by the session.

Every request of a boto3 or botocore client (Amazon Bedrock's ``bedrock-runtime``:
``converse``, ``converse_stream``, ``invoke_model``, ``invoke_model_with_response_stream``)
passes there signed, its body prepared. A replayed response is botocore's ``AWSResponse``
over urllib3's response reading the recorded chunks: an AWS event stream is handed over
an event per chunk, as Bedrock sends it, and a stream cut while recording raises
urllib3's ``ProtocolError`` at the same point. A live one is sent by the original
``send``, to the session's ``live_origin`` if it has one, and its body recorded as
botocore reads it. The signature (``Authorization``, ``X-Amz-Date``,
``X-Amz-Security-Token``) is neither stored nor matched, as through any client.

A miss raises out of botocore's send, which botocore hands back to the caller without
retrying it: it reaches the test once; so does a connection the network block refused.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import cast
from urllib.parse import urlsplit

import urllib3.exceptions
from botocore.awsrequest import AWSPreparedRequest, AWSResponse
from botocore.exceptions import ConnectionError as BotocoreConnectionError
from botocore.exceptions import HTTPClientError
from botocore.httpsession import ProxyConfiguration, URLLib3Session

from replaygate.errors import NetworkBlockedError, ReplaygateError, exception_chain
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
from replaygate.http.wire import WireRequest, wire_request


class _Errors:
    """urllib3's errors under the names the byte streams look them up by: what botocore
    reads from a live body that breaks off."""

    TransportError = urllib3.exceptions.HTTPError
    RemoteProtocolError = urllib3.exceptions.ProtocolError
    DecodingError = urllib3.exceptions.DecodeError


class _Replay(ReplayByteStream):
    library = _Errors


class _Tee(TeeByteStream):
    library = _Errors


class _LiveBody:
    """The body of a live ``AWSResponse`` as botocore reads it (its content codings left
    as sent: botocore undoes none)."""

    def __init__(self, live: AWSResponse) -> None:
        self._raw = live.raw

    def iter_bytes(self) -> Iterator[bytes]:
        return cast(Iterator[bytes], self._raw.stream(decode_content=False))

    def close(self) -> None:
        self._raw.release_conn()


def _response(
    request: AWSPreparedRequest,
    status: int,
    headers: list[tuple[str, str]],
    stream: ReplayByteStream | TeeByteStream,
) -> AWSResponse:
    raw = chunked_raw(request.method, request.url, status, headers, stream)
    return AWSResponse(request.url, status, raw.headers, raw)


def _request_of(request: AWSPreparedRequest) -> WireRequest:
    """The request as the envelope reads it; a streamed body is read, then sent as read,
    and a file it was read from is rewound (:func:`_position`)."""
    body = request.body
    start = _position(body)
    content = body_bytes(body)
    if not isinstance(body, str | bytes | None):
        request.body = content
        if start is not None:
            body.seek(start)
    # http.client sends a header given as text in Latin-1
    return wire_request(request.method, request.url, request.headers.items(), content, "latin-1")


def _position(body: object) -> int | None:
    """Where a file given as a body (``invoke_model(body=open(...))``) stands, to rewind it
    to once read: botocore makes a retry's request anew of the same file, which it sent
    empty once read to its end (a 429 retried, a ValidationException of a zero-length
    body). None for a body that is no file or cannot tell."""
    tell = getattr(body, "tell", None)
    if tell is None or not callable(getattr(body, "seek", None)):
        return None
    try:
        where = tell()
    except (OSError, ValueError):
        return None
    return where if isinstance(where, int) else None


def _live(
    original: Callable[..., AWSResponse],
    http: URLLib3Session,
    request: AWSPreparedRequest,
    exchange: Exchange,
    slot: LiveSlot,
) -> AWSResponse:
    """The live answer to ``request``, its body recorded as botocore reads it; one moved
    to a loopback ``live_origin`` (the simulator) is sent there past the client's proxies,
    as ``NO_PROXY`` would send it (a proxy cannot reach it)."""
    moved = exchange.live_url(request.url)
    if moved is not None:
        request.headers[FORWARDED_HOST] = urlsplit(request.url).netloc
        request.url = moved
        if unproxied(moved):
            http = copy.copy(http)  # the same connection pools, no proxy
            http._proxy_config = ProxyConfiguration()
    read_at_once, request.stream_output = not request.stream_output, True
    try:
        with live_call(), exchange.sending(slot):
            live = original(http, request)
    finally:
        request.stream_output = not read_at_once
    headers = [(str(k), str(v)) for k, v in live.headers.items()]
    recording = Recording(exchange, slot, live.status_code, headers, is_event_stream(headers), ())
    tee = _Tee(cast(LiveBody, _LiveBody(live)), recording)
    response = _response(request, live.status_code, handed_headers(headers), tee)
    if read_at_once:  # as botocore reads a body it does not stream
        response.content  # noqa: B018
    return response


BOTOCORE_WRAPPERS = (BotocoreConnectionError, HTTPClientError)
"""The errors botocore's send (and aiobotocore's) wraps a failed connection in, which its
retry handler retries."""


def carried(err: BaseException) -> ReplaygateError | None:
    """The replaygate error botocore's ``err`` (:data:`BOTOCORE_WRAPPERS`) wraps, made ready
    to reach the caller itself, or None: a connection the network block refused
    (:class:`~replaygate.errors.NetworkBlockedError`), which botocore's retry handler would
    send three more times (a tool's S3 call in a test recording from the simulator was
    refused four times, a backoff before each), a miss."""
    error = next((e for e in exception_chain(err) if isinstance(e, ReplaygateError)), None)
    if isinstance(error, NetworkBlockedError):
        error.carrier = None  # it reaches the caller itself
    return error


def _refused_once(send: Callable[..., AWSResponse]) -> Callable[..., AWSResponse]:
    """``send``, a replaygate error botocore wrapped raised as itself (:func:`carried`)."""

    def refused_once(http: URLLib3Session, request: AWSPreparedRequest) -> AWSResponse:
        __tracebackhide__ = True
        try:
            return send(http, request)
        except BOTOCORE_WRAPPERS as err:
            error = carried(err)
            if error is None:
                raise
            raise error from None

    return refused_once


def _make(original: Callable[..., AWSResponse]) -> Callable[..., AWSResponse]:
    @_refused_once
    def send(http: URLLib3Session, request: AWSPreparedRequest) -> AWSResponse:
        __tracebackhide__ = True
        exchange = answering()
        if exchange is None:
            return original(http, request)
        sent = _request_of(request)
        if own_app(request.url, request.headers, sent.content):
            return original(http, request)
        plan = exchange.plan(sent)
        if isinstance(plan, Replayed):
            stream = _Replay(plan.by_event())  # an event per chunk, as Bedrock sends them
            response = _response(request, plan.status, list(plan.headers), stream)
            if not request.stream_output:
                response.content  # noqa: B018 - read, as botocore's send reads it
            return response
        return _live(original, http, request, exchange, plan)

    return send


def patches(name: str) -> list[Patch]:
    """``botocore.httpsession.URLLib3Session.send``."""
    return [(URLLib3Session, "send", _make)]
