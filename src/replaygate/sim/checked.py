"""A value made from a JSON schema checked against the schema, as ``jsonschema`` checks it.

The validator is :func:`replaygate.json_schema.cached_validator`'s (the draft the
schema declares, a ``$ref`` followed within the schema only: nothing is fetched), formats
not asserted (a value the simulator makes of a format it does not know is its text),
made once per schema and shared with ``assert_structure``. A schema
that cannot be used (one its draft's metaschema rejects, such as Gemini's upper-case
``"STRING"``, a ``$ref`` to elsewhere, one referring to itself without end) has no
validator, and a value made from it is not checked. ``jsonschema`` is loaded with the
first schema: a simulator that is never sent one starts without it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jsonschema.protocols import Validator


def validator(schema: Mapping[str, Any]) -> Validator | None:
    """The validator of ``schema``, or None where ``jsonschema`` cannot use it."""
    from replaygate.json_schema import InvalidSchema, cached_validator

    try:
        return cached_validator(schema, formats=False)
    except InvalidSchema:
        return None


def matches(check: Validator | None, value: Any, schema: Any) -> bool | None:
    """Whether ``value`` is one ``schema`` (a part of the schema of ``check``) accepts;
    None where that cannot be told."""
    if check is None:
        return None
    from replaygate.json_schema import InvalidSchema, errors  # loaded with ``check``

    try:
        return next(errors(check.evolve(schema=schema), value), None) is None
    except InvalidSchema:
        return None


def failure(check: Validator | None, value: Any) -> str | None:
    """Where in its schema and why ``value`` fails the schema of ``check`` (``schema.``
    and the failing keyword's path), or None when it passes or cannot be checked."""
    if check is None:
        return None
    from jsonschema.exceptions import best_match  # loaded with the validator ``check``

    from replaygate.json_schema import InvalidSchema, errors

    try:
        error = best_match(errors(check, value))
    except InvalidSchema:
        return None
    if error is None:
        return None
    why = error.message if len(error.message) <= 300 else error.message[:300] + "..."
    return f"{where(check.schema, error.absolute_schema_path)}: the value made fails it: {why}"


def ref_where(ref: str) -> str:
    """Where a ``$ref`` within the schema points (``#/$defs/A``: ``schema.$defs.A``)."""
    return "schema." + ref.removeprefix("#/").replace("/", ".")


def where(root: Any, path: Sequence[Any]) -> str:
    """The place ``path`` (keywords and indexes from ``root``) names, as ``schema.`` and
    the keys, a ``$ref`` within the schema followed to where it points."""
    named, node = "schema", root
    for key in path:
        ref = node.get("$ref") if isinstance(node, Mapping) else None
        if isinstance(ref, str) and ref.startswith("#/") and (key == "$ref" or key not in node):
            named, node = ref_where(ref), root
            for part in ref[2:].split("/"):
                node = node.get(part) if isinstance(node, Mapping) else None
            if key == "$ref":
                continue
        named += f".{key}"
        if isinstance(node, Mapping):
            node = node.get(key)
        elif isinstance(node, list) and isinstance(key, int) and 0 <= key < len(node):
            node = node[key]
        else:
            node = None
    return named
