"""replaygate import-cassettes: what vcrpy tells apart, the import does not mix.

vcrpy matches a request's host: the same request sent to two hosts is imported with
its host (``--match-host``, for tests replaying with ``match_host=True``) or refused,
never one fixture answering both hosts in cassette order. Two cassettes that are
given one store are refused, imported together or one at a time.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from replaygate.cli import main
from replaygate.errors import FixtureMismatchError
from replaygate.fixtures.store import FixtureStore
from replaygate.http import block_network, httpx2_client

CLOUD = "https://api.openai.com/v1/chat/completions"
LOCAL = "http://localhost:11434/v1/chat/completions"
QUESTION = {"model": "gpt-sim-1", "messages": [{"role": "user", "content": "hi"}]}


def import_cassettes(*args: str | Path) -> Result:
    return CliRunner().invoke(main, ["import-cassettes", *map(str, args)])


def interaction(uri: str, text: str, question: dict[str, Any] = QUESTION) -> dict[str, Any]:
    """A chat completion sent to ``uri``, answered ``text``."""
    answer = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1700000000,
        "model": "gpt-sim-1",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
        ],
    }
    return {
        "request": {
            "method": "POST",
            "uri": uri,
            "body": json.dumps(question),
            "headers": {"Content-Type": ["application/json"]},
        },
        "response": {
            "status": {"code": 200, "message": "OK"},
            "headers": {"Content-Type": ["application/json"]},
            "body": {"string": json.dumps(answer)},
        },
    }


def cassette(path: Path, *interactions: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"version": 1, "interactions": list(interactions)}))
    return path


def answered(store: Path, uri: str, *, match_host: bool) -> str:
    """What a replay of the question sent to ``uri`` answers, the network blocked."""
    with block_network(), httpx2_client(store, match_host=match_host) as http:
        reply = http.post(uri, json=QUESTION)
    return str(reply.json()["choices"][0]["message"]["content"])


@pytest.fixture
def two_hosts(tmp_path: Path) -> Path:
    """A cassette of one request sent to the cloud API, then to a local server."""
    return cassette(
        tmp_path / "two_hosts.json", interaction(CLOUD, "cloud"), interaction(LOCAL, "local")
    )


def test_one_request_sent_to_two_hosts_is_refused_naming_them(
    two_hosts: Path, tmp_path: Path
) -> None:
    # it was one fixture of two answers, the cloud's served to the first send to either host
    result = import_cassettes(two_hosts, "--out", tmp_path / "out")
    assert result.exit_code == 1, result.output
    assert result.output.splitlines()[0] == (
        f"REFUSED (nothing written): {two_hosts}: interaction 0, 1: one request is sent to 2 "
        "hosts: api.openai.com (interaction 0); localhost:11434 (interaction 1); without its "
        "host, a replay would serve their answers in the cassette's order, whichever host a "
        "test calls. Nothing of this cassette was written; import it with --match-host, and "
        "set match_host=True on the tests that replay it (the replaygate marker's, or "
        "replaygate_config's)."
    )
    assert not (tmp_path / "out").exists()


def test_match_host_stores_each_host_and_a_match_host_replay_answers_each(
    two_hosts: Path, tmp_path: Path
) -> None:
    # it stored no host: a replay with match_host=True missed every request
    store = tmp_path / "out" / "two_hosts.jsonl"
    result = import_cassettes(two_hosts, "--out", tmp_path / "out", "--match-host")
    assert result.exit_code == 0, result.output
    assert sorted(f.request["host"] for f in FixtureStore.open(store)) == [
        "api.openai.com",
        "localhost:11434",
    ]
    assert answered(store, LOCAL, match_host=True) == "local"
    assert answered(store, CLOUD, match_host=True) == "cloud"
    with pytest.raises(FixtureMismatchError):
        answered(store, CLOUD, match_host=False)


def test_requests_that_differ_beside_their_host_are_imported_without_it(tmp_path: Path) -> None:
    other = {**QUESTION, "model": "llama3"}
    path = cassette(
        tmp_path / "c.json", interaction(CLOUD, "cloud"), interaction(LOCAL, "local", other)
    )
    result = import_cassettes(path, "--out", tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert all("host" not in f.request for f in FixtureStore.open(tmp_path / "out" / "c.jsonl"))


def test_a_store_holding_another_cassettes_fixtures_is_refused_one_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # both said "1 imported", and the store held the fixtures of two tests
    monkeypatch.chdir(tmp_path)
    spaced = cassette(Path("cassettes/test_c/test_p[a b].json"), interaction(CLOUD, "a b"))
    other = {**QUESTION, "model": "other"}
    joined = cassette(Path("cassettes/test_c/test_p[a_b].json"), interaction(CLOUD, "a_b", other))
    assert import_cassettes(spaced, "--out", "fx").exit_code == 0
    result = import_cassettes(joined, "--out", "fx")
    assert result.exit_code == 2, result.output
    assert result.output.splitlines()[0] == (
        f"ERROR (nothing written): {joined}: the cassette test_c/test_p[a b].json was imported "
        "into the same store fx/test_c/test_p[a_b].jsonl (the meta.note of its fixtures says "
        "so); rename one of them, or remove that store if that cassette is gone"
    )
    (fixture,) = FixtureStore.open(Path("fx/test_c/test_p[a_b].jsonl"))
    assert fixture.request["body"] == QUESTION
    again = import_cassettes(spaced, "--out", "fx")
    assert again.exit_code == 0, again.output
    assert "0 imported, 1 already there" in again.output
