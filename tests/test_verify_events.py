"""verify finds a streamed event of a model API whose data an edit left unreadable.

An event's ``data`` is JSON kept as a JSON string, so a hand edit of the answer text
easily breaks an escape; the SDK would then fail on replay without naming the fixture.
Recorded through the official SDKs from the loopback simulator.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from replaygate.fixtures.fixture import Fixture
from replaygate.http import httpx2_client
from replaygate.hygiene.verify import verify_store
from replaygate.sim import Simulator
from sdks import anthropic, openai

QUESTION = [{"role": "user", "content": "hello"}]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[bytes, bytes]]:
    """The lines of a streamed Messages API call and a streamed chat completion."""
    folder = tmp_path_factory.mktemp("events")
    with Simulator(behavior="echo") as sim:
        http = httpx2_client(folder / "a.jsonl", mode="record-missing", approve_live=True)
        with (
            anthropic.Anthropic(api_key="k", base_url=sim.url, http_client=http) as client,
            client.messages.stream(model="m", max_tokens=16, messages=QUESTION) as stream,
        ):
            stream.until_done()
        http = httpx2_client(folder / "o.jsonl", mode="record-missing", approve_live=True)
        with openai.OpenAI(api_key="k", base_url=f"{sim.url}/v1", http_client=http) as client:
            for _ in client.chat.completions.create(model="m", messages=QUESTION, stream=True):
                pass
    yield (folder / "a.jsonl").read_bytes(), (folder / "o.jsonl").read_bytes()


def _problems(path: Path, line: bytes) -> list[str]:
    path.write_bytes(line)
    _, problems = verify_store(path)
    return [str(problem) for problem in problems]


def test_the_recorded_streams_verify_clean_done_marker_included(
    tmp_path: Path, recorded: tuple[bytes, bytes]
) -> None:
    messages, chat = recorded
    assert b"[DONE]" in chat
    assert _problems(tmp_path / "a.jsonl", messages) == []
    assert _problems(tmp_path / "o.jsonl", chat) == []


def test_an_event_whose_data_an_edit_broke_is_named_by_its_path(
    tmp_path: Path, recorded: tuple[bytes, bytes]
) -> None:
    messages, _ = recorded
    # The answer's text edited with its quotes escaped once, for the line, not twice:
    # the line still reads, the event's JSON does not.
    edited = messages.replace(b"echo: hello", b'echo: \\"hi\\"', 1)
    events = orjson.loads(edited)["response"]["events"]
    broken = next(i for i, e in enumerate(events) if 'echo: "hi"' in e["data"])
    (problem,) = _problems(tmp_path / "a.jsonl", edited)
    assert problem.startswith(f"{tmp_path / 'a.jsonl'}:1: ")
    assert f"response.events[{broken}].data: not JSON (" in problem
    assert "where a model API sends JSON" in problem


def test_text_data_of_a_stream_that_is_no_model_api_is_not_a_problem(
    tmp_path: Path, recorded: tuple[bytes, bytes]
) -> None:
    fixture = orjson.loads(recorded[0])
    request = {**fixture["request"], "path": "/v1/notifications"}
    response = fixture["response"]
    response["events"] = [{"event": "note", "data": "plain text, not JSON"}]
    line = Fixture.create(request, [response], fixture["meta"]).sealed().to_line()
    assert _problems(tmp_path / "n.jsonl", line) == []


def test_the_unterminated_last_event_of_a_stream_cut_short_may_end_anywhere(
    tmp_path: Path, recorded: tuple[bytes, bytes]
) -> None:
    fixture = orjson.loads(recorded[0])
    response = fixture["response"]
    kept = response["events"][:4]
    kept[-1] = {**kept[-1], "data": kept[-1]["data"][:20], "unterminated": True}
    response.update(events=kept, stream_end="cut")
    response["stream_error"] = {"type": "RemoteProtocolError", "message": "peer closed"}
    assert _problems(tmp_path / "cut.jsonl", orjson.dumps(fixture) + b"\n") == []
    kept[-1]["unterminated"] = None  # the same event, as if it had ended
    (problem,) = _problems(tmp_path / "cut.jsonl", orjson.dumps(fixture) + b"\n")
    assert "response.events[3].data: not JSON (" in problem
