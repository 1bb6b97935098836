"""A file uploaded in a multipart form is read by the same rules whatever its layout: a
JSON file written on one line (as ``json.dumps`` writes it) holds no encoded data by its
field names, as the same file pretty-printed does not; a form field beside it is text,
whatever JSON it holds (law 4)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from replaygate.errors import SecretInFixtureError
from replaygate.sanitize.secret_scan import find_fixture_secrets
from test_secret_held_json import FREE_KEY, REASONED, _upload_json


@pytest.mark.parametrize(
    "held",
    [
        REASONED,
        {"notes": [{"encrypted_content": FREE_KEY}]},
        {"type": "thinking", "thinking": "x", "signature": FREE_KEY},
    ],
    ids=["reasoning item", "encrypted_content", "thinking block"],
)
def test_a_json_file_uploaded_on_one_line_holds_no_encoded_data_by_its_field_names(
    tmp_path: Path, held: dict[str, Any]
) -> None:
    store = tmp_path / "upload.jsonl"
    with pytest.raises(SecretInFixtureError, match=r"high-entropy token found at request\.text"):
        _upload_json(store, "record-missing", json.dumps(held))
    assert not store.exists()


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
