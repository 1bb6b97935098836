"""Eval loop timings: record, replay, gate, history, report, the demo loop; parallel
replay; reproducible seeded recording.

Run: ``.venv/bin/python bench/bench_evals.py [loop|jobs|seeded ...]`` (default: all
three; prints markdown tables).

loop:

- Recording the 8 shipped ResearchCopilot cases x 5 samples from the loopback
  simulator through the anthropic SDK, and replaying them (median wall time).
- Concurrent recording against a model that takes 20 ms a call: 1 worker vs 4, and
  4 workers under a rate limit of 100 calls/s (the limit must hold).
- The gate, a history append, the report (matplotlib, first and later renders), and
  ``demo_loop`` end to end (target: under 20 s on the shared 2-core machine).

jobs: ``replaygate eval`` (the installed command, start to end) replaying suites of
300 and 3,000 cases (3 samples each; 300 numbered variants of the shipped questions,
recorded from ResearchCopilot's seeded policy), with ``--jobs 1`` and ``--jobs 2`` in
turns: wall time and ratio, the CPU time of every process of the run (on Linux), the
load average, and whether the results files are identical (run time apart).

seeded: recording 24 cases (the shipped 8, each asked three times) x 5 samples from
the seeded simulator through the SDK at concurrency 1, 4 and 8; the time and a digest
of the fixtures (``recorded_at`` left out), which must be the same for all three.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
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
from replaygate.evals.cases import EvalCase
from replaygate.examples.research_copilot import (
    SETTINGS,
    ResearchPolicy,
    copilot,
    shipped_baseline,
    shipped_eval_cases,
)
from replaygate.fixtures.store import FixtureStore
from replaygate.models.fakes import FunctionModel
from replaygate.models.live import AnthropicModel
from replaygate.models.types import Message, ModelResponse, ToolSpec
from replaygate.report import write_report
from replaygate.sim import Simulator
from replaygate.sim.behaviors import SeededResearch

AGENT = "replaygate.examples.research_copilot:copilot"
Row = tuple[str, str, str]


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


def sim_model(url: str) -> AnthropicModel:
    """The anthropic SDK pointed at the simulator, with the example's settings."""
    client = anthropic.Anthropic(base_url=url, api_key="k", max_retries=0)
    return AnthropicModel(
        client, model=SETTINGS.model, max_tokens=SETTINGS.max_tokens, system=SETTINGS.system
    )


def loop_rows() -> list[Row]:
    """The eval loop, step by step."""
    cases = load_eval_cases(shipped_eval_cases())
    prices = shipped_prices()
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        counter = [0]

        def record() -> None:
            counter[0] += 1
            with Simulator(behavior="research-copilot", seed=7) as sim:
                plan = RecordPlan(sim_model(sim.url), approve_live=True, source="sim")
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
    return rows


PR_SET_CHILD_SUBREAPER = 36
QUESTIONS = 300
"""Distinct questions of the large suites (a suite of more cases asks them again)."""


def variants(count: int) -> list[EvalCase]:
    """``count`` cases, 3 samples each, asking :data:`QUESTIONS` numbered variants of
    the shipped questions in turn."""
    shipped = load_eval_cases(shipped_eval_cases())
    made = []
    for n in range(count):
        asked = n % QUESTIONS
        base = shipped[asked % len(shipped)]
        question = f"{base.question} ({asked // len(shipped)})"
        made.append(EvalCase(f"{base.id}-{n}", question, 3, 1, base.must_contain))
    return made


def write_cases(cases: list[EvalCase], path: Path) -> Path:
    lines = [
        {"id": c.id, "question": c.question, "samples": c.samples, "floor": c.floor,
         "must_contain": list(c.must_contain)}
        for c in cases
    ]  # fmt: skip
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def replay_command(cases: Path, store: Path, out: Path, jobs: int) -> tuple[float, float]:
    """Wall and CPU seconds of ``replaygate eval --jobs JOBS``, start to end, as a user
    runs it; the CPU of every process it started (this process reaps them all)."""
    command = [str(Path(sys.executable).parent / "replaygate"), "eval", "--cases", str(cases),
               "--fixtures", str(store), "--agent", AGENT, "--no-history", "--out", str(out),
               "--jobs", str(jobs)]  # fmt: skip
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, cwd=cases.parent)  # no git there
    wall = time.perf_counter() - started
    with contextlib.suppress(ChildProcessError):
        while True:
            os.wait()  # the fork server and its processes, left to this process
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu


def untimed(path: Path) -> str:
    document = json.loads(path.read_text(encoding="utf-8"))
    del document["eval"]["time"]
    return json.dumps(document, sort_keys=True)


def jobs_rows(repeat: int = 3) -> list[Row]:
    """``replaygate eval`` replaying large suites with one process and with two, taken in
    turns (median of ``repeat``), and whether the results files are the same."""
    rows: list[Row] = []
    if sys.platform == "linux":  # processes whose parent ends are reaped here, CPU counted
        ctypes.CDLL(None).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        store = tmp / "suite.jsonl"
        live = FunctionModel(SeededResearch(7).respond)
        plan = RecordPlan(live, approve_live=True)
        run_eval(variants(QUESTIONS), store, agent=AGENT, recording=plan)
        for count in (QUESTIONS, 3000):
            cases = write_cases(variants(count), tmp / f"cases-{count}.jsonl")
            walls: dict[int, list[float]] = {1: [], 2: []}
            cpus: dict[int, list[float]] = {1: [], 2: []}
            for _ in range(repeat):
                for jobs in (1, 2):
                    out = tmp / f"results-{count}-{jobs}.json"
                    wall, cpu = replay_command(cases, store, out, jobs)
                    walls[jobs].append(wall)
                    cpus[jobs].append(cpu)
            one, two = (statistics.median(walls[jobs]) for jobs in (1, 2))
            cpu_one, cpu_two = (statistics.median(cpus[jobs]) for jobs in (1, 2))
            same = untimed(tmp / f"results-{count}-1.json") == untimed(
                tmp / f"results-{count}-2.json"
            )
            runs = f"{count} cases x 3 samples"
            load = f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
            rows.append(
                (f"replaygate eval, {runs}", f"{one:.2f} s", f"CPU {cpu_one:.2f} s; {load}")
            )
            note = (
                f"{two / one:.2f}x the 1-process time; CPU {cpu_two:.2f} s "
                f"({cpu_two / cpu_one:.2f}x); identical results: {same}"
            )
            rows.append((f"replaygate eval --jobs 2, {runs}", f"{two:.2f} s", note))
    return rows


def fixtures_digest(store: Path) -> str:
    """A digest of every fixture of ``store``, ``recorded_at`` left out, by key."""
    with FixtureStore.open(store) as opened:
        lines = sorted(
            json.dumps({**f.to_json(), "meta": {**(f.meta or {}), "recorded_at": None}})
            for f in opened
        )
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:12]


def seeded_rows() -> list[Row]:
    """Recording from the seeded simulator at concurrency 1, 4 and 8: same fixtures."""
    shipped = load_eval_cases(shipped_eval_cases())
    cases = [
        EvalCase(f"{c.id}-{k}", c.question, 5, 4, c.must_contain) for k in range(3) for c in shipped
    ]
    rows: list[Row] = []
    first = 0.0
    with tempfile.TemporaryDirectory() as tmp_name:
        for workers in (1, 4, 8):
            store = Path(tmp_name) / f"seeded-{workers}"
            with Simulator(behavior="research-copilot", seed=7) as sim:
                plan = RecordPlan(
                    sim_model(sim.url), approve_live=True, source="sim", concurrency=workers
                )
                started = time.perf_counter()
                run_eval(cases, store, agent=copilot, recording=plan)
                took = time.perf_counter() - started
            first = first or took
            label = f"record {len(cases)} cases x 5 samples, seed 7, concurrency {workers}"
            note = f"{took / first:.2f}x; fixtures {fixtures_digest(store)}"
            rows.append((label, f"{took:.2f} s", note))
    return rows


PARTS = {"loop": loop_rows, "jobs": jobs_rows, "seeded": seeded_rows}


def main() -> None:
    warnings.simplefilter("ignore")
    for part in sys.argv[1:] or list(PARTS):
        print(f"\n### {part}\n")
        print("| measure | time | note |")
        print("| --- | --- | --- |")
        for name, value, note in PARTS[part]():
            print(f"| {name} | {value} | {note} |")


if __name__ == "__main__":
    main()
