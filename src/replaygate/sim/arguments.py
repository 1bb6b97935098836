"""Arguments for a tool call the simulator must make (a request forcing one), made from
the tool's JSON schema: the smallest value each part of the schema accepts.

An object gets its required properties (all of them when it names none); ``$ref`` is
resolved within the schema (``#/$defs/...``, ``#/definitions/...``); ``const``, the first
``enum`` value, the first of ``anyOf``/``oneOf``, every one of ``allOf`` merged; a string
is ``text`` (the answer the behaviour gave instead), a number its ``minimum`` or 0, an
array its ``minItems`` items. A schema that refers to itself without end gives None
where it loops.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from replaygate.models.types import ModelResponse, ToolCall, ToolSpec

MAX_DEPTH = 32
"""How deep a schema is followed before its value is None (a ``$ref`` loop)."""
MAX_VALUES = 10_000
"""How many values one answer is made of at most: nested ``minItems`` multiply, and the
server's one thread would otherwise build an answer of hundreds of megabytes."""
_FORMATS = {
    "date": "2026-01-01",
    "date-time": "2026-01-01T00:00:00Z",
    "time": "00:00:00Z",
    "email": "user@example.com",
    "uri": "https://example.com/",
    "uuid": "00000000-0000-0000-0000-000000000000",
    "ipv4": "192.0.2.1",
}
"""A value of each common string ``format`` (a string of another takes the text)."""


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


def _example(schema: Any, root: Mapping[str, Any], text: str, depth: int, left: list[int]) -> Any:
    left[0] -= 1
    if depth > MAX_DEPTH or left[0] < 0 or not isinstance(schema, Mapping):
        return None
    resolved = _resolved(schema, root)
    if resolved is not schema:  # a $ref, followed (None: it points nowhere)
        return None if resolved is None else _example(resolved, root, text, depth + 1, left)
    if "const" in schema:
        return schema["const"]
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        return enum[0]
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list) and options:
            return _example(options[0], root, text, depth + 1, left)
    parts = schema.get("allOf")
    if isinstance(parts, list) and parts:
        merged: dict[str, Any] = {}
        for part in parts:
            value = _example(part, root, text, depth + 1, left)
            if isinstance(value, dict):
                merged.update(value)
        return merged
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if isinstance(kind, str):
        kind = kind.lower()  # Gemini's OpenAPI schemas spell types in upper case
    if kind == "object" or (kind is None and "properties" in schema):
        properties = schema.get("properties")
        properties = properties if isinstance(properties, Mapping) else {}
        required = schema.get("required")
        names = required if isinstance(required, list) else list(properties)
        return {
            name: _example(properties.get(name, {}), root, text, depth + 1, left)
            for name in names
            if isinstance(name, str)
        }
    if kind == "array":
        count = schema.get("minItems")
        count = min(count, max(left[0], 0)) if isinstance(count, int) and count > 0 else 0
        items = schema.get("items", {})
        return [_example(items, root, text, depth + 1, left) for _ in range(count)]
    if kind in ("integer", "number"):
        return _number(schema, kind == "integer")
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    return _string(schema, text)


def _number(schema: Mapping[str, Any], integer: bool) -> int | float:
    """The least number within ``minimum`` (or above ``exclusiveMinimum``), a multiple
    of ``multipleOf``, at most ``maximum``; 0 when it says none of these."""
    least, above, most, step = (
        _bound(schema, name) for name in ("minimum", "exclusiveMinimum", "maximum", "multipleOf")
    )
    value = least if least is not None else (above + 1 if above is not None else 0.0)
    if integer or step:
        value = math.ceil(value / (step or 1)) * (step or 1)
    if most is not None and value > most:
        value = most
    return int(value) if integer else float(value)


def _bound(schema: Mapping[str, Any], name: str) -> float | None:
    value = schema.get(name)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _string(schema: Mapping[str, Any], text: str) -> str:
    """``text``, or the value of the schema's ``format``, made as long as ``minLength``
    and ``maxLength`` allow."""
    form = schema.get("format")
    value = _FORMATS.get(form, text) if isinstance(form, str) else text
    shortest, longest = schema.get("minLength"), schema.get("maxLength")
    if isinstance(longest, int) and not isinstance(longest, bool) and len(value) > longest:
        value = value[: max(longest, 0)]
    if isinstance(shortest, int) and not isinstance(shortest, bool) and len(value) < shortest:
        value += "x" * min(shortest - len(value), 100_000)
    return value


def schema_example(schema: Mapping[str, Any], text: str) -> Any:
    """The smallest value ``schema`` accepts, its strings ``text``."""
    return _example(schema, schema, text, 0, [MAX_VALUES])


def forced_call(response: ModelResponse, tools: Sequence[ToolSpec], turn: int) -> ModelResponse:
    """``response`` as a request forcing a tool call gets it: unchanged when it calls one,
    else a call of the first of ``tools`` with arguments made from its schema (its strings
    the text the behaviour answered), its id told apart by ``turn`` (the conversation's
    length), so a conversation calling it again holds no id twice."""
    if response.tool_calls or not tools:
        return response
    tool = tools[0]
    arguments = schema_example(tool.input_schema, response.text or tool.name)
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
        text = json.dumps(schema_example(schema, response.text), ensure_ascii=False)
        return ModelResponse(text, (), response.stop_reason, response.usage)
    return response
