"""The transport classes shared by every ``httpx``-shaped library.

:mod:`~replaygate.http.bindings` binds these to each library's own types: a
:class:`~replaygate.http.transport.Library`, its base transport classes and its own
HTTP transport as the default live one.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Generic, Protocol, TypeVar, Unpack
from urllib.parse import urlsplit, urlunsplit

from replaygate.addresses import is_loopback
from replaygate.fixtures.spending import SpendingCap
from replaygate.http.base_path import moved_route
from replaygate.http.exchange import Exchange, SessionOptions, StoreArg
from replaygate.http.streams import LiveResponse
from replaygate.http.transport import Library, ReadableRequest
from replaygate.sanitize import SanitizeConfig, Sanitizer

ReqT = TypeVar("ReqT", bound=ReadableRequest)
ReqT_contra = TypeVar("ReqT_contra", bound=ReadableRequest, contravariant=True)
RespT = TypeVar("RespT")
LiveT = TypeVar("LiveT")
ClientT = TypeVar("ClientT")


FORWARDED_HOST = "X-Forwarded-Host"
"""The header naming the host a request moved to the simulator was addressed to, which an
answer naming a URL of that host reads (a Message Batch's ``results_url``)."""


def point_at(request: Any, url: str) -> None:
    """Send an ``httpx``/``httpx2`` ``request`` to ``url`` instead, its ``Host`` with it,
    the host it was addressed to in :data:`FORWARDED_HOST`."""
    request.headers[FORWARDED_HOST] = request.url.netloc.decode("ascii")
    request.url = type(request.url)(url)
    request.headers["Host"] = request.url.netloc.decode("ascii")


def moved_to(origin: str, request: Any) -> None:
    """Point ``request`` at ``origin`` (``scheme://host:port``, its path from the
    provider's route on, :func:`~.base_path.moved_route`, and its query kept) unless it is
    addressed to a loopback host; any path moves (intercepted clients move only a model
    API's: :meth:`~replaygate.http.exchange.Exchange.live_url`)."""
    host = request.url.host
    if not host or is_loopback(host):
        return
    parts = urlsplit(str(request.url))
    target = urlsplit(origin)
    path = moved_route(host, parts.path)
    point_at(request, urlunsplit((target.scheme, target.netloc, path, parts.query, "")))


class ToOrigin:
    """A live transport sending every request to ``origin`` instead of its host (the
    simulator, for a client built for the real API), loopback hosts excepted."""

    def __init__(self, live: Any, origin: str) -> None:
        self.live = live
        self.origin = origin

    def handle_request(self, request: Any) -> LiveResponse:
        """Send ``request`` to the origin through the wrapped transport."""
        moved_to(self.origin, request)
        response: LiveResponse = self.live.handle_request(request)
        return response

    async def handle_async_request(self, request: Any) -> LiveResponse:
        """The async form of :meth:`handle_request`."""
        moved_to(self.origin, request)
        response: LiveResponse = await self.live.handle_async_request(request)
        return response

    def close(self) -> None:
        """Close the wrapped transport."""
        self.live.close()

    async def aclose(self) -> None:
        """Close the wrapped transport."""
        await self.live.aclose()


class ByEnvironment:
    """The live transport made when none is given: each request goes through the
    transport a client of the library (``client_class`` made with ``options``) picks for
    its URL, the library's own or that of the proxy the environment names for it
    (``HTTPS_PROXY``, ``HTTP_PROXY``, ``ALL_PROXY``, ``NO_PROXY``), as the SDKs' own
    clients send it; but a request to a loopback host (a simulator) goes to it directly,
    as ``NO_PROXY`` would send it (a proxy cannot reach this machine's loopback), unless
    the options give a proxy of their own. Each client is made when a request first needs
    it, so a proxy setting the library refuses (a SOCKS proxy without ``socksio``) fails
    only a request that goes through it, as with the SDK's own client."""

    def __init__(self, client_class: Callable[..., Any], options: dict[str, Any]) -> None:
        self._client_class = client_class
        self._options = options
        self._clients: dict[bool, Any] = {}
        """The client reading the environment's proxies (True), and the one that does not."""
        self._making = threading.Lock()
        """Held while a client is made: threads whose first sends race make one, where each
        made its own and all but the last kept were never closed (their sockets left open)."""

    def _client(self, proxied: bool) -> Any:
        client = self._clients.get(proxied)
        if client is None:
            with self._making:
                client = self._clients.get(proxied)
                if client is None:
                    trust = {} if proxied else {"trust_env": False}
                    client = self._clients[proxied] = self._client_class(**self._options, **trust)
        return client

    def _transport(self, request: Any) -> Any:
        host = request.url.host
        if "proxy" not in self._options and host and is_loopback(host):
            return self._client(proxied=False)._transport
        return self._client(proxied=True)._transport_for_url(request.url)

    def handle_request(self, request: Any) -> LiveResponse:
        """Send ``request`` through the transport picked for its URL."""
        response: LiveResponse = self._transport(request).handle_request(request)
        return response

    async def handle_async_request(self, request: Any) -> LiveResponse:
        """The async form of :meth:`handle_request`."""
        response: LiveResponse = await self._transport(request).handle_async_request(request)
        return response

    def close(self) -> None:
        """Close the clients' transports."""
        for client in self._clients.values():
            client.close()

    async def aclose(self) -> None:
        """Close the clients' transports."""
        for client in self._clients.values():
            await client.aclose()


class SyncLive(Protocol[ReqT_contra]):
    """A sync transport of the library: what live calls go through."""

    def handle_request(self, request: ReqT_contra, /) -> LiveResponse: ...

    def close(self) -> None: ...


class AsyncLive(Protocol[ReqT_contra]):
    """An async transport of the library: what live calls go through."""

    async def handle_async_request(self, request: ReqT_contra, /) -> LiveResponse: ...

    async def aclose(self) -> None: ...


class FixtureTransportBase(Generic[LiveT]):
    """The constructor of every record/replay transport.

    ``store`` is a :class:`~replaygate.fixtures.store.FixtureStore` or a path (a ``.jsonl``
    file or a folder). ``mode`` is ``replay`` (default), ``record-missing`` or
    ``rerecord``; the recording modes need ``approve_live=True`` (else
    :class:`~replaygate.errors.LiveCallNotApproved`, before anything is sent) and
    send live calls through ``transport`` (default: the library's own HTTP
    transport). ``match_host`` puts the host in the fingerprint; ``source``,
    ``interface`` and ``note`` go into the recorded fixtures' ``meta``; ``sanitize``
    is the pipeline (default: the one configured for the store's project);
    ``repeat_last=True`` lets a send past the recorded answers get the last one again;
    ``cap``, a :class:`~replaygate.fixtures.spending.SpendingCap`, refuses a live call that
    could pass it. The session
    state (counters, ``lookups``, ``replays``, ``recorded``) is :attr:`exchange`;
    pass an :class:`~replaygate.http.transport.Exchange` as ``store`` to share one
    session between transports (its settings then apply, the other arguments are
    ignored). A replaying transport never opens a connection, and patches nothing
    process-wide: wrap the run in :func:`~replaygate.network.block_network` to refuse
    every other way out of the process.
    """

    def __init__(
        self,
        store: StoreArg | Exchange,
        *,
        mode: str = "replay",
        transport: LiveT | None = None,
        **options: Unpack[SessionOptions],
    ) -> None:
        self.exchange = Exchange.of(store, mode, **options)
        self.live: LiveT | None = transport
        if transport is None and self.exchange.recording:
            self.live = self.default_live()

    @staticmethod
    def default_live(**options: Any) -> LiveT:
        """The live transport a recording sends through when none is given
        (:class:`ByEnvironment`), made with the client ``options`` of :data:`LIVE_OPTIONS`."""
        raise NotImplementedError


class SyncFixtureTransport(FixtureTransportBase[SyncLive[ReqT]], Generic[ReqT, RespT]):
    """A sync record/replay transport; a subclass sets :attr:`library`."""

    library: Library[RespT]

    def handle_request(self, request: ReqT) -> RespT:
        """The recorded response, or the live one while it is recorded."""
        __tracebackhide__ = True
        live = self.live
        send = live.handle_request if live else None
        return self.library.handle(self.exchange, request, send, owner=self)

    def close(self) -> None:
        """Record the live responses of this transport its client left open (an event
        stream ``closed`` where its reader stopped, as when its response is closed:
        :meth:`~replaygate.http.exchange.Exchange.finish_open`), close the live transport,
        if any; then raise a refusal the session kept."""
        try:
            self.exchange.finish_open(owner=self)
        finally:
            if self.live is not None:
                self.live.close()


class AsyncFixtureTransport(FixtureTransportBase[AsyncLive[ReqT]], Generic[ReqT, RespT]):
    """An async record/replay transport; a subclass sets :attr:`library`."""

    library: Library[RespT]

    async def handle_async_request(self, request: ReqT) -> RespT:
        """The recorded response, or the live one while it is recorded."""
        __tracebackhide__ = True
        live = self.live
        send = live.handle_async_request if live else None
        return await self.library.handle_async(self.exchange, request, send, owner=self)

    async def aclose(self) -> None:
        """The async form of :meth:`SyncFixtureTransport.close`."""
        try:
            self.exchange.finish_open(owner=self)
        finally:
            if self.live is not None:
                await self.live.aclose()


LIVE_OPTIONS = ("proxy", "verify", "cert", "http1", "http2", "limits")
"""The client options that shape its connections. A client given a transport, as the
factories' are, ignores them, but for ``proxy``, whose transport would answer every
request in place of the fixtures': they go to the live transport a recording sends through."""


class ClientFactory(Generic[ClientT]):
    """``httpx2_client`` and its siblings: a client whose transport answers from fixtures."""

    def __init__(self, client_class: Callable[..., ClientT], transport_class: type[Any]) -> None:
        self.client_class = client_class
        self.transport_class = transport_class
        name = getattr(client_class, "__qualname__", "client")
        self.__doc__ = (
            f"A ``{getattr(client_class, '__module__', '')}.{name}`` over "
            f":class:`{transport_class.__name__}`."
        )

    def __call__(
        self,
        store: StoreArg | Exchange,
        mode: str = "replay",
        *,
        approve_live: bool = False,
        match_host: bool = False,
        source: str | None = None,
        interface: str | None = None,
        note: str | None = None,
        sanitize: Sanitizer | SanitizeConfig | None = None,
        repeat_last: bool = False,
        cap: SpendingCap | None = None,
        transport: Any = None,
        **client_options: Any,
    ) -> ClientT:
        """A client over the fixture transport: the session's settings as
        :class:`FixtureTransportBase` takes them, ``transport`` the live one a recording
        mode sends through, ``client_options`` for the client itself, but for those of
        :data:`LIVE_OPTIONS`, which make the live transport (none is made to replay); a
        ``mounts`` option, whose transports would answer past the fixtures, and those
        options beside a ``transport`` are refused (``ValueError``)."""
        live_options = {k: client_options.pop(k) for k in LIVE_OPTIONS if k in client_options}
        if "mounts" in client_options:
            raise ValueError(
                f"{self._name}(mounts=...): a mounted transport answers its requests in place "
                "of the fixtures, so a replay would reach the network; give the transport "
                "that sends the live calls as transport="
            )
        if live_options and transport is not None:
            given = ", ".join(f"{k}=..." for k in live_options)
            raise ValueError(
                f"{self._name}({given}, transport=...): give {', '.join(live_options)} to "
                "the transport passed, which sends the live calls"
            )
        options: SessionOptions = {
            "approve_live": approve_live,
            "match_host": match_host,
            "source": source,
            "interface": interface,
            "note": note,
            "sanitize": sanitize,
            "repeat_last": repeat_last,
            "cap": cap,
        }
        exchange = Exchange.of(store, mode, **options)
        if live_options and exchange.recording:
            transport = self.transport_class.default_live(**live_options)
        fixture_transport = self.transport_class(exchange, mode=mode, transport=transport)
        return self.client_class(transport=fixture_transport, **client_options)

    @property
    def _name(self) -> str:
        """This factory's name in :mod:`replaygate.http` (``httpx2_async_client``)."""
        library = getattr(self.client_class, "__module__", "httpx").partition(".")[0]
        kind = "async_" if "Async" in getattr(self.client_class, "__name__", "") else ""
        return f"{library}_{kind}client"
