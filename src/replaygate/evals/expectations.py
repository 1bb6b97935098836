"""A case's expectations as checks on a run's output (the answer text).

``must_contain`` becomes a containment check named ``contains``, ``expected_doc_ids``
a citation check named ``citations`` (every expected id cited; extra citations are
scored by precision, not failed) and ``schema`` a structure check named ``schema``
on the answer parsed as JSON. Each is a gate unless the case lists it in ``signals``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from replaygate.assertions import citations_check, contains_check, structure_check
from replaygate.assertions.kinds import Check, Kind, Measure
from replaygate.evals.cases import EvalCase

Output = Mapping[str, Any]


def on_answer(check: Check[Any]) -> Check[Output]:
    """``check`` applied to the ``final`` answer of a run's output."""
    inner = check.fn

    def measure(output: Output) -> Measure | None:
        return inner(output["final"])

    return Check(check.name, check.kind, measure, check.category, check.description)


def checks_for(case: EvalCase) -> list[Check[Output]]:
    """The checks of ``case``, in a fixed order: contains, citations, schema."""

    def kind(name: str) -> Kind:
        return "signal" if name in case.signals else "gate"

    checks: list[Check[Any]] = []
    if case.must_contain:
        checks.append(
            contains_check(
                case.must_contain, kind=kind("contains"), name="contains", aliases=case.aliases
            )
        )
    if case.expected_doc_ids:
        checks.append(citations_check(case.expected_doc_ids, kind=kind("citations")))
    if case.schema is not None:
        checks.append(
            structure_check(case.schema, kind=kind("schema"), name="schema", from_json=True)
        )
    return [on_answer(check) for check in checks]
