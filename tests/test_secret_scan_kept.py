"""A long text's verdict is kept for its next scan: a recording scans an uploaded file's
body three times (before the send, as the fixture is made, as the store writes it)."""

from __future__ import annotations

import base64
import random

from replaygate.sanitize.secret_scan import KEPT_FROM, _Verdicts, detect_in_text

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
