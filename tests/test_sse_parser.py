"""The incremental event-stream parser: events as they complete, the unterminated last one,
and bytes that are not UTF-8 text, refused alike wherever they stand."""

from __future__ import annotations

from pathlib import Path

import httpx2
import pytest

from replaygate.errors import WireFormatError
from replaygate.http import httpx2_client
from replaygate.http.sse import SSEEvent, SSEParser

BAD = b"data: \xff\n"  # no UTF-8 text holds this byte


def test_events_come_as_they_complete_and_the_tail_is_kept_unterminated() -> None:
    parser = SSEParser()
    assert list(parser.feed(b"event: a\r\ndata: 1\r\n\r\n: a comment\n\ndata: 2")) == [
        SSEEvent("1", "a")
    ]
    assert parser.pending == b"data: 2"
    assert parser.tail() == SSEEvent("2", terminated=False)


@pytest.mark.parametrize("end", [b"\n", b""], ids=["terminated", "unterminated"])
def test_an_event_that_is_not_utf8_is_named_by_its_index(end: bytes) -> None:
    parser = SSEParser()
    with pytest.raises(WireFormatError) as caught:
        list(parser.feed(b"data: 0\n\n: a comment\n\ndata: 1\n\n" + BAD + end))
        parser.tail()
    assert str(caught.value) == "stream event 2: not UTF-8 text (invalid start byte)"


@pytest.mark.parametrize(
    "body",
    [
        b"event: a\ndata: {}\n\n" + BAD + b"\nevent: b\ndata: {}\n\n",
        b"event: a\ndata: {}\n\n" + BAD,
    ],
    ids=["mid-stream", "unterminated-tail"],
)
def test_a_live_stream_that_is_not_utf8_is_refused_and_not_recorded(
    tmp_path: Path, body: bytes
) -> None:
    store = tmp_path / "store.jsonl"
    store.write_bytes(b"")
    headers = {"content-type": "text/event-stream"}
    live = httpx2.MockTransport(lambda _: httpx2.Response(200, headers=headers, content=body))
    client = httpx2_client(store, "record-missing", approve_live=True, transport=live)
    url = "https://api.anthropic.com/v1/messages"
    with (
        client,
        pytest.raises(WireFormatError, match="not recorded") as caught,
        client.stream("POST", url, json={}) as response,
    ):
        for _ in response.iter_bytes():
            pass
    assert str(caught.value).startswith("stream event 1: not UTF-8 text (invalid start byte)")
    assert store.read_bytes() == b""
