"""Replay and recording at the engine boundary: :class:`ReplayModel`, :class:`RecordingModel`.

Both take the same :class:`RequestSettings`, so what is recorded is exactly what
replay looks up. Replay answers only a request equal to a recorded one (law 1) and
raises :class:`~replaygate.errors.FixtureMismatchError` otherwise (law 2). Recording
needs an explicit approval (law 3).

Both run the same :class:`~replaygate.sanitize.Sanitizer` (``sanitize=``, by default
the one configured in the nearest ``pyproject.toml``): recording stores and keys the
sanitized request and response and hands the agent the stored response, exactly
what replay will hand it; replay runs the request-side rules before the lookup. A
fixture recorded for another interface version than the one configured is refused
with :class:`~replaygate.fixtures.fixture.InterfaceVersionError`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

from replaygate.errors import FixtureMismatchError, LiveCallNotApproved
from replaygate.fixtures import hits
from replaygate.fixtures.fingerprint import fixture_key
from replaygate.fixtures.fixture import (
    Fixture,
    InterfaceVersionError,
    check_source,
    make_meta,
    version_mismatch,
)
from replaygate.fixtures.mismatch import mismatch_error
from replaygate.fixtures.store import FixtureStore, Location, record_response
from replaygate.models.providers import Interface, get_interface
from replaygate.models.types import Message, Model, ModelResponse, ToolSpec
from replaygate.sanitize import SanitizeConfig, Sanitizer, refuse_secrets, resolve

Mode = Literal["replay", "record-missing", "rerecord"]
MODES: tuple[str, ...] = ("replay", "record-missing", "rerecord")
RECORDING_MODES: tuple[str, ...] = ("record-missing", "rerecord")

Call = tuple[tuple[Message, ...], tuple[ToolSpec, ...]]


@runtime_checkable
class WireModel(Protocol):
    """A live model that answers a wire request with the provider's wire response dict."""

    def complete_wire(self, request: dict[str, Any]) -> dict[str, Any]:
        """Send ``request`` as it is and return the response body as a dict."""
        ...


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

    @property
    def wire(self) -> Interface:
        """The interface's converters."""
        return get_interface(self.interface)

    @property
    def version(self) -> str:
        """The interface version fixtures are recorded for and replayed at."""
        return self.interface_version or self.wire.version

    def build(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> dict[str, Any]:
        """The wire request for this conversation."""
        return self.wire.build_request(
            messages, tools, model=self.model, max_tokens=self.max_tokens, system=self.system
        )


def _open(store: FixtureStore | str | os.PathLike[str]) -> FixtureStore:
    return store if isinstance(store, FixtureStore) else FixtureStore.open(Path(store))


def check_version(
    store: FixtureStore, location: Location, fixture: Fixture, settings: RequestSettings
) -> None:
    """Refuse a fixture whose ``meta`` binds it to another interface or version."""
    wanted = (settings.wire.name, settings.version)
    found = version_mismatch(fixture.meta, *wanted)
    if found is None:
        return
    raise InterfaceVersionError(
        f"fixture {fixture.key} at {location} was recorded for {found[0]} version {found[1]}; "
        f"this run asks for {wanted[0]} version {wanted[1]}. Re-record it for {wanted[1]} "
        "(--record-mode=rerecord --approve-live), or replay with "
        f"interface_version={found[1]!r} if that is the version in use.",
        key=fixture.key,
        store=str(store.path),
    )


def _recorded_sample(store: FixtureStore, fixture: Fixture, sample: int) -> Any:
    """The response of ``sample``, or a mismatch naming what was recorded."""
    response = fixture.sample(sample)
    if response is not None:
        return response
    recorded = [i for i, r in enumerate(fixture.responses) if r is not None]
    raise FixtureMismatchError(
        f"fixture {fixture.key} in {store.path} has no response for sample {sample} "
        f"(recorded samples: {recorded}); when it was recorded, sample {sample} did not send "
        "this request, or fewer samples were recorded. Record the samples again "
        "(--record-mode=record-missing --approve-live) or lower the sample count.",
        key=fixture.key,
        store=str(store.path),
    )


class ReplayModel:
    """A :class:`~replaygate.models.types.Model` that answers from recorded fixtures only.

    ``calls`` keeps every conversation it was asked to complete, for tests to inspect.
    ``sanitize`` is the pipeline whose request-side rules run before the lookup
    (default: the nearest ``pyproject.toml``'s); ``interface_version`` the version the
    fixtures must have been recorded for (default: the interface's).
    """

    def __init__(
        self,
        store: FixtureStore | str | os.PathLike[str],
        *,
        model: str,
        max_tokens: int,
        system: str | None = None,
        sample: int = 0,
        interface: str = "anthropic.messages",
        interface_version: str | None = None,
        sanitize: Sanitizer | SanitizeConfig | None = None,
    ) -> None:
        self.store = _open(store)
        self.settings = RequestSettings(model, max_tokens, system, interface, interface_version)
        self.sample = sample
        self.sanitizer = resolve(sanitize)
        self.calls: list[Call] = []
        self._wire = self.settings.wire

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        """The recorded response for this exact request, or a loud mismatch."""
        self.calls.append((tuple(messages), tuple(tools)))
        settings = self.settings
        request = self._wire.to_request(
            messages,
            tools,
            model=settings.model,
            max_tokens=settings.max_tokens,
            system=settings.system,
        )
        if self.sanitizer.request_side:
            request = self.sanitizer.request(request)
        found = self.store.find(request)
        if found is None:
            raise mismatch_error(self.store, request, fixture_key(request))
        location, fixture = found
        check_version(self.store, location, fixture, settings)
        response = _recorded_sample(self.store, fixture, self.sample)
        hits.note(self.store.path, fixture.key)
        return self._wire.from_response(response)


class RecordingModel:
    """Records a live model's responses as fixtures, on explicit approval only.

    ``record-missing`` replays what is recorded and calls ``live`` for the rest;
    ``rerecord`` calls ``live`` every time and replaces the recorded response. A
    ``live`` model with ``complete_wire`` (:class:`WireModel`, e.g. the SDK-backed
    :class:`~replaygate.models.live.AnthropicModel`) is sent the exact request and its real
    response dict is stored; any other :class:`Model` has its response rendered in
    the interface's wire shape (``meta.source`` says ``scripted`` unless told).

    The live model is sent the request as built; the fixture holds the sanitized
    request and response (``sanitize``, default: the nearest ``pyproject.toml``'s),
    and the agent is handed the stored response, so it sees while recording exactly
    what replay will give it (stable tool-use ids, constructed personal data), and
    its next request already carries them.
    """

    def __init__(
        self,
        live: Model,
        store: FixtureStore | str | os.PathLike[str],
        *,
        approve_live: bool = False,
        mode: Mode = "record-missing",
        model: str,
        max_tokens: int,
        system: str | None = None,
        sample: int = 0,
        interface: str = "anthropic.messages",
        interface_version: str | None = None,
        source: str | None = None,
        note: str | None = None,
        sanitize: Sanitizer | SanitizeConfig | None = None,
    ) -> None:
        if mode not in RECORDING_MODES:
            raise ValueError(f"mode must be one of {', '.join(RECORDING_MODES)}, got {mode!r}")
        if source is not None:
            check_source(source)
        if approve_live is not True:
            raise LiveCallNotApproved(
                f"mode {mode!r} makes live model calls and needs an explicit approval for this "
                "run: pass approve_live=True (CLI: --approve-live). Nothing was called."
            )
        self.live = live
        self.store = _open(store)
        self.settings = RequestSettings(model, max_tokens, system, interface, interface_version)
        self.sanitizer = resolve(sanitize)
        self.mode = mode
        self.sample = sample
        self.source = source
        self.note = note
        self.calls: list[Call] = []
        self.recorded = 0

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        """Replay if recorded (``record-missing``), else call live and record."""
        self.calls.append((tuple(messages), tuple(tools)))
        sent = self.settings.build(messages, tools)
        request = self.sanitizer.request(sent)
        self.sanitizer.check_stable(request)
        wire = self.settings.wire
        if self.mode == "record-missing":
            found = self.store.find(request)
            if found is None or found[1].sample(self.sample) is None:
                self.store.refresh()
                found = self.store.find(request)
            if found is not None and found[1].sample(self.sample) is not None:
                check_version(self.store, found[0], found[1], self.settings)
                return wire.from_response(found[1].responses[self.sample])
        if isinstance(self.live, WireModel):
            response = self.live.complete_wire(sent)
            source = self.source or "live"
        else:
            engine_response = self.live.complete(messages, tools)
            response = wire.render_response(engine_response, model=self.settings.model)
            source = self.source or "scripted"
        stored = self.sanitizer.response(response, key=fixture_key(request), interface=wire.name)
        refuse_secrets(request, stored)
        fixture = record_response(
            self.store,
            request,
            stored,
            sample=self.sample,
            meta=self._meta(source),
            overwrite=self.mode == "rerecord",
        )
        self.recorded += 1
        return wire.from_response(fixture.responses[self.sample])

    def _meta(self, source: str) -> dict[str, Any]:
        return make_meta(self.settings.wire.name, self.settings.version, source, self.note)
