"""Both official SDKs over real loopback HTTP: record against the simulator, replay offline.

Every case records through ``replaygate.http`` in ``record-missing`` mode, stops the
simulator, then replays with the network blocked and the SDK pointed at the real API
host (so a request escaping the transport would be refused), and compares what the
SDK produced: same events, same final message.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from replaygate.fixtures.store import FixtureStore
from replaygate.http import (
    block_network,
    httpx2_async_client,
    httpx2_client,
    httpx_async_client,
    httpx_client,
)
from replaygate.models.types import ModelResponse, ToolCall, Usage
from replaygate.sim import ScriptBehavior, Simulator
from sdks import anthropic, openai
from wire_shapes import ANTHROPIC_TOOL, OPENAI_TOOL, QUESTION

FAKE_KEY = "test-key"
CLAUDE = "claude-sim-1"
GPT = "gpt-sim-1"
TEXT_ANSWER = ModelResponse(
    text="Keep-alive reuses one TCP connection for many requests, saving a handshake per call.",
    usage=Usage(input_tokens=40, output_tokens=18),
)
TOOL_ANSWER = ModelResponse(
    text="Let me look that up.",
    tool_calls=(
        ToolCall(
            "toolu_sim_01",
            "search_corpus",
            {"q": "keep-alive connections", "limit": 3, "filters": {"lang": ["en", "zh"]}},
        ),
    ),
    stop_reason="tool_use",
)

Result = dict[str, Any]


def _dump(items: Any) -> list[Any]:
    return [item.model_dump(mode="json") for item in items]


# -- interactions: what user code does with a client, as comparable data ------------------


def anthropic_sync(client: anthropic.Anthropic, stream: str, tools: bool) -> Result:
    extra: dict[str, Any] = {"tools": [ANTHROPIC_TOOL]} if tools else {}
    args: dict[str, Any] = {"model": CLAUDE, "max_tokens": 256, "messages": QUESTION, **extra}
    if stream == "helper":
        with client.messages.stream(**args) as s:
            events = _dump(s)
            final = s.get_final_message()
        return {"events": events, "final": final.model_dump(mode="json")}
    if stream == "raw":
        return {"events": _dump(client.messages.create(stream=True, **args))}
    return {"final": client.messages.create(**args).model_dump(mode="json")}


async def anthropic_async(client: anthropic.AsyncAnthropic, stream: str, tools: bool) -> Result:
    extra: dict[str, Any] = {"tools": [ANTHROPIC_TOOL]} if tools else {}
    args: dict[str, Any] = {"model": CLAUDE, "max_tokens": 256, "messages": QUESTION, **extra}
    if stream == "helper":
        async with client.messages.stream(**args) as s:
            events = [e.model_dump(mode="json") async for e in s]
            final = await s.get_final_message()
        return {"events": events, "final": final.model_dump(mode="json")}
    if stream == "raw":
        raw = await client.messages.create(stream=True, **args)
        return {"events": [e.model_dump(mode="json") async for e in raw]}
    return {"final": (await client.messages.create(**args)).model_dump(mode="json")}


def _accumulate(chunks: list[Any]) -> dict[str, Any]:
    text, args = "", ""
    for chunk in chunks:
        for choice in chunk["choices"]:
            text += choice["delta"].get("content") or ""
            for call in choice["delta"].get("tool_calls") or []:
                args += (call.get("function") or {}).get("arguments") or ""
    return {"text": text, "arguments": args}


def openai_sync(client: openai.OpenAI, stream: str, tools: bool) -> Result:
    extra: dict[str, Any] = {"tools": [OPENAI_TOOL]} if tools else {}
    args: dict[str, Any] = {"model": GPT, "messages": QUESTION, **extra}
    if stream != "none":
        chunks = _dump(client.chat.completions.create(stream=True, **args))
        return {"events": chunks, "final": _accumulate(chunks)}
    return {"final": client.chat.completions.create(**args).model_dump(mode="json")}


async def openai_async(client: openai.AsyncOpenAI, stream: str, tools: bool) -> Result:
    extra: dict[str, Any] = {"tools": [OPENAI_TOOL]} if tools else {}
    args: dict[str, Any] = {"model": GPT, "messages": QUESTION, **extra}
    if stream != "none":
        raw = await client.chat.completions.create(stream=True, **args)
        chunks = [c.model_dump(mode="json") async for c in raw]
        return {"events": chunks, "final": _accumulate(chunks)}
    return {"final": (await client.chat.completions.create(**args)).model_dump(mode="json")}


async def closing(
    client: anthropic.AsyncAnthropic | openai.AsyncOpenAI, work: Awaitable[Result]
) -> Result:
    """What ``work`` returns, the async ``client`` it uses closed after it in the same loop."""
    async with client:
        return await work


def run(
    sdk: str, is_async: bool, store: Path | FixtureStore, mode: str, base_url: str | None
) -> Callable[[str, bool], Result]:
    """A function running one interaction through a fresh client wired to ``store``."""
    approve = mode != "replay"
    source = "sim" if approve else None

    def interact(stream: str, tools: bool) -> Result:
        options: dict[str, Any] = {"api_key": FAKE_KEY}
        if sdk == "anthropic":
            if base_url:
                options["base_url"] = base_url
            if is_async:
                http = httpx2_async_client(store, mode, approve_live=approve, source=source)
                client = anthropic.AsyncAnthropic(http_client=http, **options)
                return asyncio.run(closing(client, anthropic_async(client, stream, tools)))
            with anthropic.Anthropic(
                http_client=httpx2_client(store, mode, approve_live=approve, source=source),
                **options,
            ) as sync:
                return anthropic_sync(sync, stream, tools)
        if base_url:
            options["base_url"] = base_url + "/v1"
        if is_async:
            http = httpx2_async_client(store, mode, approve_live=approve, source=source)
            client_o = openai.AsyncOpenAI(http_client=http, **options)
            return asyncio.run(closing(client_o, openai_async(client_o, stream, tools)))
        with openai.OpenAI(
            http_client=httpx2_client(store, mode, approve_live=approve, source=source), **options
        ) as sync_o:
            return openai_sync(sync_o, stream, tools)

    return interact


CASES = [
    pytest.param(sdk, is_async, stream, tools, id=f"{sdk}-{mode}-{stream}-{kind}")
    for sdk, streams in (("anthropic", ("none", "helper", "raw")), ("openai", ("none", "sse")))
    for is_async, mode in ((False, "sync"), (True, "async"))
    for stream in streams
    for tools, kind in ((False, "text"), (True, "tool"))
]


@pytest.mark.parametrize(("sdk", "is_async", "stream", "tools"), CASES)
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_record_then_replay_offline(
    tmp_path: Path, sdk: str, is_async: bool, stream: str, tools: bool
) -> None:
    store = tmp_path / "fixtures.jsonl"
    behavior = ScriptBehavior([TOOL_ANSWER if tools else TEXT_ANSWER])
    with Simulator(behavior=behavior) as sim:
        live = run(sdk, is_async, store, "record-missing", sim.url)(stream, tools)
        assert len(sim.requests) == 1
    with block_network():
        replayed = run(sdk, is_async, store, "replay", None)(stream, tools)
    assert replayed == live
    recorded = FixtureStore.open(store)
    assert len(recorded) == 1
    (fixture,) = recorded
    response = fixture.response
    interface = "anthropic.messages" if sdk == "anthropic" else "openai.chat.completions"
    assert fixture.meta is not None
    assert fixture.meta["interface"] == interface
    assert fixture.meta["source"] == "sim"
    if stream == "none":
        assert isinstance(response["body"], dict)
    else:
        assert response["stream_end"] == "complete"
        assert response["headers"]["content-type"].startswith("text/event-stream")
        last = response["events"][-1]
        assert last["data"] == "[DONE]" if sdk == "openai" else last["event"] == "message_stop"


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_tool_use_stream_carries_input_json_deltas(tmp_path: Path) -> None:
    store = tmp_path / "fixtures.jsonl"
    with Simulator(behavior=ScriptBehavior([TOOL_ANSWER]), chunk_size=8) as sim:
        live = run("anthropic", False, store, "record-missing", sim.url)("helper", True)
    with block_network():
        replayed = run("anthropic", False, store, "replay", None)("helper", True)
    assert replayed == live
    deltas = [
        e["delta"]["partial_json"]
        for e in replayed["events"]
        if e["type"] == "content_block_delta" and e["delta"]["type"] == "input_json_delta"
    ]
    assert len(deltas) > 3
    tool_block = replayed["final"]["content"][-1]
    assert tool_block["type"] == "tool_use"
    assert tool_block["input"] == dict(TOOL_ANSWER.tool_calls[0].arguments)


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_replay_twice_is_identical_and_ignores_host(tmp_path: Path) -> None:
    store = tmp_path / "fixtures.jsonl"
    with Simulator(behavior="echo") as sim:
        live = run("anthropic", False, store, "record-missing", sim.url)("helper", False)
    with block_network():
        first = run("anthropic", False, store, "replay", "http://proxy.invalid:8080")(
            "helper", False
        )
        second = run("anthropic", True, store, "replay", None)("helper", False)
    assert first == second == live


FACTORIES = {
    "httpx2": (httpx2_client, httpx2_async_client),
    "httpx": (httpx_client, httpx_async_client),
}


@pytest.mark.parametrize("library", sorted(FACTORIES))
@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_replayed_responses_are_read_and_timed_as_live_ones(
    tmp_path: Path, library: str, stream: bool
) -> None:
    """``elapsed`` and the bytes downloaded, which a client sets as it reads a body, are set on
    a replayed response too, sync and async (``raw.elapsed`` raised on a plain replay)."""
    store, (sync_factory, async_factory) = tmp_path / "timed.jsonl", FACTORIES[library]
    body = {"model": CLAUDE, "max_tokens": 8, "messages": QUESTION, "stream": stream}
    headers = {"x-api-key": FAKE_KEY, "anthropic-version": "2023-06-01"}

    def read(client: Any, url: str) -> tuple[Any, bytes]:
        with client.stream("POST", url, json=body, headers=headers) as response:
            return response, response.read()

    async def aread(client: Any, url: str) -> tuple[Any, bytes]:
        async with client, client.stream("POST", url, json=body, headers=headers) as response:
            return response, await response.aread()

    with (
        Simulator(behavior="echo") as sim,
        sync_factory(store, "record-missing", approve_live=True) as live_client,
    ):
        live, _ = read(live_client, f"{sim.url}/v1/messages")
    with block_network():
        for mode in ("sync", "async"):
            url = "https://api.anthropic.com/v1/messages"
            if mode == "sync":
                with sync_factory(store) as client:
                    replayed, content = read(client, url)
            else:
                replayed, content = asyncio.run(aread(async_factory(store), url))
            assert replayed.elapsed.total_seconds() >= 0, mode
            assert replayed.num_bytes_downloaded == len(content) > 0, mode
            assert replayed.status_code == live.status_code
            assert replayed.is_closed and replayed.is_stream_consumed


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_replayed_raw_response_through_the_sdk_has_its_elapsed_time(tmp_path: Path) -> None:
    store = tmp_path / "raw.jsonl"
    args: dict[str, Any] = {"model": CLAUDE, "max_tokens": 8, "messages": QUESTION}

    def raw_response(base_url: str, mode: str) -> Any:
        http = httpx2_client(store, mode, approve_live=mode != "replay")
        with anthropic.Anthropic(api_key=FAKE_KEY, base_url=base_url, http_client=http) as c:
            return c.messages.with_raw_response.create(**args)

    with Simulator(behavior="echo") as sim:
        live = raw_response(sim.url, "record-missing")
    with block_network():
        replayed = raw_response("https://api.anthropic.com", "replay")
    assert replayed.elapsed.total_seconds() >= 0
    assert replayed.parse().model_dump() == live.parse().model_dump()


WORKSPACE = "wrkspc_01AbCdEf"
ORGANIZATION = "5c2f1a3e-0000-4000-8000-000000000001"


def _answered_with_ids(request: Any) -> Any:
    import httpx2

    unknown = b'"unknown model"' in request.content
    headers = {
        "request-id": "req_01",
        "anthropic-workspace-id": WORKSPACE,
        "anthropic-organization-id": ORGANIZATION,
    }
    if unknown:  # an error the API answers (a refused key's 401 or 403 is never recorded)
        error = {"type": "not_found_error", "message": f"model: {CLAUDE}"}
        body: dict[str, Any] = {"type": "error", "error": error}
        return httpx2.Response(404, json=body, headers=headers)
    return httpx2.Response(200, json=_message(), headers=headers)


def _message() -> dict[str, Any]:
    return {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": CLAUDE,
        "content": [{"type": "text", "text": "hi"}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


def _workspace_ids(http: Any) -> tuple[Any, ...]:
    with anthropic.Anthropic(api_key=FAKE_KEY, max_retries=0, http_client=http) as client:
        hello = [{"role": "user", "content": "hello"}]
        raw = client.messages.with_raw_response.create(model=CLAUDE, max_tokens=8, messages=hello)
        message = raw.parse()
        with pytest.raises(anthropic.NotFoundError) as denied:
            unknown = [{"role": "user", "content": "unknown model"}]
            client.messages.create(model=CLAUDE, max_tokens=8, messages=unknown)
        org = raw.headers.get("anthropic-organization-id")
        return message._workspace_id, denied.value.workspace_id, org


def test_the_workspace_and_organization_ids_the_anthropic_sdk_reads_are_replayed(
    tmp_path: Path,
) -> None:
    import httpx2

    store = tmp_path / "ws.jsonl"
    live = httpx2.MockTransport(_answered_with_ids)
    recording = httpx2_client(store, "record-missing", approve_live=True, transport=live)
    expected = (WORKSPACE, WORKSPACE, ORGANIZATION)
    assert _workspace_ids(recording) == expected
    with block_network():
        assert _workspace_ids(httpx2_client(store)) == expected


def test_with_ids_the_account_s_ids_are_fixed_so_another_key_records_the_same_fixture(
    tmp_path: Path,
) -> None:
    # each fixture kept the organization's id, and a re-recording with a teammate's key
    # (another workspace) changed every fixture it touched, its request unchanged
    import httpx2

    from replaygate.sanitize import SanitizeConfig

    stores = []
    for org in (ORGANIZATION, "9d8e7f6a-1111-4222-8333-444455556666"):
        store = tmp_path / f"{org[:4]}.jsonl"
        answered = httpx2.MockTransport(
            lambda request, org=org: httpx2.Response(
                200,
                json=_message(),
                headers={"anthropic-organization-id": org, "anthropic-workspace-id": org[:8]},
            )
        )
        http = httpx2_client(
            store,
            "record-missing",
            approve_live=True,
            transport=answered,
            sanitize=SanitizeConfig(ids=True),
        )
        with anthropic.Anthropic(api_key=FAKE_KEY, max_retries=0, http_client=http) as client:
            hello = [{"role": "user", "content": "hello"}]
            client.messages.create(model=CLAUDE, max_tokens=8, messages=hello)
        stores.append(store.read_text())
    (fixture,) = FixtureStore.open(tmp_path / f"{ORGANIZATION[:4]}.jsonl")
    assert fixture.responses[0]["headers"]["anthropic-organization-id"] == (
        "00000000-0000-4000-8000-000000000000"
    )
    assert fixture.responses[0]["headers"]["anthropic-workspace-id"] == "wrkspc_rg"
    first, second = (s[: s.index('"recorded_at"')] for s in stores)
    assert first == second


def test_openai_s_polling_interval_is_kept_and_replayed_without_the_wait(tmp_path: Path) -> None:
    import httpx2

    store = tmp_path / "poll.jsonl"
    answer = {"id": "vs_1", "status": "in_progress"}
    hint = {"openai-poll-after-ms": "5000"}
    live = httpx2.MockTransport(lambda _: httpx2.Response(200, json=answer, headers=hint))
    with httpx2_client(store, "record-missing", approve_live=True, transport=live) as client:
        live_answer = client.get("https://api.openai.com/v1/vector_stores/vs_1")
        assert live_answer.headers["openai-poll-after-ms"] == "5000"
    (fixture,) = FixtureStore.open(store)
    assert fixture.responses[0]["headers"]["openai-poll-after-ms"] == "5000"
    with block_network(), httpx2_client(store) as client:
        replayed = client.get("https://api.openai.com/v1/vector_stores/vs_1")
    assert replayed.headers["openai-poll-after-ms"] == "1"


def test_a_polling_interval_written_in_capitals_is_replayed_without_the_wait() -> None:
    from replaygate.http.recorded import replay_headers

    written = {"content-type": "application/json", "OpenAI-Poll-After-Ms": "5000"}  # by hand
    assert dict(replay_headers(written, 200))["openai-poll-after-ms"] == "1"


def test_a_poll_recorded_without_its_interval_is_replayed_without_the_wait(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An answer recorded from a gateway (or written by hand) without openai-poll-after-ms
    made the SDK's poll helper wait its default second at each replayed poll."""
    import httpx2

    store = tmp_path / "poll.jsonl"
    file = {"id": "file-1", "object": "vector_store.file", "vector_store_id": "vs_1"}
    statuses = iter(["in_progress", "in_progress", "completed"])
    live = httpx2.MockTransport(
        lambda _: httpx2.Response(200, json={**file, "status": next(statuses)})
    )

    def create_and_poll(http: Any) -> str:
        client = openai.OpenAI(api_key="k", http_client=http, max_retries=0)
        return client.vector_stores.files.create_and_poll("file-1", vector_store_id="vs_1").status

    waits: list[float] = []
    monkeypatch.setattr(time, "sleep", waits.append)
    assert (
        create_and_poll(httpx2_client(store, "record-missing", approve_live=True, transport=live))
        == "completed"
    )
    assert waits == [1.0]  # the SDK's default, the gateway having said none
    waits.clear()
    with block_network():
        assert create_and_poll(httpx2_client(store)) == "completed"
    assert waits == [0.001]
