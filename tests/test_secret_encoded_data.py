"""Only what is really encoded data skips the free-standing check (law 4): a random key
in a plain ``data:`` stream of one event, in any field named ``data`` or ``signature``,
or in text that merely starts with ``data:`` is refused."""

from __future__ import annotations

import base64
import json
import math
import random
import struct
from typing import Any

import pytest

from replaygate.sanitize.secret_scan import find_fixture_secrets

KEY = "q8Zr2LxV9mT4wK7pB1nC6dH3Yw5Ej0Fs"
FREE = "high-entropy token"


def _noise(size: int) -> bytes:
    """``size`` bytes of noise, the same in every run: random bytes now and then spell a
    word (``key``, ``auth``) that names the finding otherwise."""
    return random.Random(size).randbytes(size)


BLOB = base64.b64encode(_noise(96)).decode()


def _found(request: dict[str, Any], response: dict[str, Any]) -> list[tuple[str, str]]:
    fixture = {"request": request, "response": response}
    return [(f.path, f.detector) for f in find_fixture_secrets(fixture)]


def _events(*data: str) -> dict[str, Any]:
    return {"status": 200, "events": [{"event": "message", "data": d} for d in data]}


@pytest.mark.parametrize(
    ("events", "where"),
    [
        ((f"your new key is {KEY}",), "[0]"),
        ((f"your new key is {KEY}", "[DONE]"), "[0]"),
        ((f"your new key is {KEY}", "done"), "[0..1]"),
        ((json.dumps(KEY),), "[0]"),
    ],
)
def test_a_plain_stream_of_one_event_is_refused_as_one_of_two(
    events: tuple[str, ...], where: str
) -> None:
    assert _found({}, _events(*events)) == [(f"response.events{where}.data", FREE)]


@pytest.mark.parametrize(
    ("sent", "path"),
    [
        ({"metadata": {"data": KEY}}, "request.metadata.data"),
        ({"payload": {"signature": KEY}}, "request.payload.signature"),
        (
            {"messages": [{"role": "user", "content": f"data: {KEY}"}]},
            "request.messages[0].content",
        ),
        (
            {"messages": [{"role": "user", "content": f"data:{KEY} is it"}]},
            "request.messages[0].content",
        ),
        ({"args": json.dumps({"data": KEY})}, "request.args"),
    ],
)
def test_data_and_signature_fields_elsewhere_are_text(sent: dict[str, Any], path: str) -> None:
    assert _found(sent, {"status": 200}) == [(path, FREE)]


def test_images_audio_signatures_and_data_urls_stay_unreported() -> None:
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": BLOB}}
    thinking = {"type": "thinking", "thinking": "Let me see.", "signature": BLOB}
    request = {
        "messages": [
            {"role": "user", "content": [image, {"type": "text", "text": "what is it?"}]},
            {
                "role": "assistant",
                "content": [thinking, {"type": "redacted_thinking", "data": BLOB}],
            },
            {
                "role": "user",
                "content": [
                    {"type": "input_audio", "input_audio": {"data": BLOB, "format": "wav"}}
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{BLOB}"}}
                ],
            },
        ],
        "contents": [{"parts": [{"inline_data": {"mime_type": "image/png", "data": BLOB}}]}],
    }
    delta = {
        "type": "content_block_delta",
        "index": 0,
        "delta": {"type": "signature_delta", "signature": BLOB},
    }
    stream = _events(json.dumps({"type": "message_start"}), json.dumps(delta))
    assert _found(request, stream) == []
    audio = {"message": {"audio": {"id": "audio_1", "data": BLOB, "transcript": "Hello."}}}
    assert _found(request, {"status": 200, "body": {"choices": [audio]}}) == []


def _file(start: bytes) -> str:
    return base64.b64encode(start + bytes(range(256)) * 2 + _noise(96)).decode()


@pytest.mark.parametrize(
    "start",
    [
        b"\x89PNG\r\n\x1a\n",
        b"\xff\xd8\xff\xe0",
        b"GIF89a",
        b"RIFF\x00\x10\x00\x00WEBP",
        b"%PDF-1.7\n",
    ],
    ids=["png", "jpeg", "gif", "webp", "pdf"],
)
def test_a_file_s_base64_in_a_tool_s_text_result_is_no_token(start: bytes) -> None:
    """A screenshot or a PDF a tool returns as base64 in its text result (a Chat
    Completions tool message holds text only) was refused as a high-entropy token, every
    time: the run of its base64 is read as a data URL's is, by the token families and once
    decoded. A key beside it is still refused."""
    data = _file(start)
    results = [data, json.dumps({"screenshot": data, "width": 640}), f"Saved.\n{data}\n"]
    request = {
        "messages": [{"role": "tool", "tool_call_id": "call_1", "content": r} for r in results]
    }
    assert _found(request, {"status": 200}) == []
    beside = {"messages": [{"role": "tool", "tool_call_id": "call_1", "content": f"{data} {KEY}"}]}
    assert _found(beside, {"status": 200}) == [("request.messages[0].content", FREE)]
    unknown = {"messages": [{"role": "tool", "content": _file(b"\x00\x01\x02\x03")}]}
    assert _found(unknown, {"status": 200}) == [("request.messages[0].content", FREE)]


def test_a_vector_of_numbers_sent_as_base64_is_no_token() -> None:
    """An embedding sent as base64 to a vector database or a search service (an upsert, a
    query vector), in a field of any name or a line of a file, was refused as a
    high-entropy token, and no known_safe entry let it through: it is read as a file's
    base64 is. Random bytes as long (a key), or a key beside it, are still refused."""
    vector = struct.pack("<256f", *(math.sin(k) / 16 for k in range(256)))
    data = base64.b64encode(vector).decode()
    sent = {"points": [{"id": "a", "vector": data}], "file": f"id,vector\n1,{data}\n"}
    assert _found(sent, {"status": 200}) == []
    for value in (base64.b64encode(_noise(1024)).decode(), f"{data} {KEY}"):
        found = _found({"points": [{"id": "a", "vector": value}]}, {"status": 200})
        assert found == [("request.points[0].vector", FREE)]


def test_a_plain_text_document_s_data_is_read_as_text() -> None:
    """An Anthropic plain-text document (``"source": {"type": "text", "media_type":
    "text/plain", "data": ...}``, the form citations are asked with) was taken for encoded
    data by its ``media_type``, and a key written in it was stored, where the same words in
    a text block are refused."""
    source = {"type": "text", "media_type": "text/plain", "data": f"The staging key is {KEY}."}
    document = {"type": "document", "source": source, "citations": {"enabled": True}}
    request = {"messages": [{"role": "user", "content": [document]}]}
    assert _found(request, {"status": 200}) == [
        ("request.messages[0].content[0].source.data", FREE)
    ]


def test_a_converse_reasoning_block_s_signature_and_redacted_thinking_stay_unreported() -> None:
    # LiteLLM's bedrock/ models with thinking: recording refused the signature of the
    # Converse answer, its stream's delta, and the request sending it back
    reasoning = {"reasoningContent": {"reasoningText": {"text": "Let me see.", "signature": BLOB}}}
    # Claude's redacted thought (base64 itself) wrapped as a blob: its decoding was refused
    wrapped = base64.b64encode(BLOB.encode()).decode()
    redacted = {"reasoningContent": {"redactedContent": wrapped}}
    request = {"messages": [{"role": "assistant", "content": [reasoning, redacted]}]}
    body = {"output": {"message": {"role": "assistant", "content": [reasoning, redacted]}}}
    assert _found(request, {"status": 200, "body": body}) == []
    delta = {"delta": {"reasoningContent": {"signature": BLOB}}, "contentBlockIndex": 0}
    stream = {"status": 200, "events": [{"event": "contentBlockDelta", "data": json.dumps(delta)}]}
    assert _found({}, stream) == []
    family = "sk-ant-api03-" + KEY * 3  # a key of a family inside it is still refused
    inside = {"reasoningContent": {"redactedContent": base64.b64encode(family.encode()).decode()}}
    assert _found({"messages": [{"content": [inside]}]}, {"status": 200}) != []
    elsewhere = {"reasoningText": {"signature": KEY}}
    assert _found(elsewhere, {"status": 200}) == [("request.reasoningText.signature", FREE)]
