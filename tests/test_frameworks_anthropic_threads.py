"""The anthropic SDK's tool runner, which keeps its conversation on the server (a
Thread: ``thread: {"type": "create"}``, then ``{"type": "continue",
"previous_message_id": ...}`` with only the new turn's messages), recorded from the
simulator and replayed offline."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx2
import pytest

from replaygate.errors import FixtureMismatchError
from replaygate.http import intercept
from replaygate.models.types import Message, ModelResponse, ToolCall, ToolSpec
from replaygate.sim import Simulator
from sdks import anthropic

QUESTION = "Name one benefit of keep-alive connections."
CHANGED = "Name one benefit of persistent connections."


class WeatherThenAnswer:
    """Calls the weather tool once, then answers with what it said."""

    def respond(self, messages: list[Message], tools: list[ToolSpec]) -> ModelResponse:
        if tools and not any(m.role == "tool" for m in messages):
            call = ToolCall(id="toolu_1", name=tools[0].name, arguments={"city": "Paris"})
            return ModelResponse(tool_calls=(call,), stop_reason="tool_use")
        return ModelResponse(text=f"The tool says: {messages[-1].content}")


def run_tools(base_url: str | None, question: str = QUESTION) -> list[Any]:
    """The tool runner to its end: the content of every message it got."""

    @anthropic.beta_tool
    def weather(city: str) -> str:
        """The weather in a city."""
        return f"sunny in {city}"

    client = anthropic.Anthropic(api_key="test", base_url=base_url, max_retries=2)
    runner = client.beta.messages.tool_runner(
        model="claude-sim-1",
        max_tokens=64,
        tools=[weather],
        messages=[{"role": "user", "content": question}],
    )
    return [[block.model_dump(mode="json") for block in message.content] for message in runner]


@pytest.mark.slow  # a whole flow: recorded from the simulator, then replayed
def test_the_tool_runner_s_thread_records_from_the_simulator_and_replays(tmp_path: Path) -> None:
    """The simulator refused the runner's second turn (400: a ``tool_result`` without its
    ``tool_use``), as it did not hold the thread the first one created."""
    store = tmp_path / "fixtures.jsonl"
    with (
        Simulator(behavior=WeatherThenAnswer()) as sim,
        intercept(store, "record-missing", approve_live=True, source="sim"),
    ):
        recorded = run_tools(sim.url)
        threads = [request.body.get("thread") for request in sim.requests]
    assert [thread["type"] for thread in threads] == ["create", "continue"]
    assert recorded[0][0]["type"] == "tool_use"
    assert recorded[1] == [
        {"type": "text", "text": "The tool says: sunny in Paris", "citations": None}
    ]
    for _ in range(2):
        with intercept(store):
            assert run_tools(None) == recorded
    with intercept(store) as exchange, pytest.raises(FixtureMismatchError, match="persistent"):
        run_tools(None, CHANGED)
    assert exchange.sent == 1


def test_a_thread_is_continued_once_and_an_unknown_one_is_not_found() -> None:
    """As the API: a response continued a second time is a 400
    ``thread_already_continued``, an id the server does not hold a 404
    ``thread_not_found``, each with the SDK's error class."""
    with Simulator(behavior="echo") as sim:
        client = anthropic.Anthropic(api_key="test", base_url=sim.url, max_retries=0)

        def send(thread: dict[str, Any], text: str) -> Any:
            return client.beta.messages.create(
                model="claude-sim-1",
                max_tokens=16,
                messages=[{"role": "user", "content": text}],
                thread=thread,
            )

        first = send({"type": "create"}, "hello")
        follow = {"type": "continue", "previous_message_id": first.id}
        second = send(follow, "again")
        assert second.id != first.id
        assert sim.requests[-1].body["thread"] == follow
        with pytest.raises(anthropic.BadRequestError) as twice:
            send(follow, "once more")
        assert twice.value.error_code == "thread_already_continued"
        unknown = {"type": "continue", "previous_message_id": "msg_unknown"}
        with pytest.raises(anthropic.NotFoundError) as missing:
            send(unknown, "hello")
        assert missing.value.error_code == "thread_not_found"


def converse(base_url: str | None, question: str = QUESTION) -> list[str]:
    """A conversation on ``client.beta.messages.thread()``: two turns sent, one streamed,
    then a turn on a fork of the thread."""
    client = anthropic.Anthropic(api_key="test", base_url=base_url, max_retries=2)
    thread = client.beta.messages.thread(model="claude-sim-1", max_tokens=64, system="Be brief.")
    texts = [thread.send({"role": "user", "content": question}).content[0].text]
    texts.append(thread.send({"role": "user", "content": "And another?"}).content[0].text)
    with thread.stream({"role": "user", "content": "One more."}) as stream:
        texts.append(stream.get_final_text())
    fork = thread.fork()
    texts.append(fork.send({"role": "user", "content": "On the fork."}).content[0].text)
    return texts


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_thread_s_turns_record_from_the_simulator_and_replay(tmp_path: Path) -> None:
    store = tmp_path / "fixtures.jsonl"
    with (
        Simulator(behavior="echo") as sim,
        intercept(store, "record-missing", approve_live=True, source="sim"),
    ):
        recorded = converse(sim.url)
    assert recorded == [
        f"echo: {QUESTION}",
        "echo: And another?",
        "echo: One more.",
        "echo: On the fork.",
    ]
    with intercept(store):
        assert converse(None) == recorded
    with intercept(store) as exchange, pytest.raises(FixtureMismatchError, match="persistent"):
        converse(None, CHANGED)
    assert exchange.sent == 1


def test_counting_tokens_reads_the_thread_the_messages_hold() -> None:
    # count_tokens kept threads of its own: a continued thread counted without its
    # history, and an unknown one was counted instead of refused
    headers = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
    turn = {"model": "claude-sim-1", "messages": [{"role": "user", "content": "And Rome?"}]}
    with Simulator(behavior="echo") as sim:
        first = httpx2.post(
            f"{sim.url}/v1/messages",
            headers=headers,
            json={
                "model": "claude-sim-1",
                "max_tokens": 64,
                "messages": [{"role": "user", "content": "x" * 400}],
                "thread": {"type": "create"},
            },
        ).json()

        def count(previous: str) -> httpx2.Response:
            thread = {"type": "continue", "previous_message_id": previous}
            url = f"{sim.url}/v1/messages/count_tokens"
            return httpx2.post(url, headers=headers, json={**turn, "thread": thread})

        alone = httpx2.post(f"{sim.url}/v1/messages/count_tokens", headers=headers, json=turn)
        threaded = count(first["id"])
        unknown = count("msg_nowhere")
    assert threaded.json()["input_tokens"] > alone.json()["input_tokens"] + 50
    assert unknown.status_code == 404
