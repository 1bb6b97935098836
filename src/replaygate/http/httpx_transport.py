"""Record/replay transports and clients for ``httpx`` (older SDKs, other clients).

One line wires a client to fixtures: ``httpx_client(store, mode="replay")``.
"""

from __future__ import annotations

import httpx

from replaygate.http.adapter import (
    AsyncFixtureTransport,
    ClientFactory,
    SyncFixtureTransport,
    client_factory,
)
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


httpx_client: ClientFactory[httpx.Client] = client_factory(httpx.Client, HttpxTransport)
httpx_async_client: ClientFactory[httpx.AsyncClient] = client_factory(
    httpx.AsyncClient, AsyncHttpxTransport
)
