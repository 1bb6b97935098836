"""Hostile requests at the HTTP seam: compressed request bodies, query bytes that are not
UTF-8, floats that differ only in sign. Real HTTP on loopback, through the real clients."""

from __future__ import annotations

import asyncio
import gzip
import json
import threading
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import httpx2
import pytest
import requests

from loopback import ChunkedEvents, Handler, serving
from replaygate.errors import (
    FixtureFormatError,
    FixtureMismatchError,
    SecretInFixtureError,
    WireFormatError,
)
from replaygate.http import httpx2_client, intercept
from run_cli import replaygate


class _Echo(Handler):
    def do_POST(self) -> None:
        size = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(size)
        if self.path.startswith("/moved"):
            self.send_response(307)
            self.send_header("location", "/v1/target")
            self.send_header("content-length", "0")
            self.end_headers()
            return
        self.answer_json({"bytes": len(body), "path": self.path})

    do_GET = do_POST


@pytest.fixture
def server() -> Iterator[str]:
    with serving(_Echo) as url:
        yield url


BODY = b'{"model":"m","max_tokens":8,"messages":[{"role":"user","content":"hi"}]}'
JSON = {"content-type": "application/json"}


def _record(store: Path, url: str, content: bytes, headers: dict[str, str]) -> None:
    with httpx2_client(store, mode="record-missing", approve_live=True) as client:
        assert client.post(url, content=content, headers=headers).status_code == 200


def test_a_gzip_body_compressed_again_later_replays(tmp_path: Path, server: str) -> None:
    store = tmp_path / "gz.jsonl"
    zipped = {"content-encoding": "gzip", **JSON}
    _record(store, f"{server}/v1/messages", gzip.compress(BODY, mtime=1), zipped)
    line = json.loads(store.read_text())
    assert line["request"]["body"]["messages"] == [{"role": "user", "content": "hi"}]
    with httpx2_client(store) as client:  # a gzip header holds the time it was made
        again = client.post(
            "https://api.example/v1/messages",
            content=gzip.compress(BODY, mtime=2),
            headers=zipped,
        )
        assert again.json() == {"bytes": len(gzip.compress(BODY, mtime=1)), "path": "/v1/messages"}
        changed = BODY.replace(b'"hi"', b'"ho"')
        with pytest.raises(FixtureMismatchError, match=r"messages\[0\]\.content: 'hi' != 'ho'"):
            client.post(
                "https://api.example/v1/messages",
                content=gzip.compress(changed, mtime=1),
                headers=zipped,
            )


def test_a_deflate_body_through_requests_matches_its_plain_form(
    tmp_path: Path, server: str
) -> None:
    store = tmp_path / "deflate.jsonl"
    with intercept(store, mode="record-missing", approve_live=True):
        requests.post(
            f"{server}/v1/messages",
            data=zlib.compress(BODY),
            headers={"content-encoding": "deflate", **JSON},
            timeout=5,
        ).raise_for_status()
    with intercept(store):
        assert httpx2.post(f"{server}/v1/messages", content=BODY, headers=JSON).status_code == 200


def test_a_secret_inside_a_gzip_body_is_refused(tmp_path: Path, server: str) -> None:
    store = tmp_path / "secret.jsonl"
    body = b'{"model":"m","api_key":"sk-ant-api03-' + b"A" * 90 + b'"}'
    with pytest.raises(SecretInFixtureError, match=r"request\.body\.api_key"):
        _record(store, f"{server}/v1/x", gzip.compress(body), {"content-encoding": "gzip"})
    assert not store.exists()


def test_a_body_that_is_not_gzip_as_it_claims_is_kept_as_sent(tmp_path: Path, server: str) -> None:
    store = tmp_path / "bad.jsonl"
    _record(store, f"{server}/v1/x", b"not gzip at all", {"content-encoding": "gzip"})
    assert json.loads(store.read_text())["request"]["text"] == "not gzip at all"


def test_query_bytes_that_are_not_utf8_are_told_apart(tmp_path: Path, server: str) -> None:
    store = tmp_path / "q.jsonl"
    with httpx2_client(store, mode="record-missing", approve_live=True) as client:
        client.get(f"{server}/v1/models?q=%FF&r=%C3%A9").raise_for_status()
    assert json.loads(store.read_text())["request"]["path"] == "/v1/models?q=%FF&r=%C3%A9"
    with httpx2_client(store) as client, pytest.raises(FixtureMismatchError):
        client.get(f"{server}/v1/models?q=%FE&r=%C3%A9")  # both were once read as U+FFFD
    with httpx2_client(store) as client:
        assert client.get(f"{server}/v1/models?r=%C3%A9&q=%FF").status_code == 200


def test_a_miss_on_the_sign_of_zero_names_the_field(tmp_path: Path, server: str) -> None:
    store = tmp_path / "zero.jsonl"
    _record(store, f"{server}/v1/x", b'{"temperature": -0.0, "n": [0.0]}', JSON)
    with httpx2_client(store) as client, pytest.raises(FixtureMismatchError) as caught:
        client.post(f"{server}/v1/x", content=b'{"temperature": 0.0, "n": [-0.0]}')
    assert "body.temperature: -0.0 != 0.0" in str(caught.value)
    assert "body.n[0]: 0.0 != -0.0" in str(caught.value)


def test_a_followed_redirect_is_followed_again_on_replay(tmp_path: Path, server: str) -> None:
    store = tmp_path / "redirect.jsonl"
    with intercept(store, mode="record-missing", approve_live=True):
        live = requests.post(f"{server}/moved", data=BODY, headers=JSON, timeout=5)
    assert live.json()["path"] == "/v1/target"
    paths = [json.loads(line)["request"]["path"] for line in store.read_text().splitlines()]
    assert paths == ["/moved", "/v1/target"]  # one fixture a hop, as through httpx
    with intercept(store):
        again = requests.post(f"{server}/moved", data=BODY, headers=JSON, timeout=5)
        assert (again.status_code, again.json()) == (200, live.json())
        assert [r.status_code for r in again.history] == [307]
    with intercept(store), httpx2.Client(follow_redirects=True) as client:
        assert client.post(f"{server}/moved", content=BODY).json() == live.json()
    with intercept(store), httpx2.Client() as client:
        assert client.post(f"{server}/moved", content=BODY).headers["location"] == "/v1/target"


def test_a_redirect_not_followed_names_its_next_hop_as_requests_does(
    tmp_path: Path, server: str
) -> None:
    """``response.next``, the hop a ``send(..., allow_redirects=False)`` leaves for code
    that follows redirects itself, recording and replaying."""
    store = tmp_path / "next.jsonl"

    def by_hand() -> tuple[list[int], Any]:
        with requests.Session() as session:
            response = session.post(f"{server}/moved", data=BODY, allow_redirects=False)
            statuses = [response.status_code]
            while response.next is not None:
                response = session.send(response.next, allow_redirects=False)
                statuses.append(response.status_code)
            return statuses, response.json()

    with intercept(store, mode="record-missing", approve_live=True):
        live = by_hand()
    assert live == ([307, 200], {"bytes": len(BODY), "path": "/v1/target"})
    with intercept(store):
        assert by_hand() == live


def test_a_redirect_recorded_through_an_intercepted_client_replays_through_each(
    tmp_path: Path, server: str
) -> None:
    store = tmp_path / "hops.jsonl"
    with intercept(store, mode="record-missing", approve_live=True):
        with httpx2.Client(follow_redirects=True) as client:
            live = client.post(f"{server}/moved", content=BODY)
        assert [r.status_code for r in live.history] == [307]
    assert len(store.read_text().splitlines()) == 2

    async def replayed() -> Any:
        async with httpx2.AsyncClient(follow_redirects=True) as client:
            return await client.post(f"{server}/moved", content=BODY)

    with intercept(store):
        again = asyncio.run(replayed())
        assert (again.json(), [r.status_code for r in again.history]) == (live.json(), [307])
    with (
        intercept(store),
        httpx2.Client(follow_redirects=True, max_redirects=0) as client,
        pytest.raises(httpx2.TooManyRedirects),
    ):
        client.post(f"{server}/moved", content=BODY)


@pytest.mark.parametrize(
    ("recorded", "sent"),
    [
        ("/v1/files/a%2Fb", "/v1/files/a/b"),  # one segment is not two
        ("/v1/files/x%3Fy=1", "/v1/files/x?y=1"),  # a path is not a query
        ("/v1/files/%FF", "/v1/files/%FE"),  # bytes that are not UTF-8
        ("/v1/files/100%25", "/v1/files/100%2525"),
    ],
)
def test_paths_that_decode_alike_are_told_apart(
    tmp_path: Path, server: str, recorded: str, sent: str
) -> None:
    store = tmp_path / "paths.jsonl"
    _record(store, f"{server}{recorded}", b"{}", JSON)
    with intercept(store), pytest.raises(FixtureMismatchError):
        requests.post(f"{server}{sent}", data=b"{}", timeout=5)
    with httpx2_client(store) as client, pytest.raises(FixtureMismatchError):
        client.post(f"{server}{sent}", content=b"{}")
    with intercept(store):
        assert requests.post(f"{server}{recorded}", data=b"{}", timeout=5).status_code == 200


def test_a_path_with_spaces_keeps_its_decoded_form(tmp_path: Path, server: str) -> None:
    store = tmp_path / "spaces.jsonl"
    _record(store, f"{server}/v1/files/my%20file%C3%A9", b"{}", JSON)
    assert json.loads(store.read_text())["request"]["path"] == "/v1/files/my fileé"
    with intercept(store):
        assert requests.post(f"{server}/v1/files/my fileé", data=b"{}", timeout=5).ok


class _Stream(ChunkedEvents):
    """An event stream in the chunks its path names (a lone CR ends a line too)."""

    CHUNKS: ClassVar[dict[str, list[bytes]]] = {
        "/cr": [b'event: a\rdata: {"x":1}\r\revent: b\rdata: {"y":2}\r\r'],
        "/split": [b'event: a\r\ndata: {"x":1}\r', b'\n\r\nevent: b\r\ndata: {"y":2}\r\n\r\n'],
        "/page": [b"<html><h1>502 Bad Gateway</h1></html>\n"],
        "/keepalive": [b": ping\n\n", b": ping\n\n"],
    }

    PAUSE = 0.02

    def status(self) -> int:
        return 502 if self.path == "/page" else 200


@pytest.mark.parametrize("path", ["/cr", "/split"])
def test_an_event_stream_with_cr_line_ends_replays_its_events(tmp_path: Path, path: str) -> None:
    store = tmp_path / "sse.jsonl"
    with serving(_Stream) as base:
        url = f"{base}{path}"
        with (
            httpx2_client(store, mode="record-missing", approve_live=True) as client,
            client.stream("POST", url, content=b"{}") as live,
        ):
            assert len(list(live.iter_lines())) == 6
    events = json.loads(store.read_text())["response"]["events"]
    assert events == [{"event": "a", "data": '{"x":1}'}, {"event": "b", "data": '{"y":2}'}]
    with httpx2_client(store) as client, client.stream("POST", url, content=b"{}") as again:
        lines = list(again.iter_lines())
    assert lines == ["event: a", 'data: {"x":1}', "", "event: b", 'data: {"y":2}', ""]


def test_event_data_edited_to_hold_a_carriage_return_is_refused(tmp_path: Path) -> None:
    store = tmp_path / "cr.jsonl"
    with serving(_Stream) as base:
        url = f"{base}/cr"
        with httpx2_client(store, mode="record-missing", approve_live=True) as client:
            client.post(url, content=b"{}").raise_for_status()
    # a client reads a CR as a line end: "x" and a line "y", not the data stored
    store.write_text(store.read_text().replace('{\\"x\\":1}', "x\\ry"))
    done = replaygate("verify", str(store))
    assert done.returncode == 1
    assert f"{store}:1: response is not an HTTP response: response.events[0].data" in done.stdout
    with (
        httpx2_client(store) as client,
        pytest.raises(FixtureFormatError, match=r"events\[0\]\.data: holds a carriage return"),
    ):
        client.post(url, content=b"{}")


def test_a_response_edited_to_hold_two_bodies_is_refused(tmp_path: Path, server: str) -> None:
    store = tmp_path / "two.jsonl"
    _record(store, f"{server}/v1/x", BODY, JSON)
    line = json.loads(store.read_text())
    line["response"]["text"] = "an edit a reviewer reads, never replayed"
    store.write_text(json.dumps(line) + "\n")
    done = replaygate("verify", str(store))
    assert (done.returncode, "response: holds body and text" in done.stdout) == (1, True)
    with (
        httpx2_client(store) as client,
        pytest.raises(FixtureFormatError, match="holds body and text: a response has one body"),
    ):
        client.post(f"{server}/v1/x", content=BODY)


def test_an_event_stream_that_holds_no_event_keeps_its_body(tmp_path: Path) -> None:
    store = tmp_path / "page.jsonl"
    with serving(_Stream) as base, intercept(store, mode="record-missing", approve_live=True):
        live = requests.post(f"{base}/page", data=b"{}", timeout=5)
        assert httpx2.post(f"{base}/keepalive", content=b"{}").text == ": ping\n\n" * 2
    assert live.status_code == 502 and b"Bad Gateway" in live.content
    with intercept(store):  # a proxy's error page, labelled an event stream
        assert httpx2.post(f"{base}/page", content=b"{}").content == live.content
        assert requests.post(f"{base}/keepalive", data=b"{}", timeout=5).content == b""


def test_a_gzip_body_with_bytes_after_its_end_is_never_matched_on_its_first_part(
    tmp_path: Path, server: str
) -> None:
    # gzip(A) + gzip(B), which a server reads as A then B, was stored as A alone, and
    # gzip(A) + anything then replayed that fixture (law 1)
    store = tmp_path / "members.jsonl"
    zipped = {"content-encoding": "gzip", **JSON}
    two = gzip.compress(BODY, mtime=1) + gzip.compress(b'{"x": 1}', mtime=1)
    _record(store, f"{server}/v1/messages", two, zipped)
    assert json.loads(store.read_text())["request"]["text"] == (BODY + b'{"x": 1}').decode()
    _record(store, f"{server}/v1/messages", gzip.compress(BODY, mtime=1), zipped)
    with httpx2_client(store) as client, pytest.raises(WireFormatError) as caught:
        client.post(
            "https://api.example/v1/messages",
            content=gzip.compress(BODY, mtime=1) + b"any trailing bytes",
            headers=zipped,
        )
    assert str(caught.value) == (
        "request.body: content-encoding 'gzip': its bytes are not gzip (cut short, or other "
        "bytes after its end); refused, as it would be stored compressed, unsearched for "
        "secrets"
    )


class _Counting(Handler):
    """Answers each POST with its number; the second one once :attr:`release` is set (the
    test sets it when the third is answered), and says it came in :attr:`second_in`."""

    count: ClassVar[list[int]] = [0]
    answered: ClassVar[list[int]] = []
    lock: ClassVar[threading.Lock] = threading.Lock()
    second_in: ClassVar[threading.Event] = threading.Event()
    release: ClassVar[threading.Event] = threading.Event()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        with self.lock:
            self.count[0] += 1
            number = self.count[0]
        if number == 2:
            self.second_in.set()
            self.release.wait(timeout=10)
        with self.lock:  # before the answer goes out: its client may release the second
            self.answered.append(number)
        self.answer_json({"n": number})


@pytest.mark.filterwarnings("ignore::replaygate.errors.SentAtOnceWarning")  # on purpose
def test_live_answers_written_out_of_order_after_recorded_ones_are_all_kept(
    tmp_path: Path,
) -> None:
    # the second live send numbered its answer from 0, on the place the recorded one held,
    # when it was written before the first live send's: the answer was dropped
    _Counting.count[0] = 0
    _Counting.answered.clear()
    _Counting.second_in.clear()
    _Counting.release.clear()
    store = tmp_path / "later.jsonl"
    with serving(_Counting) as base:
        url = f"{base}/v1/messages"
        with httpx2_client(store, mode="record-missing", approve_live=True) as client:
            assert client.post(url, content=BODY, headers=JSON).json() == {"n": 1}
        got = []
        with httpx2_client(store, mode="record-missing", approve_live=True) as client:
            got.append(client.post(url, content=BODY, headers=JSON).json()["n"])  # replayed
            slow = threading.Thread(
                target=lambda: got.append(client.post(url, content=BODY, headers=JSON).json()["n"])
            )
            slow.start()
            assert _Counting.second_in.wait(timeout=10)
            got.append(client.post(url, content=BODY, headers=JSON).json()["n"])
            _Counting.release.set()
            slow.join()
    assert sorted(got) == [1, 2, 3]
    assert _Counting.answered == [1, 3, 2]  # the third live send answered before the second
    with httpx2_client(store) as client:
        replayed = [client.post(url, content=BODY, headers=JSON).json()["n"] for _ in range(3)]
    assert sorted(replayed) == [1, 2, 3]


def test_an_empty_chunk_between_a_cr_and_its_lf_splits_no_event() -> None:
    from replaygate.http.sse import SSEParser

    parser = SSEParser()
    events = [
        *parser.feed(b"data: a\r"),
        *parser.feed(b""),
        *parser.feed(b"\ndata: b\r\n\r\n"),
    ]
    assert [event.data for event in events] == ["a\nb"]
