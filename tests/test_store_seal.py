"""The seal: the writer vouches for a fixture's key, so its first serve need not recompute it.

A fixture the store writes carries ``seal``, a digest of its key and its request's
match form, stamped once the key was checked. Serving it compares that digest
instead of recomputing the key from the canonical text. A hand edit of the request or
the key breaks the seal, and the key is then confirmed the long way: an edited
request is still refused. Nothing that rewrites stored lines stamps a seal anew.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from replaygate.errors import FixtureFormatError
from replaygate.fixtures import fingerprint
from replaygate.fixtures.store import FixtureStore
from replaygate.fixtures.store.compact import compact_file
from test_store import fixture, request, response


@pytest.fixture
def recomputed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The keys the store confirmed by recomputing them from the request."""
    calls: list[str] = []
    recompute = fingerprint.has_key

    def counting(request: Any, key: str, form: bytes) -> bool:
        calls.append(key)
        return recompute(request, key, form)

    monkeypatch.setattr(fingerprint, "has_key", counting)  # what key_holds calls
    return calls


def stored(path: Path, line: int = 1) -> dict[str, Any]:
    parsed: dict[str, Any] = orjson.loads(path.read_bytes().splitlines()[line - 1])
    return parsed


def rewrite(path: Path, line: int, obj: dict[str, Any]) -> None:
    lines = path.read_bytes().splitlines(keepends=True)
    lines[line - 1] = orjson.dumps(obj) + b"\n"
    path.write_bytes(b"".join(lines))


def test_the_writer_stamps_a_seal_of_the_key_and_the_request(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    FixtureStore.open(path).put(fixture(0))
    line = stored(path)
    form = fingerprint.match_form(request("question 0"))
    assert line["seal"] == fingerprint.seal_of(line["key"], form)
    assert len(line["seal"]) == fingerprint.SEAL_LENGTH
    folder = tmp_path / "folder"
    FixtureStore.open(folder).put(fixture(0))
    (pretty,) = folder.rglob("*.json")
    assert json.loads(pretty.read_text(encoding="utf-8"))["seal"] == line["seal"]


@pytest.mark.parametrize("layout", ["s.jsonl", "folder"])
def test_a_sealed_fixture_is_served_without_recomputing_its_key(
    tmp_path: Path, recomputed: list[str], layout: str
) -> None:
    store = FixtureStore.open(tmp_path / layout)
    store.put(fixture(0))
    found = FixtureStore.open(tmp_path / layout).lookup(request("question 0"))
    assert found == fixture(0)
    assert recomputed == []


def test_a_fixture_without_a_seal_still_loads_and_has_its_key_recomputed(
    tmp_path: Path, recomputed: list[str]
) -> None:
    path = tmp_path / "old.jsonl"
    path.write_bytes(fixture(0).to_line())  # a line written before seals
    assert "seal" not in stored(path)
    assert FixtureStore.open(path).lookup(request("question 0")) == fixture(0)
    assert recomputed == [fixture(0).key]


def test_an_edited_request_breaks_the_seal_and_is_refused(
    tmp_path: Path, recomputed: list[str]
) -> None:
    path = tmp_path / "s.jsonl"
    FixtureStore.open(path).put(fixture(0))
    line = stored(path)
    line["request"]["max_tokens"] = 999  # key and seal left as they were
    rewrite(path, 1, line)
    edited = {**request("question 0"), "max_tokens": 999}
    with pytest.raises(FixtureFormatError) as caught:
        FixtureStore.open(path).lookup(edited)
    assert f"{path}:1" in str(caught.value)
    assert "does not match its request" in str(caught.value)
    assert recomputed == [line["key"]]


def test_an_edited_key_breaks_the_seal_and_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    FixtureStore.open(path).put(fixture(0))
    line = stored(path)
    line["key"] = "0" * fingerprint.KEY_LENGTH  # request and seal left as they were
    rewrite(path, 1, line)
    with pytest.raises(FixtureFormatError, match="does not match its request"):
        FixtureStore.open(path).lookup(request("question 0"))


@pytest.mark.parametrize("seal", ["nothex" * 6, "ABCDEF" * 6, "0" * 31, 12])
def test_a_malformed_seal_is_refused_naming_the_file_line_and_field(
    tmp_path: Path, seal: object
) -> None:
    path = tmp_path / "s.jsonl"
    FixtureStore.open(path).put(fixture(0))
    FixtureStore.open(path).put(fixture(1))
    line = stored(path, 2)
    line["seal"] = seal
    rewrite(path, 2, line)
    with pytest.raises(FixtureFormatError) as caught:
        FixtureStore.open(path)
    assert caught.value.line == 2 and caught.value.file == str(path)
    assert "field 'seal' must be 32 hex digits" in str(caught.value)


def test_compacting_refuses_an_edited_line_and_stamps_no_seal_anew(tmp_path: Path) -> None:
    # Folded, the sample line of the request as recorded went to the edited fixture.
    path = tmp_path / "s.jsonl"
    store = FixtureStore.open(path)
    loc = store.put(fixture(0))
    store.add_sample(loc, 1, response("a second answer"))
    line = stored(path)
    line["request"]["max_tokens"] = 999
    rewrite(path, 1, line)
    before = path.read_bytes()
    with pytest.raises(FixtureFormatError, match="does not match its request"):
        compact_file(path)
    assert path.read_bytes() == before and stored(path)["seal"] == line["seal"]
    with pytest.raises(FixtureFormatError, match="does not match its request"):
        FixtureStore.open(path).lookup({**request("question 0"), "max_tokens": 999})
