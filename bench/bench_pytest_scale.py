"""pytest at scale: pytest-xdist on one shared store, and replaygate's plugin beside
pytest-recording (vcrpy) at 100 / 1,000 / 10,000 recorded interactions.

Run: ``.venv/bin/python bench/bench_pytest_scale.py [--quick] [--part xdist|vcr]``
(prints markdown tables). ``--quick`` (100 and 1,000 interactions, 400 tests on the
shared store) takes about 6 minutes on 2 cores; the full run (10,000 too, 2,000 tests
on the shared store) about 25 minutes.

Every figure is one ``python -m pytest`` run of a generated project in a temporary
folder: wall time, and CPU time (user + sys of pytest and every process it starts,
its pytest-xdist workers included). Each test sends one Messages API call through the
official ``anthropic`` SDK: the ResearchCopilot-like requests of ``bench/_data.py``
(system prompt, two tools, five turns, about 2 KB), answered by the simulator's
``echo`` behaviour when recording. A pytest process importing the SDK costs seconds
of CPU before its first test, so each table also gives the CPU a test costs with the
start-up left out: the run's CPU less that of the same way running one test a process.

Part ``xdist`` (one shared store): tests in modules of 50, all marked
``@pytest.mark.replaygate(fixtures="shared.jsonl")``; every tenth test sends the
request of the test before it, so two workers may record one request at once. The
project is recorded from the plugin's simulator (``--replaygate-record-mode=
record-missing --replaygate-approve-live --replaygate-simulator=echo``) serially
(``-p no:xdist``), with ``-n 1`` and with ``-n 8``, each into an empty store, which is
then counted: its fixtures must equal the distinct requests (no fixture lost, none
twice). During recording each process logs how long it waited for the store's write
lock and held it, the fsync time under it, and the whole-file rewrites; waits far
beyond the hold times are a lock convoy. A request two workers record at once is kept
as one fixture; the second answer is appended to it as a sample line (counted). The
store recorded with ``-n 8`` is then replayed the same three ways.

Part ``vcr`` (replay only): the same tests written the way a user of each tool writes
them, one interaction per test, in modules of 100. replaygate: the
``anthropic_client`` fixture (a client per test, over the test's session), one store
per test (the plugin's default layout); pytest-recording: ``@pytest.mark.vcr``, one
session-scoped client, one YAML cassette per test (its default layout), ``match_on``
method, path and body (LLM calls differ only in their body), auth headers filtered.
Both are recorded once from a simulator (2 workers), then replayed serially
(``-p no:xdist``, each with the other plugin disabled; pytest-recording with
``--record-mode=none``). Then one shared store / one shared cassette holding all N
interactions: a sample of the tests (100, 10 at 10,000) replays from it with each
tool, since vcrpy loads the whole cassette for every test.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import request as data_request
from replaygate.fixtures.store import FixtureStore
from replaygate.sim import Simulator

MODEL = "claude-sonnet-4-6"
SHARED_STORE = "shared.jsonl"
XDIST_MODULE = 50
VCR_MODULE = 100
SHARED_SAMPLE = 100
PYCACHE = os.path.join(tempfile.gettempdir(), "bench-pytest-scale-pycache")

AGENT = '''"""The code under test: one Messages API call per question."""

import json
from pathlib import Path

DATA = Path(__file__).parent / "data"


def requests_of(module):
    return json.loads((DATA / f"{module}.json").read_text())


def ask(client, request):
    return client.messages.create(**request).content[0].text
'''

PYTEST_INI = """[pytest]
testpaths = tests
pythonpath = .
"""

RG_TEST = """import pytest

from agent import ask, requests_of
{marker}
REQUESTS = requests_of("{name}")


@pytest.mark.parametrize("i", range(len(REQUESTS)))
def test_answer(anthropic_client, i):
    assert ask(anthropic_client(), REQUESTS[i]).startswith("echo: ")
"""

VCR_TEST = """import pytest

from agent import ask, requests_of

REQUESTS = requests_of("{name}")


@pytest.mark.vcr
@pytest.mark.parametrize("i", range(len(REQUESTS)))
def test_answer(client, i):
    assert ask(client, REQUESTS[i]).startswith("echo: ")
"""

VCR_CONFTEST = """import os

import anthropic
import pytest

URL = os.environ.get("BENCH_SIM_URL", "https://api.anthropic.com")


@pytest.fixture(scope="session")
def client():
    with anthropic.Anthropic(api_key="sk-ant-bench", base_url=URL) as made:
        yield made


@pytest.fixture(scope="module")
def vcr_config():
    return {
        "filter_headers": ["authorization", "x-api-key"],
        "match_on": ["method", "path", "body"],
    }
"""

VCR_SHARED = """

@pytest.fixture
def default_cassette_name():
    return "shared"
"""

LOCK_CONFTEST = '''"""With BENCH_LOCK_LOG set: lock waits and holds, fsync under it, rewrites."""

import json
import os
import time
from pathlib import Path

LOG = os.environ.get("BENCH_LOCK_LOG")
STATS = {"locks": 0, "wait": 0.0, "held": 0.0, "max_wait": 0.0, "fsync": 0.0, "rewrites": 0}
STATS["bytes"] = 0
HOLDING = []

if LOG:
    from filelock import FileLock

    from replaygate.fixtures.store import writing

    _acquire, _release, _atomic_write = FileLock.acquire, FileLock.release, writing.atomic_write
    _fsync = os.fsync

    def _timed_acquire(self, *args, **kwargs):
        outer = not self.is_locked
        start = time.perf_counter()
        result = _acquire(self, *args, **kwargs)
        if outer:
            now = time.perf_counter()
            STATS["locks"] += 1
            STATS["wait"] += now - start
            STATS["max_wait"] = max(STATS["max_wait"], now - start)
            self._bench_since = now
            HOLDING.append(self)
        return result

    def _timed_release(self, *args, **kwargs):
        _release(self, *args, **kwargs)
        since = getattr(self, "_bench_since", None)
        if since is not None and not self.is_locked:
            STATS["held"] += time.perf_counter() - since
            self._bench_since = None
            HOLDING.remove(self)

    def _counted_write(target, data):
        STATS["rewrites"] += 1
        STATS["bytes"] += len(data)
        _atomic_write(target, data)

    def _timed_fsync(fd):
        start = time.perf_counter()
        _fsync(fd)
        if HOLDING:
            STATS["fsync"] += time.perf_counter() - start

    FileLock.acquire, FileLock.release = _timed_acquire, _timed_release
    writing.atomic_write = _counted_write
    os.fsync = _timed_fsync


def pytest_sessionfinish(session):
    if LOG and STATS["locks"]:
        Path(LOG, f"{os.getpid()}.json").write_text(json.dumps(STATS))
'''


@dataclass(frozen=True)
class Run:
    """One pytest run: wall and CPU seconds, tests passed."""

    wall: float
    cpu: float
    passed: int


def bench_request(i: int) -> dict[str, Any]:
    """Request ``i`` of ``bench/_data.py`` for a current model."""
    return {**data_request(i), "model": MODEL}


def write_project(
    root: Path, modules: Sequence[Sequence[int]], test: str, marker: str = ""
) -> Path:
    """A pytest project at ``root``: one test module per list of request indices."""
    (root / "tests").mkdir(parents=True)
    (root / "data").mkdir()
    (root / "pytest.ini").write_text(PYTEST_INI)
    (root / "agent.py").write_text(AGENT)
    for number, indices in enumerate(modules):
        name = f"test_m{number:03d}"
        requests = [bench_request(i) for i in indices]
        (root / "data" / f"{name}.json").write_text(json.dumps(requests))
        (root / "tests" / f"{name}.py").write_text(test.format(name=name, marker=marker))
    return root


def split(indices: Sequence[int], size: int) -> list[list[int]]:
    """``indices`` in modules of ``size``."""
    return [list(indices[at : at + size]) for at in range(0, len(indices), size)]


def child_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a pytest run: bytecode cached under :data:`PYCACHE`, as an
    installed environment does (:func:`warm_up`), no setting of another run left over."""
    skip = ("BENCH_", "REPLAYGATE", "PYTHONDONTWRITEBYTECODE")
    env = {k: v for k, v in os.environ.items() if not k.startswith(skip)}
    env.update(PYTHONPYCACHEPREFIX=PYCACHE, **(extra or {}))
    return env


def run_pytest(project: Path, *args: str, env: dict[str, str] | None = None) -> Run:
    """Run pytest in ``project``; a run that does not pass every test stops the bench."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=project, env=child_env(env), capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    found = re.search(r"(\d+) passed", done.stdout)
    failed = re.search(r"\d+ (failed|error)", done.stdout)
    if done.returncode != 0 or found is None or failed:
        raise SystemExit(f"pytest {' '.join(args)} in {project} failed:\n{done.stdout[-3000:]}")
    return Run(wall, cpu, int(found.group(1)))


def collect(project: Path) -> None:
    """Collect the project's tests once (their modules compiled before a timed run)."""
    command = [sys.executable, "-m", "pytest", "-q", "--co", "-p", "no:cacheprovider"]
    subprocess.run(command, cwd=project, env=child_env(), check=True, capture_output=True)


def warm_up() -> None:
    """Compile what the runs import into :data:`PYCACHE` before anything is timed."""
    modules = "anthropic, vcr, yaml, xdist.plugin, pytest_recording.plugin, replaygate.sim"
    code = f"import {modules}, replaygate.pytest_plugin.recording, replaygate.http"
    subprocess.run([sys.executable, "-c", code], env=child_env(), check=True)


def row(label: str, run: Run, base: Run, *extra: str) -> str:
    """A table row: the run's wall and CPU, and their ratios to ``base``."""
    cells = [
        label,
        f"{run.passed:,}",
        f"{run.wall:.2f}",
        f"{run.cpu:.2f}",
        f"{run.wall / base.wall:.2f}",
        f"{run.cpu / base.cpu:.2f}",
        *extra,
    ]
    return "| " + " | ".join(cells) + " |"


# -- part 1: pytest-xdist, one shared store ------------------------------------------------


def xdist_requests(tests: int) -> list[int]:
    """The request each test sends: every tenth test repeats the one before it."""
    return [t - 1 if t % 10 == 9 else t for t in range(tests)]


def lock_stats(folder: Path) -> dict[str, float]:
    """The lock and rewrite figures the processes of one run logged, added up."""
    names = ("locks", "wait", "held", "max_wait", "fsync", "rewrites", "bytes")
    total = dict.fromkeys(names, 0.0)
    for file in folder.glob("*.json"):
        stats = json.loads(file.read_text())
        for name in total:
            total[name] = (
                max(total[name], stats[name]) if name == "max_wait" else total[name] + stats[name]
            )
    return total


def count_store(store: Path, distinct: int) -> tuple[str, str]:
    """The store's fixtures against the distinct requests (a lost or doubled one stops),
    and its sample lines: answers appended to a fixture another process had recorded."""
    lines = store.read_bytes().splitlines()
    samples = sum(1 for line in lines if b'"request":' not in line)
    with FixtureStore.open(store) as opened:
        fixtures = len(opened)
        keys = len(set(opened.keys()))
        answers = sum(fixture.samples for fixture in opened)
    if not fixtures == keys == answers == distinct or len(lines) != fixtures + samples:
        raise SystemExit(
            f"{store}: {fixtures} fixtures, {keys} keys, {answers} answers, {len(lines)} lines "
            f"for {distinct} distinct requests: fixtures lost or recorded twice"
        )
    return f"{fixtures:,} / {distinct:,}", f"{samples:,}"


RECORD = (
    "--replaygate-record-mode=record-missing",
    "--replaygate-approve-live",
    "--replaygate-simulator=echo",
)
WAYS = {"serial (-p no:xdist)": ("-p", "no:xdist"), "-n 1": ("-n", "1"), "-n 8": ("-n", "8")}
STARTUP_TESTS = 8


def startup(work: Path, marker: str) -> dict[str, float]:
    """CPU seconds of each way replaying 8 tests (one a worker under ``-n 8``): the cost
    of starting its processes, which the per-test figures leave out."""
    project = write_project(work / "startup", [list(range(STARTUP_TESTS))], RG_TEST, marker)
    run_pytest(project, "-p", "no:xdist", *RECORD)
    run_pytest(project, "-p", "no:xdist")  # compiles what only a replay imports
    return {label: run_pytest(project, *how).cpu for label, how in WAYS.items()}


def per_test(run: Run, started: float) -> str:
    """CPU milliseconds a test, start-up left out."""
    return f"{(run.cpu - started) / (run.passed - STARTUP_TESTS) * 1000:.1f}"


def part_xdist(work: Path, tests: int) -> None:
    """Record one shared store serially, with -n 1 and -n 8; replay it the same ways."""
    indices = xdist_requests(tests)
    distinct = len(set(indices))
    marker = f'\npytestmark = pytest.mark.replaygate(fixtures="{SHARED_STORE}")\n'
    template = write_project(work / "template", split(indices, XDIST_MODULE), RG_TEST, marker)
    (template / "conftest.py").write_text(LOCK_CONFTEST)
    started = startup(work, marker)
    store = Path("tests/fixtures") / SHARED_STORE
    print(f"\n### pytest-xdist, one shared store: {tests:,} tests, {distinct:,} requests\n")
    print(
        "| recording | tests | wall s | CPU s | wall / serial | CPU / serial | CPU ms a test "
        "(start-up out) | fixtures / distinct requests | sample lines | lock: waits s "
        "(longest) | held s | fsync under it s | whole-file rewrites (MB) |"
    )
    print("| --- |" + " ---: |" * 12)
    recorded: Path | None = None
    base: Run | None = None
    for number, (label, how) in enumerate(WAYS.items()):
        project = work / f"record{number}"
        shutil.copytree(template, project)
        logs = project / ".locklog"
        logs.mkdir()
        run = run_pytest(project, *how, *RECORD, env={"BENCH_LOCK_LOG": str(logs)})
        base = base or run
        stats = lock_stats(logs)
        extra = (
            per_test(run, started[label]),
            *count_store(project / store, distinct),
            f"{stats['wait']:.2f} ({stats['max_wait']:.3f})",
            f"{stats['held']:.2f}",
            f"{stats['fsync']:.2f}",
            f"{stats['rewrites']:.0f} ({stats['bytes'] / 1e6:.1f})",
        )
        print(row(label, run, base, *extra))
        recorded = project
    assert recorded is not None
    print(
        "\n| replay of the -n 8 store | tests | wall s | CPU s | wall / serial | CPU / serial "
        "| CPU ms a test (start-up out) |"
    )
    print("| --- |" + " ---: |" * 6)
    base = None
    for label, how in WAYS.items():
        run = run_pytest(recorded, *how)
        base = base or run
        print(row(label, run, base, per_test(run, started[label])))
    print(
        "\nStart-up (CPU s of 8 tests, one a worker under -n 8): "
        + ", ".join(f"{label} {cpu:.2f}" for label, cpu in started.items())
    )


# -- part 2: replaygate's plugin beside pytest-recording -------------------------------------


RG_ONLY = ("-p", "no:xdist", "-p", "no:recording")
VCR_ONLY = ("-p", "no:xdist", "-p", "no:replaygate", "-p", "no:replaygate_sampling")


def record_pair(work: Path, n: int) -> tuple[Path, Path]:
    """Projects of ``n`` tests for each tool, recorded from the simulator (2 workers)."""
    modules = split(range(n), VCR_MODULE)
    rg = write_project(work / f"rg{n}", modules, RG_TEST)
    vcr = write_project(work / f"vcr{n}", modules, VCR_TEST)
    (vcr / "conftest.py").write_text(VCR_CONFTEST)
    run_pytest(
        rg,
        "-n",
        "2",
        "-p",
        "no:recording",
        "--replaygate-record-mode=record-missing",
        "--replaygate-approve-live",
        "--replaygate-simulator=echo",
    )
    with Simulator(behavior="echo") as sim:
        env = {"BENCH_SIM_URL": sim.url}
        run_pytest(vcr, "-n", "2", "-p", "no:replaygate", "--record-mode=once", env=env)
    return rg, vcr


def shared_pair(work: Path, rg: Path, vcr: Path, n: int) -> tuple[Path, Path, int]:
    """Projects of a sample of the tests over one store / cassette of all ``n`` interactions."""
    sample = min(n, SHARED_SAMPLE, 100_000 // n)
    indices = [i * n // sample for i in range(sample)]
    marker = f'\npytestmark = pytest.mark.replaygate(fixtures="{SHARED_STORE}")\n'
    rg_shared = write_project(work / f"rg{n}s", split(indices, VCR_MODULE), RG_TEST, marker)
    vcr_shared = write_project(work / f"vcr{n}s", split(indices, VCR_MODULE), VCR_TEST)
    (vcr_shared / "conftest.py").write_text(VCR_CONFTEST + VCR_SHARED)
    stores = sorted((rg / "tests/fixtures").rglob("*.jsonl"))
    lines = b"".join(store.read_bytes() for store in stores)
    (rg_shared / "tests/fixtures").mkdir(parents=True)
    (rg_shared / "tests/fixtures" / SHARED_STORE).write_bytes(lines)
    interactions: list[Any] = []
    for cassette in sorted((vcr / "tests/cassettes").rglob("*.yaml")):
        interactions += yaml.load(cassette.read_text(), Loader=yaml.CSafeLoader)["interactions"]
    if len(stores) != n or len(interactions) != n:
        raise SystemExit(f"{len(stores)} stores, {len(interactions)} interactions for {n} tests")
    for module in (vcr_shared / "tests").glob("test_*.py"):
        cassettes = vcr_shared / "tests/cassettes" / module.stem
        cassettes.mkdir(parents=True)
        body = {"interactions": interactions, "version": 1}
        (cassettes / "shared.yaml").write_text(yaml.dump(body, Dumper=yaml.CSafeDumper))
    collect(rg_shared)
    collect(vcr_shared)
    return rg_shared, vcr_shared, sample


def part_vcr(work: Path, sizes: Sequence[int]) -> None:
    """Replay with each tool at each size, per-test and shared layouts."""
    rg, vcr = record_pair(work, 1)
    replays = ((rg, RG_ONLY), (vcr, (*VCR_ONLY, "--record-mode=none")))
    for project, how in replays:
        run_pytest(project, *how)  # compiles what only a replay imports
    started = (run_pytest(rg, *RG_ONLY).cpu, run_pytest(vcr, *replays[1][1]).cpu)
    print("\n### Replay: replaygate's plugin beside pytest-recording (serial)\n")
    print(
        "| N | layout | tests | replaygate wall s | CPU s | CPU ms a test | pytest-recording "
        "wall s | CPU s | CPU ms a test | wall vcr / rg | CPU vcr / rg | CPU a test vcr / rg |"
    )
    print("| ---: | --- |" + " ---: |" * 10)
    for n in sizes:
        rg, vcr = record_pair(work, n)
        ours = run_pytest(rg, *RG_ONLY)
        theirs = run_pytest(vcr, *VCR_ONLY, "--record-mode=none")
        print(pair_row(n, "a store / cassette per test", (ours, theirs), started))
        rg_shared, vcr_shared, sample = shared_pair(work, rg, vcr, n)
        ours = run_pytest(rg_shared, *RG_ONLY)
        theirs = run_pytest(vcr_shared, *VCR_ONLY, "--record-mode=none")
        layout = f"one shared store / cassette of {n:,}, {sample} tests"
        print(pair_row(n, layout, (ours, theirs), started))
    print(
        f"\nStart-up (CPU s of a 1-test run): replaygate {started[0]:.2f}, "
        f"pytest-recording {started[1]:.2f}; CPU ms a test leaves it out."
    )


def pair_row(n: int, layout: str, runs: tuple[Run, Run], started: tuple[float, float]) -> str:
    """A row of the side-by-side table: replaygate's run, then pytest-recording's."""
    ours, theirs = runs
    each = [
        (run.cpu - s) / max(run.passed - 1, 1) * 1000 for run, s in zip(runs, started, strict=True)
    ]
    cells = [
        f"{n:,}",
        layout,
        f"{ours.passed:,}",
        f"{ours.wall:.2f}",
        f"{ours.cpu:.2f}",
        f"{each[0]:.1f}",
        f"{theirs.wall:.2f}",
        f"{theirs.cpu:.2f}",
        f"{each[1]:.1f}",
        f"{theirs.wall / ours.wall:.2f}",
        f"{theirs.cpu / ours.cpu:.2f}",
        f"{each[1] / each[0]:.2f}",
    ]
    return "| " + " | ".join(cells) + " |"


def main(argv: Sequence[str] | None = None) -> None:
    """Run the parts asked for and print their tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100 and 1,000 only; 400 tests")
    parser.add_argument("--part", choices=("xdist", "vcr"), help="one part only")
    args = parser.parse_args(argv)
    sizes = (100, 1_000) if args.quick else (100, 1_000, 10_000)
    warm_up()
    with tempfile.TemporaryDirectory(prefix="bench-pytest-") as tmp:
        work = Path(tmp)
        if args.part in (None, "xdist"):
            part_xdist(work / "xdist", 400 if args.quick else 2_000)
        if args.part in (None, "vcr"):
            part_vcr(work / "vcr", sizes)


if __name__ == "__main__":
    main()
