"""JSON Schema's pattern keywords checked within a time bound, for the validators of
:mod:`replaygate.json_schema`.

``jsonschema`` checks ``pattern``, ``patternProperties`` and ``additionalProperties``
(which passes over the names a ``patternProperties`` pattern matches) with
``re.search``, which backtracks exponentially on some patterns and cannot be
interrupted: ``{"pattern": "^(\\w+\\s?)*$"}`` against a long sentence ending in ``!``
held the check for ever. These three keywords search with
:func:`~replaygate.pattern_search.searched` instead, and give the same answer, their
errors worded as ``jsonschema`` words them; a search past its time bound fails the
check where it ran, naming the pattern (``the string cannot be checked: pattern ...
took more than 1 s to search a string of 51 characters: ...``), so an
``assert_structure``, an eval's ``schema`` expectation or the simulator's check of what
it made reports it as any other failing path.

That failure is the check's whatever the keywords around the search make of it:
``not``, ``if``, ``anyOf``, ``oneOf``, ``contains`` and the like take a subschema's
failure as an answer (``not`` passes where its subschema fails), and a search that ran
out of time answered nothing. :func:`every_error`, through which
:func:`replaygate.json_schema.errors` checks a value, notes each such search of the
check and, after the validator's own errors, adds the failure of each one no error it
yielded reported, at the path of the value searched (:func:`_hidden`). A search that
ran out of time is not run again in the same check: its failure is taken at once.
"""

from __future__ import annotations

import contextvars
import functools
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from replaygate.pattern_search import SlowPatternError, searched

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator


@dataclass(frozen=True)
class _Unchecked:
    """The failure of a search past its time bound, as its keyword yielded it: ``error``,
    and where it was searched: the value of the keyword (``instance``: the string of a
    ``pattern``, the object of a ``patternProperties`` name), the schema holding the
    keyword and the keyword's name."""

    error: ValidationError
    instance: Any
    schema: Any
    keyword: str


@dataclass
class _Check:
    """The searches past their time bound of one check of a value: each one's reason by
    its pattern and text, and each failure yielded of them."""

    slow: dict[tuple[str, str], str] = field(default_factory=dict)
    unchecked: list[_Unchecked] = field(default_factory=list)


_CHECK: contextvars.ContextVar[_Check | None] = contextvars.ContextVar(
    "replaygate_json_patterns_check", default=None
)
"""The check running (set while :func:`every_error` asks its validator for an error)."""


def pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[ValidationError]:
    """``pattern``: a string the pattern is found in."""
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "string"):
        return
    try:
        found = _found(pattern, instance)
    except SlowPatternError as err:
        yield _unchecked(f"the string cannot be checked: {err}", instance, schema, "pattern")
        return
    if not found:
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def pattern_properties(
    validator: Any, patterns: Mapping[str, Any], instance: Any, schema: Any
) -> Iterator[ValidationError]:
    """``patternProperties``: each property whose name a pattern is found in, checked
    against that pattern's schema."""
    if not validator.is_type(instance, "object"):
        return
    for each, subschema in patterns.items():
        for name, value in instance.items():
            try:
                found = _found(each, name)
            except SlowPatternError as err:
                why = f"property name {name!r} cannot be checked: {err}"
                yield _unchecked(why, instance, schema, "patternProperties")
                continue
            if found:
                yield from validator.descend(value, subschema, path=name, schema_path=each)


def additional_properties(
    validator: Any, additional: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    """``additionalProperties``: the properties neither ``properties`` nor a pattern of
    ``patternProperties`` covers, checked against its schema (refused by ``false``)."""
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "object"):
        return
    unchecked: list[str] = []
    extras = _additional(instance, schema, unchecked)
    for why in unchecked:
        yield _unchecked(why, instance, schema, "additionalProperties")
    if validator.is_type(additional, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], additional, path=extra)
    elif not additional and extras:
        if "patternProperties" in schema:
            verb = "does" if len(extras) == 1 else "do"
            joined = ", ".join(repr(each) for each in sorted(extras))
            patterns = ", ".join(repr(each) for each in sorted(schema["patternProperties"]))
            yield ValidationError(f"{joined} {verb} not match any of the regexes: {patterns}")
        else:
            listed = ", ".join(repr(extra) for extra in sorted(extras, key=str))
            verb = "was" if len(extras) == 1 else "were"
            yield ValidationError(
                f"Additional properties are not allowed ({listed} {verb} unexpected)"
            )


def _additional(
    instance: Mapping[str, Any], schema: Mapping[str, Any], unchecked: list[str]
) -> list[str]:
    """The names of ``instance`` neither ``properties`` nor a ``patternProperties``
    pattern of ``schema`` covers (a name a search could not decide is none of them: why
    it cannot be checked is added to ``unchecked``)."""
    properties = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    extras = []
    for name in instance:
        if name in properties:
            continue
        for each in patterns:
            try:
                if _found(each, name):
                    break
            except SlowPatternError as err:
                unchecked.append(f"property name {name!r} cannot be checked: {err}")
                break
        else:
            extras.append(name)
    return extras


def _found(pattern: str, text: str) -> bool:
    """Whether ``pattern`` is found in ``text``; :class:`SlowPatternError` when its search
    runs past its time bound, at once when it ran past it before in the same check."""
    check = _CHECK.get()
    if check is not None and (pattern, text) in check.slow:
        raise SlowPatternError(check.slow[pattern, text])
    try:
        return searched(pattern, text)
    except SlowPatternError as err:
        if check is not None:
            check.slow[pattern, text] = str(err)
        raise


def _unchecked(why: str, instance: Any, schema: Any, keyword: str) -> ValidationError:
    """The failure of a search past its time bound, saying ``why``, noted in the check
    running (by :func:`every_error`): it fails the check even where the keywords around
    the search take the failure as an answer (``not``) and do not report it."""
    from jsonschema.exceptions import ValidationError

    error = ValidationError(why)
    check = _CHECK.get()
    if check is not None:
        check.unchecked.append(_Unchecked(error, instance, schema, keyword))
    return error


def every_error(check: Validator, value: Any) -> Iterator[ValidationError]:
    """Each error of ``check`` (a validator of :func:`bounded`) for ``value``, then the
    failure of each pattern search of the check that ran past its time bound and that no
    error yielded reported: a keyword that answers by a subschema's failure (``not``,
    ``if``, ``anyOf``, ``oneOf``, ``contains``...) did not pass it on, and would otherwise
    have taken a search that answered nothing for a pattern not found (``not`` passing a
    string the pattern is in). Each is reported once, at the path of the value searched."""
    running = _Check()
    found = check.iter_errors(value)
    yielded: list[ValidationError] = []
    while True:
        token = _CHECK.set(running)  # set only while the validator runs, never across a yield
        try:
            error = next(found)
        except StopIteration:
            break
        finally:
            _CHECK.reset(token)
        yielded.append(error)
        yield error
    if running.unchecked:
        yield from _hidden(running.unchecked, yielded, value, check.schema)


_Path = tuple[str | int, ...]
"""Where a value is: the keys and indexes from the value checked."""


def _hidden(
    unchecked: list[_Unchecked], yielded: list[ValidationError], value: Any, schema: Any
) -> Iterator[ValidationError]:
    """The failures of ``unchecked`` no error of ``yielded`` is, each once at the path of
    the value it searched, with the place of its keyword in ``schema``.

    A keyword is not told where its value is, so the path is found by the value itself:
    among the places in ``value`` holding that very string or object (a property name's:
    its object's), the first whose path ends as the failure's own path does (what the
    keywords between the search and the one that took its failure added to it). A value
    parsed from JSON holds each string once; a string object put at two places in code
    is named at the first that fits."""
    from jsonschema.exceptions import ValidationError

    passed_on = {id(error) for error in yielded}
    hidden = [each for each in unchecked if id(each.error) not in passed_on]
    if not hidden:
        return
    reported = {(tuple(error.path), error.message) for error in yielded}
    values = _places(value, {id(each.instance) for each in hidden}, keys=True)
    schemas = _places(schema, {id(each.schema) for each in hidden}, keys=False)
    for each in hidden:
        below = tuple(each.error.path)
        held = values.get(id(each.instance), [])
        path = next((place for place in held if _ends_with(place, below)), None)
        if path is None:
            path = held[0] if held else below
        if (path, each.error.message) in reported:
            continue
        reported.add((path, each.error.message))
        where = schemas.get(id(each.schema))
        keyword = each.schema.get(each.keyword) if isinstance(each.schema, Mapping) else None
        yield ValidationError(
            each.error.message,
            validator=each.keyword,
            path=path,
            validator_value=keyword,
            instance=each.instance,
            schema=each.schema,
            schema_path=(*where[0], each.keyword) if where else (each.keyword,),
        )


def _ends_with(path: _Path, end: _Path) -> bool:
    """Whether ``path`` ends with the parts of ``end``."""
    return len(path) >= len(end) and path[len(path) - len(end) :] == end


def _places(root: Any, targets: set[int], *, keys: bool) -> dict[int, list[_Path]]:
    """The paths in ``root`` (JSON: mappings, lists) of each object whose ``id`` is one of
    ``targets``, in document order; with ``keys``, a mapping's path is also the place of
    each of its keys (where ``jsonschema`` reports a property name). A container held at
    two places is looked into at the first only."""
    places: dict[int, list[_Path]] = {}
    looked: set[int] = set()
    stack: list[tuple[_Path, Any]] = [((), root)]
    while stack:
        path, node = stack.pop()
        if id(node) in targets:
            places.setdefault(id(node), []).append(path)
        items: Iterable[tuple[str | int, Any]]
        if isinstance(node, Mapping):
            items = node.items()
            if keys:
                for name in node:
                    if id(name) in targets:
                        places.setdefault(id(name), []).append(path)
        elif isinstance(node, list | tuple):
            items = enumerate(node)
        else:
            continue
        if id(node) in looked:
            continue
        looked.add(id(node))
        stack.extend(((*path, key), item) for key, item in reversed(list(items)))
    return places


KEYWORDS = {
    "pattern": pattern,
    "patternProperties": pattern_properties,
    "additionalProperties": additional_properties,
}


@functools.cache
def bounded(kind: type[Validator]) -> type[Validator]:
    """The validator class ``kind`` (a draft's) checking :data:`KEYWORDS` within a time
    bound."""
    from jsonschema.validators import extend

    keywords = {name: KEYWORDS[name] for name in KEYWORDS if name in kind.VALIDATORS}
    made: type[Validator] = extend(kind, keywords)  # type: ignore[no-untyped-call]
    return made
