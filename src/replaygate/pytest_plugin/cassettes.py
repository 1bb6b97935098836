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
        """The plays of model calls by the cassette so far, for a model call; else None."""
        cassette = self._cassette()
        if cassette is None or not is_model_api(slot.path):
            return None
        return _model_plays(cassette)

    def after(self, slot: LiveSlot, before: object) -> ReplaygateError | None:
        """The refusal of a model call the cassette answered, or None."""
        cassette = self._cassette()
        if not isinstance(before, dict) or cassette is None:
            return None
        played = [i for i, count in _model_plays(cassette).items() if count > before.get(i, 0)]
        if not played:
            return None
        loaded = getattr(cassette, "_loaded_count", None)
        if not isinstance(loaded, int):
            loaded = len(getattr(cassette, "_old_interactions", ()))
        mode = getattr(cassette, "record_mode", "")
        return CassetteAnsweredError(
            slot.request,
            str(getattr(cassette, "_path", "")),
            recorded_now=str(getattr(mode, "value", mode)) if min(played) >= loaded else "",
        )


def _model_plays(cassette: Any) -> dict[int, int]:
    """How many times ``cassette`` answered each of its model API's calls, by index."""
    requests = cassette.requests
    return {
        index: count
        for index, count in cassette.play_counts.items()
        if is_model_api(urlsplit(requests[index].uri).path)
    }
