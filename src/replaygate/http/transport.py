"""The record/replay core shared by the ``httpx`` and ``httpx2`` adapters.

:class:`Exchange` holds one session's state (store, mode, approval, how many times
each request was sent) and decides, for each request, between a recorded answer
and a live call. :class:`Library` binds the core to one HTTP library's types: it
turns a :class:`~replaygate.http.recorded.Replayed` into that library's response,
and wraps a live response so its body is recorded as the client reads it.

Repeated sends of the same request (an SDK retrying a 429, a loop asking twice)
are answered by the fixture's ``responses`` in order, one per send within the
session; once they are used up, the last one repeats. HTTP fixtures use the
``responses`` list for this, not for sample indexes.
"""

from __future__ import annotations

import os
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Generic, Protocol, TypeVar

from replaygate import __version__
from replaygate.errors import (
    FixtureFormatError,
    FixtureMismatchError,
    LiveCallNotApproved,
    WireFormatError,
)
from replaygate.fingerprint import canonical_json, key_of_canonical
from replaygate.fixture import Fixture, now_iso
from replaygate.http.envelope import HeadersLike, RequestLike, interface_of, request_envelope
from replaygate.http.passthrough import passthrough
from replaygate.http.recorded import (
    Replayed,
    StreamEnd,
    is_event_stream,
    plain_response,
    replayed,
    stream_response,
)
from replaygate.http.usage import note_use
from replaygate.mismatch import mismatch_error
from replaygate.replay import MODES, RECORDING_MODES
from replaygate.sse import SSEEvent, SSEParser
from replaygate.store import FixtureStore, Location, record_response

RespT = TypeVar("RespT")
ReqT = TypeVar("ReqT", bound="ReadableRequest")
LiveT = TypeVar("LiveT", bound="LiveResponse")

TERMINAL_EVENTS = frozenset({"message_stop", "error"})
"""Event names after which nothing more is sent (with OpenAI's ``[DONE]`` data)."""

_DROPPED_LIVE_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding"})

StoreArg = FixtureStore | str | os.PathLike[str]


class ReadableRequest(RequestLike, Protocol):
    """An ``httpx``/``httpx2`` request whose body can be read."""

    def read(self) -> bytes: ...

    async def aread(self) -> bytes: ...


class LiveResponse(Protocol):
    """The parts of a live ``httpx``/``httpx2`` response the recorder uses."""

    @property
    def status_code(self) -> int: ...

    @property
    def headers(self) -> HeadersLike: ...

    @property
    def extensions(self) -> Any: ...

    def iter_bytes(self) -> Iterator[bytes]: ...

    def aiter_bytes(self) -> AsyncIterator[bytes]: ...

    def close(self) -> None: ...

    async def aclose(self) -> None: ...


def open_store(store: StoreArg) -> FixtureStore:
    """``store`` itself, or the store at that path."""
    return store if isinstance(store, FixtureStore) else FixtureStore.open(store)


def check_mode(mode: str, approve_live: bool) -> None:
    """Refuse an unknown mode, and a recording mode without approval (law 3)."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    if mode in RECORDING_MODES and approve_live is not True:
        raise LiveCallNotApproved(
            f"mode {mode!r} makes live HTTP calls and needs an explicit approval for this run: "
            "pass approve_live=True (pytest: --approve-live). Nothing was sent."
        )


@dataclass(frozen=True, slots=True)
class LiveSlot:
    """A request that goes live and is recorded: its envelope and canonical text."""

    envelope: dict[str, Any]
    canonical: str


@dataclass
class _Hit:
    location: Location
    fixture: Fixture
    replays: list[Replayed | None]


class Exchange:
    """One record/replay session over a store: the decisions, the counters, the writes.

    ``mode`` is ``replay`` (never live; a miss raises
    :class:`~replaygate.errors.FixtureMismatchError`), ``record-missing`` (replay
    what is recorded, record the rest) or ``rerecord`` (record everything anew);
    the recording modes need ``approve_live=True``. ``match_host`` adds the host to
    the envelope. ``source`` (``live`` by default, ``sim`` for a simulator) and
    ``interface`` (for paths that name none) go into the fixture ``meta``.
    ``lookups``, ``replays`` and ``recordings`` count what happened.
    """

    def __init__(
        self,
        store: StoreArg,
        *,
        mode: str = "replay",
        approve_live: bool = False,
        match_host: bool = False,
        source: str | None = None,
        interface: str | None = None,
        note: str | None = None,
    ) -> None:
        check_mode(mode, approve_live)
        self.store = open_store(store)
        self.mode = mode
        self.match_host = match_host
        self.source = source or "live"
        self.interface = interface
        self.note = note
        self.lookups = 0
        self.replays = 0
        self.recordings = 0
        self._lock = threading.Lock()
        self._sent: dict[str, int] = {}
        self._written: dict[str, int] = {}
        self._live: set[str] = set()
        self._hits: dict[str, _Hit] = {}

    @classmethod
    def of(cls, store: StoreArg | Exchange, **settings: Any) -> Exchange:
        """``store`` itself when it is an exchange, else a new one with ``settings``."""
        return store if isinstance(store, Exchange) else cls(store, **settings)

    @property
    def recording(self) -> bool:
        """Whether this session may make live calls."""
        return self.mode in RECORDING_MODES

    # -- deciding ----------------------------------------------------------------------

    def plan(self, request: RequestLike) -> Replayed | LiveSlot:
        """The recorded answer to ``request``, or the slot of a live call to record."""
        envelope = request_envelope(request, match_host=self.match_host)
        canonical = canonical_json(envelope)
        with self._lock:
            sent = self._sent.get(canonical, 0)
            self._sent[canonical] = sent + 1
            live = self.mode == "rerecord" or canonical in self._live
        if live:
            return LiveSlot(envelope, canonical)
        hit = self._find(envelope, canonical)
        if hit is None and self.recording:
            self.store.refresh()
            hit = self._find(envelope, canonical)
            if hit is None:
                with self._lock:
                    self._live.add(canonical)
                return LiveSlot(envelope, canonical)
        if hit is None:
            key = key_of_canonical(canonical)
            raise passthrough(mismatch_error(self.store, envelope, key, what="HTTP request"))
        return self._replay(hit, sent)

    def _find(self, envelope: dict[str, Any], canonical: str) -> _Hit | None:
        hit = self._hits.get(canonical)
        if hit is not None:
            return hit
        self.lookups += 1
        found = self.store.find(envelope, canonical)
        if found is None:
            return None
        location, fixture = found
        hit = _Hit(location, fixture, [None] * fixture.samples)
        self._hits[canonical] = hit
        return hit

    def _replay(self, hit: _Hit, sent: int) -> Replayed:
        index = min(sent, len(hit.replays) - 1)
        ready = hit.replays[index]
        if ready is None:
            try:
                ready = replayed(hit.fixture.responses[index], key=hit.fixture.key)
            except WireFormatError as err:
                where = hit.location
                raise passthrough(
                    FixtureFormatError(str(where.file), where.line, f"not an HTTP fixture: {err}")
                ) from None
            hit.replays[index] = ready
        self.replays += 1
        note_use(self.store, hit.fixture.key)
        return ready

    # -- recording ---------------------------------------------------------------------

    def meta(self, envelope: dict[str, Any]) -> dict[str, Any]:
        """The ``meta`` of a fixture recorded now for ``envelope``."""
        interface = interface_of(str(envelope.get("path", "")))
        meta: dict[str, Any] = {
            "interface": self.interface if interface == "http" and self.interface else interface,
            "recorded_at": now_iso(),
            "source": self.source,
            "replaygate_version": __version__,
        }
        if self.note:
            meta["note"] = self.note
        return meta

    def record(self, slot: LiveSlot, response: dict[str, Any]) -> Fixture:
        """Store ``response`` as the next answer to ``slot`` in this session."""
        with self._lock:
            index = self._written.get(slot.canonical, 0)
            self._written[slot.canonical] = index + 1
        meta = self.meta(slot.envelope)
        store = self.store
        try:
            if index == 0 and self.mode == "rerecord":
                fixture = Fixture.create(slot.envelope, [response], meta)
                store.put(fixture, replace=True)
            else:
                with store.lock():
                    store.refresh()
                    found = store.find(slot.envelope, slot.canonical)
                    sample = min(index, found[1].samples if found else 0)
                    fixture = record_response(
                        store, slot.envelope, response, sample=sample, meta=meta
                    )
        except Exception as err:
            raise passthrough(err) from None
        self.recordings += 1
        note_use(store, fixture.key)
        return fixture

    def recording_for(self, slot: LiveSlot, live: LiveResponse) -> Recording:
        """A :class:`Recording` of ``live``'s body, written to the store when it ends."""
        headers = live.headers.multi_items()
        return Recording(self, slot, live.status_code, headers, is_event_stream(headers))


class Recording:
    """A live response body being recorded as it is read; written once, when it ends."""

    def __init__(
        self,
        exchange: Exchange,
        slot: LiveSlot,
        status: int,
        headers: list[tuple[str, str]],
        stream: bool,
    ) -> None:
        self.exchange = exchange
        self.slot = slot
        self.status = status
        self.headers = headers
        self.stream = stream
        self.done = False
        self._parser = SSEParser()
        self._events: list[SSEEvent] = []
        self._body: list[bytes] = []

    def feed(self, chunk: bytes) -> None:
        """Take the next decoded body bytes."""
        if self.stream:
            self._events.extend(self._parser.feed(chunk))
        else:
            self._body.append(chunk)

    @property
    def terminal(self) -> bool:
        """Whether the last event ends the stream (``message_stop``, ``error``, ``[DONE]``)."""
        if not self._events:
            return False
        last = self._events[-1]
        return last.data == "[DONE]" or last.event in TERMINAL_EVENTS

    def finish(self, end: StreamEnd, error: BaseException | None = None) -> None:
        """Write the fixture (once): the whole body, or the events and how the stream ended."""
        if self.done:
            return
        self.done = True
        if self.stream:
            if end == "closed" and self.terminal:
                end = "complete"
            record = stream_response(self.status, self.headers, self._events, end, error)
        else:
            record = plain_response(self.status, self.headers, b"".join(self._body))
        self.exchange.record(self.slot, record)


class ReplayByteStream:
    """A replayed body: its chunks, then the recorded end (a cut raises again).

    Bound to a library by a subclass that also derives from that library's
    ``SyncByteStream`` and ``AsyncByteStream`` and sets :attr:`library`.
    """

    library: ModuleType

    def __init__(self, replayed: Replayed) -> None:
        self._replayed = replayed

    def __iter__(self) -> Iterator[bytes]:
        yield from self._replayed.chunks
        if self._replayed.end != "complete":
            raise self._end_error()

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self._replayed.chunks:
            yield chunk
        if self._replayed.end != "complete":
            raise self._end_error()

    def close(self) -> None:
        """Nothing to release."""

    async def aclose(self) -> None:
        """Nothing to release."""

    def _end_error(self) -> BaseException:
        count = len(self._replayed.chunks)
        key = self._replayed.key
        if self._replayed.end == "closed":
            return passthrough(
                FixtureMismatchError(
                    f"fixture {key}: the client closed this stream after {count} event(s) "
                    "while it was recorded, and this run reads further. Re-record it "
                    "(--record-mode=rerecord --approve-live).",
                    key=key,
                )
            )
        name, message = self._replayed.error or ("RemoteProtocolError", "")
        base: type[BaseException] = self.library.TransportError
        cls = getattr(self.library, name, None)
        if not (isinstance(cls, type) and issubclass(cls, base)):
            cls = self.library.RemoteProtocolError
        return cls(message or f"stream cut after {count} event(s), as recorded")


class TeeByteStream:
    """A live body handed to the client while a :class:`Recording` keeps a copy.

    Bound to a library like :class:`ReplayByteStream`. A body closed before its end
    is drained and recorded whole when it is not an event stream (an SDK closes a
    retried error response unread); an event stream is recorded up to where the
    client stopped.
    """

    library: ModuleType

    def __init__(self, live: LiveResponse, recording: Recording) -> None:
        self._live = live
        self._recording = recording
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

    def __iter__(self) -> Iterator[bytes]:
        try:
            for chunk in self._chunks():
                self._recording.feed(chunk)
                yield chunk
        except self.library.TransportError as err:
            self._recording.finish("cut", err)
            raise
        self._recording.finish("complete")

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._achunks():
                self._recording.feed(chunk)
                yield chunk
        except self.library.TransportError as err:
            self._recording.finish("cut", err)
            raise
        self._recording.finish("complete")

    def close(self) -> None:
        """Record what is still unrecorded, then close the live response."""
        recording = self._recording
        try:
            if not recording.done and not recording.stream:
                for chunk in self._chunks():
                    recording.feed(chunk)
            recording.finish("complete" if not recording.stream else "closed")
        finally:
            self._live.close()

    async def aclose(self) -> None:
        """Record what is still unrecorded, then close the live response."""
        recording = self._recording
        try:
            if not recording.done and not recording.stream:
                async for chunk in self._achunks():
                    recording.feed(chunk)
            recording.finish("complete" if not recording.stream else "closed")
        finally:
            await self._live.aclose()


class Library(Generic[RespT]):
    """One HTTP library's types, and the record/replay steps written with them."""

    def __init__(
        self,
        module: ModuleType,
        response: Callable[..., RespT],
        replay_stream: type[ReplayByteStream],
        tee_stream: type[TeeByteStream],
    ) -> None:
        self.module = module
        self.response = response
        self.replay_stream = replay_stream
        self.tee_stream = tee_stream

    def replay(self, answer: Replayed) -> RespT:
        """The library response replaying ``answer``."""
        return self.response(
            answer.status, headers=list(answer.headers), stream=self.replay_stream(answer)
        )

    def tee(self, exchange: Exchange, slot: LiveSlot, live: LiveResponse) -> RespT:
        """The library response that hands ``live``'s body over while recording it."""
        headers = [
            (k, v) for k, v in live.headers.multi_items() if k.lower() not in _DROPPED_LIVE_HEADERS
        ]
        return self.response(
            live.status_code,
            headers=headers,
            stream=self.tee_stream(live, exchange.recording_for(slot, live)),
            extensions=live.extensions,
        )

    def handle(
        self, exchange: Exchange, request: ReqT, send: Callable[[ReqT], LiveResponse] | None
    ) -> RespT:
        """Answer ``request`` from the store, or send it with ``send`` and record it."""
        request.read()
        plan = exchange.plan(request)
        if isinstance(plan, Replayed):
            return self.replay(plan)
        if send is None:
            raise RuntimeError("a recording session needs a live transport")
        return self.tee(exchange, plan, send(request))

    async def handle_async(
        self,
        exchange: Exchange,
        request: ReqT,
        send: Callable[[ReqT], Awaitable[LiveResponse]] | None,
    ) -> RespT:
        """The async form of :meth:`handle`."""
        await request.aread()
        plan = exchange.plan(request)
        if isinstance(plan, Replayed):
            return self.replay(plan)
        if send is None:
            raise RuntimeError("a recording session needs a live transport")
        return self.tee(exchange, plan, await send(request))
