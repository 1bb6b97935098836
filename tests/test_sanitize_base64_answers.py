"""An answer's base64 data (an embedding asked for as ``base64``, as the openai SDK asks by
default; an image's ``b64_json``) holds no words: a text rule matching a run of its
characters (``[0-9]{3,}``, an order number) rewrote it, the recording passed, and its
replay failed in the SDK's decoding (``Invalid base64-encoded string``, ``buffer size must
be a multiple of element size``). The rules leave such data as it came."""

from __future__ import annotations

import base64
import json
import struct

from replaygate.sanitize import RedactionRule, SanitizeConfig, Sanitizer

RULES = SanitizeConfig(rules=(RedactionRule(pattern=r"[0-9]{3,}", replace="N"),))


def test_an_answer_s_base64_data_is_stored_as_it_came() -> None:
    floats = struct.pack("<8f", *(0.1234 * k for k in range(8)))
    data = base64.b64encode(floats * 64).decode()
    assert any(run.isdigit() for run in (data[i : i + 3] for i in range(len(data))))
    body = {
        "object": "list",
        "data": [{"object": "embedding", "index": 0, "embedding": data}],
        "model": "text-embedding-3-small 123",
    }
    image = {"created": 0, "data": [{"b64_json": data, "revised_prompt": "a cat, 2024"}]}
    stored = Sanitizer(RULES).recorded(
        {"status": 200, "headers": {}, "body": body}, key="k", interface="http"
    )
    assert stored["body"]["data"][0]["embedding"] == data
    assert stored["body"]["model"] == "text-embedding-3-small N"  # its words still are
    pictured = Sanitizer(RULES).recorded(
        {"status": 200, "headers": {}, "body": image}, key="k", interface="http"
    )
    assert pictured["body"]["data"][0] == {"b64_json": data, "revised_prompt": "a cat, N"}


def _held(data: str) -> list[tuple[str, dict[str, object], list[str | int]]]:
    """Answers holding ``data`` as encoded data, with the interface and the path to it."""
    return [
        (
            "openai.responses",
            {"output": [{"type": "image_generation_call", "id": "ig_1", "result": data}]},
            ["output", 0, "result"],
        ),
        (
            "google.generate_content",
            {
                "candidates": [
                    {
                        "content": {
                            "parts": [{"inlineData": {"mimeType": "image/png", "data": data}}]
                        }
                    }
                ]
            },
            ["candidates", 0, "content", "parts", 0, "inlineData", "data"],
        ),
        (
            "anthropic.messages",
            {"content": [{"type": "thinking", "thinking": "ask 123", "signature": data}]},
            ["content", 0, "signature"],
        ),
        (
            "openai.responses",
            {"output": [{"type": "reasoning", "encrypted_content": data}]},
            ["output", 0, "encrypted_content"],
        ),
    ]


def _at(value: object, path: list[str | int]) -> object:
    for step in path:
        value = value[step]  # type: ignore[index]
    return value


def test_a_generated_image_a_signature_and_encrypted_reasoning_are_stored_as_they_came() -> None:
    """A Responses image generation call's ``result``, a Gemini ``inlineData`` image, a
    thinking block's ``signature`` and ``encrypted_content`` were rewritten by a rule
    matching a run of their characters: the image no longer decoded at replay, and the
    signature was refused by the API when a later turn sent it back."""
    data = base64.b64encode(bytes(range(256)) * 4).decode()
    assert "123" not in data
    data = data[:40] + "123" + data[43:]
    sanitizer = Sanitizer(RULES)
    for interface, body, path in _held(data):
        record = {"status": 200, "headers": {}, "body": body}
        assert _at(sanitizer.recorded(record, key="k", interface=interface)["body"], path) == data
        event = {"event": "x", "data": json.dumps(body)}
        streamed = sanitizer.recorded(
            {"status": 200, "headers": {}, "events": [event]}, key="k", interface=interface
        )
        assert _at(json.loads(streamed["events"][0]["data"]), path) == data
    thinking = sanitizer.recorded(
        {"status": 200, "headers": {}, "body": _held(data)[2][1]},
        key="k",
        interface="anthropic.messages",
    )
    assert thinking["body"]["content"][0]["thinking"] == "ask N"  # its words still are


def test_streamed_partial_images_and_signature_deltas_are_stored_as_they_came() -> None:
    data = base64.b64encode(bytes(range(256))).decode()
    data = data[:40] + "4567" + data[44:]
    events = [
        {"type": "response.image_generation_call.partial_image", "partial_image_b64": data},
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "signature_delta", "signature": data},
        },
    ]
    recorded = {
        "status": 200,
        "headers": {},
        "events": [{"event": e["type"], "data": json.dumps(e)} for e in events],
    }
    stored = Sanitizer(RULES).recorded(recorded, key="k", interface="http")
    assert [json.loads(e["data"]) for e in stored["events"]] == events


def test_a_batch_s_results_file_keeps_its_json_and_embeddings() -> None:
    """A batch's results file (``files.content``, JSON lines kept as text) went through
    the rules as plain text: ``"status_code": 200`` became ``"status_code": N``, which no
    JSON reader takes, and the digits of its base64 embeddings were rewritten (the secret
    scan then refused the line as a high-entropy token). Its string values are rewritten
    as a JSON body's are, and nothing else."""
    data = base64.b64encode(struct.pack("<64f", *(0.0123 * k for k in range(64)))).decode()
    data = data[:40] + "123" + data[43:]
    line = {
        "custom_id": "order 4567",
        "response": {
            "status_code": 200,
            "body": {"data": [{"object": "embedding", "index": 0, "embedding": data}]},
        },
    }
    text = json.dumps(line) + "\nnot json 890\n" + json.dumps(line) + "\n"
    stored = Sanitizer(RULES).recorded(
        {"status": 200, "headers": {}, "text": text}, key="k", interface="http"
    )["text"]
    first, plain, last = stored.splitlines()
    assert plain == "not json N"
    assert json.loads(first) == json.loads(last) == {**line, "custom_id": "order N"}
    assert first == json.dumps(line).replace("order 4567", "order N")
