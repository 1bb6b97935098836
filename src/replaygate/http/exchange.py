"""One record/replay session: the decision for each request, the counters, the writes.

:class:`Exchange` is shared by the ``httpx``/``httpx2`` transports and by
:func:`~replaygate.http.intercept`. Repeated sends of the same request (an SDK
retrying a 429, a loop asking twice) are answered by the fixture's ``responses`` in
order, one per send within the session; once they are used up, the last one
repeats. HTTP fixtures use the ``responses`` list for this, not for sample indexes.

Recording runs the session's :class:`~replaygate.sanitize.Sanitizer`: the SDK reads
the live bytes, the fixture gets the sanitized response, and an :class:`IdMap`
remembers each volatile id it replaced, so the next request (which echoes the live
tool-use id) is stored and keyed with the stable id the replayed response will hand
out. Replay runs the request-side rules before the lookup; a miss whose nearest
recorded request differs only by ``anthropic-version`` says which versions.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from typing import Any

import orjson

from replaygate.errors import (
    FixtureFormatError,
    FixtureMismatchError,
    LiveCallNotApproved,
    ReplaygateError,
    WireFormatError,
)
from replaygate.fixtures import hits
from replaygate.fixtures.diff import field_diff
from replaygate.fixtures.fingerprint import canonical_json, fixture_key
from replaygate.fixtures.fixture import Fixture, InterfaceVersionError, check_source, make_meta
from replaygate.fixtures.mismatch import mismatch_error
from replaygate.fixtures.store import FixtureStore, record_response
from replaygate.http.envelope import (
    RequestLike,
    interface_of,
    interface_version_of,
    request_envelope,
)
from replaygate.http.passthrough import passthrough
from replaygate.http.recorded import Replayed, replayed
from replaygate.http.usage import counter_for
from replaygate.models.replay import MODES, RECORDING_MODES
from replaygate.sanitize import IdMap, SanitizeConfig, Sanitizer, refuse_secrets, resolve

StoreArg = FixtureStore | str | os.PathLike[str]


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
    """A request that goes live and is recorded: its envelope and identity."""

    envelope: dict[str, Any]
    identity: bytes


@dataclass(frozen=True, slots=True)
class _Hit:
    """A recorded request's key and its answers, ready to replay (the fixture is not kept)."""

    key: str
    answers: tuple[Replayed, ...]


def identity_of(envelope: dict[str, Any]) -> bytes:
    """A byte form of an envelope, equal for two envelopes iff their canonical forms are.

    Envelopes are parsed JSON (no NaN, string keys), so orjson's sorted form is exact;
    anything orjson refuses falls back to the canonical text.
    """
    try:
        return orjson.dumps(envelope, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        return b"\x00" + canonical_json(envelope).encode("utf-8")


VERSION_PATH = "headers.anthropic-version"


def _version_header(envelope: dict[str, Any]) -> str | None:
    headers = envelope.get("headers")
    version = headers.get("anthropic-version") if isinstance(headers, dict) else None
    return version if isinstance(version, str) else None


class Exchange:
    """One record/replay session over a store: the decisions, the counters, the writes.

    ``mode`` is ``replay`` (never live; a miss raises
    :class:`~replaygate.errors.FixtureMismatchError`), ``record-missing`` (replay
    what is recorded, record the rest) or ``rerecord`` (record everything anew);
    the recording modes need ``approve_live=True``. ``match_host`` adds the host to
    the envelope. ``source`` (``live`` by default, ``sim`` for a simulator) and
    ``interface`` (for paths that name none) go into the fixture ``meta``.
    ``sanitize`` is the pipeline (default: the nearest ``pyproject.toml``'s).
    ``lookups`` counts the store lookups (a request already answered in this session
    is answered again without one), ``replays`` the answers given from fixtures,
    ``recorded`` the responses written.
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
        sanitize: Sanitizer | SanitizeConfig | None = None,
    ) -> None:
        check_mode(mode, approve_live)
        if source is not None:
            check_source(source)
        self.store = open_store(store)
        self.mode = mode
        self.match_host = match_host
        self.source = source or "live"
        self.interface = interface
        self.note = note
        self.sanitizer = resolve(sanitize)
        self.ids = IdMap()
        self.lookups = 0
        self.replays = 0
        self.recorded = 0
        self._lock = threading.Lock()
        self._sent: dict[bytes, int] = {}
        self._written: dict[bytes, int] = {}
        self._live: set[bytes] = set()
        self._hits: dict[bytes, _Hit] = {}
        self._uses = counter_for(self.store)

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
        """The recorded answer to ``request``, or the slot of a live call to record.

        Every replaygate error (a miss, a request with no canonical form, a damaged
        store) is raised so the SDKs pass it through unwrapped.
        """
        try:
            return self._plan(request)
        except ReplaygateError as err:
            raise passthrough(err) from None

    def _plan(self, request: RequestLike) -> Replayed | LiveSlot:
        envelope = self._stored_form(request_envelope(request, match_host=self.match_host))
        identity = identity_of(envelope)
        with self._lock:
            sent = self._sent.get(identity, 0)
            self._sent[identity] = sent + 1
            live = self.mode == "rerecord" or identity in self._live
        if live:
            return LiveSlot(envelope, identity)
        hit = self._find(envelope, identity)
        if hit is None and self.recording:
            self.store.refresh()
            hit = self._find(envelope, identity)
            if hit is None:
                with self._lock:
                    self._live.add(identity)
                return LiveSlot(envelope, identity)
        if hit is None:
            raise self._miss(envelope, fixture_key(envelope))
        answers = hit.answers
        self.replays += 1
        self._uses[hit.key] += 1
        hits.note(self.store.path, hit.key)
        return answers[min(sent, len(answers) - 1)]

    def _stored_form(self, envelope: dict[str, Any]) -> dict[str, Any]:
        """The envelope as it is keyed and stored: the request-side sanitize steps applied.

        While recording, the session's id map turns echoed live ids into stable ones,
        and rules that would change the result again are refused.
        """
        sanitizer = self.sanitizer
        if self.recording:
            envelope = sanitizer.envelope(envelope, self.ids)
            sanitizer.check_stable({k: v for k, v in envelope.items() if k in ("body", "text")})
        elif sanitizer.request_side:
            envelope = sanitizer.envelope(envelope)
        return envelope

    def _miss(self, envelope: dict[str, Any], key: str) -> FixtureMismatchError:
        """The loud error of a miss; it names both versions when only they differ."""
        near = self.store.nearest(envelope) if _version_header(envelope) else None
        if near is not None:
            location, fixture = near
            differences = field_diff(fixture.request, envelope)
            if differences and all(d.path == VERSION_PATH for d in differences):
                recorded = _version_header(fixture.request) or "(none)"
                requested = _version_header(envelope)
                return InterfaceVersionError(
                    f"no fixture recorded for this HTTP request: key {key} not in "
                    f"{self.store.path}. The nearest, key {fixture.key} at {location}, was "
                    f"recorded for anthropic-version {recorded}, requested {requested}: the "
                    "client speaks another API version. Re-record for it "
                    "(--record-mode=rerecord --approve-live), or pin the client to "
                    f"anthropic-version {recorded}.",
                    key=key,
                    store=str(self.store.path),
                    differences=tuple(d.render() for d in differences),
                )
        return mismatch_error(self.store, envelope, key, what="HTTP request")

    def _find(self, envelope: dict[str, Any], identity: bytes) -> _Hit | None:
        hit = self._hits.get(identity)
        if hit is not None:
            return hit
        self.lookups += 1
        found = self.store.find(envelope)
        if found is None:
            return None
        location, fixture = found
        try:
            answers = tuple(replayed(r, key=fixture.key) for r in fixture.responses)
        except WireFormatError as err:
            where = (str(location.file), location.line)
            raise FixtureFormatError(*where, f"not an HTTP fixture: {err}") from None
        hit = _Hit(fixture.key, answers)
        self._hits[identity] = hit
        return hit

    # -- recording ---------------------------------------------------------------------

    def interface_for(self, envelope: dict[str, Any]) -> str:
        """The interface of ``envelope``'s path (or the session's, for a path naming none)."""
        interface = interface_of(str(envelope.get("path", "")))
        return self.interface if interface == "http" and self.interface else interface

    def meta(self, envelope: dict[str, Any]) -> dict[str, Any]:
        """The ``meta`` of a fixture recorded now for ``envelope``."""
        return make_meta(
            self.interface_for(envelope), interface_version_of(envelope), self.source, self.note
        )

    def record(self, slot: LiveSlot, response: dict[str, Any]) -> Fixture:
        """Store ``response`` as the next answer to ``slot`` in this session."""
        with self._lock:
            index = self._written.get(slot.identity, 0)
            self._written[slot.identity] = index + 1
        meta = self.meta(slot.envelope)
        store = self.store
        try:
            response = self.sanitizer.recorded(
                response,
                key=fixture_key(slot.envelope),
                interface=self.interface_for(slot.envelope),
                ids=self.ids,
            )
            refuse_secrets(slot.envelope, response)
            if index == 0 and self.mode == "rerecord":
                fixture = Fixture.create(slot.envelope, [response], meta)
                store.put(fixture, replace=True)
            else:
                with store.lock():
                    store.refresh()
                    found = store.find(slot.envelope)
                    sample = min(index, found[1].samples if found else 0)
                    fixture = record_response(
                        store, slot.envelope, response, sample=sample, meta=meta
                    )
        except Exception as err:
            raise passthrough(err) from None
        self.recorded += 1
        self._uses[fixture.key] += 1
        return fixture
