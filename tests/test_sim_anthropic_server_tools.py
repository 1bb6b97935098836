"""Anthropic's server tools (web search, web fetch, code execution, ...) offered beside
the caller's own: ``{"type": "web_search_20250305", "name": "web_search", ...}``, with no
``input_schema``. The simulator refused them (400 ``tools.N.input_schema: Field
required``), so an agent offering one (pydantic-ai's ``WebSearch`` capability on Claude,
LangChain's ``bind_tools`` with a server tool) could not record from it; the real API
runs them. The simulator's behaviour is offered the caller's tools only, as the
Responses API's built-in tools are left out."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from replaygate.http import intercept
from replaygate.models.providers.anthropic import from_anthropic_request, server_tool
from replaygate.models.types import Message, ModelResponse, ToolCall, ToolSpec
from replaygate.sim import Simulator
from sdks import anthropic

WEB_SEARCH = {"type": "web_search_20250305", "name": "web_search", "max_uses": 3}
WEATHER = {
    "name": "weather",
    "description": "The weather in a city.",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
}


class CallsTheFirstTool:
    """Calls the first tool it is offered, naming every tool it was offered."""

    def respond(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        names = ",".join(t.name for t in tools)
        call = ToolCall(id="toolu_1", name=tools[0].name, arguments={"offered": names})
        return ModelResponse(tool_calls=(call,), stop_reason="tool_use")


def ask(base_url: str | None, tools: list[dict[str, Any]]) -> Any:
    client = anthropic.Anthropic(api_key="test", base_url=base_url, max_retries=0)
    return client.messages.create(
        model="claude-sonnet-4-6",
        max_tokens=64,
        tools=tools,
        messages=[{"role": "user", "content": "What is the weather in Paris?"}],
    )


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_server_tool_beside_the_caller_s_records_and_replays(tmp_path: Path) -> None:
    store = tmp_path / "fixtures.jsonl"
    with (
        Simulator(behavior=CallsTheFirstTool()) as sim,
        intercept(store, "record-missing", approve_live=True, source="sim"),
    ):
        recorded = ask(sim.url, [WEB_SEARCH, WEATHER])
    (call,) = recorded.content
    assert (call.name, call.input) == ("weather", {"offered": "weather"})
    with intercept(store) as exchange:
        assert ask(None, [WEB_SEARCH, WEATHER]).content == recorded.content
    assert exchange.replays == 1


def test_server_tools_are_left_out_of_the_conversation_s_tools() -> None:
    request = {"messages": [{"role": "user", "content": "hi"}], "tools": [WEB_SEARCH, WEATHER]}
    _, tools, _ = from_anthropic_request(request)
    assert [t.name for t in tools] == ["weather"]
    # one test of a server tool, shared by the simulator's check of a request
    assert not server_tool({**WEATHER, "type": 5}) and server_tool(WEB_SEARCH)


@pytest.mark.parametrize(
    ("tool", "message"),
    [
        ({"type": "web_search_20250305"}, "tools.0.name: Field required"),
        ({"type": "custom", "name": "weather"}, "tools.0.input_schema: Field required"),
        ({"name": "weather"}, "tools.0.input_schema: Field required"),
        ({**WEATHER, "type": 5}, "tools.0.type: Input should be a valid string"),
    ],
)
def test_a_tool_lacking_what_its_kind_needs_is_refused(
    sim: Simulator, tool: dict[str, Any], message: str
) -> None:
    with pytest.raises(anthropic.BadRequestError, match=message):
        ask(sim.url, [tool])


class Calls:
    """Calls the tool it is named, as a script line naming it does."""

    def __init__(self, name: str) -> None:
        self.name = name

    def respond(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        call = ToolCall(id="toolu_1", name=self.name, arguments={"command": "view"})
        return ModelResponse(tool_calls=(call,), stop_reason="tool_use")


def test_a_call_of_a_tool_the_api_runs_itself_is_the_simulator_s_refusal(sim: Simulator) -> None:
    # answered with text (a forced search) or a plain tool_use, the recording was green on an
    # answer the API never gives: it runs the search and answers with its result
    forced = {"type": "tool", "name": "web_search"}
    cases = [
        ([WEB_SEARCH], forced, "its tool_choice forces a call of 'web_search'"),
        ([WEB_SEARCH], {"type": "any"}, "(any) forces a call of one of 'web_search'"),
        ([WEB_SEARCH, WEATHER], {"type": "any"}, None),  # the caller's tool is called
        ([WEB_SEARCH], {"type": "auto"}, None),  # answered in text, as the API may
    ]
    client = anthropic.Anthropic(api_key="test", base_url=sim.url, max_retries=0)
    for tools, choice, refused in cases:
        asking = {"model": "m", "max_tokens": 64, "tools": tools, "tool_choice": choice}
        if refused is None:
            assert client.messages.create(**asking, messages=[{"role": "user", "content": "q"}])
            continue
        with pytest.raises(anthropic.BadRequestError) as caught:
            client.messages.create(**asking, messages=[{"role": "user", "content": "q"}])
        body = caught.value.body
        assert isinstance(body, dict) and body.get("replaygate_simulator_refusal") is True
        assert f"{refused} (web_search_20250305), which the API" in str(caught.value)
    calls = pytest.raises(anthropic.BadRequestError, match="behaviour gives calls 'web_search'")
    with Simulator(behavior=Calls("web_search")) as calling, calls:
        ask(calling.url, [WEB_SEARCH])
    memory = {"type": "memory_20250818", "name": "memory"}  # the caller runs it: a tool_use
    with Simulator(behavior=Calls("memory")) as calling:
        (call,) = ask(calling.url, [memory]).content
    assert (call.type, call.name, call.input) == ("tool_use", "memory", {"command": "view"})


def test_a_toolset_is_taken_without_a_name_and_its_forced_call_refused(sim: Simulator) -> None:
    """The MCP connector's ``mcp_toolset`` (and the browser and computer toolsets) has no
    ``name`` of its own: the simulator refused it with the API's 400 ``tools.0.name: Field
    required``, which a recording keeps, and a tool_choice naming one of its tools raised
    a KeyError in the simulator, which dropped the connection."""
    toolset = {"type": "browser_toolset_20260801"}
    client = anthropic.Anthropic(api_key="test", base_url=sim.url, max_retries=0)
    asked = {"model": "m", "max_tokens": 64, "messages": [{"role": "user", "content": "q"}]}
    assert ask(sim.url, [toolset, WEATHER]).content[0].type == "text"
    with pytest.raises(anthropic.BadRequestError, match="mcp_server_name: Field required"):
        ask(sim.url, [{"type": "mcp_toolset"}])
    for choice, said in [
        ({"type": "tool", "name": "open_page"}, "'open_page' (of browser_toolset_20260801)"),
        ({"type": "any"}, "one of browser_toolset_20260801,"),
    ]:
        tools = [toolset, WEATHER] if choice["type"] == "tool" else [toolset]
        with pytest.raises(anthropic.BadRequestError, match=re.escape(said)):
            client.messages.create(**asked, tools=tools, tool_choice=choice)
