"""Ready-made checks: each assertion as a named gate or signal.

The kind is always declared: ``kind="gate"`` fails the sample when it fails,
``kind="signal"`` is only recorded.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any

from replaygate.assertions.citations import citation_id, extract_citations
from replaygate.assertions.contains import measure_contains, pieces_of
from replaygate.assertions.kinds import Check, Kind, Measure
from replaygate.assertions.sets import measure_set
from replaygate.assertions.structure import (
    Schema,
    StructureResult,
    checked_schema,
    measure_structure,
    parse_json,
    with_text_hint,
)


def structure_check(
    schema: Schema, *, kind: Kind, name: str = "structure", from_json: bool = False
) -> Check[Any]:
    """:func:`~replaygate.assertions.assert_structure` as a check; ``from_json`` parses text
    first (text that is not JSON fails the check); without it, a failure on text that
    parses as JSON says to pass it. A schema that is none is refused here, as the check is
    built (:func:`~replaygate.assertions.structure.checked_schema`)."""
    checked_schema(schema)
    how = "pass from_json=True to structure_check to parse it first"

    def measure(value: Any) -> StructureResult:
        if from_json:
            return measure_structure(parse_json(value), schema)
        return with_text_hint(measure_structure(value, schema), value, how)

    return Check(name, kind, measure, "structure", "the output has the required structure")


def contains_check(
    required: Sequence[str],
    *,
    kind: Kind,
    name: str = "contains",
    aliases: Mapping[str, Sequence[str]] | None = None,
    ignore_case: bool = True,
    whole_words: bool = False,
) -> Check[str]:
    """:func:`~replaygate.assertions.assert_contains` as a check."""
    required = pieces_of(required)  # each sample's measure reads them again
    measured = functools.partial(
        measure_contains,
        required=required,
        aliases=aliases,
        ignore_case=ignore_case,
        whole_words=whole_words,
    )
    measured("")  # validate now

    def measure(text: str) -> Measure:
        return measured(text)

    pieces = ", ".join(map(repr, required))
    return Check(name, kind, measure, "contains", f"the text mentions each of {pieces}")


def set_check(
    expected: Iterable[Hashable],
    *,
    kind: Kind,
    extract: Callable[[Any], Iterable[Hashable]],
    name: str = "set",
    min_recall: float = 1.0,
    min_precision: float | None = None,
) -> Check[Any]:
    """:func:`~replaygate.assertions.assert_set` on ``extract(value)`` as a check."""
    if isinstance(expected, str):
        raise TypeError(f"expected must be a collection of items, not one string: {expected!r}")
    if not callable(extract):
        raise TypeError(
            f"check {name!r}: extract must be a function of the output, got {extract!r}"
        )
    wanted = frozenset(expected)
    measure_set((), wanted, min_recall=min_recall, min_precision=min_precision)

    def measure(value: Any) -> Measure:
        got = extract(value)
        return measure_set(got, wanted, min_recall=min_recall, min_precision=min_precision)

    items = ", ".join(sorted(map(str, wanted)))
    return Check(name, kind, measure, "set", f"the extracted set covers {{{items}}}")


def _cited_form(doc_id: Any) -> Any:
    return citation_id(doc_id) if isinstance(doc_id, str) else doc_id


def citations_check(
    expected: Iterable[str],
    *,
    kind: Kind,
    name: str = "citations",
    min_recall: float = 1.0,
    min_precision: float | None = None,
) -> Check[str]:
    """A :func:`set_check` on the ``[doc-id]`` citations of a text; the expected ids are
    NFKC-normalized as the cited ones are."""
    wanted = expected if isinstance(expected, str) else [_cited_form(i) for i in expected]
    return set_check(
        wanted,
        kind=kind,
        extract=extract_citations,
        name=name,
        min_recall=min_recall,
        min_precision=min_precision,
    )
