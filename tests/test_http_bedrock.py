"""Amazon Bedrock (``anthropic.AnthropicBedrock``) at the HTTP layer: a call signed with
SigV4 records without its signature, and a streamed answer, an AWS event stream
(``application/vnd.amazon.eventstream``, binary, not server-sent events), records as
readable events and replays as the messages the SDK's reader takes.

The stream was kept as a base64 body, refused as a high-entropy token, so no streamed
Bedrock call could be recorded; and a client for ``bedrock-runtime.<region>.amazonaws.com``
recording inside ``intercept(..., live_origin=...)`` was sent to the real host, which the
block refused.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import struct
from pathlib import Path
from typing import Any, ClassVar

import httpx2
import pytest

from loopback import Handler, serving
from replaygate.errors import WireFormatError
from replaygate.http import intercept
from replaygate.http.aws_events import AWSEventParser
from replaygate.hygiene.verify import verify_store

URL = (
    "https://bedrock-runtime.us-east-1.amazonaws.com"
    "/model/anthropic.claude-sonnet-4-5-20250929-v1:0/invoke-with-response-stream"
)
ASKED = {
    "anthropic_version": "bedrock-2023-05-31",
    "max_tokens": 16,
    "messages": [{"role": "user", "content": "hi"}],
}
EVENTS = [
    {"type": "message_start", "message": {"id": "msg_bdrk_1", "content": []}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "hi"}},
    {"type": "message_stop"},
]


def frame(headers: dict[str, str], payload: bytes) -> bytes:
    """One message of an AWS event stream, framed as the format says (string headers)."""
    block = b"".join(
        bytes([len(k)]) + k.encode() + b"\x07" + struct.pack("!H", len(v)) + v.encode()
        for k, v in headers.items()
    )
    prelude = struct.pack("!II", 16 + len(block) + len(payload), len(block))
    head = prelude + struct.pack("!I", binascii.crc32(prelude)) + block + payload
    return head + struct.pack("!I", binascii.crc32(head))


def chunk(event: dict[str, Any], padding: str = "") -> bytes:
    """A ``chunk`` event carrying ``event`` as Bedrock sends it (``p`` its padding)."""
    carried: dict[str, str] = {"bytes": base64.b64encode(json.dumps(event).encode()).decode()}
    if padding:
        carried["p"] = padding
    payload = json.dumps(carried, separators=(",", ":")).encode()
    kind = {":event-type": "chunk", ":content-type": "application/json", ":message-type": "event"}
    return frame(kind, payload)


THROTTLED = frame(
    {
        ":exception-type": "throttlingException",
        ":content-type": "application/json",
        ":message-type": "exception",
    },
    b'{"message":"Too many requests, please wait before trying again."}',
)


class Bedrock(Handler):
    """Answers with the AWS event stream :attr:`BODY`; keeps each request's headers."""

    BODY: ClassVar[bytes] = b""
    seen: ClassVar[list[dict[str, str]]] = []

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        Bedrock.seen.append(dict(self.headers))
        self.answer_bytes(self.BODY, "application/vnd.amazon.eventstream")


def signed(day: str, key: str) -> dict[str, str]:
    """Headers shaped as SigV4 signs a request (date, session token, signature)."""
    return {
        "authorization": f"AWS4-HMAC-SHA256 Credential={key}/{day[:8]}/us-east-1/bedrock/"
        "aws4_request, SignedHeaders=host;x-amz-date;x-amz-security-token, Signature="
        + binascii.hexlify(day.encode() * 4).decode()[:64],
        "x-amz-date": day,
        "x-amz-security-token": "IQoJb3JpZ2luX2VjEXAMPLEsessionTOKEN" + key,
        "content-type": "application/json",
    }


def send(day: str, key: str, url: str = URL) -> bytes:
    """The streamed body of the call, as a client reads it."""
    with (
        httpx2.Client() as client,
        client.stream("POST", url, json=ASKED, headers=signed(day, key)) as response,
    ):
        assert response.headers["content-type"] == "application/vnd.amazon.eventstream"
        return response.read()


def recorded(store: Path, body: bytes, url: str = URL) -> bytes:
    """Record the call answered ``body`` (through ``live_origin``, as addressed)."""
    Bedrock.BODY, Bedrock.seen = body, []
    with (
        serving(Bedrock) as origin,
        intercept(store, "record-missing", approve_live=True, live_origin=origin),
    ):
        live = send("20261206T101500Z", "AKIAIOSFODNN7EXAMPLE", url)
    assert len(Bedrock.seen) == 1 and "x-amz-security-token" in Bedrock.seen[0]
    return live


def test_a_signed_stream_records_as_events_and_replays_a_day_later(tmp_path: Path) -> None:
    store = tmp_path / "bedrock.jsonl"
    body = b"".join(map(chunk, EVENTS)) + THROTTLED
    assert recorded(store, body) == body
    text = store.read_text()
    for secret in ("AKIAIOSFODNN7EXAMPLE", "Signature", "EXAMPLEsession", "x-amz-date"):
        assert secret not in text
    response = json.loads(text)["response"]
    assert [event["event"] for event in response["events"]] == ["chunk"] * 3 + [
        "throttlingException"
    ]
    assert json.loads(response["events"][1]["data"]) == EVENTS[1]
    with intercept(store):  # another day, key and signature: the same request
        assert send("20261207T080000Z", "AKIAI44QH8DHBEXAMPLE") == body


def test_the_padding_is_not_kept_and_botocore_reads_the_replay(tmp_path: Path) -> None:
    eventstream = pytest.importorskip(
        "botocore.eventstream", reason="botocore (anthropic[bedrock]) is not installed"
    )
    store = tmp_path / "bedrock.jsonl"
    recorded(
        store, b"".join(chunk(event, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ") for event in EVENTS)
    )
    assert "abcdefghijklmnop" not in store.read_text()
    with intercept(store):
        replay = send("20261207T080000Z", "AKIAI44QH8DHBEXAMPLE")
    reader = eventstream.EventStreamBuffer()
    reader.add_data(replay)
    carried = [json.loads(message.payload)["bytes"] for message in reader]
    assert [json.loads(base64.b64decode(b)) for b in carried] == EVENTS


def converse_event(name: str, payload: dict[str, Any]) -> bytes:
    """An event of the Converse API's stream: its JSON payload, padded with ``p``."""
    padded = json.dumps({**payload, "p": "abcdefghijklmnopqrstuvwxyz"}).encode()
    return frame(
        {":event-type": name, ":content-type": "application/json", ":message-type": "event"},
        padded,
    )


CONVERSE = [
    ("messageStart", {"role": "assistant"}),
    ("contentBlockDelta", {"delta": {"text": "hi"}, "contentBlockIndex": 0}),
    ("contentBlockStop", {"contentBlockIndex": 0}),
    ("messageStop", {"stopReason": "end_turn"}),
    ("metadata", {"usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2}}),
]


def test_a_converse_stream_records_its_events_by_type_and_replays_a_day_later(
    tmp_path: Path,
) -> None:
    # LiteLLM's bedrock/ models stream from /converse-stream, whose events are no chunks:
    # recording one stopped with a WireFormatError on its first event
    store = tmp_path / "converse.jsonl"
    url = URL.replace("invoke-with-response-stream", "converse-stream")
    recorded(store, b"".join(converse_event(n, p) for n, p in CONVERSE), url)
    text = store.read_text()
    assert "abcdefghijklmnop" not in text and "Signature" not in text
    events = json.loads(text)["response"]["events"]
    assert [(e["event"], json.loads(e["data"])) for e in events] == CONVERSE
    with intercept(store):
        replay = send("20261207T080000Z", "AKIAI44QH8DHBEXAMPLE", url)
    parser = AWSEventParser()
    assert [(e.event, json.loads(e.data)) for e in parser.feed(replay)] == CONVERSE


def test_a_damaged_message_is_refused_naming_it_and_nothing_is_written(tmp_path: Path) -> None:
    store = tmp_path / "bedrock.jsonl"
    store.write_text("")
    damaged = bytearray(chunk(EVENTS[1]))
    damaged[-1] ^= 0xFF
    with pytest.raises(WireFormatError, match=r"stream event 1: the checksum of the message"):
        recorded(store, chunk(EVENTS[0]) + bytes(damaged))
    assert store.read_text() == ""


def read_as_the_sdk(response: httpx2.Response) -> None:
    """Read each event's data as JSON, closing the response as that fails (as the SDK)."""
    parser, parts = AWSEventParser(), response.iter_bytes()
    try:
        for part in parts:
            for event in parser.feed(part):
                json.loads(event.data)
    except json.JSONDecodeError:
        response.close()
        raise


def test_an_event_a_hand_edit_broke_is_named_as_the_client_fails_to_read_it(
    tmp_path: Path,
) -> None:
    store = tmp_path / "bedrock.jsonl"
    recorded(store, b"".join(map(chunk, EVENTS)))
    store.write_text(store.read_text().replace('\\"text\\": \\"hi\\"', '\\"text\\": hi\\"'))
    with (
        intercept(store),
        httpx2.Client() as client,
        client.stream(
            "POST", URL, json=ASKED, headers=signed("20261207T080000Z", "AKIA0")
        ) as response,
        pytest.raises(json.JSONDecodeError) as caught,
    ):
        read_as_the_sdk(response)
    (note,) = caught.value.__notes__
    assert re.match(r"replayed from .*bedrock.jsonl:1: response.events\[1\].data is not JSON", note)
    # verify said "0 problems" of it: the stream was read as plain HTTP's
    count, problems = verify_store(store)
    assert count == 1 and [(p.file, p.line) for p in problems] == [(str(store), 1)]
    assert "events[1].data: not JSON" in problems[0].reason


def prelude(total: int) -> bytes:
    """A prelude of a message of ``total`` bytes and no headers, its checksum right."""
    lengths = struct.pack("!II", total, 0)
    return lengths + struct.pack("!I", binascii.crc32(lengths))


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        (frame({":message-type": "exception"}, b"{}"), "an exception whose :exception-type is ''"),
        (
            frame({":message-type": "exception", ":exception-type": "chunk"}, b"{}"),
            "an exception whose :exception-type is 'chunk'",
        ),
        (prelude(5) + bytes(8), "a message of 5 bytes cannot hold its prelude"),
        (b"<html><body>Service Unavailable</body></html>", "the checksum of its prelude"),
    ],
    ids=["exception-unnamed", "exception-named-chunk", "too-short", "no-message-at-all"],
)
def test_a_message_no_replay_could_write_back_is_refused(message: bytes, reason: str) -> None:
    """An exception kept under no name or as ``chunk`` would replay as another message
    (or not at all); a length too short for a prelude is named as such, and bytes that
    are no message (a proxy's page) are refused as they come, not awaited as the rest of
    a message of the length their first bytes would say."""
    parser = AWSEventParser()
    with pytest.raises(WireFormatError, match=f"stream event 1: {re.escape(reason)}"):
        list(parser.feed(chunk(EVENTS[0]) + message))
