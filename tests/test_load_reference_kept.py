"""load_reference, the Python API's way to read a baseline, gives what the gate command
compares: the counts of each case the baseline keeps (metrics over the cases both sides
hold) and the prices it was priced at (costs of two price tables refused)."""

from __future__ import annotations

from pathlib import Path

from replaygate.evals import GateConfig, Reference, load_reference, run_gate, update_baseline
from test_gate_compared_cases import CHEAP, OLD, case, results


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
