"""A Gemini stream sent as one JSON array (``:streamGenerateContent`` without ``alt=sse``,
as a ``curl`` command or a client of another language asks for it) is read as the chunks
of a stream: its text is redacted and scanned for secrets joined across the chunks, and
each chunk is trimmed, as the chunks of its ``alt=sse`` form are."""

from __future__ import annotations

from typing import Any

import pytest

from replaygate.errors import SecretInFixtureError
from replaygate.sanitize import SanitizeConfig, Sanitizer, refuse_secrets
from replaygate.sanitize.secret_scan import SecretFinding, find_fixture_secrets

GEMINI = "google.generate_content"
REQUEST = {
    "method": "POST",
    "path": "/v1beta/models/gemini-2.5-flash:streamGenerateContent",
    "headers": {},
    "body": {"contents": [{"role": "user", "parts": [{"text": "hello"}]}]},
}
GITHUB = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"


def _array(*texts: str) -> dict[str, Any]:
    """A recorded answer holding ``texts`` as the chunks of one JSON array."""
    chunks = [
        {
            "candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "index": 0}],
            "modelVersion": "gemini-2.5-flash",
        }
        for text in texts
    ]
    return {"status": 200, "headers": {"content-type": "application/json"}, "body": chunks}


def _text(response: dict[str, Any]) -> str:
    chunks = response["body"]
    return "".join(p["text"] for c in chunks for p in c["candidates"][0]["content"]["parts"])


def test_an_address_split_across_the_chunks_is_redacted_whole_and_each_chunk_trimmed() -> None:
    config = SanitizeConfig(personal_data=("email",), trim={GEMINI: ("candidates",)})
    recorded = _array("mail alice.long", "name@acmecorp.io ", "today")
    stored = Sanitizer(config).recorded(recorded, key="k", interface=GEMINI)
    text = _text(stored)
    assert "acmecorp" not in text and text.startswith("mail user-") and text.endswith(" today")
    assert all("modelVersion" not in chunk for chunk in stored["body"])
    assert _text(recorded) == "mail alice.longname@acmecorp.io today"  # left as it was


def test_a_key_split_across_the_chunks_is_refused_and_found_by_verify() -> None:
    response = _array("your token is ", GITHUB[:12], GITHUB[12:] + " keep it")
    found = r"GitHub token found at response\.body\[0\.\.2\]"
    with pytest.raises(SecretInFixtureError, match=found):
        refuse_secrets(REQUEST, response)
    stored = {"key": "k", "request": REQUEST, "response": response}
    assert find_fixture_secrets(stored) == [SecretFinding("response.body[0..2]", "GitHub token")]
    other = {**REQUEST, "path": "/v1/items"}  # a list of records of another API: read one by one
    assert find_fixture_secrets({"key": "k", "request": other, "response": response}) == []
