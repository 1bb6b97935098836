"""The byte streams handed to the client: a replayed body, and a live body being recorded.

Both are library-neutral mixins; each adapter binds them to its library by a
subclass that sets ``library``, where the stream's errors are found by name
(:class:`StreamErrors`): for ``httpx``/``httpx2`` the module itself, and the subclass
also derives from the library's ``SyncByteStream`` and ``AsyncByteStream``;
``aiohttp`` and ``requests`` read them through their own response objects.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol

from replaygate.errors import FixtureMismatchError, shell_path, shown_file
from replaygate.fixtures.mismatch import RECORDED_FROM_SIMULATOR
from replaygate.fixtures.modes import RERECORD_FLAGS
from replaygate.http.aws_events import AWSEventParser, answers_aws_stream
from replaygate.http.envelope import HeadersLike
from replaygate.http.exchange import checkpoint
from replaygate.http.passthrough import passthrough
from replaygate.http.recorded import READ_ON, Replayed
from replaygate.http.recording import Recording
from replaygate.http.sse import SSEEvent, parse_events
from replaygate.jsondoc import syntax_error

MCP_SSE_TRANSPORT = (
    "It is an MCP server's SSE transport (its first event, `endpoint`, names where the "
    "client posts), which answers each post on this stream as it comes, while the client "
    "keeps the stream open: a replay hands over a stream's events at once, so no recording "
    "of it replays, recorded anew or not. Connect to the server over streamable HTTP "
    "instead (mcp's streamable_http_client, the OpenAI Agents SDK's MCPServerStreamableHttp, "
    "pydantic-ai's MCPToolset given its /mcp URL), which answers each post on its own."
)
"""What the error of a replayed MCP SSE transport's stream read past its recorded end
says, in place of recording it anew."""


class StreamErrors(Protocol):
    """Where a library's stream errors are found: its base transport error, the error of a
    cut stream, that of a body its content coding does not decode, and any other by its
    class name."""

    @property
    def TransportError(self) -> type[BaseException]: ...

    @property
    def RemoteProtocolError(self) -> type[BaseException]: ...

    @property
    def DecodingError(self) -> type[BaseException]: ...


def body_errors(library: StreamErrors) -> tuple[type[BaseException], ...]:
    """The errors that end a body before its end: the connection's, or its decoding's (a
    gzip body whose compression is broken)."""
    return (library.TransportError, library.DecodingError)


class LiveBody(Protocol):
    """A live response body as decoded bytes (sync or async: an adapter of a library with
    one of the two provides that half)."""

    def iter_bytes(self) -> Iterator[bytes]: ...

    def aiter_bytes(self) -> AsyncIterator[bytes]: ...

    def close(self) -> None: ...

    async def aclose(self) -> None: ...


class LiveResponse(LiveBody, Protocol):
    """The parts of a live ``httpx``/``httpx2`` response the recorder uses."""

    @property
    def status_code(self) -> int: ...

    @property
    def headers(self) -> HeadersLike: ...

    @property
    def extensions(self) -> Any: ...


class ReplayByteStream:
    """A replayed body: its chunks, then the recorded end (a cut raises again).

    Bound to a library by a subclass that sets :attr:`library`.
    """

    library: StreamErrors

    def __init__(self, replayed: Replayed) -> None:
        self._replayed = replayed

    def __iter__(self) -> Iterator[bytes]:
        yield from self._replayed.chunks
        if self._replayed.end != "complete":
            raise self._end_error()

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self._replayed.chunks:
            yield chunk
        if self._replayed.end == "closed":
            await _stall()
        if self._replayed.end != "complete":
            raise self._end_error()

    def close(self) -> None:
        """Nothing to release; an event the client failed to read is named
        (:meth:`_unread`)."""
        self._unread(sys.exception())

    async def aclose(self) -> None:
        """As :meth:`close`."""
        self._unread(sys.exception())

    def _unread(self, error: BaseException | None) -> None:
        """Name the replayed event whose data the client failed to read as JSON, on
        ``error``, its ``JSONDecodeError`` on its way as the stream is closed (the SDKs
        close the response as their ``json.loads`` of an event fails): a note, so the
        error stays the one the live API's stream gave where it was recorded so, and a
        hand edit that broke an escape is found by its fixture's file and line. Nothing
        is read unless that is so."""
        if not isinstance(error, json.JSONDecodeError) or self._replayed.at is None:
            return
        events = _events_of(self._replayed) if self._replayed.streamed else []
        for i, event in enumerate(events):
            if event.data == error.doc:
                at = self._replayed.at
                verify = f"replaygate verify {shell_path(shown_file(str(at.file)))}"
                error.add_note(
                    f"replayed from {at}: response.events[{i}].data is not JSON "
                    f"({syntax_error(error, line=False)}); an edit of the fixture may have "
                    f"broken its escaping (`{verify}` checks it)"
                )
                return

    def _end_error(self) -> BaseException:
        count = self._replayed.events
        key = self._replayed.key
        if self._replayed.end == "closed":
            late = None if self._replayed.read_on is None else self._replayed.read_on()
            if late is not None:  # read on by what a test left behind: no re-record helps
                return passthrough(late)
            message = (
                f"fixture {key} of {self._replayed.store}: the client closed this stream "
                f"after {count} event(s) while it was recorded, and this run reads further. "
                f"{MCP_SSE_TRANSPORT if self._mcp_sse() else self._rerecord()}"
            )
            error = passthrough(
                FixtureMismatchError(message, key=key, kind="other", record_mode="rerecord")
            )
            if self._replayed.raised is not None:
                self._replayed.raised(error)
            return error
        name, message = self._replayed.error or ("RemoteProtocolError", "")
        cls = getattr(self.library, name, None)
        if not (isinstance(cls, type) and issubclass(cls, body_errors(self.library))):
            cls = self.library.RemoteProtocolError
        live = message or f"stream cut after {count} event(s)"
        return cls(
            f"{live}: this replays a cut recorded in fixture {key} of {self._replayed.store} "
            f"(the stream broke off after {count} event(s) while it was recorded), not a "
            f"network failure now. {self._rerecord(' to record it whole')}"
        )

    def _mcp_sse(self) -> bool:
        """Whether this is the stream of an MCP server's SSE transport: its first event is
        ``endpoint``, naming where the client posts its messages."""
        if not self._replayed.streamed:
            return False
        events = _events_of(self._replayed)
        return bool(events) and events[0].event == "endpoint"

    def _rerecord(self, purpose: str = "") -> str:
        """How to record this fixture anew (``purpose``: what for), as a replay error
        says it."""
        told = f"Re-record it ({self._replayed.rerecord or RERECORD_FLAGS}){purpose}."
        if self._replayed.from_simulator:
            how = self._replayed.from_simulator
            told += f" {RECORDED_FROM_SIMULATOR.format(which='It', how=how)}"
        return told


STALL_TURNS = 50
"""Turns of the event loop a replayed stream the client closed while it was recorded
waits at its recorded end before it fails, as the live stream had sent nothing more."""


async def _stall() -> None:
    """Let the other tasks run, :data:`STALL_TURNS` times, at the end of a replayed stream
    its client closed while it was recorded. A replay hands every recorded event over at
    once, so a task reading the stream (the OpenAI Agents SDK's run of ``run_streamed``)
    reaches the recorded close before the task consuming its events (``cancel()`` after
    the first words) had its turn, where the live stream had kept it waiting: the
    consumer's cancellation or close, as recorded, comes here, and a reader that goes on
    past it fails as before."""
    for _ in range(STALL_TURNS):
        await checkpoint()


def _events_of(replayed: Replayed) -> list[SSEEvent]:
    """The events of a replayed stream's body, read as its content type says (server-sent
    events, or an AWS event stream's messages)."""
    if answers_aws_stream(replayed.headers):
        return list(AWSEventParser().feed(replayed.body))
    return parse_events(replayed.body)


class TeeByteStream:
    """A live body handed to the client while a :class:`Recording` keeps a copy.

    Bound to a library like :class:`ReplayByteStream`. A body closed before its end
    is drained and recorded whole when it is not an event stream (an SDK closes a
    retried error response unread); an event stream is recorded up to where the
    client stopped. ``on_close`` runs once the live response is closed (a client-level
    response takes its ``elapsed`` then). A recording refused as its reader is dropped
    (a ``break`` out of ``iter_lines()``, where Python closes the iterators and no error
    reaches the caller) is kept by the session and raised when the response is closed
    (:class:`~replaygate.http.transport.RecordedResponse`), not by this stream.
    """

    library: StreamErrors

    def __init__(
        self, live: LiveBody, recording: Recording, on_close: Callable[[], None] | None = None
    ) -> None:
        self._live = live
        self._recording = recording
        self._on_close = on_close
        self._ends = body_errors(self.library)
        """The errors that end the body, read now: a stream a module global holds is
        closed as the interpreter exits, when the library's module may be emptied."""
        self._sync: Iterator[bytes] | None = None
        self._async: AsyncIterator[bytes] | None = None

    def _chunks(self) -> Iterator[bytes]:
        if self._sync is None:
            self._sync = self._live.iter_bytes()
        return self._sync

    def _achunks(self) -> AsyncIterator[bytes]:
        if self._async is None:
            self._async = self._live.aiter_bytes()
        return self._async

    @contextmanager
    def _recorded(self) -> Iterator[None]:
        """Finish the recording when the body ends: ``complete``, or ``cut`` by an error;
        an event stream whose reader is closed, dropped unclosed or cancelled is ``closed``
        where its reader stopped. A body that is no stream, left by its reader (a
        ``break``), is drained as it is closed; one whose live read was stopped (its task
        cancelled, an interrupt) cannot be, and is not recorded (:meth:`Recording.stopped`)."""
        __tracebackhide__ = True
        try:
            yield
        except self._ends as err:
            self._recording.finish("cut", err)
            raise
        except GeneratorExit:
            if self._recording.stream:
                with self._recording.exchange.keeping_refusal():
                    self._recording.finish("closed")
            raise
        except BaseException as err:
            if not self._recording.stream:
                self._recording.stopped(err)
            elif isinstance(err, asyncio.CancelledError):
                with self._recording.exchange.keeping_refusal():
                    self._recording.finish("closed")
            raise
        self._recording.finish("complete")

    @contextmanager
    def _drained(self) -> Iterator[None]:
        """While a body the client closes unread is drained to be recorded: one cut
        meanwhile is not recorded (as one cut while read), and the client, which asked for
        none of it, gets no error, as it would live, where closing it reads nothing; one
        whose drain is stopped (its task cancelled, an interrupt) is not recorded either
        (:meth:`Recording.stopped`), and the client gets that stop."""
        __tracebackhide__ = True
        try:
            yield
        except self._ends as err:
            self._recording.finish("cut", err)
        except BaseException as err:
            self._recording.stopped(err)
            raise

    def __iter__(self) -> Iterator[bytes]:
        __tracebackhide__ = True
        with self._recorded():
            for chunk in self._chunks():
                self._past_end()
                self._recording.feed(chunk)
                yield chunk

    async def __aiter__(self) -> AsyncIterator[bytes]:
        __tracebackhide__ = True
        with self._recorded():
            async for chunk in self._achunks():
                self._past_end()
                self._recording.feed(chunk)
                yield chunk

    def _past_end(self) -> None:
        """Refuse a chunk of a stream recorded as closed where its reader stopped as its
        session ended (a pytest test's, read further by a task the test left running):
        its replay ends there, so a recording that read on would replay otherwise."""
        recording = self._recording
        after_end = recording.exchange.after_end
        if recording.done and recording.stream and after_end is not None:
            raise passthrough(after_end(recording.slot.request, READ_ON))

    def close(self) -> None:
        """Record what is still unrecorded, then close the live response."""
        __tracebackhide__ = True
        recording = self._recording
        try:
            if not recording.done and not recording.stream:
                with self._drained():
                    for chunk in self._chunks():
                        recording.feed(chunk)
            recording.finish("complete" if not recording.stream else "closed")
        finally:
            self._live.close()
            self._closed()

    async def aclose(self) -> None:
        """Record what is still unrecorded, then close the live response."""
        __tracebackhide__ = True
        recording = self._recording
        try:
            if not recording.done and not recording.stream:
                with self._drained():
                    async for chunk in self._achunks():
                        recording.feed(chunk)
            recording.finish("complete" if not recording.stream else "closed")
        finally:
            await self._live.aclose()
            self._closed()

    def _closed(self) -> None:
        if self._on_close is not None:
            self._on_close()
