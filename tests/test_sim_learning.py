"""A recording goes on from a conversation the server holds, whose start it replayed.

Recording what it has not recorded (``record-missing``), a session answers the unchanged
turns from fixtures and sends the changed one live. The real API still holds what the
replayed turns made (a response named by ``previous_response_id``, a conversation, a
thread); a simulator started for this run learns it from each replayed answer
(:mod:`replaygate.http.learners`), so the changed turn records with its whole history.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from replaygate.fixtures.store import FixtureStore
from replaygate.http import intercept
from replaygate.models.types import Message, ModelResponse, ToolSpec
from replaygate.sim import Simulator
from sdks import anthropic, openai
from test_frameworks_anthropic_threads import WeatherThenAnswer

# Each test records against one simulator and again against another, through the SDKs:
# end to end, and in the one worker that imports the SDKs.
pytestmark = pytest.mark.slow


class SaysWhatItHeard:
    """Answers with every user turn of the conversation it was given, joined."""

    def respond(self, messages: list[Message], tools: list[ToolSpec]) -> ModelResponse:
        return ModelResponse(text=" | ".join(m.content for m in messages if m.role == "user"))


def _record(
    store: Path, run: Callable[[Simulator], Any], behavior: Any = None
) -> tuple[Any, list[str]]:
    """``run`` recorded against a new simulator (answering as ``SaysWhatItHeard`` unless
    given another ``behavior``): its result, and the routes that reached it."""
    with (
        Simulator(behavior=behavior or SaysWhatItHeard()) as sim,
        intercept(store, "record-missing", approve_live=True, source="sim"),
    ):
        result = run(sim)
        return result, [request.path for request in sim.requests]


def _responses(stream: bool, second: str) -> Callable[[Simulator], str]:
    def run(sim: Simulator) -> str:
        client = openai.OpenAI(api_key="k", base_url=sim.openai_base_url, max_retries=0)
        if stream:
            with client.responses.stream(model="m", input="My name is Ada.") as events:
                first = events.get_final_response()
        else:
            first = client.responses.create(model="m", input="My name is Ada.")
        follow = client.responses.create(model="m", input=second, previous_response_id=first.id)
        return follow.output_text

    return run


def test_a_changed_follow_up_of_a_replayed_response_records_with_its_history(
    tmp_path: Path,
) -> None:
    for stream in (False, True):
        store = tmp_path / f"responses-{stream}.jsonl"
        said, _ = _record(store, _responses(stream, "Who am I?"))
        assert said == "My name is Ada. | Who am I?"
        said, reached = _record(store, _responses(stream, "Who am I, again?"))
        assert reached == ["/v1/responses"]  # the first turn replayed
        assert said == "My name is Ada. | Who am I, again?"


def _conversation(second: str, before: str | None = None) -> Callable[[Simulator], str]:
    def run(sim: Simulator) -> str:
        client = openai.OpenAI(api_key="k", base_url=sim.openai_base_url, max_retries=0)
        if before is not None:  # another conversation, made first
            other = client.conversations.create()
            client.conversations.items.create(
                other.id, items=[{"type": "message", "role": "user", "content": before}]
            )
        made = client.conversations.create()
        client.conversations.items.create(
            made.id, items=[{"type": "message", "role": "user", "content": "My name is Ada."}]
        )
        return client.responses.create(model="m", input=second, conversation=made.id).output_text

    return run


def test_a_conversation_made_by_replayed_calls_is_held_and_a_new_one_is_another(
    tmp_path: Path,
) -> None:
    store = tmp_path / "conversations.jsonl"
    said, _ = _record(store, _conversation("Who am I?"))
    assert said == "My name is Ada. | Who am I?"
    # the new conversation is made live (its create is sent twice now), the one of the
    # recording is replayed: the simulator must not give the new one the replayed id
    said, _ = _record(store, _conversation("Who am I, again?", before="Something else."))
    assert said == "My name is Ada. | Who am I, again?"


def _thread(weather_is: str) -> Callable[[Simulator], str]:
    def run(sim: Simulator) -> str:
        @anthropic.beta_tool
        def weather(city: str) -> str:
            """The weather in a city."""
            return f"{weather_is} in {city}"

        client = anthropic.Anthropic(api_key="k", base_url=sim.url, max_retries=0)
        runner = client.beta.messages.tool_runner(
            model="claude-sim-1",
            max_tokens=64,
            tools=[weather],
            messages=[{"role": "user", "content": "Weather?"}],
        )
        return [message for message in runner][-1].content[0].text

    return run


def test_a_thread_whose_start_replayed_goes_on_live(tmp_path: Path) -> None:
    store = tmp_path / "threads.jsonl"
    said, _ = _record(store, _thread("sunny"), WeatherThenAnswer())
    assert said == "The tool says: sunny in Paris"
    said, reached = _record(store, _thread("rainy"), WeatherThenAnswer())
    assert reached == ["/v1/messages"]  # the thread's first turn replayed
    assert said == "The tool says: rainy in Paris"


FOLLOW_UP = """
import os

import openai
import pytest

SECOND = os.environ.get("SECOND", "Who am I?")


def chat(client):
    first = client.responses.create(model="m", input="My name is Ada.")
    return client.responses.create(model="m", input=SECOND, previous_response_id=first.id)


@pytest.mark.replaygate(fixtures="built.jsonl")
def test_a_client_built_for_the_real_api():
    said = chat(openai.OpenAI(api_key="k", max_retries=0)).output_text
    assert said == "echo: " + SECOND


@pytest.mark.replaygate(fixtures="factory.jsonl")
def test_a_client_of_the_plugin_s_factory(openai_client):
    assert chat(openai_client(max_retries=0)).output_text == "echo: " + SECOND


@pytest.mark.replaygate(fixtures="based.jsonl")
def test_a_factory_client_given_the_real_api_s_base_url(openai_client):
    client = openai_client(base_url="https://api.openai.com/v1", max_retries=0)
    assert chat(client).output_text == "echo: " + SECOND
"""


def test_the_plugin_s_simulator_learns_what_its_recording_replays(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # imported here first: the in-process runs would each import it anew, and the
    # plugin's factories would then build clients of another run's httpx2 classes
    assert openai.OpenAI is not None
    pytester.makepyfile(test_agent=FOLLOW_UP)
    record = (
        "--replaygate-record-mode=record-missing",
        "--replaygate-approve-live",
        "--replaygate-simulator=echo",
    )
    pytester.runpytest(*record).assert_outcomes(passed=3)
    monkeypatch.setenv("SECOND", "Who am I, again?")  # the follow-up names a replayed response
    pytester.runpytest(*record).assert_outcomes(passed=3)
    for name in ("built", "factory", "based"):
        store = FixtureStore.open(pytester.path / f"tests/fixtures/{name}.jsonl")
        assert len(store) == 3  # the first turn once, both follow-ups


def test_a_simulator_that_never_saw_the_start_refuses_the_follow_up_saying_why() -> None:
    # as one in another process would (replaygate sim serve): nothing tells it
    with Simulator(behavior=SaysWhatItHeard()) as sim:
        client = openai.OpenAI(api_key="k", base_url=sim.openai_base_url, max_retries=0)
        with pytest.raises(openai.BadRequestError) as caught:
            client.responses.create(model="m", input="Hi", previous_response_id="resp_sim_0001_0")
    message = str(caught.value)
    assert "resp_sim_0001_0' not found" in message and "served" in message


def _streamed_thread(second: str) -> Callable[[Simulator], str]:
    def run(sim: Simulator) -> str:
        client = anthropic.Anthropic(api_key="k", base_url=sim.url, max_retries=0)
        start = {"model": "claude-sim-1", "max_tokens": 64}
        with client.messages.stream(
            **start,
            messages=[{"role": "user", "content": "My name is Ada."}],
            extra_body={"thread": {"type": "create"}},
        ) as events:
            first = events.get_final_message()
        follow = client.messages.create(
            **start,
            messages=[{"role": "user", "content": second}],
            extra_body={"thread": {"type": "continue", "previous_message_id": first.id}},
        )
        return follow.content[0].text

    return run


def test_a_thread_started_by_a_replayed_stream_goes_on_live(tmp_path: Path) -> None:
    store = tmp_path / "streamed-thread.jsonl"
    said, _ = _record(store, _streamed_thread("Who am I?"))
    assert said == "My name is Ada. | Who am I?"
    said, reached = _record(store, _streamed_thread("Who am I, again?"))
    assert reached == ["/v1/messages"]
    assert said == "My name is Ada. | Who am I, again?"


def _items(third: str) -> Callable[[Simulator], list[tuple[str, str]]]:
    def run(sim: Simulator) -> list[tuple[str, str]]:
        client = openai.OpenAI(api_key="k", base_url=sim.openai_base_url, max_retries=0)
        made = client.conversations.create()
        added = []
        for text in ("A", "B", third):
            page = client.conversations.items.create(
                made.id, items=[{"type": "message", "role": "user", "content": text}]
            )
            added.append(page.data[0].id)
        found = client.conversations.items.retrieve(added[-1], conversation_id=made.id)
        return [(added[-1], found.content[0].text)]

    return run


def test_an_item_added_live_gets_an_id_no_recorded_item_has(tmp_path: Path) -> None:
    store = tmp_path / "items.jsonl"
    [(recorded_id, _)], _ = _record(store, _items("C"))
    # A and B replay (learned with their ids); the changed third item is added live, and
    # looking it up by its id is not answered with the recorded third item
    [(third_id, text)], _ = _record(store, _items("C, changed"))
    assert text == "C, changed"
    assert third_id != recorded_id


def test_the_server_a_request_is_addressed_to_learns_not_the_live_origin(
    tmp_path: Path,
) -> None:
    # a loopback server of the test's own is sent to where it is addressed, not moved to
    # the live origin (the plugin's simulator): it is that server which learns
    store = tmp_path / "own.jsonl"
    for second in ("Who am I?", "Who am I, again?"):
        with (
            Simulator(behavior=SaysWhatItHeard()) as origin,
            Simulator(behavior=SaysWhatItHeard()) as own,
            intercept(store, "record-missing", approve_live=True, source="sim") as exchange,
        ):
            exchange.live_origin = origin.url
            said = _responses(False, second)(own)
            assert origin.requests == []
        assert said == f"My name is Ada. | {second}"


def test_a_stream_cut_short_teaches_nothing() -> None:
    from replaygate.stream_answers import messages_answer, responses_answer

    start = {"event": "message_start", "data": '{"message": {"id": "msg_1", "content": []}}'}
    block = {
        "event": "content_block_start",
        "data": '{"index": 0, "content_block": {"type": "text", "text": ""}}',
    }
    delta = {
        "event": "content_block_delta",
        "data": '{"index": 0, "delta": {"type": "text_delta", "text": "Hi"}}',
    }
    stop = {"event": "message_stop", "data": '{"type": "message_stop"}'}
    error = {"event": "error", "data": '{"type": "error", "error": {"type": "overloaded_error"}}'}
    whole = messages_answer([start, block, delta, stop])
    assert whole is not None and whole["content"] == [{"type": "text", "text": "Hi"}]
    assert messages_answer([start, block, delta, error]) is None
    assert responses_answer([{"event": "response.created", "data": '{"response": {}}'}]) is None
