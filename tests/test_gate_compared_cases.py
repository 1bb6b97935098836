"""The gate compares the metrics over the cases both the baseline and the results hold,
refuses to compare costs of two price tables, and reads the counts and prices a
baseline file keeps; ``baseline update`` keeps them, and refuses to overwrite the
results of a run."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from click.testing import CliRunner, Result

from counted_outputs import run_output
from replaygate.assertions.kinds import Outcome
from replaygate.cli import main
from replaygate.evals import CaseResult, EvalResults, GateConfig, run_gate, update_baseline
from replaygate.evals.baseline import load_baseline
from replaygate.evals.prices import Price, PriceTable
from replaygate.evals.scorers import CaseCounts
from replaygate.sampling import SampledResult, SampleResult

SHIPPED = PriceTable({"m": Price(3.0, 15.0)}, "USD", "shipped")
CHEAP = PriceTable({"m": Price(0.5, 2.5)}, "USD", "cheap.toml", "2026-12-01")


def case(case_id: str, passes: int, *, tokens: int = 100, cited: int | None = None) -> CaseResult:
    n = 5
    cites = passes if cited is None else cited
    samples = tuple(
        SampleResult(
            i,
            (Outcome("citations", "gate", i < passes, "", None, "set"),),
            run_output(cited=["doc-a"] if i < cites else [], input_tokens=tokens, steps=3),
        )
        for i in range(n)
    )
    sampled = SampledResult(case_id, n, 4, samples)
    counts = CaseCounts(
        samples=n,
        passed=sampled.verdict == "pass",
        runs=n,
        scored=True,
        cited=cites,
        correct=cites,
        expected=n,
        input_tokens=tokens * n,
        output_tokens=0,
        steps=3 * n,
        cost=tokens * n * 3.0 / 1_000_000,
    )
    return CaseResult(sampled, counts)


def results(*cases: CaseResult, prices: PriceTable = SHIPPED) -> EvalResults:
    """``cases``, their costs priced at ``prices`` (none where a case opts out of cost), as
    a run at them writes them."""
    info = {"time": "2026-12-01T00:00:00Z", "mode": "replay", "model": "m"}
    priced = tuple(
        replace(c, counts=replace(c.counts, cost=_priced(c.counts, prices))) for c in cases
    )
    return EvalResults(priced, {**info, "prices": prices.to_json()})


def _priced(counts: CaseCounts, prices: PriceTable) -> float | None:
    if counts.cost_skipped:
        return None
    return prices.cost("m", counts.input_tokens, counts.output_tokens)


def cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def gate(tmp_path: Path, baseline: EvalResults, now: EvalResults) -> Result:
    update_baseline(tmp_path / "b.json", baseline, reason="first")
    now.write(tmp_path / "now.json")
    return cli(
        "gate", "--baseline", str(tmp_path / "b.json"), "--results", str(tmp_path / "now.json")
    )


OLD = (case("a", 5), case("b", 5), case("c", 4))


def test_new_easy_cases_do_not_hide_a_regression_of_the_cases_both_hold(tmp_path: Path) -> None:
    easy = [case(f"new-{i}", 5) for i in range(15)]
    regressed = (case("a", 3, cited=3), case("b", 3, cited=3), case("c", 4))
    result = gate(tmp_path, results(*OLD), results(*regressed, *easy))
    assert result.exit_code == 1, result.output
    success = next(line for line in result.output.splitlines() if line.startswith("success "))
    assert success.split()[1:4] == ["1.000", "0.333", "-0.667"]
    assert "note the metrics are compared over the 3 case(s) both hold; the 15 new case(s) " in (
        result.output
    )
    assert "note case new-0 is new (not in the baseline)" in result.output


def test_a_baseline_keeps_the_counts_of_its_cases_and_checks_them(tmp_path: Path) -> None:
    update_baseline(tmp_path / "b.json", results(*OLD), reason="first")
    document = json.loads((tmp_path / "b.json").read_text())
    assert document["cases"]["a"]["counts"]["input_tokens"] == 500
    assert document["source"]["prices"]["models"] == {"m": {"input": 3.0, "output": 15.0}}
    assert load_baseline(tmp_path / "b.json").reference.counts["c"].cited == 4  # type: ignore[attr-defined]
    document["cases"]["a"]["counts"]["input_tokens"] = 5  # the tokens metric no longer agrees
    (tmp_path / "b.json").write_text(json.dumps(document))
    now = tmp_path / "now.json"
    results(*OLD).write(now)
    result = cli("gate", "--baseline", str(tmp_path / "b.json"), "--results", str(now))
    assert result.exit_code == 2, result.output
    assert "b.json: metrics.tokens: says 100.0, but its cases' counts give 67.0" in result.output


def test_a_cost_of_another_price_table_is_not_compared(tmp_path: Path) -> None:
    six_times = tuple(case(c.id, c.sampled.passes, tokens=600) for c in OLD)
    cheaper = results(*six_times, prices=CHEAP)
    result = gate(tmp_path, results(*OLD), cheaper)
    assert result.exit_code == 1, result.output
    assert (
        "FAIL cost: the baseline was priced at USD 3.0 in, 15.0 out per million tokens for m "
        "(shipped), the results at USD 0.5 in, 2.5 out per million tokens for m (cheap.toml, "
        "as of 2026-12-01): costs of two price tables are not compared" in result.output
    )
    # the table agrees with the verdict: the cost row fails and shows no change, since
    # costs of two tables are not comparable; the failure is counted once
    cost = next(line for line in result.output.splitlines() if line.startswith("cost "))
    assert cost.split()[3:] == ["n/a", "rise", "<=", "10.0%", "FAIL"]
    total = next(line for line in result.output.splitlines() if line.startswith("cost_total "))
    assert total.split()[3:] == ["n/a", "-", "-"]
    assert result.output.rstrip().endswith("gate: FAIL (1 violation(s))")
    markdown = cli(
        "gate", "--baseline", str(tmp_path / "b.json"), "--results", str(tmp_path / "now.json"),
        "--format", "markdown",
    )  # fmt: skip
    assert "| rise <= 10.0% | FAIL |" in markdown.output
    assert "| ok |" not in next(x for x in markdown.output.splitlines() if x.startswith("| cost |"))


def test_a_cost_limit_lifted_with_inf_is_no_limit_of_another_price_table(
    tmp_path: Path,
) -> None:
    # docs: to lift a default limit, give one no change reaches (inf); a change of price
    # table failed the gate all the same, as a limited cost would
    six_times = tuple(case(c.id, c.sampled.passes, tokens=600) for c in OLD)
    gate(tmp_path, results(*OLD), results(*six_times, prices=CHEAP))
    lifted = cli(
        "gate", "--baseline", str(tmp_path / "b.json"), "--results", str(tmp_path / "now.json"),
        "--max-rise", "cost=inf",
    )  # fmt: skip
    assert lifted.exit_code == 0, lifted.output
    cost = next(line for line in lifted.output.splitlines() if line.startswith("cost "))
    assert cost.split()[3:] == ["n/a", "-", "-"]
    assert "note cost: the baseline was priced at USD 3.0 in" in lifted.output


def test_one_price_table_on_both_sides_says_nothing_of_prices(tmp_path: Path) -> None:
    result = gate(tmp_path, results(*OLD), results(*OLD))
    assert result.exit_code == 0, result.output
    assert "price" not in result.output


def test_run_gate_on_references_of_other_case_sets_compares_the_shared_ones() -> None:
    from replaygate.evals import Reference

    base = Reference.of(results(*OLD), "b")
    now = Reference.of(results(case("a", 5), case("b", 5), case("d", 0)), "now")
    report = run_gate(base, now, GateConfig(fail_on_missing=False))
    success = next(r for r in report.rows if r.metric == "success")
    assert (success.baseline, success.now) == (1.0, 1.0)


def test_baseline_update_refuses_to_overwrite_the_results_of_a_run(tmp_path: Path) -> None:
    kept = tmp_path / "old_results.json"
    results(*OLD).write(kept)
    before = kept.read_bytes()
    (tmp_path / "now.json").write_bytes(before)
    result = cli(
        "baseline", "update", "--results", str(tmp_path / "now.json"),
        "--baseline", str(kept), "--reason", "typo",
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert f"refusing to update {kept}: it holds the results of a run" in result.output
    assert "Nothing was written." in result.output
    assert kept.read_bytes() == before


def test_results_of_one_shard_are_refused_by_the_gate(tmp_path: Path) -> None:
    update_baseline(tmp_path / "b.json", results(*OLD), reason="first")
    shard = {"index": 1, "count": 2, "cases": 3, "positions": [0, 2]}
    part = EvalResults((OLD[0], OLD[2]), {**results().info, "shard": shard})
    part.write(tmp_path / "s1.json")
    result = cli(
        "gate", "--baseline", str(tmp_path / "b.json"), "--results", str(tmp_path / "s1.json")
    )
    assert result.exit_code == 2, result.output
    assert "s1.json: holds the results of shard 1/2 of a run (2 case(s))" in result.output
    assert "Merge the shards first: `replaygate eval merge" in result.output
    assert "remove it with" not in result.output


def countless_baseline(path: Path, *cases: CaseResult) -> Path:
    """A baseline as a replaygate that kept no counts of its cases wrote it."""
    update_baseline(path, results(*cases), reason="first")
    document = json.loads(path.read_text())
    for kept in document["cases"].values():
        kept.pop("counts")
    path.write_text(json.dumps(document))
    return path


def test_new_easy_cases_do_not_hide_a_regression_against_a_baseline_without_counts(
    tmp_path: Path,
) -> None:
    baseline = countless_baseline(tmp_path / "b.json", *OLD)
    easy = [case(f"new-{i}", 5) for i in range(120)]
    results(case("a", 3, cited=3), case("b", 3, cited=3), case("c", 4), *easy).write(
        tmp_path / "now.json"
    )
    result = cli("gate", "--baseline", str(baseline), "--results", str(tmp_path / "now.json"))
    assert result.exit_code == 1, result.output
    success = next(line for line in result.output.splitlines() if line.startswith("success "))
    assert success.split()[1:4] == ["1.000", "0.333", "-0.667"]
    assert "note the metrics are compared over the 3 case(s) both hold; the 120 new " in (
        result.output
    )


def test_a_baseline_without_counts_and_a_case_the_results_lack_is_not_compared() -> None:
    from replaygate.evals import Reference

    made = Reference.of(results(*OLD), "b")
    base = Reference(made.metrics, made.cases, "b")  # a baseline that keeps no counts
    now = Reference.of(results(case("a", 5), case("b", 5), case("d", 5)), "now")
    report = run_gate(base, now, GateConfig(fail_on_missing=False))
    assert not report.passed
    assert report.problems[0] == (
        "the metrics compare the 3 case(s) of the baseline with the 3 of the results: the "
        "baseline keeps no counts of its cases to compare them over the 2 case(s) both hold: "
        "run `replaygate baseline update --reason ...` to keep them"
    )


def test_a_case_not_counting_its_cost_against_a_baseline_without_counts_is_noted(
    tmp_path: Path,
) -> None:
    baseline = countless_baseline(tmp_path / "b.json", *OLD)
    opted_out = case("c", 4)
    opted_out = CaseResult(opted_out.sampled, replace(opted_out.counts, cost_skipped=True))
    results(case("a", 5), case("b", 5), opted_out).write(tmp_path / "now.json")
    result = cli("gate", "--baseline", str(baseline), "--results", str(tmp_path / "now.json"))
    assert (
        'note case c does not count its cost ("cost": false); the baseline keeps no counts '
        "to say whether it did (`replaygate baseline update --reason ...` keeps them)"
    ) in result.output
