"""``declared`` is kept on every case of a results file or baseline, or on none (a file
written before it was kept): a file where some cases keep it and others not is refused,
naming the file and the first case without it, since a case without it tells no check
removed and a gate deleted from the case would pass unseen."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from replaygate.assertions.kinds import Outcome
from replaygate.cli.gate_cmds import gate_cmd
from replaygate.evals import CaseResult, EvalResults, update_baseline
from replaygate.evals.errors import ResultsError
from replaygate.evals.reference import load_reference
from replaygate.evals.results import load_eval_results
from replaygate.evals.scorers import CaseCounts
from replaygate.sampling import SampledResult, SampleResult

INFO = {"time": "2026-11-30T00:00:00Z", "mode": "replay", "model": "m"}


def case(case_id: str, *gates: str) -> CaseResult:
    """Case ``case_id`` declaring ``gates``, each passing 4 of 5 samples."""
    samples = tuple(
        SampleResult(i, tuple(Outcome(name, "gate", i < 4, "", None) for name in gates), {})
        for i in range(5)
    )
    sampled = SampledResult(case_id, 5, 4, samples, {name: f"checks {name}" for name in gates})
    return CaseResult(sampled, CaseCounts(samples=5, passed=sampled.verdict == "pass", runs=5))


def edited(path: Path, edit: Any) -> Path:
    """``path`` rewritten with ``edit`` applied to its JSON document."""
    document = json.loads(path.read_text(encoding="utf-8"))
    edit(document)
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def gate(baseline: Path, results: Path) -> Any:
    return CliRunner().invoke(gate_cmd, ["--baseline", str(baseline), "--results", str(results)])


def test_a_baseline_case_whose_declared_was_deleted_is_refused_not_passed(
    tmp_path: Path,
) -> None:
    before = EvalResults((case("a", "contains"), case("b", "contains", "citations")), INFO)
    baseline = tmp_path / "baseline.json"
    update_baseline(baseline, before, reason="first", now="2026-11-01T00:00:00Z")
    weak = EvalResults((case("a", "contains"), case("b", "contains")), INFO)
    now = weak.write(tmp_path / "now.json")
    failed = gate(baseline, now)
    assert failed.exit_code == 1, failed.output
    assert "case b expects less than in the baseline (assertion citations [gate] removed)" in (
        failed.output
    )

    edited(baseline, lambda doc: doc["cases"]["b"].pop("declared"))
    refused = gate(baseline, now)
    assert refused.exit_code == 2, refused.output
    assert f"{baseline}: cases.b.declared: is missing from case 'b', while case 'a' has it" in (
        refused.output
    )
    assert "gate: PASS" not in refused.output
    # a baseline keeping declared on none of its cases (written before it was kept) is read
    edited(baseline, lambda doc: doc["cases"]["a"].pop("declared"))
    assert [c.declared for c in load_reference(baseline).cases] == [None, None]


def test_a_results_file_with_declared_on_some_cases_only_is_refused(tmp_path: Path) -> None:
    results = EvalResults((case("a", "contains"), case("b", "citations")), INFO)
    path = results.write(tmp_path / "results.json")
    edited(path, lambda doc: doc["cases"][1].pop("declared"))
    message = f"{path}: cases[1].declared: is missing from case 'b', while case 'a' has it"
    with pytest.raises(ResultsError, match=f"^{re.escape(message)}"):
        load_eval_results(path)
    with pytest.raises(ResultsError, match=f"^{re.escape(message)}"):
        load_reference(path)
    # and on none of them, as written before results kept it, the file is read
    edited(path, lambda doc: doc["cases"][0].pop("declared"))
    assert [c.declared for c in load_eval_results(path).cases] == [None, None]
