"""Blocking the network while replaying (law 3): nothing leaves the process but loopback.

Inside ``with block_network():`` every way out of the process through Python's
sockets raises :class:`~replaygate.errors.NetworkBlockedError` before anything is
sent, in every thread:

- a TCP ``connect``/``connect_ex`` and a UDP ``sendto``/``sendmsg`` to an address
  beyond loopback, through ``socket.socket``, ``_socket.socket`` or any library built
  on them (``asyncio``, ``ssl``, every HTTP client);
- a DNS lookup (``getaddrinfo``, ``gethostbyname``, ``gethostbyname_ex``) of any name
  but ``localhost``, refused before the lookup leaves the process; a name given to
  ``connect``, ``sendto`` or ``bind`` is looked up the same way, and the address it
  resolves to decides; a reverse lookup (``gethostbyaddr``, ``getnameinfo``) of any
  address but those ``localhost`` resolves to, which the hosts file holds (a resolver
  asks DNS for the name of ``127.0.0.2``);
- a query to a resolver on loopback (port 53: systemd-resolved, Docker's embedded DNS,
  dnsmasq), which forwards it beyond;
- a socket of another family that can leave the host (``AF_PACKET``, ``AF_VSOCK``,
  Bluetooth, ...), refused as it is made: one bound to an interface sends with ``send``
  alone. Unix sockets and netlink stay open;
- a connection to a proxy on loopback that the environment names (``HTTPS_PROXY``,
  ``HTTP_PROXY``, ``ALL_PROXY``, in either case: a corporate proxy client, a CI sidecar):
  a client that sends through it reaches whatever host it names, and only the proxy's
  loopback address would be seen. A client sends to loopback past it where ``NO_PROXY``
  says so.

"Loopback" is decided by :func:`is_loopback` from the address, never the spelling
of a name: ``127.0.0.0/8``, ``::1`` and IPv4-mapped loopback (``::ffff:127.0.0.1``).
An address is what the C layer reads as one without a resolver, dotted-quad IPv4 or
IPv6 with an optional zone; anything else is a name (``[::1]`` and ``127.0.0.1%lo`` go
to a resolver), and so are the short IPv4 forms (``127.1``, ``2130706433``).
``localhost`` is the one name that resolves, spelt so (lower case, no trailing dot: a
system resolver finds that one in ``/etc/hosts``, but asks DNS for ``localhost.``), and
every address it resolves to must be loopback. Names that merely look local
(``localhost.``, ``LOCALHOST``, ``localhost.localdomain``, ``localhost.example.com``,
``127.0.0.1.nip.io``) and the RFC 6761 ``*.localhost`` names are refused: a system
resolver may forward them to DNS. ``0.0.0.0`` and ``::`` are refused although a
Linux connect to them reaches the local host: they are not loopback addresses, and
a listener found that way may listen on every interface.

Hosts in ``allow`` get through: addresses, and names, which may be looked up, and
whose addresses found by ``getaddrinfo`` are then let through while the block lasts. Blocks
nest and are process-wide; the sockets are restored when the outermost block ends.
The checks run in an audit hook (:func:`sys.addaudithook`, installed at the first
block and idle outside one), so a socket object made before the block is checked
too, plus wrappers that look names up through the checked resolver before the C
layer would. Not covered: connections opened before the block began, a child process
that runs a program (``subprocess``, ``os.system``; one made by ``os.fork`` alone keeps
the block), C extensions that call the operating system directly (``ctypes``), and
another process that forwards what it is sent (an SSH tunnel on loopback, a daemon
behind a Unix socket).

Each refusal is kept (:func:`refusals`), naming what was tried and the module that
tried it, so a caller that swallows the error is still reported.
"""

from __future__ import annotations

import _socket
import contextlib
import functools
import ipaddress
import itertools
import os
import socket
import sys
import threading
import weakref
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import FrameType
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from replaygate.addresses import LOCALHOST, address_of, exact_address, is_loopback
from replaygate.caller import HTTP_CLIENT_PACKAGES, frames_out
from replaygate.errors import NetworkBlockedError
from replaygate.fixtures.modes import RECORD_COMMAND
from replaygate.held_blocks import HeldBlock

if TYPE_CHECKING:
    from multiprocessing.process import BaseProcess

_RAW = _socket.socket
_RAW_GETADDRINFO = _socket.getaddrinfo
_LOCAL_FAMILIES = frozenset(
    family
    for family in (getattr(socket, "AF_UNIX", None), getattr(socket, "AF_NETLINK", None))
    if family is not None
)
_IP_FAMILIES = frozenset((socket.AF_INET, socket.AF_INET6))
_PLUMBING = frozenset(
    [*HTTP_CLIENT_PACKAGES, "anyio", "sniffio", "aiohappyeyeballs", "websockets", "replaygate"]
)
HOW_TO_FIX = (
    "replaygate blocks the network while replaying fixtures (and while recording from "
    "its simulator): only loopback (127.0.0.0/8, ::1, localhost) is reachable. Wire the "
    "client to replaygate (http_client=replaygate.http.httpx2_client(...) or "
    f"intercept()), record with approval ({RECORD_COMMAND}, or pytest "
    "--replaygate-record-mode=record-missing --replaygate-approve-live), or let a host "
    "through with block_network(allow=[...])."
)

SIMULATOR_BLOCK = (
    "replaygate blocks the network while it records from its simulator (or another "
    "server on loopback): it answers the model's calls, and nothing else leaves the "
    "process (only loopback, 127.0.0.0/8, ::1 and localhost, is reachable). Answer this "
    "connection in the code under test (a fake tool, a local file), let its host through "
    "with block_network(allow=[...]), or record from the live API instead."
)
"""The remedies of a refusal while recording from the simulator, where recording with
approval (:data:`HOW_TO_FIX`) is what the user is doing already."""

NOT_INTERCEPTED = (
    "an intercept() block is open, but it answers only the requests of httpx2, httpx, "
    "aiohttp and requests clients, and this connection came another way: a websocket (the "
    "OpenAI Agents SDK's responses_websocket_session() or use_responses_websocket=True, a "
    "Realtime API session), gRPC, urllib, http.client or a raw socket, which replaygate "
    "neither records nor replays. In tests, have the code send its model calls over HTTP "
    "through one of those clients (the Agents SDK's default transport), or let the host "
    "through with block_network(allow=[...])."
)

OUTLIVED_BLOCK = (
    "this send was made by a task started inside an intercept() block (or a pytest test's "
    "intercept) that has ended, so no block answers it, not even one open now: its "
    "requests are not the later block's to answer or record. Await or cancel the task "
    "before its block ends (a task a test starts, before the test returns: a module- or "
    "session-scoped event loop keeps it running into the next tests)."
)
"""The remedy of a refusal of a task that outlived the blocks it was started in."""

WEBSOCKET_CLIENTS = (
    "websockets.sync.client",
    "websockets.asyncio.client",
    "websockets.legacy.client",
    "websockets.client",
    "websocket",
    "httpx_ws",
)
"""The modules of the WebSocket clients (``websocket`` is websocket-client's) whose
connections a refusal names as such; a server's are not: a test's own server on
loopback may call a model from its handler."""

WEBSOCKET_OPENERS = frozenset([("aiohttp.client", "_ws_connect")])
"""The functions of HTTP clients that open a WebSocket (module, name): aiohttp's
``ClientSession.ws_connect``."""

WEBSOCKET = (
    "this is a WebSocket connection (the OpenAI Realtime API, Gemini Live, the Responses "
    "API over a websocket), which replaygate neither records nor replays: no fixture can "
    "answer it, and recording with approval sends it live, unrecorded. In tests, give the "
    "code a fake of the session, or point the client at a WebSocket server of the test's "
    "own on loopback (OpenAI(websocket_base_url='ws://127.0.0.1:PORT/v1')); see "
    "docs/http.md#websockets."
)
"""The remedy of a refusal of a connection a WebSocket client opened."""


def started_afresh(method: str) -> str:
    """The remedy of a refusal in a process started by ``method`` (``spawn``,
    ``forkserver``) inside a block: it runs blocked, but no block of the process that
    started it answers or records what it sends, replaying or recording."""
    return (
        f"this process was started by {method!r} inside a block of the process that "
        "started it, which it does not share: it runs with the network blocked as that "
        "block did, but nothing answers or records what it sends, and recording with "
        "approval does not reach it either. Enter intercept() in this process (a pool's "
        "initializer: docs/http.md#one-line-per-client), start it by 'fork', or let a "
        "host it needs through with block_network(allow=[...])."
    )


PYDANTIC_AI_DOWNLOAD = (
    " pydantic-ai looks up the host of a file it downloads for the model (a DocumentUrl, or an "
    "ImageUrl, AudioUrl or VideoUrl that the model's API does not take by URL or that is given "
    "force_download=True), to refuse private addresses, and downloads it from the address it "
    "found, over an intercepted client but after a lookup no block answers: give the tests' "
    "agent the file's bytes instead (BinaryContent(data=..., media_type=...))."
)
"""The word of a refusal of pydantic-ai's lookup before a download (its SSRF guard, run in
a thread by ``pydantic_ai._utils.run_in_executor``)."""

INSTRUCTOR_DOWNLOAD = (
    " Instructor looks up the host of a file it downloads for the model (an Image, Audio or "
    "PDF made from_url that the model's API does not take by URL, any image sent to Claude, "
    "an image URL whose path names no file type), to refuse private addresses, before it "
    "downloads it over requests, and then checks the address its socket reached, which a "
    "replayed answer has none of: give the tests' messages the file's bytes instead "
    "(Image.from_path(...), "
    "Image.from_base64('data:image/png;base64,...'))."
)
"""The word of a refusal of Instructor's lookup before it downloads a file (its guard
against private addresses, ``instructor.v2.core.remote``)."""

LOOKED_UP_FIRST = (
    "an intercept() block is open, and answers what is sent through an intercepted client, "
    "but not a lookup of the host made before it."
)
"""What a refusal inside a block says instead of :data:`NOT_INTERCEPTED` where its sender
looks a host up before sending to it through an intercepted client (:data:`LOOKS_UP_FIRST`)."""

LOOKS_UP_FIRST = (PYDANTIC_AI_DOWNLOAD, INSTRUCTOR_DOWNLOAD)
"""The words of :data:`OWN_TRANSPORTS` whose senders send through an intercepted client, after
a lookup of their own."""

BOTOCORE_WORD = (
    " boto3's calls of Amazon Bedrock are recorded and replayed inside intercept() and "
    "in tests using replaygate (its marker), not outside them; a call of another AWS "
    "service (S3, STS: a tool of the agent) goes where it is addressed: give that tool "
    "a fake in tests."
)
"""The word of a refusal of botocore's connection (boto3's, aiobotocore's)."""

OWN_TRANSPORTS: tuple[tuple[str, str], ...] = (
    ("pydantic_ai._ssrf", PYDANTIC_AI_DOWNLOAD),
    ("pydantic_ai._utils", PYDANTIC_AI_DOWNLOAD),
    ("instructor.v2.core.remote", INSTRUCTOR_DOWNLOAD),
    (
        "dspy._vendor.lm15",
        " DSPy's lm15 engine, which dspy.LM picks by default (engine='auto'), sends through "
        "sockets of its own: give the tests' models dspy.LM(..., engine='litellm'), which "
        "sends through LiteLLM's httpx clients.",
    ),
    ("botocore", BOTOCORE_WORD),
    ("aiobotocore", BOTOCORE_WORD),
    (
        "pytest_socket",
        " pytest-socket looks up each host name its --allow-hosts gives as every test is set "
        "up, a lookup this offline session refuses: give it addresses "
        "(--allow-hosts=127.0.0.1,10.0.0.5), which need no lookup.",
    ),
)
"""Packages whose refusals a word of their own explains, and that word: a refusal made by
one ends with it. Those that send model calls through an HTTP client of their own (how to
have them send through one replaygate intercepts, or use a model that does), botocore
(where its calls are answered, and its other services' are not), pytest-socket,
whose allow-list of host names is looked up before each test, and pydantic-ai and Instructor,
which look up the host of a file they download before sending."""


def own_transport_remedy(caller: str) -> str:
    """How to route the model calls of ``caller`` (a refusal's sender, such as
    ``dspy._vendor.lm15.transports._sync``) through an intercepted client, if its package
    is one of :data:`OWN_TRANSPORTS`; else nothing."""
    found = (r for p, r in OWN_TRANSPORTS if caller == p or caller.startswith(f"{p}."))
    return next(found, "")


@dataclass(frozen=True)
class Refusal:
    """One attempt refused by the block: ``what`` was tried, on ``target``, by ``caller``."""

    what: str
    target: str
    caller: str

    def __str__(self) -> str:
        return f"{self.what} {self.target} (from {self.caller})"


@dataclass(frozen=True, eq=False)
class _Level:
    allow: frozenset[str]
    on_refusal: Callable[[Refusal], None] | None
    remedy: str | None = None
    """What a refusal made inside this block says to do, where not :data:`HOW_TO_FIX`."""
    found: set[str] = field(default_factory=set)
    """The addresses ``getaddrinfo`` found for a name in ``allow`` while the block lasts."""


_lock = threading.Lock()
_levels: list[_Level] = []
_refused: list[Refusal] = []
_originals: dict[str, Any] = {}
_hooked = False
_bound: weakref.WeakKeyDictionary[socket.socket, Callable[[], Any]] = weakref.WeakKeyDictionary()
"""The stream sockets of this process bound since the audit hook was installed
(:func:`watch_listeners`), blocked or not, each with the object that bound it (a
server's ``self``), held weakly: the servers the process runs."""


def _allowed_host(host: str) -> bool:
    name = host.lower()
    return any(name in level.allow or name in level.found for level in _levels)


def _may_reach(host: str) -> bool:
    """Whether an address may be connected or sent to under the current block."""
    return is_loopback(host) or _allowed_host(host)


def _may_look_up(host: str | None) -> bool:
    """Whether a name may be looked up: ``localhost`` as spelt (another spelling may be
    sent to DNS), an address that may be reached, an allowed host, or no name at all (a
    local, passive lookup)."""
    if not host:
        return True
    if address_of(host) is not None:
        return _may_reach(host)
    return host == LOCALHOST or _allowed_host(host)


def _may_look_back(host: str | None) -> bool:
    """Whether an address (or a name, looked up first) may be looked up in reverse: one
    that ``localhost`` resolves to, which the hosts file holds, or an allowed host. A
    resolver asks DNS for any other, loopback ones (``127.0.0.2``) and ``0.0.0.0`` too."""
    if not host:
        return False
    if host == LOCALHOST or _allowed_host(host):
        return True
    ip = exact_address(host)
    return ip is not None and ip in _localhost_addresses()


def _localhost_addresses() -> set[ipaddress.IPv4Address | ipaddress.IPv6Address | None]:
    """The addresses ``localhost`` resolves to, from the hosts file."""
    try:
        found = socket.getaddrinfo(LOCALHOST, None)
    except OSError:
        return set()
    return {exact_address(str(info[4][0])) for info in found}


def allowed(address: Any, family: int = socket.AF_INET) -> bool:
    """Whether a socket address of ``family`` may be reached under the current block."""
    if family in _LOCAL_FAMILIES:
        return True
    if family not in _IP_FAMILIES:
        return False
    if not isinstance(address, tuple) or not address:
        return False
    host = _text(address[0])
    return bool(host) and _may_look_up(host)  # "" is the wildcard address, like 0.0.0.0


def _text(host: Any) -> str | None:
    if host is None or isinstance(host, str):
        return host
    if isinstance(host, bytes | bytearray):
        try:
            return bytes(host).decode("idna")
        except UnicodeError:
            return None
    return None


def _caller() -> str:
    """The module that made the attempt: the innermost frame outside the standard
    library and the HTTP plumbing; failing that, in an asyncio task whose coroutines are
    all of those (``asyncio.wait_for(asyncio.open_connection(...))`` runs one), the code
    awaiting that task (:func:`_awaiting`); failing that, the innermost module and the
    thread's name (a worker thread of the standard library). The frames below an event
    loop's step run the loop (``asyncio.run``, pytest-asyncio's runner), not the task."""
    frame: FrameType | None = sys._getframe(1)
    fallback = "unknown"
    while frame is not None:
        module = str(frame.f_globals.get("__name__", ""))
        if module and fallback == "unknown" and module != __name__:
            fallback = module
        if module == "asyncio.events" and frame.f_code.co_name == "_run":
            return _awaiting() or f"{fallback} in {_task_name()}"
        if _ours(module):
            return module
        frame = frame.f_back
    return f"{fallback} in thread {threading.current_thread().name}"


def _ours(module: str) -> bool:
    """Whether ``module`` is the code of an application, not of the standard library or
    the HTTP plumbing."""
    top = module.split(".", 1)[0]
    return bool(top) and top not in sys.stdlib_module_names and top not in _PLUMBING


def _awaiting() -> str | None:
    """The innermost module of an application among the coroutines of the tasks awaiting
    the current asyncio task (:func:`_awaiting_frames`); None when there is none."""
    for frame in _awaiting_frames():
        module = str(frame.f_globals.get("__name__", ""))
        if _ours(module):
            return module
    return None


def _awaiting_frames() -> Iterator[FrameType]:
    """The frames of the coroutines of the tasks awaiting the current asyncio task
    (:func:`_awaits`), each task's innermost first, the nearest task first."""
    import asyncio

    try:
        task = asyncio.current_task()
    except RuntimeError:  # no event loop runs in this thread
        return
    seen: set[int] = set()
    while task is not None and id(task) not in seen:
        seen.add(id(task))
        awaited = task
        task = next((t for t in asyncio.all_tasks() if _awaits(t, awaited)), None)
        yield from reversed(_coroutine_frames(task))


def _awaits(task: Any, awaited: Any) -> bool:
    """Whether asyncio ``task`` waits for ``awaited``: itself, as a child of a ``gather``,
    through a future that ``awaited`` sets as it ends (``wait_for`` before Python 3.12,
    ``asyncio.wait``), or as the task that opened the ``TaskGroup`` ``awaited`` runs in."""
    if task is awaited:
        return False
    callbacks = [callback for callback, _ in getattr(awaited, "_callbacks", None) or ()]
    if any(getattr(getattr(c, "__self__", None), "_parent_task", None) is task for c in callbacks):
        return True
    waiter = getattr(task, "_fut_waiter", None)
    if waiter is None:
        return False
    if waiter is awaited or awaited in getattr(waiter, "_children", ()):
        return True
    return any(value is waiter for callback in callbacks for value in _held(callback))


def _held(callback: Any) -> list[Any]:
    """The values a done callback holds: a ``functools.partial``'s arguments, a closure's
    variables."""
    held = list(getattr(callback, "args", ()))
    for cell in getattr(callback, "__closure__", None) or ():
        with contextlib.suppress(ValueError):  # a variable not yet set
            held.append(cell.cell_contents)
    return held


def _coroutine_frames(task: Any) -> list[FrameType]:
    """The frames of ``task``'s suspended coroutines, outermost first (none for no task)."""
    frames: list[FrameType] = []
    coroutine = None if task is None else task.get_coro()
    while coroutine is not None:
        frame = getattr(coroutine, "cr_frame", None) or getattr(coroutine, "gi_frame", None)
        if frame is None:
            break
        frames.append(frame)
        coroutine = getattr(coroutine, "cr_await", None) or getattr(coroutine, "gi_yieldfrom", None)
    return frames


def _task_name() -> str:
    """The asyncio task running in this thread, named with the function of its coroutine
    (``asyncio task Task-5 (open_connection)``); a callback of the loop is no task."""
    import asyncio

    task = asyncio.current_task()
    if task is None:
        return f"an event loop's callback in thread {threading.current_thread().name}"
    function = getattr(task.get_coro(), "__qualname__", None)
    return f"asyncio task {task.get_name()}" + (f" ({function})" if function else "")


def _refuse(what: str, target: Any, why: str = "") -> None:
    caller = _caller()
    remedy = _how_to_fix()
    listed = caller  # at a run's end, under the test running then: say it is not that one's
    if remedy is OUTLIVED_BLOCK:
        listed += ", a task left running by an intercept() block that has ended"
    elif remedy is WEBSOCKET:  # said where a caller swallows the error too
        listed += ", a WebSocket, which replaygate neither records nor replays"
    refusal = Refusal(what, _describe(target), listed)
    _refused.append(refusal)
    for level in list(_levels):
        if level.on_refusal is not None:
            level.on_refusal(refusal)
    word = own_transport_remedy(caller)
    told = LOOKED_UP_FIRST if remedy is NOT_INTERCEPTED and word in LOOKS_UP_FIRST else remedy
    if remedy in (HOW_TO_FIX, SIMULATOR_BLOCK):
        told = _side_sender(refusal) or told
    error = NetworkBlockedError(
        f"{what} {refusal.target} refused (from {caller}): {why}{told}{word}"
    )
    error.unintercepted = remedy in (NOT_INTERCEPTED, OUTLIVED_BLOCK, WEBSOCKET)
    raise error


def _side_sender(refusal: Refusal) -> str | None:
    """What a refusal of a known sender of requests to no model API (tiktoken's download of
    its encoding, a framework's telemetry) says in place of recording or letting its host
    through: to stop it at its source, with its switch; None for any other sender. Its
    table is read where an intercepted client or the simulator loaded it (the network
    module imports nothing of replaygate.http)."""
    side_request = sys.modules.get("replaygate.http.side_request")
    remedy = None if side_request is None else side_request.refusal_remedy(refusal)
    if remedy is None:
        return None
    return (
        f"replaygate blocks the network here, and {refusal.caller} sends this of its own, no "
        f"model call to record: stop it at its source ({remedy}; see docs/frameworks.md)."
    )


def _how_to_fix() -> str:
    """The remedies for a refusal: those of a task that outlived its ``intercept()``
    block, of a WebSocket connection, or of a connection no intercepted client made
    while a block answers, else those the innermost block was given, else every remedy
    (:data:`HOW_TO_FIX`)."""
    active = sys.modules.get("replaygate.http.active")  # not imported: no block is open
    if active is not None and active.outlived():
        return OUTLIVED_BLOCK
    if _through_websocket():
        return WEBSOCKET
    if active is not None and active.only_answering():
        return NOT_INTERCEPTED
    given = [level.remedy for level in _levels if level.remedy is not None]
    return given[-1] if given else HOW_TO_FIX


def _through_websocket() -> bool:
    """Whether the attempt is made by a WebSocket client (:data:`WEBSOCKET_CLIENTS`,
    :data:`WEBSOCKET_OPENERS`): one of its frames is on the stack (so are the coroutines
    awaiting a running one) or in a task awaiting this one (:func:`_awaiting_frames`: a
    lookup aiohttp runs in a task of its own)."""
    for frame in itertools.chain(frames_out(sys._getframe(1)), _awaiting_frames()):
        module = str(frame.f_globals.get("__name__", ""))
        if any(module == c or module.startswith(f"{c}.") for c in WEBSOCKET_CLIENTS):
            return True
        if (module, frame.f_code.co_name) in WEBSOCKET_OPENERS:
            return True
    return False


def _describe(target: Any) -> str:
    if isinstance(target, tuple) and len(target) >= 2:
        host = _text(target[0]) or repr(target[0])
        return f"[{host}]:{target[1]}" if ":" in host else f"{host}:{target[1]}"
    return repr(_text(target) or target)


def _check_destination(what: str, sock: Any, address: Any) -> None:
    if address is None:
        return
    if not allowed(address, getattr(sock, "family", -1)):
        _refuse(what, address)
    port = _loopback_port(address)
    if port == _DNS_PORT:
        _refuse(f"{what} to a resolver on loopback at", address, _THROUGH_RESOLVER)
    proxy = _proxy_named(port)
    if proxy is not None:
        _refuse(f"{what} to the proxy {proxy} names at", address, _THROUGH_PROXY)


_DNS_PORT = 53
_THROUGH_RESOLVER = (
    "a resolver on loopback (systemd-resolved's 127.0.0.53, Docker's 127.0.0.11, "
    "dnsmasq) forwards a query beyond loopback. "
)
_PROXY_VARIABLES = ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY")
_PROXY_PORTS = {"http": 80, "https": 443}
_THROUGH_PROXY = (
    "a proxy carries a request to whatever host it names, beyond loopback; send to "
    "loopback past it with NO_PROXY (NO_PROXY=127.0.0.1,localhost), or unset it while "
    "replaying. "
)


def _loopback_port(address: Any) -> int | None:
    """The port of ``address`` when it is a loopback socket address not let through by
    ``allow``, else None."""
    if not isinstance(address, tuple) or len(address) < 2 or not isinstance(address[1], int):
        return None
    host = _text(address[0])
    if not host or _allowed_host(host) or not is_loopback(host):
        return None
    return address[1]


def _proxy_named(port: int | None) -> str | None:
    """The environment variable naming a proxy on loopback at ``port``, or None."""
    if port is None:
        return None
    for name in _PROXY_VARIABLES:
        for spelt in (name, name.lower()):
            url = os.environ.get(spelt)
            if url and _proxy_port(url) == port:
                return spelt
    return None


def _proxy_port(url: str) -> int | None:
    """The port of the proxy at ``url`` when its host is on loopback, else None."""
    try:
        parts = urlsplit(url if "://" in url else f"http://{url}")
        port = parts.port or _PROXY_PORTS.get(parts.scheme, 1080)
    except ValueError:
        return None
    host = parts.hostname
    return port if host and is_loopback(host) else None


def _check_lookup(what: str, host: Any) -> None:
    text = _text(host)
    if (host is not None and text is None) or not _may_look_up(text):
        _refuse(what, host)


def _check_reverse(host: Any) -> None:
    if not _may_look_back(_text(host)):
        _refuse("reverse lookup of", host)


def _check_bind(sock: Any, address: Any) -> None:
    """Refuse binding to a name that may not be looked up (an address is bound as is)."""
    if getattr(sock, "family", -1) in _IP_FAMILIES and isinstance(address, tuple) and address:
        host = _text(address[0])
        if host is None or (address_of(host) is None and not _may_look_up(host)):
            _refuse("bind to", address)


def _check_family(family: int) -> None:
    """Refuse making a socket of a family that can leave the host other than by ``connect``
    or ``sendto`` (an ``AF_PACKET`` socket bound to an interface sends with ``send``); -1
    is a socket made from a descriptor opened before, whose family the OS tells."""
    if family != -1 and family not in _IP_FAMILIES and family not in _LOCAL_FAMILIES:
        try:
            name = socket.AddressFamily(family).name
        except ValueError:
            name = str(family)
        _refuse("socket of family", name)


def _audit(event: str, args: tuple[Any, ...]) -> None:
    """The audit hook: the checks of the current block, idle outside one but for noting
    the stream sockets bound (:func:`server_at`)."""
    if event == "socket.bind" and getattr(args[0], "type", None) == socket.SOCK_STREAM:
        _note_bound(args[0])
    if not _levels or not event.startswith("socket."):
        return
    if event == "socket.__new__":
        _check_family(args[1])
    elif event in ("socket.connect", "socket.sendto", "socket.sendmsg"):
        _check_destination(event.removeprefix("socket."), args[0], args[1])
    elif event == "socket.bind":
        _check_bind(args[0], args[1])
    elif event in ("socket.getaddrinfo", "socket.gethostbyname"):
        _check_lookup("lookup of", args[0])
    elif event == "socket.gethostbyaddr":
        _check_reverse(args[0])
    elif event == "socket.getnameinfo":
        _check_reverse(args[0][0] if isinstance(args[0], tuple) else None)


def _resolved(sock: Any, address: Any) -> Any:
    """``address`` with a host name replaced by the address it resolves to, looked up
    through the checked resolver (the C layer would look it up unchecked)."""
    if sock.family not in _IP_FAMILIES or not isinstance(address, tuple) or not address:
        return address
    host = _text(address[0])
    if not host or address_of(host) is not None:
        return address
    found = socket.getaddrinfo(host, address[1], sock.family, sock.type)
    return found[0][4]


def _bind(sock: Any, address: Any) -> Any:
    return _RAW.bind(sock, _resolved(sock, address))


def _connect(sock: Any, address: Any) -> Any:
    return _RAW.connect(sock, _resolved(sock, address))


def _connect_ex(sock: Any, address: Any) -> Any:
    return _RAW.connect_ex(sock, _resolved(sock, address))


def _sendto(sock: Any, data: Any, *rest: Any) -> Any:
    if rest:
        rest = (*rest[:-1], _resolved(sock, rest[-1]))
    return _RAW.sendto(sock, data, *rest)


def _sendmsg(sock: Any, buffers: Any, *rest: Any) -> Any:
    if len(rest) >= 3:
        rest = (*rest[:2], _resolved(sock, rest[2]), *rest[3:])
    return _RAW.sendmsg(sock, buffers, *rest)


def _getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
    """``getaddrinfo``, the addresses found for a name a block allows let through it."""
    found = _RAW_GETADDRINFO(host, *args, **kwargs)
    name = (_text(host) or "").lower()
    for level in list(_levels):
        if name in level.allow:
            level.found.update(str(info[4][0]).lower() for info in found)
    return found


_WRAPPERS: dict[str, Callable[..., Any]] = {
    "bind": _bind,
    "connect": _connect,
    "connect_ex": _connect_ex,
    "sendto": _sendto,
    "sendmsg": _sendmsg,
}
_GuardedSocket = type("socket", (_RAW,), {"__module__": "_socket", **_WRAPPERS})


@dataclass(frozen=True)
class BlockedTarget:
    """The target of a process started inside a block by ``spawn`` or ``forkserver``,
    which begins afresh, with no block of its own: run with the network blocked beyond
    loopback and ``allow``, as in the process that started it (law 3). ``remedy`` is
    what its refusals say to do (:func:`started_afresh`)."""

    target: Callable[..., Any]
    allow: frozenset[str]
    remedy: str | None = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        with block_network(self.allow, remedy=self.remedy):
            return self.target(*args, **kwargs)


_start_before: list[tuple[type[BaseProcess], Callable[[BaseProcess], None]]] = []
"""``BaseProcess`` and its ``start`` as it was when the block was installed (another
patch, kept)."""


def _started_blocked(process: BaseProcess) -> None:
    """``BaseProcess.start`` inside a block: a process that will not be a copy of this
    one (started by ``spawn`` or ``forkserver``: a pool's or an executor's workers) runs
    its target with the block (:class:`BlockedTarget`), or its ``run`` where its class
    overrides it and it has no target, its refusals saying why nothing answers there
    (:func:`started_afresh`); a forked one keeps it anyway."""
    from multiprocessing.process import BaseProcess

    from replaygate.start_methods import start_method

    if _levels and start_method(process) != "fork":
        allow = frozenset().union(*(level.allow for level in _levels))
        remedy = started_afresh(start_method(process))
        target = getattr(process, "_target", None)
        if callable(target):
            if not isinstance(target, BlockedTarget):
                process._target = BlockedTarget(target, allow, remedy)  # type: ignore[attr-defined]
        elif type(process).run is not BaseProcess.run and "run" not in vars(process):
            # pickled with the process, the class's own run found by its name there
            run = functools.partial(type(process).run, process)
            process.run = BlockedTarget(run, allow, remedy)  # type: ignore[method-assign]
    _start_before[0][1](process)


_lookup_before: list[tuple[type[Any], Callable[..., Any]]] = []
"""``asyncio``'s ``BaseEventLoop`` and its ``getaddrinfo`` as it was when the block was
installed (another patch, kept)."""

BLOCK_IMPORTS = ("asyncio.base_events",)
"""What the first block of a process imports as it begins (to patch ``asyncio``'s lookups):
a process that will block, forked from one that did not, is best forked from one that
imported it (``eval --jobs``' fork server), where each imported it itself."""


async def _looked_up_in_task(loop: Any, host: Any, *args: Any, **kwargs: Any) -> Any:
    """``loop.getaddrinfo`` inside a block: the name checked in the task that asks, before
    the loop hands the lookup to a worker thread, so a refusal names the module that
    tried (in the thread, only the thread's name is known)."""
    if _levels:
        _check_lookup("lookup of", host)
    return await _lookup_before[0][1](loop, host, *args, **kwargs)


def watch_listeners() -> None:
    """Install the audit hook (idle outside a block) so that the servers this process
    starts from now on are known to :func:`server_at`."""
    global _hooked
    if not _hooked:
        sys.addaudithook(_audit)
        _hooked = True


def _note_bound(sock: socket.socket) -> None:
    """Keep ``sock`` with the nearest caller's ``self`` that is neither a socket nor an
    event loop: the server binding it (``socketserver``'s ``server_bind``, uvicorn's
    ``Config.bind_socket``, or its ``Server`` awaiting the loop's ``create_server``)."""
    frame: FrameType | None = sys._getframe(2)  # past this function and the audit hook
    owner: Any = None
    asyncio = sys.modules.get("asyncio")
    passed_over: tuple[type, ...] = (socket.socket,)
    if asyncio is not None:
        passed_over += (asyncio.AbstractEventLoop,)
    for _ in range(8):
        if frame is None:
            break
        me = frame.f_locals.get("self") if "self" in frame.f_code.co_varnames else None
        if me is not None and not isinstance(me, passed_over):
            owner = me
            break
        frame = frame.f_back
    with contextlib.suppress(TypeError):  # a socket or an owner of no weak reference
        _bound[sock] = weakref.ref(owner) if owner is not None else lambda: None


def server_at(port: int | None) -> Any:
    """The object that bound the open stream socket of this process on ``port`` (a
    server: Django's live server, an app run in a thread of the test), if one was bound
    since :func:`watch_listeners`; None for another process's port or an unknown one."""
    if port is None:
        return None
    for sock, owner in list(_bound.items()):
        with contextlib.suppress(OSError):
            if sock.fileno() != -1 and sock.getsockname()[1] == port:
                return owner()
    return None


def _install() -> None:
    watch_listeners()
    for name, wrapper in _WRAPPERS.items():
        _originals[name] = socket.socket.__dict__.get(name)
        setattr(socket.socket, name, wrapper)
    _socket.socket = _GuardedSocket  # type: ignore[misc,assignment]
    _socket.getaddrinfo = _getaddrinfo
    # multiprocessing is imported once a block is entered, not with this module: it takes
    # the folder it is first imported in for the program's (a spawned child's start)
    from multiprocessing.process import BaseProcess

    if BaseProcess.start is not _started_blocked:  # left in place by a later patch's undo
        _start_before[:] = [(BaseProcess, BaseProcess.start)]
    setattr(BaseProcess, "start", _started_blocked)  # noqa: B010 (a method, patched)
    from asyncio.base_events import BaseEventLoop

    if BaseEventLoop.getaddrinfo is not _looked_up_in_task:
        _lookup_before[:] = [(BaseEventLoop, BaseEventLoop.getaddrinfo)]
    setattr(BaseEventLoop, "getaddrinfo", _looked_up_in_task)  # noqa: B010


def _uninstall() -> None:
    for process_class, start in _start_before:  # no import: Python may be shutting down
        setattr(process_class, "start", start)  # noqa: B010 (a method, restored)
    for loop_class, lookup in _lookup_before:
        setattr(loop_class, "getaddrinfo", lookup)  # noqa: B010 (a method, restored)
    _socket.socket = _RAW  # type: ignore[misc]
    _socket.getaddrinfo = _RAW_GETADDRINFO
    for name, original in _originals.items():
        if original is None:
            delattr(socket.socket, name)
        else:
            setattr(socket.socket, name, original)
    _originals.clear()


def block_network(
    allow: Iterable[str] = (),
    on_refusal: Callable[[Refusal], None] | None = None,
    *,
    remedy: str | None = None,
) -> HeldBlock[None]:
    """Refuse every way out beyond loopback (and ``allow``) while inside: a ``with`` block,
    or one entered and left by hand (:class:`~replaygate.held_blocks.HeldBlock`).

    ``on_refusal`` is called with each :class:`Refusal` made while this block is
    active (before the error is raised), e.g. to report it. ``remedy`` is what a refusal
    says to do, where not :data:`HOW_TO_FIX` (:data:`SIMULATOR_BLOCK`).
    """
    blocking = functools.partial(_blocking, allow, on_refusal, remedy)
    return HeldBlock(blocking, "block_network()", "the network is open after it")


@contextmanager
def _blocking(
    allow: Iterable[str], on_refusal: Callable[[Refusal], None] | None, remedy: str | None
) -> Iterator[None]:
    """The block of :func:`block_network`, entered once."""
    level = _Level(frozenset(host.lower() for host in allow), on_refusal, remedy)
    with _lock:
        if not _levels:
            _install()
        _levels.append(level)
    try:
        yield
    finally:
        with _lock:
            _levels.remove(level)
            if not _levels:
                _uninstall()


def network_blocked() -> bool:
    """Whether a :func:`block_network` block is active."""
    return bool(_levels)


def refusals() -> tuple[Refusal, ...]:
    """Every attempt refused in this process so far, oldest first."""
    return tuple(_refused)
