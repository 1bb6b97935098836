"""Record/replay for clients the code under test builds itself, by patching the transports.

Inside ``with intercept(store, mode=...)`` every request sent through
``httpx2.HTTPTransport`` / ``AsyncHTTPTransport`` and ``httpx.HTTPTransport`` /
``AsyncHTTPTransport`` (whichever are installed) is answered by one shared
:class:`~replaygate.http.transport.Exchange`, as pytest-httpx and vcrpy do. The
patch is process-wide (every thread), restored on exit; nested intercepts stack,
the innermost one answering. In replay mode the network is blocked too
(:func:`~replaygate.network.block_network`): nothing else leaves the process while
inside, whatever library or socket it tries.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any, Unpack

from replaygate.http.bindings import LIBRARIES, binding
from replaygate.http.exchange import Exchange, SessionOptions, StoreArg
from replaygate.http.streams import LiveResponse
from replaygate.http.transport import Library
from replaygate.network import block_network

_patch_lock = threading.Lock()


def installed_libraries() -> list[Library[Any]]:
    """The binding of every supported HTTP library that is installed."""
    found = []
    for name in LIBRARIES:
        try:
            found.append(binding(name).library)
        except ImportError:
            continue
    return found


def _sync_patch(exchange: Exchange, library: Library[Any], original: Any) -> Any:
    def handle_request(transport: Any, request: Any) -> Any:
        def send(req: Any) -> LiveResponse:
            response: LiveResponse = original(transport, req)
            return response

        return library.handle(exchange, request, send)

    return handle_request


def _async_patch(exchange: Exchange, library: Library[Any], original: Any) -> Any:
    async def handle_async_request(transport: Any, request: Any) -> Any:
        def send(req: Any) -> Awaitable[LiveResponse]:
            sent: Awaitable[LiveResponse] = original(transport, req)
            return sent

        return await library.handle_async(exchange, request, send)

    return handle_async_request


_PATCHES: tuple[tuple[str, str, Callable[[Exchange, Library[Any], Any], Any]], ...] = (
    ("HTTPTransport", "handle_request", _sync_patch),
    ("AsyncHTTPTransport", "handle_async_request", _async_patch),
)


@contextmanager
def intercept(
    store: StoreArg | Exchange, mode: str = "replay", **options: Unpack[SessionOptions]
) -> Iterator[Exchange]:
    """Answer every ``httpx``/``httpx2`` HTTP transport from ``store`` while inside.

    ``options`` are those of the transports
    (:class:`~replaygate.http.adapter.FixtureTransportBase`); a recording mode
    without ``approve_live=True`` raises before anything is patched. ``store`` may
    be an :class:`~replaygate.http.exchange.Exchange` to share a session. Yields
    the session's exchange (counters, store). A replaying session blocks the network
    while inside.
    """
    exchange = Exchange.of(store, mode, **options)
    with ExitStack() as stack:
        if not exchange.recording:
            stack.enter_context(block_network())
        stack.enter_context(_patched(exchange))
        yield exchange


@contextmanager
def _patched(exchange: Exchange) -> Iterator[None]:
    """Every installed library's transports answered by ``exchange`` while inside."""
    saved: list[tuple[type, str, Any]] = []
    with _patch_lock:
        for library in installed_libraries():
            for class_name, method, make in _PATCHES:
                cls = getattr(library.module, class_name)
                original = cls.__dict__[method]
                saved.append((cls, method, original))
                setattr(cls, method, make(exchange, library, original))
    try:
        yield
    finally:
        with _patch_lock:
            for cls, method, original in reversed(saved):
                setattr(cls, method, original)
