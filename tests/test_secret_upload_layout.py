"""A form field of a multipart upload is text, whatever JSON it holds: shaped like a line of
a batch's results, it gets none of their exemptions (law 4). A JSON file uploaded, on one
line or many: tests/test_secret_held_json.py."""

from __future__ import annotations

import json
from typing import Any

import pytest

from replaygate.sanitize.secret_scan import find_fixture_secrets
from test_secret_held_json import FREE_KEY


def _transcription(prompt: str) -> dict[str, Any]:
    """A fixture of a transcription asked with ``prompt`` beside a text file."""
    b = "----b1"
    text = (
        f'--{b}\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper-1\r\n'
        f'--{b}\r\nContent-Disposition: form-data; name="prompt"\r\n\r\n{prompt}\r\n'
        f'--{b}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n'
        f"Content-Type: text/plain\r\n\r\nhello\r\n--{b}--\r\n"
    )
    request = {"method": "POST", "path": "/v1/audio/transcriptions", "text": text}
    return {"request": request, "response": {"status": 200, "body": {"text": "hi"}}}


@pytest.mark.parametrize("name", ["embedding", "b64_json"])
def test_a_form_field_shaped_like_a_batch_result_holds_no_encoded_data(name: str) -> None:
    held = json.dumps({"custom_id": "a", "response": {"body": {"data": [{name: FREE_KEY}]}}})
    found = find_fixture_secrets(_transcription(held))
    assert [finding.detector for finding in found] == ["high-entropy token"]
