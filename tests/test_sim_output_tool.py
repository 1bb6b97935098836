"""A forced tool call ends an agent whose output is a tool, even from ``echo``.

pydantic-ai's structured output (``output_type``) with a function tool sends every turn
with both tools, ``[lookup, final_result]``, and a tool choice that forces a call
(Anthropic's ``{"type": "any"}``, OpenAI's ``"required"``); its run ends when
``final_result`` is called. The simulator's forced call took the first tool every time,
so the agent looked up for ever (pydantic-ai stops at its request limit, 50 fixtures
recorded). A forced call now takes the first tool not called since the user's turn,
then the last: ``lookup``, then ``final_result``. Sent here through the real SDKs, as
pydantic-ai sends them.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from replaygate.models.types import Message, ToolCall, ToolSpec
from replaygate.sim import Simulator
from replaygate.sim.arguments import forced_tool
from sdks import anthropic, openai

CITY = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "population": {"type": "integer"}},
    "required": ["name", "population"],
}
LOOKUP = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
FINAL = "The final response which ends this conversation"
QUESTION = "Biggest city of France?"
TURNS = 6
"""More requests than an agent that ends needs."""


def _anthropic(sim: Simulator, names: list[str]) -> list[str]:
    """The tools called, turn by turn, until ``final_result`` (or :data:`TURNS`)."""
    client = anthropic.Anthropic(api_key="k", base_url=sim.url, max_retries=0)
    tools = [{"name": n, "description": "Look up.", "input_schema": LOOKUP} for n in names]
    tools.append({"name": "final_result", "description": FINAL, "input_schema": CITY})
    messages: list[dict[str, Any]] = [{"role": "user", "content": QUESTION}]
    called: list[str] = []
    while len(called) < TURNS:
        reply = client.messages.create(
            model="claude-sonnet-4-6",
            max_tokens=1024,
            messages=messages,
            tools=tools,
            tool_choice={"type": "any"},
        )
        (call,) = [block for block in reply.content if block.type == "tool_use"]
        called.append(call.name)
        if call.name == "final_result":
            assert set(call.input) == {"name", "population"}
            return called
        messages += [
            {"role": "assistant", "content": [block.model_dump() for block in reply.content]},
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": call.id, "content": "2M"}],
            },
        ]
    return called


def _chat(sim: Simulator, names: list[str]) -> list[str]:
    client = openai.OpenAI(api_key="k", base_url=sim.openai_base_url, max_retries=0)
    tools = [
        {"type": "function", "function": {"name": n, "parameters": LOOKUP}}
        for n in [*names, "final_result"]
    ]
    tools[-1]["function"]["parameters"] = CITY
    messages: list[dict[str, Any]] = [{"role": "user", "content": QUESTION}]
    called: list[str] = []
    while len(called) < TURNS:
        reply = client.chat.completions.create(
            model="gpt-4o-mini", messages=messages, tools=tools, tool_choice="required"
        )
        message = reply.choices[0].message
        (call,) = message.tool_calls or []
        called.append(call.function.name)
        if call.function.name == "final_result":
            assert set(json.loads(call.function.arguments)) == {"name", "population"}
            return called
        messages += [
            message.model_dump(exclude_none=True),
            {"role": "tool", "tool_call_id": call.id, "content": "2M"},
        ]
    return called


def _responses(sim: Simulator, names: list[str]) -> list[str]:
    client = openai.OpenAI(api_key="k", base_url=sim.openai_base_url, max_retries=0)
    tools = [{"type": "function", "name": n, "parameters": LOOKUP} for n in names]
    tools.append({"type": "function", "name": "final_result", "parameters": CITY})
    given: list[Any] = [{"role": "user", "content": QUESTION}]
    called: list[str] = []
    while len(called) < TURNS:
        reply = client.responses.create(
            model="gpt-4o-mini", input=given, tools=tools, tool_choice="required"
        )
        (call,) = [item for item in reply.output if item.type == "function_call"]
        called.append(call.name)
        if call.name == "final_result":
            return called
        given += [
            call.model_dump(exclude_none=True),
            {"type": "function_call_output", "call_id": call.call_id, "output": "2M"},
        ]
    return called


@pytest.mark.parametrize("run", [_anthropic, _chat, _responses])
def test_a_structured_output_agent_with_tools_ends_on_its_output_tool(
    sim: Simulator, run: Any
) -> None:
    assert run(sim, ["lookup"]) == ["lookup", "final_result"]
    assert run(sim, ["lookup", "fetch"]) == ["lookup", "fetch", "final_result"]
    assert run(sim, []) == ["final_result"]


def test_the_forced_tool_is_the_first_not_called_since_the_user_spoke() -> None:
    tools = [ToolSpec("lookup", "Look up."), ToolSpec("final_result", FINAL)]
    asked = Message.user(QUESTION)
    looked = (
        Message("assistant", tool_calls=(ToolCall("c1", "lookup", {"q": "x"}),)),
        Message("tool", "2M", tool_call_id="c1"),
    )
    assert forced_tool(tools, [asked]).name == "lookup"
    assert forced_tool(tools, [asked, *looked]).name == "final_result"
    ended = (
        Message("assistant", tool_calls=(ToolCall("c2", "final_result", {}),)),
        Message("tool", "Invalid: population", tool_call_id="c2"),
    )
    assert forced_tool(tools, [asked, *looked, *ended]).name == "final_result"  # the last
    assert forced_tool(tools, [asked, *looked, Message.user("And Spain?")]).name == "lookup"


def _allowed_chat(sim: Simulator, mode: str) -> list[str]:
    client = openai.OpenAI(api_key="k", base_url=sim.openai_base_url, max_retries=0)
    tools = [
        {"type": "function", "function": {"name": n, "parameters": LOOKUP}}
        for n in ("lookup", "fetch")
    ]
    allowed = {"mode": mode, "tools": [{"type": "function", "function": {"name": "fetch"}}]}
    reply = client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "user", "content": QUESTION}],
        tools=tools,
        tool_choice={"type": "allowed_tools", "allowed_tools": allowed},
    )
    return [call.function.name for call in reply.choices[0].message.tool_calls or []]


def _allowed_responses(sim: Simulator, mode: str) -> list[str]:
    client = openai.OpenAI(api_key="k", base_url=sim.openai_base_url, max_retries=0)
    tools = [{"type": "function", "name": n, "parameters": LOOKUP} for n in ("lookup", "fetch")]
    reply = client.responses.create(
        model="gpt-4o-mini",
        input=QUESTION,
        tools=tools,
        tool_choice={
            "type": "allowed_tools",
            "mode": mode,
            "tools": [{"type": "function", "name": "fetch"}],
        },
    )
    return [item.name for item in reply.output if item.type == "function_call"]


@pytest.mark.parametrize("run", [_allowed_chat, _allowed_responses])
def test_an_allowed_tools_choice_forces_a_call_of_a_tool_it_allows(
    sim: Simulator, run: Any
) -> None:
    """OpenAI's ``allowed_tools`` tool choice (pydantic-ai sends it for a ``tool_choice``
    naming some of the tools): in mode ``required`` a call of one it names, where the
    simulator answered ``echo``'s text; in mode ``auto`` a call is not forced."""
    assert run(sim, "required") == ["fetch"]
    assert run(sim, "auto") == []
