"""The engine boundary as a team with its own agent loop uses it: the stop reasons the
APIs send outside the engine's vocabulary replay as what they mean."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from replaygate import Message, ModelResponse
from replaygate.fixtures.fingerprint import fixture_key
from replaygate.fixtures.fixture import make_meta
from replaygate.models.providers import (
    from_anthropic_response,
    from_openai_response,
    get_interface,
    to_anthropic_request,
    to_openai_request,
)
from replaygate.models.replay import ReplayModel
from run_cli import replaygate

SETTINGS: dict[str, Any] = {"model": "claude-sonnet-4-5", "max_tokens": 64}
ASK = (Message.user("Pick a number."),)


def _fixture_line(request: dict[str, Any], response: dict[str, Any], interface: str) -> bytes:
    meta = make_meta(interface, get_interface(interface).version, "hand", None)
    fixture = {"key": fixture_key(request), "request": request, "response": response}
    return orjson.dumps({**fixture, "meta": meta}) + b"\n"


def test_a_context_window_stop_replays_as_max_tokens(tmp_path: Path) -> None:
    response = {
        "content": [{"type": "text", "text": "The answer was cut"}],
        "stop_reason": "model_context_window_exceeded",
        "usage": {"input_tokens": 199_000, "output_tokens": 1_000},
    }
    assert from_anthropic_response(response).stop_reason == "max_tokens"
    store = tmp_path / "cut.jsonl"
    request = to_anthropic_request(ASK, (), **SETTINGS)
    store.write_bytes(_fixture_line(request, response, "anthropic.messages"))
    assert replaygate("verify", str(store)).returncode == 0
    replayed = ReplayModel(store, **SETTINGS).complete(ASK, ())
    assert (replayed.text, replayed.stop_reason) == ("The answer was cut", "max_tokens")


def test_a_chat_completions_refusal_replays_as_a_refusal(tmp_path: Path) -> None:
    refused = {"role": "assistant", "content": None, "refusal": "I can't help with that."}
    response = {"choices": [{"index": 0, "message": refused, "finish_reason": "stop"}]}
    assert from_openai_response(response).stop_reason == "refusal"
    settings = {**SETTINGS, "interface": "openai.chat.completions"}
    store = tmp_path / "refused.jsonl"
    request = to_openai_request(ASK, (), **SETTINGS)
    store.write_bytes(_fixture_line(request, response, "openai.chat.completions"))
    assert ReplayModel(store, **settings).complete(ASK, ()).stop_reason == "refusal"
    answered = {**refused, "content": "Sure.", "refusal": None}
    plain = {"choices": [{"message": answered, "finish_reason": "stop"}]}
    assert from_openai_response(plain) == ModelResponse(text="Sure.")
