"""A request that turns parallel tool calls off (Anthropic's ``tool_choice``
``disable_parallel_tool_use``, OpenAI's ``parallel_tool_calls: false``) gets at most one
tool call in a turn, as from the real APIs; the simulator passed on every call its
behaviour made, an answer the API never gives such a request."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import httpx2
import pytest

from replaygate.models.types import Message, ModelResponse, ToolCall, ToolSpec
from replaygate.sim import Simulator


class TwoCalls:
    def respond(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        calls = tuple(
            ToolCall(id=f"call_{i}", name=tools[0].name, arguments={"city": c})
            for i, c in enumerate(("Paris", "Rome"))
        )
        return ModelResponse(tool_calls=calls, stop_reason="tool_use")


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    with Simulator(behavior=TwoCalls()) as running:
        yield running


SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}}


def _anthropic(sim: Simulator, single: bool) -> int:
    body: dict[str, Any] = {
        "model": "m",
        "max_tokens": 64,
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [{"name": "weather", "input_schema": SCHEMA}],
    }
    if single:
        body["tool_choice"] = {"type": "auto", "disable_parallel_tool_use": True}
    headers = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
    reply = httpx2.post(f"{sim.url}/v1/messages", json=body, headers=headers).json()
    return sum(block["type"] == "tool_use" for block in reply["content"])


def _chat(sim: Simulator, single: bool) -> int:
    body: dict[str, Any] = {
        "model": "g",
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [{"type": "function", "function": {"name": "weather", "parameters": SCHEMA}}],
    }
    if single:
        body["parallel_tool_calls"] = False
    headers = {"authorization": "Bearer k"}
    reply = httpx2.post(f"{sim.openai_base_url}/chat/completions", json=body, headers=headers)
    return len(reply.json()["choices"][0]["message"]["tool_calls"])


def _responses(sim: Simulator, single: bool) -> int:
    body: dict[str, Any] = {
        "model": "g",
        "input": "hi",
        "tools": [{"type": "function", "name": "weather", "parameters": SCHEMA}],
    }
    if single:
        body["parallel_tool_calls"] = False
    headers = {"authorization": "Bearer k"}
    reply = httpx2.post(f"{sim.openai_base_url}/responses", json=body, headers=headers).json()
    return sum(item["type"] == "function_call" for item in reply["output"])


@pytest.mark.parametrize("ask", [_anthropic, _chat, _responses], ids=lambda f: f.__name__[1:])
def test_parallel_tool_calls_turned_off_leave_one_call(sim: Simulator, ask: Any) -> None:
    assert ask(sim, single=False) == 2
    assert ask(sim, single=True) == 1
