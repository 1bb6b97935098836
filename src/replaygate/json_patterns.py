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
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from replaygate.pattern_search import SlowPatternError, searched

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator


def pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[ValidationError]:
    """``pattern``: a string the pattern is found in."""
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "string"):
        return
    unchecked: list[str] = []
    if _found(pattern, instance, "the string", unchecked) is False:
        yield ValidationError(f"{instance!r} does not match {pattern!r}")
    yield from map(ValidationError, unchecked)


def pattern_properties(
    validator: Any, patterns: Mapping[str, Any], instance: Any, schema: Any
) -> Iterator[ValidationError]:
    """``patternProperties``: each property whose name a pattern is found in, checked
    against that pattern's schema."""
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "object"):
        return
    unchecked: list[str] = []
    for each, subschema in patterns.items():
        for name, value in instance.items():
            if _found(each, name, f"property name {name!r}", unchecked):
                yield from validator.descend(value, subschema, path=name, schema_path=each)
    yield from map(ValidationError, unchecked)


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
    yield from map(ValidationError, unchecked)


def _additional(
    instance: Mapping[str, Any], schema: Mapping[str, Any], unchecked: list[str]
) -> list[str]:
    """The names of ``instance`` neither ``properties`` nor a ``patternProperties``
    pattern of ``schema`` covers (a name a search could not decide is none of them)."""
    properties = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    extras = []
    for name in instance:
        if name in properties:
            continue
        for each in patterns:
            if _found(each, name, f"property name {name!r}", unchecked) is not False:
                break
        else:
            extras.append(name)
    return extras


def _found(pattern: str, text: str, what: str, unchecked: list[str]) -> bool | None:
    """Whether ``pattern`` is found in ``text``; None when its search ran past its time
    bound, noted in ``unchecked`` as why ``what`` (the text, in words) cannot be checked:
    the check fails there, naming the pattern, where it would otherwise never end."""
    try:
        return searched(pattern, text)
    except SlowPatternError as err:
        unchecked.append(f"{what} cannot be checked: {err}")
        return None


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
