"""Scorers on constructed samples: success, citation precision and recall, fabricated
citations, cost from the price table, tokens and steps."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from replaygate.evals import PriceTable, metrics_of, score_case
from replaygate.evals.cases import EvalCase
from replaygate.evals.errors import PriceError
from replaygate.evals.prices import Price
from replaygate.evals.scorers import CaseCounts
from replaygate.sampling import SampledResult, SampleResult

PRICES = PriceTable({"m": Price(input=2.0, output=10.0)}, "USD", "test")


def output(citations: list[str], fetched: list[str], tokens: tuple[int, int] = (100, 10)) -> Any:
    return {
        "final": " ".join(f"[{c}]" for c in citations),
        "citations": citations,
        "fetched": fetched,
        "steps": 3,
        "tool_errors": 0,
        "input_tokens": tokens[0],
        "output_tokens": tokens[1],
        "error": None,
    }


def sampled(case: str, outputs: list[Any], passed: list[bool], floor: int) -> SampledResult:
    samples = tuple(
        SampleResult(i, (), out, None if ok else "failed")
        for i, (out, ok) in enumerate(zip(outputs, passed, strict=True))
    )
    return SampledResult(case, len(samples), floor, samples)


def test_citations_are_scored_against_expected_and_fetched_ids() -> None:
    case = EvalCase("a", "q", 4, 3, expected_doc_ids=("doc-a", "doc-b"))
    outputs = [
        output(["doc-a", "doc-b"], ["doc-a", "doc-b"]),  # perfect
        output(["doc-a"], ["doc-a"]),  # misses doc-b
        output(["doc-a", "doc-z"], ["doc-a"]),  # doc-z: not expected, never fetched
        output([], ["doc-a"]),  # cites nothing
    ]
    result = sampled("a", outputs, [True, True, True, False], floor=3)
    counts = score_case(case, result, PRICES, "m")
    assert (counts.cited, counts.correct, counts.expected, counts.fabricated) == (5, 4, 8, 1)
    assert counts.passed is True
    metrics = metrics_of([counts])
    assert metrics["citation_precision"] == pytest.approx(4 / 5)
    assert metrics["citation_recall"] == pytest.approx(4 / 8)
    assert metrics["fabricated"] == pytest.approx(1 / 5)
    assert metrics["success"] == 1.0
    assert metrics["steps"] == 3.0
    assert metrics["tokens"] == 110.0
    assert metrics["cost"] == pytest.approx((100 * 2.0 + 10 * 10.0) / 1_000_000)
    assert metrics["cost_total"] == pytest.approx(4 * 300 / 1_000_000)


def test_an_expected_id_not_in_nfkc_form_is_scored_as_the_cited_one() -> None:
    nfd = "doc-cafe\u0301"  # cited ids are read after NFKC: "doc-caf\u00e9"
    case = EvalCase("a", "q", 1, 1, expected_doc_ids=(nfd,))
    cited = output(["doc-caf\u00e9"], ["doc-caf\u00e9"])
    counts = score_case(case, sampled("a", [cited], [True], 1), PRICES, "m")
    assert (counts.cited, counts.correct, counts.expected) == (1, 1, 1)


def test_success_is_the_share_of_cases_whose_verdict_is_pass() -> None:
    passing = CaseCounts(samples=5, passed=True)
    observing = CaseCounts(samples=5, passed=False)
    assert metrics_of([passing, observing, passing, passing])["success"] == 0.75


def test_cases_without_expected_ids_count_only_for_fabrication() -> None:
    case = EvalCase("free", "q", 1, 1, must_contain=("x",))
    counts = score_case(case, sampled("free", [output(["doc-q"], [])], [True], 1), PRICES, "m")
    metrics = metrics_of([counts])
    assert metrics["citation_precision"] is None
    assert metrics["citation_recall"] is None
    assert metrics["fabricated"] == 1.0


@pytest.mark.parametrize(
    ("source", "add_to"),
    [
        ("evals/prices.toml over replaygate/evals/data/prices.toml", "evals/prices.toml ("),
        ("euros.toml", "euros.toml ("),
        ("pyproject.toml [tool.replaygate.prices]", "[tool.replaygate.prices] ("),
        ("replaygate/evals/data/prices.toml", "[tool.replaygate.prices] ("),
    ],
)
def test_a_missing_price_is_to_be_added_to_the_price_file_the_table_came_from(
    source: str, add_to: str
) -> None:
    table = replace(PRICES, source=source)
    with pytest.raises(PriceError) as err:
        table.require("unknown-model")
    assert f": add it to {add_to}" in str(err.value)
    assert ("or pass --prices" in str(err.value)) == add_to.startswith("[tool")


def test_a_model_without_a_price_is_an_error_unless_the_case_opts_out() -> None:
    case = EvalCase("a", "q", 1, 1, expected_doc_ids=("d",))
    result = sampled("a", [output(["d"], ["d"])], [True], 1)
    with pytest.raises(PriceError, match="no price for model 'unknown-model' in test"):
        score_case(case, result, PRICES, "unknown-model")
    opted_out = score_case(replace(case, cost=False), result, PRICES, "unknown-model")
    assert (opted_out.cost, opted_out.cost_skipped) == (None, True)
    assert CaseCounts.from_json(opted_out.to_json()) == opted_out
    assert opted_out.to_json()["cost_skipped"] is True
    priced = score_case(case, result, PRICES, "m")
    assert metrics_of([opted_out, priced])["cost_total"] == priced.cost
    assert metrics_of([opted_out, priced])["cost"] == priced.cost  # per priced run
    assert (metrics_of([opted_out])["cost"], metrics_of([opted_out])["cost_total"]) == (None, None)
    assert score_case(case, result, None, "m").cost is None  # no price table at all


def test_a_sample_without_output_counts_its_expected_ids_only() -> None:
    case = EvalCase("a", "q", 2, 1, expected_doc_ids=("d",))
    result = sampled("a", [output(["d"], ["d"]), None], [True, False], 1)
    counts = score_case(case, result, PRICES, "m")
    assert (counts.runs, counts.expected, counts.correct) == (1, 2, 1)
    assert metrics_of([counts])["citation_recall"] == 0.5


def test_counts_survive_json() -> None:
    counts = CaseCounts(5, True, 5, True, 4, 4, 5, 0, 1000, 100, 15, 0.0123)
    assert CaseCounts.from_json(counts.to_json()) == counts
    assert metrics_of([]) == dict.fromkeys(metrics_of([]), None)


def test_a_tool_result_nested_too_deeply_is_no_fetched_document() -> None:
    from replaygate.evals.output import fetched_ids
    from replaygate.examples.research_copilot.agent import Step

    steps = [
        Step("tool", "fetch", result="[" * 100_000 + "]" * 100_000),
        Step("tool", "fetch", result='{"doc_id": "doc-rag"}'),
    ]
    assert fetched_ids(steps) == ["doc-rag"]


def test_a_cost_total_is_the_same_on_every_python() -> None:
    """Costs are summed correctly rounded (``math.fsum``): ``sum`` compensates rounding
    errors from Python 3.12 on only, so a run's cost and the shipped baseline's differed
    by a last digit from one Python to another."""
    counts = [CaseCounts(samples=1, passed=True, runs=1, cost=0.1) for _ in range(10)]
    metrics = metrics_of(counts)
    assert metrics["cost_total"] == 1.0  # sum() gives 0.9999999999999999 before 3.12
    assert metrics["cost"] == 0.1
