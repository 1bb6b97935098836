"""Replay and recording at the engine boundary: :class:`ReplayModel`, :class:`RecordingModel`.

Both are thin adapters over the fixture core
(:class:`~replaygate.fixtures.session.FixtureSession`): they turn a conversation into
the interface's wire request with one :class:`RequestSettings`, so what is recorded
is exactly what replay looks up, and turn the stored wire response back into engine
types. The session enforces the laws (whole-request match, the loud miss, approval,
sanitizing and secret refusal, safe writes); this module adds the one check that
belongs to the engine boundary: a fixture recorded for another interface version
than the one configured is refused with
:class:`~replaygate.fixtures.fixture.InterfaceVersionError`.
"""

from __future__ import annotations

import copy
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, Protocol, TypeVar, runtime_checkable

from replaygate.errors import (
    FixtureFormatError,
    FixtureMismatchError,
    KeepsRaised,
    ReplaygateError,
    WireFormatError,
    exception_chain,
)
from replaygate.fixtures.fingerprint import digest, fixture_key, match_form
from replaygate.fixtures.fixture import MAX_SAMPLE, InterfaceVersionError, version_mismatch
from replaygate.fixtures.modes import MODES, RECORDING_MODES, Mode
from replaygate.fixtures.rerecorded import recorded_anew
from replaygate.fixtures.session import FixtureSession, Hit, Position, Repeat, Sample, StoreArg
from replaygate.fixtures.spending import SpendingCap
from replaygate.http.failed_sends import failed_send
from replaygate.http.routes import credentials_refused, refusal_note
from replaygate.models.providers import Interface, get_interface
from replaygate.models.types import (
    Call,
    Message,
    Model,
    ModelResponse,
    ToolSpec,
    check_conversation,
    check_model,
)
from replaygate.sanitize import SanitizeConfig, Sanitizer

__all__ = [
    "MODES",
    "RECORDING_MODES",
    "Call",
    "Mode",
    "RecordingModel",
    "ReplayModel",
    "RequestSettings",
    "WireModel",
    "check_version",
    "settings_of",
    "with_system",
]


@runtime_checkable
class WireModel(Protocol):
    """A live model that answers a wire request with the provider's wire response dict."""

    def complete_wire(self, request: dict[str, Any]) -> dict[str, Any]:
        """Send ``request`` as it is and return the response body as a dict."""
        ...


def check_live_interface(live: object, interface: str) -> None:
    """A ``ValueError`` when ``live`` sends requests of an interface other than
    ``interface`` (an :class:`~replaygate.models.live.OpenAIResponsesModel` recorded with
    the default ``anthropic.messages``), before anything is sent: its SDK would be handed
    the other interface's request and raise a ``TypeError`` of its own arguments."""
    spoken = getattr(live, "interface", None)
    if not (isinstance(live, WireModel) and isinstance(spoken, str) and spoken):
        return
    try:  # a short name (``gemini``) is the interface it stands for
        same = get_interface(spoken).name == get_interface(interface).name
    except ValueError:  # an interface no converter speaks: refused where it is used
        same = spoken == interface
    if not same:
        raise ValueError(
            f"RecordingModel: live {type(live).__name__} sends {spoken!r} requests, but "
            f"interface={interface!r} builds them: pass interface={spoken!r} "
            "(and the same to the ReplayModel that replays them)"
        )


def is_count(value: object) -> bool:
    """Whether ``value`` is an ``int`` of 0 or more (not a ``bool``)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


@dataclass(frozen=True)
class RequestSettings:
    """What turns a conversation into a wire request: interface, model id, limits, system.

    ``interface_version`` defaults to the version the interface's converters speak
    (``2023-06-01`` for ``anthropic.messages``, ``v1`` for ``openai.chat.completions``).
    """

    model: str
    max_tokens: int
    system: str | None = None
    interface: str = "anthropic.messages"
    interface_version: str | None = None

    def __post_init__(self) -> None:
        """Refuse, naming the argument, settings no request could be built from: they
        would otherwise miss every fixture, or be recorded and refused by the API."""
        if not isinstance(self.model, str) or not self.model.strip():
            raise ValueError(f"model must be a model id (a non-empty string), got {self.model!r}")
        if not is_count(self.max_tokens) or self.max_tokens < 1:
            raise ValueError(f"max_tokens must be a positive integer, got {self.max_tokens!r}")
        for name in ("system", "interface_version"):
            if not isinstance(getattr(self, name), str | None):
                raise ValueError(f"{name} must be a string or None, got {getattr(self, name)!r}")
        self.wire  # noqa: B018  # an unknown interface is refused here, naming the known ones

    @cached_property
    def wire(self) -> Interface:
        """The interface's converters."""
        return get_interface(self.interface)

    @cached_property
    def version(self) -> str:
        """The interface version fixtures are recorded for and replayed at."""
        return self.interface_version or self.wire.version

    def build(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> dict[str, Any]:
        """The wire request for this conversation; a ``TypeError`` names a message or tool
        that is not one (a dict of a provider's wire format, a string)."""
        check_conversation(messages, tools)
        return self.wire.build_request(
            messages, tools, model=self.model, max_tokens=self.max_tokens, system=self.system
        )


ModelT = TypeVar("ModelT")


def settings_of(model: object) -> RequestSettings | None:
    """The request settings ``model`` builds its wire requests with (the replaying,
    recording and live models have them), or None."""
    settings = getattr(model, "settings", None)
    return settings if isinstance(settings, RequestSettings) else None


def with_system(model: ModelT, system: str) -> ModelT:
    """A copy of ``model`` (one with request settings) that sends ``system`` as its
    system prompt; it shares everything else (session, store, ``calls``, live model)."""
    settings = settings_of(model)
    if settings is None:
        raise TypeError(f"{type(model).__name__} has no request settings to send a system with")
    twin = copy.copy(model)
    twin.settings = replace(settings, system=system)  # type: ignore[attr-defined]
    return twin


def check_version(session: FixtureSession, hit: Hit, settings: RequestSettings) -> None:
    """Refuse a fixture whose ``meta`` binds it to another interface or version."""
    location, fixture = hit
    wanted = (settings.wire.name, settings.version)
    found = version_mismatch(fixture.meta, *wanted)
    if found is None:
        return
    command = session.replace_hint()
    if found[0] != wanted[0]:  # the version is no help: replay asks for this interface
        hint = (
            f"Re-record it ({command}), or correct its meta.interface if it "
            f"was recorded for {wanted[0]}."
        )
    else:
        hint = (
            f"Re-record it for {wanted[1]} ({command}), or replay with "
            f"interface_version={found[1]!r} if that is the version in use."
        )
    raise InterfaceVersionError(
        f"fixture {fixture.key} at {location} was recorded for {found[0]} version {found[1]}; "
        f"this run asks for {wanted[0]} version {wanted[1]}. {hint}"
        f"{session.simulator_told(fixture.meta, command)}",
        key=fixture.key,
        store=str(session.store.path),
    )


MODEL_RERECORD = (
    '`mode="record-missing", approve_live=True` on a RecordingModel (pytest\'s '
    "--replaygate-record-mode reaches the clients of the plugin's fixtures, not a model a "
    'test builds: build a RecordingModel with `mode=replaygate_mode` when it is not "replay")'
)
"""How a miss of a model a script or a test builds says to record it (the plugin's
options reach its own clients, not such a model); ``replaygate run`` and ``eval`` name
their own commands."""
MODEL_REPLACE = MODEL_RERECORD.replace("record-missing", "rerecord")
"""How a model in a script says to record anew what it recorded."""


class _FixtureModel:
    """What both models share: a session, the request settings, a sample, the calls.

    The n-th identical request a model sends gets the n-th recorded answer (law 1): its
    first send is answered by the model's sample, each later one of an unsampled model
    (sample 0) by the next answer of a retry sequence, as an HTTP session answers repeats.
    """

    def __init__(self, session: FixtureSession, settings: RequestSettings, sample: int) -> None:
        if not is_count(sample) or sample > MAX_SAMPLE:
            raise ValueError(
                f"sample must be an integer from 0 to {MAX_SAMPLE:,} (the sample indices a "
                f"store holds), got {sample!r}"
            )
        session.rerecord = session.rerecord or MODEL_RERECORD
        session.rerecord_all = session.rerecord_all or MODEL_REPLACE
        self.session = session
        self.store = session.store
        self.settings = settings
        self.sample = sample
        self._at = Sample(sample)
        self._sent: Counter[bytes] = Counter()
        """How often each request (by its match form) was sent to this model."""
        self.calls: list[Call] = []

    def _request(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec]
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Note the call; the wire request as sent, and as it is stored and looked up (a
        conversation that is none is refused first, naming what it holds)."""
        sent = self.settings.build(messages, tools)
        self.calls.append((tuple(messages), tuple(tools)))
        return sent, self.session.stored_request(sent)

    def _position(self, request: dict[str, Any], form: bytes) -> Position:
        """Which recorded answer this send of (stored) ``request``, of match form ``form``,
        gets: the model's sample the first time, the next answer of a retry sequence after
        that (sample 0 only: a sampled run keeps one answer per request, so a repeat there
        is refused)."""
        repeat = self._sent[form]
        self._sent[form] += 1
        if repeat == 0:
            return self._at
        if self.sample == 0:
            return Repeat(repeat)
        raise FixtureMismatchError(
            f"sample {self.sample} sent this request {repeat + 1} times: key "
            f"{fixture_key(request)} in {self.store.path} keeps one answer per sample of a "
            "request, so a request repeated within a sampled run has no answer of its own. "
            "Replay it unsampled (sample=0), where each identical send gets the next "
            "recorded answer, or make the repeated request differ.",
            key=fixture_key(request),
            store=str(self.store.path),
            kind="other",
        )

    def _replayed(self, hit: Hit, at: Position) -> ModelResponse:
        """The answer at ``at`` of a recorded fixture, in engine types."""
        check_version(self.session, hit, self.settings)
        location, fixture = hit
        answer = self.session.answer(fixture.key, fixture.responses, at, fixture.meta)
        try:
            return self.settings.wire.from_response(answer)
        except WireFormatError as err:
            reason = f"the recorded response cannot be served: {err}"
            raise FixtureFormatError(str(location.file), location.line, reason) from None


class ReplayModel(_FixtureModel, KeepsRaised[ReplaygateError]):
    """A :class:`~replaygate.models.types.Model` that answers from recorded fixtures only.

    ``calls`` keeps every conversation it was asked to complete, for tests to inspect,
    and ``raised`` the replay errors it raised (a miss, a damaged fixture; the first
    :data:`~replaygate.errors.KEPT_ERRORS`).
    ``sample`` is the sample index it replays. ``sanitize`` is the pipeline whose
    request-side rules run before the lookup (default: the one configured for the
    store's project); ``interface_version`` the version the fixtures must have been
    recorded for (default: the interface's). The n-th identical request gets the n-th
    recorded answer, and one more than was recorded is a miss: use one replay model per
    run, or ``repeat_last=True`` to answer every further send with the last answer again.
    A replay model never opens a connection and patches nothing process-wide: wrap a run
    in :func:`~replaygate.network.block_network` to refuse every other way out.
    """

    def __init__(
        self,
        store: StoreArg,
        *,
        model: str,
        max_tokens: int,
        system: str | None = None,
        sample: int = 0,
        interface: str = "anthropic.messages",
        interface_version: str | None = None,
        sanitize: Sanitizer | SanitizeConfig | None = None,
        repeat_last: bool = False,
    ) -> None:
        settings = RequestSettings(model, max_tokens, system, interface, interface_version)
        session = FixtureSession(store, sanitize=sanitize, repeat_last=repeat_last)
        super().__init__(session, settings, sample)
        self.raised: list[ReplaygateError] = []

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        """The recorded response for this exact request, or a loud mismatch (kept in
        :attr:`raised`, so an agent that catches it cannot hide it)."""
        __tracebackhide__ = True
        with self.keeping(ReplaygateError):
            sent, request = self._request(messages, tools)
            form = match_form(request)
            at = self._position(request, form)
            hit = self.session.lookup(request, form)
            if hit is None:
                raise self.session.miss(request, sent=sent)
            return self._replayed(hit, at)


class RecordingModel(_FixtureModel, KeepsRaised[ReplaygateError]):
    """Records a live model's responses as fixtures, on explicit approval only.

    ``record-missing`` replays what is recorded and calls ``live`` for the rest;
    ``rerecord`` calls ``live`` and replaces the recorded response, but for a request
    the run recorded anew already (another case asking the same question), which is
    answered as ``record-missing`` answers it. A
    ``live`` model with ``complete_wire`` (:class:`WireModel`, e.g. the SDK-backed
    :class:`~replaygate.models.live.AnthropicModel`) is sent the exact request and its
    real response dict is stored; any other :class:`Model` has its response rendered in
    the interface's wire shape (``meta.source`` says ``scripted`` unless told). A
    ``live`` model with ``replayed(request, response)`` is told of each answer
    ``record-missing`` replays instead of sending (the simulator counts it as its own,
    so the samples recorded after it are new draws).

    The live model is sent the request as built; the fixture holds the sanitized
    request and response (``sanitize``, default: the one configured for the store's
    project), and the agent is handed the stored response, so it sees while recording
    exactly what replay will give it (stable tool-use ids, constructed personal data),
    and its next request already carries them. ``cap`` bounds what the live calls may
    spend (:class:`~replaygate.fixtures.spending.SpendingCap`): a call that could pass it
    is not sent. What it refuses (a request or an answer holding a secret, an answer no
    fixture can keep, the cap) is kept in :attr:`raised`, as a replay's miss is: an agent
    that catches it and goes on recorded nothing for that call, and :meth:`raise_caught`
    raises it once the agent returned.
    """

    def __init__(
        self,
        live: Model,
        store: StoreArg,
        *,
        approve_live: bool = False,
        mode: Mode = "record-missing",
        model: str,
        max_tokens: int,
        system: str | None = None,
        source: str | None = None,
        note: str | None = None,
        sample: int = 0,
        interface: str = "anthropic.messages",
        interface_version: str | None = None,
        sanitize: Sanitizer | SanitizeConfig | None = None,
        cap: SpendingCap | None = None,
    ) -> None:
        if mode not in RECORDING_MODES:
            raise ValueError(f"mode must be one of {', '.join(RECORDING_MODES)}, got {mode!r}")
        check_model(live, "RecordingModel: live")
        check_live_interface(live, interface)
        session = FixtureSession(
            store,
            mode=mode,
            approve_live=approve_live,
            source=source,
            note=note,
            sanitize=sanitize,
            cap=cap,
        )
        settings = RequestSettings(model, max_tokens, system, interface, interface_version)
        super().__init__(session, settings, sample)
        self.live = live
        self.mode = mode
        self.raised: list[ReplaygateError] = []
        self.failed_live: list[str] = []
        """What :class:`~replaygate.errors.LiveSendFailedWarning` says of each live call that
        failed (an API's error answer, a timeout): nothing was recorded for it, so code that
        went on from it (an agent giving up, retrying, falling back) replays a miss there."""
        self._one_at_a_time = threading.RLock()

    @property
    def recorded(self) -> int:
        """How many responses this model has written."""
        return self.session.recorded

    @property
    def not_kept(self) -> int:
        """How many responses this model fetched but did not write: another recording
        stored an answer to the same request first, and that one was used."""
        return self.session.not_kept

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        """Replay if recorded (``record-missing``), else call live and record. Threads
        sharing the model complete one at a time: the answers of identical sends are
        stored in the order the sends took their places, each where replay looks for it
        (in parallel they were stored out of place, lost, or read back before written)."""
        with self._one_at_a_time, self.keeping(ReplaygateError):
            return self._complete(messages, tools)

    def _complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        sent, request = self._request(messages, tools)
        form = match_form(request)
        at = self._position(request, form)
        # recording anew, what the run recorded anew already is answered as record-missing
        # answers it: a question two cases ask is recorded once, as record-missing does
        if self.mode == "record-missing" or recorded_anew(self.store.path, digest(request)):
            hit = self._recorded(request, form, at)
            if hit is not None:
                answer = self._replayed(hit, at)
                told = getattr(self.live, "replayed", None)
                if callable(told):  # the simulator counts it, as if it had answered
                    told(sent, hit[1].sample(at.index))
                return answer
        try:
            return self._live_call(messages, tools, sent, request, at)
        except BaseException:
            # no answer kept (a live error, Ctrl-C, one no fixture can hold, a refusal):
            # the next identical send takes this place, as an HTTP send that got none does
            self._sent[form] -= 1
            raise

    def _live_call(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        sent: dict[str, Any],
        request: dict[str, Any],
        at: Position,
    ) -> ModelResponse:
        """Call the live model for ``request`` (``sent`` as sent) and record its answer at
        ``at``."""
        wire = self.settings.wire
        self.session.reserve(request, wire.name, self.settings.version)
        try:
            if isinstance(self.live, WireModel):
                response = self.live.complete_wire(sent)
                source = "sim" if getattr(self.live, "simulated", False) is True else "live"
            else:
                engine_response = self.live.complete(messages, tools)
                response = wire.render_response(engine_response, model=self.settings.model)
                source = "scripted"
        except BaseException as err:
            self.session.release(request)
            status = getattr(err, "status_code", getattr(err, "code", None))  # an SDK's error
            # google-genai's error holds the API's JSON as ``details``: Gemini's 400 of a
            # key that is not valid says so there
            refused = credentials_refused(status, getattr(err, "details", None))
            if refused is not None:
                err.add_note(refusal_note(refused, wire.name))
            elif isinstance(err, Exception) and not any(
                isinstance(e, ReplaygateError) for e in exception_chain(err)
            ):
                # an agent that gives up on it, or retries it, records green what replay misses
                call = f"an {wire.name} call to {self.settings.model!r}"
                self.failed_live.append(failed_send(call, err, "failed"))
            raise
        try:  # read as its replay will read it: no fixture is written that none can serve
            wire.from_response(response)
        except WireFormatError as err:
            if source == "live":
                self.session.charge_bound(request)  # billed, though not kept
            else:
                self.session.release(request)
            raise WireFormatError(err.path, f"{err.reason}; the answer was not recorded") from None
        meta = self.session.meta(wire.name, self.settings.version, source)
        fixture = self.session.record(request, response, at, interface=wire.name, meta=meta)
        return wire.from_response(fixture.responses[at.index])

    def _recorded(self, request: dict[str, Any], form: bytes, at: Position) -> Hit | None:
        """The fixture holding the answer at ``at`` to ``request`` (of match form ``form``),
        if one was recorded."""
        hit = self.session.lookup(request, form)
        if hit is not None and hit[1].sample(at.index) is None:
            self.store.refresh()
            hit = self.session.lookup(request, form)
        return hit if hit is not None and hit[1].sample(at.index) is not None else None
