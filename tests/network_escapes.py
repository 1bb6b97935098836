"""Every way out of the process a replay must refuse, each tried once.

Targets are TEST-NET addresses (RFC 5737, 3849: never routed) and names under
``.invalid`` and ``example.com``, with short timeouts: a block that failed could not
reach anything. :func:`try_all` runs them and tallies what was refused, by class.
"""

from __future__ import annotations

import _socket
import asyncio
import contextlib
import functools
import http.client
import socket
import ssl
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Callable

import httpx2

from replaygate.errors import FixtureMismatchError, NetworkBlockedError, ReplaygateError

RAW_SOCKET = _socket.socket  # taken before any block: only the audit hook sees it
V4 = ("192.0.2.1", 443)
V6 = ("2001:db8::1", 443)
DNS = ("192.0.2.1", 53)
NAME = "api.example.invalid"
TIMEOUT = 0.2


def _on(sock: _socket.socket, method: str, *args: object) -> object:
    """``sock.method(*args)``, the socket closed after."""
    try:
        return getattr(sock, method)(*args)
    finally:
        sock.close()


def _tcp(family: int = socket.AF_INET) -> socket.socket:
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.settimeout(TIMEOUT)
    return sock


def _udp(family: int = socket.AF_INET) -> socket.socket:
    return socket.socket(family, socket.SOCK_DGRAM)


def _raw(kind: int = socket.SOCK_STREAM) -> _socket.socket:
    sock = RAW_SOCKET(socket.AF_INET, kind)
    sock.settimeout(TIMEOUT)
    return sock


def _low_level(kind: int = socket.SOCK_STREAM) -> _socket.socket:
    sock = _socket.socket(socket.AF_INET, kind)
    sock.settimeout(TIMEOUT)
    return sock


async def _open_connection() -> None:
    await asyncio.wait_for(asyncio.open_connection(*V4), TIMEOUT)


async def _datagram() -> None:
    loop = asyncio.get_running_loop()
    await loop.create_datagram_endpoint(asyncio.DatagramProtocol, remote_addr=DNS)


@functools.cache
def _client_context() -> ssl.SSLContext:
    """One default client context (building one reads the CA bundle, about 40 ms)."""
    return ssl.create_default_context()


def _tls() -> None:
    with _client_context().wrap_socket(_tcp(), server_hostname="example.com") as sock:
        sock.connect(V4)


ESCAPES: list[tuple[str, str, Callable[[], object]]] = [
    ("tcp", "create_connection", lambda: socket.create_connection(V4, timeout=TIMEOUT)),
    ("tcp", "socket.connect", lambda: _on(_tcp(), "connect", V4)),
    ("tcp", "socket.connect_ex", lambda: _on(_tcp(), "connect_ex", V4)),
    ("tcp", "IPv6 connect", lambda: _on(_tcp(socket.AF_INET6), "connect", V6)),
    (
        "tcp",
        "IPv4-mapped IPv6",
        lambda: _on(_tcp(socket.AF_INET6), "connect", ("::ffff:192.0.2.1", 443)),
    ),
    ("tcp", "0.0.0.0", lambda: _on(_tcp(), "connect", ("0.0.0.0", 9))),
    ("tcp", "wildcard ''", lambda: _on(_tcp(), "connect", ("", 9))),
    ("tcp", "_socket.socket connect", lambda: _on(_low_level(), "connect", V4)),
    ("tcp", "_socket.socket connect_ex", lambda: _on(_low_level(), "connect_ex", V4)),
    ("tcp", "_socket.socket taken earlier", lambda: _on(_raw(), "connect", V4)),
    ("tcp", "asyncio", lambda: asyncio.run(_open_connection())),
    ("tcp", "ssl", _tls),
    ("tcp", "http.client", lambda: http.client.HTTPConnection(*V4, timeout=TIMEOUT).connect()),
    ("tcp", "urllib", lambda: urllib.request.urlopen("http://192.0.2.1/", timeout=TIMEOUT)),
    ("tcp", "httpx2", lambda: httpx2.get("http://192.0.2.1/", timeout=TIMEOUT)),
    ("udp", "sendto", lambda: _on(_udp(), "sendto", b"x", DNS)),
    ("udp", "sendto with flags", lambda: _on(_udp(), "sendto", b"x", 0, DNS)),
    ("udp", "sendmsg", lambda: _on(_udp(), "sendmsg", [b"x"], [], 0, DNS)),
    ("udp", "connect then send", lambda: _on(_udp(), "connect", DNS)),
    ("udp", "<broadcast>", lambda: _on(_udp(), "sendto", b"x", ("<broadcast>", 9))),
    ("udp", "IPv6 sendto", lambda: _on(_udp(socket.AF_INET6), "sendto", b"x", ("2001:db8::1", 53))),
    (
        "udp",
        "_socket.socket sendto",
        lambda: _on(_low_level(socket.SOCK_DGRAM), "sendto", b"x", DNS),
    ),
    (
        "udp",
        "_socket.socket taken earlier",
        lambda: _on(_raw(socket.SOCK_DGRAM), "sendto", b"x", DNS),
    ),
    ("udp", "asyncio datagram", lambda: asyncio.run(_datagram())),
    ("dns", "getaddrinfo", lambda: socket.getaddrinfo(NAME, 443)),
    ("dns", "_socket.getaddrinfo", lambda: _socket.getaddrinfo(NAME, 443)),
    ("dns", "gethostbyname", lambda: socket.gethostbyname(NAME)),
    ("dns", "gethostbyname_ex", lambda: socket.gethostbyname_ex(NAME)),
    ("dns", "gethostbyaddr", lambda: socket.gethostbyaddr("192.0.2.1")),
    ("dns", "getnameinfo", lambda: socket.getnameinfo(V4, 0)),
    ("dns", "bytes name", lambda: socket.getaddrinfo(NAME.encode(), 443)),
    ("dns", "name in connect", lambda: _on(_tcp(), "connect", (NAME, 443))),
    ("dns", "name in sendto", lambda: _on(_udp(), "sendto", b"x", (NAME, 53))),
    ("dns", "name in _socket connect", lambda: _on(_low_level(), "connect", (NAME, 443))),
    ("dns", "asyncio getaddrinfo", lambda: asyncio.run(_lookup(NAME))),
    (
        "look-alike",
        "localhost.example.com",
        lambda: socket.getaddrinfo("localhost.example.com", 80),
    ),
    (
        "look-alike",
        "127.0.0.1.example.com",
        lambda: socket.getaddrinfo("127.0.0.1.example.com", 80),
    ),
    ("look-alike", "foo.localhost", lambda: socket.getaddrinfo("foo.localhost", 80)),
    ("look-alike", "localhost.", lambda: socket.getaddrinfo("localhost.", 80)),
    ("look-alike", "LOCALHOST", lambda: socket.getaddrinfo("LOCALHOST", 80)),
    ("look-alike", "localhost. connect", lambda: _on(_tcp(), "connect", ("localhost.", 80))),
    (
        "look-alike",
        "localhost.localdomain",
        lambda: socket.getaddrinfo("localhost.localdomain", 80),
    ),
    (
        "look-alike",
        "localhost.invalid connect",
        lambda: _on(_tcp(), "connect", ("localhost.invalid", 80)),
    ),
]


async def _lookup(name: str) -> object:
    return await asyncio.get_running_loop().getaddrinfo(name, 443)


def send_telemetry() -> None:
    """Send like a telemetry exporter: to a collector, swallowing every error."""
    with contextlib.suppress(OSError):
        socket.create_connection(("192.0.2.1", 4318), timeout=TIMEOUT).close()


def refused(err: BaseException) -> ReplaygateError | None:
    """The error that kept ``err``'s attempt in the process (a library may wrap it): a
    :class:`NetworkBlockedError`, or a miss where ``intercept`` answered the request."""
    seen: BaseException | None = err
    while seen is not None:
        if isinstance(seen, NetworkBlockedError | FixtureMismatchError):
            return seen
        reason = getattr(seen, "reason", None)  # urllib's URLError
        seen = reason if isinstance(reason, BaseException) else seen.__cause__ or seen.__context__
    return None


def try_all() -> Counter[str]:
    """Try every escape; the count of those refused, by class. Fails on one that was not."""
    blocked: Counter[str] = Counter()
    for kind, label, escape in ESCAPES:
        try:
            escape()
        except Exception as err:  # every failure is inspected
            found = refused(err)
            if found is None:
                raise AssertionError(f"{kind} escape {label!r} was not refused: {err!r}") from err
            assert isinstance(found, FixtureMismatchError) or "block_network(allow=" in str(found)
            blocked[kind] += 1
        else:
            raise AssertionError(f"{kind} escape {label!r} went through")
    return blocked


def expected() -> Counter[str]:
    """How many escapes of each class :func:`try_all` tries."""
    return Counter(kind for kind, _, _ in ESCAPES)


def looked_up() -> str:
    """What a lookup of a name beyond loopback does in this process: refused by a block
    (with the last words of the remedy it names), or not."""
    try:
        socket.getaddrinfo("api.example.invalid", 443)
    except NetworkBlockedError as err:
        return f"refused: ...{str(err)[-60:]}"
    except OSError as err:
        return f"not refused: {err}"
    return "not refused"
