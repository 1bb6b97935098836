"""A request's ``tool_choice`` decides what the simulated model may call, as it decides
what the real one may: ``none`` offers it no tool, a named tool only that one. The
behaviour was offered every tool whatever the choice, so one that calls the first tool
offered (the research policy, a test's own) called a tool the request forbade, or
another than the one it forced (pydantic-ai's and Instructor's output tools, LangChain's
``with_structured_output``)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import httpx2
import pytest

from replaygate.models.types import Message, ModelResponse, ToolCall, ToolSpec
from replaygate.sim import Simulator


class CallsTheFirstTool:
    """Calls the first tool offered, if any; else says which tools it saw (none)."""

    def respond(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        if not tools:
            return ModelResponse(text="no tools")
        call = ToolCall(id="call_1", name=tools[0].name, arguments={"seen": len(tools)})
        return ModelResponse(tool_calls=(call,), stop_reason="tool_use")


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    with Simulator(behavior=CallsTheFirstTool()) as running:
        yield running


def _schema() -> dict[str, Any]:
    return {"type": "object", "properties": {}}


def _anthropic(sim: Simulator, choice: Any) -> Any:
    tools = [{"name": n, "input_schema": _schema()} for n in ("first", "second")]
    body = {"model": "m", "max_tokens": 64, "tools": tools, "tool_choice": choice}
    body["messages"] = [{"role": "user", "content": "hi"}]
    headers = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
    reply = httpx2.post(f"{sim.url}/v1/messages", json=body, headers=headers).json()
    block = reply["content"][0]
    return block.get("name", block.get("text")), block.get("input")


def _chat(sim: Simulator, choice: Any) -> Any:
    tools = [
        {"type": "function", "function": {"name": n, "parameters": _schema()}}
        for n in ("first", "second")
    ]
    body = {"model": "g", "tools": tools, "tool_choice": choice}
    body["messages"] = [{"role": "user", "content": "hi"}]
    headers = {"authorization": "Bearer k"}
    message = httpx2.post(f"{sim.openai_base_url}/chat/completions", json=body, headers=headers)
    said = message.json()["choices"][0]["message"]
    calls = said.get("tool_calls") or []
    return (
        (calls[0]["function"]["name"], calls[0]["function"]["arguments"])
        if calls
        else (
            said["content"],
            None,
        )
    )


def _responses(sim: Simulator, choice: Any) -> Any:
    tools = [{"type": "function", "name": n, "parameters": _schema()} for n in ("first", "second")]
    body = {"model": "g", "input": "hi", "tools": tools, "tool_choice": choice}
    headers = {"authorization": "Bearer k"}
    reply = httpx2.post(f"{sim.openai_base_url}/responses", json=body, headers=headers).json()
    item = reply["output"][0]
    if item["type"] == "function_call":
        return item["name"], item["arguments"]
    return item["content"][0]["text"], None


def _gemini(sim: Simulator, choice: Any) -> Any:
    declared = [{"name": n, "parameters": _schema()} for n in ("first", "second")]
    body = {
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
        "tools": [{"functionDeclarations": declared}],
        "toolConfig": {"functionCallingConfig": choice},
    }
    path = f"{sim.url}/v1beta/models/gemini-sim:generateContent"
    reply = httpx2.post(path, json=body, headers={"x-goog-api-key": "k"}).json()
    part = reply["candidates"][0]["content"]["parts"][0]
    if "functionCall" in part:
        return part["functionCall"]["name"], part["functionCall"].get("args")
    return part["text"], None


@pytest.mark.parametrize(
    ("ask", "none", "forced", "auto"),
    [
        (_anthropic, {"type": "none"}, {"type": "tool", "name": "second"}, {"type": "auto"}),
        (_chat, "none", {"type": "function", "function": {"name": "second"}}, "auto"),
        (_responses, "none", {"type": "function", "name": "second"}, "required"),
        (_gemini, {"mode": "NONE"}, {"mode": "ANY", "allowedFunctionNames": ["second"]}, {}),
    ],
    ids=["anthropic", "chat", "responses", "gemini"],
)
def test_the_tool_choice_decides_what_the_model_may_call(
    sim: Simulator, ask: Any, none: Any, forced: Any, auto: Any
) -> None:
    assert ask(sim, none) == ("no tools", None)
    name, arguments = ask(sim, forced)
    assert name == "second" and "1" in str(arguments)
    name, arguments = ask(sim, auto)
    assert name == "first" and "2" in str(arguments)
