"""A hand-edited baseline is compared or refused with words, never a traceback: a
contains description whose terms are no strings (['RAG'], an alias list of lists) is
read as a changed description."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from replaygate.evals import GateConfig, Reference, load_reference, run_gate, update_baseline
from replaygate.sampling import AssertionStats
from test_gate_compared_cases import OLD, results

CONTAINS = "the text mentions each of 'RAG'"
"""A containment gate's description, as a case's must_contain gives it."""


def _with_contains(reference: Reference, description: str) -> Reference:
    """``reference`` whose case ``a`` holds a contains gate described by ``description``."""
    contains = AssertionStats("contains", "gate", "contains", 5, 5, description)
    cases = tuple(
        replace(c, assertions=(*c.assertions, contains)) if c.case == "a" else c
        for c in reference.cases
    )
    return replace(reference, cases=cases)


def test_a_contains_description_of_no_terms_is_a_changed_description(tmp_path: Path) -> None:
    update_baseline(tmp_path / "b.json", results(*OLD), reason="first")
    now = _with_contains(Reference.of(results(*OLD), "now"), CONTAINS)
    for terms in ("['RAG']", "'RAG'; also accepted: {'RAG': [['rag']]}"):
        edited = f"the text mentions each of {terms}"  # a hand edit: a list where a term was
        baseline = _with_contains(load_reference(tmp_path / "b.json"), edited)
        report = run_gate(baseline, now, GateConfig())
        assert report.passed
        assert (
            f"case a expects otherwise than in the baseline (assertion contains changed: {edited!r}"
            in ("\n".join(report.notes))
        )
