"""A hexadecimal credential under a name ending in ``key`` (``private_key``,
``subscription-key``, ``encryptionKey``) is refused (law 4); other names with ``key`` in
them are not credential names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from replaygate import Fixture
from replaygate.fixtures.fixture import make_meta
from replaygate.hygiene.verify import verify_store
from replaygate.sanitize.secret_lines import clean_lines
from replaygate.sanitize.secret_scan import find_fixture_secrets, find_secrets
from wire_shapes import EMPTY_ANSWER as RESPONSE

PRIVATE = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
ACCESS = "9f1c2b7e4a6d8035b1e2c4f6a8d0e2b4"
META = make_meta("anthropic.messages", "2023-06-01", "hand")
CREDENTIAL_NAMES = [
    "key",
    "KEY",
    "private_key",
    "access-key",
    "subscription-key",
    "encryptionKey",
    "PRIVATE_KEY",
    "x-functions-key",
    "license_key",
]
OTHER_NAMES = ["keys", "keyboard", "monkey", "key_id", "idempotency_key", "prompt_cache_key"]


def _detectors(value: object) -> list[str]:
    return [f.detector for f in find_secrets(value)]


@pytest.mark.parametrize("name", CREDENTIAL_NAMES)
def test_a_hex_value_under_a_key_name_is_found_as_a_field_and_in_text(name: str) -> None:
    context = ["high-entropy value in an auth-like field"]
    assert _detectors({"args": {name: ACCESS}}) == context
    assert _detectors({"args": {name: PRIVATE}}) == context
    assert _detectors({"text": f"sign with {name}={PRIVATE} now"}) == context
    assert _detectors({"url": f"https://h.example/v1?{name}={ACCESS}&x=1"}) == context
    assert _detectors({"arguments": json.dumps({name: ACCESS})}) == context


@pytest.mark.parametrize("name", OTHER_NAMES)
def test_other_names_holding_key_are_no_credential_context(name: str) -> None:
    assert _detectors({"args": {name: ACCESS}}) == []
    assert _detectors({"text": f"{name}={PRIVATE}"}) == []


def test_fixture_keys_and_token_counts_stay_unreported() -> None:
    assert (
        _detectors({"key": "81558c570bce", "max_tokens": 64, "entries": {"key": "0a1b2c3d4e5f"}})
        == []
    )


def test_verify_reports_a_private_key_in_tool_arguments(tmp_path: Path) -> None:
    arguments = json.dumps({"private_key": "0x" + PRIVATE, "access_key": ACCESS})
    content = [{"type": "tool_use", "id": "toolu_1", "name": "sign", "input": {"a": arguments}}]
    request = {
        "model": "m",
        "max_tokens": 8,
        "messages": [{"role": "assistant", "content": content}],
    }
    line = Fixture.create(request, [RESPONSE], META).to_line()
    assert clean_lines([line]) in ([False], None)
    store = tmp_path / "s.jsonl"
    store.write_bytes(line)  # written by hand
    _, problems = verify_store(store)
    where = "request.messages[0].content[0].input.a"
    assert [str(p) for p in problems] == [
        f"{store}:1: high-entropy value in an auth-like field at {where}"
    ]


def test_a_fixtures_own_long_key_is_no_credential() -> None:
    digest = "265288aeb827cfc9dec2c314a1ec0f5a0bcc2bd3a294c18da183" + "0a1b2c3d4e5f"
    assert find_fixture_secrets({"key": digest, "request": {"model": "m"}}) == []
    found = find_fixture_secrets({"key": digest, "request": {"key": digest}})
    assert [(f.path, f.detector) for f in found] == [
        ("request.key", "high-entropy value in an auth-like field")
    ]
