"""An answer's base64 data (an embedding asked for as ``base64``, as the openai SDK asks by
default; an image's ``b64_json``) holds no words: a text rule matching a run of its
characters (``[0-9]{3,}``, an order number) rewrote it, the recording passed, and its
replay failed in the SDK's decoding (``Invalid base64-encoded string``, ``buffer size must
be a multiple of element size``). The rules leave such data as it came."""

from __future__ import annotations

import base64
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
