"""JSON Schema's pattern keywords checked within a time bound, for the validators of
:mod:`replaygate.json_schema`.

``jsonschema`` checks ``pattern``, ``patternProperties`` and ``additionalProperties``
(which passes over the names a ``patternProperties`` pattern matches) with
``re.search``, which backtracks exponentially on some patterns and cannot be
interrupted: ``{"pattern": "^(\\w+\\s?)*$"}`` against a long sentence ending in ``!``
held the check for ever. These three keywords search with
:func:`~replaygate.pattern_search.searched` instead: the same answer, or a
:class:`~replaygate.pattern_search.SlowPatternError` naming the pattern past its time
bound. Their errors are worded as ``jsonschema`` words them.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from replaygate.pattern_search import searched

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator


def pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[ValidationError]:
    """``pattern``: a string the pattern is found in."""
    from jsonschema.exceptions import ValidationError

    if validator.is_type(instance, "string") and not searched(pattern, instance):
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
            if searched(each, name):
                yield from validator.descend(value, subschema, path=name, schema_path=each)


def additional_properties(
    validator: Any, additional: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    """``additionalProperties``: the properties neither ``properties`` nor a pattern of
    ``patternProperties`` covers, checked against its schema (refused by ``false``)."""
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "object"):
        return
    extras = _additional(instance, schema)
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


def _additional(instance: Mapping[str, Any], schema: Mapping[str, Any]) -> set[str]:
    """The names of ``instance`` neither ``properties`` nor a ``patternProperties``
    pattern of ``schema`` covers."""
    properties = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    return {
        name
        for name in instance
        if name not in properties and not any(searched(each, name) for each in patterns)
    }


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
