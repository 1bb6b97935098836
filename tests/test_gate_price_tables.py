"""The gate compares costs only where both sides show the one price table that priced
them: a model a table has no price for, or results that keep no table or name no model,
leave the costs uncompared, as two tables do; a baseline that keeps no table is noted;
a kept table of another shape, or with a negative price, is refused naming its field."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from counted_outputs import run_output
from replaygate.assertions.kinds import Outcome
from replaygate.cli import main
from replaygate.evals import CaseResult, EvalResults, update_baseline
from replaygate.evals.prices import Price, PriceTable
from replaygate.evals.scorers import CaseCounts
from replaygate.sampling import SampledResult, SampleResult

Document = dict[str, Any]
SHIPPED = PriceTable({"m": Price(3.0, 15.0), "other": Price(1.0, 5.0)}, "USD", "shipped")
CHEAP = PriceTable({"m": Price(0.5, 2.5), "other": Price(1.0, 5.0)}, "USD", "cheap.toml")


def case(case_id: str, price: float = 3.0, passes: int = 5) -> CaseResult:
    """A case of 5 samples of 100 input tokens each, priced at ``price``, ``passes`` of
    them passing (the floor is 4)."""
    samples = tuple(
        SampleResult(
            i,
            (Outcome("citations", "gate", i < passes, "", None, "set"),),
            run_output(cited=["doc-a"], input_tokens=100, steps=3),
        )
        for i in range(5)
    )
    sampled = SampledResult(case_id, 5, 4, samples)
    counts = CaseCounts(
        samples=5,
        passed=sampled.verdict == "pass",
        runs=5,
        scored=True,
        cited=5,
        correct=5,
        expected=5,
        input_tokens=500,
        output_tokens=0,
        steps=15,
        cost=500 * price / 1_000_000,
    )
    return CaseResult(sampled, counts)


def results(prices: PriceTable, *, tokens_price: float | None = None) -> EvalResults:
    """Two cases priced at ``prices`` (their cost at ``tokens_price`` when given)."""
    price = prices.models["m"].input if tokens_price is None else tokens_price
    info = {"time": "2026-12-01T00:00:00Z", "mode": "replay", "model": "m"}
    return EvalResults((case("a", price), case("b", price)), {**info, "prices": prices.to_json()})


Edit = Callable[[Document], None]


def gate(
    tmp_path: Path,
    now: EvalResults,
    *,
    base: Edit | None = None,
    run: Edit | None = None,
    args: tuple[str, ...] = (),
) -> Result:
    """``replaygate gate`` of ``now`` against a baseline of the shipped prices, each file
    edited by hand first (``base``, ``run``)."""
    baseline, out = tmp_path / "b.json", tmp_path / "now.json"
    update_baseline(baseline, results(SHIPPED), reason="first")
    now.write(out)
    for path, edit in ((baseline, base), (out, run)):
        if edit is not None:
            document = json.loads(path.read_text("utf-8"))
            edit(document)
            path.write_text(json.dumps(document), encoding="utf-8")
    config = tmp_path / "pyproject.toml"
    config.write_text("[tool.replaygate]\n", encoding="utf-8")
    command = ["gate", "--baseline", str(baseline), "--results", str(out), "--config", str(config)]
    return CliRunner().invoke(main, [*command, *args])


def cost_row(result: Result) -> list[str]:
    return next(line for line in result.output.splitlines() if line.startswith("cost ")).split()


def test_a_baseline_without_its_source_is_noted_as_keeping_no_prices(tmp_path: Path) -> None:
    # the costs of the cheaper table look six times lower; a baseline with no `source`
    # (written before it kept one, and digests of what each update wrote) said nothing of it
    def no_source(document: Document) -> None:
        del document["source"]
        for entry in document["history"]:
            del entry["digest"]

    result = gate(tmp_path, results(CHEAP), base=no_source)
    assert result.exit_code == 0, result.output
    assert "note cost: the baseline does not keep the prices it was priced at" in result.output


@pytest.mark.parametrize(
    ("side", "field", "value", "error"),
    [
        ("base", "prices", "x", "b.json: source.prices: must be an object, got 'x'"),
        (
            "base",
            "input",
            -3.0,
            "b.json: source.prices.models.m.input: must be the price of a million tokens, "
            "a number from 0 to 1,000,000, got -3.0",
        ),
        ("base", "models", [], "b.json: source.prices.models: must be an object keyed by model"),
        (
            "run",
            "output",
            "15",
            "now.json: eval.prices.models.m.output: must be the price of a million tokens, "
            "a number from 0 to 1,000,000, got '15'",
        ),
        ("run", "currency", None, "now.json: eval.prices.currency: must be a non-empty string"),
        ("run", "model", {}, "now.json: eval.prices: unknown field 'model': replaygate neither"),
    ],
)
def test_a_kept_price_table_of_another_shape_is_refused_naming_its_field(
    tmp_path: Path, side: str, field: str, value: object, error: str
) -> None:
    def edit(document: Document) -> None:
        about = document["source" if side == "base" else "eval"]
        if field == "prices":
            about["prices"] = value
        elif field in ("input", "output"):
            about["prices"]["models"]["m"][field] = value
        else:
            about["prices"][field] = value

    edits = {side: edit}
    result = gate(tmp_path, results(SHIPPED), base=edits.get("base"), run=edits.get("run"))
    assert result.exit_code == 2, result.output
    assert error in result.output


@pytest.mark.parametrize(("side", "named"), [("source", "baseline's"), ("eval", "results'")])
def test_a_model_missing_from_either_price_table_leaves_the_costs_uncompared(
    tmp_path: Path, side: str, named: str
) -> None:
    # priced at the cheap table, the results' costs are lower; with the run's model gone
    # from a table, the two tables were compared on no model, and the costs as if one
    def no_model(document: Document) -> None:
        del document[side]["prices"]["models"]["m"]

    edits = {"base": no_model} if side == "source" else {"run": no_model}
    result = gate(tmp_path, results(CHEAP), **edits)  # type: ignore[arg-type]
    assert result.exit_code == 1, result.output
    assert f"FAIL cost: the {named} price table (" in result.output
    assert ") has no price for m, so whether both were priced alike cannot be told" in (
        result.output
    )
    assert cost_row(result)[3:] == ["n/a", "rise", "<=", "10.0%", "FAIL"]


@pytest.mark.parametrize(
    ("field", "said"),
    [
        ("prices", "the results do not keep the prices they were priced at (eval.prices)"),
        ("model", "the results do not name the model they ran (eval.model)"),
    ],
)
def test_results_that_keep_no_prices_or_no_model_leave_the_costs_uncompared(
    tmp_path: Path, field: str, said: str
) -> None:
    def deleted(document: Document) -> None:
        del document["eval"][field]

    result = gate(tmp_path, results(CHEAP), run=deleted)
    assert result.exit_code == 1, result.output
    assert f"FAIL cost: {said}" in result.output
    assert "gate the results file `replaygate eval --out FILE` writes" in result.output
    assert cost_row(result)[3] == "n/a"


def test_costs_not_compared_with_no_cost_limit_are_a_note(tmp_path: Path) -> None:
    def no_prices(document: Document) -> None:
        del document["eval"]["prices"]  # null would say no table priced its costs: refused

    lifted = ("--max-rise", "cost=inf")
    result = gate(tmp_path, results(CHEAP), run=no_prices, args=lifted)
    assert result.exit_code == 0, result.output
    assert "note cost: the results do not keep the prices they were priced at" in result.output
    assert cost_row(result)[3:] == ["n/a", "-", "-"]


def test_one_price_written_as_an_integer_is_the_same_price(tmp_path: Path) -> None:
    # 3 and 3.0 are one price: the tables are one, and the costs compared
    def integers(document: Document) -> None:
        document["source"]["prices"]["models"]["m"] = {"input": 3, "output": 15}

    result = gate(tmp_path, results(SHIPPED), base=integers)
    assert result.exit_code == 0, result.output
    assert cost_row(result)[3:] == ["+0.0%", "rise", "<=", "10.0%", "ok"]
