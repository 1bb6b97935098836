"""The secret scan's gate over many fixtures at once finds exactly what one at a time finds."""

from __future__ import annotations

import base64
import json
import uuid
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replaygate.sanitize import secret_decode, secret_gate
from replaygate.sanitize.secret_allow import NOTHING_SAFE, compile_known_safe
from replaygate.sanitize.secret_gate import (
    clean_together,
    clean_written,
    cut_written,
    may_hold_secret,
)
from replaygate.sanitize.secret_scan import find_each_fixture_secrets, find_fixture_secrets
from test_sanitize_secrets import _full_walk, _json
from test_secret_corpus import FAMILIES


def clean(i: int) -> dict[str, Any]:
    """A fixture with nothing secret-looking: a long shared system prompt, its own question."""
    return {
        "key": f"{i:012x}",
        "request": {
            "model": "claude-sonnet-4-5",
            "system": "You are a careful research assistant. " * 20,
            "messages": [{"role": "user", "content": f"question {i}: what is a fixture?"}],
        },
        "response": {
            "id": f"msg_{i:08d}",
            "content": [{"type": "text", "text": "A recorded request and its response."}],
            "usage": {"input_tokens": 10, "output_tokens": 5},
        },
        "meta": {"interface": "anthropic.messages", "recorded_at": "2025-01-01T00:00:00Z"},
    }


def planted(i: int, secret: str, where: str) -> dict[str, Any]:
    fixture = clean(i)
    if where == "text":
        fixture["response"]["content"][0]["text"] += f" Use {secret} to log in."
    elif where == "field":
        fixture["request"]["x-api-key"] = secret
    else:
        fixture["meta"]["note"] = f"from {secret}"
    return fixture


@pytest.mark.parametrize("where", ["text", "field", "meta"])
@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_a_planted_secret_among_clean_fixtures_is_found(family: str, where: str) -> None:
    fixtures = [clean(i) for i in range(16)]
    fixtures[9] = planted(9, FAMILIES[family], where)
    found = find_each_fixture_secrets(fixtures)
    assert found == [find_fixture_secrets(fixture) for fixture in fixtures]
    assert [i for i, findings in enumerate(found) if findings] == [9]


def test_clean_fixtures_are_cleared_together_and_remembered() -> None:
    fixtures = [clean(i) for i in range(16)]
    assert clean_together(fixtures) == [True] * 16
    assert find_each_fixture_secrets(fixtures) == [[]] * 16
    assert not may_hold_secret(clean(99))


def test_known_safe_values_apply_to_each_fixture_of_a_batch() -> None:
    safe = compile_known_safe((FAMILIES["AWS AKIA"],), ())
    fixtures = [clean(i) for i in range(8)]
    fixtures[2] = planted(2, FAMILIES["AWS AKIA"], "text")
    fixtures[5] = planted(5, FAMILIES["GitHub classic"], "text")
    found = find_each_fixture_secrets(fixtures, safe)
    assert found == [find_fixture_secrets(fixture, safe) for fixture in fixtures]
    assert [i for i, findings in enumerate(found) if findings] == [5]


@settings(deadline=None)
@given(st.lists(st.tuples(_json, _json), min_size=1, max_size=6))
def test_a_batch_finds_what_the_full_walk_finds(pairs: list[tuple[Any, Any]]) -> None:
    fixtures = [{"request": request, "response": response} for request, response in pairs]
    found = find_each_fixture_secrets(fixtures)
    assert found == [find_fixture_secrets(fixture) for fixture in fixtures]
    for fixture, findings in zip(fixtures, found, strict=True):
        response = fixture["response"]
        if not (isinstance(response, dict) and "events" in response):  # a stream adds its own
            assert findings == _full_walk(fixture)


def _cut(fixture: dict[str, Any]) -> list[bytes] | None:
    try:
        return cut_written(orjson.dumps(fixture))
    except TypeError:  # an integer orjson cannot write: no such line is read
        return None


_cut_text = st.sampled_from(
    [
        '"},{"',
        '\\"},{\\"',
        "},{",
        'x"},{"base64":"',
        "a\\",
        '","',
        '\\","',
        'x","base64":"',
        '","token":"',
    ]
)


@settings(deadline=None)
def written_secrets(
    fixtures: list[dict[str, Any]], cuts: list[list[bytes] | None]
) -> list[list[Any]]:
    """The secrets of ``fixtures`` as verify finds them: each line's pieces (``cuts``, None
    for a line not as orjson writes it) cleared first, the rest told apart as values."""
    cleared = [
        None if cut is None else known for cut, known in zip(cuts, clean_written(cuts), strict=True)
    ]
    return find_each_fixture_secrets(fixtures, NOTHING_SAFE, cleared)


@given(
    st.lists(
        st.tuples(
            st.lists(st.one_of(_json, st.dictionaries(_cut_text, _json, max_size=2)), max_size=4),
            _json,
            st.one_of(_json, _cut_text),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_written_lines_are_cleared_as_their_values_are(
    items: list[tuple[list[Any], Any, Any]],
) -> None:
    fixtures = [
        {
            "key": f"{i:012x}",
            "request": {"messages": [{"content": m} for m in turns], "system": system},
            "response": response,
            "meta": {"note": "x"},
        }
        for i, (turns, system, response) in enumerate(items)
    ]
    cuts = [_cut(fixture) for fixture in fixtures]
    found = written_secrets(fixtures, cuts)
    assert found == [find_fixture_secrets(fixture) for fixture in fixtures]
    assert written_secrets(fixtures, cuts) == found  # pieces remembered


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_a_planted_secret_in_a_written_line_is_found(family: str) -> None:
    fixtures = [clean(i) for i in range(16)]
    for where, i in (("text", 3), ("field", 7), ("meta", 11)):
        fixtures[i] = planted(i, FAMILIES[family], where)
    cuts = [cut_written(orjson.dumps(fixture)) for fixture in fixtures]
    for _ in range(2):  # the clean pieces are remembered the first time
        found = written_secrets(fixtures, cuts)
        assert found == [find_fixture_secrets(fixture) for fixture in fixtures]
        assert [i for i, findings in enumerate(found) if findings] == [3, 7, 11]


def test_a_long_conversation_recorded_at_the_http_layer_has_each_turn_searched_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    searched: list[int] = []
    anchored = secret_gate._anchored

    def counted(text: bytes) -> bool:
        searched.append(len(text))
        return anchored(text)

    monkeypatch.setattr(secret_gate, "_anchored", counted)
    nonce = uuid.uuid4().hex
    output = "\n".join(f"{row},user{row % 97},{nonce}" for row in range(300))
    messages: list[dict[str, Any]] = [{"role": "user", "content": "analyse the data"}]
    for turn in range(12):
        request = {"method": "POST", "path": "/v1/messages", "body": {"messages": messages}}
        assert not may_hold_secret({"request": request})
        messages = [*messages, {"role": "user", "content": f"{turn}\n{output}"}]
    assert max(searched) < 2 * len(output)  # the new turn, not the whole history


_CONTEXT_ONLY = " q8zr2lxv9mt4wk7pb1nc6dh3"
"""A value flagged only under an auth-like name (lower case: no free-standing token; a space
first: no credential written just before a run)."""


@pytest.mark.parametrize(
    ("held", "found"),
    [
        ({"input_tokens": 15, "auth": None, "session": True, "secret": {"n": 1}}, False),
        ({"output_tokens": -1, "token": False}, False),
        ({"token": _CONTEXT_ONLY}, True),
        ({"tokens": [_CONTEXT_ONLY]}, True),
        ({"max_tokens": 4, "api_token": _CONTEXT_ONLY}, True),
    ],
)
@pytest.mark.parametrize("separators", [(",", ":"), (", ", ": ")])
def test_an_auth_like_name_in_held_json_is_passed_over_only_before_no_string_or_list(
    held: dict[str, Any], found: bool, separators: tuple[str, str]
) -> None:
    arguments = json.dumps(held, separators=separators)
    call = {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"arguments": arguments}}
    value = {"request": {"messages": [{"role": "assistant", "content": [call]}]}}
    findings = find_fixture_secrets(value)
    assert findings == _full_walk(value)
    assert bool(findings) == found
    if separators == (",", ":") and not found:  # an Anthropic stream's usage, compact
        assert not may_hold_secret(value)


def test_a_base64_key_is_found_among_runs_remembered_as_quiet(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(secret_decode, "_QUIET_MAX", 2)  # remembered, forgotten, remembered
    names = [f"ephemeral_{n}m_input_tokens_x" for n in range(5)]
    quiet = {"request": {"usage": dict.fromkeys(names, 1)}}
    hidden = base64.b64encode(FAMILIES["GitHub classic"].encode()).decode()
    for _ in range(2):
        assert not may_hold_secret(quiet)
        fixture = {"request": {"usage": dict.fromkeys(names, 1), "note": f"see {hidden}"}}
        assert may_hold_secret(fixture)
        assert find_fixture_secrets(fixture) == _full_walk(fixture) != []
