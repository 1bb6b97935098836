"""A live body that is not a stream, cut before its end while recording, is not recorded:
the client got the library's error, and a replay handed it the part read as a whole
answer of status 200."""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
import threading
import warnings
from pathlib import Path
from typing import Any, ClassVar

import httpx
import httpx2
import pytest

from loopback import Handler, serving
from replaygate.errors import LiveSendFailedWarning, ResponseLeftOpenWarning, WireFormatError
from replaygate.fixtures.store import FixtureStore
from replaygate.http import (
    Exchange,
    block_network,
    httpx2_async_client,
    httpx2_client,
    intercept,
)
from sdks import aiohttp, anthropic

ANSWER = json.dumps({"id": "msg_1", "text": "a whole answer " * 20}).encode()


def answer_head(handler: Handler, served: list[int]) -> int:
    """Read the request, count it in ``served``, and send the head of :data:`ANSWER`;
    which request of the test this is (1 the first)."""
    handler.rfile.read(int(handler.headers.get("content-length") or 0))
    served[0] += 1
    handler.send_response(200)
    handler.send_header("content-type", "application/json")
    handler.send_header("content-length", str(len(ANSWER)))
    handler.end_headers()
    return served[0]


class CutsFirst(Handler):
    """Sends half of its first answer's body, then closes; answers every other whole."""

    served: ClassVar[list[int]] = [0]

    def do_POST(self) -> None:
        if answer_head(self, CutsFirst.served) == 1:
            self.wfile.write(ANSWER[: len(ANSWER) // 2])
            self.close_connection = True
        else:
            self.wfile.write(ANSWER)


def test_a_cut_body_is_not_recorded_and_the_next_send_is(tmp_path: Path) -> None:
    store, body = tmp_path / "cut.jsonl", {"model": "m"}
    CutsFirst.served[0] = 0
    with serving(CutsFirst) as base, httpx2_client(store, "record-missing", approve_live=True) as c:
        with (
            pytest.raises(httpx2.RemoteProtocolError),
            pytest.warns(LiveSendFailedWarning, match="POST /v1/messages got an answer that"),
        ):
            c.post(f"{base}/v1/messages", json=body)
        assert not store.exists()
        assert c.post(f"{base}/v1/messages", json=body).content == ANSWER  # sent again
    assert len(FixtureStore.open(store)) == 1
    with block_network(), httpx2_client(Exchange(store)) as client:
        assert client.post(f"{base}/v1/messages", json=body).json() == json.loads(ANSWER)


def test_a_cut_body_read_through_intercept_is_not_recorded(tmp_path: Path) -> None:
    store = tmp_path / "cut.jsonl"
    CutsFirst.served[0] = 0
    with (
        serving(CutsFirst) as base,
        httpx.Client() as client,
        intercept(store, "record-missing", approve_live=True),
        pytest.raises(httpx.RemoteProtocolError),
        pytest.warns(LiveSendFailedWarning, match="broke off before its end"),
    ):
        client.post(f"{base}/v1/messages", json={"model": "m"})
    assert not store.exists()


class GzipAnswer(Handler):
    """Answers every POST with :meth:`packed`, labelled a gzip JSON body."""

    def packed(self) -> bytes:
        return gzip.compress(ANSWER)

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        packed = self.packed()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-encoding", "gzip")
        self.send_header("content-length", str(len(packed)))
        self.end_headers()
        self.wfile.write(packed)


class BrokenGzip(GzipAnswer):
    """Answers a gzip body whose compressed bytes are broken in the middle."""

    def packed(self) -> bytes:
        packed = gzip.compress(ANSWER)
        return packed[:10] + b"\x00not deflate" + packed[24:]


@pytest.mark.parametrize("library", [httpx, httpx2])
def test_a_gzip_body_that_does_not_decode_gives_the_library_error_and_is_not_recorded(
    tmp_path: Path, library: Any
) -> None:
    """The client got the library's DecodingError, as live; it got replaygate's refusal of
    an empty JSON body (``labelled application/json, but empty``), the body as if read."""
    store = tmp_path / "gzip.jsonl"
    with (
        serving(BrokenGzip) as base,
        library.Client() as client,
        intercept(store, "record-missing", approve_live=True),
        pytest.raises(library.DecodingError),
        pytest.warns(LiveSendFailedWarning, match=r"POST /v1/messages got .*\(DecodingError"),
    ):
        client.post(f"{base}/v1/messages", json={"model": "m"})
    assert not store.exists()


class EndlessGzip(GzipAnswer):
    """Answers a gzip body that stops before its compressed end (no error in the client's
    decoder: the JSON it decodes is cut short)."""

    def packed(self) -> bytes:
        return gzip.compress(ANSWER)[:-30]


def test_a_gzip_body_cut_short_is_refused_naming_its_request(tmp_path: Path) -> None:
    """Among many sends, the refusal said only ``response.text: ...``."""
    store = tmp_path / "gzip.jsonl"
    with (
        serving(EndlessGzip) as base,
        httpx2.Client() as client,
        intercept(store, "record-missing", approve_live=True),
        pytest.raises(WireFormatError) as caught,
    ):
        client.post(f"{base}/v1/messages?beta=true", json={"model": "m"})
    assert str(caught.value).startswith("response.text: labelled application/json, but not JSON")
    assert str(caught.value).endswith(
        "so the live answer to POST /v1/messages?beta=true was not recorded"
    )
    assert not store.exists()


QUESTION = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]}


@pytest.mark.parametrize("client", ["sync", "async"])
def test_a_body_closed_unread_and_cut_while_drained_is_not_recorded(
    tmp_path: Path, client: str
) -> None:
    """The SDK's streaming response left unread: the recorder drains it to record it, the
    server cuts it, and the client gets no error (live, closing it reads nothing), no
    warning that it was left open but one that its answer broke off, and the next send is
    the one recorded."""
    store = tmp_path / "cut.jsonl"
    CutsFirst.served[0] = 0
    with serving(CutsFirst) as base, warnings.catch_warnings():
        warnings.simplefilter("error")
        if client == "sync":
            http = httpx2_client(store, "record-missing", approve_live=True)
            with anthropic.Anthropic(api_key="k", base_url=base, http_client=http) as sdk:
                with (
                    pytest.warns(LiveSendFailedWarning, match="POST /v1/messages got an answer"),
                    sdk.messages.with_streaming_response.create(**QUESTION) as response,
                ):
                    assert response.status_code == 200  # closed unread
                assert not store.exists()
                answer = sdk.messages.with_raw_response.create(**QUESTION).http_response
        else:

            async def run() -> httpx2.Response:
                http = httpx2_async_client(store, "record-missing", approve_live=True)
                async with anthropic.AsyncAnthropic(
                    api_key="k", base_url=base, http_client=http
                ) as sdk:
                    create = sdk.messages.with_streaming_response.create
                    with pytest.warns(LiveSendFailedWarning, match="broke off before its end"):
                        async with create(**QUESTION) as response:
                            assert response.status_code == 200
                    assert not store.exists()
                    raw = await sdk.messages.with_raw_response.create(**QUESTION)
                    return raw.http_response

            answer = asyncio.run(run())
    assert answer.content == ANSWER
    (fixture,) = FixtureStore.open(store)
    assert [r["body"]["text"] for r in fixture.responses] == [json.loads(ANSWER)["text"]]


class HoldsFirst(Handler):
    """Sends half of its first answer's body, sets :attr:`held`, and sends the rest once
    :attr:`go_on` is set; answers every other whole."""

    served: ClassVar[list[int]] = [0]
    held = threading.Event()
    go_on = threading.Event()

    def do_POST(self) -> None:
        if answer_head(self, HoldsFirst.served) > 1:
            self.wfile.write(ANSWER)
            return
        self.wfile.write(ANSWER[:20])
        self.wfile.flush()
        HoldsFirst.held.set()
        HoldsFirst.go_on.wait(5)
        with contextlib.suppress(OSError):  # the client is gone
            self.wfile.write(ANSWER[20:])


HOLD = 0.1
"""How long a test's ``asyncio.wait_for`` waits on a body :class:`HoldsFirst` holds: the
head and the first part reach the client over loopback in milliseconds."""


@pytest.mark.parametrize("path", ["/v1/messages", "/v1/files/f/content"])
def test_a_body_whose_read_a_timeout_cancels_is_not_recorded(tmp_path: Path, path: str) -> None:
    """``asyncio.wait_for`` ran out while the body was read: the part read was stored as
    the whole answer (replayed so ever after), or, on a model API's path, refused as JSON
    cut short with a WireFormatError that took the place of the TimeoutError. Nothing is
    stored, the code gets its TimeoutError, and the next send is the one recorded."""
    store = tmp_path / "held.jsonl"
    HoldsFirst.served[0] = 0
    HoldsFirst.held.clear()
    HoldsFirst.go_on.clear()

    async def run(base: str) -> bytes:
        async with httpx2_async_client(store, "record-missing", approve_live=True) as client:
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(client.post(f"{base}{path}", json={"m": 1}), HOLD)
            assert HoldsFirst.held.is_set()  # run out while the body was read
            HoldsFirst.go_on.set()
            assert not store.exists()
            return (await client.post(f"{base}{path}", json={"m": 1})).content

    with serving(HoldsFirst) as base, warnings.catch_warnings():
        warnings.simplefilter("error", LiveSendFailedWarning)  # cancelled: as before an answer
        assert asyncio.run(run(base)) == ANSWER
    (fixture,) = FixtureStore.open(store)
    assert len(fixture.responses) == 1
    with block_network(), httpx2_client(Exchange(store)) as replay:
        assert replay.post(f"{base}{path}", json={"m": 1}).json() == json.loads(ANSWER)


def test_a_body_closed_unread_whose_drain_a_timeout_cancels_gives_its_place_up(
    tmp_path: Path,
) -> None:
    """A body the client closes unread is drained to be recorded; ``asyncio.wait_for``
    running out meanwhile left its recording open: the next send's answer was held back
    until the block ended, which warned that the response was 'not read to its end nor
    closed'. Nothing of it is stored, and the next send's answer is stored at once."""
    store = tmp_path / "held.jsonl"
    HoldsFirst.served[0] = 0
    HoldsFirst.held.clear()
    HoldsFirst.go_on.clear()

    async def run(base: str) -> int:
        async with httpx2_async_client(store, "record-missing", approve_live=True) as client:
            request = client.build_request("POST", f"{base}/v1/messages", json={"m": 1})
            response = await client.send(request, stream=True)
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(response.aclose(), HOLD)
            assert HoldsFirst.held.is_set()
            HoldsFirst.go_on.set()
            assert (await client.post(f"{base}/v1/messages", json={"m": 1})).content == ANSWER
            return len(FixtureStore.open(store))  # before the block ends

    with serving(HoldsFirst) as base, warnings.catch_warnings():
        warnings.simplefilter("error", ResponseLeftOpenWarning)
        warnings.simplefilter("error", LiveSendFailedWarning)
        assert asyncio.run(run(base)) == 1
    (fixture,) = FixtureStore.open(store)
    assert [r["body"] for r in fixture.responses] == [json.loads(ANSWER)]


def test_an_aiohttp_body_cut_while_recording_fails_where_it_is_read(tmp_path: Path) -> None:
    """aiohttp's body is read whole before the client gets its response: a cut was raised
    from the request itself, also for a body the client releases unread, where live
    aiohttp raises nothing; it is raised by the read, as live."""
    store = tmp_path / "cut.jsonl"

    async def run(base: str) -> tuple[int, bytes]:
        async with aiohttp.ClientSession() as session:
            CutsFirst.served[0] = 0
            async with session.post(f"{base}/v1/messages", json={"m": 1}):
                pass  # cut, released unread
            CutsFirst.served[0] = 0
            async with session.post(f"{base}/v1/messages", json={"m": 1}) as response:
                with pytest.raises(aiohttp.ClientPayloadError):
                    await response.read()  # cut, read
            async with session.post(f"{base}/v1/messages", json={"m": 1}) as response:
                return response.status, await response.read()

    with (
        serving(CutsFirst) as base,
        intercept(store, "record-missing", approve_live=True),
        pytest.warns(LiveSendFailedWarning, match="ClientPayloadError"),
    ):
        assert asyncio.run(run(base)) == (200, ANSWER)
    (fixture,) = FixtureStore.open(store)
    assert len(fixture.responses) == 1  # the whole answer only
