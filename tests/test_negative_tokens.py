"""A token count edited by hand to a negative number is refused naming its field: it
replayed, passed ``verify`` and lowered what a run was said to cost."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from replaygate.errors import FixtureFormatError, WireFormatError
from replaygate.fixtures.fixture import Fixture, make_meta
from replaygate.fixtures.store import FixtureStore
from replaygate.models.providers.anthropic import from_anthropic_response, to_anthropic_request
from replaygate.models.providers.google_gemini import from_gemini_response
from replaygate.models.providers.openai_chat import from_openai_response
from replaygate.models.providers.openai_responses import from_responses_response
from replaygate.models.replay import ReplayModel
from replaygate.models.types import Message
from run_cli import replaygate

ANSWER = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5",
    "content": [{"type": "text", "text": "RAG retrieves, then generates."}],
    "stop_reason": "end_turn",
    "usage": {"input_tokens": -193, "output_tokens": 12},
}
ASK = [Message.user("What is RAG?")]


@pytest.mark.parametrize(
    ("read", "response", "field"),
    [
        (from_anthropic_response, ANSWER, "response.usage.input_tokens"),
        (
            from_openai_response,
            {
                "choices": [{"message": {"role": "assistant", "content": "ok"}}],
                "usage": {"prompt_tokens": 5, "completion_tokens": -1},
            },
            "response.usage.completion_tokens",
        ),
        (
            from_responses_response,
            {"output": [], "status": "completed", "usage": {"input_tokens": -5}},
            "response.usage.input_tokens",
        ),
        (
            from_gemini_response,
            {
                "candidates": [{"content": {"parts": [{"text": "ok"}]}, "finishReason": "STOP"}],
                "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": -2},
            },
            "response.usageMetadata.candidatesTokenCount",
        ),
    ],
    ids=["anthropic", "chat", "responses", "gemini"],
)
def test_each_wire_reader_refuses_a_negative_count_naming_it(
    read: Callable[[Mapping[str, Any]], Any], response: dict[str, Any], field: str
) -> None:
    with pytest.raises(WireFormatError, match="a count of tokens, 0 or more, got -") as raised:
        read(response)
    assert raised.value.path == field


def _store(tmp_path: Path) -> Path:
    store = tmp_path / "s.jsonl"
    request = to_anthropic_request(ASK, [], model="claude-sonnet-4-5", max_tokens=64)
    meta = make_meta("anthropic.messages", "2023-06-01", "hand")
    with FixtureStore.open(store) as opened:
        opened.put(Fixture.create(request, [ANSWER], meta))
    return store


def test_verify_and_replay_name_a_negative_count_by_line_and_field(tmp_path: Path) -> None:
    store = _store(tmp_path)
    done = replaygate("verify", str(store))
    assert done.returncode == 1
    assert f"{store}:1: " in done.stdout and "response.usage.input_tokens" in done.stdout
    model = ReplayModel(store, model="claude-sonnet-4-5", max_tokens=64)
    with pytest.raises(FixtureFormatError, match=r"usage\.input_tokens") as raised:
        model.complete(ASK, [])
    assert raised.value.line == 1
