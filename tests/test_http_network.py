"""block_network(): only loopback connects while replaying."""

from __future__ import annotations

import asyncio
import socket
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2
import pytest

from replaygate.errors import NetworkBlockedError
from replaygate.http import block_network, network_blocked
from replaygate.network import is_loopback

OUTSIDE = ("192.0.2.10", 443)  # TEST-NET-1: never routed
OUTSIDE6 = ("2001:db8::1", 443)


@contextmanager
def listener(family: int = socket.AF_INET, host: str = "127.0.0.1") -> Iterator[tuple[str, int]]:
    server = socket.socket(family, socket.SOCK_STREAM)
    server.bind((host, 0))
    server.listen()
    try:
        yield server.getsockname()[:2]
    finally:
        server.close()


def test_non_loopback_connects_are_refused() -> None:
    with block_network():
        assert network_blocked()
        with pytest.raises(NetworkBlockedError, match=r"192\.0\.2\.10"):
            socket.create_connection(OUTSIDE, timeout=1)
        sock = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
        with pytest.raises(NetworkBlockedError):
            sock.connect(OUTSIDE6)
        with pytest.raises(NetworkBlockedError):
            sock.connect_ex(OUTSIDE6)
        sock.close()
    assert not network_blocked()


def test_loopback_and_unix_sockets_still_connect() -> None:
    with block_network(), listener() as address:
        socket.create_connection(address, timeout=1).close()
        socket.create_connection(("localhost", address[1]), timeout=1).close()
    with block_network(), tempfile.TemporaryDirectory() as folder:
        path = str(Path(folder) / "s.sock")
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(path)
        server.listen()
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.connect(path)
        client.close()
        server.close()


def test_asyncio_and_http_clients_are_blocked_too() -> None:
    async def connect() -> None:
        await asyncio.open_connection(*OUTSIDE)

    with block_network():
        with pytest.raises(NetworkBlockedError):
            asyncio.run(connect())
        with pytest.raises(httpx2.ConnectError) as caught:
            httpx2.get("http://192.0.2.10/", timeout=1)
        chain = [caught.value]
        while chain[-1].__cause__ or chain[-1].__context__:
            chain.append(chain[-1].__cause__ or chain[-1].__context__)  # type: ignore[arg-type]
        assert any(isinstance(err, NetworkBlockedError) for err in chain)


def test_blocks_nest_and_allow_named_hosts() -> None:
    original = socket.socket.connect
    with block_network():
        with block_network(allow=["192.0.2.10"]):
            sock = socket.socket()
            sock.settimeout(0.01)
            with pytest.raises(OSError) as caught:
                sock.connect(OUTSIDE)  # allowed through the block: fails on the network instead
            assert not isinstance(caught.value, NetworkBlockedError)
            sock.close()
        assert network_blocked()
        with pytest.raises(NetworkBlockedError):
            socket.create_connection(OUTSIDE, timeout=1)
    assert socket.socket.connect is original
    assert "connect" not in socket.socket.__dict__


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.8.9.10", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("10.0.0.1", False),
        ("api.anthropic.com", False),
        ("::ffff:8.8.8.8", False),
    ],
)
def test_is_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback
