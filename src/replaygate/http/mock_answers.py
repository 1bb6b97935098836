"""Refusing, while recording, a model call that respx answered in the process.

respx, an HTTP mock of ``httpx``, answers below the client (in its connection pool, by
default), where a recording's live send goes: a route the test set for another API that
also matches, or a catch-all (``respx.route()``, ``respx.mock(assert_all_mocked=False)``,
which answers any request it has no route for with an empty 200), answers a model call
there, and that answer would be stored as the model's (labelled the simulator's when
recording from it). Every recording session checks its live model calls against the
calls respx answered (its routers' public ``calls``), as the pytest plugin checks them
against a vcrpy cassette (:mod:`replaygate.pytest_plugin.cassettes`).
"""

from __future__ import annotations

import sys
from typing import Any, Protocol

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


class RespxPlays:
    """A live guard (:class:`~replaygate.http.exchange.LiveGuard`) of every recording: a
    model call that respx answered while it was sent is refused (:class:`MockAnsweredError`)."""

    def before(self, slot: LiveSend) -> object:
        """The model calls respx answered so far, for a model call with respx imported."""
        return _respx_model_answers() if is_model_api(slot.path) else None

    def after(self, slot: LiveSend, before: object) -> ReplaygateError | None:
        """The refusal of a model call respx answered, or None."""
        if not isinstance(before, int) or _respx_model_answers() == before:
            return None
        return MockAnsweredError(
            slot.request,
            "respx (a route or the catch-all of a respx mock active in this process)",
            "a pass-through route for their host ahead of any catch-all: "
            '`respx.route(host="api.openai.com").pass_through()`, or '
            '`respx.route(host="127.0.0.1").pass_through()` for the simulator',
        )


RESPX_PLAYS = RespxPlays()
"""The one guard: respx's routers are the process's."""
