"""An answer longer than the request's output limit is cut there, as the real APIs cut
it: Anthropic's ``stop_reason: max_tokens``, Chat Completions' ``finish_reason: length``,
a Responses ``status: incomplete`` (``max_output_tokens``), Gemini's ``MAX_TOKENS``, with
the limit as the output tokens. The simulator answered in full, with more output tokens
than the request allowed, so an agent's handling of a cut answer could not be recorded
from it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx2
import pytest

from replaygate.sim import Simulator

LONG = "Tell me everything about keep-alive connections, at length, please."


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    with Simulator(behavior="echo") as running:
        yield running


def _post(sim: Simulator, path: str, body: dict[str, Any], headers: dict[str, str]) -> Any:
    reply = httpx2.post(f"{sim.url}{path}", json=body, headers=headers)
    assert reply.status_code == 200, reply.text
    return reply.json()


ANTHROPIC = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
OPENAI = {"authorization": "Bearer k"}


def test_anthropic_stops_at_max_tokens(sim: Simulator) -> None:
    body = {"model": "m", "max_tokens": 4, "messages": [{"role": "user", "content": LONG}]}
    cut = _post(sim, "/v1/messages", body, ANTHROPIC)
    assert cut["stop_reason"] == "max_tokens"
    assert cut["usage"]["output_tokens"] == 4
    text = cut["content"][0]["text"]
    assert text and f"echo: {LONG}".startswith(text) and len(text) <= 16
    body["max_tokens"] = 1024
    whole = _post(sim, "/v1/messages", body, ANTHROPIC)
    assert (whole["stop_reason"], whole["content"][0]["text"]) == ("end_turn", f"echo: {LONG}")


def test_chat_completions_finish_with_length(sim: Simulator) -> None:
    for limit in ("max_tokens", "max_completion_tokens"):
        body = {"model": "g", limit: 3, "messages": [{"role": "user", "content": LONG}]}
        choice = _post(sim, "/v1/chat/completions", body, OPENAI)["choices"][0]
        assert choice["finish_reason"] == "length"
        assert len(choice["message"]["content"]) <= 12


def test_a_response_is_incomplete_at_max_output_tokens(sim: Simulator) -> None:
    body = {"model": "g", "max_output_tokens": 16, "input": LONG * 3}
    cut = _post(sim, "/v1/responses", body, OPENAI)
    assert cut["status"] == "incomplete"
    assert cut["incomplete_details"] == {"reason": "max_output_tokens"}
    assert cut["usage"]["output_tokens"] == 16


def test_gemini_finishes_with_max_tokens(sim: Simulator) -> None:
    body = {
        "contents": [{"role": "user", "parts": [{"text": LONG}]}],
        "generationConfig": {"maxOutputTokens": 2},
    }
    path = "/v1beta/models/gemini-sim:generateContent"
    cut = _post(sim, path, body, {"x-goog-api-key": "k"})
    assert cut["candidates"][0]["finishReason"] == "MAX_TOKENS"
