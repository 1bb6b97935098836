"""Refusing, while recording, a model call that respx or responses answered in the process.

respx, an HTTP mock of ``httpx``, answers below the client (in its connection pool, by
default), where a recording's live send goes: a route the test set for another API that
also matches, or a catch-all (``respx.route()``, ``respx.mock(assert_all_mocked=False)``,
which answers any request it has no route for with an empty 200), answers a model call
there, and that answer would be stored as the model's (labelled the simulator's when
recording from it). So does responses, a mock of ``requests``, in place of its adapter's
``send``. Every recording session checks its live model calls against the calls they
answered (respx's routers' public ``calls``, the ``calls`` of each response registered with
the active mock of responses), as the pytest plugin checks them against a vcrpy cassette
(:mod:`replaygate.pytest_plugin.cassettes`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import urlsplit

from replaygate.errors import MockAnsweredError, ReplaygateError
from replaygate.http.envelope import is_model_api


class LiveSend(Protocol):
    """What the guard reads of a live send: a :class:`~replaygate.http.exchange.LiveSlot`,
    named by what it holds since the exchange imports this module."""

    @property
    def path(self) -> str: ...

    @property
    def request(self) -> str: ...


def _respx_model_answers() -> int | None:
    """How many model API calls the respx routers active in this process answered, or
    None when respx is not imported."""
    mocks = sys.modules.get("respx.mocks")
    registry: Any = getattr(getattr(mocks, "Mocker", None), "registry", None)
    if registry is None:
        return None
    routers = {id(r): r for mocker in registry.values() for r in getattr(mocker, "routers", ())}
    return sum(
        1
        for router in routers.values()
        for call in list(router.calls)
        if call.optional_response is not None and is_model_api(call.request.url.path)
    )


def _responses_model_answers() -> int | None:
    """How many model API calls the active mock of responses answered from a response
    registered with it (one registered to pass through excepted), or None when none is
    active. It answers in place of ``requests``' ``HTTPAdapter.send``: a function closing
    over the mock."""
    if "responses" not in sys.modules:
        return None
    adapter = getattr(sys.modules.get("requests.adapters"), "HTTPAdapter", None)
    cells = getattr(getattr(adapter, "send", None), "__closure__", None) or ()
    mocks = []
    for cell in cells:
        try:
            held = cell.cell_contents
        except ValueError:  # a cell not filled yet
            continue
        if type(held).__module__.partition(".")[0] == "responses" and hasattr(held, "registered"):
            mocks.append(held)
    if not mocks:
        return None
    return sum(
        1
        for mock in mocks
        for registered in mock.registered()
        if not getattr(registered, "passthrough", False)
        for call in list(registered.calls)
        if not isinstance(call.response, BaseException)
        and is_model_api(urlsplit(str(call.request.url)).path)
    )


@dataclass(frozen=True)
class MockPlays:
    """A live guard (:class:`~replaygate.http.exchange.LiveGuard`) of every recording: a
    model call that an HTTP mock active in the process answered while it was sent is
    refused (:class:`MockAnsweredError`)."""

    answers: Callable[[], int | None]
    """How many model calls the mock answered so far; None when it is not in use."""
    mock: str
    """What the mock is, as the refusal names it."""
    let_by: str
    """How to let the model calls past it."""

    def before(self, slot: LiveSend) -> object:
        """The model calls the mock answered so far, for a model call with it in use."""
        return self.answers() if is_model_api(slot.path) else None

    def after(self, slot: LiveSend, before: object) -> ReplaygateError | None:
        """The refusal of a model call the mock answered, or None."""
        if not isinstance(before, int) or self.answers() == before:
            return None
        return MockAnsweredError(slot.request, self.mock, self.let_by)


RESPX_PLAYS = MockPlays(
    _respx_model_answers,
    "respx (a route or the catch-all of a respx mock active in this process)",
    "a pass-through route for their host ahead of any catch-all: "
    '`respx.route(host="api.openai.com").pass_through()`, or '
    '`respx.route(host="127.0.0.1").pass_through()` for the simulator',
)
RESPONSES_PLAYS = MockPlays(
    _responses_model_answers,
    "responses (a response registered with the mock of requests active in this process)",
    "no registered response matching them, and their host passed through: "
    '`responses.add_passthru("https://api.openai.com")`, or '
    '`responses.add_passthru("http://127.0.0.1")` for the simulator',
)
MOCK_PLAYS = (RESPX_PLAYS, RESPONSES_PLAYS)
"""The guards: the mocks' answers are the process's."""
