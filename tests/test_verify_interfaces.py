"""verify names a fixture no replay can serve: a misspelt interface, a misspelt block type."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner

from echo_recording import record_echoes
from replaygate import Fixture, Message, ModelResponse, ReplayModel, ToolCall
from replaygate.cli import main
from replaygate.errors import FixtureFormatError, WireFormatError
from replaygate.fixtures.fingerprint import digest
from replaygate.fixtures.fixture import InterfaceVersionError, make_meta
from replaygate.hygiene.verify_blocks import check_blocks
from replaygate.models.providers import (
    INTERFACES,
    to_anthropic_request,
    to_anthropic_response,
    to_responses_response,
)

# Its tests import the provider SDKs through replaygate (anthropic, as echo_recording
# records from the simulator).

SETTINGS: dict[str, Any] = {"model": "claude-x", "max_tokens": 32}
CALL = ModelResponse(
    tool_calls=(ToolCall("toolu_1", "search", {"q": "x"}),), stop_reason="tool_use"
)


def _store(tmp_path: Path, request: dict[str, Any], response: Any, interface: str) -> Path:
    fixture = Fixture.create(request, [response], make_meta(interface, "2023-06-01", "hand"))
    store = tmp_path / "s.jsonl"
    store.write_bytes(orjson.dumps(fixture.to_json()) + b"\n")
    return store


def _verify(store: Path) -> tuple[int, list[str]]:
    result = CliRunner().invoke(main, ["verify", str(store)])
    return result.exit_code, result.output.splitlines()


def _question() -> dict[str, Any]:
    return to_anthropic_request([Message.user("q")], [], **SETTINGS)


def test_a_misspelt_interface_of_an_engine_request_is_reported(tmp_path: Path) -> None:
    answer = to_anthropic_response(ModelResponse(text="a"), model="claude-x")
    store = _store(tmp_path, _question(), answer, "anthropic.mesages")
    code, lines = _verify(store)
    assert code == 1
    assert lines == [
        f"{store}:1: meta.interface 'anthropic.mesages' is not a known interface (known: "
        "anthropic.messages, google.generate_content, openai.chat.completions, "
        "openai.responses); a request in the engine's form replays only under one of them: "
        "correct the name, or re-record the fixture",
        "1 fixture(s) checked, 1 problem(s)",
    ]


@pytest.mark.parametrize("kind", ["tool_usee", "Tool_use", "tool-use"])
def test_a_misspelt_block_type_is_reported_and_refused_at_replay(tmp_path: Path, kind: str) -> None:
    answer = to_anthropic_response(CALL, model="claude-x")
    answer["content"][0]["type"] = kind
    store = _store(tmp_path, _question(), answer, "anthropic.messages")
    reason = (
        f"response.content[0].type: unknown type {kind!r} ('tool_use' misspelt?): "
        "it would be passed over"
    )
    code, lines = _verify(store)
    assert code == 1
    assert lines[0] == f"{store}:1: response is not a valid anthropic.messages response: {reason}"
    with pytest.raises(FixtureFormatError, match=r"cannot be served: .*misspelt"):
        ReplayModel(store, **SETTINGS).complete([Message.user("q")], [])


def test_a_block_of_another_type_is_passed_over(tmp_path: Path) -> None:
    answer = to_anthropic_response(CALL, model="claude-x")
    answer["content"].insert(0, {"type": "thinking", "thinking": "...", "signature": "s"})
    store = _store(tmp_path, _question(), answer, "anthropic.messages")
    assert _verify(store)[0] == 0
    assert ReplayModel(store, **SETTINGS).complete([Message.user("q")], []).tool_calls


def test_a_misspelt_output_item_of_the_responses_api_is_refused() -> None:
    answer = to_responses_response(CALL, model="gpt-x")
    answer["output"][-1]["type"] = "function_cal"
    with pytest.raises(WireFormatError, match=r"output\[\d\]\.type: unknown type 'function_cal'"):
        INTERFACES["openai.responses"].from_response(answer)


@pytest.fixture(scope="module")
def http_store(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """The lines of a store of a Messages API answer recorded at the HTTP layer, and of
    its stream."""
    store = tmp_path_factory.mktemp("http") / "h.jsonl"
    record_echoes(store, ["hi"], streamed=True)
    return [orjson.loads(line) for line in store.read_bytes().splitlines()]


def test_a_misspelt_block_type_recorded_at_the_http_layer_is_reported(
    tmp_path: Path, http_store: list[dict[str, Any]]
) -> None:
    plain, streamed = (orjson.loads(orjson.dumps(line)) for line in http_store)
    plain["response"]["body"]["content"][0]["type"] = "txt"
    events = streamed["response"]["events"]
    start = next(i for i, e in enumerate(events) if e.get("event") == "content_block_start")
    data = orjson.loads(events[start]["data"])
    data["content_block"]["type"] = "Text"
    events[start]["data"] = orjson.dumps(data).decode()
    store = tmp_path / "s.jsonl"
    store.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in (plain, streamed)))
    code, lines = _verify(store)
    assert code == 1
    assert lines == [
        f"{store}:1: response is not an HTTP response: response.body.content[0].type: "
        "unknown type 'txt' ('text' misspelt?): it would be passed over",
        f"{store}:2: response is not an HTTP response: response.events[{start}].data."
        "content_block.type: unknown type 'Text' ('text' misspelt?): it would be passed over",
        "2 fixture(s) checked, 2 problem(s)",
    ]
    store.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in http_store))
    assert _verify(store)[0] == 0


def test_a_misspelt_item_of_a_responses_api_stream_is_named() -> None:
    added = {"type": "response.output_item.added", "item": {"type": "function_cal"}}
    events = [None, {"type": "response.created"}, added]
    with pytest.raises(WireFormatError) as caught:
        check_blocks("openai.responses", {"status": 200, "events": []}, events)
    assert caught.value.path == "response.events[2].data.item.type"
    check_blocks("openai.responses", {}, [{**added, "item": {"type": "web_search_call"}}])


def test_a_replay_of_a_misspelt_interface_says_to_correct_it(tmp_path: Path) -> None:
    answer = to_anthropic_response(ModelResponse(text="a"), model="claude-x")
    store = _store(tmp_path, _question(), answer, "anthropic.mesages")
    with pytest.raises(InterfaceVersionError) as caught:
        ReplayModel(store, **SETTINGS).complete([Message.user("q")], [])
    message = str(caught.value)
    assert message.endswith(
        "this run asks for anthropic.messages version 2023-06-01. Re-record it "
        '(`mode="rerecord", approve_live=True` on a RecordingModel (pytest\'s '
        "--replaygate-record-mode reaches the clients of the plugin's fixtures, not a model "
        "a test builds: build a RecordingModel with `mode=replaygate_mode` when it is not "
        '"replay")), or correct its meta.interface if it was recorded for anthropic.messages.'
    )


def test_a_misspelt_interface_in_the_meta_of_a_sample_line_is_reported(tmp_path: Path) -> None:
    answer = to_anthropic_response(ModelResponse(text="a"), model="claude-x")
    store = _store(tmp_path, _question(), answer, "anthropic.messages")
    meta = make_meta("anthropic.mesages", "2023-06-01", "hand")
    sample = {"key": digest(_question()), "sample": 1, "response": answer, "meta": meta}
    with store.open("ab") as lines:
        lines.write(orjson.dumps(sample) + b"\n")
    code, lines_out = _verify(store)
    assert code == 1
    assert lines_out[0].startswith(
        f"{store}:2: meta.interface 'anthropic.mesages' is not a known interface (known: "
    )
    assert lines_out[1:] == ["1 fixture(s) checked, 1 problem(s)"]
