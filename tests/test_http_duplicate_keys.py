"""A request body whose JSON object names a key twice is refused at the HTTP seam, on
record and on replay: read as its last value, it would match the fixture of a body
without the first one (law 1). Real HTTP on loopback, through the real clients."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
import requests
from hypothesis import given
from hypothesis import strategies as st

from loopback import Counted
from replaygate import exact_json, strict_json
from replaygate.errors import UnstorableValueError, WireFormatError
from replaygate.http import block_network, httpx2_client, intercept
from unicode_text import unicode_text

ONCE = b'{"model":"m","max_tokens":32,"messages":[{"role":"user","content":"hi"}]}'
TWICE = b'{"model":"m","max_tokens":16,"max_tokens":32,"messages":[{"role":"user","content":"hi"}]}'
NESTED = b'{"model":"m","max_tokens":32,"messages":[{"role":"user","role":"user","content":"hi"}]}'
REFUSED = (
    "an object names this key twice; a server reads one of its values, and the stored "
    "request could not say which, so this request can be neither recorded nor matched: "
    "send the key once"
)
HEADERS = {"content-type": "application/json", "anthropic-version": "2023-06-01"}


@pytest.mark.parametrize(
    ("body", "path"),
    [(TWICE, "request.body.max_tokens"), (NESTED, "request.body.messages[0].role")],
)
def test_recording_a_body_naming_a_key_twice_is_refused_before_it_is_sent(
    tmp_path: Path, counted: str, body: bytes, path: str
) -> None:
    store = tmp_path / "twice.jsonl"
    with (
        httpx2_client(store, mode="record-missing", approve_live=True) as client,
        pytest.raises(WireFormatError) as caught,
    ):
        client.post(counted, content=body, headers=HEADERS)
    assert str(caught.value) == f"{path}: {REFUSED}"
    assert (Counted.received, store.exists()) == ([], False)


def test_a_body_naming_a_key_twice_never_replays_the_fixture_of_its_last_value(
    tmp_path: Path, counted: str
) -> None:
    store = tmp_path / "once.jsonl"
    with httpx2_client(store, mode="record-missing", approve_live=True) as client:
        assert client.post(counted, content=ONCE, headers=HEADERS).json() == {"bytes": len(ONCE)}
    assert orjson.loads(TWICE) == orjson.loads(ONCE)  # what a last-value reader makes of it
    with block_network(), httpx2_client(store) as client:
        with pytest.raises(WireFormatError) as caught:
            client.post("https://api.anthropic.com/v1/messages", content=TWICE, headers=HEADERS)
        assert str(caught.value) == f"request.body.max_tokens: {REFUSED}"
        answer = client.post("https://api.anthropic.com/v1/messages", content=ONCE, headers=HEADERS)
        assert answer.json() == {"bytes": len(ONCE)}


def test_an_intercepted_client_refuses_it_too(tmp_path: Path, counted: str) -> None:
    spaced = json.dumps({"model": "m"}).encode()[:-1] + b', "model": "n"}'
    with (
        intercept(tmp_path / "twice.jsonl", mode="record-missing", approve_live=True),
        pytest.raises(WireFormatError) as caught,
    ):
        requests.post(counted, data=spaced, headers=HEADERS, timeout=5)
    assert str(caught.value) == f"request.body.model: {REFUSED}"
    assert Counted.received == []


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | unicode_text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(unicode_text(max_size=3), inner),
    max_leaves=12,
)


@given(value=st.dictionaries(unicode_text(max_size=3), JSON_VALUES, max_size=4))
def test_a_document_reads_as_its_exact_value_written_compact_or_spaced(value: Any) -> None:
    for raw in (
        json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode(),
        json.dumps(value).encode(),
    ):
        read = exact_json.loads(raw, unique_keys=True)
        assert read == value and json.dumps(read) == json.dumps(value)  # integers stay integers
        assert exact_json.loads(raw) == value


@given(
    value=st.dictionaries(unicode_text(max_size=3), JSON_VALUES, min_size=1, max_size=4),
    compact=st.booleans(),
)
def test_a_key_named_twice_is_refused_with_its_path_however_the_document_is_written(
    value: dict[str, Any], compact: bool
) -> None:
    key, first = next(iter(value.items()))
    separators = (",", ":") if compact else (", ", ": ")
    inner = json.dumps({"x": value}, separators=separators).encode()
    again = json.dumps({key: first}, separators=separators).encode()[1:-1]
    raw = inner[:-2] + separators[0].encode() + again + b"}}"
    with pytest.raises(strict_json.DuplicateKeyError) as caught:
        exact_json.loads(raw, unique_keys=True)
    assert caught.value.path == f"x.{key}"
    assert exact_json.loads(raw) == {"x": value}  # without unique_keys: its last value


def test_a_document_nested_deeper_than_orjson_writes_is_still_read_exactly() -> None:
    raw = b'{"a":' * 300 + b"12345678901234567890123" + b"}" * 300
    value = exact_json.loads(raw)
    for _ in range(300):
        value = value["a"]
    assert value == 12345678901234567890123
    with pytest.raises(RecursionError, match="nested more than 254 levels"):
        exact_json.loads(raw, unique_keys=True)  # a request body: no store line holds it


@pytest.mark.parametrize("levels", [254, 500, 1020])
def test_a_body_too_deep_to_read_again_is_refused_by_name_not_with_a_recursion_error(
    tmp_path: Path, levels: int
) -> None:
    # a miss's message walks the body by recursion: it raised RecursionError out of the
    # SDK's call from 500 levels on Python 3.11, and from 1020 on 3.12 and 3.13, whose
    # JSON reader, which stopped 3.11 first, recurses deeper
    deep = b'{"a":' + b"[ " * levels + b"1" + b" ]" * levels + b"}"
    with (
        block_network(),
        httpx2_client(tmp_path / "none.jsonl") as client,
        pytest.raises(UnstorableValueError) as caught,
    ):
        client.post("https://api.anthropic.com/v1/messages", content=deep, headers=HEADERS)
    assert str(caught.value).startswith("refusing to send this request: nested more than 254 ")
    assert caught.value.path.startswith("request.body.a[0][0][0]")
