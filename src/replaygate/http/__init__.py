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
Every public name is imported on first use (``import replaygate.http`` loads none of
the stores, the sanitizer or an HTTP library), so ``httpx`` and ``httpx2`` are imported
only when their adapters are used. Neither is a dependency: ``from replaygate.http import *``
gives the adapters of those installed, and naming one of a library not installed
(``replaygate.http.httpx_client``) raises :class:`ModuleNotFoundError` saying what to
install.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import TYPE_CHECKING, Any

from replaygate._lazy import lazy_names
from replaygate.extras import installed as _installed

if TYPE_CHECKING:
    import httpx
    import httpx2

    from replaygate.errors import NetworkBlockedError
    from replaygate.fixtures.uses import reset_uses, unused, uses
    from replaygate.http.adapter import AsyncFixtureTransport, ClientFactory, SyncFixtureTransport
    from replaygate.http.envelope import MEANINGFUL_HEADERS, envelope, request_envelope
    from replaygate.http.exchange import Exchange
    from replaygate.http.intercept import intercept
    from replaygate.http.passthrough import passthrough
    from replaygate.http.recorded import RESPONSE_HEADERS
    from replaygate.interfaces import interface_of
    from replaygate.network import block_network, network_blocked

    Httpx2Transport: type[SyncFixtureTransport[httpx2.Request, httpx2.Response]]
    AsyncHttpx2Transport: type[AsyncFixtureTransport[httpx2.Request, httpx2.Response]]
    httpx2_client: ClientFactory[httpx2.Client]
    httpx2_async_client: ClientFactory[httpx2.AsyncClient]
    HttpxTransport: type[SyncFixtureTransport[httpx.Request, httpx.Response]]
    AsyncHttpxTransport: type[AsyncFixtureTransport[httpx.Request, httpx.Response]]
    httpx_client: ClientFactory[httpx.Client]
    httpx_async_client: ClientFactory[httpx.AsyncClient]

_EXPORTS = {
    "MEANINGFUL_HEADERS": "replaygate.http.envelope",
    "envelope": "replaygate.http.envelope",
    "interface_of": "replaygate.interfaces",
    "request_envelope": "replaygate.http.envelope",
    "Exchange": "replaygate.http.exchange",
    "intercept": "replaygate.http.intercept",
    "passthrough": "replaygate.http.passthrough",
    "RESPONSE_HEADERS": "replaygate.http.recorded",
    "NetworkBlockedError": "replaygate.errors",
    "reset_uses": "replaygate.fixtures.uses",
    "unused": "replaygate.fixtures.uses",
    "uses": "replaygate.fixtures.uses",
    "block_network": "replaygate.network",
    "network_blocked": "replaygate.network",
}
"""Each public name (but the bound ones, :data:`_BOUND`) and the module it is imported
from on first use."""

_BOUND: dict[str, tuple[str, str]] = {
    "Httpx2Transport": ("httpx2", "transport"),
    "AsyncHttpx2Transport": ("httpx2", "async_transport"),
    "httpx2_client": ("httpx2", "client"),
    "httpx2_async_client": ("httpx2", "async_client"),
    "HttpxTransport": ("httpx", "transport"),
    "AsyncHttpxTransport": ("httpx", "async_transport"),
    "httpx_client": ("httpx", "client"),
    "httpx_async_client": ("httpx", "async_client"),
}
"""Public name -> (library, field of its :class:`~replaygate.http.bindings.Binding`)."""


_exported, _names = lazy_names(__name__, _EXPORTS)


def _attribute(name: str) -> Any:
    """The public name ``name``, imported on first use (an adapter, of its library)."""
    bound = _BOUND.get(name)
    if bound is None:
        return _exported(name)
    if not _installed(bound[0]):
        raise ModuleNotFoundError(
            f"replaygate.http.{name} needs {bound[0]}, which is not installed: "
            f"pip install 'replaygate[{bound[0]}]'",
            name=bound[0],
        )
    from replaygate.http.bindings import binding

    value = getattr(binding(bound[0]), bound[1])
    globals()[name] = value
    return value


if not TYPE_CHECKING:  # to a type checker, a name not declared above is an error
    __getattr__ = _attribute


def __dir__() -> list[str]:
    return sorted({*_names(), *__all__})


_SHADOWED = frozenset({"envelope", "intercept", "passthrough"})
"""Public functions named as the submodule that defines them."""


class _Package(ModuleType):
    """This package: importing a submodule of :data:`_SHADOWED` (as the package's own
    modules do) does not put it where its function is found."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _SHADOWED and isinstance(value, ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


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
__all__ = [name for name in __all__ if name not in _BOUND or _installed(_BOUND[name][0])]
"""The public names, the adapters of ``httpx`` or ``httpx2`` when it is installed only: a
star import takes each of them."""
