"""JSON Schema's pattern keywords are searched within a time bound, wherever a schema checks
a value: ``assert_structure`` and the simulator's check of what it made."""

from __future__ import annotations

import dataclasses
import json
import types
from typing import Any

import jsonschema
import jsonschema._keywords
import jsonschema._utils
import pytest

from replaygate import pattern_search
from replaygate.assertions import measure_structure
from replaygate.evals import AgentEntry, run_eval
from replaygate.evals.cases import EvalCase
from replaygate.examples.research_copilot import copilot
from replaygate.examples.research_copilot.defaults import shipped_fixtures
from replaygate.json_schema import cached_validator, errors
from replaygate.sim.arguments import schema_example

NESTED = r"(?:(?:\w|\w)+)+!"
"""A pattern ``re`` searches in about 2**n steps in a word of n letters (12 letters:
about a second); the ``regex`` module fails it at once."""
SLOW = r"^(?:(?:(?:x|x)){50}){1,4}$"
"""A pattern both engines search about 2**50 ways in a string of x it does not match
(the simulator's tests use it too; importing them would load the provider SDKs)."""
WORD = "a" * 40
BOUND = 0.01
"""A pattern search's time bound here: a search of ``SLOW`` runs past any bound, and each
one that does takes its whole bound of CPU (a hundredth of a second, not the twentieth of
``quick_bound`` in tests/conftest.py)."""


@pytest.fixture
def quick_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pattern search's time bound of :data:`BOUND`."""
    monkeypatch.setattr(pattern_search, "SECONDS", BOUND)


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


def test_a_search_past_its_time_bound_fails_the_check_there_naming_the_pattern(
    quick_bound: None, no_search_by_re: None
) -> None:
    past = f"pattern '{SLOW}' took more than {BOUND:g} s to search a string of 51 characters"
    schema = {"type": "object", "properties": {"code": {"type": "string", "pattern": SLOW}}}
    [problem] = measure_structure({"code": "x" * 50 + "y"}, schema).problems
    assert str(problem).startswith(f"$.code: the string cannot be checked: {past}: ")
    assert "backtrack exponentially" in str(problem)
    name = "x" * 50 + "y"
    for keywords in (
        {"patternProperties": {SLOW: {}}},
        {"patternProperties": {SLOW: {}}, "additionalProperties": False},
    ):
        problems = measure_structure({name: 1}, {"type": "object", **keywords}).problems
        assert {str(found) for found in problems} == {
            f"$: property name {name!r} cannot be checked: {past}: its repeats of alternatives "
            "that match the same text backtrack exponentially (as they would in any check of "
            "it with Python's re)"
        }


@pytest.mark.slow  # the eval runner's whole flow
def test_an_eval_sample_whose_schema_search_runs_past_its_bound_fails(quick_bound: None) -> None:
    # a broken check's exception, which reached the command line as a traceback
    def answers_json(model: Any, question: str) -> Any:
        return dataclasses.replace(
            copilot(model, question), final=json.dumps({"code": "x" * 50 + "y"})
        )

    schema = {"type": "object", "properties": {"code": {"type": "string", "pattern": SLOW}}}
    case = EvalCase("slow", "What is RAG?", 1, 1, schema=schema)
    agent = AgentEntry(answers_json, settings=copilot.settings)
    [outcome] = (
        run_eval([case], shipped_fixtures(), agent=agent).cases[0].sampled.samples[0].outcomes
    )
    assert outcome.name == "schema" and not outcome.passed
    assert f"pattern '{SLOW}' took more than {BOUND:g} s" in outcome.message


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


@pytest.mark.filterwarnings("ignore:Possible nested set:FutureWarning")
@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        ("^[[:alpha:]]+$", "abc"),  # a set of [:alph, then a ]: no POSIX class
        ("^[[:alpha:]]+$", "a]]"),
        ("[^[:digit:]]", "x"),
        ("[]a[]", "["),
        (r"[\[x]y", "[y"),
        (r"a\[[:b]", "a[:"),
    ],
)
def test_a_bracket_inside_a_set_is_the_character_as_re_and_jsonschema_read_it(
    pattern: str, text: str
) -> None:
    # the regex module read [[:alpha:]] as a POSIX class, and passed what they fail
    assert_read_as_jsonschema_reads(pattern, text)


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        (r"^[\w ]+$", "Z\u0337\u0322a\u0338l\u0336g\u0335o"),  # stacked accents: no word
        (r"^\w+$", "cafe\u0301"),
        (r"^\w+$", "x²"),
        (r"^[^\W\d_]+$", "हिन्दी"),
        (r"\bfe\b", "cafe\u0301 fe"),
        (r"^\S+$", "a\x1cb"),
        (r"^\w+$", "café"),
        (r"(?a)^\w+$", "café"),
    ],
)
def test_word_digit_and_space_classes_are_read_as_re_and_jsonschema_read_them(
    pattern: str, text: str
) -> None:
    # the regex module took combining marks for word characters, and ² for none
    assert_read_as_jsonschema_reads(pattern, text)


def assert_read_as_jsonschema_reads(pattern: str, text: str) -> None:
    """The pattern search and a structure check of ``text`` agree with jsonschema."""
    schema = {"type": "string", "pattern": pattern}
    expected = jsonschema.Draft202012Validator(schema).is_valid(text)
    assert pattern_search.searched(pattern, text) == expected
    assert (not measure_structure(text, schema).problems) == expected
