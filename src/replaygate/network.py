"""Blocking the network while replaying (law 3): only loopback connections get through.

Inside ``with block_network():`` a ``connect`` of any socket (so
``socket.create_connection``, ``getaddrinfo`` followed by a connect, ``asyncio``
and every HTTP library) to an address beyond loopback raises
:class:`~replaygate.errors.NetworkBlockedError`. Loopback (127.0.0.0/8, ::1,
``localhost``), unix sockets and the hosts in ``allow`` still connect. The block is
process-wide and nests: the sockets are restored when the outermost block ends.

:func:`is_loopback` is the one test of "is this address loopback": the block and the
simulator's refusal to listen beyond loopback both use it.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from replaygate.errors import NetworkBlockedError

_lock = threading.Lock()
_depth = 0
_allowed: list[frozenset[str]] = []
_originals: dict[str, Callable[..., Any] | None] = {}


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or ``localhost``) is on the loopback interface."""
    if host.lower() in ("localhost", "localhost.localdomain") or host.lower().endswith(
        ".localhost"
    ):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]").split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def allowed(address: Any) -> bool:
    """Whether a socket address may be connected to under the current block."""
    if isinstance(address, str | bytes) or not isinstance(address, tuple) or not address:
        return True  # unix socket path, abstract socket, or a non-IP family
    host = str(address[0])
    if is_loopback(host):
        return True
    return any(host in hosts for hosts in _allowed)


def _guard(name: str) -> Callable[..., Any]:
    original: Callable[..., Any] = getattr(socket.socket, name)

    def guarded(sock: socket.socket, address: Any, *args: Any, **kwargs: Any) -> Any:
        if sock.family in (socket.AF_INET, socket.AF_INET6) and not allowed(address):
            raise NetworkBlockedError(
                f"network access to {address!r} is blocked while replaying fixtures: a "
                "request escaped the replay transport. Wire the client to replaygate "
                "(http_client=replaygate.http.httpx2_client(...) or intercept()), or "
                "record with --record-mode=record-missing --approve-live."
            )
        return original(sock, address, *args, **kwargs)

    guarded.__name__ = name
    return guarded


@contextmanager
def block_network(allow: Iterable[str] = ()) -> Iterator[None]:
    """Refuse connections beyond loopback (and ``allow``) while inside."""
    global _depth
    hosts = frozenset(allow)
    with _lock:
        if _depth == 0:
            for name in ("connect", "connect_ex"):
                _originals[name] = socket.socket.__dict__.get(name)
                setattr(socket.socket, name, _guard(name))
        _depth += 1
        _allowed.append(hosts)
    try:
        yield
    finally:
        with _lock:
            _allowed.remove(hosts)
            _depth -= 1
            if _depth == 0:
                for name, original in _originals.items():
                    if original is None:
                        delattr(socket.socket, name)
                    else:
                        setattr(socket.socket, name, original)
                _originals.clear()


def network_blocked() -> bool:
    """Whether a :func:`block_network` block is active."""
    return _depth > 0
