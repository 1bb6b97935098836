"""A results file's counts are what the outputs of its samples give: a hand edit of the
samples or of the counts (with the metrics made of them) is refused by every reader
(gate, eval merge, baseline update), naming the file, the case and the field; what the
samples cannot tell (the ids a case expects, a cost of a model without a price) is read
as written."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from replaygate.evals import load_eval_results, load_reference
from replaygate.evals.errors import ResultsError
from replaygate.evals.scorers import CaseCounts, metrics_of
from test_eval_shard_files import shard_files
from test_gate_compared_cases import OLD, cli, results

Document = dict[str, Any]
AGAIN = re.escape(
    "make the results again (`replaygate eval --out FILE`), or restore the file (from git)"
)


def recounted(document: Document) -> None:
    """Make ``document``'s metrics those of its counts again, case by case and for the
    run, as a careful hand edit of the counts would."""
    counts = [CaseCounts.from_json(case["counts"]) for case in document["cases"]]
    for case, counted in zip(document["cases"], counts, strict=True):
        case["metrics"] = metrics_of([counted])
    document["metrics"] = metrics_of(counts)


def edited(path: Path, change: Callable[[Document], None], source: Document) -> Path:
    """``source`` edited by ``change``, its metrics recounted, written to ``path``."""
    document = json.loads(json.dumps(source))
    change(document)
    recounted(document)
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def samples(document: Document) -> list[Document]:
    """The output of every sample of every case of ``document``."""
    return [s["output"] for case in document["cases"] for s in case["sample_results"]]


def each_output(field: str, change: Callable[[Any], Any]) -> Callable[[Document], None]:
    def edit(document: Document) -> None:
        for output in samples(document):
            output[field] = change(output[field])

    return edit


def each_count(field: str, change: Callable[[Any], Any]) -> Callable[[Document], None]:
    def edit(document: Document) -> None:
        for case in document["cases"]:
            case["counts"][field] = change(case["counts"][field])

    return edit


def case_a(change: Callable[[Document], None]) -> Callable[[Document], None]:
    return lambda document: change(document["cases"][0])


def gave(field: str, says: str, gives: str, summed: str) -> str:
    return (
        f"cases\\[0\\]\\.counts\\.{field}: {says}, but the sample_results of case 'a' give "
        f"{gives} \\({re.escape(summed)}\\): counts are what the samples give; {AGAIN}"
    )


EDITS: dict[str, tuple[Callable[[Document], None], str]] = {
    "every sample took 3 more steps": (
        each_output("steps", lambda steps: steps + 3),
        gave("steps", "says 15", "30", "each output's steps, summed"),
    ),
    "counts of 2 fewer steps per run": (
        each_count("steps", lambda steps: steps - 10),
        gave("steps", "says 5", "15", "each output's steps, summed"),
    ),
    "counts without their steps": (
        case_a(lambda case: case["counts"].pop("steps")),
        gave("steps", "is missing", "15", "each output's steps, summed"),
    ),
    "samples of three times the input tokens": (
        each_output("input_tokens", lambda tokens: tokens * 3),
        gave("input_tokens", "says 500", "1500", "each output's input_tokens, summed"),
    ),
    "counts of output tokens no sample spent": (
        each_count("output_tokens", lambda tokens: tokens + 50),
        gave("output_tokens", "says 50", "0", "each output's output_tokens, summed"),
    ),
    "a sample citing one id more": (
        case_a(lambda case: case["sample_results"][0]["output"]["citations"].append("doc-b")),
        gave("cited", "says 5", "6", "the ids each output cites"),
    ),
    "counts citing fewer ids": (
        each_count("cited", lambda cited: cited - 1),
        gave("cited", "says 4", "5", "the ids each output cites"),
    ),
    "nothing fetched": (
        each_output("fetched", lambda _fetched: []),
        gave("fabricated", "says 0", "5", "the ids each output cites but never fetched"),
    ),
    "a sample without its output": (
        case_a(lambda case: case["sample_results"][0].update(output=None)),
        gave("runs", "says 5", "4", "each sample whose output is an object"),
    ),
    "more correct than the citations hold": (
        lambda document: document["cases"][2]["counts"].update(correct=5),
        r"cases\[2\]\.counts\.correct: says 5, but the sample_results of case 'c' cite at "
        rf"most 4 of the 1 id\(s\) it expects in each sample; {AGAIN}",
    ),
    "expected ids not alike in every sample": (
        case_a(lambda case: case["counts"].update(expected=6)),
        r"cases\[0\]\.counts\.expected: says 6, but case 'a' expects the same ids in each of "
        rf"its 5 samples, so it is a multiple of 5; {AGAIN}",
    ),
    "a case expecting ids not scored": (
        case_a(lambda case: case["counts"].update(scored=False)),
        r"cases\[0\]\.counts\.scored: says false, but counts\.expected is 5: a case is scored "
        rf"exactly when it expects ids; {AGAIN}",
    ),
    "half the cost": (
        each_count("cost", lambda cost: cost / 2),
        r"cases\[0\]\.counts\.cost: says 0\.00075, but its tokens priced at the run's prices "
        rf"for m \(eval\.prices\) give 0\.0015 \(case 'a'\); {AGAIN}",
    ),
    "a cheaper price in the kept table": (
        lambda document: document["eval"]["prices"]["models"]["m"].update(input=1.0),
        r"cases\[0\]\.counts\.cost: says 0\.0015, but its tokens priced at the run's prices "
        rf"for m \(eval\.prices\) give 0\.0005 \(case 'a'\); {AGAIN}",
    ),
    "no price table, yet costs": (
        lambda document: document["eval"].update(prices=None),
        r"cases\[0\]\.counts\.cost: says 0\.0015, but the run keeps no price table "
        rf"\(eval\.prices is null\), so it priced nothing \(case 'a'\); {AGAIN}",
    ),
    "a cost kept by a case opting out of cost": (
        case_a(lambda case: case["counts"].update(cost_skipped=True)),
        r"cases\[0\]\.counts\.cost: says 0\.0015, but counts\.cost_skipped is true: case 'a' "
        rf"opts out of cost; {AGAIN}",
    ),
    "steps written as text": (
        case_a(lambda case: case["sample_results"][1]["output"].update(steps="3")),
        r"cases\[0\]\.sample_results\[1\]\.output\.steps: must be a whole number of at least "
        "0, as an eval writes it, got '3'",
    ),
    "citations written as one string": (
        case_a(lambda case: case["sample_results"][0]["output"].update(citations="doc-a")),
        r"cases\[0\]\.sample_results\[0\]\.output\.citations: must be a list of strings, as "
        "an eval writes it, got 'doc-a'",
    ),
}


@pytest.mark.parametrize("edit", EDITS.values(), ids=EDITS.keys())
def test_counts_that_are_not_what_the_samples_give_are_refused_by_every_reader(
    tmp_path: Path, edit: tuple[Callable[[Document], None], str]
) -> None:
    # Each of these files gave "gate: PASS" (or a gate comparing made-up costs): only the
    # samples, passes, verdict and counts.passed were compared with the samples.
    change, message = edit
    path = edited(tmp_path / "now.json", change, results(*OLD).to_json())
    for reader in (load_eval_results, load_reference):  # eval merge and baseline update; gate
        with pytest.raises(ResultsError, match=f"^{re.escape(str(path))}: {message}$"):
            reader(path)


def test_a_steps_regression_hidden_in_the_counts_fails_gate_and_baseline_update(
    tmp_path: Path,
) -> None:
    # The agent now takes 5 steps a run where it took 3, which the gate fails; the counts
    # and metrics edited back to 3 steps a run passed it, while every sample said 5.
    old = results(*OLD).write(tmp_path / "old.json")
    baseline = tmp_path / "b.json"
    first = cli("baseline", "update", "--results", str(old), "--baseline", str(baseline),
                "--reason", "first")  # fmt: skip
    assert first.exit_code == 0, first.output
    kept = baseline.read_bytes()

    def five_steps(document: Document) -> None:
        each_output("steps", lambda _steps: 5)(document)

    def counted_too(document: Document) -> None:
        five_steps(document)
        each_count("steps", lambda _steps: 25)(document)

    source = results(*OLD).to_json()
    honest = edited(tmp_path / "honest.json", counted_too, source)
    failed = cli("gate", "--baseline", str(baseline), "--results", str(honest))
    assert failed.exit_code == 1 and "gate: FAIL (1 violation(s))" in failed.output
    forged = edited(tmp_path / "forged.json", five_steps, source)
    done = cli("gate", "--baseline", str(baseline), "--results", str(forged))
    assert done.exit_code == 2, done.output
    assert "gate: PASS" not in done.output
    assert f"{forged}: cases[0].counts.steps: says 15, but the sample_results of case 'a' " in (
        done.output
    )
    updated = cli("baseline", "update", "--results", str(forged), "--baseline", str(baseline),
                  "--reason", "fewer steps")  # fmt: skip
    assert updated.exit_code == 2 and "cases[0].counts.steps: says 15" in updated.output
    assert baseline.read_bytes() == kept


def test_eval_merge_refuses_a_shard_whose_counts_are_not_its_samples(tmp_path: Path) -> None:
    parts = shard_files(tmp_path, ["a", "b", "c", "d"], 2)
    document = json.loads(parts[0].read_text("utf-8"))
    document["cases"][0]["sample_results"][0]["output"]["steps"] = 7  # the counts say 0
    parts[0].write_text(json.dumps(document), encoding="utf-8")
    out = tmp_path / "merged.json"
    done = cli("eval", "merge", *map(str, parts), "--out", str(out), "--no-history")
    assert done.exit_code == 2, done.output
    assert f"{parts[0]}: cases[0].counts.steps: says 0, but the sample_results of case " in (
        done.output
    )
    assert not out.exists()


def test_what_the_samples_cannot_tell_is_read_as_written(tmp_path: Path) -> None:
    # The ids a case expects are not kept: fewer correct citations than the cited ids
    # could hold is no contradiction. A cost of a model the kept table has no price for,
    # and a table kept without its prices (an early results file), cannot be recomputed.
    def fewer_correct(document: Document) -> None:
        document["cases"][2]["counts"]["correct"] = 1

    def unpriced(document: Document) -> None:
        document["eval"]["model"] = "unpriced"
        each_count("cost", lambda cost: cost / 2)(document)

    def early_prices(document: Document) -> None:
        del document["eval"]["prices"]["models"]
        each_count("cost", lambda cost: cost / 2)(document)

    source = results(*OLD).to_json()
    for name, change in (("c", fewer_correct), ("u", unpriced), ("e", early_prices)):
        read = load_eval_results(edited(tmp_path / f"{name}.json", change, source))
        assert len(read.cases) == 3
