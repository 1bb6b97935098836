"""Results files and baselines are read as strictly as they are written: a field no
version of replaygate wrote is refused by its path (``baseline update`` would drop it
without a word), so is a field of the wrong type, a sample index given twice, and an
eval's results without their ``eval`` block."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from counted_outputs import run_output
from replaygate.assertions.kinds import Outcome
from replaygate.cli.gate_cmds import baseline_group, gate_cmd
from replaygate.evals import CaseResult, EvalResults, update_baseline
from replaygate.evals.errors import ResultsError
from replaygate.evals.reference import load_reference
from replaygate.evals.results import load_eval_results
from replaygate.evals.scorers import CaseCounts
from replaygate.sampling import SampledResult, SampleResult, load_results
from replaygate.sampling.results import ResultsFormatError

INFO = {"time": "2026-11-30T00:00:00Z", "mode": "replay", "model": "m"}


def case(case_id: str) -> CaseResult:
    """Case ``case_id``: a citations gate passing 2 of 3 samples, floor 2."""
    samples = tuple(
        SampleResult(
            i,
            (Outcome("citations", "gate", i > 0, "", 1.0, "set"),),
            run_output(input_tokens=10, steps=1),
        )
        for i in range(3)
    )
    sampled = SampledResult(case_id, 3, 2, samples, {"citations": "cites doc-a"})
    counts = CaseCounts(samples=3, passed=True, runs=3, input_tokens=30, steps=3)
    return CaseResult(sampled, counts, ("rag",))


RESULTS = EvalResults((case("rag-basics"), case("flaky-tests")), INFO)


def results_file(tmp_path: Path, edit: Any) -> Path:
    """``RESULTS`` written to ``results.json``, then edited by ``edit``."""
    path = RESULTS.write(tmp_path / "results.json")
    document = json.loads(path.read_text(encoding="utf-8"))
    edit(document)
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def baseline_file(tmp_path: Path, edit: Any) -> Path:
    """A baseline made of ``RESULTS`` by ``baseline update``, then edited by ``edit``."""
    path = tmp_path / "baseline.json"
    update_baseline(path, RESULTS, reason="first", now="2026-11-01T00:00:00Z")
    document = json.loads(path.read_text(encoding="utf-8"))
    edit(document)
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def refused(path: Path, reader: Any, error: type[Exception], message: str) -> None:
    """``reader(path)`` raises ``error`` saying ``message`` right after the file's name."""
    with pytest.raises(error, match=f"^{re.escape(f'{path}: {message}')}"):
        reader(path)


UNKNOWN_IN_RESULTS = {
    "top level": (lambda doc: doc.update(owner="team-search"), "", "'owner'"),
    "case": (lambda doc: doc["cases"][0].update(jira="SEARCH-42"), "cases[0]", "'jira'"),
    "sample": (
        lambda doc: doc["cases"][1]["sample_results"][2].update(note="x"),
        "cases[1].sample_results[2]",
        "'note'",
    ),
    "outcome": (
        lambda doc: doc["cases"][0]["sample_results"][0]["outcomes"][0].update(weight=2),
        "cases[0].sample_results[0].outcomes[0]",
        "'weight'",
    ),
    "assertion": (
        lambda doc: doc["cases"][0]["assertions"]["citations"].update(owner="x"),
        "cases[0].assertions.citations",
        "'owner'",
    ),
}


@pytest.mark.parametrize("edit", UNKNOWN_IN_RESULTS.values(), ids=UNKNOWN_IN_RESULTS.keys())
def test_an_unknown_field_of_a_results_file_is_refused_by_its_path(
    tmp_path: Path, edit: tuple[Any, str, str]
) -> None:
    change, where, name = edit
    path = results_file(tmp_path, change)
    message = f"{where}: unknown field {name}" if where else f"unknown field {name}"
    refused(path, load_eval_results, ResultsError, message)
    refused(path, load_reference, ResultsError, message)
    refused(path, load_results, ResultsFormatError, message)  # calibrate's reader too


def test_an_unknown_field_of_a_case_s_counts_is_refused(tmp_path: Path) -> None:
    path = results_file(tmp_path, lambda doc: doc["cases"][1]["counts"].update(retries=2))
    refused(path, load_eval_results, ResultsError, "cases[1].counts: unknown field 'retries'")


def test_the_run_information_is_typed_and_may_hold_the_caller_s_own(tmp_path: Path) -> None:
    path = results_file(tmp_path, lambda doc: doc["eval"].update(model=5))
    refused(path, load_eval_results, ResultsError, "eval.model: must be a string, got 5")
    for field in ("agent", "cases_file", "replaygate_version"):
        path = results_file(tmp_path, lambda doc, f=field: doc["eval"].update({f: ["x"]}))
        refused(path, load_eval_results, ResultsError, f"eval.{field}: must be a string")
    # run_eval(..., info=...) adds the caller's run information: it reads back as given
    own = EvalResults(RESULTS.cases, {**INFO, "branch": "main"})
    assert load_eval_results(own.write(tmp_path / "own.json")).info["branch"] == "main"


def test_a_sample_index_given_twice_is_refused(tmp_path: Path) -> None:
    path = results_file(tmp_path, lambda doc: doc["cases"][1]["sample_results"][2].update(index=0))
    message = (
        "cases[1].sample_results[2].index: sample 0 is already at sample_results[0]; each "
        "sample of a case has its own index"
    )
    refused(path, load_eval_results, ResultsError, message)
    refused(path, load_results, ResultsFormatError, message)


def test_a_sample_index_outside_the_case_s_samples_is_refused(tmp_path: Path) -> None:
    # sample 7 of a case of 3 was read back as a sample of it, sample 2 missing unsaid
    case = RESULTS.cases[1]
    last = len(case.sampled.samples) - 1
    path = results_file(
        tmp_path, lambda doc: doc["cases"][1]["sample_results"][last].update(index=7)
    )
    message = (
        f"cases[1].sample_results[{last}].index: sample 7 of a case of {last + 1} sample(s), "
        f"whose indices are 0 to {last}"
    )
    refused(path, load_eval_results, ResultsError, message)
    refused(path, load_results, ResultsFormatError, message)


def test_an_eval_s_results_without_their_eval_block_are_refused(tmp_path: Path) -> None:
    missing = "eval: is missing; it must be an object of the run's information"
    path = results_file(tmp_path, lambda doc: doc.pop("eval"))
    refused(path, load_eval_results, ResultsError, missing)
    path = results_file(tmp_path, lambda doc: [doc.pop("eval"), doc.pop("metrics")])
    refused(path, load_eval_results, ResultsError, missing)  # its cases keep counts

    def plain(doc: dict[str, Any]) -> None:  # as pytest --sampling-results writes it
        doc.pop("eval"), doc.pop("metrics")
        for kept in doc["cases"]:
            for field in ("counts", "metrics", "declared", "tags"):
                kept.pop(field)

    path = results_file(tmp_path, plain)
    assert [c.id for c in load_eval_results(path).cases] == ["rag-basics", "flaky-tests"]


UNKNOWN_IN_BASELINES = {
    "top level": (lambda doc: doc.update(owner="team-search"), "", "'owner'"),
    "case": (
        lambda doc: doc["cases"]["rag-basics"].update(jira="SEARCH-42"),
        "cases.rag-basics",
        "'jira'",
    ),
    "assertion": (
        lambda doc: doc["cases"]["rag-basics"]["assertions"]["citations"].update(owner="x"),
        "cases.rag-basics.assertions.citations",
        "'owner'",
    ),
    "counts": (
        lambda doc: doc["cases"]["flaky-tests"]["counts"].update(retries=1),
        "cases.flaky-tests.counts",
        "'retries'",
    ),
    "source": (lambda doc: doc["source"].update(branch="main"), "source", "'branch'"),
    "history entry": (
        lambda doc: doc["history"][0].update(ticket="SEARCH-41"),
        "history[0]",
        "'ticket'",
    ),
}


@pytest.mark.parametrize("edit", UNKNOWN_IN_BASELINES.values(), ids=UNKNOWN_IN_BASELINES.keys())
def test_an_unknown_field_of_a_baseline_is_refused_and_the_baseline_left_as_it_is(
    tmp_path: Path, edit: tuple[Any, str, str]
) -> None:
    change, where, name = edit
    path = baseline_file(tmp_path, change)
    message = f"{where}: unknown field {name}" if where else f"unknown field {name}"
    refused(path, load_reference, ResultsError, message)
    results = RESULTS.write(tmp_path / "results.json")
    gated = CliRunner().invoke(gate_cmd, ["--baseline", str(path), "--results", str(results)])
    assert gated.exit_code == 2, gated.output
    assert f"{path}: {message}" in gated.output
    before = path.read_bytes()
    args = ["update", "--results", str(results), "--baseline", str(path), "--reason", "refresh"]
    updated = CliRunner().invoke(baseline_group, args)
    assert updated.exit_code == 2, updated.output
    assert f"{path}: {message}" in updated.output
    assert path.read_bytes() == before  # the field is not dropped by a rewrite


def test_a_baseline_source_field_of_the_wrong_type_is_refused(tmp_path: Path) -> None:
    path = baseline_file(tmp_path, lambda doc: doc["source"].update(model=5))
    refused(path, load_reference, ResultsError, "source.model: must be a string, got 5")
