"""OpenAI's rules for a schema given with ``strict: true``: Structured Outputs.

A JSON schema asked for strictly (Chat Completions' ``response_format`` of type
``json_schema``, the Responses API's ``text.format``) and a function tool's parameters
marked ``strict`` are refused with a 400 unless every object of the schema says
``additionalProperties: false`` and lists each of its properties in ``required``; the API
names the schema and where in it (``In context=('properties', 'address'), ...``). The
openai SDK's ``parse`` helpers build such schemas from pydantic models; a schema written
by hand often lacks one of the two, and a recording from a server that took it would
fail on its first live request.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from replaygate.sim.validation import Invalid

_NESTED = ("properties", "$defs", "definitions")
"""Keywords whose values map names to schemas."""
_LISTED = ("anyOf", "allOf", "prefixItems")
"""Keywords whose values list schemas."""


_Strict = tuple[Any, str, Any, str]
"""A schema given strictly: the schema, its kind and name as the API names them, and the
request's parameter holding it."""


def chat_strict_schema(body: Mapping[str, Any]) -> Invalid | None:
    """The refusal of a Chat Completions request whose strict schema breaks the rules."""
    given = _json_schema_format(body.get("response_format"))
    named = given.get("json_schema") if given is not None else None
    strict: list[_Strict] = []
    if isinstance(named, Mapping) and named.get("strict") is True:
        format_name = named.get("name")
        strict.append((named.get("schema"), "response_format", format_name, "response_format"))
    for i, tool in enumerate(_listed(body.get("tools"))):
        function = tool.get("function")
        if isinstance(function, Mapping) and function.get("strict") is True:
            where = f"tools[{i}].function.parameters"
            strict.append((function.get("parameters"), "function", function.get("name"), where))
    return _first_broken(strict)


def responses_strict_schema(body: Mapping[str, Any]) -> Invalid | None:
    """The refusal of a Responses API request whose strict schema breaks the rules."""
    text = body.get("text")
    given = _json_schema_format(text.get("format") if isinstance(text, Mapping) else None)
    strict: list[_Strict] = []
    if given is not None and given.get("strict") is True:
        strict.append((given.get("schema"), "text.format", given.get("name"), "text.format"))
    for i, tool in enumerate(_listed(body.get("tools"))):
        if tool.get("type") == "function" and tool.get("strict") is True:
            where = f"tools[{i}].parameters"
            strict.append((tool.get("parameters"), "function", tool.get("name"), where))
    return _first_broken(strict)


def _first_broken(strict: list[_Strict]) -> Invalid | None:
    """The API's refusal of the first object of these schemas that breaks a strict rule."""
    for schema, kind, name, param in strict:
        for context, node in _objects(schema, ()):
            problem = _object_problem(node)
            if problem is not None:
                message = f"Invalid schema for {kind} '{name}': In context={context!r}, {problem}"
                return Invalid(message, param, "invalid_json_schema")
    return None


def _json_schema_format(given: Any) -> Mapping[str, Any] | None:
    """``given``, an output format, when it asks for a JSON schema, else None."""
    return given if isinstance(given, Mapping) and given.get("type") == "json_schema" else None


def _listed(value: Any) -> Iterator[Mapping[str, Any]]:
    for item in value if isinstance(value, list) else []:
        yield item if isinstance(item, Mapping) else {}


def _objects(node: Any, context: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Each object schema in ``node`` with the keys leading to it, the outer first."""
    if not isinstance(node, Mapping):
        return
    if node.get("type") == "object" or "properties" in node:
        yield context, node
    for key in _NESTED:
        held = node.get(key)
        if isinstance(held, Mapping):
            for name, child in held.items():
                yield from _objects(child, (*context, key, str(name)))
    for key in _LISTED:
        held = node.get(key)
        if isinstance(held, list):
            for index, child in enumerate(held):
                yield from _objects(child, (*context, key, str(index)))
    if isinstance(node.get("items"), Mapping):
        yield from _objects(node["items"], (*context, "items"))


def _object_problem(node: Mapping[str, Any]) -> str | None:
    if node.get("additionalProperties") is not False:
        return "'additionalProperties' is required to be supplied and to be false."
    properties = node.get("properties")
    names = list(properties) if isinstance(properties, Mapping) else []
    required = node.get("required")
    listed = required if isinstance(required, list) else []
    missing = [name for name in names if name not in listed]
    if missing:
        return (
            "'required' is required to be supplied and to be an array including every key "
            f"in properties. Missing '{missing[0]}'."
        )
    return None
