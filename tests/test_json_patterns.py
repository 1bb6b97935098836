"""JSON Schema's pattern keywords are searched within a time bound, wherever a schema checks
a value: ``assert_structure`` and the simulator's check of what it made."""

from __future__ import annotations

import re
import types
from typing import Any

import jsonschema
import jsonschema._keywords
import jsonschema._utils
import pytest

from replaygate import pattern_search
from replaygate.assertions import measure_structure
from replaygate.json_schema import InvalidSchema, cached_validator, errors
from replaygate.sim.arguments import schema_example

NESTED = r"(?:(?:\w|\w)+)+!"
"""A pattern ``re`` searches in about 2**n steps in a word of n letters (12 letters:
about a second); the ``regex`` module fails it at once."""
SLOW = r"^(?:(?:(?:x|x)){50}){1,4}$"
"""A pattern both engines search about 2**50 ways in a string of x it does not match."""
WORD = "a" * 40


@pytest.fixture
def no_search_by_re(monkeypatch: pytest.MonkeyPatch) -> None:
    """``jsonschema``'s own pattern keywords fail the test if they search (they use ``re``)."""

    def refused(*args: Any) -> None:
        raise AssertionError(f"jsonschema searched {args[:1]!r} with re")

    shim = types.SimpleNamespace(search=refused)
    monkeypatch.setattr(jsonschema._keywords, "re", shim)
    monkeypatch.setattr(jsonschema._utils, "re", shim)


SCHEMAS: list[tuple[dict[str, Any], Any]] = [
    ({"type": "string", "pattern": NESTED}, WORD),
    ({"type": "string", "pattern": "^[a-z]+$"}, "abc"),
    ({"type": "object", "patternProperties": {NESTED: {"type": "integer"}}}, {WORD: "x"}),
    ({"type": "object", "patternProperties": {"^a": {"type": "integer"}}}, {"ab": "x", "b": 1}),
    (
        {"type": "object", "patternProperties": {NESTED: {}}, "additionalProperties": False},
        {WORD: 1, "b!": 2},
    ),
    (
        {"type": "object", "properties": {"a": {}}, "additionalProperties": False},
        {"a": 1, "b": 2, "c": 3},
    ),
    (
        {
            "type": "object",
            "patternProperties": {"^x": {}, "^y": {}},
            "additionalProperties": {"type": "string"},
        },
        {"xa": 1, "ya": 2, "z": 3},
    ),
]


def _found(check: Any, value: Any) -> list[tuple[list[Any], list[Any], str]]:
    return sorted(
        (list(error.absolute_path), list(error.absolute_schema_path), error.message)
        for error in errors(check, value)
    )


@pytest.mark.parametrize(("schema", "value"), SCHEMAS)
def test_the_keywords_answer_as_jsonschema_answers(
    schema: dict[str, Any], value: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    small = _shortened(value)  # the stock validator's re searches 8 letters at once
    stock = jsonschema.Draft202012Validator(schema)
    expected = sorted(
        (list(error.absolute_path), list(error.absolute_schema_path), error.message)
        for error in stock.iter_errors(small)
    )
    assert _found(cached_validator(schema), small) == expected


def _shortened(value: Any) -> Any:
    """``value`` with each 40-letter word cut to 8 letters, which ``re`` searches at once."""
    if isinstance(value, dict):
        return {key.replace(WORD, WORD[:8]): item for key, item in value.items()}
    return value.replace(WORD, WORD[:8])


@pytest.mark.parametrize(
    ("schema", "value"), [case for case in SCHEMAS if "attern" in str(case[0])]
)
def test_no_pattern_is_searched_by_re(
    schema: dict[str, Any], value: Any, no_search_by_re: None
) -> None:
    list(errors(cached_validator(schema), value))  # the shim raises if re searches


def test_a_long_word_re_would_search_for_ever_is_checked_at_once(no_search_by_re: None) -> None:
    result = measure_structure(
        {"code": WORD}, {"type": "object", "properties": {"code": SCHEMAS[0][0]}}
    )
    assert [str(problem) for problem in result.problems] == [
        f"$.code: {WORD!r} does not match {NESTED!r}"
    ]
    named = measure_structure({WORD: 1}, SCHEMAS[4][0])
    assert [str(problem) for problem in named.problems] == [
        f"$: {WORD!r} does not match any of the regexes: {NESTED!r}"
    ]


def test_a_pattern_past_its_time_bound_is_refused_naming_it(
    monkeypatch: pytest.MonkeyPatch, no_search_by_re: None
) -> None:
    monkeypatch.setattr(pattern_search, "SECONDS", 0.05)
    schema = {"type": "object", "properties": {"code": {"type": "string", "pattern": SLOW}}}
    with pytest.raises(InvalidSchema) as refused:
        measure_structure({"code": "x" * 50 + "y"}, schema)
    message = str(refused.value)
    assert f"pattern '{SLOW}' took more than 0.05 s" in message
    assert "backtrack exponentially" in message
    named = {"type": "object", "patternProperties": {SLOW: {}}, "additionalProperties": False}
    with pytest.raises(InvalidSchema, match=re.escape(f"pattern '{SLOW}'")):
        measure_structure({"x" * 50 + "y": 1}, named)


def test_the_simulator_checks_what_it_made_without_re(no_search_by_re: None) -> None:
    # a name the simulator makes meets a patternProperties key re would search for ever
    schema = {
        "type": "object",
        "properties": {WORD: {"type": "integer"}},
        "patternProperties": {NESTED: {"type": "string"}},
        "required": [WORD],
    }
    assert schema_example(schema, "echo") == {WORD: 0}


@pytest.mark.parametrize(
    "draft",
    [jsonschema.Draft4Validator, jsonschema.Draft7Validator, jsonschema.Draft202012Validator],
)
def test_every_draft_checks_its_patterns_within_the_bound(
    draft: Any, no_search_by_re: None
) -> None:
    schema = {"$schema": draft.META_SCHEMA["$schema"], **SCHEMAS[4][0]}
    assert [error.message for error in errors(cached_validator(schema), {WORD: 1})] == [
        f"{WORD!r} does not match any of the regexes: {NESTED!r}"
    ]
    assert {"pattern", "patternProperties", "additionalProperties"} <= set(draft.VALIDATORS)
