"""Hostile wire bytes at the HTTP seam: an event stream that begins with a byte-order mark,
compressed request bodies that decode past the limit or cannot be decoded. Real HTTP on
loopback, through the real clients."""

from __future__ import annotations

import asyncio
import base64
import gzip
import http.server
import importlib
import json
import zlib
from pathlib import Path
from typing import Any, ClassVar

import httpx2
import pytest
import requests

from loopback import ChunkedEvents, Counted, Handler, serving
from replaygate.errors import FixtureMismatchError, SecretInFixtureError, WireFormatError
from replaygate.http import codings, httpx2_client, intercept
from replaygate.http.sse import SSEEvent, SSEParser
from sdks import aiohttp

BOM = b"\xef\xbb\xbf"
JSON = {"content-type": "application/json"}


class _Stream(ChunkedEvents):
    """An event stream in the chunks its path names."""

    CHUNKS: ClassVar[dict[str, list[bytes]]] = {
        "/bom": [BOM + b'event: a\ndata: {"x":1}\n\nevent: b\ndata: {"y":2}\n\n'],
        "/split-bom": [
            BOM[:1],
            BOM[1:2],
            BOM[2:] + b'event: a\ndata: {"x":1}\n\nevent: b\n',
            b'data: {"y":2}\n\n',
        ],
        "/bom-comment": [BOM + b": ping\n\n"],
    }


@pytest.mark.parametrize("path", ["/bom", "/split-bom"])
def test_an_event_stream_that_begins_with_a_bom_keeps_its_first_event_name(
    tmp_path: Path, path: str
) -> None:
    store = tmp_path / "bom.jsonl"
    with (
        serving(_Stream) as base,
        httpx2_client(store, mode="record-missing", approve_live=True) as client,
        client.stream("POST", f"{base}{path}", content=b"{}") as live,
    ):
        live.read()
    events = json.loads(store.read_text())["response"]["events"]
    assert events == [{"event": "a", "data": '{"x":1}'}, {"event": "b", "data": '{"y":2}'}]
    with (
        httpx2_client(store) as client,
        client.stream("POST", f"{base}{path}", content=b"{}") as again,
    ):
        lines = list(again.iter_lines())
    assert lines == ["event: a", 'data: {"x":1}', "", "event: b", 'data: {"y":2}', ""]


def test_a_stream_of_a_bom_and_comments_holds_no_event(tmp_path: Path) -> None:
    store = tmp_path / "ping.jsonl"
    with serving(_Stream) as base, intercept(store, mode="record-missing", approve_live=True):
        httpx2.post(f"{base}/bom-comment", content=b"{}").raise_for_status()
    response = json.loads(store.read_text())["response"]
    assert response["events"] == []  # a keepalive, not a body to keep as text


@pytest.mark.parametrize("start", [BOM[:1], BOM[:2]])
def test_a_stream_cut_inside_its_bom_is_not_utf8_text(start: bytes) -> None:
    parser = SSEParser()
    assert list(parser.feed(start)) == []
    assert parser.pending == start
    with pytest.raises(WireFormatError, match="stream event 0: not UTF-8 text"):
        parser.tail()


def test_only_a_bom_at_the_start_of_a_stream_is_ignored() -> None:
    parser = SSEParser()
    events = [*parser.feed(b"data: 1\n\n"), *parser.feed(BOM + b"event: a\ndata: 2\n\n")]
    assert events == [SSEEvent("1"), SSEEvent("2")]  # the field named "\ufeffevent" is none


@pytest.fixture
def one_mib(monkeypatch: pytest.MonkeyPatch) -> int:
    """A decoding limit a test reaches in milliseconds."""
    monkeypatch.setattr(codings, "MAX_DECODED_BODY", 1 << 20)
    return 1 << 20


def _compressed(data: bytes, coding: str) -> bytes:
    if coding == "br":
        return bytes(importlib.import_module("brotli").compress(data, quality=1))
    wbits = {"gzip": 31, "deflate": 15, "raw-deflate": -15}[coding]
    packer = zlib.compressobj(1, zlib.DEFLATED, wbits)
    return packer.compress(data) + packer.flush()


def _has(module: str) -> bool:
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


BROTLI = pytest.param(
    "br", marks=pytest.mark.skipif(not _has("brotli"), reason="brotli is not installed")
)


@pytest.mark.parametrize("coding", ["gzip", "deflate", "raw-deflate", BROTLI])
def test_a_body_decoding_past_the_limit_is_refused_naming_coding_and_limit(
    tmp_path: Path, counted: str, one_mib: int, coding: str
) -> None:
    store = tmp_path / "bomb.jsonl"
    bomb = _compressed(b"\0" * (8 * one_mib), coding)  # 8 KiB that decode to 8 MiB
    sent = coding.removeprefix("raw-")
    headers = {"content-encoding": sent, **JSON}
    with (
        httpx2_client(store, mode="record-missing", approve_live=True) as client,
        pytest.raises(WireFormatError) as caught,
    ):
        client.post(counted, content=bomb, headers=headers)
    assert str(caught.value) == (
        f"request.body: content-encoding {sent!r}: decoding stopped past 1048576 bytes, the "
        "most a request body is decoded to; refused, as it could be neither matched nor "
        "searched for secrets whole"
    )
    assert (Counted.received, store.exists()) == ([], False)  # nothing sent, nothing stored
    with intercept(store), pytest.raises(WireFormatError, match="decoding stopped past"):
        requests.post(counted, data=bomb, headers=headers, timeout=5)


def test_a_body_decoding_to_the_limit_itself_is_decoded(
    tmp_path: Path, counted: str, one_mib: int
) -> None:
    store = tmp_path / "full.jsonl"
    text = b"x" * one_mib
    with httpx2_client(store, mode="record-missing", approve_live=True) as client:
        client.post(
            counted, content=_compressed(text, "gzip"), headers={"content-encoding": "gzip"}
        )
    assert json.loads(store.read_text())["request"]["text"] == text.decode()


def test_a_secret_in_a_later_gzip_member_is_refused(tmp_path: Path, counted: str) -> None:
    # a body of two gzip members, which a server reads whole, was stored as sent: the key
    # in the second one reached the disk compressed, where no search saw it
    store = tmp_path / "members.jsonl"
    key = b'{"api_key":"sk-ant-api03-' + b"A" * 90 + b'"}'
    two = gzip.compress(b'{"model":"m"}\n', mtime=1) + gzip.compress(key, mtime=1)
    with (
        httpx2_client(store, mode="record-missing", approve_live=True) as client,
        pytest.raises(SecretInFixtureError),
    ):
        client.post(counted, content=two, headers={"content-encoding": "gzip"})
    assert not store.exists()


UNDECODABLE = [
    pytest.param(
        "zstd",
        "it needs Python 3.14 (compression.zstd) or the backports.zstd package (pip install "
        "backports.zstd)",
        marks=pytest.mark.skipif(
            _has("compression.zstd") or _has("backports.zstd"), reason="zstd decodes here"
        ),
    ),
    pytest.param(
        "br",
        "it needs the brotli package (1.2 or later: pip install 'brotli>=1.2')",
        marks=pytest.mark.skipif(
            _has("brotli") or _has("brotlicffi"), reason="brotli is installed"
        ),
    ),
    pytest.param("compress", "", id="unknown"),
]


@pytest.mark.parametrize(("coding", "needs"), UNDECODABLE)
def test_a_body_whose_coding_cannot_be_decoded_is_refused(
    tmp_path: Path, counted: str, coding: str, needs: str
) -> None:
    # it was stored compressed: the secret gate searched the compressed bytes, saw nothing
    store = tmp_path / "opaque.jsonl"
    opaque = b"\x28\xb5\x2f\xfd" + bytes(range(256))
    with (
        intercept(store, mode="record-missing", approve_live=True),
        pytest.raises(WireFormatError) as caught,
    ):
        requests.post(counted, data=opaque, headers={"content-encoding": coding}, timeout=5)
    where = f" here: {needs}" if needs else ""
    assert str(caught.value) == (
        f"request.body: content-encoding {coding!r} cannot be decoded{where}; refused, as it "
        "would be stored compressed, unsearched for secrets (replaygate decodes gzip, "
        "deflate, br (with brotli >= 1.2) and zstd (on Python 3.14, or with backports.zstd))"
    )
    assert (Counted.received, store.exists()) == ([], False)


UTF8_E = b"tools-\xc3\xa9"  # "tools-é" in UTF-8
LATIN1_E = b"tools-\xe9"  # the same text in Latin-1: not UTF-8


def test_a_kept_request_header_of_other_bytes_than_recorded_never_matches(
    tmp_path: Path, counted: str
) -> None:
    # bytes that were not UTF-8 were read as Latin-1: "tools-é" sent as Latin-1 replayed
    # the fixture of "tools-é" sent as UTF-8, other bytes (law 1)
    store = tmp_path / "beta.jsonl"
    with httpx2_client(store, mode="record-missing", approve_live=True) as client:
        client.post(counted, content=b"{}", headers={"anthropic-beta": UTF8_E})
    assert json.loads(store.read_text())["request"]["headers"] == {"anthropic-beta": "tools-é"}
    with httpx2_client(store) as client, pytest.raises(WireFormatError) as caught:
        client.post(counted, content=b"{}", headers={"anthropic-beta": LATIN1_E})
    assert str(caught.value) == (
        "request.headers.anthropic-beta: not UTF-8 text (unexpected end of data at byte "
        "6); a kept header is stored as text, so this request can be neither recorded nor "
        "matched: send its value as UTF-8"
    )
    with intercept(store, mode="record-missing", approve_live=True):
        with pytest.raises(WireFormatError, match=r"request\.headers\.anthropic-beta: not UTF-8"):
            requests.post(counted, data=b"{}", headers={"anthropic-beta": LATIN1_E}, timeout=5)
        # requests sends a header given as text in Latin-1, as http.client does
        with pytest.raises(WireFormatError, match=r"request\.headers\.anthropic-beta: not UTF-8"):
            requests.post(counted, data=b"{}", headers={"anthropic-beta": "tools-é"}, timeout=5)
    assert Counted.received == [2]  # the recorded send alone
    with intercept(store):
        assert requests.post(counted, data=b"{}", headers={"anthropic-beta": UTF8_E}).ok


def test_a_header_requests_is_given_as_bytes_is_read_as_its_bytes(
    tmp_path: Path, counted: str
) -> None:
    # it was read as the text of its repr, "b'2023-06-01'"
    store = tmp_path / "version.jsonl"
    version = {"anthropic-version": "2023-06-01"}
    with httpx2_client(store, mode="record-missing", approve_live=True) as client:
        client.post(counted, content=b"{}", headers=version)
    with intercept(store):
        sent = {"anthropic-version": b"2023-06-01"}
        assert requests.post(counted, data=b"{}", headers=sent, timeout=5).ok


def test_a_header_requests_cannot_send_is_named(tmp_path: Path, counted: str) -> None:
    with (
        intercept(tmp_path / "euro.jsonl"),
        pytest.raises(WireFormatError) as caught,
    ):
        requests.post(counted, data=b"{}", headers={"anthropic-beta": "€"}, timeout=5)
    assert str(caught.value) == (
        "request.headers.anthropic-beta: '€' cannot be sent: its character '€' is not "
        "latin-1 text, which this client sends a header as"
    )


KEY = "ghp_" + "Zq8Xv7Wm2Kp9Rt4Ly6Hb8Nc3Jd5Fg1Ss0Aa9b"
"""A token of a family, which a message never shows."""


class _Labelled(http.server.BaseHTTPRequestHandler):
    """Answers with a header of the bytes its path names, beside the kept content type."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # as loopback.Handler
    IDS: ClassVar[dict[str, bytes]] = {
        "/utf8": b"x-request-id: req-\xc3\xa9",
        "/latin1": b"x-request-id: req-\xe9",
        "/unkept": b"x-note: caf\xc3\xa9",
        "/secret": b"x-request-id: req-" + KEY.encode() + b"\xc3\xa9",
    }

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", "2")
        self._headers_buffer.append(self.IDS[self.path] + b"\r\n")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""


@pytest.mark.parametrize(("path", "read"), [("/utf8", "'req-é'"), ("/latin1", "'req-é'")])
def test_a_kept_response_header_no_replay_could_hand_over_is_not_recorded(
    tmp_path: Path, path: str, read: str
) -> None:
    # it was recorded, and every replay of it refused: "expected one line of ASCII text"
    store = tmp_path / "id.jsonl"
    with (
        serving(_Labelled) as base,
        httpx2_client(store, mode="record-missing", approve_live=True) as client,
        pytest.raises(WireFormatError) as caught,
    ):
        client.post(f"{base}{path}", content=b"{}")
    assert str(caught.value) == (
        f"response.headers.x-request-id: expected one line of ASCII text, got {read}; replay "
        f"hands a client the kept headers as ASCII text, so the live answer to POST {path} "
        "was not recorded"
    )
    assert not store.exists()


def test_a_token_in_a_header_no_replay_could_hand_over_is_masked_in_the_error(
    tmp_path: Path,
) -> None:
    # the error quoted the first 60 characters of the value, most of the token
    with (
        serving(_Labelled) as base,
        httpx2_client(tmp_path / "id.jsonl", "record-missing", approve_live=True) as client,
        pytest.raises(WireFormatError) as caught,
    ):
        client.post(f"{base}/secret", content=b"{}")
    message = str(caught.value)
    assert message.startswith("response.headers.x-request-id: expected one line of ASCII")
    assert "<GitHub token #1, " in message and KEY[:12] not in message


def test_a_response_header_that_is_not_ascii_and_not_kept_is_handed_over_and_recorded(
    tmp_path: Path,
) -> None:
    # the recording client was handed the live headers as text, which httpx refuses when
    # not ASCII: the call failed with a UnicodeEncodeError
    store = tmp_path / "note.jsonl"
    with serving(_Labelled) as base:
        url = f"{base}/unkept"
        with httpx2_client(store, mode="record-missing", approve_live=True) as client:
            live = client.post(url, content=b"{}")
        assert (live.headers["x-note"], live.json()) == ("café", {})
        with httpx2_client(store) as client:
            assert client.post(url, content=b"{}").json() == {}


class _Encoded(http.server.BaseHTTPRequestHandler):
    """Answers with a body in the content coding its path names, one no client here undoes."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # as loopback.Handler

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        body = b"\x28\xb5\x2f\xfd" + bytes(range(64))  # opaque: a zstd frame's magic first
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-encoding", self.path.strip("/"))
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""


LEFT_ON = [
    pytest.param(
        "zstd",
        marks=pytest.mark.skipif(
            "zstd" in httpx2._decoders.SUPPORTED_DECODERS, reason="httpx2 decodes zstd here"
        ),
    ),
    "compress",
]


@pytest.mark.parametrize("coding", LEFT_ON)
def test_a_response_body_the_client_left_compressed_is_not_recorded(
    tmp_path: Path, coding: str
) -> None:
    # it was stored compressed, as base64, where the secret gate saw nothing
    store = tmp_path / "left.jsonl"
    with serving(_Encoded) as base:
        url = f"{base}/{coding}"
        with (
            httpx2_client(store, mode="record-missing", approve_live=True) as client,
            pytest.raises(WireFormatError) as caught,
        ):
            client.post(url, content=b"{}")
        decoded = ", ".join(sorted(set(httpx2._decoders.SUPPORTED_DECODERS) - {"identity"}))
        assert str(caught.value) == (
            f"response.body: content-encoding {coding!r} was left on the body by the client, "
            f"which decodes {decoded}; a body kept compressed is not searched for secrets, "
            f"so the live answer to POST /{coding} was not recorded"
        )
        with (
            intercept(store, mode="record-missing", approve_live=True),
            pytest.raises(WireFormatError, match=f"content-encoding {coding!r} was left"),
        ):
            requests.post(url, data=b"{}", timeout=5)
    assert not store.exists()


@pytest.mark.parametrize(
    ("coding", "decompress"), [("compress", True), ("gzip", False)], ids=["unknown", "raw"]
)
def test_an_aiohttp_body_left_compressed_is_not_recorded(
    tmp_path: Path, coding: str, decompress: bool
) -> None:
    store = tmp_path / "left.jsonl"

    async def send(url: str) -> None:
        async with aiohttp.ClientSession(auto_decompress=decompress) as session:
            await session.post(url, data=b"{}")

    with (
        serving(_Encoded) as base,
        intercept(store, mode="record-missing", approve_live=True),
        pytest.raises(WireFormatError) as caught,
    ):
        asyncio.run(send(f"{base}/{coding}"))
    assert str(caught.value) == (
        f"response.body: content-encoding {coding!r} was left on the body by the client, "
        "which decodes none; a body kept compressed is not searched for secrets, so the live "
        f"answer to POST /{coding} was not recorded"
    )
    assert not store.exists()


def test_a_text_body_labelled_with_a_coding_nothing_decodes_is_kept_as_sent(
    tmp_path: Path, counted: str
) -> None:
    # some clients label a plain body with its charset: text is read as itself
    store = tmp_path / "label.jsonl"
    with httpx2_client(store, mode="record-missing", approve_live=True) as client:
        client.post(counted, content=b'{"a": 1}', headers={"content-encoding": "utf-8"})
    assert json.loads(store.read_text())["request"]["body"] == {"a": 1}
    key = b'{"api_key":"sk-ant-api03-' + b"A" * 90 + b'"}'
    with (
        httpx2_client(store, mode="record-missing", approve_live=True) as client,
        pytest.raises(SecretInFixtureError),
    ):
        client.post(counted, content=key, headers={"content-encoding": "zstd"})


def test_a_gzip_body_cut_short_is_refused_not_stored_compressed(
    tmp_path: Path, counted: str
) -> None:
    # it was kept as sent: a key in its first part reached the disk compressed, unread
    store = tmp_path / "cut.jsonl"
    key = b'{"api_key":"sk-ant-api03-' + b"A" * 90 + b'"}'
    with (
        httpx2_client(store, mode="record-missing", approve_live=True) as client,
        pytest.raises(WireFormatError, match="its bytes are not gzip"),
    ):
        client.post(counted, content=gzip.compress(key)[:-8], headers={"content-encoding": "gzip"})
    assert (Counted.received, store.exists()) == ([], False)


@pytest.mark.parametrize("label", ["x-custom, gzip", "utf-8, gzip", "gzip, gzip"])
def test_a_gzip_body_labelled_with_one_more_coding_is_stored_decoded(
    tmp_path: Path, counted: str, label: str
) -> None:
    # the text the check read was gzip inflated, but the gzip bytes were stored: a key
    # inside reached the disk compressed, where no search saw it
    store = tmp_path / "label.jsonl"
    headers = {"content-encoding": label, **JSON}
    with httpx2_client(store, mode="record-missing", approve_live=True) as client:
        client.post(counted, content=gzip.compress(b'{"a": 1}'), headers=headers)
    assert json.loads(store.read_text())["request"]["body"] == {"a": 1}
    key = b'{"api_key":"sk-ant-api03-' + b"A" * 90 + b'"}'
    with (
        httpx2_client(store, mode="record-missing", approve_live=True) as client,
        pytest.raises(SecretInFixtureError),
    ):
        client.post(counted, content=gzip.compress(key), headers=headers)
    assert Counted.received == [len(gzip.compress(b'{"a": 1}'))]


@pytest.mark.parametrize(
    ("label", "sent"),
    [("gzip", b'{"a": 1}'), ("gzip, gzip", gzip.compress(b'{"a": 1}'))],
    ids=["not compressed", "compressed once of twice"],
)
def test_a_text_body_labelled_with_a_coding_it_is_not_in_misses_the_body_compressed(
    tmp_path: Path, counted: str, label: str, sent: bytes
) -> None:
    # read as the text it is, it replayed the answer to that text gzipped, which a server
    # reads otherwise: a green for a body no server could read as recorded
    store = tmp_path / "label.jsonl"
    zipped = {"content-encoding": "gzip", **JSON}
    with httpx2_client(store, mode="record-missing", approve_live=True) as client:
        client.post(counted, content=gzip.compress(b'{"a": 1}'), headers=zipped)
    with httpx2_client(store) as client:
        assert client.post(
            counted, content=gzip.compress(b'{"a": 1}', 1), headers=zipped
        ).is_success
        with pytest.raises(FixtureMismatchError) as caught:
            client.post(counted, content=sent, headers={"content-encoding": label, **JSON})
    assert caught.value.differences == ("headers.content-encoding: <missing> != 'gzip'",)


KEY_MESSAGE = b'{"content":[{"type":"text","text":"sk-ant-api03-' + b"A" * 90 + b'"}]}'


class _TwiceGzipped(http.server.BaseHTTPRequestHandler):
    """Answers with a body gzipped twice, each coding on a header line of its own."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # as loopback.Handler

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        body = gzip.compress(gzip.compress(KEY_MESSAGE))
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-encoding", "gzip")
        self.send_header("content-encoding", "gzip")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""


def test_an_aiohttp_body_named_gzip_on_two_header_lines_is_not_recorded(tmp_path: Path) -> None:
    # aiohttp undoes the coding of one line: the body, still gzipped once, was stored as
    # base64, the key inside it unread
    store = tmp_path / "twice.jsonl"

    async def send(url: str) -> bytes:
        async with aiohttp.ClientSession() as session, session.post(url, data=b"{}") as live:
            return await live.read()

    with (
        serving(_TwiceGzipped) as base,
        intercept(store, mode="record-missing", approve_live=True),
        pytest.raises(WireFormatError) as caught,
    ):
        asyncio.run(send(f"{base}/v1/messages"))
    assert str(caught.value) == (
        "response.body: content-encoding 'gzip' was left on the body by the client, which "
        "decodes none; a body kept compressed is not searched for secrets, so the live answer "
        "to POST /v1/messages was not recorded"
    )
    assert not store.exists()


class _Inflating(Handler):
    """Answers a POST, chunked or not, with the size of its body decoded, and keeps the
    content coding each came in."""

    received: ClassVar[list[tuple[str | None, bytes]]] = []

    def do_POST(self) -> None:
        if self.headers.get("transfer-encoding") == "chunked":
            parts = []
            while size := int(self.rfile.readline().strip(), 16):
                parts.append(self.rfile.read(size))
                self.rfile.readline()
            self.rfile.readline()
            body = b"".join(parts)
        else:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
        coding = self.headers.get("content-encoding")
        plain = zlib.decompress(body, 47 if coding == "gzip" else 15) if coding else body
        self.received.append((coding, plain))
        self.answer_json({"bytes": len(plain)})


@pytest.mark.parametrize(("compress", "coding"), [(True, "deflate"), ("gzip", "gzip")])
def test_an_aiohttp_upload_it_compresses_itself_is_recorded_and_replayed(
    tmp_path: Path, compress: bool | str, coding: str
) -> None:
    # aiohttp compresses the body as it sends it, after replaygate reads it plain under a
    # header naming the coding already: an upload that is not text was refused
    store = tmp_path / "upload.jsonl"
    upload = bytes(range(256)) * 4
    _Inflating.received.clear()

    async def send(url: str) -> Any:
        async with (
            aiohttp.ClientSession() as session,
            session.post(url, data=upload, compress=compress) as live,
        ):
            return await live.json()

    with serving(_Inflating) as base:
        url = f"{base}/v1/files"
        with intercept(store, mode="record-missing", approve_live=True):
            assert asyncio.run(send(url)) == {"bytes": 1024}
        with intercept(store):
            assert asyncio.run(send(url)) == {"bytes": 1024}
    assert _Inflating.received == [(coding, upload)]  # sent compressed, once
    request = json.loads(store.read_text())["request"]
    assert base64.b64decode(request["base64"]) == upload
