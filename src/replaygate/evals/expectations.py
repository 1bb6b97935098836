"""A case's expectations as checks on a run's output (the answer text).

``must_contain`` becomes a containment check named ``contains``, ``expected_doc_ids``
a citation check named ``citations`` (every expected id cited; extra citations are
scored by precision, not failed) and ``schema`` a structure check named ``schema``
on the answer parsed as JSON. Each is a gate unless the case lists it in ``signals``.

Each check's description says all it expects, so that a baseline keeps it and the gate
sees it change: ``contains`` names the forms its aliases accept (:func:`contains_weaker`
tells a change that accepts more), ``schema`` a digest of the schema.
"""

from __future__ import annotations

import ast
import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from replaygate.assertions import citations_check, contains_check, structure_check
from replaygate.assertions.kinds import Check, Kind, Measure
from replaygate.assertions.text import normalize
from replaygate.evals.cases import EvalCase

Output = Mapping[str, Any]
Aliases = Mapping[str, Sequence[str]]

_MENTIONS = "the text mentions each of "
_ALSO = "; also accepted: "


def contains_description(required: Sequence[str], aliases: Aliases | None) -> str:
    """``the text mentions each of 'a', 'b'``, then ``; also accepted: {'b': ['B']}``
    when aliases are given (each term's other forms)."""
    text = _MENTIONS + ", ".join(map(repr, required))
    if aliases:
        text += _ALSO + repr({term: list(forms) for term, forms in aliases.items()})
    return text


def _contains_terms(description: str) -> dict[str, set[str]] | None:
    """Each required term of a :func:`contains_description` with the forms accepted for
    it (the term and its aliases); None when ``description`` is not one."""
    if not description.startswith(_MENTIONS):
        return None
    rest = description[len(_MENTIONS) :]
    splits = [len(rest)] + [i for i in range(len(rest)) if rest.startswith(_ALSO, i)]
    for at in splits:
        try:
            required = ast.literal_eval(f"({rest[:at]},)")
            aliases = ast.literal_eval(rest[at + len(_ALSO) :]) if at < len(rest) else None
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue
        if not _texts(required) or not (
            aliases is None
            or (isinstance(aliases, dict) and all(map(_texts, (aliases, *aliases.values()))))
        ):
            continue  # not terms and an alias mapping: a hand-edited baseline's ['x']
        if contains_description(required, aliases) != description:
            continue
        return {term: {term, *(aliases or {}).get(term, ())} for term in required}
    return None


def _texts(items: Any) -> bool:
    """Whether ``items`` is a collection of strings (as terms, forms and alias keys are)."""
    return isinstance(items, tuple | list | dict) and all(isinstance(i, str) for i in items)


def contains_weaker(before: str, after: str) -> bool:
    """Whether the containment check described by ``after`` accepts every text that of
    ``before`` accepts, and more: each term it asks for stands for a term of ``before``
    each of whose forms holds one of its own (after the check's normalising: case, width,
    whitespace runs), so a term dropped, a form (an alias) added, or a term cut to a part
    of itself (``'Paris, France'`` to ``'Paris'``). False when either is no
    :func:`contains_description`."""
    old, new = _contains_terms(before), _contains_terms(after)
    if old is None or new is None or old == new:
        return False
    was = [{normalize(form) for form in forms} for forms in old.values()]
    now = [{normalize(form) for form in forms} for forms in new.values()]
    return _implied(now, was) and not _implied(was, now)  # not: accepts the same texts


def _implied(terms: list[set[str]], by: list[set[str]]) -> bool:
    """Whether every text holding a form of each term of ``by`` holds a form of each of
    ``terms``: each of ``terms`` has a term of ``by`` each of whose forms holds one of its."""

    def holds(forms: set[str], term: set[str]) -> bool:
        return all(any(part in form for part in term) for form in forms)

    return all(any(holds(forms, term) for forms in by) for term in terms)


def schema_description(schema: Mapping[str, Any]) -> str:
    """``the output has the required structure (schema sha256:...)``: a changed schema
    changes the description."""
    text = json.dumps(schema, sort_keys=True, ensure_ascii=False)
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"the output has the required structure (schema sha256:{digest})"


def on_answer(check: Check[Any], description: str | None = None) -> Check[Output]:
    """``check`` applied to the ``final`` answer of a run's output (``description`` in
    place of its own, when given)."""
    inner = check.fn

    def measure(output: Output) -> Measure | None:
        return inner(output["final"])

    return Check(check.name, check.kind, measure, check.category, description or check.description)


def checks_for(case: EvalCase) -> list[Check[Output]]:
    """The checks of ``case``, in a fixed order: contains, citations, schema."""

    def kind(name: str) -> Kind:
        return "signal" if name in case.signals else "gate"

    checks: list[Check[Output]] = []
    if case.must_contain:
        contains = contains_check(
            case.must_contain, kind=kind("contains"), name="contains", aliases=case.aliases
        )
        checks.append(on_answer(contains, contains_description(case.must_contain, case.aliases)))
    if case.expected_doc_ids:
        checks.append(on_answer(citations_check(case.expected_doc_ids, kind=kind("citations"))))
    if case.schema is not None:
        structure = structure_check(case.schema, kind=kind("schema"), name="schema", from_json=True)
        checks.append(on_answer(structure, schema_description(case.schema)))
    return checks
