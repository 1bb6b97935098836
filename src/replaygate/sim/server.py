"""The loopback HTTP/1.1 server (asyncio streams + h11) and the :class:`Simulator` handle.

The server runs its own event loop in a background thread, keeps connections alive
between requests, streams with chunked transfer (close-delimited for HTTP/1.0
clients) and records every request it receives.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import logging
import threading
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from typing import Any, NamedTuple

import h11
import orjson

from replaygate.addresses import is_loopback
from replaygate.http import learners
from replaygate.sim.app import SimApp
from replaygate.sim.behaviors import Behavior, make_behavior
from replaygate.sim.drift import DriftPlan, DriftRule, DriftSpec
from replaygate.sim.faults import FaultPlan, FaultSpec
from replaygate.sim.message_batches import batch_polls_problem
from replaygate.sim.replies import MAX_BODY, Reply
from replaygate.sim.streaming import DEFAULT_CHUNK
from replaygate.wall_clock import steady_seconds

log = logging.getLogger(__name__)
_READ_SIZE = 65536
_LINGER = 1.0
_CLOSE_ROUND = 0.05
"""Seconds a stopping server waits for its connections to close before it ends those
made since its last round."""
REQUEST_TIMEOUT = 30.0
"""Seconds a request begun has to arrive whole (headers and body) before a 408."""
LEARN_TIMEOUT = 5.0
"""Seconds a recording waits for the simulator to learn a replayed answer."""
_CLOSE = ("connection", "close")


class ReceivedRequest(NamedTuple):
    """One request as received: its path, headers (lower-case names) and JSON body.

    ``body`` is ``None`` when the body is empty or not JSON.
    """

    path: str
    headers: dict[str, str]
    body: Any


def _reason(status: int) -> bytes:
    if status == 529:
        return b"Overloaded"
    try:
        return HTTPStatus(status).phrase.encode("ascii")
    except ValueError:
        return b""


def _headers_of(request: h11.Request) -> dict[str, str]:
    headers: dict[str, str] = {}
    for name, value in request.headers:
        key = bytes(name).decode("latin-1").lower()
        text = bytes(value).decode("latin-1")
        headers[key] = f"{headers[key]}, {text}" if key in headers else text
    return headers


def _json_or_none(body: bytes) -> Any:
    try:
        return orjson.loads(body) if body else None
    except orjson.JSONDecodeError:
        return None


class Simulator:
    """A simulated Anthropic + OpenAI API on loopback, for tests and benchmarks.

    Use it as a context manager (or call :meth:`start` and :meth:`stop`)::

        with Simulator(behavior="echo") as sim:
            client = anthropic.Anthropic(api_key="test", base_url=sim.url)

    ``behavior`` is ``research-copilot``, ``echo``, ``script:FILE`` or any
    :class:`~replaygate.sim.behaviors.Behavior`; ``seed`` seeds the behaviour and,
    separately, the faults; ``faults`` and ``drift`` take a plan or its string form.
    ``batch_polls`` is how many retrievals of a batch (Anthropic's Message Batches,
    OpenAI's Batch API) find it still in progress before one finds it ended (0: the
    first), for a polling loop's waiting branch to be recorded.
    ``port=0`` picks a free port. A host that is not loopback is refused unless
    ``allow_remote`` is set.
    """

    def __init__(
        self,
        behavior: str | Behavior = "research-copilot",
        seed: int = 0,
        faults: FaultSpec = None,
        drift: DriftSpec = None,
        port: int = 0,
        *,
        host: str = "127.0.0.1",
        allow_remote: bool = False,
        chunk_size: int = DEFAULT_CHUNK,
        batch_polls: int = 0,
    ) -> None:
        if not allow_remote and not is_loopback(host):
            raise ValueError(
                f"refusing to serve on {host!r}: not a loopback address; "
                "pass allow_remote=True to serve beyond this machine"
            )
        if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
            raise ValueError(f"port {port!r} is not a TCP port (0 to 65535; 0 picks a free one)")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise TypeError(f"seed: expected an integer, got {seed!r}")
        if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
            raise ValueError(
                "chunk_size: expected the characters of a streamed piece, 1 or more, "
                f"got {chunk_size!r}"
            )
        problem = batch_polls_problem(batch_polls)
        if problem is not None:
            raise ValueError(problem)
        self.host = host
        self.seed = seed
        self.behavior_name = behavior if isinstance(behavior, str) else type(behavior).__name__
        self.app = SimApp(
            make_behavior(behavior, seed=seed),
            seed=seed,
            faults=FaultPlan.coerce(faults),
            drift=DriftPlan.coerce(drift),
            chunk_size=chunk_size,
            batch_polls=batch_polls,
        )
        self._requested_port = port
        self._port: int | None = None
        self._requests: list[ReceivedRequest] = []
        self._refused = 0
        self._unserved = 0
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None
        self._connections: set[asyncio.Task[None]] = set()
        self._transports: set[asyncio.BaseTransport] = set()

    # -- public surface -------------------------------------------------------------

    @property
    def port(self) -> int:
        """The port the server listens on."""
        if self._port is None:
            raise RuntimeError("the simulator is not running; call start() or use `with`")
        return self._port

    @property
    def url(self) -> str:
        """The base URL, e.g. ``http://127.0.0.1:54321`` (the Anthropic SDK's ``base_url``)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def openai_base_url(self) -> str:
        """The OpenAI SDK's ``base_url``: :attr:`url` followed by ``/v1``."""
        return f"{self.url}/v1"

    @property
    def requests(self) -> list[ReceivedRequest]:
        """A snapshot of the requests received so far, in order of arrival."""
        with self._lock:
            return list(self._requests)

    @property
    def refused(self) -> int:
        """How many of :attr:`requests` it refused of its own accord (a script run out, a
        behaviour that raised: :func:`~replaygate.sim.replies.refusal`), answering none."""
        with self._lock:
            return self._refused

    @property
    def unserved(self) -> int:
        """How many of :attr:`requests` were to a route it does not serve (OpenAI's audio,
        images), answered with the 404 or 405 no recording keeps."""
        with self._lock:
            return self._unserved

    def unmatched_drift(self) -> tuple[DriftRule, ...]:
        """The rules of its ``drift`` that have changed no answer this simulator sent (a
        misspelt field): a drift check that injected nothing proves nothing."""
        return self.app.drift.unmatched()

    def clear_requests(self) -> None:
        """Forget the requests received so far (and how many were refused or unserved)."""
        with self._lock:
            self._requests.clear()
            self._refused = 0
            self._unserved = 0

    def start(self) -> Simulator:
        """Start serving in a background thread; returns once the port is bound."""
        if self._thread is not None:
            raise RuntimeError("the simulator is already started")
        self._ready.clear()
        self._error = None
        self._thread = threading.Thread(target=self._run, name="replaygate-sim", daemon=True)
        self._thread.start()
        self._ready.wait()
        if self._error is not None:
            self._thread.join()
            self._thread = None
            raise self._error
        learners.register(self.host, self.port, self.learn)
        return self

    def stop(self) -> None:
        """Stop serving: close the listener and every open connection, join the thread."""
        thread, loop, stopping = self._thread, self._loop, self._stopping
        if thread is None:
            return
        learners.unregister(self.host, self.port)
        if loop is not None and stopping is not None:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(stopping.set)
        thread.join()
        self._thread = None
        self._port = None

    def learn(self, envelope: dict[str, Any], response: Any) -> None:
        """Take ``response``, which a recording replayed from a fixture to the request
        ``envelope`` addressed here, as served here (:mod:`replaygate.http.learners`): a
        later request may go on from the conversation it made, as it may on the real API.
        It is learned in the server's own thread, between the requests it serves."""
        loop, stopping = self._loop, self._stopping
        if loop is None or stopping is None or stopping.is_set():
            return
        method, path = str(envelope.get("method", "")), str(envelope.get("path", ""))
        learned: concurrent.futures.Future[None] = concurrent.futures.Future()

        def learn_here() -> None:
            try:
                self.app.learn(method, path, envelope.get("body"), response)
            except Exception:  # a replayed answer it cannot read: the next request says so
                log.exception("the simulator could not learn a replayed answer")
            learned.set_result(None)

        try:
            loop.call_soon_threadsafe(learn_here)
        except RuntimeError:  # its loop closed meanwhile
            return
        try:
            learned.result(timeout=LEARN_TIMEOUT)
        except concurrent.futures.TimeoutError:
            log.warning(
                "the simulator did not learn a replayed answer to %s %s within %s s: a "
                "later request going on from it is refused",
                method,
                path,
                LEARN_TIMEOUT,
            )

    def __enter__(self) -> Simulator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- event loop -----------------------------------------------------------------

    def _run(self) -> None:
        try:
            with asyncio.Runner(loop_factory=_steady_loop) as runner:
                runner.run(self._main())
        except BaseException as err:  # reported to start() when it happens before ready
            if not self._ready.is_set():
                self._error = err
        finally:
            self._ready.set()

    async def _main(self) -> None:
        loop = self._loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        transports = self._transports

        def protocol() -> asyncio.StreamReaderProtocol:
            reader = asyncio.StreamReader(loop=loop)
            return _TrackedProtocol(reader, self._serve_connection, transports)

        server = await _listen(loop, protocol, self.host, self._requested_port)
        _wake_once(server)
        self._port = int(server.sockets[0].getsockname()[1])
        self._ready.set()
        try:
            await self._stopping.wait()
        finally:
            server.close()
            # From Python 3.12 wait_closed waits for every connection, and one accepted as
            # the server closed is made after the first round ended those there were: a
            # client holding it open held stop() for ever. Each round ends those made since.
            closed = asyncio.ensure_future(server.wait_closed())
            while True:
                for transport in list(transports):
                    _end(transport)
                for task in list(self._connections):
                    task.cancel()
                await asyncio.gather(*self._connections, return_exceptions=True)
                if (await asyncio.wait({closed}, timeout=_CLOSE_ROUND))[0]:
                    break

    async def _serve_connection(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        conn = h11.Connection(h11.SERVER)
        try:
            while await self._serve_one(conn, reader, writer):
                conn.start_next_cycle()
        except (ConnectionError, asyncio.CancelledError, h11.ProtocolError):
            pass
        except Exception:
            log.exception("simulator connection failed")
        finally:
            self._connections.discard(task)
            writer.close()
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await writer.wait_closed()

    async def _serve_one(
        self, conn: h11.Connection, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        """Serve one request; whether the connection may carry another.

        An idle connection waits for its next request as long as the client likes; a
        request begun must arrive whole within :data:`REQUEST_TIMEOUT` seconds.
        """
        try:
            if not conn.trailing_data[0]:
                conn.receive_data(await reader.read(_READ_SIZE))
            async with asyncio.timeout(REQUEST_TIMEOUT):
                request = await _next_event(conn, reader)
                if not isinstance(request, h11.Request):
                    return False
                if request.http_version not in (b"1.0", b"1.1"):
                    version = request.http_version.decode("ascii")
                    raise h11.RemoteProtocolError(f"HTTP/{version}", error_status_hint=505)
                headers = _headers_of(request)
                body = bytearray()
                too_large = int(headers.get("content-length", "0")) > MAX_BODY
                if conn.they_are_waiting_for_100_continue and not too_large:
                    continuing = h11.InformationalResponse(
                        status_code=100, headers=[], reason=_reason(100)
                    )
                    writer.write(conn.send(continuing))
                while not too_large:
                    event = await _next_event(conn, reader)
                    if isinstance(event, h11.Data):
                        body += event.data
                        too_large = len(body) > MAX_BODY
                    elif isinstance(event, h11.EndOfMessage):
                        break
                    else:
                        return False
        except (h11.RemoteProtocolError, TimeoutError) as err:
            if conn.our_state in (h11.IDLE, h11.SEND_RESPONSE):
                await _refuse(conn, reader, writer, _not_http(err))
            return False
        method = bytes(request.method).decode("ascii")
        path = bytes(request.target).decode("latin-1")
        data = b"" if too_large else bytes(body)
        with self._lock:
            received = None if too_large else _json_or_none(data)
            self._requests.append(ReceivedRequest(path, headers, received))
        if too_large:
            await _refuse(conn, reader, writer, self.app.too_large(method, path, headers))
            return False
        reply = self.app.handle(method, path, headers, data)
        if reply.refused or reply.unserved:
            with self._lock:
                self._refused += reply.refused
                self._unserved += reply.unserved
        if method == "HEAD":
            reply = dataclasses.replace(reply, body=b"")
        complete = await _send(conn, writer, reply)
        return complete and conn.our_state is h11.DONE and conn.their_state is h11.DONE


async def _listen(
    loop: asyncio.AbstractEventLoop,
    protocol: Callable[[], asyncio.BaseProtocol],
    host: str,
    port: int,
) -> asyncio.Server:
    """A server listening on ``port`` of every address ``host`` resolves to. Port 0 is one
    free port for all of them: ``localhost`` resolved to ``::1`` and ``127.0.0.1``, each
    bound to a port of its own, left a client that tried the other address (Node's first
    choice) refused at the URL printed."""
    server = await loop.create_server(protocol, host, port, start_serving=False)
    ports = {sock.getsockname()[1] for sock in server.sockets}
    if len(ports) == 1:
        await server.start_serving()
        return server
    chosen = int(server.sockets[0].getsockname()[1])
    server.close()
    await server.wait_closed()
    return await loop.create_server(protocol, host, chosen)


class _TrackedProtocol(asyncio.StreamReaderProtocol):
    """A stream protocol that keeps its transport in a set while connected."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        handler: Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]],
        transports: set[asyncio.BaseTransport],
    ) -> None:
        super().__init__(reader, handler)
        self._tracked = transports
        self._transport: asyncio.BaseTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport
        self._tracked.add(transport)
        super().connection_made(transport)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._transport is not None:
            self._tracked.discard(self._transport)
        super().connection_lost(exc)


def _wake_once(server: asyncio.Server) -> None:
    """Let ``server`` wake those waiting for it to close once. A connection accepted as it
    closed is made, ended or collected after it woke them, and wakes them again: asyncio
    printed "'NoneType' object is not iterable" (CPython gh-109564), from Python 3.13 once
    for each such connection, a transport its closed server refused to attach."""
    wakeup = server._wakeup  # type: ignore[attr-defined]

    def wake() -> None:
        if server._waiters is not None:  # type: ignore[attr-defined]
            wakeup()

    server._wakeup = wake  # type: ignore[attr-defined]


def _end(transport: asyncio.BaseTransport) -> None:
    """End a connection as the server stops: at once when the client has not read all that
    was written to it (a stream it stopped reading), whose close would wait for it for
    ever; otherwise closed, after what it was sent."""
    if isinstance(transport, asyncio.WriteTransport) and transport.get_write_buffer_size():
        transport.abort()
    else:
        transport.close()


async def _next_event(
    conn: h11.Connection, reader: asyncio.StreamReader
) -> h11.Event | type[h11.NEED_DATA] | type[h11.PAUSED]:
    while True:
        event = conn.next_event()
        if event is not h11.NEED_DATA:
            return event
        conn.receive_data(await reader.read(_READ_SIZE))


def _not_http(err: h11.RemoteProtocolError | TimeoutError) -> Reply:
    """The plain-text answer to bytes that are not an HTTP/1.1 request, or not all of one
    in time: h11's reason (without the bytes it quotes, which it shows as Python would)."""
    if isinstance(err, TimeoutError):
        status, reason = 408, f"the request did not arrive whole within {REQUEST_TIMEOUT:g} s"
    else:
        status, reason = err.error_status_hint, str(err).partition(": bytearray(")[0]
    text = f"{status} {_reason(status).decode()}: {reason}\n".encode()
    return Reply(status, (("content-type", "text/plain; charset=utf-8"),), text)


async def _refuse(
    conn: h11.Connection, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, reply: Reply
) -> None:
    """Send ``reply`` and end the connection, first reading (for a second at most) what the
    client still sends: closing with it unread would reset the connection, and the client
    could lose the reply."""
    await _send(conn, writer, dataclasses.replace(reply, headers=(*reply.headers, _CLOSE)))
    with contextlib.suppress(OSError):  # the client went away (ENOTCONN): nothing to end
        writer.write_eof()
    with contextlib.suppress(TimeoutError, ConnectionError):
        async with asyncio.timeout(_LINGER):
            while await reader.read(_READ_SIZE):
                pass


def _steady_loop() -> asyncio.AbstractEventLoop:
    """The simulator's event loop, timed by a clock a test's frozen one does not stop
    (freezegun stops ``time.monotonic``, which asyncio's loops read): a slow reply's pause
    and its other waits end while the code under test runs at a frozen time."""
    loop = asyncio.new_event_loop()
    loop.time = steady_seconds  # type: ignore[method-assign]
    return loop


async def _send(conn: h11.Connection, writer: asyncio.StreamWriter, reply: Reply) -> bool:
    """Write ``reply``; ``False`` when the connection was cut on purpose."""
    if reply.delay > 0:
        await asyncio.sleep(reply.delay)
    headers = list(reply.headers)
    if reply.events is None:
        headers.append(("content-length", str(len(reply.body))))
    response = h11.Response(status_code=reply.status, headers=headers, reason=_reason(reply.status))
    data = conn.send(response)
    if reply.events is None:
        if reply.body:
            data += conn.send(h11.Data(data=reply.body))
        writer.write(data + conn.send(h11.EndOfMessage()))
        await writer.drain()
        return True
    events = reply.events if reply.cut_after is None else reply.events[: reply.cut_after]
    parts = [data, *(conn.send(h11.Data(data=event.encode())) for event in events)]
    if reply.cut_after is not None:
        writer.write(b"".join(parts))
        await writer.drain()
        return False
    parts.append(conn.send(h11.EndOfMessage()))
    writer.write(b"".join(parts))
    await writer.drain()
    return True
