"""The HTTP adapter of the fixture core: one record/replay session over HTTP exchanges.

:class:`Exchange` is shared by the ``httpx``/``httpx2`` transports and by
:func:`~replaygate.http.intercept`. It translates an HTTP request to its envelope
(:mod:`~replaygate.http.envelope`) and a recorded response to the bytes a client
reads (:mod:`~replaygate.http.recorded`); the decisions and the writes are the
:class:`~replaygate.fixtures.session.FixtureSession`'s. Repeated sends of the same
request (an SDK retrying a 429, a loop asking twice) are *repeats*: answered by the
fixture's ``responses`` in order, one per send within the session; once they are
used up, a send is a miss (or, with ``repeat_last``, the last one repeats). Every send
is looked up in the store, which confirms the whole request; the session keeps only a
count per distinct request, under the SHA-256 of its match form.

While recording, the session's id map remembers each volatile id the sanitizer
replaced in a response, so the next request (which echoes the live tool-use id) is
stored and keyed with the stable id the replayed response will hand out. A miss
whose nearest recorded request differs only by ``anthropic-version`` says which
versions. A recording never keeps the server's 404 for a route it does not serve.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import os
import sys
import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any, Protocol, TypedDict, TypeVar, Unpack
from urllib.parse import SplitResult, urlsplit, urlunsplit

from replaygate.addresses import is_loopback
from replaygate.caller import application_frame, application_level, waiting_application_frame
from replaygate.errors import (
    KEPT_ERRORS,
    PAST_SIMULATOR,
    FixtureFormatError,
    FixtureMismatchError,
    NetworkBlockedError,
    ProxyRefusalError,
    ReplaygateError,
    SecretInFixtureError,
    SessionEndedError,
    SimulatorRefusalError,
    SpendingCapError,
    TelemetryRefusedError,
    UnservedRouteError,
    WireFormatError,
    exception_chain,
    missed_again,
    raise_caught,
)
from replaygate.fixtures.diff import field_diff
from replaygate.fixtures.fingerprint import digest, fixture_key, match_form, parsed_match_form
from replaygate.fixtures.fixture import Fixture, InterfaceVersionError
from replaygate.fixtures.mismatch import (
    NO_ANSWER_FOR_SEND,
    PYTEST_SIMULATOR,
    requested,
    simulator_note,
)
from replaygate.fixtures.rerecorded import recorded_anew
from replaygate.fixtures.session import VERSION_META, FixtureSession, Repeat, StoreArg
from replaygate.fixtures.spending import SpendingCap
from replaygate.fixtures.store.files import line_to_name
from replaygate.fixtures.store.index import Location
from replaygate.http.at_once import warn_sent_at_once
from replaygate.http.base_path import moved_route, version_twice
from replaygate.http.envelope import (
    RequestLike,
    URLLike,
    interface_version_of,
    is_api_call,
    is_model_api,
    origin_of,
    request_envelope,
)
from replaygate.http.failed_sends import failed_send, warn_failed_send
from replaygate.http.forked import ForkReports, forked_after_end
from replaygate.http.learners import learner_at
from replaygate.http.mock_answers import MOCK_PLAYS
from replaygate.http.passthrough import passthrough
from replaygate.http.recorded import (
    READ_ON,
    Replayed,
    base64_embeddings,
    replayed,
    retried_past,
)
from replaygate.http.routed import tell_route
from replaygate.http.routes import (
    proxy_refusal,
    simulator_answered,
    simulator_refusal,
    stored_refusal,
    stored_refusal_reason,
    unserved_route,
)
from replaygate.http.side_request import side_request_note, tracing_upload
from replaygate.http.token_fetch import TOKEN_FETCH, token_fetch
from replaygate.interfaces import interface_of, json_rpc
from replaygate.sanitize import SanitizeConfig, Sanitizer
from replaygate.sanitize.ids import free_answer
from replaygate.sanitize.secret_mask import masked_pair
from replaygate.worker_end import as_worker_ends

__all__ = ["Exchange", "LiveSlot", "SessionOptions", "StoreArg", "identity_of"]


class SessionOptions(TypedDict, total=False):
    """The settings of an HTTP record/replay session besides its mode, as :class:`Exchange`
    takes them; the transports, the client factories and
    :func:`~replaygate.http.intercept` pass them on unchanged."""

    approve_live: bool
    match_host: bool
    source: str | None
    interface: str | None
    note: str | None
    sanitize: Sanitizer | SanitizeConfig | None
    repeat_last: bool
    cap: SpendingCap | None


@dataclass(frozen=True, slots=True)
class LiveSlot:
    """A request that goes live and is recorded: its envelope, its identity, and the place
    of its answer among the request's answers (taken when it is sent: the sends of one
    request are answered on replay in the order they were sent, so their answers are
    stored in that order, whatever order they end in)."""

    envelope: dict[str, Any]
    identity: bytes
    place: int = 0
    sent_path: str | None = None
    """The path as sent, where it differs from the stored one (a live id made stable)."""
    source: str | None = None
    """Who answered it, where not the session's ``source`` (:meth:`Exchange.past_origin`)."""

    @property
    def path(self) -> str:
        """The path that names this request in an error: as it was sent."""
        return self.sent_path or str(self.envelope.get("path", ""))

    @property
    def request(self) -> str:
        """Its method and path as an error names the request (``POST /v1/messages``)."""
        return f"{self.envelope.get('method')} {self.path}"


_T = TypeVar("_T")

_Ended = tuple[dict[str, Any], Any, dict[str, Any]] | None
"""An answer ready to store (the request, the prepared response, its meta), or None for
a send that ended without one."""


def identity_of(envelope: dict[str, Any]) -> bytes:
    """The name a session counts an envelope's sends under: the SHA-256 of its match form.

    Equal for two envelopes whose canonical forms are equal; 32 bytes, however large the
    request. Raises :class:`~replaygate.errors.CanonicalFormError` for an envelope that
    has no canonical form.
    """
    return _identity(match_form(envelope))


def _identity(form: bytes) -> bytes:
    return hashlib.sha256(form).digest()


def _match_form(envelope: dict[str, Any], *, parsed: bool) -> bytes:
    """``match_form(envelope)``. An envelope as :func:`request_envelope` makes it (``parsed``)
    holds no NaN or infinity (orjson refuses them in a body), so a null in it needs no check."""
    if parsed:
        try:
            return parsed_match_form(envelope)
        except TypeError:  # an integer beyond 64 bits
            pass
    return match_form(envelope)


HTTP_RERECORD = (
    '`mode="record-missing", approve_live=True` on the client factory or intercept(); under '
    "pytest, `mode=replaygate_mode, approve_live=True` there, set by pytest "
    "`--replaygate-record-mode=record-missing --replaygate-approve-live`"
)
"""How a miss of an HTTP session says to record it: a session the code builds itself,
which pytest's record mode reaches only through ``replaygate_mode``, its approval given
beside it (the run's ``--replaygate-approve-live`` does not reach it); the plugin's own
sessions name their own command."""
HTTP_REPLACE = HTTP_RERECORD.replace("record-missing", "rerecord")
"""How an HTTP session says to record anew what it recorded (a stream the client closed
early); the pytest plugin names its own command."""
HTTP_SIMULATOR = (
    "to record from the simulator again, record inside intercept() given "
    "`live_origin=sim.url` of a `replaygate.sim.Simulator`, or send to its url as the "
    "client's base_url, or mark the test `@pytest.mark.replaygate` in place of its own block "
    f"and give pytest {PYTEST_SIMULATOR}"
)
"""How an HTTP session says to record from the simulator again, said of a fixture that
came from it: pytest's option reaches the plugin's intercept alone, not the session; the
pytest plugin names its own option."""

VERSION_PATH = "headers.anthropic-version"

NOT_ANSWERS = (UnservedRouteError, SimulatorRefusalError, ProxyRefusalError)
"""The refusals of a response that is no provider's answer, which no provider billed: a
404 for the route, an error the simulator made of its own accord, a proxy's 407."""


def _version_header(envelope: dict[str, Any]) -> str | None:
    headers = envelope.get("headers")
    version = headers.get("anthropic-version") if isinstance(headers, dict) else None
    return version if isinstance(version, str) else None


def _pin(version: str | None) -> str:
    """How a miss of another ``anthropic-version`` says to pin the client to the recorded
    one (an SDK upgrade changed the version its clients send by default)."""
    if version is None:
        return ""
    pinned = {"anthropic-version": version}
    return (
        f", or pin the client to anthropic-version {version} "
        f"(default_headers={pinned!r} where the SDK client is built)"
    )


class LiveGuard(Protocol):
    """What watches a recording's live sends from outside the session (the pytest
    plugin's :class:`~replaygate.pytest_plugin.cassettes.CassettePlays`): ``before`` a
    send it notes what it needs; ``after`` the send returned, the refusal of its answer,
    or None to record it."""

    def before(self, slot: LiveSlot) -> object: ...

    def after(self, slot: LiveSlot, before: object) -> ReplaygateError | None: ...


Warn = Callable[[str, type[Warning]], None]
"""How a block shows a warning: a message and its category, at a place of its own."""


class Unfinished(Protocol):
    """A live response being recorded (:class:`~replaygate.http.recording.Recording`)."""

    owner: object | None
    """The transport it was handed by, if any."""

    def left_open(self, warn: Warn | None = None) -> None:
        """End it as its session's block ends; ``warn`` shows a warning of it (where the
        block was entered), else ``warnings.warn`` at the code ending the block."""

    def learn_ids(self) -> None:
        """Tell the session the stable ids of the volatile ids it holds so far."""


_LEFT_OPEN: weakref.WeakSet[Exchange] = weakref.WeakSet()
"""The sessions that handed out a live response being recorded (:meth:`Exchange.opened`)."""


@atexit.register
def _finish_at_exit() -> None:
    """Record what the readers of every session left open as the interpreter exits
    (:meth:`Exchange.finish_open`): a client never closed, whose dropped stream only the
    garbage collector would close, too late to write. A recording refused or that cannot be
    written then (a secret in it, its store's folder gone) is told on stderr, one line
    each: a traceback at exit would say no more."""
    for exchange in list(_LEFT_OPEN):
        if exchange.unfinished:
            try:
                exchange.finish_open()
            except Exception as err:
                print(
                    f"replaygate: a stream left open was not recorded at interpreter exit: {err}",
                    file=sys.stderr,
                )


def _forget_inherited() -> None:
    """In a child forked from this process: the live responses its sessions were recording
    are read, and finished, by the parent alone."""
    for exchange in list(_LEFT_OPEN):
        exchange.unfinished.clear()
    _LEFT_OPEN.clear()


os.register_at_fork(after_in_child=_forget_inherited)


async def checkpoint() -> None:
    """Yield once to the event loop running this task, asyncio's or trio's: a cancellation
    due in it (a deadline passed, its scope or task group cancelled) is delivered here, as
    at the first await of a live send. Under another loop, nothing."""
    asyncio = sys.modules.get("asyncio")
    if asyncio is not None:
        try:
            task = asyncio.current_task()
        except RuntimeError:  # no asyncio loop runs in this thread
            task = None
        if task is not None:
            await asyncio.sleep(0)
            return
    trio = sys.modules.get("trio")
    if trio is None:
        return
    try:
        trio.lowlevel.current_task()
    except RuntimeError:  # no trio task runs here
        return
    await trio.lowlevel.checkpoint()


def _a_call(host: str | None, path: str, body: Any) -> bool:
    """Whether a request to ``host`` and ``path`` with ``body`` is a call to record, not a
    side request to stop at its source: a provider's API's
    (:func:`~replaygate.http.envelope.is_api_call`), or an MCP server's
    (:func:`~replaygate.interfaces.json_rpc`), which an agent's tool sends beside the model
    calls and whose miss said to stop it at its source."""
    return is_api_call(host, path) or json_rpc(body)


def _telemetry_refused(
    method: str, origin: str, path: str, body: Any
) -> TelemetryRefusedError | None:
    """The refusal, while recording, of a tracing service's upload to ``origin``
    (``scheme://host[:port]``) and ``path`` (:func:`~.side_request.tracing_upload`: over OTLP
    to any host, a local collector's too, LangSmith's runs, or the OpenAI Agents SDK's traces
    to ``api.openai.com``) of no model call, which would
    otherwise be sent and recorded, its trace ids new at each run, so that every replay
    missed it; None for any other request."""
    host = urlsplit(origin).hostname
    if not tracing_upload(method, host, path) or _a_call(host, path, body):
        return None
    return TelemetryRefusedError(
        f"refusing to record {method} {origin}{path}: a request to a tracing service "
        "(OpenTelemetry's spans, metrics or logs over OTLP, LangSmith's runs, the OpenAI "
        "Agents SDK's traces), no model call, "
        "whose uploads hold trace ids new at each run, so its fixture would miss at every "
        f"replay; nothing was sent and nothing was written.\n{side_request_note(host, path)}"
    )


LOOPBACK_CAP = (
    "This call is sent to a loopback server, {host}, as the client's base URL names it (a "
    "`replaygate sim serve`, a local model server): if it answers of its own, at no cost, "
    'record it with no cap (cap=None on its session; under pytest, "cap": None in '
    "replaygate_config); keep the cap if it forwards to a paid API (a local proxy)."
)
"""What a spending cap's refusal of a model call to a loopback address adds: a price the
table lacks, or a bound past the cap, stops a recording that may spend nothing."""


@contextmanager
def _side_request_told(host: str | None, path: str, body: Any) -> Iterator[None]:
    """A spending cap's refusal of a request to no model API (a framework's telemetry, the
    Agents SDK's trace upload, which names no model to price) says what it is and how to
    stop it at its source (:func:`~replaygate.http.side_request.side_request_note`), where
    it said only to record without a cap; so does a refusal of its secret-looking value
    (Agno's telemetry sends its session id), where it said only to add a sanitize rule. A
    cap's refusal of a model call sent to a loopback server says that server's answers may
    cost nothing (:data:`LOOPBACK_CAP`)."""
    try:
        yield
    except SpendingCapError as err:
        if _a_call(host, path, body):
            if host and is_loopback(host):
                raise SpendingCapError(f"{err}\n{LOOPBACK_CAP.format(host=host)}") from None
            raise
        raise SpendingCapError(f"{err}\n{side_request_note(host, path)}") from None
    except SecretInFixtureError as err:
        if _a_call(host, path, body) or err.remedy == TOKEN_FETCH:
            raise
        remedy = f"{side_request_note(host, path)} {err.remedy}"
        raise SecretInFixtureError(
            err.path, err.detector, before_send=err.before_send, remedy=remedy
        ) from None


class Exchange:
    """One record/replay session over a store, for HTTP requests.

    The settings are :class:`SessionOptions`. ``mode`` is ``replay`` (never live; a miss raises
    :class:`~replaygate.errors.FixtureMismatchError`), ``record-missing`` (replay
    what is recorded, record the rest) or ``rerecord`` (record everything anew);
    the recording modes need ``approve_live=True``. ``match_host`` adds the host to
    the envelope. ``source`` (``live`` by default, ``sim`` for a simulator) and
    ``interface`` (for paths that name none) go into the fixture ``meta``.
    ``sanitize`` is the pipeline (default: the one configured for the store's
    project). ``repeat_last=True`` answers a send past the recorded ones with the last
    answer again (by default it is a miss, or recorded in ``record-missing``).
    ``lookups`` counts the store lookups (one per send that is not live), ``replays`` the
    answers given from fixtures, ``recorded`` the responses written, ``raised`` the
    first :data:`KEPT_ERRORS` errors its sends raised (misses, a damaged store), in
    order. A session copied into a forked process (``multiprocessing``'s ``fork``) answers
    there too, and tells this one its sends, its recordings and its errors, which
    ``sent``, ``recorded`` and ``raised`` count as they are read (:mod:`.forked`); not
    its ``lookups`` and ``replays``. ``live_origin``
    (``scheme://host:port``, set by the pytest plugin to the simulator it records from)
    is where the intercepted clients' live sends go instead of the host they name
    (:meth:`live_url`).
    """

    def __init__(
        self, store: StoreArg, *, mode: str = "replay", **options: Unpack[SessionOptions]
    ) -> None:
        interface = options.get("interface")
        if not isinstance(interface, str | None):
            raise TypeError(f"interface must be a string, got {type(interface).__name__}")
        self.session = FixtureSession(
            store,
            mode=mode,
            approve_live=options.get("approve_live", False),
            shape="http",
            source=options.get("source"),
            note=options.get("note"),
            sanitize=options.get("sanitize"),
            what="HTTP request",
            repeat_last=options.get("repeat_last", False),
            cap=options.get("cap"),
        )
        self.session.rerecord = HTTP_RERECORD
        self.session.rerecord_all = HTTP_REPLACE
        self.session.from_simulator = HTTP_SIMULATOR
        self.store = self.session.store
        self.mode = mode
        self.match_host = options.get("match_host", False)
        self.interface = interface
        self.lookups = 0
        self.replays = 0
        self.error_answers: list[tuple[int, str]] = []
        """The status and ``file:line`` of each error answer (400 or more) replayed, in order."""
        self._lock = threading.RLock()
        """Reentrant: the garbage collector may close a dropped stream of this session (and
        so record it) while this thread holds it."""
        self._deciding = threading.Lock()
        self._writing = threading.Lock()
        self._writer = threading.local()
        """Whether this thread is storing answers (:meth:`_ended_at`)."""
        self._parked: list[tuple[LiveSlot, _Ended]] = []
        """Answers that ended in the middle of a write of the same thread: stored after it."""
        self._sent: dict[bytes, int] = {}
        self._places: dict[bytes, int] = {}
        """The next place to give a live send of each request."""
        self._stored: dict[bytes, int] = {}
        """The place of the next answer of each request to store."""
        self._ended: dict[bytes, dict[int, _Ended]] = {}
        """Answers that ended before an earlier send of the same request: stored after it."""
        self._live: set[bytes] = set()
        self._held: set[tuple[bytes, int]] = set()
        """The live sends (identity, place) whose spending-cap bound is held: neither
        charged with their answer nor given back."""
        self._told_at_once: set[bytes] = set()
        """The requests a live send of which started while another was under way, warned
        of (:mod:`~replaygate.http.at_once`)."""
        self._thread = threading.get_ident()
        """The thread that made this exchange, which entered its block."""
        self.live_origin: str | None = None
        self.live_guard: LiveGuard | None = None
        """What refuses a live send's answer from outside the session, if anything."""
        self._raised: list[ReplaygateError] = []
        self.shown: Callable[[ReplaygateError], bool] | None = None
        """Whether an error of ``raised`` reached the code of the ``intercept()`` block
        this session answers (its own ``pytest.raises`` or ``except``), which
        :meth:`raise_caught` passes over; None outside such a block."""
        self._forked = ForkReports(used=self.session.count_told_use)
        self.session.tell_use = self._forked.tell_used
        """What the processes forked from this one with a copy of this session did there."""
        self.unfinished: set[Unfinished] = set()
        self.cut_short = False
        """Whether an interrupt stopped the readers of this session's responses (a pytest
        test stopped by pytest-timeout's limit): a stream closed or left open from then on
        is not recorded (:meth:`~replaygate.http.recording.Recording.cut_short`)."""
        self._kept: list[Exception] = []
        """Refusals made where raising them would lose them (:meth:`keeping_refusal`)."""
        self._after_end: Callable[[str, str], ReplaygateError] | None = None

    @property
    def after_end(self) -> Callable[[str, str], ReplaygateError] | None:
        """Set once the session is over (the pytest test it served has ended): given a
        request (``POST /v1/messages``) and what was done with it after that (``sent``, or
        its stream, recorded as closed where the session left it, ``read on``), the error it
        gets, neither replayed nor recorded. Its forked copies are told
        (:meth:`~replaygate.http.forked.ForkReports.end`)."""
        return self._after_end

    @after_end.setter
    def after_end(self, refusal: Callable[[str, str], ReplaygateError] | None) -> None:
        self._after_end = refusal
        if refusal is not None:
            self._forked.end()

    @classmethod
    def of(
        cls, store: StoreArg | Exchange, mode: str = "replay", **options: Unpack[SessionOptions]
    ) -> Exchange:
        """``store`` itself when it is an exchange (the settings are then its own), else a
        new session over ``store``."""
        return store if isinstance(store, Exchange) else cls(store, mode=mode, **options)

    @property
    def recording(self) -> bool:
        """Whether this session may make live calls."""
        return self.session.recording

    @property
    def recorded(self) -> int:
        """How many responses this session has written (its forked copies' counted)."""
        self.collect_forked()
        return self.session.recorded + self._forked.recorded

    @property
    def sent(self) -> int:
        """How many requests this session has been asked to answer (replayed, live or
        missed; its forked copies' counted)."""
        self.collect_forked()
        with self._lock:
            return sum(self._sent.values()) + self._forked.sent

    @property
    def raised(self) -> list[ReplaygateError]:
        """The first :data:`KEPT_ERRORS` replay errors this session's sends raised, in the
        order this process raised them or read them from its forked copies."""
        self.collect_forked()
        return self._raised

    def collect_forked(self) -> None:
        """Take up what this session's forked copies told since it last asked: their
        errors, and the fixtures they answered from (counted among the store's uses)."""
        for error in self._forked.collect():
            self._keep(error)

    def _keep(self, error: ReplaygateError) -> None:
        if len(self._raised) < KEPT_ERRORS:  # each holds its traceback's frames
            self._raised.append(error)

    # -- deciding ----------------------------------------------------------------------

    def plan(self, request: RequestLike) -> Replayed | LiveSlot:
        """The recorded answer to ``request``, or the slot of a live call to record.

        Every replaygate error (a miss, a request with no canonical form, a damaged
        store) is raised so the SDKs pass it through unwrapped; pytest leaves replaygate's
        frames out of the failure report (``__tracebackhide__``), and the plugin those of
        the SDK, the HTTP client and a framework after the application's call, where the
        report ends (:mod:`replaygate.pytest_plugin.library_frames`).
        """
        __tracebackhide__ = True
        if self._kept:
            self.raise_kept()
        try:
            return self._while_busy(self._plan, request)
        except ReplaygateError as err:
            error = passthrough(err)
            again = missed_again(error, self.raised)
            if again is not None:
                error.add_note(again)
            self.note_raised(error)
            raise error from None

    async def aplan(self, request: RequestLike) -> Replayed | LiveSlot:
        """:meth:`plan` for an async send, which is first a point where its task's due
        cancellation is delivered (:func:`checkpoint`), as a live send is: a send made
        under a deadline already passed or in a cancelled scope is cancelled on replay as
        it was while recording, and takes no answer."""
        __tracebackhide__ = True
        await checkpoint()
        return self.plan(request)

    def note_raised(self, error: ReplaygateError) -> None:
        """Keep ``error``, a replay error raised to the code under test by a send of this
        session or by a stream it replayed, among :attr:`raised` (its forked copies tell
        their own to it): one the code caught fails the run once it returned."""
        self._keep(error)
        self._forked.tell_raised(error)

    def _plan(self, request: RequestLike) -> Replayed | LiveSlot:
        if self.after_end is not None:
            raise self.after_end(f"{request.method} {request.url.path}", "sent")
        if self._forked.ended():
            asked = f"{request.method} {request.url.path}"
            raise SessionEndedError(forked_after_end(asked, self._forked.pid))
        sent = request_envelope(request, match_host=self.match_host)
        if self.session.recording and self.unfinished:  # a stream still read may name ids
            for recording in list(self.unfinished):
                recording.learn_ids()
        envelope = self.session.stored_request(sent)
        form = _match_form(envelope, parsed=envelope is sent)
        identity = _identity(form)
        if self.session.recording:
            origin = origin_of(request.url)
            upload = _telemetry_refused(request.method, origin, request.url.path, sent.get("body"))
            if upload is not None:
                raise upload
            # A send's count, its lookup and its going live are one step: a send counted
            # before another went live but looking up after that one's answer was written
            # would be answered with it (one live answer served twice, one never recorded).
            side = _side_request_told(request.url.host, request.url.path, sent.get("body"))
            with self._deciding, side:
                decided = self._decide(envelope, form, identity, sent)
        else:
            decided = self._decide(envelope, form, identity, sent)
        if isinstance(decided, LiveSlot):
            return replace(decided, source="live") if self.past_origin(request.url) else decided
        hit, repeat = decided
        if hit is None:
            missed = self._miss(envelope, fixture_key(envelope), origin_of(request.url), sent)
            tell_route(missed)
            raise missed
        location, fixture = hit
        try:
            response = self.session.answer(
                fixture.key, fixture.responses, Repeat(repeat), fixture.meta
            )
        except FixtureMismatchError as err:  # sent more often than recorded
            tell_route(err)
            retried = retried_past(fixture.responses) if err.kind == "sent-more" else None
            if retried is not None:
                err.add_note(retried)
            raise
        if response is None:
            raise self._null_answer(location, fixture, repeat)
        refused = stored_refusal(response, envelope, fixture.meta)
        if refused is not None:
            reason = stored_refusal_reason(refused, self.session.replace_hint())
            raise FixtureFormatError(str(location.file), location.line, f"its answer {reason}")
        # read only for a body kept as text or bytes, an empty or missing one (a "body"
        # key an edit renamed), base64 embeddings, or a stream of no event (the path is not
        # looked at for the usual JSON and streams)
        model_api = (
            isinstance(response, dict)
            and (
                "text" in response
                or "base64" in response
                or ("events" not in response and response.get("body") is None)
                or base64_embeddings(response.get("body"))
                or response.get("events") == []
            )
            and is_model_api(str(envelope.get("path", "")))
        )
        rerecord = self.session.replace_hint()
        told = simulator_note(fixture.meta, rerecord, self.session.from_simulator)
        simulator = self.session.from_simulator if told else ""
        try:
            answer = replayed(
                response,
                key=fixture.key,
                rerecord=rerecord,
                from_simulator=simulator,
                store=self.session.store.path,
                at=location,
                model_api=model_api,
                head=envelope.get("method") == "HEAD",
                raised=self.note_raised,
                read_on=functools.partial(self._read_on, request.method, request.url),
            )
        except WireFormatError as err:
            reason = f"its response cannot be replayed: {err}"
            line = line_to_name(location.file, location.line, reason)
            raise FixtureFormatError(str(location.file), line, reason) from None
        self.replays += 1
        status = response.get("status") if isinstance(response, dict) else None
        if isinstance(status, int) and status >= 400:
            self.error_answers.append((status, f"{location.file}:{location.line}"))
        if self.mode != "replay":
            self._teach(request, sent, response)
        return answer

    def _read_on(self, method: str, url: URLLike) -> ReplaygateError | None:
        """The error of the replayed stream of the ``method`` request to ``url`` read past
        where it was recorded as closed, after this session ended (:attr:`after_end`); None
        while it lasts."""
        if self.after_end is None:
            return None
        return self.after_end(f"{method} {url.path}", READ_ON)

    def _null_answer(self, location: Location, fixture: Fixture, repeat: int) -> ReplaygateError:
        """The error of a send whose recorded answer is ``null`` (a sample that did not send
        the request when it was recorded), naming the fixture's line and answer."""
        index = min(repeat, len(fixture.responses) - 1)
        recorded = [i for i, r in enumerate(fixture.responses) if r is not None]
        if not recorded:
            return self.session.nothing_recorded(fixture.key, fixture.meta)
        command = self.session.replace_hint()
        return FixtureMismatchError(
            f"{location}: fixture {fixture.key} {NO_ANSWER_FOR_SEND} {repeat + 1} of this "
            f"request: its answer {index} (responses[{index}], its sample lines counted in) "
            f"is null, as a recording leaves the answer of a sample that did not send this "
            f"request (answers recorded: {recorded}). Re-record it ({command})."
            f"{self.session.simulator_told(fixture.meta, command)}",
            key=fixture.key,
            store=str(self.store.path),
            kind="sent-more",
            record_mode="rerecord",
        )

    def _decide(
        self, envelope: dict[str, Any], form: bytes, identity: bytes, sent: dict[str, Any]
    ) -> LiveSlot | tuple[tuple[Location, Fixture] | None, int]:
        """The live slot of this send (``sent``: its envelope before sanitizing), or the
        stored fixture found for it (None) and its repeat index. Recording anew, a request
        this run already recorded anew, sent by another session, is answered as
        ``record-missing`` answers it (:func:`~replaygate.fixtures.rerecorded.recorded_anew`)."""
        anew = self.mode == "rerecord" and identity not in self._live
        if anew and recorded_anew(self.store.path, digest(envelope)):
            anew = False
        with self._lock:
            repeat = self._sent.get(identity, 0)
            self._sent[identity] = repeat + 1
            live = anew or identity in self._live
            if anew:  # its later sends in this session go live as it did
                self._live.add(identity)
        self._forked.tell_sent()
        if live:
            self._reserve(envelope)
            return self._held_slot(envelope, identity, 0, sent)
        self.lookups += 1
        hit = self.session.lookup(envelope, form)
        samples = hit[1].samples if hit is not None else 0
        used_up = hit is not None and repeat >= samples and not self.session.repeats_last
        if (hit is None or used_up) and self.recording:
            self._reserve(envelope)
            with self._lock:
                self._live.add(identity)
            first = samples  # the place of the first answer recorded now
            if hit is not None and self.session.sanitizer.config.ids:
                first = free_answer(hit[1].key, hit[1].responses)  # its stable ids its own
            return self._held_slot(envelope, identity, first, sent)
        return hit, repeat

    def _reserve(self, envelope: dict[str, Any]) -> None:
        """Before a live send of (stored) ``envelope``: refuse it when its fixture could not
        be written (:meth:`FixtureSession.reserve`: an ``anthropic-version`` that cannot
        name a folder is named at its header), else hold its spending-cap bound."""
        fetch = token_fetch(envelope)
        if fetch is not None:
            raise SecretInFixtureError("request", fetch, before_send=True, remedy=TOKEN_FETCH)
        version = interface_version_of(envelope)
        at = f"request.{VERSION_PATH}" if version == _version_header(envelope) else VERSION_META
        self.session.reserve(envelope, self.interface_for(envelope), version, version_at=at)

    def _held_slot(
        self, envelope: dict[str, Any], identity: bytes, first: int, sent: dict[str, Any]
    ) -> LiveSlot:
        """The slot of a live send whose spending-cap bound was just held (:meth:`_place`)."""
        sent_path = sent.get("path") if sent is not envelope else None
        slot = LiveSlot(envelope, identity, self._place(identity, first), sent_path)
        with self._lock:
            at_once = identity not in self._told_at_once and any(
                held == identity for held, _ in self._held
            )
            if at_once:
                self._told_at_once.add(identity)
            self._held.add((identity, slot.place))
        if at_once:  # another send of it is still under way
            waiting = None  # a library's worker thread: the block's thread waits for it
            if threading.get_ident() != self._thread and not application_frame(sys._getframe()):
                waiting = waiting_application_frame(self._thread)
            warn_sent_at_once(slot.request, fixture_key(envelope), application_level(2), waiting)
        return slot

    def _unheld(self, slot: LiveSlot) -> bool:
        """Whether ``slot``'s spending-cap bound was held; it is held no more."""
        with self._lock:
            held = (slot.identity, slot.place) in self._held
            self._held.discard((slot.identity, slot.place))
        return held

    def next_slot(self, envelope: dict[str, Any]) -> LiveSlot:
        """The slot of a send of (stored) ``envelope`` recorded as it is made, not planned:
        its answer follows those of the same request recorded before it in this session."""
        identity = identity_of(envelope)
        return LiveSlot(envelope, identity, self._place(identity, 0))

    def _place(self, identity: bytes, first: int) -> int:
        """The place of the answer to a live send of ``identity``: the next in the order
        the sends are made, the first after the ``first`` answers recorded before."""
        with self._lock:
            place = self._places.setdefault(identity, first)
            self._places[identity] = place + 1
            self._stored.setdefault(identity, place)
            return place

    def past_origin(self, url: URLLike) -> bool:
        """Whether a live send of ``url`` is answered by another server than the simulator
        this session records from (:attr:`live_origin`, its answers labelled ``sim``): one
        sent as addressed, a loopback server of the test's own or a local model server."""
        if self.live_origin is None or self.session.source != "sim":
            return False
        moved = self._origin_for(url.host, url.path) is not None
        return not moved and learner_at(url.host, url.port) is None

    def _teach(self, request: RequestLike, sent: dict[str, Any], response: Any) -> None:
        """Tell the server a live send of ``request`` would reach, when it learns
        (:mod:`~replaygate.http.learners`), of ``response``, replayed to ``sent``."""
        url = request.url
        origin = self._origin_for(url.host, url.path)
        if origin is not None:
            learner = learner_at(origin.hostname, origin.port)
        else:
            learner = learner_at(url.host, url.port)
        if learner is not None:
            learner(sent, response)

    def _miss(
        self, envelope: dict[str, Any], key: str, origin: str, sent: dict[str, Any]
    ) -> FixtureMismatchError:
        """The loud error of a miss, naming the request sent to ``origin``
        (``scheme://host[:port]``) as ``sent``, before the sanitize rules; it names both
        versions when only they differ."""
        near = self.store.nearest(envelope) if _version_header(envelope) else None
        if near is not None:
            location, fixture = near
            differences = field_diff(fixture.request, envelope)
            # the nearest stored under this very key was edited by hand: said as such
            edited = fixture.key == key
            if differences and not edited and all(d.path == VERSION_PATH for d in differences):
                recorded = _version_header(fixture.request)
                asked = _version_header(envelope)
                line = requested(masked_pair(fixture.request, envelope)[1], origin)
                command = self.session.replace_hint()
                return InterfaceVersionError(
                    f"no fixture recorded for this HTTP request ({line}): "
                    f"key {key} not in {self.store.path}. The nearest, key {fixture.key} at "
                    f"{location}, was recorded for anthropic-version {recorded or '(none)'}, "
                    f"requested {asked}: the client speaks another API version. Re-record "
                    f"for it ({command}){_pin(recorded)}."
                    f"{self.session.simulator_told(fixture.meta, command)}",
                    key=key,
                    store=str(self.store.path),
                    differences=tuple(d.render() for d in differences),
                )
        host, path = urlsplit(origin).hostname, str(envelope.get("path", ""))
        if _a_call(host, path, envelope.get("body")):
            return self.session.miss(envelope, origin, sent)
        told = TOKEN_FETCH if token_fetch(envelope) is not None else side_request_note(host, path)
        return self.session.miss(envelope, origin, sent, stop=told)

    # -- recording ---------------------------------------------------------------------

    def live_url(self, url: str) -> str | None:
        """Where a live send of ``url`` goes when it is not where it is addressed: ``url``
        with :attr:`live_origin`'s scheme, host and port, its path from the provider's
        route on (a client's base path taken off: :func:`~.base_path.moved_route`), its
        query kept; or None.

        Only a call of a provider's API moves (:func:`~replaygate.http.envelope.is_api_call`:
        a model API's path on any host, or any path of a provider's API host, such as
        ``api.openai.com/v1/models``); a request to a loopback host, or to another host's
        other paths (a tool fetching a page), is sent where it is addressed. The request's
        envelope is made from its own URL before it moves, so what is recorded is what a
        replay of the same code sends, the real API's host included (a framework that
        shapes its requests by host shapes them alike in both).
        """
        parts = urlsplit(url)
        origin = self._origin_for(parts.hostname, parts.path)
        if origin is None:
            return None
        path = moved_route(parts.hostname, parts.path)
        return urlunsplit((origin.scheme, origin.netloc, path, parts.query, ""))

    def _origin_for(self, host: str | None, path: str) -> SplitResult | None:
        """:attr:`live_origin`, split, when a live send to ``host`` and ``path`` goes there."""
        if self.live_origin is None or not host or is_loopback(host) or not is_api_call(host, path):
            return None
        return urlsplit(self.live_origin)

    def interface_for(self, envelope: dict[str, Any]) -> str:
        """The interface of ``envelope``'s path (or the session's, for a path naming none)."""
        interface = interface_of(str(envelope.get("path", "")))
        return self.interface if interface == "http" and self.interface else interface

    def opened(self, recording: Unfinished) -> None:
        """``recording`` is being recorded: it is finished as its client is closed, the
        block ends (:meth:`finish_open`) or, at the latest, as the interpreter exits."""
        self.unfinished.add(recording)
        _LEFT_OPEN.add(self)
        as_worker_ends(_finish_at_exit)

    def finish_open(self, owner: object | None = None, warn: Warn | None = None) -> None:
        """Finish the live responses whose readers left them open (:attr:`unfinished`), as
        a block of this session ends and before its store is closed
        (:meth:`~replaygate.http.recording.Recording.left_open`), every one of them though
        one is refused or cannot be written (the first such error is raised after); then a
        refusal kept (:meth:`raise_kept`) is raised. Given an ``owner`` (a transport whose
        client is being closed), only the responses it handed out are finished: a session
        shared with other clients goes on. ``warn`` shows what cannot be recorded (an
        ``intercept()`` block's, at the line that entered it)."""
        refused: Exception | None = None
        for recording in list(self.unfinished):
            if owner is None or recording.owner is owner:
                try:
                    recording.left_open(warn)
                except Exception as err:
                    refused = refused or err
        if owner is None:
            with self._storing():
                for identity in list(self._ended):
                    self._store_ended(identity, all_ended=True)
        if refused is not None:
            raise refused
        self.raise_kept()

    @contextmanager
    def keeping_refusal(self) -> Iterator[None]:
        """Keep an error raised inside instead of raising it: where Python drops it (a
        recording finished as its dropped reader is closed, "Exception ignored in
        generator"). :meth:`raise_kept` raises it where it reaches the caller."""
        try:
            yield
        except Exception as err:
            with self._lock:
                self._kept.append(err)

    def raise_caught(self) -> None:
        """Raise the first replay error this session raised, if any: called once the code
        under test returned, it is one that code caught and went on from (law 2), as a
        framework's fallback model or retry does; not one the block's own code caught
        (:attr:`shown`)."""
        shown = self.shown
        raise_caught([error for error in self.raised if shown is None or not shown(error)])

    def raise_kept(self) -> None:
        """Raise the first refusal :meth:`keeping_refusal` kept, once: as a response is
        closed, at the next send, as the client is closed or the block ends; not while an
        iterator is being closed (``httpx2`` closes a response as its dropped ``iter_raw``
        ends), where Python would drop it too."""
        if isinstance(sys.exc_info()[1], GeneratorExit):
            return
        with self._lock:
            kept = self._kept.pop(0) if self._kept else None
        if kept is not None:
            raise kept

    def record(self, slot: LiveSlot, response: dict[str, Any]) -> None:
        """Store ``response`` as the answer to ``slot`` in this session, once the answers of
        the same request sent before it are stored (or their sends ended without one).

        A 404 for the route itself (:func:`~replaygate.http.routes.unserved_route`) is
        refused with :class:`~replaygate.errors.UnservedRouteError`: it is not a model
        reply, and nothing is written.
        """
        __tracebackhide__ = True
        try:  # refused here, the route, a secret or the cap is this send's error
            stored, meta = self._while_busy(self._prepared, slot, response)
        except BaseException as err:
            self.gave_up(slot, answered=not isinstance(err, NOT_ANSWERS))
            if isinstance(err, Exception):
                raise passthrough(err) from None
            raise
        self._ended_at(slot, (slot.envelope, stored, meta))

    def _prepared(self, slot: LiveSlot, response: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        """``response`` ready to store as ``slot``'s answer (:meth:`Session.prepared`), and
        its meta; an answer that is not a model's (:mod:`~replaygate.http.routes`: a 404 for
        the route, an error the simulator made of its own accord, a proxy's 407) is
        refused."""
        method = str(slot.envelope.get("method", ""))
        if unserved_route(str(slot.envelope.get("path", "")), response):
            simulator = self.session.source == "sim" or simulator_answered(response)
            twice = version_twice(slot.path)
            raise UnservedRouteError(
                method, slot.path, response["status"], simulator=simulator, twice=twice
            )
        refusal = simulator_refusal(response)
        if refusal is not None:
            raise SimulatorRefusalError(method, slot.path, response["status"], refusal)
        if proxy_refusal(response):
            raise ProxyRefusalError(method, slot.path, response["status"])
        interface = self.interface_for(slot.envelope)
        meta = self.session.meta(interface, interface_version_of(slot.envelope), "live")
        if slot.source is not None:
            meta["source"] = slot.source
        elif self.session.source is None and simulator_answered(response):
            meta["source"] = "sim"  # a simulator this process does not know (`sim serve`)
        self._unheld(slot)  # charged now, whether or not a secret refuses the answer
        return self.session.prepared(slot.envelope, response, interface, slot.place), meta

    def gave_up(self, slot: LiveSlot, *, answered: bool = False) -> None:
        """``slot``'s send ended without an answer to store, and the answers of the same
        request sent after it are stored without it. Unless its answer was charged, its
        spending-cap bound is charged when a provider ``answered`` (the call was billed,
        though its answer is not stored: a body left unread, a response no fixture can
        keep), else given back (the send failed before an answer, or the answer was none
        of a provider's: :data:`NOT_ANSWERS`)."""
        if self._unheld(slot):
            if answered:
                self.session.charge_bound(slot.envelope)
            else:
                self.session.release(slot.envelope)
        self._ended_at(slot, None)

    @contextmanager
    def sending(self, slot: LiveSlot) -> Iterator[None]:
        """While ``slot``'s live send is made: a send that fails before a response gives
        its place and its spending-cap bound up (:meth:`gave_up`), and one that failed of
        itself (not refused by replaygate, not interrupted) warns
        (:class:`~replaygate.errors.LiveSendFailedWarning`): code that catches the error,
        or an SDK that retries, would leave a green recording that replays otherwise. A
        send whose answer :attr:`live_guard` or one of :data:`MOCK_PLAYS` refuses gives its
        place up too, and raises that refusal (nothing is stored). A send the network block
        refused (recording from the simulator, a request to a host of no model API, such as
        a web API an agent's tool calls) is kept among :attr:`raised`: code that catches it
        and goes on (an agent that gives the model the tool's error) records requests that
        carry the refusal, which no replay sends, and is told so as a caught miss is."""
        guards = [g for g in (self.live_guard, *MOCK_PLAYS) if g is not None]
        before = [guard.before(slot) for guard in guards]
        try:
            yield
        except BaseException as err:
            self.gave_up(slot)
            ours = [e for e in exception_chain(err) if isinstance(e, ReplaygateError)]
            for blocked in ours:  # the plugin tells a request it sent from another client's
                if isinstance(blocked, NetworkBlockedError):
                    blocked.sent_live = slot.request
                    blocked.carrier = err  # the library's error wrapping it, if any
                    self.note_raised(blocked)  # caught, what was recorded after it is not
            if isinstance(err, Exception) and not ours:
                # refused by replaygate (the network blocked), whatever the library wrapped it in
                past = PAST_SIMULATOR if slot.source is not None else ""
                warn_failed_send(failed_send(slot.request, err) + past, err, application_level(3))
            raise
        refusals = (guard.after(slot, noted) for guard, noted in zip(guards, before, strict=True))
        refused = next((r for r in refusals if r is not None), None)
        if refused is not None:
            self.gave_up(slot)
            error = passthrough(refused)
            self.note_raised(error)
            raise error

    def _while_busy(self, work: Callable[..., _T], *args: Any) -> _T:
        """``work(*args)``, while this thread works in this session (deciding a send,
        preparing an answer), holding its locks or its store's: an answer that ends
        meanwhile in this thread (the garbage collector closing a dropped stream) is parked
        (:meth:`_ended_at`), never stored inside that work, where it would wait for a write
        of another thread that waits for this one; it is stored once the work is done."""
        writer = self._writer
        if getattr(writer, "active", False):
            return work(*args)
        writer.active = True
        try:
            done = work(*args)
        finally:
            writer.active = False
        if self._parked:
            with self._storing():
                pass
        return done

    @contextmanager
    def _storing(self) -> Iterator[None]:
        """While this thread stores answers; then those parked meanwhile
        (:meth:`_ended_at`) are stored."""
        with self._writing:
            self._writer.active = True
            try:
                yield
                while self._parked:
                    slot, answer = self._parked.pop(0)
                    self._end(slot, answer)
            finally:
                self._writer.active = False

    def _ended_at(self, slot: LiveSlot, answer: _Ended) -> None:
        if getattr(self._writer, "active", False):
            # A reader closed in the middle of this thread's work or write (the garbage
            # collector closing a dropped stream): stored once that is done, never inside
            # it, where the session's locks and the store's are held (:meth:`_while_busy`).
            self._parked.append((slot, answer))
            return
        with self._storing():
            self._end(slot, answer)

    def _end(self, slot: LiveSlot, answer: _Ended) -> None:
        ended = self._ended.get(slot.identity, {})
        if slot.place < self._stored[slot.identity] or slot.place in ended:
            return  # ended already (a failed send whose answer was refused as well)
        self._ended.setdefault(slot.identity, {})[slot.place] = answer
        self._store_ended(slot.identity)

    def _store(
        self, place: int, request: dict[str, Any], stored: Any, meta: dict[str, Any]
    ) -> None:
        """Store ``stored``, prepared, as the answer at ``place`` to ``request``."""
        written = self.session.recorded
        try:
            self.session.store_prepared(request, stored, Repeat(place), meta)
        except Exception as err:
            raise passthrough(err) from None
        if self.session.recorded > written:
            self._forked.tell_recorded()

    def _store_ended(self, identity: bytes, *, all_ended: bool = False) -> None:
        """Store the answers of ``identity`` that ended, in the order their sends were
        made: each once every send before it ended (``all_ended``: every one that ended,
        whatever sends before it have not: as the session ends)."""
        ended = self._ended.get(identity, {})
        try:
            while ended:
                place = min(ended) if all_ended else self._stored[identity]
                if place not in ended:
                    return
                answer = ended.pop(place)
                self._stored[identity] = place + 1
                if answer is not None:
                    self._store(place, *answer)
        finally:
            if not ended:  # every send of it ended: nothing kept per request
                self._ended.pop(identity, None)
