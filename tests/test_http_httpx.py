"""The httpx and httpx2 adapters with plain clients (no SDK) against the simulator."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest

from replaygate.errors import FixtureMismatchError, LiveCallNotApproved
from replaygate.fixtures.store import FixtureStore
from replaygate.http import (
    AsyncHttpx2Transport,
    AsyncHttpxTransport,
    Httpx2Transport,
    HttpxTransport,
    block_network,
    httpx2_async_client,
    httpx2_client,
    httpx_async_client,
    httpx_client,
    intercept,
)
from replaygate.sim import Simulator

HEADERS = {"x-api-key": "k", "anthropic-version": "2023-06-01", "x-stainless-retry-count": "0"}
BODY = {"model": "m", "max_tokens": 16, "messages": [{"role": "user", "content": "hello httpx"}]}
STREAM_BODY = {**BODY, "stream": True}

SYNC = {"httpx": httpx_client, "httpx2": httpx2_client}
ASYNC = {"httpx": httpx_async_client, "httpx2": httpx2_async_client}


def sync_session(client: Any) -> dict[str, Any]:
    """The answers ``client`` gets to a plain and a streamed request; then it is closed."""
    with client:
        plain = client.post("/v1/messages?b=2&a=1", json=BODY, headers=HEADERS)
        with client.stream("POST", "/v1/messages", json=STREAM_BODY, headers=HEADERS) as streamed:
            lines = list(streamed.iter_lines())
            status = streamed.status_code
    return {"plain": (plain.status_code, plain.json()), "stream": (status, lines)}


async def async_session(client: Any) -> dict[str, Any]:
    """As :func:`sync_session`, the client closed in the loop that used it."""
    async with client:
        plain = await client.post("/v1/messages?b=2&a=1", json=BODY, headers=HEADERS)
        async with client.stream(
            "POST", "/v1/messages", json=STREAM_BODY, headers=HEADERS
        ) as streamed:
            lines = [line async for line in streamed.aiter_lines()]
            status = streamed.status_code
    return {"plain": (plain.status_code, plain.json()), "stream": (status, lines)}


@pytest.mark.parametrize("library", ["httpx", "httpx2"])
@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_plain_client_records_and_replays(tmp_path: Path, library: str, is_async: bool) -> None:
    store = tmp_path / "plain.jsonl"
    with Simulator(behavior="echo") as sim:
        if is_async:
            make = ASYNC[library]
            client = make(store, "record-missing", approve_live=True, base_url=sim.url)
            live = asyncio.run(async_session(client))
        else:
            live = sync_session(
                SYNC[library](store, "record-missing", approve_live=True, base_url=sim.url)
            )
    assert live["plain"][0] == 200 and live["stream"][1]
    fixtures = {f.request["path"]: f for f in FixtureStore.open(store)}
    assert set(fixtures) == {"/v1/messages?a=1&b=2", "/v1/messages"}
    assert fixtures["/v1/messages"].request["headers"] == {"anthropic-version": "2023-06-01"}
    with block_network():
        if is_async:
            replayed = asyncio.run(
                async_session(ASYNC[library](store, base_url="https://elsewhere"))
            )
        else:
            replayed = sync_session(SYNC[library](store, base_url="https://elsewhere"))
    assert replayed == live


@pytest.mark.parametrize(
    "transport", [HttpxTransport, AsyncHttpxTransport, Httpx2Transport, AsyncHttpx2Transport]
)
def test_recording_without_approval_is_refused_before_any_network(
    tmp_path: Path, transport: Any
) -> None:
    with pytest.raises(LiveCallNotApproved, match="approve_live=True"):
        transport(tmp_path / "x.jsonl", mode="record-missing")
    with pytest.raises(ValueError, match="mode must be one of"):
        transport(tmp_path / "x.jsonl", mode="live")


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_host_matching_is_off_by_default_and_can_be_turned_on(tmp_path: Path) -> None:
    store = tmp_path / "hosts.jsonl"
    with Simulator(behavior="echo") as sim:
        recording = HttpxTransport(store, mode="record-missing", approve_live=True, match_host=True)
        with httpx.Client(transport=recording, base_url=sim.url) as recorder:
            recorder.post("/v1/messages", json=BODY, headers=HEADERS)
        host = f"127.0.0.1:{sim.port}"
    (fixture,) = FixtureStore.open(store)
    assert fixture.request["host"] == host
    with httpx.Client(transport=HttpxTransport(store, match_host=True)) as strict:
        answer = strict.post(f"http://{host}/v1/messages", json=BODY, headers=HEADERS)
        assert answer.status_code == 200
        with pytest.raises(FixtureMismatchError, match="host"):
            strict.post("http://127.0.0.2:1/v1/messages", json=BODY, headers=HEADERS)


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_record_missing_keeps_repeats_and_rerecord_replaces_them(tmp_path: Path) -> None:
    store = tmp_path / "rerecord.jsonl"
    with Simulator(behavior="echo") as sim:
        with httpx2_client(store, "record-missing", approve_live=True, base_url=sim.url) as first:
            first.post("/v1/messages", json=BODY, headers=HEADERS)
            first.post("/v1/messages", json=BODY, headers=HEADERS)  # a repeat: its own response
        with httpx2_client(store, "record-missing", approve_live=True, base_url=sim.url) as later:
            later.post("/v1/messages", json=BODY, headers=HEADERS)  # recorded: replayed
        assert len(sim.requests) == 2
        (fixture,) = FixtureStore.open(store)
        ids = [r["body"]["id"][:12] for r in fixture.responses]
        assert ids == ["msg_sim_0001", "msg_sim_0002"]
        with httpx2_client(store, "rerecord", approve_live=True, base_url=sim.url) as again:
            again.post("/v1/messages", json=BODY, headers=HEADERS)
        assert len(sim.requests) == 3
    (fixture,) = FixtureStore.open(store)
    # The answer replayed in between counts as the simulator's third; the rerecorded one
    # is its fourth.
    assert [r["body"]["id"][:12] for r in fixture.responses] == ["msg_sim_0004"]


def test_compressed_bodies_are_stored_decoded(tmp_path: Path) -> None:
    import gzip

    import orjson

    payload = {"id": "msg_1", "content": [{"type": "text", "text": "zipped"}]}

    def server(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(
            200,
            headers={"content-encoding": "gzip", "content-type": "application/json"},
            content=gzip.compress(orjson.dumps(payload)),
        )

    store = tmp_path / "gzip.jsonl"
    live = httpx2.MockTransport(server)
    with httpx2_client(store, "record-missing", approve_live=True, transport=live) as client:
        assert client.post("https://api.anthropic.com/v1/messages", json=BODY).json() == payload
    (fixture,) = FixtureStore.open(store)
    assert fixture.response == {
        "status": 200,
        "headers": {"content-type": "application/json"},
        "body": payload,
    }
    with httpx2_client(store) as replaying:
        replayed = replaying.post("https://api.anthropic.com/v1/messages", json=BODY)
    assert replayed.json() == payload
    assert "content-encoding" not in replayed.headers


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_intercept_covers_plain_httpx_clients_too(tmp_path: Path) -> None:
    store = tmp_path / "intercepted.jsonl"

    def user_code(url: str) -> tuple[Any, Any]:
        with httpx.Client(base_url=url) as client:
            first = client.post("/v1/messages", json=BODY, headers=HEADERS).json()

        async def second() -> Any:
            async with httpx.AsyncClient(base_url=url) as aclient:
                body = {**BODY, "max_tokens": 17}
                return (await aclient.post("/v1/messages", json=body, headers=HEADERS)).json()

        return first, asyncio.run(second())

    with Simulator(behavior="echo") as sim:
        with intercept(store, "record-missing", approve_live=True):
            live = user_code(sim.url)
        url = sim.url
    with block_network(), intercept(store):
        assert user_code(url) == live
