"""Structure: a payload against a JSON Schema or a pydantic model, every failing path listed.

JSON Schema goes through :func:`replaygate.json_schema.cached_validator` (the draft the schema
declares, formats checked, a ``$ref`` resolved within the schema); a pydantic model class
is used when pydantic is installed, never required.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, TypeVar, overload

from replaygate import json_schema, json_where, jsondoc, strict_json
from replaygate.assertions.text import fold
from replaygate.json_schema import render_path
from replaygate.type_names import numpy_note
from replaygate.unicode_forms import cut, told

Schema = Mapping[str, Any] | type
"""A JSON Schema (a mapping) or a pydantic model class."""
ModelT = TypeVar("ModelT")
"""A pydantic model class given as the schema: the value asserted is an instance of it."""


@dataclass(frozen=True)
class StructureProblem:
    """One failing path and what is wrong there."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


@dataclass(frozen=True)
class StructureResult:
    """Every problem found; ``value`` is the validated value (a model instance for pydantic);
    ``hint`` says what to do when the payload was not what the schema is about (text
    holding JSON, checked as a string)."""

    problems: tuple[StructureProblem, ...]
    value: Any = None
    hint: str = ""

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
        hint = f"\n{self.hint}" if self.hint else ""
        return (
            f"payload does not match the schema: {len(self.problems)} failing path(s):\n"
            f"{lines}{hint}"
        )


_JSON_KINDS = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}


def with_text_hint(result: StructureResult, payload: Any, how: str) -> StructureResult:
    """``result``, when it failed on ``payload``, a string (or bytes) that parses as JSON,
    with a hint saying it was checked as the string and ``how`` to check the JSON it
    holds: ``'{"summary": ...}' is not of type 'object'`` alone does not say that the text
    was never parsed. A string that is no JSON gets none (it fails as it is)."""
    if result.passed or not isinstance(payload, str | bytes):
        return result
    try:
        parsed = parse_json(payload)
    except AssertionError:  # no JSON: nothing to parse first
        return result
    kind = next((w for t, w in _JSON_KINDS.items() if type(parsed) is t), None)
    kind = kind or ("null" if parsed is None else "a number")
    what, checked = ("text", "a string") if isinstance(payload, str) else ("bytes", "bytes")
    hint = (
        f"  the payload is {what} holding JSON ({kind}), and was checked as {checked}, not as "
        f"the JSON it holds: {how}"
    )
    return replace(result, hint=hint)


def _sort_key(parts: tuple[Any, ...], message: str) -> tuple[tuple[tuple[int, Any], ...], str]:
    return tuple((0, p) if isinstance(p, int) else (1, str(p)) for p in parts), message


def _json_schema_problems(
    payload: Any, schema: Mapping[str, Any], not_numbers: list[tuple[tuple[Any, ...], str]]
) -> list[StructureProblem]:
    check = json_schema.cached_validator(schema)
    try:
        found = [
            (tuple(e.absolute_path), _shortened(e) + _read_alike(e) + _numpy_note(e))
            for e in json_schema.errors(check, payload)
        ]
    except ValueError:  # the message of an integer too long to write: named in not_numbers
        if not not_numbers:
            raise
        found = []
    return _problems(found + not_numbers)


_SHOWN = 200
"""The most characters of a failing value a message shows: a model's 100,000-character
answer failing ``maxLength`` wrote itself whole into the message, the test's report and the
results file, once per failing path."""


def _shortened(error: Any) -> str:
    """``error``'s message with the failing value it opens with cut to :data:`_SHOWN`
    characters and said by its size (``'xxx...' (a string of 100,000 characters) is too
    long``); the message as it is when the value is short, or not at its start."""
    message: str = error.message
    try:
        written = repr(error.instance)
    except ValueError:  # an integer of more digits than Python writes: named elsewhere
        return message
    if len(written) <= _SHOWN or not message.startswith(written):
        return message
    value = error.instance
    size = (
        f"a string of {len(value):,} characters"
        if isinstance(value, str)
        else f"an object of {len(value):,} keys"
        if isinstance(value, Mapping)
        else f"an array of {len(value):,} items"
        if isinstance(value, list | tuple)
        else f"{len(written):,} characters written"
    )
    return f"{cut(written, _SHOWN - 3)}... ({size}){message[len(written) :]}"


def _read_alike(error: Any) -> str:
    """A note for a failure naming two texts that print alike, each written with its
    escapes: a value not in an ``enum`` (``'❤️' is not one of ['❤']``, the first with the
    selector U+FE0F) or other than a ``const``, a ``required`` key beside the payload's
    key written in another Unicode form (``café`` as ``cafe\\u0301``); else ``""``."""
    value, wanted = error.instance, error.validator_value
    if error.validator in ("enum", "const") and isinstance(value, str):
        pairs = [(value, w) for w in (wanted if error.validator == "enum" else [wanted])]
    elif error.validator == "required" and isinstance(value, dict):
        missing = next(
            (w for w in wanted if error.message == f"{w!r} is a required property"), None
        )
        pairs = [(key, missing) for key in value]
    else:
        return ""
    got, alike = next(
        (
            (g, w)
            for g, w in pairs
            if isinstance(g, str) and isinstance(w, str) and g != w and fold(g) == fold(w)
        ),
        (None, None),
    )
    if got is None or alike is None:
        return ""
    return f" (the payload's {got!r} is {told(got)}; the schema's {alike!r} is {told(alike)})"


def _numpy_note(error: Any) -> str:
    """A note for a ``type`` failure of a numpy value (``np.int64(2) is not of type
    'integer'``, as numpy's integers, booleans and arrays are none of Python's JSON types):
    what it is and how to convert it; else ``""``."""
    if error.validator != "type":
        return ""
    return numpy_note(error.instance, ", which a JSON Schema reads as no JSON type")


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
        elif type(value) is int and _too_long(value):
            limit = sys.get_int_max_str_digits()
            found.append((path, f"an integer of more than {limit:,} digits cannot be checked"))
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


def _too_long(value: int) -> bool:
    """Whether ``value`` has more digits than Python writes out
    (``sys.get_int_max_str_digits``): a validator's message of it fails on its way out."""
    limit = sys.get_int_max_str_digits()
    if not limit or value.bit_length() < limit * 3:  # fewer than limit digits: most values
        return False
    return bool(abs(value) >= 10**limit)


def _pydantic_model(schema: Any) -> Any:
    try:
        import pydantic
    except ImportError:  # pragma: no cover - pydantic is optional
        return None
    if isinstance(schema, type) and issubclass(schema, pydantic.BaseModel):
        return pydantic
    return None


def _strictly_validated(model: Any, payload: Any) -> Any:
    """``payload`` validated by the pydantic ``model`` in strict mode, as JSON when it is
    JSON data: a wrong type fails (``"5"`` is no integer, ``"yes"`` no boolean) where lax
    mode would convert it, while what JSON carries as text (a datetime, a UUID, an enum's
    value, a dict's integer key) is still read. A payload holding Python objects JSON
    does not (a ``datetime``) is validated in strict Python mode."""
    try:
        text = json.dumps(payload, allow_nan=True)
    except (TypeError, ValueError, RecursionError):  # not JSON data: strict on the objects
        return model.model_validate(payload, strict=True)
    return model.model_validate_json(text, strict=True)


def checked_schema(schema: Schema) -> Any:
    """The pydantic module when ``schema`` is a pydantic model class, None when it is a
    usable JSON Schema; a ``TypeError`` for anything else, and
    :class:`~replaygate.json_schema.InvalidSchema` (a ``ValueError`` saying where) for a
    JSON Schema that is none: refused before any output is read, never a failed check."""
    pydantic = None if isinstance(schema, Mapping) else _pydantic_model(schema)
    if pydantic is None and not isinstance(schema, Mapping):
        raise TypeError(
            f"schema must be a JSON Schema mapping or a pydantic model class, got {schema!r}"
        )
    if pydantic is None:
        json_schema.cached_validator(schema)  # type: ignore[arg-type]
    return pydantic


def measure_structure(payload: Any, schema: Schema) -> StructureResult:
    """Validate ``payload`` against ``schema``; collect every failing path. NaN and the
    infinities fail at their path under either kind of schema; a pydantic model
    validates strictly (:func:`_strictly_validated`)."""
    pydantic = checked_schema(schema)
    not_numbers = _not_json_numbers(payload)
    if isinstance(schema, Mapping):
        return StructureResult(tuple(_json_schema_problems(payload, schema, not_numbers)), payload)
    assert pydantic is not None  # a pydantic model class, checked above
    try:
        value = _strictly_validated(schema, payload)
        found: list[tuple[tuple[Any, ...], str]] = []
    except pydantic.ValidationError as err:
        # a numpy value is no int or list to strict pydantic either: say what it is
        found = [
            (tuple(e["loc"]), str(e["msg"]) + numpy_note(e.get("input"))) for e in err.errors()
        ]
        value = None
    failing = {path for path, _ in found}
    found += [(path, message) for path, message in not_numbers if path not in failing]
    return StructureResult(tuple(_problems(found)), None if found else value)


@overload
def assert_structure(payload: Any, schema: type[ModelT]) -> ModelT: ...
@overload
def assert_structure(payload: Any, schema: Schema) -> Any: ...
def assert_structure(payload: Any, schema: Schema) -> Any:
    """Raise :class:`AssertionError` listing every failing path; return the validated value.

    ``schema`` is a JSON Schema (mapping) or a pydantic model class; the validated value
    is ``payload`` itself, or the model instance for pydantic.
    """
    how = "use assert_json(text, schema), which parses it first"
    return _asserted(with_text_hint(measure_structure(payload, schema), payload, how))


def _asserted(result: StructureResult) -> Any:
    """``result``'s validated value; :class:`AssertionError` with its message if it failed."""
    if not result.passed:
        raise AssertionError(result.message)
    return result.value


def parse_json(text: str | bytes) -> Any:
    """``text`` parsed as JSON; :class:`AssertionError` with line and column otherwise.

    Only JSON passes: ``NaN``, ``Infinity`` and ``1e999`` (which Python's reader takes as
    numbers) fail, as the results readers refuse them, and so does a text nested too
    deeply or an integer too long to be read, each naming where it is, and an object that
    names a key twice, naming the key's path. Anything but text
    (``None``, a dict) is a TypeError naming its type.
    """
    if not isinstance(text, str | bytes | bytearray):
        raise TypeError(f"the output to parse as JSON must be text, got {type(text).__name__}")
    try:
        return strict_json.loads(text)
    except strict_json.DuplicateKeyError as err:
        why = (
            f"it names the key {_json_path(err.path)} twice in one object: a reader keeps "
            "one of its values, so the other is never checked; keep one"
        )
    except json.JSONDecodeError as err:
        syntax = jsondoc.syntax_error(err)
        raise AssertionError(f"output is not valid JSON: {syntax}{_fenced(text)}") from None
    except RecursionError:
        why = f"nested too deeply ({json_where.deepest(text)})"
    except UnicodeDecodeError as err:  # bytes: UTF-8, or UTF-16 or -32 by their first bytes
        why = f"not {err.encoding.upper()} text ({err.reason} at byte {err.start:,})"
    except ValueError as err:  # NaN, 1e999, an integer of thousands of digits
        why = json_where.refused_value(text) or str(err)
    raise AssertionError(f"output is not JSON that can be checked: {why}")


def _fenced(text: str | bytes | bytearray) -> str:
    """A note for a text that opens a Markdown code fence (a model's ```` ```json ````
    around its answer), which reads as no JSON at line 1, column 1; else ``""``."""
    if not isinstance(text, str) or not text.lstrip().startswith(("```", "~~~")):
        return ""
    return (
        " (the text is in a Markdown code fence, ```json ... ```: the check reads JSON "
        "alone; have the agent answer without the fence, or take the JSON out of it first)"
    )


def _json_path(field: str) -> str:
    """A field path of :mod:`~replaygate.strict_json` (``a[0].b``) as the messages write
    paths (``$.a[0].b``)."""
    return f"${field}" if field.startswith("[") else f"$.{field}"


@overload
def assert_json(text: str | bytes, schema: type[ModelT]) -> ModelT: ...
@overload
def assert_json(text: str | bytes, schema: Schema) -> Any: ...
def assert_json(text: str | bytes, schema: Schema) -> Any:
    """Parse ``text`` as JSON, then :func:`assert_structure` it (a schema that is none is
    refused first, whatever the text: :func:`checked_schema`)."""
    checked_schema(schema)
    return _asserted(measure_structure(parse_json(text), schema))
