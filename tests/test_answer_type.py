"""A stored Messages API answer whose ``type`` is not ``message`` (an error's body, or a
hand edit) is refused naming the field: it replayed as an answer and passed ``verify``."""

from __future__ import annotations

from pathlib import Path

import pytest

from replaygate.errors import FixtureFormatError
from replaygate.fixtures.fixture import Fixture, make_meta
from replaygate.fixtures.store import FixtureStore
from replaygate.models.providers.anthropic import to_anthropic_request
from replaygate.models.replay import ReplayModel
from replaygate.models.types import Message
from run_cli import replaygate
from wire_shapes import text_answer

ASK = [Message.user("What is RAG?")]


def _store(tmp_path: Path, kind: str) -> Path:
    store = tmp_path / "s.jsonl"
    request = to_anthropic_request(ASK, [], model="m", max_tokens=64)
    meta = make_meta("anthropic.messages", "2023-06-01", "hand")
    with FixtureStore.open(store) as opened:
        opened.put(Fixture.create(request, [{**text_answer("RAG."), "type": kind}], meta))
    return store


def test_an_answer_of_another_type_is_refused_by_verify_and_replay(tmp_path: Path) -> None:
    store = _store(tmp_path, "error")
    done = replaygate("verify", str(store))
    assert done.returncode == 1, done.stdout
    assert f"{store}:1: " in done.stdout
    assert "response.type: expected 'message', got 'error'" in done.stdout
    model = ReplayModel(store, model="m", max_tokens=64)
    with pytest.raises(FixtureFormatError, match=r"response\.type: expected 'message'"):
        model.complete(ASK, [])


def test_a_message_replays(tmp_path: Path) -> None:
    store = _store(tmp_path, "message")
    assert replaygate("verify", str(store)).returncode == 0
    assert ReplayModel(store, model="m", max_tokens=64).complete(ASK, []).text == "RAG."
