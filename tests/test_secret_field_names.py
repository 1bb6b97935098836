"""A secret-looking value used as a field name is refused as any other (law 4), and named
by the path of the object holding it, never by itself."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from replaygate import Fixture, FixtureStore
from replaygate.errors import ReplaygateError
from replaygate.fixtures.fixture import make_meta
from replaygate.hygiene.verify import verify_store
from replaygate.sanitize.secret_scan import find_secrets
from wire_shapes import EMPTY_ANSWER as RESPONSE

TOKEN = "ghp_" + "Zq8Xv7Wm2Kp9Rt4Ly6Hb8Nc3Jd5Fg1Ss0Aa9b"
META = make_meta("anthropic.messages", "2023-06-01", "hand")


def request(metadata: dict[str, Any]) -> dict[str, Any]:
    messages = [{"role": "user", "content": "hi"}]
    return {"model": "m", "max_tokens": 8, "messages": messages, "metadata": metadata}


def test_a_token_as_a_field_name_is_found_without_showing_it() -> None:
    found = find_secrets({"a": {TOKEN: {"b": "plain"}}, TOKEN: 1, "ok": "plain"})
    assert [(f.path, f.detector) for f in found] == [
        ("a (a field name)", "GitHub token"),
        ("(the top level) (a field name)", "GitHub token"),
    ]
    assert find_secrets({"a": {"b": "plain"}, "ok": ["plain"]}) == []


def test_a_fixture_holding_one_is_refused_before_writing_and_reported_by_verify(
    tmp_path: Path,
) -> None:
    fixture = Fixture.create(request({"ok": {TOKEN: "x"}}), [RESPONSE], META)
    store = tmp_path / "s.jsonl"
    with pytest.raises(ReplaygateError) as caught, FixtureStore.open(store) as opened:
        opened.put(fixture)
    assert "GitHub token found at request.metadata.ok (a field name)" in str(caught.value)
    assert TOKEN not in str(caught.value)
    assert not store.exists() or store.read_bytes() == b""
    store.write_bytes(fixture.to_line())  # written by hand
    _, problems = verify_store(store)
    assert [str(p) for p in problems] == [
        f"{store}:1: GitHub token at request.metadata.ok (a field name)"
    ]


FREE = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ9vW3kL2a"
"""A high-entropy token of no family (an AWS secret key's shape)."""


@pytest.mark.parametrize(
    ("value", "found"),
    [
        ({TOKEN: {"a": "b"}}, [("(the top level) (a field name)", "GitHub token")]),
        ({TOKEN: ["a"]}, [("(the top level) (a field name)", "GitHub token")]),
        ({"m": {TOKEN: {"a": "b"}}}, [("m (a field name)", "GitHub token")]),
        ({"m": {TOKEN: [1]}}, [("m (a field name)", "GitHub token")]),
        ({"metadata": {FREE: "x"}}, [("metadata (a field name)", "high-entropy token")]),
        ({"m": {"n": {FREE: 1}}}, [("m.n (a field name)", "high-entropy token")]),
    ],
)
def test_a_token_naming_a_container_or_of_no_family_is_found(
    value: dict[str, Any], found: list[tuple[str, str]]
) -> None:
    # The gate cut a container off from its name at the top two levels, so a token naming
    # one was never read; and a field name was read for the token families only.
    assert [(f.path, f.detector) for f in find_secrets(value)] == found


def test_names_of_ids_and_digests_are_no_tokens() -> None:
    digest = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
    ids = {"toolu_01A09q90qw90lq917835lq9": {digest: ["x"]}, "msg_01XFDUDYJgAACzvnptvVoYEL": 1}
    assert find_secrets({"m": ids}) == []


def test_verify_reports_a_token_naming_a_field_of_the_stored_request(tmp_path: Path) -> None:
    sent = request({"ok": "x"})
    sent[TOKEN] = sent.pop("metadata")  # its key and seal made for it: only the name is wrong
    store = tmp_path / "s.jsonl"
    store.write_bytes(Fixture.create(sent, [RESPONSE], META).to_line())
    _, problems = verify_store(store)
    assert [str(p) for p in problems] == [f"{store}:1: GitHub token at request (a field name)"]


@pytest.mark.parametrize(
    "edit",
    [
        lambda line: {**line, TOKEN: 1},
        lambda line: {**line, "seal": TOKEN},
        lambda line: {**line, "meta": {**line["meta"], "source": TOKEN}},
        lambda line: {**line, "key": TOKEN},
    ],
    ids=["a top-level field", "the seal", "meta.source", "the key"],
)
def test_verify_masks_a_token_its_report_quotes(tmp_path: Path, edit: Any) -> None:
    # A check that quotes what it refuses (an unknown field, a seal, a source) printed a key
    # a hand edit put there to the logs of CI as it was.
    line = json.loads(Fixture.create(request({"ok": "x"}), [RESPONSE], META).to_line())
    store = tmp_path / "s.jsonl"
    store.write_text(json.dumps(edit(line)) + "\n", encoding="utf-8")
    _, problems = verify_store(store)
    assert problems and all(TOKEN not in str(p) for p in problems)
    assert any(f"<GitHub token #1, {len(TOKEN)} characters>" in str(p) for p in problems), problems
