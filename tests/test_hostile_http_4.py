"""Hostile wire bytes at the HTTP seam: an event stream that begins with a byte-order mark.
Real HTTP on loopback, through the real clients."""

from __future__ import annotations

import http.server
import json
import time
from pathlib import Path
from typing import Any, ClassVar

import httpx2
import pytest

from loopback import serving
from replaygate.errors import WireFormatError
from replaygate.http import httpx2_client, intercept
from replaygate.http.sse import SSEEvent, SSEParser

BOM = b"\xef\xbb\xbf"


class _Stream(http.server.BaseHTTPRequestHandler):
    """An event stream in the chunks its path names."""

    protocol_version = "HTTP/1.1"
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

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        chunks = self.CHUNKS[self.path]
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(sum(map(len, chunks))))
        self.end_headers()
        for chunk in chunks:
            self.wfile.write(chunk)
            self.wfile.flush()
            time.sleep(0.01)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""


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
