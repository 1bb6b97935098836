"""The record/replay transports and clients of each ``httpx``-shaped library, made on first use.

``httpx2`` (under ``anthropic`` 2.x and ``openai`` 3.x) and ``httpx`` (older SDKs,
other clients) share one API, so one :func:`binding` makes, for either, the
:class:`~replaygate.http.transport.Library` of its types, a sync and an async
fixture transport (subclasses of the library's own base transports, so clients
accept them) and the two client factories. A library is imported only when its
binding is first asked for. One line wires an SDK to fixtures::

    client = anthropic.Anthropic(api_key="test", http_client=httpx2_client(store))
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass
from typing import Any

from replaygate.http.adapter import (
    AsyncFixtureTransport,
    ByEnvironment,
    ClientFactory,
    SyncFixtureTransport,
)
from replaygate.http.streams import ReplayByteStream, TeeByteStream
from replaygate.http.transport import Library, RecordedResponse

LIBRARIES: dict[str, str] = {"httpx2": "Httpx2", "httpx": "Httpx"}
"""The libraries bound, and the prefix of their transport names."""


def library_of(kind: type) -> str | None:
    """The library of :data:`LIBRARIES` whose class ``kind`` is or derives from (an SDK's
    own client class, ``anthropic.DefaultHttpxClient``), else None."""
    for base in kind.__mro__:
        name = str(base.__module__).partition(".")[0]
        if name in LIBRARIES:
            return name
    return None


@dataclass(frozen=True)
class Binding:
    """One library's record/replay pieces."""

    library: Library[Any]
    transport: type[SyncFixtureTransport[Any, Any]]
    async_transport: type[AsyncFixtureTransport[Any, Any]]
    client: ClientFactory[Any]
    async_client: ClientFactory[Any]


def _subclass(name: str, bases: tuple[type, ...], doc: str, **members: Any) -> Any:
    return type(name, bases, {"__doc__": doc, "__module__": "replaygate.http", **members})


def _transport(name: str, ours: type, theirs: type, client: type, library: Library[Any]) -> Any:
    """A fixture transport class that is also one of the library's own transports; it
    records through the transports a ``client`` made without one picks (:class:`ByEnvironment`)."""
    doc = f"A transport answering from fixtures, sending through ``{client.__name__}``'s to record."

    def default_live(**options: Any) -> ByEnvironment:
        return ByEnvironment(client, options)

    return _subclass(
        name, (ours, theirs), doc, library=library, default_live=staticmethod(default_live)
    )


@functools.cache
def binding(name: str) -> Binding:
    """The binding of library ``name`` (``httpx2`` or ``httpx``); imports it on first use."""
    prefix = LIBRARIES[name]
    lib = importlib.import_module(name)
    streams = (lib.SyncByteStream, lib.AsyncByteStream)
    library: Library[Any] = Library(
        lib,
        lib.Response,
        _subclass("ReplayStream", (ReplayByteStream, *streams), "A replayed body.", library=lib),
        _subclass("TeeStream", (TeeByteStream, *streams), "A live body, recorded.", library=lib),
        _subclass("Response", (RecordedResponse, lib.Response), "A live response, recorded."),
    )
    transport = _transport(
        f"{prefix}Transport", SyncFixtureTransport, lib.BaseTransport, lib.Client, library
    )
    async_transport = _transport(
        f"Async{prefix}Transport",
        AsyncFixtureTransport,
        lib.AsyncBaseTransport,
        lib.AsyncClient,
        library,
    )
    return Binding(
        library,
        transport,
        async_transport,
        ClientFactory(lib.Client, transport),
        ClientFactory(lib.AsyncClient, async_transport),
    )
