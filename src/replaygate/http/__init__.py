"""Record and replay of HTTP model calls, for the official SDKs and any httpx/httpx2 client.

Wire an SDK client in one line::

    import anthropic, replaygate.http
    client = anthropic.Anthropic(
        api_key="test", http_client=replaygate.http.httpx2_client("tests/fixtures/x.jsonl")
    )

or cover clients built by the code under test::

    with replaygate.http.intercept(store, mode="replay"):
        run_agent()

A fixture's request is the :mod:`~replaygate.http.envelope` of the HTTP request
(method, path, meaning-changing headers, JSON body; never auth); its response is
described in :mod:`~replaygate.http.recorded`. Replay mode never goes live: a miss
raises :class:`~replaygate.errors.FixtureMismatchError` (which the SDKs neither
wrap nor retry), and :func:`block_network` refuses any non-loopback connection.
The library names resolve lazily, so ``httpx`` and ``httpx2`` are imported only
when their adapters are used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from replaygate.errors import NetworkBlockedError
from replaygate.fixtures.uses import reset_uses, unused, uses
from replaygate.http.envelope import (
    MEANINGFUL_HEADERS,
    envelope,
    interface_of,
    request_envelope,
)
from replaygate.http.exchange import Exchange
from replaygate.http.intercept import intercept
from replaygate.http.passthrough import passthrough
from replaygate.http.recorded import RESPONSE_HEADERS
from replaygate.network import block_network, network_blocked

if TYPE_CHECKING:
    from replaygate.http.httpx2_transport import (
        AsyncHttpx2Transport,
        Httpx2Transport,
        httpx2_async_client,
        httpx2_client,
    )
    from replaygate.http.httpx_transport import (
        AsyncHttpxTransport,
        HttpxTransport,
        httpx_async_client,
        httpx_client,
    )

_LAZY: dict[str, str] = {
    "Httpx2Transport": "replaygate.http.httpx2_transport",
    "AsyncHttpx2Transport": "replaygate.http.httpx2_transport",
    "httpx2_client": "replaygate.http.httpx2_transport",
    "httpx2_async_client": "replaygate.http.httpx2_transport",
    "HttpxTransport": "replaygate.http.httpx_transport",
    "AsyncHttpxTransport": "replaygate.http.httpx_transport",
    "httpx_client": "replaygate.http.httpx_transport",
    "httpx_async_client": "replaygate.http.httpx_transport",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "MEANINGFUL_HEADERS",
    "RESPONSE_HEADERS",
    "AsyncHttpx2Transport",
    "AsyncHttpxTransport",
    "Exchange",
    "Httpx2Transport",
    "HttpxTransport",
    "NetworkBlockedError",
    "block_network",
    "envelope",
    "httpx2_async_client",
    "httpx2_client",
    "httpx_async_client",
    "httpx_client",
    "intercept",
    "interface_of",
    "network_blocked",
    "passthrough",
    "request_envelope",
    "reset_uses",
    "unused",
    "uses",
]
