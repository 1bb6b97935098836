"""A pattern search that runs past its time bound fails the structure check, whatever the
keywords around it make of that failure: ``not``, ``anyOf``, ``oneOf`` and ``if`` take a
subschema's failure as an answer, and took the search that answered nothing for the
pattern not found (``not`` passed a string the pattern is in)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from replaygate import json_patterns, pattern_search
from replaygate.assertions import assert_structure, measure_structure
from replaygate.json_schema import cached_validator, errors
from replaygate.sim.checked import failure, matches

BOUND = 0.01
"""A pattern search's time bound here: a search of ``TEXT`` runs past any bound, and each
one that does takes its whole bound of CPU (a hundredth of a second, not the twentieth of
``quick_bound`` in tests/conftest.py), while the searches answered take microseconds."""
SLOW = r"((a|aa)+)+b"
"""A pattern searched about 2**n ways in a run of n ``a`` before it is found at its end."""
TEXT = "a" * 40 + "!ab"
"""A string ``SLOW`` is found in (``ab``), past the bound (:data:`BOUND`)."""
PAST = (
    f"the string cannot be checked: pattern {SLOW!r} took more than {BOUND:g} s to search a "
    "string of 43 characters: "
)
"""How the failure of a search of ``TEXT`` past its bound starts."""
FAILED = (
    PAST + "its repeats of alternatives that match the same text backtrack exponentially "
    "(as they would in any check of it with Python's re)"
)
"""The failure of a search of ``TEXT`` past its bound."""


@pytest.fixture
def quick_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pattern search's time bound of :data:`BOUND`."""
    monkeypatch.setattr(pattern_search, "SECONDS", BOUND)


def _problems(value: Any, schema: dict[str, Any]) -> list[str]:
    return [str(problem) for problem in measure_structure(value, schema).problems]


def _only_past(problems: list[str], path: str) -> None:
    """``problems`` are the search's failure at ``path``, and maybe a failure the keywords
    made of it there."""
    assert any(problem.startswith(f"{path}: {PAST}") for problem in problems), problems
    assert all(problem.startswith(f"{path}: ") for problem in problems), problems


def test_the_short_string_is_matched_as_re_matches() -> None:
    assert re.search(SLOW, "a" * 12 + "!ab")  # what the long string is too


def test_not_fails_where_the_search_ran_past_its_bound(quick_bound: None) -> None:
    schema = {"type": "object", "properties": {"code": {"not": {"pattern": SLOW}}}}
    with pytest.raises(AssertionError) as raised:
        assert_structure({"code": TEXT}, schema)
    assert f"$.code: {PAST}" in str(raised.value)
    assert "backtrack exponentially" in str(raised.value)
    assert _problems({"code": "a" * 12 + "!ab"}, schema) == [
        f"$.code: {'a' * 12 + '!ab'!r} should not be valid under {{'pattern': {SLOW!r}}}"
    ]
    assert _problems({"code": "xyz"}, schema) == []  # within the bound: answered


def test_any_of_fails_where_a_branch_search_ran_past_its_bound(quick_bound: None) -> None:
    schema = {
        "type": "array",
        "items": {"anyOf": [{"pattern": SLOW}, {"type": "string", "minLength": 1}]},
    }
    assert _problems(["ab", TEXT], schema) == [f"$[1]: {FAILED}"]


def test_if_then_else_fails_where_the_if_search_ran_past_its_bound(quick_bound: None) -> None:
    # the string matches, so `then` applies and fails; the search answered nothing, and
    # `else` (which it passes) was taken
    branch = {"if": {"pattern": SLOW}, "then": {"maxLength": 5}, "else": {"minLength": 1}}
    schema = {"type": "object", "properties": {"code": branch}}
    _only_past(_problems({"code": TEXT}, schema), "$.code")
    assert _problems({"code": "aab"}, schema) == []
    assert _problems({"code": "aaaaab!"}, schema) == ["$.code: 'aaaaab!' is too long"]


def test_one_of_fails_where_a_branch_search_ran_past_its_bound(quick_bound: None) -> None:
    # both branches hold for the string (not one of them): the search's failure left one
    schema = {"properties": {"code": {"oneOf": [{"pattern": SLOW}, {"type": "string"}]}}}
    _only_past(_problems({"code": TEXT}, schema), "$.code")
    assert _problems({"code": "xyz"}, schema) == []


def test_a_property_name_searched_past_its_bound_under_not_fails(quick_bound: None) -> None:
    under_names = {"properties": {"z": {"not": {"propertyNames": {"pattern": SLOW}}}}}
    _only_past(_problems({"z": {TEXT: 1}}, under_names), "$.z")
    by_pattern = {"not": {"patternProperties": {SLOW: {"type": "string"}}}}
    [problem] = _problems({TEXT: 1}, by_pattern)
    assert problem.startswith(f"$: property name {TEXT!r} cannot be checked: pattern {SLOW!r}")


def test_contains_fails_where_an_item_search_ran_past_its_bound(quick_bound: None) -> None:
    schema = {"type": "array", "contains": {"pattern": SLOW}}
    assert _problems(["ab", "x", TEXT], schema) == [f"$[2]: {FAILED}"]


def test_the_failure_is_named_at_the_path_searched(quick_bound: None) -> None:
    # equal strings at two paths, the pattern searched under `not` at one only
    value = json.loads(json.dumps({"a": TEXT, "b": {"c": [TEXT]}}))
    schema = {"properties": {"b": {"properties": {"c": {"items": {"not": {"pattern": SLOW}}}}}}}
    assert _problems(value, schema) == [f"$.b.c[0]: {FAILED}"]


def test_a_search_past_its_bound_is_not_run_again_in_the_check(
    quick_bound: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    searches: list[str] = []

    def counted(pattern: str, text: str) -> bool:
        searches.append(text)
        return searched(pattern, text)

    searched = json_patterns.searched
    monkeypatch.setattr(json_patterns, "searched", counted)
    schema = {"anyOf": [{"not": {"pattern": SLOW}}, {"pattern": SLOW}, {"type": "integer"}]}
    assert _problems(TEXT, schema)[-1].startswith(f"$: {PAST}")
    assert searches == [TEXT]


def test_the_simulator_check_fails_naming_where_in_the_schema(quick_bound: None) -> None:
    schema = {"type": "object", "properties": {"code": {"not": {"pattern": SLOW}}}}
    check = cached_validator(schema, formats=False)
    assert matches(check, {"code": TEXT}, schema) is False
    why = failure(check, {"code": TEXT})
    assert why is not None and why.startswith("schema.properties.code.not.pattern: ")
    [error] = errors(check, {"code": TEXT})
    assert list(error.absolute_path) == ["code"]
    assert list(error.absolute_schema_path) == ["properties", "code", "not", "pattern"]
