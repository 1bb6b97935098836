"""JSON made from a schema (a forced tool call's arguments, an answer in JSON of a schema)
validates against it, as ``jsonschema`` checks it: a string matches its ``pattern`` (one
was the text whatever the pattern said), a ``uniqueItems`` array holds distinct items (its
``minItems`` items were all alike), a number keeps within its exclusive bounds, an object
holds its ``minProperties``, ``dependentRequired`` and ``patternProperties``, an array its
``contains``, a value passes ``not`` and ``if``/``then``/``else`` (each was ignored). A
pattern the simulator makes no string for (a lookaround, a back-reference it cannot
satisfy), and a value made that ``jsonschema`` rejects, is refused with a 400 naming where
in the schema, not answered with JSON the schema fails."""

from __future__ import annotations

import datetime
import ipaddress
import json
import re
import string
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Annotated, Any, Literal

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import (
    UUID1,
    UUID3,
    UUID4,
    UUID5,
    UUID6,
    UUID7,
    UUID8,
    Base64Bytes,
    Base64Str,
    Base64UrlStr,
    BaseModel,
    DirectoryPath,
    Field,
    FilePath,
    IPvAnyAddress,
    IPvAnyInterface,
    IPvAnyNetwork,
    Json,
    PostgresDsn,
    TypeAdapter,
)

from replaygate import pattern_search
from replaygate.sanitize.secrets import refuse_secrets
from replaygate.sim import Simulator, patterns
from replaygate.sim.arguments import UnmadeValue, schema_example
from replaygate.sim.described import described
from replaygate.sim.patterns import PatternStrings
from sdks import anthropic, genai, openai

ASK = "Paris"
PATTERNS = [
    r"^[A-Z]{3}$",
    r"^\d{3}-\d{4}$",
    r"^[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}$",
    r"^#[0-9a-fA-F]{6}$",
    r"^(foo|bar)+$",
    r"v\d+",
    r"^\+?[1-9]\d{1,14}$",
    r"^[^\s,]+$",
    r"^(\w)-\1$",
    r"^[A-Z][a-z]*( [A-Z][a-z]*)*$",
    r"^(?:[01]\d|2[0-3]):[0-5]\d$",
    r"(?i)^id_[a-f]{2,4}\b",
    r"^[^\x00-\x7f]{2}$",
    r"Paris",
]
"""Patterns of the common subset: literals, classes, ranges, quantifiers, groups,
alternation, anchors, a back-reference; the last one the text itself matches (a
pattern is unanchored in JSON Schema)."""

FORMATS = [
    "date",
    "date-time",
    "time",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
    "uri",
]
"""The string formats of OpenAI's structured outputs, and uri."""


@dataclass
class Clients:
    """The SDK clients of the module's simulator."""

    openai: Any
    anthropic: Any
    gemini: Any


@pytest.fixture(scope="module")
def clients() -> Iterator[Clients]:
    with Simulator(behavior="echo") as sim:
        yield Clients(
            openai.OpenAI(api_key="k", base_url=sim.openai_base_url, max_retries=0),
            anthropic.Anthropic(api_key="k", base_url=sim.url, max_retries=0),
            genai.Client(api_key="k", http_options=genai.types.HttpOptions(base_url=sim.url)),
        )


def _chat(clients: Clients, schema: dict[str, Any]) -> Any:
    reply = clients.openai.chat.completions.create(
        model="g",
        messages=[{"role": "user", "content": ASK}],
        response_format={"type": "json_schema", "json_schema": {"name": "Out", "schema": schema}},
    )
    return json.loads(reply.choices[0].message.content)


def _responses(clients: Clients, schema: dict[str, Any]) -> Any:
    text = {"format": {"type": "json_schema", "name": "Out", "schema": schema}}
    return json.loads(clients.openai.responses.create(model="g", input=ASK, text=text).output_text)


def _anthropic(clients: Clients, schema: dict[str, Any]) -> Any:
    reply = clients.anthropic.messages.create(
        model="claude-sim",
        max_tokens=4096,
        messages=[{"role": "user", "content": ASK}],
        output_config={"format": {"type": "json_schema", "schema": schema}},
    )
    return json.loads(reply.content[0].text)


def _anthropic_tool(clients: Clients, schema: dict[str, Any]) -> Any:
    reply = clients.anthropic.messages.create(
        model="claude-sim",
        max_tokens=4096,
        messages=[{"role": "user", "content": ASK}],
        tools=[{"name": "Out", "input_schema": schema}],
        tool_choice={"type": "tool", "name": "Out"},
    )
    return reply.content[0].input


def _gemini(clients: Clients, schema: dict[str, Any]) -> Any:
    config = genai.types.GenerateContentConfig(
        response_mime_type="application/json", response_json_schema=schema
    )
    reply = clients.gemini.models.generate_content(model="gemini-sim", contents=ASK, config=config)
    return json.loads(reply.text)


ASKS = [_chat, _responses, _anthropic, _anthropic_tool, _gemini]
ANY_SCHEMA_ASKS = [_chat, _responses, _anthropic_tool, _gemini]
"""The interfaces taking a schema of any keywords: Anthropic's JSON outputs refuse an object
not closed and the constraints its structured outputs do not take (a tool not strict
takes them)."""


def _valid(value: Any, schema: dict[str, Any]) -> None:
    jsonschema.Draft202012Validator(
        schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    ).validate(value)


def _object(**properties: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


@pytest.mark.parametrize("ask", ASKS)
def test_strings_match_their_patterns(clients: Clients, ask: Any) -> None:
    schema = _object(**{f"p{i}": {"type": "string", "pattern": p} for i, p in enumerate(PATTERNS)})
    made = ask(clients, schema)
    _valid(made, schema)
    assert made["p0"] == "AAA" and made["p1"] == "000-0000" and made["p8"] == "a-a"
    assert made["p13"] == f"echo: {ASK}"


@pytest.mark.parametrize(
    "item",
    [
        {"type": "string"},
        {"type": "string", "pattern": r"^[A-Z]{2}$"},
        {"type": "string", "pattern": r"^x+$"},
        {"type": "string", "maxLength": 2},
        {"type": "string", "format": "date"},
        {"type": "string", "format": "email"},
        {"type": "string", "format": "uuid"},
        {"type": "string", "format": "ipv6"},
        {"type": "integer", "minimum": 3, "multipleOf": 3},
        {"type": "integer", "maximum": -10},
        {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
        {"enum": ["a", "b", "c", "d", "e"]},
        _object(name={"type": "string"}, rank={"type": "integer"}),
        {"type": "array", "items": {"type": "integer"}, "minItems": 1},
    ],
)
def test_unique_items_are_distinct(clients: Clients, item: dict[str, Any]) -> None:
    schema = _object(items={"type": "array", "items": item, "minItems": 5, "uniqueItems": True})
    made = _chat(clients, schema)
    _valid(made, schema)
    assert len(made["items"]) == 5


class Address(BaseModel):
    zip: Annotated[str, Field(pattern=r"^\d{5}(-\d{4})?$")]
    country: Literal["FR", "DE"]


class City(BaseModel):
    """A structured output as a user declares it: pydantic's schema, made strict by the
    openai SDK's ``parse``, and its answer validated by pydantic."""

    name: str
    code: Annotated[str, Field(pattern=r"^[A-Z]{3}$")]
    population: Annotated[int, Field(gt=0, lt=100)]
    ratio: Annotated[float, Field(gt=0, lt=1)]
    founded: datetime.date
    tags: Annotated[set[str], Field(min_length=3)]
    address: Address


@pytest.mark.parametrize("ask", ASKS)
def test_an_object_s_keys_come_in_the_order_of_its_properties(clients: Clients, ask: Any) -> None:
    """As the APIs write them, whatever order ``required`` names them in (Instructor sorts
    it): a streamed object fills its fields in that order, as it does live."""
    schema = _object(name={"type": "string"}, country={"type": "string"})
    schema["required"] = ["country", "name"]
    assert list(ask(clients, schema)) == ["name", "country"]


def test_a_pydantic_model_parses_the_answer(clients: Clients) -> None:
    ask = [{"role": "user", "content": ASK}]
    chat = clients.openai.chat.completions.parse(model="g", messages=ask, response_format=City)
    city = chat.choices[0].message.parsed
    assert city.code == "AAA" and city.address.zip == "00000" and len(city.tags) == 3
    answer = clients.openai.responses.parse(model="g", input=ASK, text_format=City)
    assert answer.output_parsed == city


SIZE = {"$defs": {"Size": {"enum": ["small", "large"]}}}
PAIR = {
    "type": "object",
    "properties": {"a": {"type": "integer"}},
    "required": ["a"],
    "dependentSchemas": {"a": {"required": ["b"]}},
}
"""An object whose ``dependentSchemas`` asks for ``b`` beside ``a``."""


@pytest.mark.parametrize(
    "schema",
    [
        _object(
            pair={
                "type": "array",
                "prefixItems": [
                    {"type": "integer", "minimum": 3},
                    {"type": "string", "format": "date"},
                ],
                "minItems": 2,
                "maxItems": 2,
                "items": False,
            }
        ),
        {**_object(size={"allOf": [{"$ref": "#/$defs/Size"}], "description": "a size"}), **SIZE},
        _object(code={"allOf": [{"type": "string"}, {"pattern": r"^[a-z]{2}$"}]}),
        _object(
            both={
                "allOf": [
                    {"properties": {"a": {"type": "integer", "exclusiveMinimum": 0}}},
                    {"properties": {"b": {"type": "string", "maxLength": 2}}, "required": ["b"]},
                ]
            }
        ),
    ],
    ids=["tuple", "allOf-ref", "allOf-string", "allOf-objects"],
)
def test_tuples_and_all_of_are_made_as_they_say(clients: Clients, schema: dict[str, Any]) -> None:
    """A tuple (pydantic's ``tuple[int, date]``: ``prefixItems``) gets an item of each of its
    schemas, and ``allOf`` is one schema of all its parts (a reference with a description
    beside it; a string's type and pattern apart): a value of its own was made of each
    part and only objects were kept."""
    _valid(_chat(clients, schema), schema)


class Reading(BaseModel):
    """Constraints Anthropic's structured outputs do not take: the anthropic SDK's
    ``messages.parse`` moves them into each field's description (``{minItems: 2}``)."""

    values: list[int] = Field(min_length=2)
    above: int = Field(gt=5)
    code: str = Field(pattern=r"^[A-Z]{3}$", description="A code")
    tags: set[str] = Field(min_length=3)
    span: tuple[int, datetime.date]
    ratio: float = Field(ge=0.5, le=0.75, multiple_of=0.25)
    name: str = Field(min_length=20, max_length=30)
    blob: Base64Str
    counts: Json[dict[str, int]]


def test_constraints_the_anthropic_sdk_moved_into_descriptions_are_kept(clients: Clients) -> None:
    """The simulator built the schema's keywords alone: ``[]``, ``0``, the text, and the
    SDK's validation of the answer failed (a ``Json`` field's ``contentMediaType`` and
    ``contentSchema`` among them)."""
    reply = clients.anthropic.messages.parse(
        model="claude-sim",
        max_tokens=1024,
        messages=[{"role": "user", "content": ASK}],
        output_format=Reading,
    )
    reading = reply.parsed_output
    assert reading.code == "AAA" and reading.above == 6 and len(reading.values) == 2
    assert reading.span == (0, datetime.date(2026, 1, 1))
    assert reading.blob.startswith("echo") and reading.counts == {}


def test_a_description_s_constraints_are_read_from_its_last_paragraph_alone() -> None:
    prose = {"type": "array", "description": "Give {minItems: 2} or more"}
    assert described(prose) == prose
    own = {"type": "array", "minItems": 1, "description": "Items\n\n{minItems: 2}"}
    assert described(own)["minItems"] == 1
    odd = {"type": "string", "description": "{minLength: two, pattern: ^a, b$, maximum: nan}"}
    assert described(odd) == {**odd, "pattern": "^a, b$"}


def test_constraints_litellm_moved_into_a_note_are_kept(clients: Clients) -> None:
    """LiteLLM sends an Anthropic model's structured output (an ADK agent's
    ``output_schema``) with the constraints Anthropic does not take in a note ending each
    description: ``tags: []`` was answered and the agent's validation failed."""
    note = "Note: minimum number of items: 3, all array items must be unique."
    tags = {"type": "array", "items": {"type": "string"}, "description": f"Tags {note}"}
    size = {"type": "number", "description": "Note: must be a multiple of 0.25, minimum value: 1."}
    made = _anthropic(clients, _object(tags=tags, size=size))
    assert len(set(made["tags"])) == 3 and made["size"] == 1.0
    prose = {"type": "integer", "description": "Note: minimum value: 5. Or more."}
    assert described(prose) == prose


def test_unique_items_take_each_alternative(clients: Clients) -> None:
    states = {"type": "string", "pattern": r"^(draft|final|review)$"}
    schema = _object(states={"type": "array", "items": states, "minItems": 3, "uniqueItems": True})
    assert _chat(clients, schema) == {"states": ["draft", "final", "review"]}


def test_a_pattern_string_is_never_the_text_again() -> None:
    # the text matches the pattern and is the first item; the pattern's own strings follow
    words = {"type": "array", "items": {"type": "string", "pattern": r"^[a-z]+$"}}
    made = schema_example({**words, "minItems": 30, "uniqueItems": True}, "t")
    assert made[0] == "t" and len(set(made)) == 30


@pytest.mark.parametrize(
    ("schema", "where", "why"),
    [
        (
            _object(code={"type": "string", "pattern": r"^(?=.*\d)[a-z\d]{8}$"}),
            "schema.properties.code.pattern",
            # as docs/frameworks.md shows it
            "The simulator makes no answer of the JSON asked for: its "
            "schema.properties.code.pattern: the string made for pattern "
            "'^(?=.*\\d)[a-z\\d]{8}$', 'aaaaaaaa', does not match it: the simulator follows "
            "no lookaround or word boundary",
        ),
        (
            _object(code={"type": "string", "pattern": r"^[a-z]{2}$", "minLength": 4}),
            "schema.properties.code.pattern",
            "minLength",
        ),
        (
            _object(code={"type": "string", "pattern": r"^\p{L}+$"}),
            "schema.properties.code.pattern",
            "is not a regular expression",
        ),
        (
            _object(
                codes={
                    "type": "array",
                    "items": {"type": "string", "pattern": r"^(ab)+$"},
                    "minItems": 400,
                    "uniqueItems": True,
                }
            ),
            "schema.properties.codes.items.pattern",
            "grow too slowly to make as many distinct ones as asked within 100,000 characters",
        ),
        (
            _object(
                flags={
                    "type": "array",
                    "items": {"type": "boolean"},
                    "minItems": 3,
                    "uniqueItems": True,
                }
            ),
            "schema.properties.flags: uniqueItems asks for 3 distinct items",
            "",
        ),
        (
            # a keyword the simulator does not follow: the value made is checked
            {**_object(pair={"$ref": "#/$defs/Pair"}), "$defs": {"Pair": PAIR}},
            "schema.$defs.Pair.dependentSchemas.a.required",
            "the value made fails it: 'b' is a required property",
        ),
        (
            _object(flag={"type": "boolean", "not": {"enum": [True, False]}}),
            "schema.properties.flag.not",
            "the 8 values the simulator made of the schema all match it",
        ),
        (
            _object(one={**_object(a={"type": "integer"}), "minProperties": 2}),
            "schema.properties.one.minProperties",
            "it asks for 2 properties, and the simulator finds 1 names the schema allows",
        ),
    ],
)
def test_a_value_the_simulator_cannot_make_is_refused_naming_where(
    clients: Clients, schema: dict[str, Any], where: str, why: str
) -> None:
    with pytest.raises(openai.BadRequestError) as chat:
        _chat(clients, schema)
    assert where in chat.value.message and why in chat.value.message
    with pytest.raises(anthropic.BadRequestError) as tool:
        _anthropic_tool(clients, schema)
    assert "tool 'Out'" in tool.value.message and where in tool.value.message
    with pytest.raises(genai.errors.ClientError) as gemini:
        _gemini(clients, schema)
    assert gemini.value.code == 400 and where in str(gemini.value)


SLOW = r"^(?:(?:(?:x|x)){50}){1,4}$"
"""A pattern whose search of a string it does not match backtracks about 2**50 times."""
BOUND = 0.01
"""A pattern search's time bound here: a search of a string such a pattern does not match
runs past any bound, and each one that does takes its whole bound of CPU (a hundredth of
a second, not the twentieth of ``quick_bound`` in tests/conftest.py); one that matches
takes microseconds."""


@pytest.fixture
def quick_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pattern search's time bound of :data:`BOUND`."""
    monkeypatch.setattr(pattern_search, "SECONDS", BOUND)


def test_a_pattern_that_backtracks_for_ever_is_refused_naming_it(
    clients: Clients, quick_bound: None
) -> None:
    # five distinct strings asked of a pattern making four: the fifth, tried, was
    # searched by re for ever, the simulator's thread and the client's call held
    schema = _object(
        codes={"type": "array", "items": {"type": "string", "pattern": SLOW}, "minItems": 5,
               "uniqueItems": True}
    )  # fmt: skip
    with pytest.raises(openai.BadRequestError) as chat:
        _chat(clients, schema)
    assert "schema.properties.codes.items.pattern" in chat.value.message
    assert "backtrack exponentially" in chat.value.message


def test_a_pattern_padded_to_its_length_that_backtracks_is_refused(quick_bound: None) -> None:
    strings = PatternStrings(r"^(?:(?:x|x)){50}$", shortest=60)  # 50 x, padded with 10
    past = re.escape(f"took more than {BOUND:g} s")
    with pytest.raises(pattern_search.SlowPatternError, match=past):
        strings.nth(0)
    assert PatternStrings(SLOW).nth(3) == "x" * 200  # what it can make is made


def test_a_text_re_would_search_for_ever_is_searched_at_once_and_a_string_made() -> None:
    # regex fails at once where re backtracks for ever: the simulator's text, a long word
    # with no "!", was searched by re for ever before the pattern's string was made
    schema = _object(code={"type": "string", "pattern": r"(?:(?:\w|\w)+)+!", "minLength": 30})
    made = schema_example(schema, "echo" + "o" * 40)
    assert made == {"code": "a" * 29 + "!"}


def test_a_property_name_searched_past_the_bound_is_refused_naming_where(
    quick_bound: None,
) -> None:
    name = "x" * 50 + "y"  # a name SLOW searches about 2**50 ways before it fails
    schema = {
        "type": "object",
        "properties": {name: {"type": "integer"}},
        "patternProperties": {SLOW: {"type": "string"}},
        "required": [name],
    }
    with pytest.raises(UnmadeValue, match=r"schema\.patternProperties\.\^.*backtrack"):
        schema_example(schema, "echo")


def test_a_pattern_searched_within_its_bound_is_answered_as_re_answers() -> None:
    assert pattern_search.searched(r"^(ab)+$", "abab")
    assert not pattern_search.searched(r"^(ab)+$", "aba")
    with pytest.raises(re.error):
        pattern_search.searched(r"^\p{L}+$", "a")  # regex reads it; re, as JSON Schema, not


def test_pattern_variants_are_distinct_and_match() -> None:
    for pattern in PATTERNS:
        strings = PatternStrings(pattern)
        made = [strings.nth(variant) for variant in range(20)]
        assert len(set(made)) == 20, pattern
        assert all(re.search(pattern, value) for value in made), pattern


def test_a_pattern_string_keeps_within_its_lengths() -> None:
    assert PatternStrings(r"^[a-z]+$", shortest=6).nth(0) == "aaaaaa"
    assert PatternStrings(r"\d", shortest=3).nth(0) == "0xx"
    with pytest.raises(ValueError, match="at most 2 characters"):
        PatternStrings(r"^[a-z]{3,}$", longest=2).nth(0)
    with pytest.raises(ValueError, match="longer than 10,000 characters"):
        PatternStrings(r"a{100000}").nth(0)


KEYWORDS = {
    "minProperties": (
        {**_object(a={"type": "integer"}, b={"type": "string"}), "required": ["a"]}
        | {"minProperties": 2, "additionalProperties": True},
        {"a": 0, "b": "t"},
    ),
    "minProperties-dict": (
        {"type": "object", "additionalProperties": {"type": "integer"}, "minProperties": 2},
        {"property_1": 0, "property_2": 0},
    ),
    "patternProperties": (
        {"type": "object", "patternProperties": {"^[A-Z]{2}$": {"type": "number"}}}
        | {"minProperties": 2, "additionalProperties": False},
        {"AA": 0.0, "AB": 0.0},
    ),
    "patternProperties-required": (
        {"type": "object", "required": ["n1"], "patternProperties": {r"^n\d$": {"const": 1}}},
        {"n1": 1},
    ),
    "propertyNames": (
        {"type": "object", "propertyNames": {"enum": ["x", "y"]}, "minProperties": 2}
        | {"additionalProperties": {"type": "boolean"}},
        {"x": False, "y": False},
    ),
    "propertyNames-pattern": (
        {"type": "object", "propertyNames": {"pattern": "^[A-Z]+$"}, "minProperties": 1},
        {"A": "t"},
    ),
    "dependentRequired": (
        {**_object(card={"type": "string"}, billing={"type": "string"}), "required": ["card"]}
        | {"dependentRequired": {"card": ["billing"]}},
        {"card": "t", "billing": "t"},
    ),
    "contains": (
        {"type": "array", "items": {"type": "integer"}, "contains": {"minimum": 5}},
        [5],
    ),
    "minContains": (
        {"type": "array", "items": {"type": "integer"}, "contains": {"minimum": 5}}
        | {"minContains": 2, "minItems": 3, "uniqueItems": True},
        [5, 6, 2],
    ),
    "not": ({"type": "string", "not": {"const": "t"}}, "t 2"),
    "not-enum": ({"enum": ["a", "b"], "not": {"const": "a"}}, "b"),
    "if-then": (
        {
            **_object(kind={"enum": ["card", "cash"]}, number={"type": "string"}),
            "required": ["kind"],
            "if": {"properties": {"kind": {"const": "card"}}},
            "then": {"properties": {"number": {"pattern": r"^\d{4}$"}}, "required": ["number"]},
        },
        {"kind": "card", "number": "0000"},
    ),
    "if-else": (
        {
            **_object(country={"type": "string"}),
            "additionalProperties": True,
            "if": {"properties": {"country": {"const": "US"}}},
            "then": {"properties": {"zip": {"pattern": r"^\d{5}$"}}, "required": ["zip"]},
            "else": {
                "properties": {"postcode": {"pattern": r"^[A-Z]\d$"}},
                "required": ["postcode"],
            },
        },
        {"country": "t", "postcode": "A0"},
    ),
}
"""A schema of each keyword the simulator follows beyond types and bounds, and the value
it makes, its strings ``t``: the keyword was ignored and the value failed it."""


@pytest.mark.parametrize(("schema", "made"), KEYWORDS.values(), ids=list(KEYWORDS))
def test_object_array_and_conditional_keywords_are_followed(
    schema: dict[str, Any], made: Any
) -> None:
    assert schema_example(schema, "t") == made
    _valid(made, schema)


@pytest.mark.parametrize("ask", ANY_SCHEMA_ASKS)
def test_each_interface_answers_what_the_keywords_ask(clients: Clients, ask: Any) -> None:
    schema = _object(**{name.replace("-", "_"): one for name, (one, _) in KEYWORDS.items()})
    _valid(ask(clients, schema), schema)


class Scores(BaseModel):
    """Dictionaries as pydantic declares them: ``minProperties`` of the values'
    ``additionalProperties``, keys of a pattern (``patternProperties``) or of a literal
    (``propertyNames``)."""

    scores: Annotated[dict[str, int], Field(min_length=2)]
    codes: dict[Annotated[str, Field(pattern=r"^[A-Z]{2}$")], float] = Field(min_length=1)
    flags: dict[Literal["x", "y"], bool] = Field(min_length=2)


def test_a_pydantic_model_of_dictionaries_parses_the_answer(clients: Clients) -> None:
    """Asked for without ``strict`` (the SDK's ``parse`` asks strictly, and the API refuses
    a strict schema holding a dictionary, an object it cannot close)."""
    ask = [{"role": "user", "content": ASK}]
    named = {"name": "Scores", "schema": Scores.model_json_schema()}
    asked = {"type": "json_schema", "json_schema": named}
    chat = clients.openai.chat.completions.create(model="g", messages=ask, response_format=asked)
    assert Scores.model_validate_json(chat.choices[0].message.content) == Scores(
        scores={"property_1": 0, "property_2": 0}, codes={"AA": 0.0}, flags={"x": False, "y": False}
    )


@pytest.mark.parametrize(
    ("schema", "made"),
    [
        (_object(a={"type": "text"}), {"a": f"echo: {ASK}"}),
        (_object(a={"$ref": "https://example.com/a.json"}), {"a": None}),
        (
            {"type": "object", "patternProperties": {"(": {"type": "integer"}}, "minProperties": 1},
            {"property_1": f"echo: {ASK}"},
        ),
        ({"$schema": [], **_object(a={"type": "string"})}, {"a": f"echo: {ASK}"}),
        (
            {
                "$schema": "http://json-schema.org/draft-04/schema#",
                "type": "object",
                "patternProperties": {"(": {"type": "integer"}},
                "minProperties": 1,
            },
            {"property_1": f"echo: {ASK}"},
        ),
    ],
    ids=["unknown-type", "remote-ref", "bad-regex", "$schema-not-a-uri", "draft-04-bad-regex"],
)
def test_a_schema_jsonschema_cannot_use_is_answered_unchecked(
    clients: Clients, schema: dict[str, Any], made: Any
) -> None:
    """As before the answer was checked: a string for a type no draft has, None for a
    ``$ref`` the schema does not hold (fetched from nowhere); no 500."""
    assert _chat(clients, schema) == made
    assert _anthropic_tool(clients, schema) == made


def test_a_schema_of_an_integer_beyond_64_bits_is_checked() -> None:
    # the schema's bytes, the key of its validator kept, are not made for such a number
    big = {"type": "integer", "minimum": 2**64}
    assert schema_example({"type": "array", "items": big, "minItems": 1}, "t") == [2**64]
    with pytest.raises(UnmadeValue, match=r"^schema\.dependentSchemas\.a\.required: "):
        schema_example({**PAIR, "properties": {"a": big}}, "t")


@pytest.mark.parametrize(
    "kind",
    [
        UUID1,
        UUID3,
        UUID4,
        UUID5,
        UUID6,
        UUID7,
        UUID8,
        IPvAnyAddress,
        IPvAnyInterface,
        IPvAnyNetwork,
        ipaddress.IPv4Network,
        ipaddress.IPv6Network,
        ipaddress.IPv4Interface,
        ipaddress.IPv6Interface,
        DirectoryPath,
    ],
    ids=lambda kind: TypeAdapter(kind).json_schema()["format"],
)
def test_pydantic_s_own_formats_are_made_as_it_validates_them(kind: Any) -> None:
    """pydantic writes formats of its own (``uuid4`` for a ``UUID4``, ``ipvanyaddress``,
    ``ipv4network``...): they took the text, which the model then refused at every retry
    (Instructor's, pydantic-ai's), so such a model could not be recorded from ``echo``."""
    adapter = TypeAdapter(list[kind])
    schema = {**adapter.json_schema(), "minItems": 2, "uniqueItems": True}
    assert len(set(adapter.validate_python(schema_example(schema, "t")))) == 2


@pytest.mark.parametrize(
    "kind",
    [Base64Str, Base64Bytes, Base64UrlStr, Json, Json[dict[str, int]], Json[list[Base64Str]]],
    ids=str,
)
def test_encoded_and_json_strings_are_made_as_pydantic_validates_them(kind: Any) -> None:
    """A ``format: base64`` (pydantic's ``Base64Str``) or ``contentEncoding`` string is
    the text encoded, one of ``contentMediaType: application/json`` (``Json``) the JSON
    text of a value of its ``contentSchema``: each took the text, which the model refused
    at every retry."""
    adapter = TypeAdapter(list[kind])
    schema = {**adapter.json_schema(), "minItems": 2, "uniqueItems": True}
    assert len(adapter.validate_python(schema_example(schema, "t"))) == 2


@pytest.mark.parametrize(
    ("step", "least"), [("0.07", "0.2"), ("0.001", "123.4567"), ("0.05", "19.99")]
)
def test_a_decimal_multiple_is_made_as_pydantic_validates_it(step: str, least: str) -> None:
    """A multiple reckoned in binary (``3 * 0.07``, ``0.21000000000000002``) passed the
    check of the schema, and pydantic's ``Decimal`` refused it as no multiple."""
    kind = Annotated[Decimal, Field(multiple_of=Decimal(step), ge=Decimal(least))]
    adapter = TypeAdapter(list[kind])
    schema = {**adapter.json_schema(), "minItems": 3, "uniqueItems": True}
    assert len(adapter.validate_json(json.dumps(schema_example(schema, "t")))) == 3


@pytest.mark.parametrize("least", [0, 40])
def test_an_encoded_text_is_recorded_past_the_secret_check(least: int) -> None:
    """The base64 of a long text reads as a key to the check a recording passes: the
    text is cut short of a token's length, a longer string asked for made of ``x``."""
    item = {"type": "string", "format": "base64", "minLength": least}
    schema = {"type": "array", "items": item, "minItems": 2, "uniqueItems": True}
    made = schema_example(schema, "echo: What is the weather in Paris today?")
    assert len(set(TypeAdapter(list[Base64Str]).validate_python(made))) == 2
    refuse_secrets({}, {"body": {"arguments": json.dumps(made)}})


@pytest.mark.parametrize(
    ("schema", "where", "why"),
    [
        (TypeAdapter(PostgresDsn).json_schema(), "schema.format", "cannot tell"),
        (TypeAdapter(FilePath).json_schema(), "schema.format", "a file that exists"),
        (
            {"type": "string", "format": "base64", "minLength": 5, "maxLength": 7},
            "schema.maxLength",
            "base64-encoded, is 8 characters long",
        ),
    ],
)
def test_a_string_of_a_content_or_scheme_it_cannot_make_is_refused(
    schema: dict[str, Any], where: str, why: str
) -> None:
    with pytest.raises(UnmadeValue, match=re.escape(where)) as refused:
        schema_example(schema, "t")
    assert why in str(refused.value)


def test_gemini_s_upper_case_types_are_answered_unchecked(clients: Clients) -> None:
    config = genai.types.GenerateContentConfig(
        response_mime_type="application/json",
        response_schema={
            "type": "OBJECT",
            "properties": {"a": {"type": "STRING"}},
            "required": ["a"],
        },
    )
    reply = clients.gemini.models.generate_content(model="gemini-sim", contents=ASK, config=config)
    assert json.loads(reply.text) == {"a": f"echo: {ASK}"}


# A schema's leaves, each one a value exists for (and, in a uniqueItems array, five
# distinct ones).
_NAMES = st.sampled_from(["a", "b", "name", "rank", "when", "tags"])
_STRINGS = st.one_of(
    st.just({"type": "string"}),
    st.builds(lambda p: {"type": "string", "pattern": p}, st.sampled_from(PATTERNS[:-1])),
    st.builds(
        lambda f: {"type": "string", "format": f},
        st.sampled_from(FORMATS),
    ),
    st.builds(
        lambda low, more: {"type": "string", "minLength": low, "maxLength": low + more},
        st.integers(0, 30),
        st.integers(2, 30),
    ),
)


@st.composite
def _numbers(draw: st.DrawFn) -> dict[str, Any]:
    """An integer or number schema whose bounds leave room for five of its values."""
    integer = draw(st.booleans())
    schema: dict[str, Any] = {"type": "integer" if integer else "number"}
    step = draw(st.sampled_from([None, 2, 5] if integer else [None, 0.5]))
    low = draw(st.integers(-50, 50))
    if step:
        schema["multipleOf"] = step
    if draw(st.booleans()):
        schema["exclusiveMinimum" if draw(st.booleans()) else "minimum"] = low
    if draw(st.booleans()):
        high = low + 6 * (step or 1) + draw(st.integers(0, 10))
        schema["exclusiveMaximum" if draw(st.booleans()) else "maximum"] = high
    return schema


_LEAVES = st.one_of(
    _STRINGS,
    _numbers(),
    st.builds(
        lambda values: {"enum": values},
        st.lists(st.text(string.ascii_letters, min_size=1, max_size=5), min_size=5, unique=True),
    ),
)
_NAME_PATTERNS = st.sampled_from([r"^[A-Z]{2}$", r"^n\d+$", r"^(foo|bar)+$"])
_SCHEMAS = st.recursive(
    _LEAVES
    | st.sampled_from([{"type": "boolean"}, {"type": "null"}, {"const": "fixed"}])
    | st.builds(
        # the first value of the leaf refused: the next one is made
        lambda leaf: {**leaf, "not": {"const": schema_example(leaf, f"echo: {ASK}")}},
        _LEAVES,
    ),
    lambda inner: st.one_of(
        st.builds(
            lambda items, count: {"type": "array", "items": items, "minItems": count},
            inner,
            st.integers(0, 3),
        ),
        st.builds(
            lambda prefix: {
                "type": "array",
                "prefixItems": prefix,
                "minItems": len(prefix),
                "maxItems": len(prefix),
            },
            st.lists(inner, min_size=1, max_size=3),
        ),
        st.builds(lambda part: {"allOf": [part], "description": "one part"}, inner),
        st.builds(
            lambda items, count: {
                "type": "array",
                "items": items,
                "minItems": count,
                "uniqueItems": True,
            },
            _LEAVES,
            st.integers(0, 5),
        ),
        st.builds(
            lambda properties: _object(**properties),
            st.dictionaries(_NAMES, inner, max_size=4),
        ),
        st.builds(
            lambda values, count: (
                {"type": "object", "additionalProperties": values} | {"minProperties": count}
            ),
            inner,
            st.integers(0, 3),
        ),
        st.builds(
            lambda pattern, values, count: (
                {"type": "object", "patternProperties": {pattern: values}}
                | {"minProperties": count, "additionalProperties": False}
            ),
            _NAME_PATTERNS,
            inner,
            st.integers(0, 3),
        ),
        st.builds(
            lambda pattern, values, count: (
                {"type": "object", "propertyNames": {"pattern": pattern}}
                | {"additionalProperties": values, "minProperties": count}
            ),
            _NAME_PATTERNS,
            inner,
            st.integers(0, 3),
        ),
        st.builds(
            lambda properties: (
                {**_object(**properties), "required": list(properties)[:1]}
                | {"dependentRequired": {name: list(properties) for name in properties}}
            ),
            st.dictionaries(_NAMES, inner, min_size=1, max_size=3),
        ),
        st.builds(
            lambda part, count: {"type": "array", "contains": part, "minContains": count},
            inner,
            st.integers(0, 3),
        ),
        st.builds(
            lambda properties: (
                {**_object(**properties), "required": []}
                | {"if": {"minProperties": 1}, "then": {"required": list(properties)[:1]}}
                | {"else": {"required": list(properties)}}
            ),
            st.dictionaries(_NAMES, inner, max_size=3),
        ),
    ),
    max_leaves=8,
)


@given(
    schema=st.builds(lambda properties: _object(**properties), st.dictionaries(_NAMES, _SCHEMAS)),
    ask=st.sampled_from(ANY_SCHEMA_ASKS),
)
def test_json_made_from_a_schema_validates_against_it(
    clients: Clients, schema: dict[str, Any], ask: Any
) -> None:
    _valid(ask(clients, schema), schema)


def test_a_part_matching_no_character_is_walked_once_however_often_it_repeats(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # (?:\b){3000000} walked three million times held the simulator's thread for seconds
    walks = 0
    walk = patterns._Builder.walk

    def counted(self: Any, items: Any) -> None:
        nonlocal walks
        walks += 1
        walk(self, items)

    monkeypatch.setattr(patterns._Builder, "walk", counted)
    # a part that is the same each time is made once; one holding an alternation is
    # walked each time it repeats, and stops at the first that adds nothing
    for pattern in (r"(?:\b){100}x", r"(?:\b|$){100}x"):
        walks = 0
        made = PatternStrings(pattern).nth(0)
        assert made == "x" and walks < 10, pattern
