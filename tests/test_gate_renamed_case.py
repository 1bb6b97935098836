"""A case renamed in the cases file and not in the baseline: the gate still fails on the
missing id, and says which new case looks like it renamed (same samples, floor, checks)."""

from __future__ import annotations

from dataclasses import replace

from replaygate.evals import GateConfig, run_gate
from replaygate.evals.results import CaseResult
from test_gate import case, reference, results


def described(case_id: str, terms: str, *, floor: int = 4) -> CaseResult:
    """A case of :func:`test_gate.case` whose citations check says what it expects."""
    made = case(case_id, 5, floor=floor)
    sampled = replace(made.sampled, descriptions={"citations": f"covers {{{terms}}}"})
    return replace(made, sampled=sampled)


def test_a_renamed_case_is_named_beside_the_missing_one() -> None:
    # "FAIL case expenses is in the baseline but not in the results (remove it ...)"
    # beside "note case travel-expenses is new": nothing said they were one case
    baseline = reference(results(described("a", "doc-a"), described("expenses", "doc-x")))
    now = reference(results(described("a", "doc-a"), described("travel-expenses", "doc-x")))
    report = run_gate(baseline, now, GateConfig())
    assert not report.passed
    (problem,) = report.problems
    assert problem == (
        "case expenses is in the baseline but not in the results (renamed? the results hold "
        "the new case travel-expenses, which declares the same samples, floor and checks; a "
        "rename is a baseline change, made with `replaygate baseline update --reason ...`)"
    )
    assert (
        "case travel-expenses is new (not in the baseline), with the samples, floor and "
        "checks of the baseline's case expenses, which the results lack (renamed?)"
    ) in report.notes


def test_cases_that_check_otherwise_or_alike_twice_are_not_said_renamed() -> None:
    baseline = reference(results(described("a", "doc-a"), described("old", "doc-x")))
    for now in (
        results(described("a", "doc-a"), described("new", "doc-y")),  # other checks
        results(described("a", "doc-a"), described("new", "doc-x", floor=3)),  # other floor
        results(described("a", "doc-a"), described("n1", "doc-x"), described("n2", "doc-x")),
    ):
        report = run_gate(baseline, reference(now), GateConfig())
        assert "renamed?" not in report.text()
        assert "(remove it with `replaygate baseline update --reason ...`)" in report.text()
