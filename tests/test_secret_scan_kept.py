"""A long text's verdict is kept for its next scan: a recording scans an uploaded file's
body three times (before the send, as the fixture is made, as the store writes it)."""

from __future__ import annotations

import base64
import gzip
import json
import random
from typing import Any

from replaygate.sanitize.secret_compressed import Budget
from replaygate.sanitize.secret_entropy import CONTEXT
from replaygate.sanitize.secret_scan import (
    KEPT_FROM,
    SHORT_BELOW,
    SecretFinding,
    _Verdicts,
    detect_in_text,
    find_fixture_secrets,
    find_stream_secrets,
)

KEY = "sk-ant-api03-" + "Zq8Xv7Wm2Kp9Rt4Ly6Hb8Nc3Jd5Fg1Ss0Aa9b-Qx7"


def upload(seed: int, inside: bytes = b"") -> str:
    """Base64 of random bytes, as a body kept as base64, holding ``inside`` in the middle."""
    data = random.Random(seed).randbytes(KEPT_FROM)
    return base64.b64encode(data[:1000] + inside + data[1000:]).decode()


def test_a_verdict_is_given_once_per_text_and_way_of_reading_it() -> None:
    kept = _Verdicts(size=2)
    scans: list[str] = []

    def scan(said: str | None) -> str | None:
        scans.append("scan")
        return said

    assert kept.verdict("a" * 10, ("base64", False, False), lambda: scan("found")) == "found"
    assert kept.verdict("a" * 10, ("base64", False, False), lambda: scan(None)) == "found"
    assert kept.verdict("a" * 10, ("text", False, False), lambda: scan(None)) is None
    assert kept.verdict("b" * 10, ("base64", False, False), lambda: scan(None)) is None
    assert len(scans) == 3
    # the oldest of more than two is scanned anew
    assert kept.verdict("a" * 10, ("base64", False, False), lambda: scan("again")) == "again"


def test_a_key_in_a_long_body_is_found_on_each_scan_and_a_changed_body_scanned_anew() -> None:
    clean, holding = upload(1), upload(1, KEY.encode())
    assert len(clean) >= KEPT_FROM
    assert detect_in_text(clean, "base64", encoded=True) is None
    assert detect_in_text(clean, "base64", encoded=True) is None
    found = detect_in_text(holding, "base64", encoded=True)
    assert found is not None and "in a base64 body" in found
    assert detect_in_text(holding, "base64", encoded=True) == found
    # the same characters read as free text are another verdict: a token of their own
    assert detect_in_text(clean, "text") == "high-entropy token"


def _stream(*texts: str) -> dict[str, Any]:
    """A fixture of an Anthropic stream whose one text block arrives as ``texts``."""
    deltas = [
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": t}}
        for t in texts
    ]
    events = [{"event": "content_block_delta", "data": json.dumps(d)} for d in deltas]
    return {"request": {"model": "m"}, "response": {"status": 200, "events": events}}


def test_a_stream_found_clean_is_kept_only_when_no_compressed_data_was_read() -> None:
    split = _stream(KEY[:20], KEY[20:])
    found = find_fixture_secrets(split)
    assert "response.events[0..1].data" in [finding.path for finding in found]
    assert find_fixture_secrets(split) == found  # a key split across events: on each scan
    clean = _stream("plain ", "words")
    assert find_fixture_secrets(clean) == find_fixture_secrets(clean) == []
    # compressed data read within one fixture's budget: clean with a fresh one, not with none
    packed = base64.b64encode(gzip.compress(b"nothing secret here " * 8)).decode()
    compressed = _stream("data:application/gzip;base64," + packed[:30], packed[30:])
    assert find_fixture_secrets(compressed, budget=Budget()) == []
    events = compressed["response"]["events"]
    joined = find_stream_secrets(events, "response.events", budget=Budget(left=0))
    assert joined  # not read whole: refused, the same events found clean before or not
    assert set(joined) <= set(find_fixture_secrets(compressed, budget=Budget(left=0)))


def test_a_short_text_s_verdict_is_kept_by_its_field_name_and_how_it_is_read() -> None:
    """A text shorter than :data:`SHORT_BELOW` is scanned once for each field name and way of
    reading it: a value that is a secret only under a credential's name is one there still."""
    value = "q8zr2lxv9mt4wk7pb1nc6"  # lower case: no free-standing token
    assert len(value) < SHORT_BELOW
    for _ in range(2):
        assert detect_in_text(value, "text") is None
        assert detect_in_text(value, "api_key") == CONTEXT
        assert detect_in_text(value, "api_key", encoded=True) == CONTEXT
        assert detect_in_text("AKIAZ5Q7BHWX3JK2LMNP", "text") == "AWS access key id"
    fixture = {"request": {"body": {"note": value, "api_key": value}}}
    assert find_fixture_secrets(fixture) == [SecretFinding("request.body.api_key", CONTEXT)]
