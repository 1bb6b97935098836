"""Ids of what the simulator holds between requests (a Responses API response a follow-up
names by ``previous_response_id``, an Anthropic thread) name what they hold, not only
when it was served.

A recording that replays the start of a conversation from its fixtures and sends a
changed later turn to a new simulator names an id that simulator never served. Counted
from 1 in every simulator, the id named another conversation whenever this simulator had
served one as many answers in: the follow-up was answered, and recorded, with that
other conversation's history, silently. Now an id names what it holds, and a simulator
in the recording's process learns each answer replayed to it
(:mod:`replaygate.http.learners`): the changed turn goes on from the replayed start, as on
the real API. One that never saw the start (another process's) refuses the id as the real
API refuses one it does not hold (400 or 404, naming the id), and says why."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx2
import pytest

from replaygate.fixtures.store import FixtureStore
from replaygate.http import intercept
from replaygate.models.types import Message, ModelResponse, ToolSpec
from replaygate.sim import Simulator

OPENAI = {"authorization": "Bearer test"}
ANTHROPIC = {"x-api-key": "test", "anthropic-version": "2023-06-01"}


class History:
    """Answers with every user turn it was given, oldest first."""

    def respond(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        return ModelResponse(text=" | ".join(str(m.content) for m in messages if m.role == "user"))


def _responses(base: str, body: dict[str, Any]) -> httpx2.Response:
    return httpx2.post(f"{base}/responses", json={"model": "gpt-sim-1", **body}, headers=OPENAI)


def _text(response: httpx2.Response) -> str:
    return str(response.json()["output"][0]["content"][0]["text"])


def responses_chain(base: str, second: str) -> httpx2.Response:
    first = _responses(base, {"input": "My name is Ada."}).json()
    return _responses(base, {"input": second, "previous_response_id": first["id"]})


def _messages(base: str, text: str, thread: dict[str, Any]) -> httpx2.Response:
    body = {
        "model": "claude-sim-1",
        "max_tokens": 64,
        "messages": [{"role": "user", "content": text}],
        "thread": thread,
    }
    return httpx2.post(f"{base}/v1/messages", json=body, headers=ANTHROPIC)


def thread_chain(base: str, second: str) -> httpx2.Response:
    first = _messages(base, "My name is Ada.", {"type": "create"}).json()
    return _messages(base, second, {"type": "continue", "previous_message_id": first["id"]})


def conversation_chain(base: str, second: str) -> httpx2.Response:
    items = [{"type": "message", "role": "user", "content": "My name is Ada."}]
    made = httpx2.post(f"{base}/conversations", json={"items": items}, headers=OPENAI).json()
    return _responses(base, {"input": second, "conversation": made["id"]})


def _recorded_texts(store: Path) -> list[str]:
    opened = FixtureStore.open(store)
    try:
        return [str(r.get("body")) for f in opened for r in f.responses]
    finally:
        opened.close()


def _record(store: Path, run: Any) -> Any:
    with (
        Simulator(behavior=History()) as sim,
        intercept(store, "record-missing", approve_live=True, source="sim"),
    ):
        return run(sim)


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_response_replayed_from_fixtures_goes_on_not_another_conversation_of_a_new_simulator(
    tmp_path: Path,
) -> None:
    store = tmp_path / "fixtures.jsonl"
    first = _record(store, lambda sim: responses_chain(sim.openai_base_url, "Who am I?"))
    assert _text(first) == "My name is Ada. | Who am I?"

    def changed(sim: Simulator) -> httpx2.Response:
        _responses(sim.openai_base_url, {"input": "Something else entirely."})  # served anew
        return responses_chain(sim.openai_base_url, "Who am I, again?")

    went_on = _record(store, changed)  # the simulator learned the replayed first turn
    assert _text(went_on) == "My name is Ada. | Who am I, again?"
    assert not any("Something else entirely. | Who am I" in t for t in _recorded_texts(store))


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_thread_replayed_from_fixtures_goes_on_not_another_thread_of_a_new_simulator(
    tmp_path: Path,
) -> None:
    store = tmp_path / "fixtures.jsonl"
    first = _record(store, lambda sim: thread_chain(sim.url, "Who am I?"))
    assert first.json()["content"][0]["text"] == "My name is Ada. | Who am I?"

    def changed(sim: Simulator) -> httpx2.Response:
        _messages(sim.url, "Something else entirely.", {"type": "create"})  # served anew
        return thread_chain(sim.url, "Who am I, again?")

    went_on = _record(store, changed)  # the simulator learned the replayed first turn
    assert went_on.json()["content"][0]["text"] == "My name is Ada. | Who am I, again?"
    assert not any("Something else entirely. | Who am I" in t for t in _recorded_texts(store))


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_conversation_replayed_from_fixtures_goes_on_not_another_one_of_a_new_simulator(
    tmp_path: Path,
) -> None:
    store = tmp_path / "fixtures.jsonl"
    first = _record(store, lambda sim: conversation_chain(sim.openai_base_url, "Who am I?"))
    assert _text(first) == "My name is Ada. | Who am I?"

    def changed(sim: Simulator) -> httpx2.Response:
        items = [{"type": "message", "role": "user", "content": "Something else entirely."}]
        url = f"{sim.openai_base_url}/conversations"
        httpx2.post(url, json={"items": items}, headers=OPENAI)  # made anew
        return conversation_chain(sim.openai_base_url, "Who am I, again?")

    went_on = _record(store, changed)  # the simulator learned the replayed conversation
    assert _text(went_on) == "My name is Ada. | Who am I, again?"
    assert not any("Something else entirely. | Who am I" in t for t in _recorded_texts(store))


def test_the_same_conversation_served_again_is_found_by_its_id() -> None:
    """An id names the conversation it holds: a simulator that served the same turns in
    the same order continues it, as the one that served it first did."""
    with Simulator(behavior=History()) as first, Simulator(behavior=History()) as again:
        one = responses_chain(first.openai_base_url, "Who am I?").json()
        two = responses_chain(again.openai_base_url, "Who am I?").json()
    assert one["id"] == two["id"]
    assert one["previous_response_id"] == two["previous_response_id"]
