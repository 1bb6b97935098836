"""A results file whose cases keep no ``counts`` (a plain sampling results file, as the
pytest plugin writes, or one written without them) gives a case's verdict and nothing
the other metrics come from. As the baseline it is one that keeps no counts: the cases
the suite adds are new, and whether a case counted its cost cannot be told. As the
results, what it cannot give fails a limit saying why and what to do."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from replaygate.evals import CaseResult, GateConfig, run_gate
from replaygate.evals.reference import load_reference
from test_gate_compared_cases import OLD, case, cli, results

NO_COUNTS = (
    "the results keep no counts of their cases (a plain sampling results file, or one "
    "written without them): gate the results file `replaygate eval --out FILE` writes, "
    "which keeps them"
)


def countless(path: Path, *cases: CaseResult) -> Path:
    """A results file of ``cases`` that keeps none of their counts."""
    document = results(*cases).to_json()
    del document["metrics"], document["eval"]
    for kept in document["cases"]:
        del kept["counts"], kept["metrics"]
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_results_without_counts_fail_a_limit_they_cannot_give_saying_what_to_do(
    tmp_path: Path,
) -> None:
    results(*OLD).write(tmp_path / "base.json")
    now = countless(tmp_path / "now.json", *OLD, case("added", 5))
    done = cli("gate", "--baseline", str(tmp_path / "base.json"), "--results", str(now))
    assert done.exit_code == 1, done.output
    success = next(line for line in done.output.splitlines() if line.startswith("success "))
    assert success.split()[1:] == ["1.000", "1.000", "+0.000", "drop", "<=", "0.020", "ok"]
    assert (
        "FAIL citation_precision: the results have no value, so its limit (drop <= 0.050) "
        f"cannot be checked: {NO_COUNTS}"
    ) in done.output
    assert "note case added is new (not in the baseline)" in done.output


def test_results_without_counts_pass_a_gate_on_success_alone_with_new_cases(
    tmp_path: Path,
) -> None:
    base = load_reference(results(*OLD).write(tmp_path / "base.json"))
    now = load_reference(countless(tmp_path / "now.json", *OLD, case("added", 5)))
    report = run_gate(base, now, GateConfig(max_drop={"success": 0.02}, keep_defaults=False))
    assert report.passed, report.text()
    assert "case added is new (not in the baseline)" in report.notes


def test_a_baseline_results_file_without_counts_takes_the_added_cases_as_new(
    tmp_path: Path,
) -> None:
    base = countless(tmp_path / "base.json", *OLD)
    opted_out = case("c", 4)
    opted_out = CaseResult(opted_out.sampled, replace(opted_out.counts, cost_skipped=True))
    results(case("a", 5), case("b", 5), opted_out, case("added", 5)).write(tmp_path / "n.json")
    done = cli("gate", "--baseline", str(base), "--results", str(tmp_path / "n.json"))
    assert done.exit_code == 0, done.output
    assert "note case added is new (not in the baseline)" in done.output
    # whether case c counted its cost the baseline cannot tell: noted, never a failure
    assert "expects less" not in done.output
    assert 'note case c does not count its cost ("cost": false); the baseline keeps no ' in (
        done.output
    )


def test_a_baseline_made_of_results_without_counts_keeps_none(tmp_path: Path) -> None:
    plain = countless(tmp_path / "plain.json", *OLD)
    done = cli("baseline", "update", "--results", str(plain), "--baseline",
               str(tmp_path / "b.json"), "--reason", "first")  # fmt: skip
    assert done.exit_code == 0, done.output
    kept = json.loads((tmp_path / "b.json").read_text())["cases"]
    assert [c for c in kept.values() if "counts" in c] == []
