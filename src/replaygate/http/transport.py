"""The record/replay steps written once for any ``httpx``-shaped library.

:class:`Library` binds the session logic (:class:`~replaygate.http.exchange.Exchange`)
to one HTTP library's types: it answers a request from the store with that library's
response, or sends it live and hands back a response whose body is recorded as the
client reads it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from types import ModuleType
from typing import Any, AnyStr, Generic, Protocol, TypeVar

from replaygate.http.envelope import RequestLike
from replaygate.http.exchange import Exchange, LiveSlot
from replaygate.http.recorded import Replayed, encoded, header_text, is_event_stream
from replaygate.http.recording import Recording
from replaygate.http.streams import LiveResponse, ReplayByteStream, TeeByteStream

RespT = TypeVar("RespT")
ReqT = TypeVar("ReqT", bound="ReadableRequest")

DROPPED_LIVE_HEADERS = frozenset({"content-encoding", "transfer-encoding"})
"""Live response headers the client is not given: it is handed the body decoded."""


def handed_headers(headers: Iterable[tuple[AnyStr, AnyStr]]) -> list[tuple[AnyStr, AnyStr]]:
    """The headers of a live response whose body the client gets decoded: without
    :data:`DROPPED_LIVE_HEADERS`, and without ``content-length`` when the body was
    encoded (its decoded length differs), so a plain body's length is still there. Given
    as bytes (``httpx``'s ``raw``), they are handed over as they came, a value that is not
    ASCII included (as text, ``httpx`` refuses one)."""
    pairs = list(headers)
    dropped = DROPPED_LIVE_HEADERS | {"content-length"} if encoded(pairs) else DROPPED_LIVE_HEADERS
    return [(k, v) for k, v in pairs if header_text(k).lower() not in dropped]


class ReadableRequest(RequestLike, Protocol):
    """An ``httpx``/``httpx2`` request whose body can be read."""

    def read(self) -> bytes: ...

    async def aread(self) -> bytes: ...


class RecordedResponse:
    """Mixin of a library's response whose live body is recorded by ``exchange``: closing
    it raises a refusal its session kept
    (:meth:`~replaygate.http.exchange.Exchange.raise_kept`), also when the library closed
    it already (``httpx2`` does as a dropped ``iter_raw`` ends, where no error reaches the
    caller), so the ``with client.stream(...)`` around a ``break`` out of ``iter_lines()``
    raises it."""

    def __init__(self, *args: Any, exchange: Exchange, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.exchange = exchange

    def close(self) -> None:
        """Close the response, then raise a refusal its session kept."""
        super().close()  # type: ignore[misc]
        self.exchange.raise_kept()

    async def aclose(self) -> None:
        """Close the response, then raise a refusal its session kept."""
        await super().aclose()  # type: ignore[misc]
        self.exchange.raise_kept()


class Library(Generic[RespT]):
    """One HTTP library's types, and the record/replay steps written with them:
    ``response`` the library's response, ``tee_response`` it with
    :class:`RecordedResponse` (made with the ``exchange`` that records it)."""

    def __init__(
        self,
        module: ModuleType,
        response: Callable[..., RespT],
        replay_stream: type[ReplayByteStream],
        tee_stream: type[TeeByteStream],
        tee_response: Callable[..., RespT],
    ) -> None:
        self.module = module
        self.response = response
        self.replay_stream = replay_stream
        self.tee_stream = tee_stream
        self.tee_response = tee_response

    def replay(self, answer: Replayed) -> RespT:
        """The library response replaying ``answer``, its body unread as a live one's: the
        client reads it as it reads a live body, so ``elapsed`` and the bytes downloaded
        are set as on a live response."""
        return self.response(
            answer.status, headers=answer.headers, stream=self.replay_stream(answer)
        )

    def tee(
        self,
        exchange: Exchange,
        slot: LiveSlot,
        live: LiveResponse,
        on_close: Callable[[], None] | None = None,
        owner: object | None = None,
    ) -> RespT:
        """The library response that hands ``live``'s body over while recording it;
        ``on_close`` runs when ``live`` is closed; ``owner`` is the transport handing it."""
        recording = self.recording(exchange, slot, live, owner)
        return self.tee_response(
            live.status_code,
            headers=handed_headers(live.headers.raw),
            stream=self.tee_stream(live, recording, on_close),
            extensions=live.extensions,
            exchange=exchange,
        )

    def recording(
        self, exchange: Exchange, slot: LiveSlot, live: LiveResponse, owner: object | None = None
    ) -> Recording:
        """A :class:`Recording` of ``live``'s body, written to the store when it ends; the
        codings the library undoes are its decoders' (``_decoders.SUPPORTED_DECODERS``:
        ``br`` and ``zstd`` only where their packages are installed)."""
        headers = live.headers.multi_items()
        decoders = getattr(getattr(self.module, "_decoders", None), "SUPPORTED_DECODERS", None)
        stream = is_event_stream(headers)
        return Recording(exchange, slot, live.status_code, headers, stream, decoders, owner)

    def handle(
        self,
        exchange: Exchange,
        request: ReqT,
        send: Callable[[ReqT], LiveResponse] | None,
        owner: object | None = None,
    ) -> RespT:
        """Answer ``request`` from the store, or send it with ``send`` and record it (its
        response handed by transport ``owner``: :meth:`tee`)."""
        __tracebackhide__ = True
        request.read()
        plan = exchange.plan(request)
        if isinstance(plan, Replayed):
            return self.replay(plan)
        if send is None:
            raise RuntimeError("a recording session needs a live transport")
        with exchange.sending(plan):
            live = send(request)
        return self.tee(exchange, plan, live, owner=owner)

    async def handle_async(
        self,
        exchange: Exchange,
        request: ReqT,
        send: Callable[[ReqT], Awaitable[LiveResponse]] | None,
        owner: object | None = None,
    ) -> RespT:
        """The async form of :meth:`handle`."""
        __tracebackhide__ = True
        await request.aread()
        plan = await exchange.aplan(request)
        if isinstance(plan, Replayed):
            return self.replay(plan)
        if send is None:
            raise RuntimeError("a recording session needs a live transport")
        with exchange.sending(plan):
            live = await send(request)
        return self.tee(exchange, plan, live, owner=owner)
