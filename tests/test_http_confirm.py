"""The first serve of a fixture confirms its stored key, through the official SDKs over
loopback HTTP: an edited request is refused, any real request is confirmed; a session
keeps a digest per distinct request, not the request."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from replaygate.errors import FixtureFormatError
from replaygate.fixtures.store import FixtureStore
from replaygate.http import block_network, httpx2_client
from replaygate.sim import Simulator
from sdks import anthropic, openai

pytestmark = pytest.mark.slow  # each test: records through an SDK from the simulator and replays

HI = [{"role": "user", "content": "hi"}]


def _claude(store: Path | FixtureStore, mode: str, base_url: str | None = None) -> Any:
    http = httpx2_client(store, mode, approve_live=mode != "replay")
    return anthropic.Anthropic(api_key="t", base_url=base_url, http_client=http, max_retries=0)


def _gpt(store: Path | FixtureStore, mode: str, base_url: str | None = None) -> Any:
    http = httpx2_client(store, mode, approve_live=mode != "replay")
    return openai.OpenAI(api_key="t", base_url=base_url, http_client=http, max_retries=0)


def _edit_request(path: Path, line: int, edit: Any) -> None:
    """Change the request stored on ``line`` (1-based) in place, its key left as it was."""
    lines = path.read_bytes().splitlines(keepends=True)
    fixture = orjson.loads(lines[line - 1])
    edit(fixture["request"])
    lines[line - 1] = orjson.dumps(fixture) + b"\n"
    path.write_bytes(b"".join(lines))


def test_an_edited_request_with_its_old_key_is_refused_on_first_serve(tmp_path: Path) -> None:
    path = tmp_path / "edited.jsonl"
    with Simulator(behavior="echo") as sim, _claude(path, "record-missing", sim.url) as recording:
        kept = recording.messages.create(model="claude-sim-1", max_tokens=64, messages=HI)
        recording.messages.create(model="claude-sim-1", max_tokens=99, messages=HI)

    def more_tokens(request: dict[str, Any]) -> None:
        request["body"]["max_tokens"] = 100

    _edit_request(path, 2, more_tokens)
    with _claude(FixtureStore.open(path), "replay") as client, block_network():
        with pytest.raises(FixtureFormatError) as caught:
            client.messages.create(model="claude-sim-1", max_tokens=100, messages=HI)
        replayed = client.messages.create(model="claude-sim-1", max_tokens=64, messages=HI)
    assert f"{path}:2" in str(caught.value)
    assert "does not match its request" in str(caught.value)
    assert replayed.model_dump() == kept.model_dump()


REQUESTS: list[dict[str, Any]] = [
    {"messages": [{"role": "user", "content": "什么是 RAG？ é \U0001f600 \u2028 \x7f"}]},
    {"messages": HI, "temperature": 1e-05, "top_p": 0.7, "frequency_penalty": -0.0},
    {"messages": HI, "seed": 2**63 - 1, "max_completion_tokens": 10**15},
    {"messages": HI, "logit_bias": {"1": 1.5e-05}, "user": 'a "quoted", {x: [1]} \\ text'},
]


def test_non_ascii_floats_and_big_ints_are_confirmed_on_first_serve(tmp_path: Path) -> None:
    path = tmp_path / "confirmed.jsonl"
    with (
        Simulator(behavior="echo") as sim,
        _gpt(path, "record-missing", sim.openai_base_url) as recording,
    ):
        recorded = [
            recording.chat.completions.create(model="gpt-sim-1", **args).model_dump()
            for args in REQUESTS
        ]
    with _gpt(FixtureStore.open(path), "replay") as client, block_network():
        replayed = [
            client.chat.completions.create(model="gpt-sim-1", **args).model_dump()
            for args in REQUESTS
        ]
    assert replayed == recorded
    assert len(FixtureStore.open(path)) == len(REQUESTS)


def test_a_session_keeps_a_digest_per_distinct_request_not_the_request(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    args: dict[str, Any] = {
        "model": "claude-sim-1",
        "max_tokens": 64,
        "messages": [{"role": "user", "content": "long " * 20_000}],
    }
    with Simulator(behavior="echo") as sim, _claude(path, "record-missing", sim.url) as recording:
        recorded = recording.messages.create(**args)
    http = httpx2_client(path)
    with (
        anthropic.Anthropic(api_key="t", http_client=http, max_retries=0) as client,
        block_network(),
    ):
        assert client.messages.create(**args).model_dump() == recorded.model_dump()
    exchange = http._transport.exchange  # type: ignore[attr-defined]
    assert (exchange.sent, exchange.replays) == (1, 1)
    assert [len(identity) for identity in exchange._sent] == [32]
