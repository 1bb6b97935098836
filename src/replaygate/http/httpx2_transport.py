"""Record/replay transports and clients for ``httpx2`` (used by ``anthropic`` 2.x, ``openai`` 3.x).

One line wires an SDK to fixtures::

    client = anthropic.Anthropic(api_key="test", http_client=httpx2_client(store))
"""

from __future__ import annotations

import httpx2

from replaygate.http.adapter import (
    AsyncFixtureTransport,
    ClientFactory,
    SyncFixtureTransport,
    client_factory,
)
from replaygate.http.streams import ReplayByteStream, TeeByteStream
from replaygate.http.transport import Library


class _ReplayStream(ReplayByteStream, httpx2.SyncByteStream, httpx2.AsyncByteStream):
    library = httpx2


class _TeeStream(TeeByteStream, httpx2.SyncByteStream, httpx2.AsyncByteStream):
    library = httpx2


HTTPX2: Library[httpx2.Response] = Library(httpx2, httpx2.Response, _ReplayStream, _TeeStream)


class Httpx2Transport(SyncFixtureTransport[httpx2.Request, httpx2.Response], httpx2.BaseTransport):
    """An ``httpx2`` transport answering from fixtures (recording in a recording mode)."""

    library = HTTPX2

    def default_live(self) -> httpx2.BaseTransport:
        """``httpx2.HTTPTransport()``."""
        return httpx2.HTTPTransport()


class AsyncHttpx2Transport(
    AsyncFixtureTransport[httpx2.Request, httpx2.Response], httpx2.AsyncBaseTransport
):
    """The async form of :class:`Httpx2Transport`."""

    library = HTTPX2

    def default_live(self) -> httpx2.AsyncBaseTransport:
        """``httpx2.AsyncHTTPTransport()``."""
        return httpx2.AsyncHTTPTransport()


httpx2_client: ClientFactory[httpx2.Client] = client_factory(httpx2.Client, Httpx2Transport)
httpx2_async_client: ClientFactory[httpx2.AsyncClient] = client_factory(
    httpx2.AsyncClient, AsyncHttpx2Transport
)
