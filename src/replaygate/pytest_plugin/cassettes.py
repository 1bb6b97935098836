"""Refusing, while recording, a model call vcrpy answers from the test's cassette.

A test moving from pytest-recording may keep its ``vcr`` mark while its cassette still
answers the other APIs it calls. vcrpy patches the HTTP libraries a recording sends
through live and answers a request its cassette holds, matched by method and URL, not
by the body: a model call the cassette still holds would be answered with an answer
recorded earlier (perhaps to another prompt), and stored as the model's.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import pytest

from replaygate.errors import CassetteAnsweredError, ReplaygateError
from replaygate.http.envelope import is_model_api
from replaygate.http.exchange import LiveSlot


class CassettePlays:
    """The live guard (:class:`~replaygate.http.exchange.LiveGuard`) of a recording test
    under pytest-recording's ``vcr`` fixture: a send to a model API's path while which
    the cassette played a model call is refused (:class:`CassetteAnsweredError`)."""

    def __init__(self, item: pytest.Item) -> None:
        self.item = item

    def _cassette(self) -> Any:
        """The test's cassette, once pytest-recording's fixture set it up, or None."""
        cassette = getattr(self.item, "funcargs", {}).get("vcr")
        return cassette if hasattr(cassette, "play_counts") else None

    def before(self, slot: LiveSlot) -> object:
        """The model calls the cassette played so far, for a model call; else None."""
        cassette = self._cassette()
        if cassette is None or not is_model_api(slot.path):
            return None
        return _model_plays(cassette)

    def after(self, slot: LiveSlot, before: object) -> ReplaygateError | None:
        """The refusal of a model call the cassette answered, or None."""
        cassette = self._cassette()
        if not isinstance(before, int) or cassette is None or _model_plays(cassette) == before:
            return None
        return CassetteAnsweredError(slot.request, str(getattr(cassette, "_path", "")))


def _model_plays(cassette: Any) -> int:
    """How many times ``cassette`` answered a model API's call."""
    requests = cassette.requests
    return sum(
        count
        for index, count in cassette.play_counts.items()
        if is_model_api(urlsplit(requests[index].uri).path)
    )
