"""The engine boundary as a team with its own agent loop uses it: identical requests sent
again (a retry, several asks to vote on) get the recorded answers in order (law 1), and
the stop reasons the APIs send outside the engine's vocabulary replay as what they mean."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import orjson
import pytest

from replaygate import FixtureMismatchError, Message, ModelResponse, ToolCall, ToolSpec, Usage
from replaygate.fixtures.fingerprint import fixture_key
from replaygate.fixtures.fixture import make_meta
from replaygate.models.fakes import ScriptedModel
from replaygate.models.live import LIVE_MODELS, AnthropicModel
from replaygate.models.providers import (
    from_anthropic_response,
    from_openai_response,
    from_responses_response,
    get_interface,
    to_anthropic_request,
    to_openai_request,
)
from replaygate.models.replay import RecordingModel, ReplayModel
from replaygate.sim import ScriptBehavior, Simulator
from run_cli import replaygate
from sdks import anthropic, openai

SETTINGS: dict[str, Any] = {"model": "claude-sonnet-4-6", "max_tokens": 64}
ASK = (Message.user("Pick a number."),)


class Counting:
    """A simulator behaviour answering every request with the next number: a live model
    whose answer to the same question differs from one ask to the next."""

    def __init__(self) -> None:
        self.asked = 0

    def respond(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        self.asked += 1
        return ModelResponse(text=f"number {self.asked}")


@pytest.fixture()
def sim() -> Iterator[Simulator]:
    with Simulator(behavior=Counting()) as running:
        yield running


def _live(sim: Simulator) -> AnthropicModel:
    return AnthropicModel(_client("anthropic.messages", sim), **SETTINGS)


def _client(interface: str, sim: Simulator) -> Any:
    if interface == "anthropic.messages":
        return anthropic.Anthropic(api_key="test", base_url=sim.url, max_retries=0)
    return openai.OpenAI(api_key="test", base_url=sim.openai_base_url, max_retries=0)


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_identical_requests_are_recorded_and_replayed_in_order(
    sim: Simulator, tmp_path: Path
) -> None:
    store = tmp_path / "votes.jsonl"
    recorder = RecordingModel(_live(sim), store, approve_live=True, source="sim", **SETTINGS)
    recorded = [recorder.complete(ASK, ()).text for _ in range(3)]
    assert recorded == ["number 1", "number 2", "number 3"]  # each ask went to the API
    assert recorder.recorded == 3

    replay = ReplayModel(store, **SETTINGS)
    assert [replay.complete(ASK, ()).text for _ in range(3)] == recorded
    with pytest.raises(FixtureMismatchError, match="recorded 3 times and sent 4 times") as err:
        replay.complete(ASK, ())
    assert err.value.key == fixture_key(to_anthropic_request(ASK, (), **SETTINGS))
    assert replay.raised == [err.value]  # kept: an agent catching it cannot hide it

    again = RecordingModel(_live(sim), store, approve_live=True, source="sim", **SETTINGS)
    assert [again.complete(ASK, ()).text for _ in range(4)] == [*recorded, "number 4"]
    assert again.recorded == 1  # only the fourth ask was missing


def test_repeat_last_opts_in_to_the_last_answer_again(tmp_path: Path) -> None:
    store = tmp_path / "s.jsonl"
    live = ScriptedModel([ModelResponse(text="only")])
    RecordingModel(live, store, approve_live=True, **SETTINGS).complete(ASK, ())
    replay = ReplayModel(store, repeat_last=True, **SETTINGS)
    assert [replay.complete(ASK, ()).text for _ in range(3)] == ["only"] * 3
    fresh = ReplayModel(store, **SETTINGS)  # counts are the model's own
    assert fresh.complete(ASK, ()).text == "only"


def test_a_sampled_run_repeating_a_request_is_refused_naming_the_sample(
    tmp_path: Path,
) -> None:
    store = tmp_path / "s.jsonl"
    for sample, text in enumerate(("first", "second")):
        live = ScriptedModel([ModelResponse(text=text)])
        recorder = RecordingModel(live, store, approve_live=True, sample=sample, **SETTINGS)
        recorder.complete(ASK, ())
    replay = ReplayModel(store, sample=1, **SETTINGS)
    assert replay.complete(ASK, ()).text == "second"
    with pytest.raises(FixtureMismatchError, match=r"sample 1 sent this request 2 times"):
        replay.complete(ASK, ())
    live = ScriptedModel([ModelResponse(text="never")])
    recorder = RecordingModel(live, store, approve_live=True, sample=1, **SETTINGS)
    assert recorder.complete(ASK, ()).text == "second"
    with pytest.raises(FixtureMismatchError, match=r"sample 1 sent this request 2 times"):
        recorder.complete(ASK, ())
    assert live.calls == []  # refused before anything was sent


def _fixture_line(request: dict[str, Any], response: dict[str, Any], interface: str) -> bytes:
    meta = make_meta(interface, get_interface(interface).version, "hand", None)
    fixture = {"key": fixture_key(request), "request": request, "response": response}
    return orjson.dumps({**fixture, "meta": meta}) + b"\n"


def test_a_context_window_stop_replays_as_max_tokens(tmp_path: Path) -> None:
    response = {
        "content": [{"type": "text", "text": "The answer was cut"}],
        "stop_reason": "model_context_window_exceeded",
        "usage": {"input_tokens": 199_000, "output_tokens": 1_000},
    }
    assert from_anthropic_response(response).stop_reason == "max_tokens"
    store = tmp_path / "cut.jsonl"
    request = to_anthropic_request(ASK, (), **SETTINGS)
    store.write_bytes(_fixture_line(request, response, "anthropic.messages"))
    assert replaygate("verify", str(store)).returncode == 0
    replayed = ReplayModel(store, **SETTINGS).complete(ASK, ())
    assert (replayed.text, replayed.stop_reason) == ("The answer was cut", "max_tokens")


def test_a_chat_completions_refusal_replays_as_a_refusal(tmp_path: Path) -> None:
    refused = {"role": "assistant", "content": None, "refusal": "I can't help with that."}
    usage = {"prompt_tokens": 3, "completion_tokens": 0}
    response = {
        "choices": [{"index": 0, "message": refused, "finish_reason": "stop"}],
        "usage": usage,
    }
    said = ("I can't help with that.", "refusal")  # the refusal's text, not an empty answer
    read = from_openai_response(response)
    assert (read.text, read.stop_reason) == said
    settings = {**SETTINGS, "interface": "openai.chat.completions"}
    store = tmp_path / "refused.jsonl"
    request = to_openai_request(ASK, (), **SETTINGS)
    store.write_bytes(_fixture_line(request, response, "openai.chat.completions"))
    replayed = ReplayModel(store, **settings).complete(ASK, ())
    assert (replayed.text, replayed.stop_reason) == said
    answered = {**refused, "content": "Sure.", "refusal": None}
    plain = {"choices": [{"message": answered, "finish_reason": "stop"}], "usage": usage}
    assert from_openai_response(plain) == ModelResponse(text="Sure.", usage=Usage(3, 0))


def test_a_responses_api_refusal_part_is_read_with_its_text() -> None:
    part = {"type": "refusal", "refusal": "I can't help with that."}
    item = {"type": "message", "id": "m", "role": "assistant", "content": [part]}
    usage = {"input_tokens": 3, "output_tokens": 5}
    response = {"status": "completed", "output": [item], "usage": usage}
    read = from_responses_response(response)
    assert (read.text, read.stop_reason) == ("I can't help with that.", "refusal")


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        ({"a": {1, 2}}, "ToolCall.arguments.a of call 't1' (add): set is not a JSON value"),
        ({"a": [1, float("nan")]}, "ToolCall.arguments.a[1] of call 't1' (add): nan is not"),
        ({"a": "\ud800"}, "ToolCall.arguments.a of call 't1' (add): text is not valid Unicode"),
        ({1: "a"}, "ToolCall.arguments of call 't1' (add): key 1 is not a string"),
        ({"a": [{None: 2}]}, "ToolCall.arguments.a[0] of call 't1' (add): key None is not a"),
    ],
)
def test_tool_call_arguments_no_api_could_send_are_refused_where_made(
    arguments: dict[str, Any], named: str
) -> None:
    with pytest.raises(TypeError, match=re.escape(named)):
        ToolCall("t1", "add", arguments)


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_unicode_and_large_arguments_record_and_replay_through_both_sdks(
    tmp_path: Path,
) -> None:
    text = "数据🎉\u200d\n\"'\\" * 2_000
    calls = (ToolCall("c1", "echo", {"text": text, "n": [1.5, None, True]}),)
    script = [ModelResponse(tool_calls=calls, stop_reason="tool_use"), ModelResponse(text="ok")]
    conversation = [*ASK, Message.assistant("", calls), Message.tool_result("c1", text)]
    for interface in ("anthropic.messages", "openai.chat.completions"):
        store = tmp_path / f"{interface}.jsonl"
        settings = {**SETTINGS, "interface": interface}
        with Simulator(behavior=ScriptBehavior(script)) as sim:
            live = LIVE_MODELS[interface](_client(interface, sim), **SETTINGS)
            recorder = RecordingModel(live, store, approve_live=True, source="sim", **settings)
            recorded = [recorder.complete(ASK, ()), recorder.complete(conversation, ())]
        replay = ReplayModel(store, **settings)
        assert [replay.complete(ASK, ()), replay.complete(conversation, ())] == recorded
        assert recorded[0].tool_calls == calls and recorded[1].text == "ok"


def test_messages_no_wire_shape_could_carry_are_refused_where_made() -> None:
    with pytest.raises(ValueError, match=r"Message.tool_call_id: a tool message names the call"):
        Message(role="tool", content="3")
    call = ToolCall("t1", "add", {"a": 1})
    with pytest.raises(ValueError, match=r"only an assistant message calls tools, not a user"):
        Message(role="user", content="q", tool_calls=(call,))
    assert Message.tool_result("t1", "3").tool_call_id == "t1"


def test_a_script_the_loop_stopped_short_of_is_named_by_assert_used() -> None:
    search = ToolCall("t1", "search_corpus", {"q": "RAG"})
    scripted = ScriptedModel(
        [ModelResponse(tool_calls=(search,), stop_reason="tool_use"), ModelResponse(text="RAG.")]
    )
    scripted.complete(ASK, ())  # a loop that took the first answer as final
    assert scripted.unused == (ModelResponse(text="RAG."),)
    with pytest.raises(AssertionError, match=r"called 1 time\(s\); never asked for: response 1"):
        scripted.assert_used()
    scripted.complete(ASK, ())
    scripted.assert_used()
    assert scripted.unused == ()


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_record_gives_each_question_its_own_model(tmp_path: Path) -> None:
    store = tmp_path / "rc.jsonl"
    agent = "replaygate.examples.research_copilot:copilot"
    args = ("record", "--agent", agent, "--fixtures", str(store), "--approve-live")
    done = replaygate(*args, "--simulator", "What is RAG?", "What is RAG?")
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith("recorded 3 new response(s) into " + str(store) + "\n")
    assert len(store.read_bytes().splitlines()) == 3  # the second run replayed the first
    replayed = replaygate("run", "--agent", agent, "--fixtures", str(store), "What is RAG?")
    assert replayed.returncode == 0, replayed.stderr
