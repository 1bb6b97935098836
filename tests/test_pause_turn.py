"""Anthropic's ``stop_reason: "pause_turn"`` (the server paused a long turn of its server
tools; the caller sends the response back for it to go on) is read as ``pause_turn``, not
as a finished ``end_turn``, through the SDK, a recording and its replay; a wire shape
with no pause refuses to write one."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from replaygate import Message, Model, ModelResponse
from replaygate.errors import SimulatorRefusalError
from replaygate.fixtures.store import FixtureStore
from replaygate.http import httpx2_client
from replaygate.models.fakes import ScriptedModel
from replaygate.models.live import AnthropicModel
from replaygate.models.replay import RecordingModel, ReplayModel
from replaygate.sim import ScriptBehavior, Simulator
from sdks import anthropic, openai

SETTINGS: dict[str, Any] = {"model": "claude-sonnet-4-6", "max_tokens": 64}
PAUSED = ModelResponse(text="Searching the web...", stop_reason="pause_turn")
DONE = ModelResponse(text="Found it.")
ASK = [{"role": "user", "content": "Search the news."}]


def answer(model: Model, question: str) -> tuple[str, int]:
    """A loop that sends a paused turn back to go on: the final text and the calls made."""
    messages = [Message.user(question)]
    for calls in range(1, 5):
        response = model.complete(messages, ())
        messages.append(response.as_message())
        if response.stop_reason != "pause_turn":
            return response.text, calls
    raise AssertionError("the turn never ended")


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_paused_turn_is_recorded_and_replayed_as_paused(tmp_path: Path) -> None:
    store = tmp_path / "paused.jsonl"
    with Simulator(behavior=ScriptBehavior([PAUSED, DONE])) as sim:
        client = anthropic.Anthropic(api_key="k", base_url=sim.url, max_retries=0)
        live = AnthropicModel(client, **SETTINGS)
        recorder = RecordingModel(live, store, approve_live=True, source="sim", **SETTINGS)
        assert answer(recorder, "Search the news.") == ("Found it.", 2)
    first = next(iter(FixtureStore.open(store)))
    assert first.response["stop_reason"] == "pause_turn"  # the API's word, kept
    replay = ReplayModel(store, **SETTINGS)
    assert answer(replay, "Search the news.") == ("Found it.", 2)
    assert replay.calls[0][0] == (Message.user("Search the news."),)


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_the_sdk_reads_a_replayed_pause(tmp_path: Path, stream: bool) -> None:
    store = tmp_path / "sdk.jsonl"
    with Simulator(behavior=ScriptBehavior([PAUSED])) as sim:
        http = httpx2_client(store, "record-missing", approve_live=True, source="sim")
        live = anthropic.Anthropic(api_key="k", base_url=sim.url, max_retries=0, http_client=http)
        recorded = _create(live, stream)
    replaying = anthropic.Anthropic(api_key="k", max_retries=0, http_client=httpx2_client(store))
    for reply in (recorded, _create(replaying, stream)):
        assert reply.stop_reason == "pause_turn"
        assert reply.content[0].text == "Searching the web..."


def _create(client: Any, stream: bool) -> Any:
    if not stream:
        return client.messages.create(model="m", max_tokens=32, messages=ASK)
    with client.messages.stream(model="m", max_tokens=32, messages=ASK) as events:
        return events.get_final_message()


@pytest.mark.parametrize(
    "interface", ["openai.chat.completions", "openai.responses", "google.generate_content"]
)
def test_a_wire_shape_without_a_pause_refuses_to_write_one(tmp_path: Path, interface: str) -> None:
    store = tmp_path / "other.jsonl"
    recorder = RecordingModel(
        ScriptedModel([PAUSED]), store, approve_live=True, interface=interface, **SETTINGS
    )
    with pytest.raises(ValueError, match=re.escape(f"'pause_turn' has no {interface} form")):
        recorder.complete([Message.user("Search the news.")], ())
    assert not store.exists()  # nothing was written


class Paused:
    """A simulator behaviour that pauses every turn."""

    def respond(self, messages: Sequence[Message], tools: Sequence[Any]) -> ModelResponse:
        return PAUSED


def test_the_simulator_refuses_a_pause_for_openai_and_nothing_is_recorded(
    tmp_path: Path,
) -> None:
    store = tmp_path / "openai.jsonl"
    with Simulator(behavior=Paused()) as sim:
        http = httpx2_client(store, "record-missing", approve_live=True, source="sim")
        client = openai.OpenAI(api_key="k", base_url=sim.openai_base_url, http_client=http)
        with pytest.raises(SimulatorRefusalError, match=r"'pause_turn' has no openai\.chat"):
            client.chat.completions.create(model="g", messages=ASK)
    assert list(FixtureStore.open(store)) == []
