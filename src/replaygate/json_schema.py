"""The validator of a JSON Schema, made one way wherever a schema is used.

The validator is of the draft the schema declares (``$schema``; 2020-12 when it names
none), the schema first checked against that draft's metaschema, formats checked (each
format the draft defines, with the libraries of ``jsonschema``'s ``format-nongpl``
extra, a dependency; ``jsonschema`` imports them all, so it is imported only where a
validator is made, and ``referencing`` only where a schema's references are looked at: a
command that checks no schema does not load them). A
``$ref`` resolves within the schema only: nothing is fetched. A schema that cannot be
used (its metaschema rejects it, a ``$ref`` points nowhere, a ``$ref`` leads back to
where it stands without end, it is nested too deeply) is an :class:`InvalidSchema`
naming where in the schema and why.

:func:`cached_validator` makes each validator once per schema, keyed by the schema's
canonical form (:func:`~replaygate.fixtures.fingerprint.match_form`: the order of its
keys does not count), the last :data:`MAX_SCHEMAS` kept: the simulator checking what
it makes and ``assert_structure`` checking a payload share it.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

import orjson

from replaygate.errors import CanonicalFormError
from replaygate.fixtures.fingerprint import match_form
from replaygate.json_patterns import bounded, every_error

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

LOOP = (
    "it refers to itself without end: its $ref leads back to it without looking into "
    'a part of the value (as {"$ref": "#"} does), so checking any value never ends'
)
"""Why a schema of :func:`ref_loop` is refused."""
_ENDLESS = (
    "it refers to itself without end (a $ref loop such as "
    '{"$ref": "#"}), or it or the payload is nested too deeply to be checked'
)
"""Why a schema whose check of a value did not end is refused."""
_UNFETCHED = "only references within the schema resolve (none is fetched)"


def _unusable_errors() -> tuple[type[Exception], ...]:
    """What ``jsonschema`` raises on a schema its metaschema lets through but it cannot use
    (a draft-04 ``patternProperties`` key that is no regex, a type it does not know)."""
    from jsonschema.exceptions import FormatError, UnknownType
    from referencing.exceptions import Unretrievable

    return (UnknownType, FormatError, Unretrievable, re.error, TypeError)


class InvalidSchema(ValueError):
    """A JSON Schema that cannot be used: ``where`` in it (``properties.a.$ref``; ``""``
    for the whole schema) and ``why``; its message says both."""

    def __init__(self, message: str, where: str, why: str) -> None:
        super().__init__(message)
        self.where = where
        self.why = why


def render_path(parts: Iterable[Any]) -> str:
    """``$``, then ``.name`` / ``['odd name']`` for keys and ``[i]`` for indexes."""
    out = "$"
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif isinstance(part, str) and _IDENTIFIER.match(part):
            out += f".{part}"
        else:
            out += f"[{str(part)!r}]"
    return out


def _dotted(parts: Iterable[Any]) -> str:
    """``properties.a.type``: keys joined by dots, an index as ``[i]``."""
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else f".{part}" if out else str(part)
    return out


def validator(schema: Mapping[str, Any], *, formats: bool = True) -> Validator:
    """The validator of ``schema``, formats checked unless ``formats`` is false; an
    :class:`InvalidSchema` where the schema cannot be used."""
    import jsonschema
    import referencing
    from jsonschema.exceptions import SchemaError

    schema = dict(schema)
    declared = schema.get("$schema")
    if declared is not None and not isinstance(declared, str):
        why = f"$schema names a draft by its URI, a string, not {type(declared).__name__}"
        raise InvalidSchema(f"invalid JSON Schema at $['$schema']: {why}", "$schema", why)
    kind = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        kind.check_schema(schema)
    except SchemaError as err:
        raise InvalidSchema(
            f"invalid JSON Schema at {render_path(err.path)}: {err.message}",
            _dotted(err.path),
            f"not a valid JSON Schema: {err.message}",
        ) from None
    except RecursionError:
        why = "nested too deeply to be checked"
        raise InvalidSchema(f"invalid JSON Schema: {why}", "", why) from None
    except _unusable_errors() as err:
        raise _unusable(err) from None
    unresolved = unresolved_ref(schema)
    if unresolved is not None:
        where, ref, reason = unresolved
        raise InvalidSchema(
            f"invalid JSON Schema: cannot resolve $ref {ref!r} at {where or '$'}: {reason}",
            where,
            f"cannot resolve {ref!r}: {reason}",
        )
    looped = ref_loop(schema)
    if looped is not None:
        raise InvalidSchema(f"invalid JSON Schema at {looped or '$'}: {LOOP}", looped, LOOP)
    not_number = _not_a_json_number(schema)
    if not_number is not None:
        at, value = not_number
        why = f"{value!r} is not a number JSON can hold: every value would compare false with it"
        raise InvalidSchema(f"invalid JSON Schema at {render_path(at)}: {why}", _dotted(at), why)
    # An empty registry: a reference resolves within the schema or not at all (jsonschema
    # would otherwise fetch one over the network).
    checker = kind.FORMAT_CHECKER if formats else None
    return bounded(kind)(schema, registry=referencing.Registry(), format_checker=checker)


def _not_a_json_number(schema: Any) -> tuple[tuple[Any, ...], float] | None:
    """The path and value of the first NaN or infinity in ``schema`` (a ``maximum`` of NaN
    let every value pass), or None."""
    stack: list[tuple[tuple[Any, ...], Any]] = [((), schema)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, float) and not math.isfinite(value):
            return path, value
        if isinstance(value, Mapping):
            stack.extend(((*path, key), item) for key, item in value.items())
        elif isinstance(value, list | tuple):
            stack.extend(((*path, index), item) for index, item in enumerate(value))
    return None


MAX_SCHEMAS = 256
"""How many schemas' validators :func:`cached_validator` keeps."""


def cached_validator(schema: Mapping[str, Any], *, formats: bool = True) -> Validator:
    """:func:`validator` of ``schema``, made once per canonical form of the schema (and
    ``formats``): equal schemas share one, whatever the order of their keys. The
    validator holds a copy of the schema, untouched by later changes to ``schema``. A
    schema without a canonical form (a NaN in it) gets a validator of its own."""
    try:
        key = match_form(schema)
    except CanonicalFormError:
        return validator(schema, formats=formats)
    made = _kept(key, formats)
    if isinstance(made, InvalidSchema):
        raise InvalidSchema(str(made), made.where, made.why)
    return made


@functools.lru_cache(maxsize=MAX_SCHEMAS)
def _kept(key: bytes, formats: bool) -> Validator | InvalidSchema:
    """The validator of the schema of canonical form ``key``, or why there is none."""
    # the canonical text itself (a 0 byte first) where orjson cannot write the schema
    schema = json.loads(key[1:]) if key.startswith(b"\x00") else orjson.loads(key)
    try:
        return validator(schema, formats=formats)
    except InvalidSchema as err:
        return err


def errors(check: Validator, value: Any) -> Iterator[ValidationError]:
    """Each way ``value`` fails the schema of ``check``; an :class:`InvalidSchema` where
    that check finds the schema unusable (what :func:`validator` leaves to it: the
    references under a nested ``$id``). A pattern search of the check that ran past its
    time bound fails it at the path searched, whatever the keywords around the search
    (``not``, ``anyOf``...) made of its failure
    (:func:`~replaygate.json_patterns.every_error`)."""
    from referencing.exceptions import Unresolvable

    try:
        yield from every_error(check, value)
    except RecursionError:
        raise InvalidSchema(f"invalid JSON Schema: {_ENDLESS}", "", _ENDLESS) from None
    except Unresolvable as err:
        why = f"cannot resolve $ref {getattr(err, 'ref', '')!r}: {_UNFETCHED}"
        raise InvalidSchema(f"invalid JSON Schema: {why}", "", why) from None
    except _unusable_errors() as err:
        raise _unusable(err) from None


def _unusable(err: Exception) -> InvalidSchema:
    """``err`` (one of :func:`_unusable_errors`) as an :class:`InvalidSchema` of the whole
    schema."""
    why = f"jsonschema cannot use it: {err}"
    return InvalidSchema(f"invalid JSON Schema: {why}", "", why)


_DATA = frozenset({"const", "enum", "default", "examples"})
"""Keywords whose values are data, not schemas: a ``$ref`` key in them is not a reference."""
_NAMED = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
"""Keywords whose values map names to schemas: a name there is no keyword (a property
called ``default`` holds a schema)."""


def unresolved_ref(schema: Mapping[str, Any]) -> tuple[str, str, str] | None:
    """The first ``$ref`` of ``schema`` that points nowhere: its path (``properties.a.$ref``),
    the reference and why; None when every one resolves.

    Only references within the schema resolve: replaygate never fetches one. A schema
    that gives a nested ``$id`` takes its references relative to that resource (``#``
    is the resource, not the root), so none is checked here: the validator, which knows
    each resource, refuses one that points nowhere when the schema is used.
    """
    from referencing.exceptions import Unresolvable

    refs: list[tuple[str, str]] = []
    if _refs(schema, "", refs, top=True):  # a nested $id: resolved where the schema is used
        return None
    _, resolver = _resolving(schema)
    for where, ref in refs:
        try:
            resolver.lookup(ref)
        except Unresolvable:
            reason = "no such place in the schema" if ref.startswith("#") else _UNFETCHED
            return where, ref, reason
    return None


def _resolving(schema: Mapping[str, Any]) -> tuple[Any, Any]:
    """The schema as a resource's contents, and the resolver of references within it."""
    import referencing
    import referencing.jsonschema

    resource = referencing.Resource.from_contents(
        dict(schema), default_specification=referencing.jsonschema.DRAFT202012
    )
    base = resource.id() or ""
    registry = referencing.Registry().with_resource(base, resource).crawl()
    return resource.contents, registry.resolver(base)


_SAME_VALUE = ("allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas")
"""Keywords whose schemas apply to the value their own schema applies to (not to a part
of it, as ``properties`` and ``items`` do)."""


def ref_loop(schema: Mapping[str, Any]) -> str | None:
    """The path of a part of ``schema`` (``properties.a``) that applies itself to the same
    value again through ``$ref`` (and ``allOf``... :data:`_SAME_VALUE`) without end, as
    ``{"$ref": "#"}`` or ``{"properties": {"a": {"$ref": "#/properties/a"}}}`` does: any
    value reaching it would be checked for ever (``""``: the whole schema); None when
    there is no such loop (or the schema has a nested ``$id``, whose references the
    validator resolves)."""
    if _refs(schema, "", [], top=True):
        return None
    contents, resolver = _resolving(schema)
    parts: dict[int, tuple[str, Mapping[str, Any]]] = {}
    _schemas(contents, "", parts)
    done: set[int] = set()
    for start in list(parts):
        looped = _loop_from(start, parts, resolver, done)
        if looped is not None:
            return looped
    return None


def _schemas(value: Any, path: str, parts: dict[int, tuple[str, Mapping[str, Any]]]) -> None:
    """Every object of a schema, with its path, by its id."""
    if isinstance(value, Mapping):
        parts.setdefault(id(value), (path, value))
        for item, where in _subschemas(value, path):
            _schemas(item, where, parts)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _schemas(item, f"{path}[{index}]", parts)


def _same_value(part: Mapping[str, Any], resolver: Any) -> Iterator[Any]:
    """The schemas ``part`` applies to the value it is applied to: its ``$ref``'s, and
    those of :data:`_SAME_VALUE`."""
    from referencing.exceptions import Unresolvable

    ref = part.get("$ref")
    if isinstance(ref, str):
        with contextlib.suppress(Unresolvable):
            yield resolver.lookup(ref).contents
    for key in _SAME_VALUE:
        given = part.get(key)
        if key == "dependentSchemas" and isinstance(given, Mapping):
            yield from given.values()
        elif isinstance(given, list):
            yield from given
        elif isinstance(given, Mapping):
            yield given


def _loop_from(
    start: int,
    parts: dict[int, tuple[str, Mapping[str, Any]]],
    resolver: Any,
    done: set[int],
) -> str | None:
    """The path of a schema on a loop of same-value steps from the part ``start`` (a depth
    first walk; ``done`` holds the parts no loop passes through)."""
    if start in done:
        return None
    stack = [(start, _same_value(parts[start][1], resolver))]
    on_path = {start}
    while stack:
        node, steps = stack[-1]
        step = next(steps, None)
        if step is None:
            stack.pop()
            on_path.discard(node)
            done.add(node)
        elif isinstance(step, Mapping) and id(step) not in done:
            key = id(step)
            if key in on_path:
                return parts.get(key, ("", step))[0]
            parts.setdefault(key, ("", step))
            stack.append((key, _same_value(step, resolver)))
            on_path.add(key)
    return None


def _subschemas(value: Mapping[str, Any], path: str) -> Iterator[tuple[Any, str]]:
    """``(value, path)`` of what a schema object holds that may hold schemas: every field
    but data (:data:`_DATA`) and the ``$ref`` and ``$id`` strings, and every named schema
    of :data:`_NAMED` (whatever its name)."""
    for key, item in value.items():
        where = f"{path}.{key}" if path else str(key)
        if key in _NAMED and isinstance(item, Mapping):
            for name, named in item.items():
                yield named, f"{where}.{name}"
        elif key not in _DATA and key not in ("$ref", "$id"):
            yield item, where


def _refs(value: Any, path: str, found: list[tuple[str, str]], *, top: bool = False) -> bool:
    """Collect the ``$ref`` strings under ``value`` into ``found``; whether a nested
    ``$id`` was seen."""
    nested_id = False
    if isinstance(value, Mapping):
        ref, given_id = value.get("$ref"), value.get("$id")
        if isinstance(ref, str):
            found.append((f"{path}.$ref" if path else "$ref", ref))
        nested_id = given_id is not None and not top
        for item, where in _subschemas(value, path):
            nested_id = _refs(item, where, found) or nested_id
    elif isinstance(value, list):
        for index, item in enumerate(value):
            nested_id = _refs(item, f"{path}[{index}]", found) or nested_id
    return nested_id
