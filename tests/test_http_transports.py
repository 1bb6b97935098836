"""intercept() over every intercepted library: httpx2, httpx, aiohttp and requests.

Each case sends real HTTP over loopback to a shared simulator while recording, then
replays inside a replaying ``intercept`` (the network blocked) with the client pointed
at the real API host, so a request that escaped the interception would be refused.
"""

from __future__ import annotations

import asyncio
import json
import re
import socket
import sys
import urllib.request
import warnings
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
import requests

from loopback import EchoesMessages, serving
from replaygate.errors import FixtureMismatchError, LiveSendFailedWarning, NothingRecordedWarning
from replaygate.fixtures.store import FixtureStore
from replaygate.http import (
    active,
    block_network,
    httpx2_async_client,
    httpx2_client,
    httpx_client,
    intercept,
)
from replaygate.sim import FaultPlan, Simulator
from sdks import aiohttp, anthropic, openai

OFFLINE = "https://api.anthropic.com"
SAMPLE_KEY = "sk-ant-api03-" + (
    "Xq9vT2mLp8RzK4wN7bYc1FhJ3dGs6AeU0iOoPlMnBvCxZaQwErTyUiOpAsDfGhJk-AbCdEfAA"
)
HEADERS = {"x-api-key": "k", "anthropic-version": "2023-06-01"}

Outcome = tuple[int, Any]
"""A status and what the client read: the JSON body, or the SSE lines of a stream."""
Driver = Callable[[str, str, bool], Outcome]


def body_of(content: str, stream: bool) -> dict[str, Any]:
    messages = [{"role": "user", "content": content}]
    return {"model": "m", "max_tokens": 16, "messages": messages, "stream": stream}


# -- one driver per library: user code that knows nothing of replaygate ------------------


def httpx_shaped(lib: Any) -> Driver:
    def run(base: str, content: str, stream: bool) -> Outcome:
        with lib.Client(base_url=base, headers=HEADERS) as client:
            if stream:
                with client.stream("POST", "/v1/messages", json=body_of(content, True)) as r:
                    return r.status_code, [line for line in r.iter_lines() if line]
            r = client.post("/v1/messages", json=body_of(content, False))
            return r.status_code, r.json()

    return run


def httpx_shaped_async(lib: Any) -> Driver:
    async def go(base: str, content: str, stream: bool) -> Outcome:
        async with lib.AsyncClient(base_url=base, headers=HEADERS) as client:
            if stream:
                async with client.stream("POST", "/v1/messages", json=body_of(content, True)) as r:
                    return r.status_code, [line async for line in r.aiter_lines() if line]
            r = await client.post("/v1/messages", json=body_of(content, False))
            return r.status_code, r.json()

    return lambda base, content, stream: asyncio.run(go(base, content, stream))


def via_aiohttp(base: str, content: str, stream: bool) -> Outcome:
    async def go() -> Outcome:
        async with aiohttp.ClientSession(headers=HEADERS) as session:
            url = f"{base}/v1/messages"
            async with session.post(url, json=body_of(content, stream)) as r:
                if stream:  # as LiteLLM reads a stream
                    text = b"".join([chunk async for chunk in r.content.iter_chunked(7)])
                    return r.status, [line for line in text.decode().splitlines() if line]
                return r.status, await r.json()

    return asyncio.run(go())


def via_requests(base: str, content: str, stream: bool) -> Outcome:
    with requests.post(
        f"{base}/v1/messages", json=body_of(content, stream), headers=HEADERS, stream=stream
    ) as r:
        if stream:
            return r.status_code, [line.decode() for line in r.iter_lines() if line]
        return r.status_code, r.json()


DRIVERS: dict[str, Driver] = {
    "httpx2": httpx_shaped(httpx2),
    "httpx2-async": httpx_shaped_async(httpx2),
    "httpx": httpx_shaped(httpx),
    "httpx-async": httpx_shaped_async(httpx),
    "aiohttp": via_aiohttp,
    "requests": via_requests,
}
NAMES = list(DRIVERS)
KINDS = {"plain": False, "stream": True}


def record(store: Path, sim: Simulator, driver: Driver, content: str, stream: bool) -> Outcome:
    with intercept(store, "record-missing", approve_live=True, source="sim") as session:
        live = driver(sim.url, content, stream)
    assert session.sent == 1 and session.recorded == 1
    return live


SAME = "same question"
Recorded = Callable[[str, str], tuple[Path, Outcome]]


@pytest.fixture(scope="module")
def recorded(sim: Simulator, tmp_path_factory: pytest.TempPathFactory) -> Recorded:
    """Each library's request of each kind, asking :data:`SAME`, recorded from the module's
    simulator the first time a test asks for it (one request reaching the simulator, one
    fixture recorded), to a store of its own that the tests only replay: that store and
    what the library read live."""
    folder = tmp_path_factory.mktemp("libraries")
    made: dict[tuple[str, str], tuple[Path, Outcome]] = {}

    def recording(name: str, kind: str) -> tuple[Path, Outcome]:
        if (name, kind) not in made:
            store = folder / f"{name}-{kind}.jsonl"
            received = len(sim.requests)
            live = record(store, sim, DRIVERS[name], SAME, KINDS[kind])
            assert len(sim.requests) == received + 1
            made[name, kind] = (store, live)
        return made[name, kind]

    return recording


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_each_library_records_then_replays_offline(
    recorded: Recorded, name: str, kind: str
) -> None:
    store, live = recorded(name, kind)
    assert live[0] == 200
    if KINDS[kind]:
        assert any("echo: " in line for line in live[1])
    else:
        assert live[1]["content"][0]["text"] == f"echo: {SAME}"
    with intercept(store) as session:
        assert DRIVERS[name](OFFLINE, SAME, KINDS[kind]) == live
    assert session.replays == 1


@pytest.mark.parametrize("name", ["httpx2", "requests"])
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_every_library_is_intercepted_beside_urllib3_1_26(
    tmp_path: Path, sim: Simulator, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    # requests 2.28 to 2.29 need urllib3 1.26, and botocore pins it on older Pythons: its
    # package names no HTTPHeaderDict (only urllib3._collections does), and the patches
    # of every library are installed together as the first block begins
    import urllib3

    monkeypatch.delattr(urllib3, "HTTPHeaderDict", raising=False)
    monkeypatch.delitem(sys.modules, "replaygate.http.seams.requests_session", raising=False)
    store = tmp_path / "s.jsonl"
    live = record(store, sim, DRIVERS[name], "beside urllib3 1.26", False)
    with intercept(store) as session:
        assert DRIVERS[name](OFFLINE, "beside urllib3 1.26", False) == live
    assert session.replays == 1


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_every_library_stores_the_same_fixture_and_replays_the_others(
    recorded: Recorded, kind: str
) -> None:
    stream = KINDS[kind]
    stores, lives, fixtures = {}, {}, {}
    for name in NAMES:
        stores[name], lives[name] = recorded(name, kind)
        (fixture,) = FixtureStore.open(stores[name])
        fixtures[name] = (fixture.key, fixture.request, fixture.responses)
    # the simulator's ids count the answers to a conversation (each library asks it
    # again) and end in a digest of that count: one fixture up to them
    texts = [json.dumps(fixture, sort_keys=True) for fixture in fixtures.values()]
    stored = {re.sub(r"_sim_\d+(_[0-9a-f]+)?", "_sim_N", text) for text in texts}
    assert len(stored) == 1
    for recorded_with, replayed_with in zip(NAMES, NAMES[1:] + NAMES[:1], strict=True):
        with intercept(stores[recorded_with]):
            again = DRIVERS[replayed_with](OFFLINE, SAME, stream)
        assert again == lives[recorded_with]


@pytest.mark.parametrize("name", NAMES)
def test_a_miss_is_loud_for_every_library(tmp_path: Path, name: str) -> None:
    with (
        intercept(tmp_path / "empty.jsonl"),
        pytest.raises(
            FixtureMismatchError, match="no fixture recorded for this HTTP request"
        ) as caught,
    ):
        DRIVERS[name](OFFLINE, "never recorded", False)
    first = str(caught.value).splitlines()[0]  # the request that missed, whatever the store holds
    assert first.startswith(
        "no fixture recorded for this HTTP request (POST https://api.anthropic.com/v1/messages): "
    )
    assert 'record it first (`mode="record-missing", approve_live=True` on the client factory' in (
        str(caught.value)
    )


# -- clients with their own transports -------------------------------------------------


class CountingTransport(httpx2.BaseTransport):
    """A user's own transport: sends through the library's, counting."""

    def __init__(self) -> None:
        self.sent = 0
        self.inner = httpx2.HTTPTransport()

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        self.sent += 1
        return self.inner.handle_request(request)

    def close(self) -> None:
        self.inner.close()


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_client_with_a_custom_transport_is_intercepted(tmp_path: Path, sim: Simulator) -> None:
    store, mine = tmp_path / "custom.jsonl", CountingTransport()
    with (
        intercept(store, "record-missing", approve_live=True),
        httpx2.Client(transport=mine, base_url=sim.url, headers=HEADERS) as client,
    ):
        live = client.post("/v1/messages", json=body_of("custom", False))
        assert live.json()["content"][0]["text"] == "echo: custom"
    assert mine.sent == 1
    with (
        intercept(store),
        httpx2.Client(transport=mine, base_url=OFFLINE, headers=HEADERS) as client,
    ):
        again = client.post("/v1/messages", json=body_of("custom", False))
    assert mine.sent == 1
    assert again.json() == live.json()
    assert again.request.url == httpx2.URL(f"{OFFLINE}/v1/messages")
    assert again.elapsed.total_seconds() >= 0


def test_a_mock_transport_answers_live_and_is_recorded(tmp_path: Path) -> None:
    calls: list[str] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        calls.append(request.url.path)
        return httpx2.Response(200, json={"answer": 42})

    store = tmp_path / "mock.jsonl"
    with intercept(store, "record-missing", approve_live=True):
        client = httpx2.Client(transport=httpx2.MockTransport(handler))
        assert client.get("https://example.test/answer").json() == {"answer": 42}
    with intercept(store):
        client = httpx2.Client(transport=httpx2.MockTransport(handler))
        assert client.get("https://example.test/answer").json() == {"answer": 42}
    assert calls == ["/answer"]


class AiohttpBody(httpx2.AsyncByteStream):
    def __init__(self, response: aiohttp.ClientResponse, session: aiohttp.ClientSession) -> None:
        self.response, self.session = response, session

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self.response.content.iter_chunked(64):
            yield chunk

    async def aclose(self) -> None:
        self.response.release()
        await self.session.close()


class AiohttpTransport(httpx2.AsyncBaseTransport):
    """An httpx2 transport that sends through aiohttp, as LiteLLM's async path does."""

    def __init__(self) -> None:
        self.sent = 0

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        self.sent += 1
        session = aiohttp.ClientSession()
        headers = {k: v for k, v in request.headers.items() if k not in ("host", "content-length")}
        response = await session.request(
            request.method, str(request.url), headers=headers, data=await request.aread()
        )
        kept = [(k, v) for k, v in response.headers.items() if k.lower() == "content-type"]
        return httpx2.Response(response.status, headers=kept, stream=AiohttpBody(response, session))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_an_httpx_client_over_an_aiohttp_transport_is_recorded_once(
    tmp_path: Path, sim: Simulator, kind: str
) -> None:
    store, stream, transport = tmp_path / "layered.jsonl", KINDS[kind], AiohttpTransport()

    async def ask(base: str) -> Outcome:
        async with (
            httpx2.AsyncClient(transport=transport, base_url=base, headers=HEADERS) as c,
            c.stream("POST", "/v1/messages", json=body_of("layered", stream)) as r,
        ):
            await r.aread()
            return r.status_code, r.text

    with intercept(store, "record-missing", approve_live=True) as session:
        live = asyncio.run(ask(sim.url))
    assert (session.sent, session.recorded, transport.sent) == (1, 1, 1)
    (fixture,) = FixtureStore.open(store)
    assert len(fixture.responses) == 1
    with intercept(store) as session:
        assert asyncio.run(ask(OFFLINE)) == live
    assert (session.replays, transport.sent) == (1, 1)


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_fixture_transport_client_inside_intercept_answers_once(
    tmp_path: Path, sim: Simulator
) -> None:
    own, ambient = tmp_path / "own.jsonl", tmp_path / "ambient.jsonl"
    with (
        pytest.warns(NothingRecordedWarning),
        intercept(ambient, "record-missing", approve_live=True) as session,
        httpx2_client(own, "record-missing", approve_live=True, base_url=sim.url) as client,
    ):
        live = client.post("/v1/messages", json=body_of("own", False), headers=HEADERS).json()
    assert session.sent == 0
    (fixture,) = FixtureStore.open(own)
    assert len(fixture.responses) == 1
    assert not ambient.exists() or len(FixtureStore.open(ambient)) == 0
    with intercept(ambient) as session, httpx2_client(own, base_url=OFFLINE) as client:
        again = client.post("/v1/messages", json=body_of("own", False), headers=HEADERS)
    assert again.json() == live
    assert session.sent == 0


# -- response attributes the SDKs and users read -----------------------------------------


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_live_and_replayed_responses_carry_request_and_elapsed(
    tmp_path: Path, sim: Simulator
) -> None:
    store = tmp_path / "attrs.jsonl"
    for base, mode in ((sim.url, "record-missing"), (OFFLINE, "replay")):
        with intercept(store, mode, approve_live=mode != "replay"):
            with httpx2.Client(base_url=base, headers=HEADERS) as client:
                with client.stream("POST", "/v1/messages", json=body_of("attrs", True)) as r:
                    assert r.request.url == httpx2.URL(f"{base}/v1/messages")
                    assert r.headers["content-type"].startswith("text/event-stream")
                    r.read()
                assert r.elapsed.total_seconds() >= 0
            got = requests.post(
                f"{base}/v1/messages", json=body_of("attrs", False), headers=HEADERS
            )
            assert got.request.url == f"{base}/v1/messages"
            assert got.url == f"{base}/v1/messages"
            assert got.elapsed.total_seconds() >= 0 and got.reason == "OK"


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_stream_cut_while_recording_is_cut_again_in_every_library(tmp_path: Path) -> None:
    store = tmp_path / "cut.jsonl"
    with (
        Simulator(behavior="echo", faults=FaultPlan.sequence(["cut-stream"])) as sim,
        intercept(store, "record-missing", approve_live=True),
        pytest.raises(httpx2.RemoteProtocolError),
    ):
        httpx_shaped(httpx2)(sim.url, "cut", True)
    errors = {
        "httpx2": httpx2.TransportError,
        "httpx": httpx.TransportError,
        "aiohttp": aiohttp.ClientPayloadError,
        "requests": requests.exceptions.ChunkedEncodingError,
    }
    for name, error in errors.items():
        with intercept(store), pytest.raises(error):
            DRIVERS[name](OFFLINE, "cut", True)


# -- the official SDKs over the patched sends --------------------------------------------


def sdk_calls(base: str | None) -> dict[str, Any]:
    """Both SDKs, sync, async and streaming, as an agent builds and uses them."""
    question = [{"role": "user", "content": "sdk"}]
    openai_url = f"{base}/v1" if base else None
    with (
        anthropic.Anthropic(api_key="k", base_url=base, max_retries=0) as claude,
        openai.OpenAI(api_key="k", base_url=openai_url, max_retries=0) as gpt,
    ):
        raw = claude.messages.with_raw_response.create(model="m", max_tokens=8, messages=question)
        assert raw.elapsed.total_seconds() >= 0 and raw.http_request.method == "POST"
        with claude.messages.stream(model="m", max_tokens=8, messages=question) as stream:
            final = stream.get_final_message()
        chunks = list(gpt.chat.completions.create(model="g", messages=question, stream=True))

    async def in_async() -> list[Any]:
        async with (
            anthropic.AsyncAnthropic(api_key="k", base_url=base, max_retries=0) as aclaude,
            openai.AsyncOpenAI(api_key="k", base_url=openai_url, max_retries=0) as agpt,
        ):
            message = await aclaude.messages.create(model="m", max_tokens=8, messages=question)
            completion = await agpt.chat.completions.create(model="g", messages=question)
        return [message.model_dump(mode="json"), completion.model_dump(mode="json")]

    return {
        "create": raw.parse().model_dump(mode="json"),
        "stream": final.model_dump(mode="json"),
        "chunks": [c.model_dump(mode="json") for c in chunks],
        "async": asyncio.run(in_async()),
    }


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_the_official_sdks_record_and_replay_over_the_patched_send(
    tmp_path: Path, sim: Simulator
) -> None:
    store = tmp_path / "sdk.jsonl"
    with intercept(store, "record-missing", approve_live=True):
        live = sdk_calls(sim.url)
    # the async Anthropic call asks what the sync one asked: its second answer
    assert sum(len(f.responses) for f in FixtureStore.open(store)) == 5
    with intercept(store) as session:
        assert sdk_calls(None) == live
    assert session.replays == 5


# -- the warning, and the patches restored ---------------------------------------------------


def test_a_recording_that_sees_no_request_warns(tmp_path: Path, sim: Simulator) -> None:
    """It names the transports intercepted, and a response cache of the code under test
    (DSPy's, DeepEval's, ragas's, kept on disk between runs) as the other cause of a request
    never sent."""
    store = tmp_path / "nothing.jsonl"
    expected = (
        "nothing was recorded: .* \\(intercepted: httpx2, httpx, aiohttp, requests, botocore, "
        "aiobotocore\\), or a "
        "response cache of the code under test may have answered \\(DSPy's, .*; DeepEval's, "
        "kept in \\.deepeval/ between runs: .*; ragas's, kept in \\.cache/: .*\\): turn it "
        "off in tests"
    )
    with (
        pytest.warns(NothingRecordedWarning, match=expected),
        intercept(store, "record-missing", approve_live=True),
    ):
        request = urllib.request.Request(
            f"{sim.url}/v1/messages",
            data=json.dumps(body_of("urllib", False)).encode(),
            headers={**HEADERS, "content-type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=5) as answer:  # not intercepted
            assert answer.status == 200
    assert issubclass(NothingRecordedWarning, UserWarning)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NothingRecordedWarning)
        with intercept(store):  # replaying: nothing to say
            pass
        with (
            pytest.raises(KeyError),
            intercept(store, "record-missing", approve_live=True),
        ):  # the block failed: its error says more
            raise KeyError("x")


def test_a_live_send_that_fails_before_any_answer_warns_and_is_not_recorded(
    tmp_path: Path,
) -> None:
    failures: list[BaseException] = [
        httpx2.ConnectError("refused"),
        KeyboardInterrupt(),
        httpx2.ConnectError("refused"),
    ]

    def handler(request: httpx2.Request) -> httpx2.Response:
        if failures:
            raise failures.pop()
        return httpx2.Response(200, json={"answer": 42})

    store, url = tmp_path / "failed.jsonl", "https://example.test/answer"
    expected = (
        r"the live send of GET /answer failed before any answer \(ConnectError: refused\), "
        r"so nothing was recorded for it: .* sends it once less than this recording did"
    )
    with intercept(store, "record-missing", approve_live=True):
        client = httpx2.Client(transport=httpx2.MockTransport(handler))
        with (
            pytest.warns(LiveSendFailedWarning, match=expected),
            pytest.raises(httpx2.ConnectError),
        ):
            client.get(url)  # code that retries, or catches it, would go on green
        with warnings.catch_warnings():
            warnings.simplefilter("error", LiveSendFailedWarning)  # interrupted: no warning
            with pytest.raises(KeyboardInterrupt):
                client.get(url)
            # warnings made errors: the client gets the live error (an SDK maps it as live)
            with pytest.raises(httpx2.ConnectError) as refused:
                client.get(url)
        assert re.search(expected, "".join(refused.value.__notes__))
        assert client.get(url).json() == {"answer": 42}
    (fixture,) = FixtureStore.open(store)
    assert len(fixture.responses) == 1  # the answered send alone
    with (
        warnings.catch_warnings(),
        block_network(),
        intercept(tmp_path / "blocked.jsonl", "record-missing", approve_live=True),
    ):
        warnings.simplefilter("error", LiveSendFailedWarning)  # the block says why itself
        with pytest.raises(requests.ConnectionError, match="replaygate blocks the network"):
            requests.get("https://example.com/v1/page", timeout=5)
    with intercept(store):
        assert httpx2.Client(transport=httpx2.MockTransport(handler)).get(url).json() == {
            "answer": 42
        }


SocketBlockedError = type("SocketBlockedError", (RuntimeError,), {"__module__": "pytest_socket"})
"""As pytest-socket raises it for a socket its --disable-socket or --allow-hosts refuses."""
AllMockedAssertionError = type(
    "AllMockedAssertionError", (AssertionError,), {"__module__": "respx.models"}
)
"""As respx raises it for a request no route of its mock matches."""


@pytest.mark.parametrize(
    ("refusal", "told"),
    [
        (  # a Haystack generator, a Semantic Kernel service or Mirascope's client,
            # shared by two async tests
            "Event loop is closed",
            [
                "an event loop that has ended",
                "Give each event loop",
                "Haystack, Semantic Kernel, Mirascope, Agno, Strands Agents, AutoGen, magentic, "
                "LlamaIndex)",
                # the simulator answered it all the same: a script's line was spent on it
                "a simulator's script: behaviour spends a line on it",
            ],
        ),
        (  # Strands' OpenAIModel given client_args={"http_client": ...}: it closes the
            # AsyncOpenAI it made around each request, and so the client given with it
            "Cannot send a request, as the client has been closed.",
            [
                "the HTTP client given to the SDK was closed",
                "OpenAIModel(client=AsyncOpenAI(",
                # a genai.Client no name holds, which closes its HTTP client as it goes
                "google-genai: client = genai.Client() first",
            ],
        ),
        (
            "<asyncio.locks.Event object at 0x7f0 [unset]> is bound to a different event loop",
            [
                "an event loop that has ended",
                "Give each event loop a client of its own",
                "openai_client=AsyncOpenAI()",  # the Agents SDK's shared client, named
            ],
        ),
        (
            "Network is disabled for host '127.0.0.1' (allowed hosts: 'x.test')",
            [
                "pytest-recording's --block-network refused the connection to '127.0.0.1'",
                "--allowed-hosts=127.0.0.1",
            ],
        ),
        (  # h11's refusal of a key read from a file with its line break, quoting it
            f"Illegal header value b'Bearer {SAMPLE_KEY}\\n'",
            [
                "Illegal header value b'Bearer <Anthropic API key #1, 86 characters>",
                "a header value holds a line break",
            ],
        ),
        (  # an SDK or a framework given no key (ChatAnthropic, OpenAI(api_key=""))
            "Illegal header value b'Bearer '",
            ["the client sent an empty API key", "ANTHROPIC_API_KEY=test"],
        ),
        (
            SocketBlockedError("A test tried to use socket.getaddrinfo."),
            ["pytest-socket refused the socket", "--allow-hosts=127.0.0.1 for the simulator"],
        ),
        (
            AllMockedAssertionError(
                "RESPX: <Request('POST', 'http://127.0.0.1:1/v1')> not mocked!"
            ),
            ["respx refused the request", 'respx.route(host="127.0.0.1").pass_through()'],
        ),
        (
            "No response can be found for POST request on http://127.0.0.1:1/v1/messages",
            ["pytest-httpx's httpx_mock refused the request", "should_mock=lambda request"],
        ),
    ],
    ids=[
        "closed-loop",
        "closed-client",
        "other-loop",
        "pytest-recording-block",
        "key-with-a-line-break",
        "empty-key",
        "pytest-socket",
        "respx-not-mocked",
        "httpx-mock-no-response",
    ],
)
def test_a_send_that_failed_before_any_api_answered_names_its_cause(
    tmp_path: Path, refusal: str | Exception, told: list[str]
) -> None:
    """A live send that failed before any API saw it is told with its cause and remedy,
    not as an API to wait for: an async client used from a second event loop
    (``ChatOpenAI``'s shared client in a second async test: ``Event loop is closed``; or,
    that loop still running in another thread, pydantic-ai's ``run_sync`` from a thread
    pool: ``... is bound to a different event loop``), and pytest-recording's
    ``--block-network``, which refuses loopback too (the simulator of
    ``--replaygate-simulator``)."""

    def handler(request: httpx2.Request) -> httpx2.Response:
        raise refusal if isinstance(refusal, Exception) else RuntimeError(refusal)

    with intercept(tmp_path / "failed.jsonl", "record-missing", approve_live=True):
        client = httpx2.Client(transport=httpx2.MockTransport(handler))
        with (
            pytest.warns(LiveSendFailedWarning) as warned,
            pytest.raises((RuntimeError, AssertionError)),
        ):
            client.get("https://example.test/answer")
    (message,) = [str(warning.message) for warning in warned]
    assert all(words in message for words in told), message
    assert "once the live API answers" not in message
    assert SAMPLE_KEY not in message  # the warning reaches the terminal and CI logs


def originals() -> list[Any]:
    """The send method of each client class intercept patches, as it is now."""
    send_methods = [
        (httpx2.Client, "send"),
        (httpx2.AsyncClient, "send"),
        (httpx.Client, "send"),
        (httpx.AsyncClient, "send"),
        (aiohttp.ClientSession, "_request"),
        (requests.Session, "send"),
    ]
    return [cls.__dict__[name] for cls, name in send_methods]


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_overlapping_intercepts_keep_the_patches_until_the_last_ends(
    tmp_path: Path, sim: Simulator
) -> None:
    before = originals()
    first = intercept(tmp_path / "first.jsonl", "record-missing", approve_live=True)
    second = intercept(tmp_path / "second.jsonl", "record-missing", approve_live=True)
    first.__enter__()
    patched = originals()
    assert all(p is not o for p, o in zip(patched, before, strict=True))
    second.__enter__()
    assert originals() == patched
    with pytest.warns(NothingRecordedWarning):  # not the innermost: the second answers
        first.__exit__(None, None, None)
    assert originals() == patched
    via_requests(sim.url, "after the first", False)
    second.__exit__(None, None, None)
    assert originals() == before
    # ended in another order than entered: nothing of either is left to this context
    # (which would take its later sends for those of a task that outlived its block)
    assert active.answering() is None and not active.outlived()
    (fixture,) = FixtureStore.open(tmp_path / "second.jsonl")
    assert fixture.request["body"]["messages"][0]["content"] == "after the first"


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_outside_intercept_nothing_is_answered_from_fixtures(tmp_path: Path) -> None:
    store = tmp_path / "s.jsonl"
    with Simulator(behavior="echo") as sim:
        live = record(store, sim, via_requests, "outside", False)
        with intercept(store):
            assert via_requests(OFFLINE, "outside", False) == live
        status, answer = via_requests(sim.url, "outside", False)  # sent for real
        assert (status, answer["content"]) == (live[0], live[1]["content"])
        assert answer["id"] != live[1]["id"]
        assert len(sim.requests) == 2


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_streamed_request_bodies_are_read_once_sent_whole_and_fingerprinted(
    tmp_path: Path, sim: Simulator
) -> None:
    store, body = tmp_path / "upload.jsonl", json.dumps(body_of("upload", False)).encode()
    headers = {**HEADERS, "content-type": "application/json"}

    def pieces() -> Iterator[bytes]:
        yield body[:10]
        yield body[10:]

    async def apieces() -> AsyncIterator[bytes]:
        for piece in pieces():
            yield piece

    async def via_aiohttp_upload(base: str) -> Any:
        async with (
            aiohttp.ClientSession() as session,
            session.post(f"{base}/v1/messages", data=apieces(), headers=headers) as r,
        ):
            return await r.json()

    def ask(base: str) -> list[Any]:
        sent = requests.post(f"{base}/v1/messages", data=pieces(), headers=headers).json()
        return [sent, asyncio.run(via_aiohttp_upload(base))]

    with intercept(store, "record-missing", approve_live=True):
        live = ask(sim.url)
    assert [answer["content"][0]["text"] for answer in live] == ["echo: upload"] * 2
    (fixture,) = FixtureStore.open(store)
    assert fixture.request["body"] == body_of("upload", False)
    with intercept(store):
        assert ask(OFFLINE) == live


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_an_aiohttp_stream_cut_raises_again_on_a_later_read(tmp_path: Path) -> None:
    store = tmp_path / "cut.jsonl"
    with (
        Simulator(behavior="echo", faults=FaultPlan.sequence(["cut-stream"])) as sim,
        intercept(store, "record-missing", approve_live=True),
        pytest.raises(aiohttp.ClientPayloadError),
    ):
        via_aiohttp(sim.url, "cut", True)

    async def read_twice() -> list[str]:
        seen = []
        async with (
            aiohttp.ClientSession() as session,
            session.post(f"{OFFLINE}/v1/messages", json=body_of("cut", True), headers=HEADERS) as r,
        ):
            for _ in range(2):
                try:
                    await r.content.read()
                except aiohttp.ClientPayloadError as err:
                    seen.append(type(err).__name__)
        return seen

    with intercept(store):
        assert asyncio.run(read_twice()) == ["ClientPayloadError"] * 2


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_event_hooks_run_once_per_send_live_and_replayed(tmp_path: Path, sim: Simulator) -> None:
    store, seen = tmp_path / "hooks.jsonl", []

    def hooks(tag: str) -> dict[str, list[Callable[[Any], Any]]]:
        return {
            "request": [lambda request: seen.append((tag, "request", request.url.path))],
            "response": [lambda response: seen.append((tag, "response", response.status_code))],
        }

    def async_hooks(tag: str) -> dict[str, list[Callable[[Any], Any]]]:
        async def on_request(request: httpx.Request) -> None:
            seen.append((tag, "request", request.url.path))

        async def on_response(response: httpx.Response) -> None:
            seen.append((tag, "response", response.status_code))

        return {"request": [on_request], "response": [on_response]}

    async def ask_async(base: str, tag: str) -> None:
        async with httpx.AsyncClient(base_url=base, event_hooks=async_hooks(tag)) as client:
            await client.post("/v1/messages", json=body_of("async hooks", False), headers=HEADERS)

    for base, mode in ((sim.url, "record-missing"), (OFFLINE, "replay")):
        with intercept(store, mode, approve_live=mode != "replay"):
            with httpx2.Client(base_url=base, event_hooks=hooks(mode)) as client:
                client.post("/v1/messages", json=body_of("hooks", False), headers=HEADERS)
            asyncio.run(ask_async(base, f"async {mode}"))
    assert seen == [
        (tag, event, value)
        for mode in ("record-missing", "replay")
        for tag in (mode, f"async {mode}")
        for event, value in (("request", "/v1/messages"), ("response", 200))
    ]


def test_a_live_stream_is_handed_over_event_by_event_while_recorded(tmp_path: Path) -> None:
    log: list[str] = []

    class Events(httpx2.SyncByteStream):
        def __iter__(self) -> Iterator[bytes]:
            for n in range(3):
                log.append(f"sent {n}")
                yield f'data: {{"n": {n}}}\n\n'.encode()

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, stream=Events())

    store = tmp_path / "events.jsonl"
    with (
        intercept(store, "record-missing", approve_live=True),
        httpx2.Client(transport=httpx2.MockTransport(handler)) as client,
        client.stream("POST", "https://example.test/v1/messages", json={}) as response,
    ):
        for line in response.iter_lines():
            if line:
                log.append(f"read {json.loads(line[6:])['n']}")
    assert log == ["sent 0", "read 0", "sent 1", "read 1", "sent 2", "read 2"]
    (fixture,) = FixtureStore.open(store)
    assert [e["data"] for e in fixture.responses[0]["events"]] == [
        f'{{"n": {n}}}' for n in range(3)
    ]


def test_the_client_factories_take_every_session_setting() -> None:
    # they list the settings one by one: cap= was missing, passed on to httpx2.Client
    import inspect

    from replaygate.http.adapter import ClientFactory
    from replaygate.http.exchange import SessionOptions

    taken = inspect.signature(ClientFactory.__call__).parameters
    assert set(SessionOptions.__annotations__) <= set(taken)


def test_a_factory_client_records_through_its_proxy_and_replays_with_no_connection(
    tmp_path: Path,
) -> None:
    # proxy= went to the client, whose proxy transport answered in place of the fixtures':
    # a replaying client connected to the proxy
    store, question = tmp_path / "proxied.jsonl", [{"role": "user", "content": "hi"}]
    api = "http://api.example.test"  # reached through the proxy only
    EchoesMessages.targets.clear()
    with serving(EchoesMessages) as proxy:
        http = httpx2_client(store, "record-missing", approve_live=True, proxy=proxy)
        with anthropic.Anthropic(api_key="k", base_url=api, http_client=http) as client:
            live = client.messages.create(model="m", max_tokens=8, messages=question)
    assert EchoesMessages.targets == [f"{api}/v1/messages"]
    with block_network():
        http = httpx2_client(store, proxy=proxy, http2=True, verify=False)
        with anthropic.Anthropic(api_key="k", base_url=api, http_client=http) as client:
            again = client.messages.create(model="m", max_tokens=8, messages=question)
    assert again.content[0].text == live.content[0].text == "echo: hi"
    assert len(EchoesMessages.targets) == 1


def test_a_factory_refuses_mounts_and_connection_options_beside_a_transport() -> None:
    with pytest.raises(ValueError, match=r"httpx2_async_client\(mounts=\.\.\.\): a mounted"):
        httpx2_async_client("s.jsonl", mounts={"all://": httpx2.AsyncHTTPTransport()})
    with pytest.raises(
        ValueError,
        match=r"\(proxy=\.\.\., verify=\.\.\., transport=\.\.\.\): give proxy, verify to",
    ):
        httpx_client(
            "s.jsonl", transport=httpx.HTTPTransport(), proxy="http://127.0.0.1:9", verify=False
        )


def test_a_factory_client_records_through_the_environments_proxy_but_to_loopback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # its live transport was the library's own, which reads no proxy from the environment:
    # recording behind one failed to connect where the SDK's own client went through it
    question = [{"role": "user", "content": "hi"}]
    EchoesMessages.targets.clear()
    with serving(EchoesMessages) as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy)
        for n, base in enumerate(("http://api.example.test", proxy)):  # loopback: direct
            http = httpx2_client(tmp_path / f"{n}.jsonl", "record-missing", approve_live=True)
            with anthropic.Anthropic(api_key="k", base_url=base, http_client=http) as client:
                reply = client.messages.create(model="m", max_tokens=8, messages=question)
            assert reply.content[0].text == "echo: hi"
    assert EchoesMessages.targets == ["http://api.example.test/v1/messages", "/v1/messages"]


def test_a_proxy_setting_the_library_refuses_does_not_stop_recording_from_loopback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a client reading the environment refuses it as it is made (a SOCKS proxy without
    # socksio, a scheme it does not know): only a request going through it fails
    monkeypatch.setenv("ALL_PROXY", "ftp://127.0.0.1:9")
    question = [{"role": "user", "content": "hi"}]
    with serving(EchoesMessages) as base:
        http = httpx2_client(tmp_path / "s.jsonl", "record-missing", approve_live=True)
        with anthropic.Anthropic(api_key="k", base_url=base, http_client=http) as client:
            reply = client.messages.create(model="m", max_tokens=8, messages=question)
            assert reply.content[0].text == "echo: hi"
            elsewhere = client.with_options(base_url="http://api.example.test", max_retries=0)
            with (
                pytest.warns(LiveSendFailedWarning, match="Unknown scheme for proxy URL"),
                pytest.raises(anthropic.APIConnectionError) as refused,
            ):
                elsewhere.messages.create(model="m", max_tokens=8, messages=question)
    assert "Unknown scheme for proxy URL" in str(refused.value.__cause__)


def test_a_refusal_an_async_client_meets_in_an_exception_group_names_its_cause(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pytest-recording's ``--block-network`` refusing the simulator's loopback to an async
    SDK client (pydantic-ai's ``AsyncOpenAI``): anyio's ``connect_tcp`` raises the refusal
    inside an ``ExceptionGroup``, whose text (``unhandled errors in a TaskGroup``) names no
    cause, and the warning told an outage to wait out, naming the group alone."""

    def refused(sock: socket.socket, address: Any) -> None:
        raise RuntimeError(f"Network is disabled for host {address[0]!r}")

    async def ask() -> None:
        client = openai.AsyncOpenAI(api_key="test", base_url="http://127.0.0.1:9/v1", max_retries=0)
        await client.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}]
        )

    monkeypatch.setattr(socket.socket, "connect", refused)
    with (
        intercept(tmp_path / "refused.jsonl", "record-missing", approve_live=True),
        pytest.warns(LiveSendFailedWarning) as warned,
        pytest.raises(BaseExceptionGroup),  # the SDK takes it for no connection error
    ):
        asyncio.run(ask())
    (message,) = [str(w.message) for w in warned if w.category is LiveSendFailedWarning]
    assert "ExceptionGroup of RuntimeError: Network is disabled for host '127.0.0.1'" in message
    assert "pytest-recording's --block-network refused the connection to '127.0.0.1'" in message
    assert "once the live API answers" not in message
