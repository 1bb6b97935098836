"""``Client.send`` and ``AsyncClient.send`` of ``httpx2`` and ``httpx``, answered by the session.

Every request of a client passes there, whatever its transport (the library's own, a
``MockTransport``, a user's, LiteLLM's), after the client has merged its settings.
A replayed response is bound as the client binds one (``request``, ``elapsed``, the
event hooks); a live one is sent by the original ``send`` (auth, hooks, the client's
transport), to the session's ``live_origin`` if it has one (moved by the transport the
client picks, so its auth and hooks see the request as addressed; a loopback origin
past the client's proxies), and its body recorded as the client reads it. Redirects are
followed here, as the client follows them, one request a hop: each hop is recorded
and replayed as its own fixture, as through a fixture transport or ``requests``, so a
followed redirect is followed again on replay. A client whose own transport is a
fixture transport (``httpx2_client(store)``) is left to it: it answers once, from its
own session.
"""

from __future__ import annotations

import datetime
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

from replaygate.http.active import answering, live_call
from replaygate.http.adapter import FixtureTransportBase, point_at
from replaygate.http.bindings import binding
from replaygate.http.exchange import Exchange, LiveSlot
from replaygate.http.own_app import sent_as_is
from replaygate.http.recorded import Replayed
from replaygate.http.seams import Patch, moving, moving_for, unproxied
from replaygate.http.transport import Library


def _since(start: float) -> datetime.timedelta:
    return datetime.timedelta(seconds=time.perf_counter() - start)


APP_TRANSPORTS: tuple[tuple[str, str], ...] = (
    ("httpx2", "ASGITransport"),
    ("httpx2", "WSGITransport"),
    ("httpx", "ASGITransport"),
    ("httpx", "WSGITransport"),
    ("starlette.testclient", "_TestClientTransport"),
)
"""(module, class) of each transport that hands a request to an application in this
process (FastAPI's and Starlette's ``TestClient``, ``httpx.ASGITransport(app)``): such a
request is the test's call of its own app, never a model call."""


def _app_transport(transport: Any) -> bool:
    """Whether ``transport`` calls an application in this process (:data:`APP_TRANSPORTS`)."""
    for module_name, class_name in APP_TRANSPORTS:
        cls = getattr(sys.modules.get(module_name), class_name, None)
        if isinstance(cls, type) and isinstance(transport, cls):
            return True
    return False


def _session_for(client: Any, request: Any) -> Exchange | None:
    """The session answering ``request`` at the client level, or None to send it as is:
    a client with a fixture transport of its own answers from its own store, and one
    calling an app in this process (through its transport, or over loopback:
    :func:`~replaygate.http.own_app.own_app`) reaches the app, whose own sends are
    answered; a WebSocket handshake (httpx-ws) is sent as it is."""
    exchange = answering()
    if exchange is None:
        return None
    pick = getattr(client, "_transport_for_url", None)
    transport = pick(request.url) if pick is not None else None
    if isinstance(transport, FixtureTransportBase) or _app_transport(transport):
        return None
    return None if sent_as_is(str(request.url), request.headers, _sent(request)) else exchange


def _sent(request: Any) -> bytes:
    """What ``request`` sends, if it was read (empty for a stream not read yet)."""
    try:
        return bytes(request.content)
    except Exception:  # the library's RequestNotRead, a body that streams
        return b""


def _replayed(library: Library[Any], answer: Replayed, request: Any, start: float) -> Any:
    response = library.replay(answer)
    response.request = request
    response.elapsed = _since(start)
    return response


@contextmanager
def _moved(exchange: Exchange) -> Iterator[None]:
    """While inside, the client's send of a request going live takes it to the session's
    ``live_origin`` (:meth:`Exchange.live_url`). The client's own steps (auth, event
    hooks: Azure OpenAI's drops its key from a request to another host) see it as it is
    addressed; the transport the client picks for it moves it (:func:`_pick`)."""
    with moving(exchange):
        yield


class _Moving:
    """A client's transport, sending each request to ``url`` instead."""

    def __init__(self, transport: Any, url: str) -> None:
        self.transport = transport
        self.url = url

    def handle_request(self, request: Any) -> Any:
        point_at(request, self.url)
        return self.transport.handle_request(request)

    async def handle_async_request(self, request: Any) -> Any:
        point_at(request, self.url)
        return await self.transport.handle_async_request(request)


def _pick(original: Callable[..., Any]) -> Callable[..., Any]:
    def _transport_for_url(client: Any, url: Any) -> Any:
        exchange = moving_for()
        target = None if exchange is None else exchange.live_url(str(url))
        if target is None:
            return original(client, url)
        # to the simulator, a loopback origin, past the client's proxies (HTTP_PROXY and
        # the like), as NO_PROXY would send it; elsewhere, as the client sends there
        chosen = client._transport if unproxied(target) else original(client, type(url)(target))
        return _Moving(chosen, target)

    return _transport_for_url


def _teed(
    library: Library[Any], exchange: Exchange, slot: LiveSlot, live: Any, start: float
) -> Any:
    response: Any = None

    def closed() -> None:
        response.elapsed = _since(start)

    response = library.tee(exchange, slot, live, closed)
    response.request = live.request
    response.history = live.history
    return response


def _follows(client: Any, options: dict[str, Any]) -> bool:
    """Whether this send follows redirects: its own ``follow_redirects``, else the client's."""
    follow = options.pop("follow_redirects", None)
    return follow if isinstance(follow, bool) else bool(client.follow_redirects)


def _next_hop(
    library: Library[Any], client: Any, request: Any, response: Any, hops: int | None
) -> Any:
    """The request a redirect leads to; ``TooManyRedirects`` when ``hops`` followed already
    reach the client's maximum (None: the redirect is not followed)."""
    if hops is not None and hops >= client.max_redirects:
        raise library.module.TooManyRedirects(
            "Exceeded maximum allowed redirects.", request=request
        )
    return client._build_redirect_request(request, response)


def _sync(library: Library[Any]) -> Callable[[Any], Any]:
    def make(original: Callable[..., Any]) -> Callable[..., Any]:
        def hop(client: Any, exchange: Exchange, request: Any, options: dict[str, Any]) -> Any:
            __tracebackhide__ = True
            start = time.perf_counter()
            request.read()
            plan = exchange.plan(request)
            if isinstance(plan, Replayed):
                for hook in client.event_hooks["request"]:
                    hook(request)
                response = _replayed(library, plan, request, start)
                for hook in client.event_hooks["response"]:
                    hook(response)
                return response
            with _moved(exchange), live_call(), exchange.sending(plan):
                live = original(client, request, stream=True, follow_redirects=False, **options)
            return _teed(library, exchange, plan, live, start)

        def send(client: Any, request: Any, *, stream: bool = False, **options: Any) -> Any:
            __tracebackhide__ = True
            exchange = _session_for(client, request)
            if exchange is None:
                return original(client, request, stream=stream, **options)
            follow = _follows(client, options)
            history: list[Any] = []
            while True:  # one request a hop, each recorded and replayed as its own fixture
                response = hop(client, exchange, request, options)
                response.history = list(history)
                if not response.has_redirect_location:
                    break
                try:
                    request = _next_hop(
                        library, client, request, response, len(history) if follow else None
                    )
                    if not follow:
                        response.next_request = request
                        break
                    response.read()
                finally:
                    if follow:
                        response.close()
                history.append(response)
            if not stream:
                try:
                    response.read()
                except BaseException:
                    response.close()
                    raise
            return response

        return send

    return make


def _async(library: Library[Any]) -> Callable[[Any], Any]:
    def make(original: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        async def hop(
            client: Any, exchange: Exchange, request: Any, options: dict[str, Any]
        ) -> Any:
            __tracebackhide__ = True
            start = time.perf_counter()
            await request.aread()
            plan = await exchange.aplan(request)
            if isinstance(plan, Replayed):
                for hook in client.event_hooks["request"]:
                    await hook(request)
                response = _replayed(library, plan, request, start)
                for hook in client.event_hooks["response"]:
                    await hook(response)
                return response
            with _moved(exchange), live_call(), exchange.sending(plan):
                live = await original(
                    client, request, stream=True, follow_redirects=False, **options
                )
            return _teed(library, exchange, plan, live, start)

        async def send(client: Any, request: Any, *, stream: bool = False, **options: Any) -> Any:
            __tracebackhide__ = True
            exchange = _session_for(client, request)
            if exchange is None:
                return await original(client, request, stream=stream, **options)
            follow = _follows(client, options)
            history: list[Any] = []
            while True:  # one request a hop, each recorded and replayed as its own fixture
                response = await hop(client, exchange, request, options)
                response.history = list(history)
                if not response.has_redirect_location:
                    break
                try:
                    request = _next_hop(
                        library, client, request, response, len(history) if follow else None
                    )
                    if not follow:
                        response.next_request = request
                        break
                    await response.aread()
                finally:
                    if follow:
                        await response.aclose()
                history.append(response)
            if not stream:
                try:
                    await response.aread()
                except BaseException:
                    await response.aclose()
                    raise
            return response

        return send

    return make


def patches(name: str) -> list[Patch]:
    """``send`` of the sync and async client of ``name`` (``httpx2`` or ``httpx``), and the
    choice of a transport for a URL (:func:`_pick`)."""
    library = binding(name).library
    module = library.module
    return [
        (module.Client, "send", _sync(library)),
        (module.AsyncClient, "send", _async(library)),
        (module.Client, "_transport_for_url", _pick),
        (module.AsyncClient, "_transport_for_url", _pick),
    ]
