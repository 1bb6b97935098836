"""Record/replay for clients the code under test builds itself, by patching the transports.

Inside ``with intercept(store, mode=...)`` every request sent through
``httpx2.HTTPTransport`` / ``AsyncHTTPTransport`` and ``httpx.HTTPTransport`` /
``AsyncHTTPTransport`` (whichever are installed) is answered by one shared
:class:`~replaygate.http.transport.Exchange`, as pytest-httpx and vcrpy do. The
patch is process-wide (every thread), restored on exit; nested intercepts stack,
the innermost one answering.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

from replaygate.http.exchange import Exchange, StoreArg
from replaygate.http.streams import LiveResponse
from replaygate.http.transport import Library

ADAPTERS: tuple[tuple[str, str, str], ...] = (
    ("httpx2", "replaygate.http.httpx2_transport", "HTTPX2"),
    ("httpx", "replaygate.http.httpx_transport", "HTTPX"),
)
"""(library, adapter module, Library constant) of every library :func:`intercept` patches."""

_patch_lock = threading.Lock()


def installed_libraries() -> list[tuple[Any, Library[Any]]]:
    """(module, binding) of every supported HTTP library that is installed."""
    found = []
    for name, adapter, constant in ADAPTERS:
        try:
            module = importlib.import_module(name)
            binding = getattr(importlib.import_module(adapter), constant)
        except ImportError:
            continue
        found.append((module, binding))
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
    store: StoreArg | Exchange,
    mode: str = "replay",
    *,
    approve_live: bool = False,
    match_host: bool = False,
    source: str | None = None,
    interface: str | None = None,
    note: str | None = None,
) -> Iterator[Exchange]:
    """Answer every ``httpx``/``httpx2`` HTTP transport from ``store`` while inside.

    Arguments are those of the transports
    (:class:`~replaygate.http.adapter.FixtureTransportBase`); a recording mode
    without ``approve_live=True`` raises before anything is patched. ``store`` may
    be an :class:`~replaygate.http.transport.Exchange` to share a session. Yields
    the session's exchange (counters, store).
    """
    exchange = Exchange.of(
        store,
        mode=mode,
        approve_live=approve_live,
        match_host=match_host,
        source=source,
        interface=interface,
        note=note,
    )
    saved: list[tuple[type, str, Any]] = []
    with _patch_lock:
        for module, library in installed_libraries():
            for class_name, method, make in _PATCHES:
                cls = getattr(module, class_name)
                original = cls.__dict__[method]
                saved.append((cls, method, original))
                setattr(cls, method, make(exchange, library, original))
    try:
        yield exchange
    finally:
        with _patch_lock:
            for cls, method, original in reversed(saved):
                setattr(cls, method, original)
