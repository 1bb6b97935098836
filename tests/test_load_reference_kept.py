"""load_reference, the Python API's way to read a baseline, gives what the gate command
compares: the counts of each case the baseline keeps (metrics over the cases both sides
hold) and the prices it was priced at (costs of two price tables refused)."""

from __future__ import annotations

from pathlib import Path

from replaygate.assertions.kinds import Outcome
from replaygate.evals import (
    CaseResult,
    EvalResults,
    GateConfig,
    Reference,
    load_reference,
    run_gate,
    update_baseline,
)
from replaygate.evals.prices import Price, PriceTable
from replaygate.evals.scorers import CaseCounts
from replaygate.sampling import SampledResult, SampleResult

SHIPPED = PriceTable({"m": Price(3.0, 15.0)}, "USD", "shipped")
CHEAP = PriceTable({"m": Price(0.5, 2.5)}, "USD", "cheap.toml", "2026-12-01")


def case(case_id: str, passes: int, *, tokens: int = 100) -> CaseResult:
    samples = tuple(
        SampleResult(i, (Outcome("citations", "gate", i < passes, "", None, "set"),), {})
        for i in range(5)
    )
    sampled = SampledResult(case_id, 5, 4, samples)
    counts = CaseCounts(
        samples=5,
        passed=sampled.verdict == "pass",
        runs=5,
        scored=True,
        cited=passes,
        correct=passes,
        expected=5,
        input_tokens=tokens * 5,
        output_tokens=0,
        steps=15,
        cost=tokens * 5 * 3.0 / 1_000_000,
    )
    return CaseResult(sampled, counts)


def results(*cases: CaseResult, prices: PriceTable = SHIPPED) -> EvalResults:
    info = {"time": "2026-12-01T00:00:00Z", "mode": "replay", "model": "m"}
    return EvalResults(cases, {**info, "prices": prices.to_json()})


OLD = (case("a", 5), case("b", 5), case("c", 4))


def test_the_python_gate_refuses_costs_of_two_price_tables(tmp_path: Path) -> None:
    update_baseline(tmp_path / "b.json", results(*OLD), reason="first")
    now = results(*OLD, prices=CHEAP)
    report = run_gate(load_reference(tmp_path / "b.json"), Reference.of(now, "now"), GateConfig())
    assert not report.passed
    assert any("costs of two price tables are not compared" in p for p in report.problems)


def test_the_python_gate_compares_the_metrics_over_the_cases_both_hold(tmp_path: Path) -> None:
    update_baseline(tmp_path / "b.json", results(*OLD), reason="first")
    easy = [case(f"new-{i}", 5) for i in range(15)]
    now = results(case("a", 3), case("b", 3), case("c", 4), *easy)
    report = run_gate(load_reference(tmp_path / "b.json"), Reference.of(now, "now"), GateConfig())
    success = next(row for row in report.rows if row.metric == "success")
    assert (success.baseline, success.now) == (1.0, 1 / 3)
    assert not report.passed
