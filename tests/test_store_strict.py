"""The store reads only well-formed fixtures: keys of the documented length, no duplicate keys."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from replaygate import Fixture, FixtureFormatError, FixtureStore
from replaygate.cli import main
from replaygate.errors import KeyTooShortError
from replaygate.fixtures.fingerprint import KEY_LENGTH
from replaygate.hygiene.verify import verify_store
from replaygate.models.fakes import Rule, RuleStub

REQUEST = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]}
RESPONSE = {"type": "message", "role": "assistant", "content": [], "stop_reason": "end_turn"}


def _line(key: str) -> bytes:
    return orjson.dumps({"key": key, "request": REQUEST, "response": RESPONSE}) + b"\n"


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    path = tmp_path / "s.jsonl"
    path.write_bytes(Fixture.create(REQUEST, [RESPONSE]).to_line())
    return path


def test_a_stored_key_cut_short_is_refused_with_file_and_line(tmp_path: Path) -> None:
    full = Fixture.create(REQUEST, [RESPONSE]).key
    path = tmp_path / "s.jsonl"
    path.write_bytes(_line(full) + _line(full[:4]))
    with pytest.raises(FixtureFormatError) as err:
        FixtureStore.open(path)
    assert (err.value.file, err.value.line) == (str(path), 2)
    assert f"minimum of {KEY_LENGTH}" in err.value.reason


def test_a_key_asked_for_must_be_as_long_as_a_stored_key(store_path: Path) -> None:
    store = FixtureStore.open(store_path)
    key = store.keys()[0]
    assert len(store.get(key)) == 1
    for short in ("", key[:1], key[: KEY_LENGTH - 1]):
        with pytest.raises(KeyTooShortError, match="shorter than the minimum"):
            store.get(short)
    with pytest.raises(KeyTooShortError):
        RuleStub([Rule(when="x", fixture=key[:5])], store=store)


def test_show_refuses_a_short_key_with_exit_2(store_path: Path) -> None:
    key = FixtureStore.open(store_path).keys()[0]
    done = CliRunner().invoke(main, ["show", key[:3], "--fixtures", str(store_path)])
    assert done.exit_code == 2 and "shorter than the minimum" in done.output
    assert done.exception is None or isinstance(done.exception, SystemExit)


@pytest.mark.parametrize(
    ("line", "path"),
    [
        (b'{"key":"%s","key":"%s","request":{},"response":{}}', "key"),
        (b'{"key":"%s","request":{"model":"a","model":"b"},"response":{}}', "request.model"),
        (
            b'{"key":"%s", "request":{}, "response":{"content":[{"t":1,"t":2}]}}',
            "response.content[0].t",
        ),
        (b'{"key":"%s","request":{},"response":{},"meta":{"a":{},"a":{}}}', "meta.a"),
    ],
)
def test_a_key_named_twice_is_refused_with_file_line_and_path(
    tmp_path: Path, line: bytes, path: str
) -> None:
    key = b"k" * KEY_LENGTH
    store = tmp_path / "s.jsonl"
    store.write_bytes(
        Fixture.create(REQUEST, [RESPONSE]).to_line() + line.replace(b"%s", key) + b"\n"
    )
    with pytest.raises(FixtureFormatError) as err:
        FixtureStore.open(store)
    assert (err.value.file, err.value.line) == (str(store), 2)
    assert f"duplicate key {path}:" in err.value.reason
    _, problems = verify_store(store, require_meta=False)
    assert [(p.line, p.reason.split(":")[0]) for p in problems][:1] == [
        (2, f"duplicate key {path}")
    ]


def test_a_key_named_twice_that_is_a_token_is_masked_in_the_message(tmp_path: Path) -> None:
    # verify masked it, but a replay (a test's output, the CI log), run and show printed it
    token = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
    store = tmp_path / "s.jsonl"
    store.write_text(
        f'{{"key":"{"k" * KEY_LENGTH}","request":{{"{token}":1,"{token}":2}},"response":{{}}}}\n'
    )
    with pytest.raises(FixtureFormatError) as err:
        FixtureStore.open(store)
    assert str(err.value).endswith(
        ":1: duplicate key request.<GitHub token #1, 40 characters>: an object names it "
        "twice; keep one"
    )
    assert token in err.value.reason  # as read, for verify to number over its report


def test_a_one_file_fixture_naming_a_key_twice_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "store"
    folder.mkdir()
    text = Fixture.create(REQUEST, [RESPONSE]).to_pretty()
    (folder / "a.json").write_bytes(
        text.replace(b'"max_tokens": 8,', b'"max_tokens": 8, "max_tokens": 9,')
    )
    with pytest.raises(FixtureFormatError, match=r"duplicate key request\.max_tokens"):
        FixtureStore.open(folder)


def test_lines_in_another_layout_without_duplicates_still_load(tmp_path: Path) -> None:
    fixture = Fixture.create(REQUEST, [RESPONSE])
    store = tmp_path / "s.jsonl"
    store.write_text(json.dumps(fixture.to_json(), indent=None) + "\n", encoding="utf-8")
    assert FixtureStore.open(store).lookup(REQUEST) == fixture
