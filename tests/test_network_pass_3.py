"""Nothing leaves the process in replay (law 3): spellings, families and allowed names.

The escapes here are those :mod:`network_escapes` does not try: host spellings the
checks read as an address where the C layer sends them to a resolver, sockets of a
family that leave the host by ``send`` alone, and a name a block allows, whose
addresses must get through. Targets are loopback, ``.invalid`` names and spellings a
resolver refuses, so a failing block could not reach anything.
"""

from __future__ import annotations

import asyncio
import functools
import re
import socket
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

from loopback import EchoesMessages, serving
from replaygate import network
from replaygate.addresses import is_loopback
from replaygate.errors import NetworkBlockedError
from replaygate.fixtures.store import FixtureStore
from replaygate.http import intercept
from replaygate.network import block_network
from replaygate.sim import FaultPlan, Simulator
from sdks import aiohttp

TIMEOUT = 0.2


def _connect(family: int, host: str, port: int = 9) -> None:
    with socket.socket(family) as sock:
        sock.settimeout(TIMEOUT)
        sock.connect((host, port))


def _sendto(family: int, host: str) -> None:
    with socket.socket(family, socket.SOCK_DGRAM) as sock:
        sock.sendto(b"x", (host, 53))


async def _open_connection(host: str) -> None:
    await asyncio.wait_for(asyncio.open_connection(host, 9), TIMEOUT)


WAYS: dict[str, Callable[[int, str], object]] = {
    "getaddrinfo": lambda family, host: socket.getaddrinfo(host, 80, family),
    "gethostbyname": lambda family, host: socket.gethostbyname(host),
    "connect": _connect,
    "sendto": _sendto,
    "asyncio": lambda family, host: asyncio.run(_open_connection(host)),
}

# read as loopback addresses before; the C layer reads each as a name for the resolver
SPELT_AS_NAMES = {
    "[127.0.0.1]": socket.AF_INET,
    "[127.0.0.1": socket.AF_INET,
    "127.0.0.1%lo": socket.AF_INET,
    "127.0.0.1%x.invalid": socket.AF_INET,
    "[::1]": socket.AF_INET6,
    "[::ffff:127.0.0.1]": socket.AF_INET6,
}


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("host", SPELT_AS_NAMES)
def test_a_spelling_the_c_layer_sends_to_a_resolver_is_refused_before_it(
    host: str, way: str
) -> None:
    with block_network(), pytest.raises(NetworkBlockedError) as refused:
        WAYS[way](SPELT_AS_NAMES[host], host)
    assert f"lookup of {host!r} refused" in str(refused.value)


@pytest.mark.parametrize(
    "host", ["127.1", "0x7f.0.0.1", "0177.0.0.1", "2130706433", "0.0", "0x7f.1"]
)
def test_a_short_or_numeric_ipv4_form_is_a_name_and_refused(host: str) -> None:
    # the C layer reads these as addresses; only the dotted-quad form is read as one here
    assert not is_loopback(host)
    with block_network(), pytest.raises(NetworkBlockedError, match="lookup of"):
        socket.getaddrinfo(host, 80)


def test_a_url_host_in_brackets_is_loopback_and_an_ipv6_zone_keeps_an_address() -> None:
    assert is_loopback("[::1]") and is_loopback("[::ffff:127.0.0.1]")
    assert not is_loopback("[127.0.0.1]") and not is_loopback("127.0.0.1%lo")
    with block_network():
        assert network.allowed(("::1%lo", 443, 0, 0), socket.AF_INET6)
        assert not network.allowed(("fe80::1%lo", 443, 0, 0), socket.AF_INET6)


@pytest.mark.parametrize(
    ("host", "refused"),
    [
        ("blocked.invalid", "[lookup of 'blocked.invalid' refused"),
        ("192.0.2.1", "[connect 192.0.2.1:80 refused"),
    ],
)
def test_aiohttp_names_a_refusal_in_its_connection_error(host: str, refused: str) -> None:
    """aiohttp tells a failed connection by the ``strerror`` of its cause, which a
    refusal's message is, not ``None``."""

    async def get() -> None:
        timeout = aiohttp.ClientTimeout(total=TIMEOUT)
        async with aiohttp.ClientSession(timeout=timeout) as session:
            await session.get(f"http://{host}/")

    with block_network(), pytest.raises(aiohttp.ClientConnectorError) as failed:
        asyncio.run(get())
    assert f"Cannot connect to host {host}:80 ssl:default {refused}" in str(failed.value)


def test_an_asyncio_lookup_names_the_module_that_asked_not_the_loop_s_worker_thread() -> None:
    """The event loop looks a name up in a worker thread (``asyncio_0``); the refusal is
    made in the task that asked, so it names that module."""
    from asyncio.base_events import BaseEventLoop

    looked_up = BaseEventLoop.getaddrinfo
    refused = re.escape(f"lookup of 'blocked.invalid' refused (from {__name__})")
    with block_network(), pytest.raises(NetworkBlockedError, match=refused):
        asyncio.run(_open_connection("blocked.invalid"))
    assert BaseEventLoop.getaddrinfo is looked_up


LEAVING = [name for name in ("AF_PACKET", "AF_VSOCK", "AF_CAN", "AF_TIPC") if hasattr(socket, name)]


@pytest.mark.parametrize("name", LEAVING)
def test_a_socket_of_a_family_that_can_leave_the_host_is_refused_as_it_is_made(
    name: str,
) -> None:
    # an AF_PACKET socket bound to an interface sends frames with send(): no connect or
    # sendto for a check to see, so it is refused before the system makes it
    family = getattr(socket, name)
    with block_network(), pytest.raises(NetworkBlockedError) as refused:
        socket.socket(family, socket.SOCK_RAW).close()
    assert f"socket of family {name!r} refused (from {__name__})" in str(refused.value)


def test_local_sockets_and_sockets_from_a_descriptor_are_still_made() -> None:
    with block_network():
        first, second = socket.socketpair()
        with first, second:
            first.send(b"x")
            assert second.recv(1) == b"x"
        with socket.socket() as made:
            with socket.fromfd(made.fileno(), socket.AF_INET, socket.SOCK_STREAM) as dup:
                assert dup.family == socket.AF_INET
            with socket.socket(fileno=socket.dup(made.fileno())) as told:
                assert told.family == socket.AF_INET


@pytest.fixture
def port() -> Iterator[int]:
    """The port of a listener on 127.0.0.1 (a connect to 0.0.0.0 reaches it on Linux)."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        yield server.getsockname()[1]


def test_a_name_a_block_allows_reaches_the_addresses_it_resolves_to(port: int) -> None:
    # "0" is a name to the checks, and resolves to 0.0.0.0 with no resolver asked: an
    # allowed name was looked up, and its address then refused
    with block_network():
        with block_network(allow=["0"]):
            socket.create_connection(("0", port), timeout=1).close()
            asyncio.run(_closed_connection("0", port))
        with pytest.raises(NetworkBlockedError, match=r"0\.0\.0\.0"):
            socket.create_connection(("0.0.0.0", port), timeout=1)
        with pytest.raises(NetworkBlockedError, match="lookup of '0'"):
            socket.create_connection(("0", port), timeout=1)


async def _closed_connection(host: str, port: int) -> None:
    _, writer = await asyncio.open_connection(host, port)
    writer.close()
    await writer.wait_closed()


def test_an_address_found_for_an_allowed_name_is_let_through_while_that_block_lasts(
    port: int,
) -> None:
    with block_network(allow=["0"]), block_network():
        socket.getaddrinfo("0", port)  # looked up through the outer block's allowance
        socket.create_connection(("0.0.0.0", port), timeout=1).close()
    with block_network(), pytest.raises(NetworkBlockedError):
        socket.create_connection(("0.0.0.0", port), timeout=1)


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_retry_of_a_requests_adapter_is_below_the_seam_recorded_as_its_last_answer(
    tmp_path: Path,
) -> None:
    # urllib3 retries the 429 inside the adapter, under Session.send: the fixture holds the
    # answer the send ended with, and replay gives it once, with no retry and no wait
    store = tmp_path / "adapter.jsonl"
    body = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]}

    def send() -> requests.Response:
        with requests.Session() as session:
            retry = Retry(
                total=2,
                status_forcelist=[429],
                allowed_methods=None,
                respect_retry_after_header=False,
            )
            session.mount("http://", HTTPAdapter(max_retries=retry))
            session.mount("https://", HTTPAdapter(max_retries=retry))
            return session.post(
                "https://api.anthropic.com/v1/messages",
                json=body,
                headers={"x-api-key": "k", "anthropic-version": "2023-06-01"},
            )

    faults = FaultPlan.sequence(["429"], retry_after=0.01)
    with Simulator(behavior="echo", faults=faults) as sim:
        with intercept(store, "record-missing", approve_live=True, live_origin=sim.url):
            live = send()
        assert len(sim.requests) == 2
    (fixture,) = FixtureStore.open(store)
    assert [answer["status"] for answer in fixture.responses] == [200]
    with intercept(store) as session:
        again = send()
    assert (again.status_code, again.json()) == (200, live.json())
    assert session.replays == 1


SESSION = """
    import socket

    import pytest

    from replaygate.errors import NetworkBlockedError

    def test_replays(replaygate_store):
        with pytest.raises(NetworkBlockedError):
            socket.getaddrinfo("[::1]", 80)
        with pytest.raises(NetworkBlockedError):
            socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
"""


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(socket, "AF_PACKET"), reason="AF_PACKET is Linux's")
def test_a_replaying_pytest_session_refuses_them_and_names_each(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_session=textwrap.dedent(SESSION))
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-p", "no:randomly")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "*replaygate: network attempts refused in replay*",
            "lookup of '[::1]' (from test_session) during test_session.py::test_replays",
            "socket of family 'AF_PACKET' (from test_session) during test_session.py::test_*",
        ]
    )


ASKED = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]}


@pytest.mark.parametrize("variable", ["HTTPS_PROXY", "https_proxy", "ALL_PROXY"])
def test_a_proxy_on_loopback_the_environment_names_is_refused(
    monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    # it carries a request to whatever host it names: only its loopback address is seen
    EchoesMessages.targets.clear()
    with serving(EchoesMessages) as proxy, serving(EchoesMessages) as own:
        monkeypatch.setenv(variable, proxy)
        with block_network(), pytest.raises(requests.ConnectionError) as refused:
            requests.post("https://api.openai.com/v1/messages", timeout=1)
        assert f"connect to the proxy {variable} names at 127.0.0.1:" in str(refused.value)
        assert "NO_PROXY=127.0.0.1,localhost" in str(refused.value)
        assert network.refusals()[-1].what == f"connect to the proxy {variable} names at"
        # a server of the test's own is reached past it where NO_PROXY says so; the proxy
        # is let through where a block allows its address
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        with block_network():
            requests.post(f"{own}/v1/messages", json=ASKED, timeout=1)
        with block_network(allow=["127.0.0.1"]):
            socket.create_connection(("127.0.0.1", int(proxy.rsplit(":", 1)[1]))).close()
    assert EchoesMessages.targets == ["/v1/messages"]


def test_a_reverse_lookup_is_answered_only_for_an_address_of_localhost() -> None:
    # a resolver asks DNS for the name of any address the hosts file lacks, 127.0.0.2
    # and 0.0.0.0 ("") too; localhost's own (http.server's getfqdn) are answered there
    own = str(socket.getaddrinfo("localhost", None, socket.AF_INET)[0][4][0])
    with block_network():
        assert socket.gethostbyaddr(own)[2] == [own]
        for look_back in (
            lambda: socket.gethostbyaddr("127.0.0.2"),
            lambda: socket.gethostbyaddr(""),
            lambda: socket.getnameinfo(("127.0.0.2", 80), 0),
        ):
            with pytest.raises(NetworkBlockedError, match=r"reverse lookup of '(127\.0\.0\.2)?'"):
                look_back()


def test_binding_to_a_name_is_refused_before_it_is_looked_up() -> None:
    with block_network(), socket.socket() as sock:
        with pytest.raises(NetworkBlockedError, match=r"lookup of 'api\.example\.invalid'"):
            sock.bind(("api.example.invalid", 0))
        sock.bind(("localhost", 0))
        assert is_loopback(sock.getsockname()[0])


@pytest.mark.parametrize(("kind", "address"), [("udp", "127.0.0.53"), ("tcp", "127.0.0.1")])
def test_a_resolver_on_loopback_is_refused_it_forwards_beyond(kind: str, address: str) -> None:
    # systemd-resolved (127.0.0.53), Docker's embedded DNS (127.0.0.11), dnsmasq
    send = _sendto if kind == "udp" else functools.partial(_connect, port=53)
    with block_network(), pytest.raises(NetworkBlockedError) as refused:
        send(socket.AF_INET, address)
    assert f"to a resolver on loopback at {address}:53 refused" in str(refused.value)
    with block_network(allow=["127.0.0.53"]):
        _sendto(socket.AF_INET, "127.0.0.53")  # a resolver the test owns
