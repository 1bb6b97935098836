"""The providers' rules for a schema given for structured outputs.

OpenAI's, for a schema given with ``strict: true`` (Structured Outputs):

A JSON schema asked for strictly (Chat Completions' ``response_format`` of type
``json_schema``, the Responses API's ``text.format``) and a function tool's parameters
marked ``strict`` are refused with a 400 unless every object of the schema says
``additionalProperties: false`` and lists each of its properties in ``required``; the API
names the schema and where in it (``In context=('properties', 'address'), ...``). The
openai SDK's ``parse`` helpers build such schemas from pydantic models; a schema written
by hand often lacks one of the two, and a recording from a server that took it would
fail on its first live request. A ``default`` is taken (the openai SDK's ``parse``
keeps a field's non-null default in the strict schema it sends; the API refused one in
2024 and takes it now; Azure OpenAI refuses it still).

Anthropic's, for the schema of a JSON output (``output_config.format``, or the older
``output_format``) and a tool's ``input_schema`` given ``strict: true``: every object must
say ``additionalProperties: false``, and a schema may not hold numerical constraints
(``minimum``, ``maximum``, ``multipleOf``, ...), string lengths (``minLength``,
``maxLength``) or array constraints beyond a ``minItems`` of 0 or 1 (its structured-output
documentation, "JSON Schema limitations"); the API refuses such a schema with a 400. The
anthropic SDK's ``transform_schema`` (``messages.parse``, ``output_format=`` a model)
closes every object and moves the rest into the field's description; a schema written by
hand, or passed through a framework that does not transform it, often holds one.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from replaygate.sim.validation import OWN_WORDING, Invalid

_NESTED = ("properties", "$defs", "definitions")
"""Keywords whose values map names to schemas."""
_LISTED = ("anyOf", "allOf", "prefixItems")
"""Keywords whose values list schemas."""


_Given = tuple[Any, str, Any, str, bool]
"""A schema the API checks: the schema, its kind and name as the API names them, the
request's parameter holding it, and whether it was given strictly."""


def chat_strict_schema(body: Mapping[str, Any]) -> Invalid | None:
    """The refusal of a Chat Completions request whose schema breaks the rules: a strict
    output format's, or a function's (strict or not)."""
    given = _json_schema_format(body.get("response_format"))
    named = given.get("json_schema") if given is not None else None
    schemas: list[_Given] = []
    if isinstance(named, Mapping) and named.get("strict") is True:
        format_name = named.get("name")
        schemas.append(
            (named.get("schema"), "response_format", format_name, "response_format", True)
        )
    for i, tool in enumerate(_listed(body.get("tools"))):
        function = tool.get("function")
        if isinstance(function, Mapping):
            where = f"tools[{i}].function.parameters"
            strict = function.get("strict") is True
            schemas.append(
                (function.get("parameters"), "function", function.get("name"), where, strict)
            )
    return _first_broken(schemas)


def responses_strict_schema(body: Mapping[str, Any]) -> Invalid | None:
    """The refusal of a Responses API request whose schema breaks the rules: a strict
    output format's, or a function's (strict or not)."""
    text = body.get("text")
    given = _json_schema_format(text.get("format") if isinstance(text, Mapping) else None)
    schemas: list[_Given] = []
    if given is not None and given.get("strict") is True:
        schemas.append((given.get("schema"), "text.format", given.get("name"), "text.format", True))
    for i, tool in enumerate(_listed(body.get("tools"))):
        if tool.get("type") == "function":
            where = f"tools[{i}].parameters"
            strict = tool.get("strict") is True
            schemas.append((tool.get("parameters"), "function", tool.get("name"), where, strict))
    return _first_broken(schemas)


def _first_broken(schemas: list[_Given]) -> Invalid | None:
    """The API's refusal of the first of these schemas that breaks a rule: a root that is
    not an object; anywhere, an array without ``items``; given strictly, a ``oneOf`` or an
    object that is not closed (:func:`_object_problem`). A function's is refused with
    code ``invalid_function_parameters``, an output format's ``invalid_json_schema``."""
    for schema, kind, name, param, strict in schemas:
        if not isinstance(schema, Mapping) or not schema:  # none, or no parameters
            continue
        code = "invalid_function_parameters" if kind == "function" else "invalid_json_schema"
        said = f"Invalid schema for {kind} '{name}': "
        if schema.get("type") != "object":
            got = schema.get("type")
            shown = got if isinstance(got, str) else "None"
            message = (
                f"schema must be a JSON Schema of 'type: \"object\"', got 'type: \"{shown}\"'."
            )
            return Invalid(said + message, param, code)
        for context, node in _schemas(schema, ()):
            problem = _node_problem(node, strict)
            if problem is not None:
                return Invalid(f"{said}In context={context!r}, {problem}", param, code)
    return None


_ANTHROPIC_UNTAKEN = (
    *("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
    *("minLength", "maxLength", "maxItems", "uniqueItems"),
)
"""Keywords Anthropic's structured outputs refuse in a schema (``minItems`` above 1 too)."""


def anthropic_strict_schema(body: Mapping[str, Any]) -> Invalid | None:
    """The refusal of a Messages API request whose structured-output schema breaks
    Anthropic's rules: a JSON output's (``output_config.format``, ``output_format``) or a
    strict tool's ``input_schema``; the words are the simulator's (:data:`OWN_WORDING`)."""
    config = body.get("output_config")
    schemas: list[tuple[Any, str]] = []
    for given, where in (
        (config.get("format") if isinstance(config, Mapping) else None, "output_config.format"),
        (body.get("output_format"), "output_format"),
    ):
        asked = _json_schema_format(given)
        if asked is not None:
            schemas.append((asked.get("schema"), f"{where}.schema"))
    for i, tool in enumerate(_listed(body.get("tools"))):
        if tool.get("strict") is True:
            schemas.append((tool.get("input_schema"), f"tools.{i}.input_schema"))
    for schema, where in schemas:
        for context, node in _schemas(schema, ()):
            problem = _anthropic_problem(node)
            if problem is not None:
                at = "".join(f".{step}" for step in context)
                return Invalid(f"{where}{at}: {problem} {OWN_WORDING}", where)
    return None


def _anthropic_problem(node: Mapping[str, Any]) -> str | None:
    """What Anthropic's structured outputs refuse in one schema, or None."""
    if (node.get("type") == "object" or "properties" in node) and node.get(
        "additionalProperties"
    ) is not False:
        return "an object schema must set 'additionalProperties' to false"
    untaken = next((key for key in _ANTHROPIC_UNTAKEN if key in node), None)
    if untaken is not None:
        return f"'{untaken}' is not supported in a structured-output schema"
    if node.get("minItems", 0) not in (0, 1):
        return "'minItems' is supported only with a value of 0 or 1"
    return None


def _json_schema_format(given: Any) -> Mapping[str, Any] | None:
    """``given``, an output format, when it asks for a JSON schema, else None."""
    return given if isinstance(given, Mapping) and given.get("type") == "json_schema" else None


def _listed(value: Any) -> Iterator[Mapping[str, Any]]:
    for item in value if isinstance(value, list) else []:
        yield item if isinstance(item, Mapping) else {}


def _schemas(node: Any, context: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Each schema in ``node`` (``node`` first) with the keys leading to it, the outer
    first; a property's schema is named by the property (a property called
    ``properties`` is not taken for the keyword)."""
    if not isinstance(node, Mapping):
        return
    yield context, node
    for key in _NESTED:
        held = node.get(key)
        if isinstance(held, Mapping):
            for name, child in held.items():
                yield from _schemas(child, (*context, key, str(name)))
    for key in _LISTED:
        held = node.get(key)
        if isinstance(held, list):
            for index, child in enumerate(held):
                yield from _schemas(child, (*context, key, str(index)))
    if isinstance(node.get("items"), Mapping):
        yield from _schemas(node["items"], (*context, "items"))


def _node_problem(node: Mapping[str, Any], strict: bool) -> str | None:
    """What the API says of one schema it refuses: an array without ``items`` or a
    tuple's ``prefixItems`` (any schema; pydantic writes a ``tuple[int, str]`` with
    ``prefixItems`` alone), a ``oneOf`` or an object not closed (a strict one)."""
    if node.get("type") == "array" and "items" not in node and "prefixItems" not in node:
        return "array schema missing items."
    if not strict:
        return None
    if "oneOf" in node:  # pydantic's discriminated union: the API takes its anyOf form
        return "'oneOf' is not permitted."
    if node.get("type") == "object" or "properties" in node:
        return _object_problem(node)
    return None


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
