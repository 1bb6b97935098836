"""Arguments for a tool call the simulator must make (a request forcing one), and JSON
a request asks for, made from a JSON schema: the smallest value each part accepts.

An object gets its required properties (all of them when it names none); ``$ref`` is
resolved within the schema (``#/$defs/...``, ``#/definitions/...``); ``const``, the
first ``enum`` value, the first of ``anyOf``/``oneOf``, the parts of ``allOf`` as one
schema; a string is ``text`` (the answer the behaviour gave instead), a value of its
``format``, or one its ``pattern`` matches (:mod:`replaygate.sim.patterns`); a number
its least within its bounds, or 0; an array its ``minItems`` items (a tuple's
``prefixItems`` first), distinct ones where it says ``uniqueItems``. A schema that
refers to itself without end gives None where it loops. The value made is checked
against the whole schema (:mod:`replaygate.sim.checked`): a value the simulator cannot
make, or one that fails the check, is an :class:`UnmadeValue` naming where in the
schema. Constraints an SDK moved into a description are read back first
(:mod:`replaygate.sim.described`).
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from fractions import Fraction
from typing import Any

from replaygate.models.types import ModelResponse, ToolCall, ToolSpec
from replaygate.sim.checked import failure, ref_where, validator
from replaygate.sim.described import described
from replaygate.sim.patterns import PatternStrings

MAX_DEPTH = 32
"""How deep a schema is followed before its value is None (a ``$ref`` loop)."""
MAX_VALUES = 10_000
"""How many values one answer is made of at most: nested ``minItems`` multiply, and the
server's one thread would otherwise build an answer of hundreds of megabytes."""
_START = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
_FORMATS: dict[str, Callable[[int], str]] = {
    "date": lambda n: (_START + datetime.timedelta(days=n)).strftime("%Y-%m-%d"),
    "date-time": lambda n: (_START + datetime.timedelta(seconds=n)).strftime("%Y-%m-%dT%H:%M:%SZ"),
    "time": lambda n: (_START + datetime.timedelta(seconds=n)).strftime("%H:%M:%SZ"),
    "email": lambda n: f"user{n or ''}@example.com",
    "uri": lambda n: f"https://example.com/{n or ''}",
    "uuid": lambda n: f"00000000-0000-0000-0000-{n:012x}",
    "ipv4": lambda n: f"10.{n >> 16 & 255}.{n >> 8 & 255}.{n & 255}" if n else "192.0.2.1",
    "ipv6": lambda n: f"2001:db8::{n + 1:x}",
    "hostname": lambda n: f"host{n}.example.com" if n else "example.com",
    "duration": lambda n: f"P{n + 1}D",
}
"""The ``n``-th value of each common string ``format`` (a string of another takes the
text)."""


class UnmadeValue(ValueError):
    """A value the schema asks for that the simulator cannot make (a ``pattern`` it cannot
    satisfy, ``uniqueItems`` of too few distinct values), naming where in the schema."""


def _resolved(schema: Mapping[str, Any], root: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """``schema`` with its ``$ref`` followed within ``root``, or None if it points nowhere."""
    ref = schema.get("$ref")
    if not isinstance(ref, str):
        return schema
    node: Any = root
    for part in ref.removeprefix("#").strip("/").split("/") if ref.startswith("#") else [None]:
        if part is None or not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    if not isinstance(node, Mapping):
        return None
    rest = {k: v for k, v in schema.items() if k != "$ref"}
    return {**node, **rest}


@dataclasses.dataclass
class _Maker:
    """Makes the values of one schema (``root``), its strings ``text``, at most
    :data:`MAX_VALUES` of them."""

    root: Mapping[str, Any]
    text: str
    left: int = MAX_VALUES
    patterns: dict[tuple[str, int, float], PatternStrings] = dataclasses.field(default_factory=dict)
    """The strings of each pattern (and lengths) asked for, made once."""

    def value(self, schema: Any, where: str, depth: int = 0, variant: int = 0) -> Any:
        """The ``variant``-th value of ``schema`` (found at ``where`` in the root): the
        smallest the schema accepts first, each later one differing from those before."""
        self.left -= 1
        if depth > MAX_DEPTH or self.left < 0 or not isinstance(schema, Mapping):
            return None
        resolved = _resolved(schema, self.root)
        if resolved is not schema:  # a $ref, followed (None: it points nowhere)
            ref = ref_where(str(schema["$ref"]))
            return None if resolved is None else self.value(resolved, ref, depth + 1, variant)
        schema = described(schema)
        if "const" in schema:
            return schema["const"]
        enum = schema.get("enum")
        if isinstance(enum, list) and enum:
            return enum[variant] if variant < len(enum) else enum[0]
        for key in ("anyOf", "oneOf"):
            options = schema.get(key)
            if isinstance(options, list) and options:
                return self.value(options[0], f"{where}.{key}.0", depth + 1, variant)
        parts = schema.get("allOf")
        if isinstance(parts, list) and parts:
            merged: Mapping[str, Any] = {k: v for k, v in schema.items() if k != "allOf"}
            for part in parts:
                resolved = _resolved(part, self.root) if isinstance(part, Mapping) else None
                merged = _merged(merged, resolved or {})
            return self.value(merged, f"{where}.allOf", depth + 1, variant)
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), "null")
        if isinstance(kind, str):
            kind = kind.lower()  # Gemini's OpenAPI schemas spell types in upper case
        if kind == "object" or (kind is None and "properties" in schema):
            return self._object(schema, where, depth, variant)
        if kind == "array":
            return self._array(schema, where, depth, variant)
        if kind in ("integer", "number"):
            return _number(schema, kind == "integer", variant)
        if kind == "boolean":
            return variant % 2 == 1
        if kind == "null":
            return None
        return self._string(schema, where, variant)

    def _object(self, schema: Mapping[str, Any], where: str, depth: int, variant: int) -> Any:
        """Its required properties (every one when it names none), each the
        ``variant``-th value of its own."""
        properties = schema.get("properties")
        properties = properties if isinstance(properties, Mapping) else {}
        required = schema.get("required")
        names = required if isinstance(required, list) else list(properties)
        return {
            name: self.value(
                properties.get(name, {}), f"{where}.properties.{name}", depth + 1, variant
            )
            for name in names
            if isinstance(name, str)
        }

    def _array(self, schema: Mapping[str, Any], where: str, depth: int, variant: int) -> Any:
        """Its ``minItems`` items; distinct ones (the ``variant``-th and those after it)
        where it says ``uniqueItems``."""
        count = schema.get("minItems")
        count = min(count, max(self.left, 0)) if isinstance(count, int) and count > 0 else 0
        items, unique = schema.get("items", {}), schema.get("uniqueItems") is True
        prefix = schema.get("prefixItems", items if isinstance(items, list) else [])
        prefix = prefix if isinstance(prefix, list) else []
        rest = schema.get("additionalItems", {}) if isinstance(items, list) else items
        made = [
            self.value(
                prefix[index] if index < len(prefix) else rest,
                f"{where}.prefixItems.{index}" if index < len(prefix) else f"{where}.items",
                depth + 1,
                variant + index if unique else variant,
            )
            for index in range(count)
        ]
        if unique and len({_key(item) for item in made}) < len(made):
            raise UnmadeValue(
                f"{where}: uniqueItems asks for {count} distinct items, and the simulator "
                f"makes fewer distinct values of {where}.items"
            )
        return made

    def _string(self, schema: Mapping[str, Any], where: str, variant: int) -> str:
        """The text (numbered after the first), or the value of the schema's
        ``format``, made as long as ``minLength`` and ``maxLength`` allow; one its
        ``pattern`` makes where that one does not match it (never the first, the text
        again)."""
        value = self._plain(schema, variant)
        pattern = schema.get("pattern")
        if not isinstance(pattern, str) or _found(pattern, value):
            return value
        shortest, longest = _length(schema, "minLength"), _length(schema, "maxLength")
        bounds = (pattern, shortest or 0, math.inf if longest is None else longest)
        try:
            if bounds not in self.patterns:
                self.patterns[bounds] = PatternStrings(*bounds)
            made = self.patterns[bounds].nth(variant)
            first = self._plain(schema, 0)
            if variant and made == first and _found(pattern, first):
                made = self.patterns[bounds].nth(0)  # the text took the first's place
        except ValueError as err:
            raise UnmadeValue(f"{where}.pattern: {err}") from None
        return made

    def _plain(self, schema: Mapping[str, Any], variant: int) -> str:
        """The text (numbered after the first), or the value of the schema's
        ``format``, made as long as ``minLength`` and ``maxLength`` allow."""
        form = schema.get("format")
        formatted = _FORMATS.get(form) if isinstance(form, str) else None
        value = (
            formatted(variant) if formatted else self.text + (f" {variant + 1}" if variant else "")
        )
        shortest, longest = _length(schema, "minLength"), _length(schema, "maxLength")
        if longest is not None and len(value) > longest:
            cut = len(value) - max(longest, 0) if variant and not formatted else 0  # keep " 2"
            value = value[cut : cut + max(longest, 0)]
        if shortest is not None and len(value) < shortest:
            value += "x" * min(shortest - len(value), 100_000)
        return value


def _merged(schema: Mapping[str, Any], part: Mapping[str, Any]) -> Mapping[str, Any]:
    """``schema`` with the keywords of ``part`` (one of its ``allOf``): their properties
    and required names together (all of a part's properties where it names none
    required, as an object alone gives them), its other keywords over the schema's."""
    merged = {**schema, **part}
    required: list[Any] = []
    properties: dict[str, Any] = {}
    for one in (schema, part):
        own = one.get("properties")
        own = own if isinstance(own, Mapping) else {}
        properties.update(own)
        names = one.get("required", list(own))
        required += names if isinstance(names, list) else []
    if properties:
        merged["properties"] = properties
    if required:
        merged["required"] = list(dict.fromkeys(required))
    return merged


def _length(schema: Mapping[str, Any], name: str) -> int | None:
    value = schema.get(name)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _found(pattern: str, value: str) -> bool:
    """Whether ``pattern`` matches somewhere in ``value`` (False when it is no pattern)."""
    try:
        return re.search(pattern, value) is not None
    except (re.error, OverflowError, RecursionError):
        return False


def _key(value: Any) -> str:
    """``value`` as JSON Schema's equality sees it: 1 and 1.0 alike, keys in any order."""

    def plain(item: Any) -> Any:
        if isinstance(item, float) and item.is_integer():
            return int(item)
        if isinstance(item, dict):
            return {k: plain(v) for k, v in item.items()}
        return [plain(v) for v in item] if isinstance(item, list) else item

    return json.dumps(plain(value), sort_keys=True)


def _number(schema: Mapping[str, Any], integer: bool, variant: int) -> int | float:
    """The ``variant``-th number within ``minimum`` and ``maximum`` (their exclusive
    kin, numbers or draft 4's booleans), a multiple of ``multipleOf``: upwards from the
    least, else downwards from the most (or 0), else between the two; the first (or 0)
    when there are too few."""
    least, above, most, below, step = (
        _bound(schema, name)
        for name in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "multipleOf")
    )
    if schema.get("exclusiveMinimum") is True:
        least, above = None, least
    if schema.get("exclusiveMaximum") is True:
        most, below = None, most

    def within(value: float) -> bool:
        return not (
            (least is not None and value < least)
            or (above is not None and value <= above)
            or (most is not None and value > most)
            or (below is not None and value >= below)
            or (step is not None and step > 0 and not (value / step).is_integer())
        )

    lowest = max((b for b in (least, above) if b is not None), default=None)
    highest = min((b for b in (most, below) if b is not None), default=None)
    unit = _unit(step, integer)
    made: list[float] = []
    for value in _numbers(lowest, highest, unit, variant + 64):
        if within(value) and value not in made:
            made.append(value)
            if len(made) > variant:
                return int(value) if integer else value
    if variant:
        return _number(schema, integer, 0)
    return 0 if integer else 0.0


def _unit(step: float | None, integer: bool) -> float | None:
    """The step between the numbers made: ``multipleOf`` (for an integer, its least whole
    multiple), 1 for an integer, None for any number."""
    if step is None or step <= 0:
        return 1.0 if integer else None
    return float(Fraction(step).limit_denominator(10**6).numerator) if integer else step


def _numbers(
    low: float | None, high: float | None, unit: float | None, count: int
) -> Iterator[float]:
    """Numbers to try, in order: multiples of ``unit`` upwards from ``low`` (else
    downwards from ``high`` or 0, else upwards from 0); without a unit, ``low`` and
    upwards, ``high`` and downwards, then between the two."""
    if unit is not None:
        if low is not None:
            first = math.ceil(low / unit)
            yield from (n * unit for n in range(first, first + count))
        elif high is not None:
            first = math.floor(min(high, 0.0) / unit)
            yield from (n * unit for n in range(first, first - count, -1))
        else:
            yield from (n * unit for n in range(count))
        return
    if low is not None:
        yield from (low + n for n in range(count))
    if high is not None:
        yield from (high - n for n in range(count))
    if low is not None and high is not None:
        yield from (low + (high - low) / (n + 2) for n in range(count))
    if low is None and high is None:
        yield from (float(n) for n in range(count))


def _bound(schema: Mapping[str, Any], name: str) -> float | None:
    value = schema.get(name)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def schema_example(schema: Mapping[str, Any], text: str) -> Any:
    """The smallest value ``schema`` accepts, its strings ``text``; an
    :class:`UnmadeValue` when the simulator cannot make one, or the one it made fails
    the schema (as ``jsonschema`` checks it), naming where and why."""
    maker = _Maker(schema, text)
    made = maker.value(schema, "schema")
    problem = failure(validator(schema), made) if maker.left >= 0 else None  # cut short
    if problem is not None:
        raise UnmadeValue(problem)
    return made


def forced_call(response: ModelResponse, tools: Sequence[ToolSpec], turn: int) -> ModelResponse:
    """``response`` as a request forcing a tool call gets it: unchanged when it calls one,
    else a call of the first of ``tools`` with arguments made from its schema (its strings
    the text the behaviour answered), its id told apart by ``turn`` (the conversation's
    length), so a conversation calling it again holds no id twice."""
    if response.tool_calls or not tools:
        return response
    tool = tools[0]
    try:
        arguments = schema_example(tool.input_schema, response.text or tool.name)
    except UnmadeValue as err:
        raise UnmadeValue(f"tool {tool.name!r}: its input {err}") from None
    call = ToolCall(
        id=f"call_sim_forced_{turn}",
        name=tool.name,
        arguments=arguments if isinstance(arguments, dict) else {},
    )
    return ModelResponse(tool_calls=(call,), stop_reason="tool_use")


def in_json(response: ModelResponse, schema: Mapping[str, Any]) -> ModelResponse:
    """``response`` as a request asking for JSON of ``schema`` gets it: unchanged when it
    calls a tool or its text is JSON already, else JSON made from the schema (its strings
    the text the behaviour answered)."""
    if response.tool_calls:
        return response
    try:
        json.loads(response.text)
    except ValueError:
        try:
            made = schema_example(schema, response.text)
        except UnmadeValue as err:
            raise UnmadeValue(f"the JSON asked for: its {err}") from None
        text = json.dumps(made, ensure_ascii=False)
        return ModelResponse(text, (), response.stop_reason, response.usage)
    return response
