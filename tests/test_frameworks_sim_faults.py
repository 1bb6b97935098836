"""Simulator faults as the frameworks meet them, through the official SDKs: every
streaming interface the simulator serves fails midway on ``sse-error`` as its real API
does, and the failure recorded from it replays as the same failure."""

from __future__ import annotations

from pathlib import Path

import pytest

from replaygate.http import intercept
from replaygate.sim import FaultPlan, Simulator
from sdks import openai

pytestmark = pytest.mark.slow  # each test: records through an SDK from the simulator and replays

QUESTION = [{"role": "user", "content": "Name one benefit of keep-alive connections."}]


def streamed_chat(base_url: str | None) -> list[str]:
    """A Chat Completions stream read to its end; the pieces of text seen before it ended."""
    client = openai.OpenAI(api_key="test", base_url=base_url, max_retries=2)
    pieces: list[str] = []
    stream = client.chat.completions.create(model="gpt-sim-1", messages=QUESTION, stream=True)
    for chunk in stream:
        pieces.extend(choice.delta.content or "" for choice in chunk.choices)
    return pieces


def test_sse_error_ends_a_chat_completions_stream_with_the_api_s_error(tmp_path: Path) -> None:
    """OpenAI sends a failure midway through a Chat Completions stream as a ``data:``
    line holding ``{"error": {...}}``, which the SDK raises as ``APIError``: the fault
    did nothing there, the stream ran to its end as if none had been drawn. Recorded,
    the failure replays as the same error after the same pieces, and a retry policy sees
    it once (the SDK does not retry a stream that has begun)."""
    store = tmp_path / "fixtures.jsonl"
    plan = FaultPlan.sequence(["sse-error"])
    with (
        Simulator(behavior="echo", faults=plan) as sim,
        intercept(store, "record-missing", approve_live=True, source="sim"),
        pytest.raises(openai.APIError) as recorded,
    ):
        streamed_chat(sim.openai_base_url)
    assert type(recorded.value) is openai.APIError
    assert recorded.value.message == "The server had an error while processing your request."
    assert isinstance(recorded.value.body, dict) and recorded.value.body["type"] == "server_error"
    for _ in range(2):
        with intercept(store) as exchange, pytest.raises(openai.APIError) as replayed:
            streamed_chat(None)
        assert exchange.sent == 1
        assert replayed.value.message == recorded.value.message
        assert replayed.value.body == recorded.value.body
