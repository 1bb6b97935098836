"""A JSON cassette kept beside the stores while a suite migrates is passed over.

pytest-recording keeps its cassettes under ``tests/`` (``tests/cassettes/<module>/``),
the folder that holds the stores: ``verify tests`` read each JSON cassette as a damaged
fixture (``unknown field(s) 'interactions', 'version'``) and ``patrol``, ``checksum``
and ``drift`` of the folder refused to run. A cassette is now one of the files the
commands pass over and name in their note, as they pass over a baseline; a fixture
that holds such fields is still read as one, and a cassette named alone is read as the
store it was named as.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from replaygate.cli import main
from replaygate.fixtures.fixture import Fixture, make_meta
from replaygate.fixtures.store import FixtureStore, store_files

REQUEST = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 16,
    "messages": [{"role": "user", "content": "hi"}],
}
ANSWER = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5",
    "content": [{"type": "text", "text": "Hi!"}],
    "stop_reason": "end_turn",
    "usage": {"input_tokens": 1, "output_tokens": 1},
}
CASSETTE = {
    "interactions": [
        {
            "request": {
                "body": json.dumps(REQUEST),
                "headers": {"content-type": ["application/json"]},
                "method": "POST",
                "uri": "https://api.anthropic.com/v1/messages",
            },
            "response": {
                "body": {"string": json.dumps(ANSWER)},
                "headers": {"content-type": ["application/json"]},
                "status": {"code": 200, "message": "OK"},
            },
        }
    ],
    "version": 1,
}
NOTE = (
    "note: not fixture files, passed over: tests/cassettes/test_chat/test_hi.json (vcrpy cassette)"
)


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``tests/`` holding a store and a JSON cassette, as vcrpy's serializer writes it."""
    monkeypatch.chdir(tmp_path)
    meta = make_meta("anthropic.messages", "2023-06-01", "hand")
    with FixtureStore.open(Path("tests/fixtures/test_chat/test_hi.jsonl")) as store:
        store.put(Fixture.create(REQUEST, [ANSWER], meta))
    cassette = Path("tests/cassettes/test_chat/test_hi.json")
    cassette.parent.mkdir(parents=True)
    cassette.write_text(json.dumps(CASSETTE, indent=4) + "\n", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("indent", [4, None])
def test_verify_passes_a_cassette_over_and_names_it(project: Path, indent: int | None) -> None:
    cassette = Path("tests/cassettes/test_chat/test_hi.json")
    cassette.write_text(json.dumps(CASSETTE, indent=indent) + "\n", encoding="utf-8")
    done = run("verify", "tests")
    assert done.exit_code == 0, done.output
    assert done.stdout == "1 fixture(s) checked, 0 problem(s)\n"
    assert done.stderr.strip() == NOTE
    assert store_files(Path("tests")) == [Path("tests/fixtures/test_chat/test_hi.jsonl")]


def test_patrol_and_checksum_read_the_folder_without_it(project: Path) -> None:
    patrolled = run("patrol", "tests", "--json")
    assert patrolled.exit_code == 0, patrolled.output
    rows = json.loads(patrolled.stdout)["fixtures"]
    assert [row["fixture"] for row in rows] == ["tests/fixtures/test_chat/test_hi.jsonl:1"]
    with_it = run("checksum", "tests")
    assert with_it.exit_code == 0, with_it.output
    Path("tests/cassettes/test_chat/test_hi.json").unlink()
    assert run("checksum", "tests").stdout == with_it.stdout


def test_a_fixture_holding_those_fields_is_still_read_as_one(project: Path) -> None:
    odd = Path("tests/fixtures/odd.json")
    odd.write_text(json.dumps({**CASSETTE, "key": "265288aeb827"}), encoding="utf-8")
    done = run("verify", "tests")
    assert done.exit_code == 1
    assert "tests/fixtures/odd.json: unknown field(s) 'interactions', 'version'" in done.stdout


def test_a_cassette_named_alone_is_read_as_the_store_named(project: Path) -> None:
    done = run("verify", "tests/cassettes/test_chat/test_hi.json")
    assert done.exit_code == 1
    assert "none of its fields ('interactions', 'version') is a fixture's" in done.stdout
