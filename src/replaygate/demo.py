"""The whole eval loop on the loopback simulator, for ``replaygate demo``.

Record the shipped ResearchCopilot eval cases (5 samples each) through the official
``anthropic`` SDK from the simulator, approved for this run; stop the simulator;
replay them offline; score; gate against the shipped baseline; append to a history;
write the report. It sits above what it drives (the example agent, the simulator,
evals, the report); only the demo command imports it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from replaygate.evals.cases import load_eval_cases
from replaygate.evals.config import GateConfig
from replaygate.evals.gate import GateReport, run_gate
from replaygate.evals.git import head_commit
from replaygate.evals.history import History
from replaygate.evals.metrics import METRICS
from replaygate.evals.prices import shipped_prices
from replaygate.evals.reference import Reference, load_reference
from replaygate.evals.runner import RecordPlan, run_eval
from replaygate.evals.scorers import Metrics
from replaygate.examples.research_copilot import (
    SETTINGS,
    copilot,
    shipped_baseline,
    shipped_eval_cases,
)
from replaygate.extras import require
from replaygate.fixtures.store import FixtureStore
from replaygate.models.live import AnthropicModel
from replaygate.report import write_report
from replaygate.sim import Simulator

SHOWN = ("success", "citation_precision", "citation_recall", "fabricated", "cost", "steps")
"""The metrics the demo prints."""
DEMO_SEED = 7
"""The simulator seed the shipped baseline was recorded with."""


@dataclass(frozen=True)
class DemoSummary:
    """What the demo did and where it wrote it."""

    out_dir: Path
    store: Path
    results: Path
    history: Path
    report: Path
    seed: int
    cases: int
    runs: int
    fixture_count: int
    identical: bool
    metrics: Metrics
    gate: GateReport
    history_runs: int
    seconds: float
    currency: str = "USD"

    def lines(self) -> list[str]:
        """The lines the demo prints."""
        shown = " | ".join(f"{n} {METRICS[n].format(self.metrics.get(n))}" for n in SHOWN)
        return [
            f"recorded {self.cases} eval cases x their samples ({self.runs} agent runs) from the "
            f"simulator (seed {self.seed}): {self.fixture_count} fixtures in {self.store}",
            f"replayed offline with no server: identical to the recording: {self.identical}",
            f"scores: {shown} (cost in {self.currency} per run)",
            "gate against the shipped baseline:",
            *("  " + line for line in self.gate.text().splitlines()),
            f"history: {self.history} ({self.history_runs} run(s))",
            f"report: {self.report}",
            f"done in {self.seconds:.1f} s",
        ]


def demo_loop(
    out_dir: Path,
    *,
    seed: int = DEMO_SEED,
    baseline: Path | None = None,
    now: datetime | None = None,
) -> DemoSummary:
    """Record, replay, score, gate, log and report the shipped eval cases in ``out_dir``.

    Recording goes to the loopback simulator only (never a paid API); it is approved
    here, for this call. ``out_dir``'s previous eval fixtures are replaced; its
    history grows by one run.
    """
    anthropic = require("anthropic", "anthropic", "the demo's recording")

    started = time.perf_counter()
    out_dir.mkdir(parents=True, exist_ok=True)
    store = out_dir / "eval_fixtures.jsonl"
    store.unlink(missing_ok=True)
    cases_file = shipped_eval_cases()
    cases = load_eval_cases(cases_file)
    prices = shipped_prices()
    with Simulator(behavior="research-copilot", seed=seed) as sim:
        client = anthropic.Anthropic(api_key="sim-demo-key", base_url=sim.url, max_retries=0)
        live = AnthropicModel(
            client, model=SETTINGS.model, max_tokens=SETTINGS.max_tokens, system=SETTINGS.system
        )
        plan = RecordPlan(live, approve_live=True, source="sim")
        recorded = run_eval(cases, store, agent=copilot, recording=plan, prices=prices)
    info = {"commit": head_commit(Path.cwd()), "cases_file": str(cases_file)}
    replayed = run_eval(cases, store, agent=copilot, prices=prices, info=info)
    identical = recorded.to_json()["cases"] == replayed.to_json()["cases"]
    results = replayed.write(out_dir / "results.json")
    reference = load_reference(baseline or shipped_baseline())
    gate = run_gate(reference, Reference.of(replayed, str(results)), GateConfig())
    history_path = out_dir / "history.db"
    with History.open(history_path) as history:
        history.append(replayed)
        report = write_report(
            out_dir / "report.html", history=history, stores=[store], gate=gate, now=now
        )
        history_runs = len(history)
    with FixtureStore.open(store) as opened:
        fixture_count = len(opened)
    return DemoSummary(
        out_dir=out_dir,
        store=store,
        results=results,
        history=history_path,
        report=report,
        seed=seed,
        cases=len(cases),
        runs=sum(case.samples for case in cases),
        fixture_count=fixture_count,
        identical=identical,
        metrics=replayed.metrics,
        gate=gate,
        history_runs=history_runs,
        seconds=time.perf_counter() - started,
        currency=prices.currency,
    )
