"""Record/replay transports and clients for ``httpx`` (older SDKs, other clients).

One line wires a client to fixtures: ``httpx_client(store, mode="replay")``.
"""

from __future__ import annotations

from typing import Any

import httpx

from replaygate.http.adapter import AsyncFixtureTransport, SyncFixtureTransport, build_client
from replaygate.http.exchange import Exchange, StoreArg
from replaygate.http.streams import ReplayByteStream, TeeByteStream
from replaygate.http.transport import Library


class _ReplayStream(ReplayByteStream, httpx.SyncByteStream, httpx.AsyncByteStream):
    library = httpx


class _TeeStream(TeeByteStream, httpx.SyncByteStream, httpx.AsyncByteStream):
    library = httpx


HTTPX: Library[httpx.Response] = Library(httpx, httpx.Response, _ReplayStream, _TeeStream)


class HttpxTransport(SyncFixtureTransport[httpx.Request, httpx.Response], httpx.BaseTransport):
    """An ``httpx`` transport answering from fixtures (recording in a recording mode)."""

    library = HTTPX

    def default_live(self) -> httpx.BaseTransport:
        """``httpx.HTTPTransport()``."""
        return httpx.HTTPTransport()


class AsyncHttpxTransport(
    AsyncFixtureTransport[httpx.Request, httpx.Response], httpx.AsyncBaseTransport
):
    """The async form of :class:`HttpxTransport`."""

    library = HTTPX

    def default_live(self) -> httpx.AsyncBaseTransport:
        """``httpx.AsyncHTTPTransport()``."""
        return httpx.AsyncHTTPTransport()


def httpx_client(
    store: StoreArg | Exchange,
    mode: str = "replay",
    *,
    approve_live: bool = False,
    match_host: bool = False,
    source: str | None = None,
    transport: httpx.BaseTransport | None = None,
    **client_options: Any,
) -> httpx.Client:
    """An ``httpx.Client`` over :class:`HttpxTransport` (``client_options`` go to the client)."""
    return build_client(
        httpx.Client,
        HttpxTransport,
        store,
        mode,
        approve_live=approve_live,
        match_host=match_host,
        source=source,
        live=transport,
        client_options=client_options,
    )


def httpx_async_client(
    store: StoreArg | Exchange,
    mode: str = "replay",
    *,
    approve_live: bool = False,
    match_host: bool = False,
    source: str | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    **client_options: Any,
) -> httpx.AsyncClient:
    """An ``httpx.AsyncClient`` over :class:`AsyncHttpxTransport`."""
    return build_client(
        httpx.AsyncClient,
        AsyncHttpxTransport,
        store,
        mode,
        approve_live=approve_live,
        match_host=match_host,
        source=source,
        live=transport,
        client_options=client_options,
    )
