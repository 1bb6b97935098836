"""``Client.send`` and ``AsyncClient.send`` of ``httpx2`` and ``httpx``, answered by the session.

Every request of a client passes there, whatever its transport (the library's own, a
``MockTransport``, a user's, LiteLLM's), after the client has merged its settings.
A replayed response is bound as the client binds one (``request``, ``elapsed``, the
event hooks); a live one is sent by the original ``send`` (auth, redirects, hooks, the
client's transport), to the session's ``live_origin`` if it has one, and its body
recorded as the client reads it. A client whose own
transport is a fixture transport (``httpx2_client(store)``) is left to it: it
answers once, from its own session.
"""

from __future__ import annotations

import datetime
import time
from collections.abc import Awaitable, Callable
from typing import Any

from replaygate.http.active import answering, live_call
from replaygate.http.adapter import FixtureTransportBase, point_at
from replaygate.http.bindings import binding
from replaygate.http.exchange import Exchange, LiveSlot
from replaygate.http.recorded import Replayed
from replaygate.http.seams import Patch
from replaygate.http.transport import Library


def _since(start: float) -> datetime.timedelta:
    return datetime.timedelta(seconds=time.perf_counter() - start)


def _session_for(client: Any, request: Any) -> Exchange | None:
    """The session answering ``request`` at the client level, or None to send it as is."""
    exchange = answering()
    if exchange is None:
        return None
    pick = getattr(client, "_transport_for_url", None)
    if pick is not None and isinstance(pick(request.url), FixtureTransportBase):
        return None
    return exchange


def _replayed(library: Library[Any], answer: Replayed, request: Any, start: float) -> Any:
    response = library.replay(answer)
    response.request = request
    response.elapsed = _since(start)
    return response


def _moved(exchange: Exchange, request: Any) -> None:
    """Point a request going live at the session's ``live_origin`` (:meth:`Exchange.live_url`)."""
    url = exchange.live_url(str(request.url))
    if url is not None:
        point_at(request, url)


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


def _sync(library: Library[Any]) -> Callable[[Any], Any]:
    def make(original: Callable[..., Any]) -> Callable[..., Any]:
        def send(client: Any, request: Any, *, stream: bool = False, **options: Any) -> Any:
            __tracebackhide__ = True
            exchange = _session_for(client, request)
            if exchange is None:
                return original(client, request, stream=stream, **options)
            start = time.perf_counter()
            request.read()
            plan = exchange.plan(request)
            if isinstance(plan, Replayed):
                for hook in client.event_hooks["request"]:
                    hook(request)
                response = _replayed(library, plan, request, start)
                for hook in client.event_hooks["response"]:
                    hook(response)
            else:
                _moved(exchange, request)
                with live_call():
                    live = original(client, request, stream=True, **options)
                response = _teed(library, exchange, plan, live, start)
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
        async def send(client: Any, request: Any, *, stream: bool = False, **options: Any) -> Any:
            __tracebackhide__ = True
            exchange = _session_for(client, request)
            if exchange is None:
                return await original(client, request, stream=stream, **options)
            start = time.perf_counter()
            await request.aread()
            plan = exchange.plan(request)
            if isinstance(plan, Replayed):
                for hook in client.event_hooks["request"]:
                    await hook(request)
                response = _replayed(library, plan, request, start)
                for hook in client.event_hooks["response"]:
                    await hook(response)
            else:
                _moved(exchange, request)
                with live_call():
                    live = await original(client, request, stream=True, **options)
                response = _teed(library, exchange, plan, live, start)
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
    """``send`` of the sync and async client of ``name`` (``httpx2`` or ``httpx``)."""
    library = binding(name).library
    module = library.module
    return [(module.Client, "send", _sync(library)), (module.AsyncClient, "send", _async(library))]
