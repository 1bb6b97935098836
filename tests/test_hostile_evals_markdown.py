"""gate --format markdown, posted as a pull-request comment, shows case ids as text."""

from __future__ import annotations

from pathlib import Path

from counted_outputs import ONE_RUN
from replaygate.assertions.kinds import Outcome
from replaygate.evals import CaseResult, EvalResults
from replaygate.evals.scorers import CaseCounts
from replaygate.sampling import SampledResult, SampleResult
from run_cli import replaygate


def case(case_id: str, passed: bool) -> CaseResult:
    outcome = Outcome("contains", "gate", passed, "", 1.0, "contains")
    sampled = SampledResult(case_id, 1, 1, (SampleResult(0, (outcome,), ONE_RUN),))
    return CaseResult(sampled, CaseCounts(1, passed, 1, True, 1, 1, 1, 0, 5, 5, 1, 0.1))


def test_a_case_id_holding_markup_cannot_hide_the_rest_of_the_comment(tmp_path: Path) -> None:
    # "<!--" in a case id turned every line after it, the verdict included, into an
    # HTML comment on GitHub; "<h1>" wrote a heading of its own.
    info = {"time": "2026-11-01T00:00:00Z"}
    baseline = EvalResults((case("ok", True),), info).write(tmp_path / "baseline.json")
    hostile = ("<!-- hidden", "<h1>gate passed</h1>", "a & b")
    cases = (case("ok", True), *(case(i, False) for i in hostile))
    results = EvalResults(cases, info).write(tmp_path / "results.json")
    done = replaygate(
        "gate", "--baseline", str(baseline), "--results", str(results), "--format", "markdown"
    )
    assert done.returncode == 1, done.stderr
    assert "<!--" not in done.stdout and "<h1>" not in done.stdout
    assert "- **FAIL** case &lt;!-- hidden: every sample failed" in done.stdout
    assert "case &lt;h1&gt;gate passed&lt;/h1&gt;" in done.stdout
    assert "case a &amp; b" in done.stdout
    assert done.stdout.rstrip().endswith("violation(s))")


def test_upgrade_markdown_shows_case_ids_as_text(tmp_path: Path) -> None:
    info = {"time": "2026-11-01T00:00:00Z"}
    hostile = "<!-- hidden"
    old = EvalResults((case(hostile, True),), info).write(tmp_path / "old.json")
    new = EvalResults((case(hostile, False),), info).write(tmp_path / "new.json")
    done = replaygate(
        "upgrade", "--baseline", str(old), "--candidate", str(new), "--format", "markdown"
    )
    assert done.returncode == 1, done.stderr
    assert "<!--" not in done.stdout and "| &lt;!-- hidden | contains |" in done.stdout
