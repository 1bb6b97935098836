"""The one-pass scan of written lines clears only lines the secret gate clears, so verify
finds the same secrets with it as without it."""

from __future__ import annotations

import base64
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replaygate.fixtures.fixture import Fixture, make_meta
from replaygate.hygiene.verify import verify_store
from replaygate.hygiene.verify_jobs import check_task
from replaygate.hygiene.verify_segments import Segment
from replaygate.sanitize import secret_lines
from replaygate.sanitize.secret_allow import NOTHING_SAFE
from replaygate.sanitize.secret_gate import clean_written, cut_written
from replaygate.sanitize.secret_lines import clean_lines, quiet_lines
from replaygate.sanitize.secret_scan import find_each_fixture_secrets, find_fixture_secrets

pytest.importorskip("hyperscan")

META = make_meta("anthropic.messages", "2023-06-01", "hand", recorded_at="2025-01-01T00:00:00Z")

_WORDS = "Token API_KEY passwd Session cookie SIG code bearer Basic digest auth secret"
_MARKS = "= : ; ? & ' \" \\ \\n \\\\u0041 %41 %zz ~ . == - _ / é 密"
_ANCHORS = "sk-ant- sk- AKIA xoxb- XAPP- ghp_ AC SK -us :// eyJ 1//0 :AA hf_ PuTTY-User-Key-File-"
_PIECES = [
    *(" ".join((_WORDS, _MARKS, _ANCHORS))).split(" "),
    " ",
    "\t",
    "\n",
    "PRIVATE KEY",
    "plain words",
    "Zq8Xv7Wm2Kp9Rt4Ly6Hb8Nc3Jd5Fg1Ss0Aa9b",
    "0123456789abcdef0123456789abcdef",
    "aGVsbG8gd29ybGQgdGhpcyBpcyB0ZXh0",
    "msg_01XFDUDYJgAACzvnptvVoYEL",
    "abcdefghijklmnopqrstuvwxyz",
    "<",
    ">",
    ",",
    "|",
    "<cfg:apiKey>",
    "<add name=",
]
_text = st.lists(st.sampled_from(_PIECES), max_size=6).map("".join)
_name = st.one_of(st.sampled_from(["x-api-key", "max_tokens", "base64", "data", "note"]), _text)
_value = st.one_of(
    st.none(),
    _text,
    st.lists(_text, max_size=3),
    st.dictionaries(_name, st.one_of(_text, st.lists(_text, max_size=2)), max_size=3),
)
_fixtures = st.lists(st.tuples(_value, _value, _text), min_size=1, max_size=4).map(
    lambda items: [
        {
            "key": f"{i:012x}",
            "request": {"messages": [{"content": turn}], "model": "m"},
            "response": response,
            "meta": {"note": note},
        }
        for i, (turn, response, note) in enumerate(items)
    ]
)


@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(fixtures=_fixtures)
def test_a_quiet_line_holds_no_secret_and_the_same_secrets_are_found(
    fixtures: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [orjson.dumps(fixture) for fixture in fixtures]
    quiet = quiet_lines(lines)
    assert quiet is not None
    for fixture, clear in zip(fixtures, quiet, strict=True):
        if clear:
            assert find_fixture_secrets(fixture) == []
    monkeypatch.setattr(secret_lines, "ENGINE_AFTER", -1)
    found = find_each_fixture_secrets(fixtures, NOTHING_SAFE, clean_lines(lines))
    assert found == [find_fixture_secrets(fixture) for fixture in fixtures]


def test_the_gate_reads_a_line_s_fields_in_their_order() -> None:
    """A tag's ``<`` written after a credential word is no tag holding it: the gate clears
    each such line, whatever order a set would have put its fields in."""
    lines = [
        orjson.dumps(
            {"key": f"{i:012x}", "request": {"q": f"q{i}"}, "response": "Token", "note": "<"}
        )
        for i in range(128)
    ]
    assert [quiet_lines([line]) for line in lines] == [[True]] * 128
    assert [clean_written([cut_written(line)]) for line in lines] == [[True]] * 128
    assert clean_written([cut_written(b'{"key":"0","note":"<","response":"Token"}')]) == [False]


def test_every_line_of_a_clean_batch_is_quiet_and_a_secret_makes_its_line_loud() -> None:
    fixtures = [
        {"key": f"{i:012x}", "request": {"q": f"question {i}"}, "response": {"text": "fine"}}
        for i in range(5)
    ]
    fixtures[3]["response"]["text"] = "use " + "ghp_" + "Zq8Xv7Wm2Kp9Rt4Ly6Hb8Nc3Jd5Fg1Ss0Aa9b"
    assert quiet_lines([orjson.dumps(fixture) for fixture in fixtures]) == [
        True,
        True,
        True,
        False,
        True,
    ]


def test_threads_scan_at_once() -> None:
    lines = [
        orjson.dumps({"key": f"{i:012x}", "request": {"q": "token\\u0041" * (i % 3)}})
        for i in range(256)
    ]
    alone = quiet_lines(lines)
    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(quiet_lines, [lines] * 32)) == [alone] * 32


def test_without_a_usable_engine_every_line_goes_through_the_gate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import hyperscan

    class Refused:
        def __init__(self, **options: object) -> None:
            pass

        def compile(self, **options: object) -> None:
            raise hyperscan.ArchitectureError("no SSSE3")

    monkeypatch.setattr(hyperscan, "Database", Refused)
    monkeypatch.setattr(secret_lines, "ENGINE_AFTER", -1)
    secret_lines._database.cache_clear()
    try:
        line = orjson.dumps({"key": "0" * 12, "request": {"q": "fine"}})
        assert quiet_lines([line]) is None
        assert clean_lines([line]) == [True]  # the gate cleared it
    finally:
        secret_lines._database.cache_clear()


def test_a_line_not_as_written_is_left_to_the_values() -> None:
    assert clean_lines([None, b'{"request":{}}']) == [None, None]


def _fixture(i: int, text: str, headers: dict[str, str]) -> bytes:
    request = {"model": "m", "messages": [{"role": "user", "content": f"question {i}"}]}
    response = {
        "type": "message",
        "content": [{"type": "text", "text": text}],
        "usage": {"input_tokens": 1, "output_tokens": 1},
        **headers,
    }
    return Fixture.create(request, [response], META).sealed().to_line()


def test_verify_reports_the_same_with_the_scan_as_without_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = "ghp_" + "Zq8Xv7Wm2Kp9Rt4Ly6Hb8Nc3Jd5Fg1Ss0Aa9b"
    planted = {
        5: (f"use {token}", {}),
        9: ("blob " + base64.b64encode(f"key: {token}".encode()).decode(), {}),
        14: ("".join(f"\\u{ord(c):04x}" for c in token), {}),
        20: ("fine", {"x-api-key": "Qx7Wm2Kp9Rt4Ly6Hb8Nc3Jd"}),
        27: ("see ?sig=Qx7Wm2Kp9Rt4Ly6Hb8Nc3Jd&x=1", {}),
    }
    store = tmp_path / "store.jsonl"
    store.write_bytes(b"".join(_fixture(i, *planted.get(i, ("fine", {}))) for i in range(300)))
    monkeypatch.setattr(secret_lines, "ENGINE_AFTER", 10**9)
    without = verify_store(store)
    monkeypatch.setattr(secret_lines, "ENGINE_AFTER", -1)
    assert verify_store(store) == without
    assert sorted({problem.line for problem in without[1]}) == sorted(i + 1 for i in planted)


def test_a_large_task_announced_at_once_uses_the_engine_from_its_first_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(secret_lines, "_seen", 0)  # a new process, as a verify worker is
    scanned: list[int] = []
    engine = secret_lines.quiet_lines

    def spy(lines: list[bytes]) -> list[bool] | None:
        scanned.append(len(lines))
        return engine(lines)

    monkeypatch.setattr(secret_lines, "quiet_lines", spy)
    store = tmp_path / "store.jsonl"
    store.write_bytes(b"".join(_fixture(i, "fine", {}) for i in range(3)))
    small = Segment(str(store), size=secret_lines.ENGINE_BYTES - 1)
    assert check_task([small], True, NOTHING_SAFE)[0].count == 3
    assert scanned == []  # a few lines: the gate alone, no engine to load
    large = Segment(str(store), size=secret_lines.ENGINE_BYTES)
    assert check_task([large], True, NOTHING_SAFE)[0].count == 3
    assert scanned == [3]
