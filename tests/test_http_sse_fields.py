"""A stream's block of ``id:`` or ``retry:`` fields alone is an event to the SDKs'
readers: recorded as an event of empty data, replay hands it to them as the live stream
did (the OpenAI SDK fails reading it as JSON, the Anthropic SDK passes over it), where
it was left out and replay passed a stream that failed live."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2
import pytest

from loopback import Handler, serving
from replaygate.fixtures.store import FixtureStore
from replaygate.http import Exchange, block_network, httpx2_client
from sdks import openai

CHUNK = {
    "id": "chatcmpl-1",
    "object": "chat.completion.chunk",
    "created": 1,
    "model": "m",
    "choices": [{"index": 0, "delta": {"content": "hi"}, "finish_reason": None}],
}
STREAM = b"data: %s\n\nretry: 1000\n\ndata: [DONE]\n\n" % json.dumps(CHUNK).encode()


class RetryBlock(Handler):
    """Answers a chat completion stream holding a block of one ``retry:`` field."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self.answer_bytes(STREAM, "text/event-stream")


def streamed(base: str, http: httpx2.Client) -> list[Any]:
    """The deltas the OpenAI SDK reads of one streamed chat completion."""
    client = openai.OpenAI(api_key="k", base_url=f"{base}/v1", http_client=http, max_retries=0)
    messages = [{"role": "user", "content": "q"}]
    chunks = client.chat.completions.create(model="m", messages=messages, stream=True)
    return [chunk.choices[0].delta.content for chunk in chunks]


def test_a_retry_block_fails_the_openai_sdk_on_replay_as_it_did_live(tmp_path: Path) -> None:
    store = tmp_path / "s.jsonl"
    with serving(RetryBlock) as base:
        recording = httpx2_client(store, "record-missing", approve_live=True)
        with recording as http, pytest.raises(json.JSONDecodeError) as live:
            streamed(base, http)
        (fixture,) = FixtureStore.open(store)
        assert [event["data"] for event in fixture.responses[0]["events"]][1] == ""
        replaying = httpx2_client(Exchange(store))
        with block_network(), replaying as http, pytest.raises(json.JSONDecodeError) as replayed:
            streamed(base, http)
    assert str(replayed.value) == str(live.value)
