"""Eval loop timings: record, replay, gate, history, report, and the whole demo loop.

Run: ``.venv/bin/python bench/bench_evals.py`` (prints a markdown table).

- Recording the 8 shipped ResearchCopilot cases x 5 samples from the loopback
  simulator through the anthropic SDK, and replaying them (median wall time).
- Concurrent recording against a model that takes 20 ms a call: 1 worker vs 4, and
  4 workers under a rate limit of 100 calls/s (the limit must hold).
- The gate, a history append, the report (matplotlib, first and later renders), and
  ``demo_loop`` end to end (target: under 20 s on the shared 2-core machine).
"""

from __future__ import annotations

import statistics
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path

import anthropic

from replaygate.demo import demo_loop
from replaygate.evals import (
    GateConfig,
    History,
    RecordPlan,
    Reference,
    load_eval_cases,
    load_reference,
    run_eval,
    run_gate,
    shipped_prices,
)
from replaygate.examples.research_copilot import (
    SETTINGS,
    ResearchPolicy,
    copilot,
    shipped_baseline,
    shipped_eval_cases,
)
from replaygate.models.live import AnthropicModel
from replaygate.models.types import Message, ModelResponse, ToolSpec
from replaygate.report import write_report
from replaygate.sim import Simulator


def timed(fn: Callable[[], object], repeat: int) -> float:
    """The median wall time of ``repeat`` calls, in seconds."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


class SlowPolicy:
    """ResearchCopilot's fixed policy, taking ``delay`` seconds a call."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.policy = ResearchPolicy()
        self.calls: list[float] = []

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        self.calls.append(time.perf_counter())
        time.sleep(self.delay)
        return self.policy.complete(messages, tools)


def main() -> None:
    warnings.simplefilter("ignore")
    cases = load_eval_cases(shipped_eval_cases())
    prices = shipped_prices()
    rows: list[tuple[str, str, str]] = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        counter = [0]

        def record() -> None:
            counter[0] += 1
            with Simulator(behavior="research-copilot", seed=7) as sim:
                client = anthropic.Anthropic(base_url=sim.url, api_key="k", max_retries=0)
                live = AnthropicModel(
                    client,
                    model=SETTINGS.model,
                    max_tokens=SETTINGS.max_tokens,
                    system=SETTINGS.system,
                )
                plan = RecordPlan(live, approve_live=True, source="sim")
                target = tmp / f"rec{counter[0]}.jsonl"
                run_eval(cases, target, agent=copilot, recording=plan, prices=prices)

        rows.append(
            ("record 8 cases x 5 samples (simulator, SDK)", f"{timed(record, 3):.2f} s", "")
        )
        store = tmp / "rec1.jsonl"
        replay_ms = timed(lambda: run_eval(cases, store, agent=copilot, prices=prices), 5) * 1000
        rows.append(("replay 8 cases x 5 samples", f"{replay_ms:.0f} ms", ""))
        for workers, limit in ((1, None), (4, None), (4, 100.0)):
            model = SlowPolicy(0.02)
            target = tmp / f"slow-{workers}-{limit}.jsonl"
            plan = RecordPlan(
                model, approve_live=True, concurrency=workers, rate_limit=limit, source="scripted"
            )
            started = time.perf_counter()
            run_eval(cases, target, agent=copilot, recording=plan)
            took = time.perf_counter() - started
            calls = sorted(model.calls)
            rate = (len(calls) - 1) / (calls[-1] - calls[0])
            label = f"record with a 20 ms model, {workers} worker(s)"
            label += f", limit {limit:g}/s" if limit else ""
            rows.append((label, f"{took:.2f} s", f"{len(calls)} calls, {rate:.0f} calls/s"))
        results = run_eval(cases, store, agent=copilot, prices=prices)
        baseline = load_reference(shipped_baseline())
        now = Reference.of(results, "now")
        gate_us = timed(lambda: run_gate(baseline, now, GateConfig()), 50) * 1e6
        rows.append(("gate against the shipped baseline", f"{gate_us:.0f} µs", ""))
        with History.open(tmp / "h.db") as history:
            append_ms = timed(lambda: history.append(results), 10) * 1000
            rows.append(("history append (8 cases)", f"{append_ms:.1f} ms", ""))
            first = timed(lambda: write_report(tmp / "r.html", history=history, stores=[store]), 1)
            later = timed(lambda: write_report(tmp / "r.html", history=history, stores=[store]), 3)
        rows.append(("report, first render (imports matplotlib)", f"{first:.2f} s", "10 runs"))
        rows.append(("report, later renders", f"{later:.2f} s", "10 runs"))
        demo = timed(lambda: demo_loop(tmp / "demo"), 1)
        rows.append(("demo_loop end to end", f"{demo:.2f} s", "target < 20 s"))
    print("| measure | time | note |")
    print("| --- | --- | --- |")
    for name, value, note in rows:
        print(f"| {name} | {value} | {note} |")


if __name__ == "__main__":
    main()
