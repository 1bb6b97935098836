"""assert_json names the line and column of every refusal: a syntax error, and a value
JSON does not hold (NaN, Infinity, 1e999, an integer of thousands of digits) or a text
nested too deeply, which Python's reader refuses without a position."""

from __future__ import annotations

import tracemalloc

import pytest

from replaygate.assertions import assert_json, structure_check
from replaygate.json_where import deepest

ANSWER = '{"summary": "NaN and 1e999 in text are words",\n "scores": [1, 2.5e3, %s]}'


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("NaN", "NaN is not a number JSON can hold"),
        ("Infinity", "Infinity is not a number JSON can hold"),
        ("-Infinity", "-Infinity is not a number JSON can hold"),
        ("1e999", "1e999 is beyond the range of a number"),
        ("9" * 5000, "an integer of 5,000 digits (at most 4,300 are read)"),
    ],
)
def test_a_value_json_does_not_hold_is_named_with_its_line_and_column(
    value: str, message: str
) -> None:
    text = ANSWER % value
    expected = f"output is not JSON that can be checked: {message} at line 2, column 23"
    with pytest.raises(AssertionError) as raised:
        assert_json(text, {"type": "object"})
    assert str(raised.value) == expected
    outcome = structure_check({}, kind="gate", from_json=True).evaluate(text)
    assert outcome.message == expected
    with pytest.raises(AssertionError) as as_bytes:  # columns count characters, not bytes
        assert_json(text.replace("scores", "scöres").encode(), {"type": "object"})
    assert str(as_bytes.value).endswith("at line 2, column 23")


def test_the_first_refused_value_is_named() -> None:
    with pytest.raises(AssertionError, match=r"NaN is not a number JSON can hold at line 3, col"):
        assert_json('{"a": [1,\n2,\n NaN, 1e999]}', {})


def test_a_text_nested_too_deeply_names_its_depth_and_where_the_deepest_level_opens() -> None:
    text = '{"plan":\n' + "[" * 100_000 + "]" * 100_000 + "}"
    with pytest.raises(AssertionError) as raised:
        assert_json(text, {})
    assert str(raised.value) == (
        "output is not JSON that can be checked: nested too deeply (100,001 levels, the "
        "deepest opening at line 2, column 100000)"
    )


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        (b'{"a": "\xff"}', "not UTF-8 text (invalid start byte at byte 7)"),
        (b"\xff\xfe{", "not UTF-16-LE text (truncated data at byte 2)"),
    ],
)
def test_bytes_that_are_not_text_fail_saying_where(raw: bytes, why: str) -> None:
    with pytest.raises(AssertionError) as raised:
        assert_json(raw, {})
    assert str(raised.value) == f"output is not JSON that can be checked: {why}"


def test_the_depth_of_a_long_text_is_found_holding_nothing_per_character() -> None:
    text = "[" * 20_000 + "]" * 20_000
    tracemalloc.start()
    try:
        said = deepest(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert said == "20,000 levels, the deepest opening at line 1, column 20000"
    assert peak < 40_000  # a depth kept for each of the 40,000 characters: 320 kB
