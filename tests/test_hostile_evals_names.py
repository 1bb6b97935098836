"""Case ids read from results files, baselines and history exports are printed on
terminals and pages: one holding a control character is refused by its field path.

A hand-edited results file with a case id holding an escape sequence and a newline
was printed as it was by ``gate``: it could set the terminal's title, and write a
line of its own into a CI log.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from counted_outputs import ONE_RUN
from replaygate.assertions.kinds import Outcome
from replaygate.evals import CaseResult, EvalResults
from replaygate.evals.scorers import CaseCounts
from replaygate.sampling import SampledResult, SampleResult
from run_cli import replaygate

EVIL = "evil\x1b]0;PWNED\x07\ngate: PASS"


def case(case_id: str, passed: bool) -> CaseResult:
    outcome = Outcome("contains", "gate", passed, "", 1.0, "contains")
    sampled = SampledResult(case_id, 1, 1, (SampleResult(0, (outcome,), ONE_RUN),))
    return CaseResult(sampled, CaseCounts(1, passed, 1, True, 1, 1, 1, 0, 5, 5, 1, 0.1))


def results(path: Path, *cases: CaseResult) -> Path:
    """The results file of ``cases``, written as it is (``EvalResults.write`` refuses one
    that would not read back, as a hostile one does not)."""
    document = EvalResults(cases, {"time": "2026-11-01T00:00:00Z"}).to_json()
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    return path


def test_gate_refuses_a_results_file_whose_case_id_holds_control_characters(
    tmp_path: Path,
) -> None:
    baseline = results(tmp_path / "baseline.json", case("ok", True))
    bad = results(tmp_path / "results.json", case("ok", True), case(EVIL, False))
    done = replaygate("gate", "--baseline", str(baseline), "--results", str(bad))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "\x1b" not in done.stdout + done.stderr and "PWNED\x07" not in done.stderr
    assert "results.json: cases[1].case: must hold no control character" in done.stderr


def test_a_baseline_with_such_a_case_id_is_refused(tmp_path: Path) -> None:
    good = results(tmp_path / "results.json", case("ok", True))
    document = {
        "format": "replaygate.eval.baseline",
        "version": 1,
        "metrics": {"success": 1.0},
        "cases": {EVIL: {"samples": 1, "floor": 1, "passes": 1}},
    }
    baseline = tmp_path / "baseline.json"
    baseline.write_text(json.dumps(document), encoding="utf-8")
    done = replaygate("gate", "--baseline", str(baseline), "--results", str(good))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "\x1b" not in done.stdout + done.stderr
    assert "must hold no control character" in done.stderr


@pytest.mark.parametrize("name", ["tab\there", "bell\x07", "nul\x00", "del\x7f", "c1\x9b"])
def test_every_control_character_is_refused(tmp_path: Path, name: str) -> None:
    from replaygate.sampling.results import ResultsFormatError, load_results

    path = results(tmp_path / "results.json", case(name, True))
    with pytest.raises(
        ResultsFormatError, match=r"cases\[0\]\.case: must hold no control character"
    ):
        load_results(path)


def test_history_merge_refuses_an_export_whose_case_id_holds_control_characters(
    tmp_path: Path,
) -> None:
    history = tmp_path / "history.db"
    path = results(tmp_path / "results.json", case("ok", True))
    exported = tmp_path / "runs.json"
    from replaygate.evals import History

    with History.open(history) as opened:
        opened.append(_loaded(path))
    done = replaygate("history", "export", "--history", str(history), "--out", str(exported))
    assert done.returncode == 0, done.stderr
    document = json.loads(exported.read_text(encoding="utf-8"))
    document["runs"][0]["cases"] = {EVIL: document["runs"][0]["cases"]["ok"]}
    document["runs"][0]["id"] = "other-run"
    exported.write_text(json.dumps(document), encoding="utf-8")
    merged = replaygate("history", "merge", str(exported), "--history", str(history))
    assert merged.returncode == 2, merged.stdout + merged.stderr
    assert "\x1b" not in merged.stdout + merged.stderr
    assert "cases: must hold no control character" in merged.stderr


def _loaded(path: Path) -> EvalResults:
    from replaygate.evals.results import load_eval_results

    return load_eval_results(path)


def test_an_assertion_name_holding_control_characters_is_refused(tmp_path: Path) -> None:
    from replaygate.sampling.results import ResultsFormatError, load_results

    outcome = Outcome(EVIL, "gate", True, "", 1.0, "custom")
    sampled = SampledResult("c1", 1, 1, (SampleResult(0, (outcome,), ONE_RUN),))
    counts = CaseCounts(1, True, 1, True, 1, 1, 1, 0, 5, 5, 1, 0.1)
    path = results(tmp_path / "results.json", CaseResult(sampled, counts))
    with pytest.raises(ResultsFormatError) as caught:
        load_results(path)
    assert "must hold no control character" in str(caught.value)
    assert "cases[0].sample_results[0].outcomes[0].name: " in str(caught.value)
    assert "\x1b" not in str(caught.value)
