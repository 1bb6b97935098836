"""Refusing, while recording, a model call pytest-httpx's ``httpx_mock`` answers.

pytest-httpx answers every request of an ``httpx`` client's own transport in a test that
uses its ``httpx_mock`` fixture, below the client, where a recording's live send goes: a
response the test gave for another API that matches a model call too, or one given with
no URL (``httpx_mock.add_response(json=...)``, which matches any request), answers the
model call there, and that answer would be stored as the model's.
"""

from __future__ import annotations

from typing import Any

import pytest

from replaygate.errors import MockAnsweredError, ReplaygateError
from replaygate.http.envelope import is_model_api
from replaygate.http.exchange import LiveSlot

LET_BY = (
    "leave their host to the network: "
    '`@pytest.mark.httpx_mock(should_mock=lambda request: request.url.host != "127.0.0.1")` '
    "for the simulator, naming the API's host for the live API"
)
"""How to let the model calls past ``httpx_mock`` (its ``should_mock`` option)."""


class HttpxMockPlays:
    """The live guard (:class:`~replaygate.http.exchange.LiveGuard`) of a recording test
    using pytest-httpx's ``httpx_mock``: a model call it answered is refused
    (:class:`~replaygate.errors.MockAnsweredError`)."""

    def __init__(self, item: pytest.Item) -> None:
        self.item = item

    def _model_calls(self) -> int | None:
        """How many model calls ``httpx_mock`` was sent so far, once it is set up; else None."""
        mock: Any = getattr(self.item, "funcargs", {}).get("httpx_mock")
        if not hasattr(mock, "get_requests"):
            return None
        return sum(1 for request in mock.get_requests() if is_model_api(request.url.path))

    def before(self, slot: LiveSlot) -> object:
        """The model calls ``httpx_mock`` was sent so far, for a model call; else None."""
        return self._model_calls() if is_model_api(slot.path) else None

    def after(self, slot: LiveSlot, before: object) -> ReplaygateError | None:
        """The refusal of a model call ``httpx_mock`` answered, or None."""
        if not isinstance(before, int) or self._model_calls() == before:
            return None
        return MockAnsweredError(slot.request, "pytest-httpx's httpx_mock", LET_BY)
