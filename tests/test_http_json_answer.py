"""A model API's answer labelled JSON whose stored body is not JSON names its fixture.

A cassette's answer broken by a hand edit (a closing quote lost) is stored as ``text``
under ``content-type: application/json``: the replay handed it to the SDK, which died in
``json.loads`` naming no fixture, and ``verify`` passed it. Replay now fails with the
fixture's file and line, and ``verify`` names it; what a server sends that way on any
other path, or with an error status, is still replayed as it was recorded.
"""

from __future__ import annotations

import asyncio
import base64
import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from loopback import Handler, serving
from replaygate.errors import FixtureFormatError, WireFormatError
from replaygate.http import block_network, httpx2_async_client, httpx2_client
from replaygate.hygiene.verify import verify_store
from replaygate.sim import Simulator
from sdks import openai

BROKEN = '{"id":"chatcmpl-1","object":"chat.completion","choices":[{"message":{"content":"Hi!}}]}'
HI = [{"role": "user", "content": "Say hi"}]


def recorded(path: Path, sim: Simulator, **response: Any) -> Path:
    """A chat completion recorded into ``path``, its response then edited to ``response``."""
    http = httpx2_client(path, "record-missing", approve_live=True)
    with openai.OpenAI(api_key="k", base_url=f"{sim.url}/v1", http_client=http) as client:
        client.chat.completions.create(model="gpt-sim-1", messages=HI)
    fixture = json.loads(path.read_text())
    fixture["response"] = response
    path.write_text(json.dumps(fixture) + "\n")
    return path


def replay(path: Path, sim: Simulator) -> Any:
    http = httpx2_client(path)
    with (
        block_network(),
        openai.OpenAI(
            api_key="k", base_url=f"{sim.url}/v1", http_client=http, max_retries=0
        ) as client,
    ):
        return client.chat.completions.create(model="gpt-sim-1", messages=HI)


def _refused_at_line_one(store: Path, sim: Simulator, reason: str) -> str:
    """What a replay of the one fixture of ``store`` raised, naming its line and starting
    with ``reason``, which verify names at that line too."""
    with pytest.raises(FixtureFormatError) as caught:
        replay(store, sim)
    assert str(caught.value).startswith(f"{store}:1: its response cannot be replayed: {reason}")
    count, problems = verify_store(store)
    assert count == 1 and [(p.file, p.line) for p in problems] == [(str(store), 1)]
    assert reason in problems[0].reason
    return str(caught.value)


@pytest.mark.parametrize("label", ["application/json", "application/json; charset=utf-8"])
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_success_labelled_json_whose_text_is_not_json_names_its_fixture(
    tmp_path: Path, sim: Simulator, label: str
) -> None:
    store = recorded(
        tmp_path / "hi.jsonl", sim, status=200, headers={"content-type": label}, text=BROKEN
    )
    reason = (
        "response.text: labelled application/json, but not JSON (Unterminated string starting "
        "at line 1, column 80), where the SDK of a model API parses a success as JSON (an edit "
        "broke it?)"
    )
    said = _refused_at_line_one(store, sim, reason)
    assert said == f"{store}:1: its response cannot be replayed: {reason}"


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_success_labelled_json_kept_as_bytes_that_are_not_json_names_its_fixture(
    tmp_path: Path, sim: Simulator
) -> None:
    # a cassette's gzip answer whose content-encoding header a filter took away
    gzipped = base64.b64encode(gzip.compress(BROKEN.encode())).decode()
    headers = {"content-type": "application/json"}
    store = recorded(tmp_path / "hi.jsonl", sim, status=200, headers=headers, base64=gzipped)
    reason = "response.base64: labelled application/json, but not JSON ("
    _refused_at_line_one(store, sim, reason)


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_success_labelled_json_kept_as_bytes_in_utf16_replays(
    tmp_path: Path, sim: Simulator
) -> None:
    # JSON in UTF-16 is read by the SDK's json.loads of the bytes, so it is no damage
    answer = json.dumps(
        {
            "id": "c",
            "object": "chat.completion",
            "created": 1,
            "model": "gpt-sim-1",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": "Hi!"},
                }
            ],
        }
    )
    utf16 = base64.b64encode(answer.encode("utf-16")).decode()
    headers = {"content-type": "application/json"}
    store = recorded(tmp_path / "hi.jsonl", sim, status=200, headers=headers, base64=utf16)
    assert replay(store, sim).choices[0].message.content == "Hi!"
    assert verify_store(store) == (1, [])


@pytest.mark.parametrize(("status", "refused"), [(200, True), (204, False), (205, False)])
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_success_labelled_json_recorded_empty_names_its_fixture(
    tmp_path: Path, sim: Simulator, status: int, refused: bool
) -> None:
    # a cassette filter that blanked the body: the SDK died in json.loads naming nothing
    headers = {"content-type": "application/json"}
    store = recorded(tmp_path / "hi.jsonl", sim, status=status, headers=headers, body=None)
    count, problems = verify_store(store)
    assert count == 1 and len(problems) == refused
    if refused:
        reason = "response.body: labelled application/json, but empty, where the SDK"
        assert reason in problems[0].reason
        with pytest.raises(FixtureFormatError, match=r"hi\.jsonl:1: its response cannot"):
            replay(store, sim)


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_success_whose_body_key_an_edit_renamed_names_its_fixture(
    tmp_path: Path, sim: Simulator
) -> None:
    # "body" renamed by hand ("bodx"): verify named it, but the replay served an empty body
    # and the SDK died in json.loads naming no fixture
    headers = {"content-type": "application/json"}
    store = recorded(tmp_path / "hi.jsonl", sim, status=200, headers=headers, bodx={"id": "c"})
    with pytest.raises(FixtureFormatError, match=r"hi\.jsonl:1: its response cannot.*but empty"):
        replay(store, sim)


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_success_stream_that_holds_no_event_names_its_fixture(
    tmp_path: Path, sim: Simulator
) -> None:
    # a cassette whose streamed body vcrpy left unread: the SDK read no answer, naming nothing
    headers = {"content-type": "text/event-stream"}
    store = recorded(
        tmp_path / "hi.jsonl", sim, status=200, headers=headers, events=[], stream_end="complete"
    )
    reason = "response.events: a success stream that holds no event, from which the SDK"
    _refused_at_line_one(store, sim, reason)


def _chunks(client: Any) -> list[Any]:
    """The chunks of a streamed chat completion, read to the end."""
    return list(client.chat.completions.create(model="gpt-sim-1", messages=HI, stream=True))


async def _async_chunks(store: Path) -> list[Any]:
    async with openai.AsyncOpenAI(api_key="k", http_client=httpx2_async_client(store)) as client:
        stream = await client.chat.completions.create(model="gpt-sim-1", messages=HI, stream=True)
        return [chunk async for chunk in stream]


@pytest.mark.parametrize("kind", ["sync", "async"])
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_stream_event_an_edit_broke_names_its_fixture(
    tmp_path: Path, sim: Simulator, kind: str
) -> None:
    # a quote lost in an event's data: the SDK died in json.loads naming no fixture
    store = tmp_path / "hi.jsonl"
    http = httpx2_client(store, "record-missing", approve_live=True)
    with openai.OpenAI(api_key="k", base_url=f"{sim.url}/v1", http_client=http) as client:
        _chunks(client)
    fixture = json.loads(store.read_text())
    event = fixture["response"]["events"][1]
    event["data"] = event["data"].replace('"content":"', '"content":', 1)
    store.write_text(json.dumps(fixture) + "\n")
    with block_network(), pytest.raises(json.JSONDecodeError) as caught:
        if kind == "sync":
            with openai.OpenAI(api_key="k", http_client=httpx2_client(store)) as client:
                _chunks(client)
        else:
            asyncio.run(_async_chunks(store))
    column = event["data"].index("echo") + 1
    assert caught.value.__notes__ == [
        f"replayed from {store}:1: response.events[1].data is not JSON (Expecting value at "
        f"column {column}); an edit of the fixture may have broken its escaping "
        f"(`replaygate verify {store}` checks it)"
    ]


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_stream_cut_before_its_first_event_replays_as_recorded(
    tmp_path: Path, sim: Simulator
) -> None:
    headers = {"content-type": "text/event-stream"}
    store = recorded(
        tmp_path / "hi.jsonl", sim, status=200, headers=headers, events=[], stream_end="cut"
    )
    assert verify_store(store) == (1, [])


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_an_error_labelled_json_whose_text_is_not_json_replays_as_recorded(
    tmp_path: Path, sim: Simulator
) -> None:
    # a gateway's 502 page under the API's content type: the SDK reads it as it did live
    headers = {"content-type": "application/json"}
    store = recorded(tmp_path / "hi.jsonl", sim, status=502, headers=headers, text="Bad gateway")
    with pytest.raises(openai.APIStatusError) as caught:
        replay(store, sim)
    assert caught.value.status_code == 502 and caught.value.response.text == "Bad gateway"
    assert verify_store(store) == (1, [])


class ByteOrderMark(Handler):
    """A gateway that answers a chat completion with a byte-order mark before its JSON."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        answer = {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1,
            "model": "gpt-sim-1",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": "Hi!"},
                }
            ],
        }
        self.answer_bytes(b"\xef\xbb\xbf" + json.dumps(answer).encode(), "application/json")


def test_a_success_the_sdk_reads_after_a_byte_order_mark_replays(tmp_path: Path) -> None:
    store = tmp_path / "hi.jsonl"

    def ask(http: Any, base: str) -> Any:
        with openai.OpenAI(api_key="k", base_url=f"{base}/v1", http_client=http) as client:
            return client.chat.completions.create(model="gpt-sim-1", messages=HI)

    with serving(ByteOrderMark) as base:
        live = ask(httpx2_client(store, "record-missing", approve_live=True), base)
        assert "text" in json.loads(store.read_text())["response"]
        with block_network():
            again = ask(httpx2_client(store), base)
    assert again.choices[0].message.content == live.choices[0].message.content == "Hi!"
    assert verify_store(store) == (1, [])


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_success_nested_too_deeply_for_the_sdk_names_its_fixture(
    tmp_path: Path, sim: Simulator
) -> None:
    deep = "[" * 5000 + "]" * 5000
    headers = {"content-type": "application/json"}
    store = recorded(tmp_path / "hi.jsonl", sim, status=200, headers=headers, text=deep)
    with pytest.raises(FixtureFormatError) as caught:
        replay(store, sim)
    assert str(caught.value) == (
        f"{store}:1: its response cannot be replayed: response.text: labelled "
        "application/json, but nested too deeply for the SDK's JSON reader, where the SDK of "
        "a model API parses a success as JSON (an edit broke it?)"
    )


class Broken(Handler):
    """A service of the agent's own that answers a body labelled JSON that is not JSON."""

    def do_GET(self) -> None:
        self.answer_bytes(b'{"rows": [1, 2', "application/json")


def test_another_service_answering_broken_json_replays_it_as_sent(tmp_path: Path) -> None:
    store = tmp_path / "rows.jsonl"
    with serving(Broken) as base, httpx2_client(store, "record-missing", approve_live=True) as c:
        assert c.get(f"{base}/rows").text == '{"rows": [1, 2'
    with block_network(), httpx2_client(store) as replayed:
        assert replayed.get(f"{base}/rows").text == '{"rows": [1, 2'


class Gateway(Handler):
    """A gateway before a model API that answers a success no SDK reads: a body labelled
    JSON that is empty or not JSON, or an event stream that holds no event."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["content-length"]))
        case = self.headers["x-case"]
        body = b"upstream request timeout" if case == "text" else b""
        kind = "text/event-stream" if case == "stream" else "application/json"
        self.answer_bytes(body, kind)


@pytest.mark.parametrize(
    ("case", "reason"),
    [
        ("text", "response.text: labelled application/json, but not JSON (Expecting value"),
        ("empty", "response.body: labelled application/json, but empty, where the SDK"),
        ("stream", "response.events: a success stream that holds no event, from which"),
    ],
)
def test_a_live_success_no_sdk_reads_is_refused_as_it_is_recorded(
    tmp_path: Path, case: str, reason: str
) -> None:
    # recorded, every replay of it would fail, and verify would blame an edit
    store = tmp_path / "hi.jsonl"
    http = httpx2_client(store, "record-missing", approve_live=True)
    with (
        serving(Gateway) as base,
        openai.OpenAI(api_key="k", base_url=f"{base}/v1", http_client=http, max_retries=0) as c,
        pytest.raises(WireFormatError) as caught,
    ):
        answer = c.chat.completions.create(
            model="gpt-sim-1", messages=HI, stream=case == "stream", extra_headers={"x-case": case}
        )
        if case == "stream":
            list(answer)  # a stream is recorded as it is read
    assert str(caught.value).startswith(reason), caught.value
    assert str(caught.value).endswith(
        "(as the server sent it); no replay could hand it to the SDK, so the live answer to "
        "POST /v1/chat/completions was not recorded"
    )
    assert not store.exists() or store.read_text() == ""
