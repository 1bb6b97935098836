"""A live response body being recorded as the client reads it."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from replaygate.caller import application_level
from replaygate.errors import (
    CredentialsRefusedError,
    ReplaygateError,
    ResponseLeftOpenWarning,
    WireFormatError,
    exception_chain,
    timed_out,
)
from replaygate.http.aws_events import AWSEventParser, answers_aws_stream
from replaygate.http.envelope import is_model_api
from replaygate.http.failed_sends import failed_send, warn_failed_send
from replaygate.http.passthrough import passthrough
from replaygate.http.recorded import (
    StreamEnd,
    kept_headers,
    plain_response,
    replayed,
    stream_response,
)
from replaygate.http.routes import key_of, refused_credentials
from replaygate.http.sse import BOM, SSEEvent, SSEParser

if TYPE_CHECKING:
    from replaygate.http.exchange import Exchange, LiveSlot, Warn

TERMINAL_EVENTS = frozenset(
    {"message_stop", "error", "response.completed", "response.incomplete", "response.failed"}
)
"""Event names after which nothing more is sent (with OpenAI's ``[DONE]`` data)."""


@dataclass(eq=False)
class Recording:
    """A live response body being recorded as it is read; written once, when it ends.

    ``decoded`` names the content codings the client undoes (None: the body is fed
    decoded whatever its codings); a body left in another is refused
    (:func:`_left_encoded`). ``owner`` is the transport whose client it was handed by
    (closing that client ends it: :meth:`Exchange.finish_open`), or None.
    """

    exchange: Exchange
    slot: LiveSlot
    status: int
    headers: list[tuple[str, str]]
    stream: bool
    decoded: Collection[str] | None = None
    owner: object | None = None
    done: bool = field(default=False, init=False)
    _parser: SSEParser | AWSEventParser = field(default_factory=SSEParser, init=False)
    _events: list[SSEEvent] = field(default_factory=list, init=False)
    _body: list[bytes] = field(default_factory=list, init=False)

    def __post_init__(self) -> None:
        if answers_aws_stream(self.headers):
            self._parser = AWSEventParser()
        self.exchange.opened(self)

    def feed(self, chunk: bytes) -> None:
        """Take the next decoded body bytes (of a stream, kept too until an event is read:
        :meth:`finish` records a body that held none as it came)."""
        __tracebackhide__ = True
        if self.stream:
            if not self._events:
                self._body.append(chunk)
            with self._told(), self._refused(self._parser.WHY):
                self._events.extend(self._parser.feed(chunk))
            if self._events and self._body:
                self._body.clear()
        else:
            self._body.append(chunk)

    @contextmanager
    def _told(self) -> Iterator[None]:
        """A refusal of this response (a secret in it, the API refusing the key, a body no
        fixture can keep) raised to its reader is kept by the session as a replay error is
        (:meth:`Exchange.note_raised`): code that catches it and goes on (a fallback, an
        ``except Exception``) still fails the run, which recorded nothing for it."""
        __tracebackhide__ = True
        try:
            yield
        except ReplaygateError as err:
            self.exchange.note_raised(err)
            raise

    @contextmanager
    def _refused(self, why: str) -> Iterator[None]:
        """A response the recorder refuses is recorded nowhere (this recording is over):
        its :class:`WireFormatError` says ``why``, and that the live answer to its request
        (method and path, one of maybe many sends) was not recorded."""
        try:
            yield
        except WireFormatError as err:
            self._over()
            self.exchange.gave_up(self.slot, answered=True)
            request = self.slot.request
            reason = f"{err.reason}; {why}, so the live answer to {request} was not recorded"
            raise passthrough(WireFormatError(err.path, reason)) from None

    def learn_ids(self) -> None:
        """Tell the session the stable ids of the volatile ids of the events read so far
        (:meth:`~replaygate.fixtures.session.FixtureSession.learn_ids`): a request sent
        while this stream is still open may name them."""
        if self.stream and self._events and not self.done:
            try:
                partial = stream_response(self.status, self.headers, list(self._events), "closed")
            except WireFormatError:  # headers no fixture keeps: the stream is refused as it ends
                return
            exchange = self.exchange
            interface = exchange.interface_for(self.slot.envelope)
            exchange.session.learn_ids(self.slot.envelope, partial, interface, self.slot.place)

    def _json(self) -> Any:
        """The body read so far as JSON (None when it is not JSON): an error's, whose reason
        tells a refused key apart."""
        try:
            return orjson.loads(b"".join(self._body))
        except orjson.JSONDecodeError:
            return None

    @property
    def terminal(self) -> bool:
        """Whether the last event ends the stream (:data:`TERMINAL_EVENTS`, ``[DONE]``)."""
        if not self._events:
            return False
        last = self._events[-1]
        return last.data == "[DONE]" or last.event in TERMINAL_EVENTS

    def finish(self, end: StreamEnd, error: BaseException | None = None) -> None:
        """Write the fixture (once): the whole body, or the events and how the stream ended.
        A stream closed by an interrupt on its way out (Ctrl-C, SIGTERM, ``sys.exit``,
        pytest-timeout's limit while its events were read, a debugger's quit) is not
        written: its reader did not choose to stop, and a recording that does not hold it
        records it whole next time."""
        __tracebackhide__ = True
        if self.done:
            return
        if end == "closed" and (self.exchange.cut_short or _interrupted()):
            self.cut_short()
            return
        with self._told():
            self._write(end, error)

    def cut_short(self) -> None:
        """End a recording whose reader an interrupt stopped (Ctrl-C, pytest-timeout's
        limit) without closing it: nothing is written, not even the part of a stream read,
        which the clock cut where it happened to be, and its send gives its place up."""
        if not self.done:
            self._over()
            self.exchange.gave_up(self.slot, answered=True)

    def _over(self) -> None:
        """Nothing more is recorded of this response (written, refused or left open)."""
        self.done = True
        self.exchange.unfinished.discard(self)

    def left_open(self, warn: Warn | None = None) -> None:
        """End a recording whose reader left it open as its session's block ends: an event
        stream is recorded ``closed`` where its reader stopped, as if closed there; a body
        not read to its end cannot be recorded, and
        :class:`~replaygate.errors.ResponseLeftOpenWarning` names its request. A reader
        closing it later writes nothing more."""
        if self.stream:
            self.finish("closed")
            return
        self._over()
        self.exchange.gave_up(self.slot, answered=True)
        said = (
            f"the response to {self.slot.request} was not read to its end nor closed when the "
            "recording block ended, so it was not recorded: read or close it inside the block"
        )
        if warn is not None:
            warn(said, ResponseLeftOpenWarning)
        else:
            warnings.warn(said, ResponseLeftOpenWarning, stacklevel=3)

    def stopped(self, error: BaseException) -> None:
        """End a body, not a stream, whose reading ``error`` stopped part-way, raised where
        the live body is read (a task cancelled by a timeout, Ctrl-C, an error of the
        client's): that body cannot be read further and the part read is no answer (a
        replay would hand it over as the whole), so nothing is stored. An error warns as a
        body that broke off does; a cancellation or an interrupt does not, as a send they
        stop before its answer does not (a debugger's quit too)."""
        if self.done:
            return
        if isinstance(error, Exception) and not _quit(error):
            self._broke_off(error)
            return
        self._over()
        self.exchange.gave_up(self.slot, answered=True)

    def _broke_off(self, error: BaseException) -> None:
        """End a body, not a stream, that ``error`` broke off before its end: nothing is
        stored, and :class:`~replaygate.errors.LiveSendFailedWarning` names its request (an
        SDK's retry would leave a green recording that replays otherwise)."""
        self._over()
        self.exchange.gave_up(self.slot, answered=True)
        how = "got an answer that broke off before its end"
        warn_failed_send(failed_send(self.slot.request, error, how), error, application_level(5))

    def _write(self, end: StreamEnd, error: BaseException | None) -> None:
        __tracebackhide__ = True
        body = self._json() if self.status == 400 else None  # a refused Gemini key's
        refused = refused_credentials(self.slot.path, self.status, body)
        if refused is not None:  # not billed: the cap's bound is given back
            self._over()
            self.exchange.gave_up(self.slot)
            method = str(self.slot.envelope.get("method", ""))
            key = key_of(self.slot.path)
            raise passthrough(CredentialsRefusedError(method, self.slot.path, refused, key))
        if end == "cut" and not self.stream:
            # the client got the library's error; a replay would hand it the part read
            # as the whole answer: the send is one that ended without an answer to store
            self._broke_off(error or EOFError())
            return
        head = self.slot.envelope.get("method") == "HEAD"
        with self._refused("replay hands a client the kept headers as ASCII text"):
            kept_headers(self.headers, self.status, head=head)
        with self._refused("a body kept compressed is not searched for secrets"):
            _left_encoded(self.headers, self.decoded)
        self._over()
        if self.stream:
            with self._refused(self._parser.WHY):
                tail = None if end == "cut" else self._parser.tail(whole_lines=end == "closed")
            if tail is not None:
                self._events.append(tail)
            if end == "closed" and self.terminal:
                end = "complete"
            body = b"".join(self._body)
            if end == "complete" and not self._events and _not_events(body):
                # Labelled an event stream, it held none (a proxy's error page, a JSON
                # error): kept as it came, not as no events, so a reader gets it again.
                record = plain_response(self.status, self.headers, body, head=head)
            else:
                record = stream_response(self.status, self.headers, self._events, end, error)
        else:
            record = plain_response(self.status, self.headers, b"".join(self._body), head=head)
        if is_model_api(str(self.slot.envelope.get("path", ""))):  # else every replay fails
            with self._refused("no replay could hand it to the SDK"):
                replayed(record, model_api=True, head=head, live=True)
        self.exchange.record(self.slot, record)


QUITS = (("bdb", "BdbQuit"), ("_pytest.outcomes", "Exit"))
"""The exceptions a debugger's quit raises where the code it stopped is (module, class):
``q`` in pdb (``breakpoint()``, ``python -m pdb``), and in pytest's debugger (a
``breakpoint()`` in a test, ``--trace``), which raises the ``Exit`` of ``pytest.exit``."""


def _interrupted() -> bool:
    """Whether the exception being handled, or one it was raised while handling, is an
    interrupt (not an error of the code reading the stream): Ctrl-C, SIGTERM, ``sys.exit``,
    pytest-timeout's limit, which stops the reader wherever the clock finds it, or a
    debugger's quit (:data:`QUITS`)."""
    return any(
        isinstance(error, KeyboardInterrupt | SystemExit) or timed_out(error) or _quit(error)
        for error in exception_chain(sys.exc_info()[1] or Exception())
    )


def _quit(error: BaseException) -> bool:
    """Whether ``error`` is a debugger's quit (:data:`QUITS`; a module not imported raised
    none)."""
    for module, name in QUITS:
        quits = getattr(sys.modules.get(module), name, None)
        if isinstance(quits, type) and isinstance(error, quits):
            return True
    return False


def _left_encoded(headers: list[tuple[str, str]], decoded: Collection[str] | None) -> None:
    """:class:`WireFormatError` naming a content coding of the response that is not one of
    ``decoded``, the codings the client undoes (its body would be stored as compressed
    bytes, which no search for secrets reads)."""
    if decoded is None:
        return
    for name, value in headers:
        if name.lower() != "content-encoding":
            continue
        for coding in (c.strip().lower() for c in value.split(",")):
            if coding and coding != "identity" and coding not in decoded:
                undoes = ", ".join(sorted(set(decoded) - {"identity"})) or "none"
                raise WireFormatError(
                    "response.body",
                    f"content-encoding {coding!r} was left on the body by the client, which "
                    f"decodes {undoes}",
                )


def _not_events(body: bytes) -> bool:
    """Whether ``body``, in which no event was read, holds more than blank lines and comments
    (after the byte-order mark it may begin with)."""
    lines = body.removeprefix(BOM).replace(b"\r", b"\n").split(b"\n")
    return any(line.strip() and not line.startswith(b":") for line in lines)
