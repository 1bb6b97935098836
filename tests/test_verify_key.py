"""``replaygate verify`` digests a request as the replay does, reusing the pieces it has seen."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replaygate.errors import CanonicalFormError
from replaygate.fixtures.fingerprint import digest, fixture_key
from replaygate.fixtures.fixture import Fixture
from replaygate.fixtures.store.jsonl import read_line
from replaygate.hygiene.verify_key import request_digest
from unicode_text import UTF8_CHARACTERS, unicode_text

_tricky = st.sampled_from(
    ['"},{"', '\\"},{\\"', "},{", ":", ",", "\\", '"', " ", "[{", "}]", "é", "\u2028", "\x1f"]
)
_text = st.one_of(
    st.text(UTF8_CHARACTERS, max_size=10),
    _tricky,
    st.builds(
        lambda a, b, c: a + b + c,
        st.text(UTF8_CHARACTERS, max_size=3),
        _tricky,
        unicode_text(max_size=3),
    ),
)
_value = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(10**6), 10**6),
        st.floats(allow_nan=False, allow_infinity=False),
        _text,
    ),
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.lists(st.dictionaries(_text, children, max_size=3), min_size=2, max_size=4),
        st.dictionaries(_text, children, max_size=4),
    ),
    max_leaves=25,
)
_request = st.dictionaries(_text, _value, max_size=5)


def _outcome(compute: Any) -> Any:
    try:
        return compute()
    except CanonicalFormError as err:
        return ("refused", str(err))


@settings(deadline=None)
@given(_request, st.booleans())
def test_the_digest_is_the_canonical_digest(request: dict[str, Any], right_key: bool) -> None:
    key = _outcome(lambda: fixture_key(request))
    key = key if isinstance(key, str) and right_key else "0" * 12
    assert _outcome(lambda: request_digest(request, key)) == _outcome(lambda: digest(request))


@settings(deadline=None)
@given(_request, _value, st.booleans())
def test_the_digest_from_a_written_line_is_the_canonical_digest(
    request: dict[str, Any], response: Any, right_key: bool
) -> None:
    try:
        key = fixture_key(request) if right_key else "0123456789ab"
    except CanonicalFormError:
        key = "0123456789ab"
    fixture = Fixture(key, request, (response,), {"interface": "x"})
    read, form = read_line(fixture.to_line()[:-1], "store.jsonl", 1)
    assert isinstance(read, Fixture) and form is not None
    expected = _outcome(lambda: digest(read.request))
    assert _outcome(lambda: request_digest(read.request, key, form)) == expected


@pytest.mark.parametrize(
    "request_",
    [
        {"a": [{"b": "},{"}, {"c": 'x"},{"y'}], "d": [{"e": "\\"}, {"f": ":"}]},
        {"m": [{"content": "one"}, {"content": "two"}], "n": 1e-05},
        {"t": [{"u": 1}, {"v": [{"w": None}, {"x": True}]}]},
    ],
)
def test_tricky_requests(request_: dict[str, Any]) -> None:
    fixture = Fixture(fixture_key(request_), request_, ({"ok": 1},))
    _, form = read_line(fixture.to_line()[:-1], "store.jsonl", 1)
    assert request_digest(request_, fixture.key, form) == digest(request_)
    edited = {**request_, "extra": 1}
    assert not request_digest(edited, fixture.key).startswith(fixture.key)


def test_a_request_orjson_cannot_write_is_digested_by_the_json_module() -> None:
    request = {"m": [{"a": 1}, {"b": 2}], "big": 10**30}
    assert request_digest(request, fixture_key(request)) == digest(request)
