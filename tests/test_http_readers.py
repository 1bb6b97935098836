"""The ways code reads a body, each the same live, while recording and on replay.

Each case reads one response live (no replaygate), then inside a recording
``intercept`` and a replaying one, the same way, and compares what it read: requests'
``iter_content(chunk_size=None)`` and ``raw``, aiohttp's ``iter_chunks`` (one HTTP chunk
per event), a JSON ``null`` body, an event stream whose last event has no blank line,
a plain body's length, an aiohttp stream whose read is cancelled or never released, a
stream closed after its first line where its chunks are not events.
"""

from __future__ import annotations

import asyncio
import gzip
import http.server
import re
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar

import httpx
import httpx2
import orjson
import pytest
import requests

from replaygate.fixtures.store import FixtureStore
from replaygate.http import block_network, intercept
from replaygate.hygiene.verify import verify_store
from replaygate.sim import FaultPlan, Simulator
from sdks import aiohttp

OFFLINE = "https://api.anthropic.com"
HEADERS = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
QUESTION = {
    "model": "m",
    "max_tokens": 16,
    "messages": [{"role": "user", "content": "read me"}],
    "stream": True,
}


def live_recorded_replayed(
    store: Path, sim: Simulator, read: Callable[[str], Any]
) -> tuple[Any, Any, Any]:
    """What ``read(base_url)`` returns live, while recording, and replayed offline."""
    live = read(sim.url)
    with intercept(store, "record-missing", approve_live=True):
        recorded = read(sim.url)
    with block_network(), intercept(store):
        replayed = read(OFFLINE)
    return live, recorded, replayed


READERS: dict[str, Callable[[requests.Response], Any]] = {
    "iter_content(None)": lambda r: b"".join(r.iter_content(chunk_size=None)),
    "iter_lines(chunk_size=None)": lambda r: list(r.iter_lines(chunk_size=None)),
    "raw.read(decode_content=True)": lambda r: r.raw.read(decode_content=True),
    "raw.stream": lambda r: b"".join(r.raw.stream(1024, decode_content=True)),
    "raw.status": lambda r: (r.raw.status, r.raw.headers["content-type"]),
}


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_requests_reads_a_stream_the_ways_its_raw_response_allows(
    tmp_path: Path, sim: Simulator, reader: str
) -> None:
    def read(base: str) -> Any:
        url = f"{base}/v1/messages"
        with requests.post(url, json=QUESTION, headers=HEADERS, stream=True) as response:
            return READERS[reader](response)

    live, recorded, replayed = live_recorded_replayed(tmp_path / "s.jsonl", sim, read)
    assert b"message_stop" in repr(live).encode() or reader == "raw.status"
    assert without_ids(recorded) == without_ids(replayed) == without_ids(live)


@pytest.mark.parametrize("size", [None, 64])
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_requests_hands_over_a_cut_stream_chunk_by_chunk_up_to_its_cut(
    tmp_path: Path, size: int | None
) -> None:
    """``iter_content`` hands over each HTTP chunk as it comes, never waiting to fill a
    read past it: the events before a cut reach the caller before its error, as live."""

    def read(base: str) -> tuple[list[str], str]:
        got: list[str] = []
        with requests.post(f"{base}/v1/messages", json=QUESTION, headers=HEADERS, stream=True) as r:
            try:
                got.extend(without_ids(chunk) for chunk in r.iter_content(chunk_size=size))
            except requests.exceptions.ChunkedEncodingError as err:
                return got, type(err).__name__
        return got, "complete"

    with Simulator(behavior="echo", faults=FaultPlan.sequence(["cut-stream"] * 2)) as cut:
        live, recorded, replayed = live_recorded_replayed(tmp_path / "s.jsonl", cut, read)
    assert live[1] == "ChunkedEncodingError" and "message_start" in live[0][0]
    assert recorded == replayed == live


def without_ids(read: Any) -> str:
    """What was read, the ids the simulator numbers per request (and the sanitizer
    replaces in a fixture) left out."""
    return re.sub(r"(msg|toolu)_\w+", "<id>", repr(read))


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_aiohttp_hands_over_one_http_chunk_per_event(tmp_path: Path, sim: Simulator) -> None:
    """aiohttp's documented reading of a chunked body: buffer until ``end_of_http_chunk``."""

    async def chunks(base: str) -> list[bytes]:
        got, buffer = [], b""
        async with (
            aiohttp.ClientSession(headers=HEADERS) as session,
            session.post(f"{base}/v1/messages", json=QUESTION) as response,
        ):
            async for data, end_of_http_chunk in response.content.iter_chunks():
                buffer += data
                if end_of_http_chunk:
                    got.append(buffer.split(b"\n", 1)[0])
                    buffer = b""
        return got

    def read(base: str) -> list[bytes]:
        return asyncio.run(chunks(base))

    live, recorded, replayed = live_recorded_replayed(tmp_path / "s.jsonl", sim, read)
    assert live[0] == b"event: message_start" and live[-1] == b"event: message_stop"
    assert recorded == replayed == live


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_an_aiohttp_body_keeps_the_flow_control_state_aiohttp_reads(
    tmp_path: Path, sim: Simulator
) -> None:
    """aiohttp before 3.14 reads its connection's ``_reading_paused`` as a body is fed and
    read (on every replayed and recorded body); each keeps the state of aiohttp's own."""
    from aiohttp.base_protocol import BaseProtocol

    async def states(base: str) -> tuple[dict[str, Any], dict[str, Any]]:
        own = BaseProtocol(asyncio.get_running_loop())
        names = [name for name in BaseProtocol.__slots__ if name.startswith("_reading")]
        async with (
            aiohttp.ClientSession(headers=HEADERS) as session,
            session.post(f"{base}/v1/messages", json={**QUESTION, "stream": False}) as response,
        ):
            await response.read()
            protocol = response.content._protocol
            return {n: getattr(own, n) for n in names}, {n: getattr(protocol, n) for n in names}

    store = tmp_path / "s.jsonl"
    with intercept(store, "record-missing", approve_live=True):
        asyncio.run(states(sim.url))
    with block_network(), intercept(store):
        own, replayed = asyncio.run(states(OFFLINE))
    assert own == replayed == {"_reading_paused": False}


def mock_server(body: bytes, content_type: str) -> Callable[[str], Any]:
    """A reader of one POST to a ``MockTransport`` answering ``body`` (the live side)."""

    def read(base: str) -> tuple[bytes, list[str]]:
        transport = httpx2.MockTransport(
            lambda _: httpx2.Response(200, headers={"content-type": content_type}, content=body)
        )
        with (
            httpx2.Client(transport=transport) as client,
            client.stream("POST", f"{base}/v1/chat/completions", json={"q": 1}) as response,
        ):
            return response.read(), list(response.iter_lines())

    return read


def test_a_json_null_body_is_not_replayed_as_an_empty_one(tmp_path: Path) -> None:
    store = tmp_path / "null.jsonl"
    read = mock_server(b"null", "application/json")
    with intercept(store, "record-missing", approve_live=True):
        recorded = read("https://api.openai.com/v1")
    with intercept(store):
        replayed = read("https://api.openai.com/v1")
    assert recorded[0] == replayed[0] == b"null"
    (fixture,) = FixtureStore.open(store)
    assert fixture.response["text"] == "null"


def test_an_event_stream_ending_without_its_blank_line_keeps_its_last_event(
    tmp_path: Path,
) -> None:
    store = tmp_path / "tail.jsonl"
    chunk = b'data: {"choices": [{"delta": {"content": "hi"}}]}\n\n'
    read = mock_server(chunk + b"data: [DONE]\n", "text/event-stream")
    live = read("https://api.openai.com/v1")
    with intercept(store, "record-missing", approve_live=True):
        recorded = read("https://api.openai.com/v1")
    with intercept(store):
        replayed = read("https://api.openai.com/v1")
    assert live[1][-1] == "data: [DONE]"
    assert recorded == replayed == live
    (fixture,) = FixtureStore.open(store)
    assert fixture.response["stream_end"] == "complete"
    assert fixture.response["events"][-1] == {"data": "[DONE]", "unterminated": True}
    assert verify_store(store) == (1, [])


def test_a_stream_closed_in_the_middle_of_an_event_replays_what_was_read(
    tmp_path: Path,
) -> None:
    # a proxy or server whose chunks are not events; the code reads one line and closes
    store = tmp_path / "first-line.jsonl"
    chunks = [b'event: message_start\ndata: {"ty', b'pe": "message_start"}\n\n']

    def read(base: str) -> str:
        transport = httpx2.MockTransport(
            lambda _: httpx2.Response(
                200, headers={"content-type": "text/event-stream"}, content=iter(chunks)
            )
        )
        with (
            httpx2.Client(transport=transport) as client,
            client.stream("POST", f"{base}/v1/messages", json=QUESTION) as response,
        ):
            return next(response.iter_lines())

    with intercept(store, "record-missing", approve_live=True):
        recorded = read(OFFLINE)
    with intercept(store):
        assert read(OFFLINE) == recorded == "event: message_start"
    (fixture,) = FixtureStore.open(store)
    assert fixture.response["stream_end"] == "closed"
    assert fixture.response["events"] == [
        {"event": "message_start", "data": "", "unterminated": True}
    ]


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_requests_response_hook_gets_the_keywords_it_gets_live(
    tmp_path: Path, sim: Simulator
) -> None:
    """requests' own send hands its response hooks its keywords but ``allow_redirects``."""

    def read(base: str) -> list[str]:
        seen: list[str] = []
        requests.post(
            f"{base}/v1/messages",
            json={**QUESTION, "stream": False},
            headers=HEADERS,
            hooks={"response": lambda response, **kwargs: seen.extend(sorted(kwargs))},
        )
        return seen

    live, recorded, replayed = live_recorded_replayed(tmp_path / "s.jsonl", sim, read)
    assert "timeout" in live and "allow_redirects" not in live
    assert recorded == replayed == live


def _plain_post(library: str, base: str) -> Any:
    """A plain (not streamed) POST through ``library``: the response's headers."""
    url, body = f"{base}/v1/messages", {**QUESTION, "stream": False}
    if library == "requests":
        return requests.post(url, json=body, headers=HEADERS).headers
    module = httpx2 if library == "httpx2" else httpx
    with module.Client() as client:
        return client.post(url, json=body, headers=HEADERS).headers


@pytest.mark.parametrize("library", ["httpx2", "httpx", "requests"])
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_plain_body_keeps_its_content_length_while_recording(
    tmp_path: Path, sim: Simulator, library: str
) -> None:
    """The client recording a plain body is told its length, as live and on replay."""
    live, recorded, replayed = live_recorded_replayed(
        tmp_path / "s.jsonl", sim, lambda base: _plain_post(library, base)
    )
    assert live["content-length"] == recorded["content-length"] == replayed["content-length"]


def test_a_compressed_body_is_handed_over_without_its_encoded_length(tmp_path: Path) -> None:
    """The body is handed over decoded: the length of its encoded form would be wrong."""
    payload = orjson.dumps({"text": "zipped " * 50})
    zipped = gzip.compress(payload)

    def server(request: httpx2.Request) -> httpx2.Response:
        headers = {"content-encoding": "gzip", "content-type": "application/json"}
        return httpx2.Response(200, headers=headers, content=zipped)

    transport = httpx2.MockTransport(server)
    with (
        intercept(tmp_path / "z.jsonl", "record-missing", approve_live=True),
        httpx2.Client(transport=transport) as client,
    ):
        response = client.post("https://api.openai.com/v1/chat/completions", json={"q": 1})
    assert response.content == payload
    assert "content-encoding" not in response.headers
    assert "content-length" not in response.headers


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_an_aiohttp_stream_its_cancelled_reader_never_released_is_recorded(
    tmp_path: Path, sim: Simulator
) -> None:
    """A task reading a stream is cancelled and the response never released: the event
    loop's shutdown closes the body, and what was read is recorded as ``closed``."""
    store = tmp_path / "s.jsonl"

    async def first_line(base: str) -> bytes:
        session = aiohttp.ClientSession(headers=HEADERS)
        response = await session.post(f"{base}/v1/messages", json=QUESTION)
        line = await response.content.readline()
        reading = asyncio.create_task(response.content.readline())
        reading.cancel()
        with pytest.raises(asyncio.CancelledError):
            await reading
        await session.close()
        return line

    with intercept(store, "record-missing", approve_live=True) as exchange:
        live = asyncio.run(first_line(sim.url))
    assert exchange.recorded == 1
    (fixture,) = FixtureStore.open(store)
    assert fixture.response["stream_end"] == "closed"
    with intercept(store):
        assert asyncio.run(first_line(OFFLINE)) == live == b"event: message_start\n"


SLOW_EVENTS = [b'event: ping\ndata: {"n": %d}\n\n' % n for n in range(3)]


class _SlowStream(http.server.BaseHTTPRequestHandler):
    """Sends the first of :data:`SLOW_EVENTS`, the others once the reader has given up on
    a read (:attr:`given_up`), then closes the connection."""

    given_up: ClassVar[threading.Event] = threading.Event()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["content-length"]))
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        first, *rest = SLOW_EVENTS
        self.wfile.write(first)
        self.wfile.flush()
        self.given_up.wait(timeout=10)
        self.given_up.clear()
        for event in rest:
            self.wfile.write(event)
            self.wfile.flush()

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""


@pytest.fixture
def slow_url() -> Iterator[str]:
    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), _SlowStream) as server:
        serving = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
        serving.start()  # polled every 10 ms, not 0.5 s: shutdown() returns at once
        yield f"http://127.0.0.1:{server.server_address[1]}"
        server.shutdown()


def test_an_aiohttp_read_that_times_out_leaves_the_recorded_stream_going(
    tmp_path: Path, slow_url: str
) -> None:
    """A read given up on (``asyncio.wait_for``) does not end the stream: the next read
    gets what follows, while recording as live."""

    async def read(base: str) -> tuple[bool, bytes]:
        async with (
            aiohttp.ClientSession() as session,
            session.post(f"{base}/v1/messages", json=QUESTION) as response,
        ):
            await response.content.readuntil(b"\n\n")
            try:
                await asyncio.wait_for(response.content.readline(), 0.01)
            except TimeoutError:
                timed_out = True
                _SlowStream.given_up.set()
            else:
                timed_out = False
            return timed_out, await response.content.read()

    live = asyncio.run(read(slow_url))
    with intercept(tmp_path / "s.jsonl", "record-missing", approve_live=True) as exchange:
        recorded = asyncio.run(read(slow_url))
    assert live == recorded == (True, b"".join(SLOW_EVENTS[1:]))
    (fixture,) = FixtureStore.open(exchange.store.path)
    assert fixture.response["stream_end"] == "complete"
    assert len(fixture.response["events"]) == len(SLOW_EVENTS)


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_aiohttp_names_the_replayed_headers_as_its_parser_names_them(
    tmp_path: Path, sim: Simulator
) -> None:
    """aiohttp's parser spells a known header its own way (``Content-Type``) whatever the
    server sent: ``dict(response.headers)["Content-Type"]`` works on a replay too."""

    async def names(base: str) -> dict[str, str]:
        async with (
            aiohttp.ClientSession(headers=HEADERS) as session,
            session.post(f"{base}/v1/messages", json={**QUESTION, "stream": False}) as response,
        ):
            await response.read()
            return dict(response.headers)

    live, recorded, replayed = live_recorded_replayed(
        tmp_path / "s.jsonl", sim, lambda base: asyncio.run(names(base))
    )
    assert "Content-Type" in live and "request-id" in live
    assert set(replayed) <= set(live) and set(recorded) == set(live)
    assert replayed["Content-Type"] == live["Content-Type"]
    assert replayed["Content-Length"] == live["Content-Length"]
