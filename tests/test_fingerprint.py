"""The canonical form, the key, and the match form the store looks requests up by."""

from __future__ import annotations

import enum
import hashlib
import json
import math
import uuid
from collections import OrderedDict
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from replaygate import CanonicalFormError, canonical_json, fixture_key
from replaygate.fixtures import fingerprint
from replaygate.fixtures.fingerprint import (
    digest,
    has_key,
    match_form,
    parsed_match_form,
)
from unicode_text import unicode_text

SEED_REQUEST = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 1024,
    "system": "你是严谨的研究助手。",
    "messages": [{"role": "user", "content": [{"type": "text", "text": "什么是 RAG？"}]}],
    "tools": [{"name": "search_corpus", "description": "在本地语料里检索", "parameters": {}}],
}


def seed_key(request: Any) -> str:
    """The key exactly as seed 000 (section 12.2.3) computes it."""
    canon = json.dumps(request, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(canon.encode()).hexdigest()[:12]


json_leaves = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | unicode_text(max_size=12)
)
json_values = st.recursive(
    json_leaves,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(unicode_text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)


def _shuffled(value: Any, data: st.DataObject) -> Any:
    """The same JSON value with every object's keys in a drawn order."""
    if isinstance(value, dict):
        keys = data.draw(st.permutations(list(value)))
        return {k: _shuffled(value[k], data) for k in keys}
    if isinstance(value, list):
        return [_shuffled(v, data) for v in value]
    return value


# -- canonical form and key ---------------------------------------------------------


def test_seed_request_gets_the_seed_key() -> None:
    assert fixture_key(SEED_REQUEST) == seed_key(SEED_REQUEST)
    assert len(fixture_key(SEED_REQUEST)) == 12


def test_canonical_form_is_json_dumps_sorted_with_standard_separators() -> None:
    text = canonical_json({"b": [1, 2], "a": {"d": None, "c": True}})
    assert text == '{"a": {"c": true, "d": null}, "b": [1, 2]}'
    assert fingerprint.CANONICAL_VERSION == 1


def test_non_ascii_text_is_kept_raw_in_the_canonical_form() -> None:
    text = canonical_json(SEED_REQUEST)
    assert "什么是 RAG？" in text
    assert "\\u" not in text
    assert digest(SEED_REQUEST) == hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert hashlib.sha256(text.encode()).hexdigest()[: fingerprint.KEY_LENGTH] == fixture_key(
        SEED_REQUEST
    )


@given(value=st.dictionaries(unicode_text(max_size=6), json_values, max_size=6), data=st.data())
def test_key_order_does_not_change_the_key(value: dict[str, Any], data: st.DataObject) -> None:
    other = _shuffled(value, data)
    assert canonical_json(other) == canonical_json(value)
    assert fixture_key(other) == fixture_key(value) == seed_key(value)


def test_any_changed_byte_changes_the_key() -> None:
    reworded = json.loads(json.dumps(SEED_REQUEST))
    reworded["messages"][0]["content"][0]["text"] = "RAG 是什么？"
    assert fixture_key(reworded) != fixture_key(SEED_REQUEST)
    assert fixture_key({"a": 1}) != fixture_key({"a": 1.0}) != fixture_key({"a": True})


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_nan_and_infinity_are_refused_naming_the_path(bad: float) -> None:
    request = {"messages": [{"content": [{"type": "text"}, {"type": "x", "x": bad}]}]}
    with pytest.raises(CanonicalFormError) as caught:
        fixture_key(request)
    assert caught.value.path == "messages[0].content[1].x"
    assert "messages[0].content[1].x" in str(caught.value)
    assert "not valid JSON" in str(caught.value)
    with pytest.raises(CanonicalFormError):
        match_form(request)


def test_non_json_values_are_refused_naming_the_path() -> None:
    with pytest.raises(CanonicalFormError) as caught:
        canonical_json({"tools": [{"input_schema": {"x": {1, 2}}}]})
    assert caught.value.path == "tools[0].input_schema.x"
    assert "set is not a JSON value" in str(caught.value)
    with pytest.raises(CanonicalFormError) as caught:
        canonical_json({"a": b"bytes"})
    assert caught.value.path == "a"


def test_text_that_is_not_unicode_is_refused_naming_the_path() -> None:
    with pytest.raises(CanonicalFormError) as caught:
        fixture_key({"messages": [{"content": "half a pair \ud83d"}]})
    assert caught.value.path == "messages[0].content"
    assert "not valid Unicode" in str(caught.value)
    with pytest.raises(CanonicalFormError):
        match_form({"messages": [{"content": "half a pair \ud83d"}]})


def test_a_circular_request_is_refused_not_a_recursion_error() -> None:
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(CanonicalFormError, match="circular"):
        canonical_json({"a": loop})


def test_enum_members_and_uuids_are_taken_as_their_json_value() -> None:
    class Color(enum.Enum):
        RED = "red"

    class Level(enum.IntEnum):
        HIGH = 3

    ident = uuid.UUID(int=7)
    request = {"c": Color.RED, "l": Level.HIGH, "u": ident}
    plain = {"c": "red", "l": 3, "u": str(ident)}
    assert canonical_json(request) == canonical_json(plain)
    assert match_form(request) == match_form(plain)


def test_the_key_length_is_read_when_a_key_is_computed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fingerprint, "KEY_LENGTH", 4)
    assert fixture_key(SEED_REQUEST) == seed_key(SEED_REQUEST)[:4]


# -- the match form ------------------------------------------------------------------

small_leaves = st.sampled_from([None, True, False, 0, 1, 1.0, -0.0, 0.0, 2**64, 1e16, "", "a", "é"])
small_values = st.recursive(
    small_leaves,
    lambda inner: (
        st.lists(inner, max_size=2)
        | st.dictionaries(
            st.sampled_from(["a", "b", "é", "\U0001f600", "\ue000"]), inner, max_size=2
        )
    ),
    max_leaves=5,
)


@given(values=st.lists(small_values, min_size=2, max_size=6))
def test_match_forms_are_equal_exactly_when_canonical_forms_are(values: list[Any]) -> None:
    canon = [canonical_json(v) for v in values]
    forms = [match_form(v) for v in values]
    given_canon = [match_form(v, c) for v, c in zip(values, canon, strict=True)]
    assert forms == given_canon
    for i in range(len(values)):
        for j in range(len(values)):
            assert (forms[i] == forms[j]) == (canon[i] == canon[j]), (values[i], values[j])


@given(value=json_values)
def test_a_value_read_back_from_json_has_the_same_match_form(value: Any) -> None:
    text = canonical_json(value)
    parsed = orjson.loads(text)  # how a store reads it back
    if canonical_json(parsed) == text:  # orjson reads an int beyond 64 bits as a float
        assert parsed_match_form(parsed) == match_form(value)


def test_match_form_agrees_with_canonical_form_where_orjson_cannot_write_the_value() -> None:
    # A non-string key is written as a string by the canonical form...
    assert canonical_json({1: "a"}) == canonical_json({"1": "a"})
    assert match_form({1: "a"}) == match_form({"1": "a"})
    # ...and a dict subclass is an ordinary object.
    assert match_form(OrderedDict([("b", 1), ("a", 2)])) == match_form({"a": 2, "b": 1})
    # An int beyond 64 bits has no float twin.
    assert match_form({"n": 2**70}) != match_form({"n": float(2**70)})
    assert canonical_json({"n": 2**70}) != canonical_json({"n": float(2**70)})


def test_a_real_null_is_not_mistaken_for_nan() -> None:
    assert match_form({"content": None}) == parsed_match_form({"content": None})
    with pytest.raises(CanonicalFormError):
        match_form({"content": math.nan})


def test_a_null_beside_nan_is_still_refused() -> None:
    with pytest.raises(CanonicalFormError):
        match_form({"content": None, "temperature": math.nan})
    with pytest.raises(CanonicalFormError):
        match_form({"content": [None, -math.inf]})


# -- confirming a stored key ----------------------------------------------------------


def _nested(depth: int) -> Any:
    value: Any = []
    for _ in range(depth):
        value = [{"a": value, "b": 1}]
    return value


def _other_key(key: str) -> str:
    return ("0" if key[0] != "0" else "1") + key[1:]


@given(value=json_values)
def test_has_key_confirms_exactly_the_key_of_the_canonical_form(value: Any) -> None:
    """Non-ASCII text, floats written otherwise by orjson (1e-05, 1e+16) and ints beyond
    64 bits: the stored key is confirmed, and only that key."""
    form = match_form(value)
    key = fixture_key(value)
    assert has_key(value, key, form)
    assert has_key(value, digest(value), form)
    assert not has_key(value, _other_key(key), form)


@pytest.mark.parametrize(
    "value",
    [
        SEED_REQUEST,
        {"text": 'line\nbreak, "quoted": {x: [1, 2]}', "\u00e9\u2028": "\x00\x1f\x7f"},
        {"temperature": 0.7, "top_p": 1.0, "neg": -0.0, "big": 1e300, "n": -(2**63)},
        {"deep": _nested(40)},
        {"content": None, "stop": [], "tools": {}},
    ],
    ids=["seed", "escapes", "numbers", "deep", "empty"],
)
def test_has_key_decides_without_the_json_module_when_orjson_writes_the_same_text(
    value: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    key, form = fixture_key(value), match_form(value)

    def refuse(request: Any) -> str:
        raise AssertionError("the json module's text was computed")

    monkeypatch.setattr(fingerprint, "canonical_json", refuse)
    assert has_key(value, key, form)


@pytest.mark.parametrize(
    "value",
    [{"temperature": 1e-05}, {"x": 2.5e-05, "y": 1e16}, {"seed": 2**64}, {1: "int key"}],
)
def test_has_key_falls_back_to_the_json_module_where_orjson_writes_otherwise(
    value: Any,
) -> None:
    assert has_key(value, fixture_key(value), match_form(value))
    assert not has_key(value, _other_key(fixture_key(value)), match_form(value))


def test_an_edited_request_is_refused_by_the_orjson_text_and_the_json_module_alike() -> None:
    recorded = json.loads(json.dumps(SEED_REQUEST))
    edited = json.loads(json.dumps(SEED_REQUEST))
    edited["max_tokens"] = 2048
    assert not has_key(edited, fixture_key(recorded), match_form(edited))
