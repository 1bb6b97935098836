"""Structure: a payload against a JSON Schema or a pydantic model, every failing path listed.

JSON Schema goes through ``jsonschema`` (the draft the schema declares, formats
checked); a pydantic model class is used when pydantic is installed, never required.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import jsonschema
import referencing
import referencing.jsonschema
from jsonschema.exceptions import SchemaError
from referencing.exceptions import Unresolvable

from replaygate import jsondoc, strict_json

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

Schema = Mapping[str, Any] | type
"""A JSON Schema (a mapping) or a pydantic model class."""


@dataclass(frozen=True)
class StructureProblem:
    """One failing path and what is wrong there."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


@dataclass(frozen=True)
class StructureResult:
    """Every problem found; ``value`` is the validated value (a model instance for pydantic)."""

    problems: tuple[StructureProblem, ...]
    value: Any = None

    @property
    def passed(self) -> bool:
        """True when no path fails."""
        return not self.problems

    @property
    def score(self) -> float:
        """1.0 when the structure holds, else 0.0."""
        return 1.0 if self.passed else 0.0

    @property
    def message(self) -> str:
        """Every failing path, one per line, sorted by path."""
        if self.passed:
            return "structure matches the schema"
        lines = "\n".join(f"  {problem}" for problem in self.problems)
        return f"payload does not match the schema: {len(self.problems)} failing path(s):\n{lines}"


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


def _sort_key(parts: tuple[Any, ...], message: str) -> tuple[tuple[tuple[int, Any], ...], str]:
    return tuple((0, p) if isinstance(p, int) else (1, str(p)) for p in parts), message


def _json_schema_problems(
    payload: Any, mapping: Mapping[str, Any], not_numbers: list[tuple[tuple[Any, ...], str]]
) -> list[StructureProblem]:
    schema = dict(mapping)
    validator_class = jsonschema.validators.validator_for(schema)
    try:
        validator_class.check_schema(schema)
    except SchemaError as err:
        raise ValueError(f"invalid JSON Schema at {render_path(err.path)}: {err.message}") from None
    unresolved = unresolved_ref(schema)
    if unresolved is not None:
        where, ref, reason = unresolved
        raise ValueError(
            f"invalid JSON Schema: cannot resolve $ref {ref!r} at {where or '$'}: {reason}"
        )
    looped = ref_loop(schema)
    if looped is not None:
        raise ValueError(f"invalid JSON Schema at {looped or '$'}: {LOOP}")
    # An empty registry: a reference resolves within the schema or not at all (jsonschema
    # would otherwise fetch one over the network).
    validator = validator_class(
        schema, registry=referencing.Registry(), format_checker=validator_class.FORMAT_CHECKER
    )
    try:
        found = [(tuple(e.absolute_path), e.message) for e in validator.iter_errors(payload)]
    except RecursionError:
        raise ValueError(
            "invalid JSON Schema: it refers to itself without end (a $ref loop such as "
            '{"$ref": "#"}), or it or the payload is nested too deeply to be checked'
        ) from None
    except Unresolvable as err:  # a ref the check above could not follow (under a nested $id)
        raise ValueError(
            f"invalid JSON Schema: cannot resolve $ref {getattr(err, 'ref', '')!r}: only "
            "references within the schema resolve (none is fetched)"
        ) from None
    return _problems(found + not_numbers)


def _problems(found: list[tuple[tuple[Any, ...], str]]) -> list[StructureProblem]:
    """``(path, message)`` pairs as problems, sorted by path."""
    return [
        StructureProblem(render_path(p), m) for p, m in sorted(found, key=lambda e: _sort_key(*e))
    ]


def _not_json_numbers(payload: Any) -> list[tuple[tuple[Any, ...], str]]:
    """The paths of NaN and infinities in ``payload`` (parsed by ``json.loads``, which takes
    them): a schema's ``maximum`` and ``minimum`` compare false with NaN, so NaN passed
    every bound; JSON holds no such number. A payload that holds itself (built in code) is
    a ValueError naming where: no check of it would end."""
    found: list[tuple[tuple[Any, ...], str]] = []
    holding: dict[int, tuple[Any, ...]] = {}  # the containers on the current path
    stack: list[tuple[tuple[Any, ...], Any, bool]] = [((), payload, False)]
    while stack:
        path, value, leaving = stack.pop()
        if leaving:
            del holding[id(value)]
        elif isinstance(value, float) and not math.isfinite(value):
            found.append((path, f"{value!r} is not a number JSON can hold"))
        elif isinstance(value, Mapping | list | tuple):
            if id(value) in holding:
                raise ValueError(
                    f"the payload refers to itself: {render_path(path)} is "
                    f"{render_path(holding[id(value)])}, so checking it would never end "
                    "(JSON holds no such value)"
                )
            holding[id(value)] = path
            stack.append((path, value, True))
            items = value.items() if isinstance(value, Mapping) else enumerate(value)
            stack.extend(((*path, key), item, False) for key, item in items)
    return found


LOOP = (
    "it refers to itself without end: its $ref leads back to it without looking into "
    'a part of the value (as {"$ref": "#"} does), so checking any value never ends'
)
"""Why a schema of :func:`ref_loop` is refused."""
_DATA = frozenset({"const", "enum", "default", "examples"})
_NAMED = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
"""Keywords whose values map names to schemas: a name there is no keyword (a property
called ``default`` holds a schema)."""
"""Keywords whose values are data, not schemas: a ``$ref`` key in them is not a reference."""


def unresolved_ref(schema: Mapping[str, Any]) -> tuple[str, str, str] | None:
    """The first ``$ref`` of ``schema`` that points nowhere: its path (``properties.a.$ref``),
    the reference and why; None when every one resolves.

    Only references within the schema resolve: replaygate never fetches one. A schema
    that gives a nested ``$id`` takes its references relative to that resource (``#``
    is the resource, not the root), so none is checked here: the validator, which knows
    each resource, refuses one that points nowhere when the schema is used.
    """
    refs: list[tuple[str, str]] = []
    if _refs(schema, "", refs, top=True):  # a nested $id: resolved where the schema is used
        return None
    _, resolver = _resolving(schema)
    for where, ref in refs:
        try:
            resolver.lookup(ref)
        except Unresolvable:
            reason = (
                "no such place in the schema"
                if ref.startswith("#")
                else "only references within the schema resolve (none is fetched)"
            )
            return where, ref, reason
    return None


def _resolving(schema: Mapping[str, Any]) -> tuple[Any, Any]:
    """The schema as a resource's contents, and the resolver of references within it."""
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


def _pydantic_model(schema: Any) -> Any:
    try:
        import pydantic
    except ImportError:  # pragma: no cover - pydantic is optional
        return None
    if isinstance(schema, type) and issubclass(schema, pydantic.BaseModel):
        return pydantic
    return None


def measure_structure(payload: Any, schema: Schema) -> StructureResult:
    """Validate ``payload`` against ``schema``; collect every failing path. NaN and the
    infinities fail at their path under either kind of schema."""
    pydantic = None if isinstance(schema, Mapping) else _pydantic_model(schema)
    if pydantic is None and not isinstance(schema, Mapping):
        raise TypeError(
            f"schema must be a JSON Schema mapping or a pydantic model class, got {schema!r}"
        )
    not_numbers = _not_json_numbers(payload)
    if isinstance(schema, Mapping):
        return StructureResult(tuple(_json_schema_problems(payload, schema, not_numbers)), payload)
    assert pydantic is not None  # a pydantic model class, checked above
    model: Any = schema
    try:
        value = model.model_validate(payload)
        found: list[tuple[tuple[Any, ...], str]] = []
    except pydantic.ValidationError as err:
        value, found = None, [(tuple(e["loc"]), str(e["msg"])) for e in err.errors()]
    failing = {path for path, _ in found}
    found += [(path, message) for path, message in not_numbers if path not in failing]
    return StructureResult(tuple(_problems(found)), None if found else value)


def assert_structure(payload: Any, schema: Schema) -> Any:
    """Raise :class:`AssertionError` listing every failing path; return the validated value.

    ``schema`` is a JSON Schema (mapping) or a pydantic model class; the validated value
    is ``payload`` itself, or the model instance for pydantic.
    """
    result = measure_structure(payload, schema)
    if not result.passed:
        raise AssertionError(result.message)
    return result.value


def parse_json(text: str | bytes) -> Any:
    """``text`` parsed as JSON; :class:`AssertionError` with line and column otherwise.

    Only JSON passes: ``NaN``, ``Infinity`` and ``1e999`` (which Python's reader takes as
    numbers) fail, as the results readers refuse them, and so does a text nested too
    deeply or an integer too long to be read. Anything but text (``None``, a dict) is a
    TypeError naming its type.
    """
    if not isinstance(text, str | bytes | bytearray):
        raise TypeError(f"the output to parse as JSON must be text, got {type(text).__name__}")
    try:
        return strict_json.loads(text, unique_keys=False)
    except json.JSONDecodeError as err:
        raise AssertionError(f"output is not valid JSON: {jsondoc.syntax_error(err)}") from None
    except RecursionError:
        raise AssertionError("output is not JSON that can be checked: nested too deeply") from None
    except ValueError as err:  # NaN, 1e999, an integer of thousands of digits
        raise AssertionError(f"output is not JSON that can be checked: {err}") from None


def assert_json(text: str | bytes, schema: Schema) -> Any:
    """Parse ``text`` as JSON, then :func:`assert_structure` it."""
    return assert_structure(parse_json(text), schema)
