"""``replaygate demo``, and its ``demo_loop``: the whole eval loop on the simulator, gated
against the shipped baseline."""

from __future__ import annotations

import importlib
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from extras import needs_matplotlib
from replaygate.demo import DEMO_SEED, SHIPPED_CASES, DemoSummary, demo_loop, foreign_files
from replaygate.evals import History, load_baseline, load_eval_cases
from replaygate.examples.research_copilot import shipped_baseline, shipped_eval_cases
from run_cli import replaygate

pytestmark = [
    pytest.mark.slow,
    needs_matplotlib,
    pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning"),
]


def test_the_demo_command_runs_offline_and_its_loop_records_replays_gates_logs_and_reports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One run of ``replaygate demo`` (the whole demo, end to end) for both: what the
    command prints, then the summary of the eval loop it runs (``demo_loop``)."""
    summaries: list[DemoSummary] = []

    def demo_loop_on_a_known_day(out_dir: Path, **options: Any) -> DemoSummary:
        summaries.append(demo_loop(out_dir, now=datetime(2026, 11, 30, tzinfo=UTC), **options))
        return summaries[-1]

    command_module = importlib.import_module("replaygate.cli.demo")
    monkeypatch.setattr(command_module, "demo_loop", demo_loop_on_a_known_day)
    done = replaygate("demo", "--out", str(tmp_path / "demo"))
    # what the command prints
    assert done.returncode == 0, done.stdout + done.stderr
    assert "identical final answer: True" in done.stdout
    assert "identical trace:        True" in done.stdout
    assert "messages[0].content[0].text: 'What is RAG?' != 'RAG, what is it?'" in done.stdout
    assert "Stopped the simulator" in done.stdout
    assert "(40 agent runs)" in done.stdout
    assert "identical to the recording: True" in done.stdout
    assert "gate: PASS" in done.stdout
    report = tmp_path / "demo" / "report.html"
    assert f"report: {report}" in done.stdout and report.stat().st_size > 10_000
    assert foreign_files(tmp_path / "demo") == []  # its mark vouches for what it wrote
    # what the eval loop did
    (summary,) = summaries
    assert summary.seed == DEMO_SEED
    assert (summary.cases, summary.runs) == (8, 40)
    assert summary.identical
    assert summary.gate.passed, summary.gate.text()
    shipped = load_baseline(shipped_baseline())
    assert summary.metrics == shipped.metrics  # the shipped baseline is this very run
    assert {r.delta for r in summary.gate.rows} <= {"+0.000", "+0.0%"}
    assert summary.fixture_count > 0 and summary.store.is_file()
    results = json.loads(summary.results.read_text(encoding="utf-8"))
    assert results["eval"]["mode"] == "replay"
    # the shipped files by their place in the package, not by an installation's path
    assert results["eval"]["cases_file"] == SHIPPED_CASES
    assert shipped_eval_cases().as_posix().endswith("/" + SHIPPED_CASES)
    assert results["eval"]["prices"]["source"] == "replaygate/evals/data/prices.toml"
    page = summary.report.read_text(encoding="utf-8")
    assert page.count("<svg") == 3 and "The gate <span class='ok'>passed</span>" in page
    with History.open(summary.history) as history:
        assert len(history) == summary.history_runs == 1
    lines = summary.lines()
    assert lines[1] == "replayed offline with no server: identical to the recording: True"
    assert any(line.strip() == "gate: PASS" for line in lines)
    assert lines[-2] == f"report: {summary.report}"


def test_the_shipped_baseline_covers_the_shipped_cases_with_a_reason() -> None:
    baseline = load_baseline(shipped_baseline())
    cases = load_eval_cases(shipped_eval_cases())
    assert [c.case for c in baseline.reference.cases] == [c.id for c in cases]
    first, *later = baseline.history
    assert first["reason"].startswith("First baseline")
    assert all(entry["reason"] and entry["commit"] for entry in (first, *later))
