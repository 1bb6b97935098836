"""Ctrl-C and SIGTERM end every command with one line and exit status 130; what a
command writes is left whole. Real processes, real signals (:mod:`interrupting`): end to
end, so the module runs in ``make test``, not in the inner loop. The commands' processes
are forked from one interpreter that imported the command line once (``forker``),
but the one signalled as it starts importing it."""

from __future__ import annotations

import json
import signal
import socket
from collections.abc import Callable
from pathlib import Path

import pytest

from forked_cli import Forker
from interrupting import ctrl_c, ended_interrupted, press_ctrl_c, terminate_alone
from replaygate import FixtureStore
from replaygate.cli import COMMANDS
from replaygate.cli.interrupts import interrupted
from replaygate.evals import History
from replaygate.evals.results import load_eval_results
from replaygate.examples.research_copilot import shipped_fixtures
from replaygate.fixtures.fixture import Fixture
from replaygate.fixtures.store import record_response
from run_cli import replaygate
from test_store import META, request, response

# Its tests import the provider SDKs through replaygate (the example agent).

pytestmark = pytest.mark.slow

PRESSES = pytest.mark.parametrize(
    "press", [press_ctrl_c, terminate_alone], ids=["Ctrl-C", "SIGTERM"]
)

HOLD_RENAME = """
import os, pathlib, time
def _held(src, dst):
    pathlib.Path(os.environ["HELD"]).touch()
    time.sleep(600)
os.replace = _held
"""
"""Hold the command at its first rename, a file written whole beside its target."""

HOLD_BETWEEN_WRITES = """
import os, pathlib, signal, time
from replaygate.evals.results import EvalResults
_write = EvalResults.write
def _held(self, path):
    written = _write(self, path)
    pathlib.Path(os.environ["HELD"]).touch()
    deadline = time.monotonic() + 60
    while not {signal.SIGINT, signal.SIGTERM} & signal.sigpending() and time.monotonic() < deadline:
        time.sleep(0.02)
    return written
EvalResults.write = _held
"""
"""Hold the command once the results file is written, until a Ctrl-C or SIGTERM waits."""


HOLD_WORKER_START = """
import os, pathlib, signal, time
from concurrent.futures import process
from replaygate.hygiene import verify_jobs, verify_segments
verify_segments.SEGMENT_BYTES = 512  # a small store, checked by worker processes
verify_jobs.PARALLEL_SEGMENTS = 1
_start = process._ExecutorManagerThread.start
def _held(self):
    pathlib.Path(os.environ["HELD"]).touch()
    deadline = time.monotonic() + 60
    while not {signal.SIGINT, signal.SIGTERM} & signal.sigpending() and time.monotonic() < deadline:
        time.sleep(0.02)
    return _start(self)
process._ExecutorManagerThread.start = _held
"""
"""Check a small store with worker processes, and hold the start of the pool's thread
(its first worker started) until a Ctrl-C or SIGTERM waits."""


HOLD_FIRST_IMPORT = """
import os, pathlib, sys, time
class _Holding:
    def find_spec(self, name, path=None, target=None):
        if name == "replaygate.cli.options":  # the first module the group itself imports
            pathlib.Path(os.environ["HELD"]).touch()
            time.sleep(60)
        return None
sys.meta_path.insert(0, _Holding())
"""
"""Hold the command line as it starts, importing its first module."""


def nothing_more(session: int) -> None:
    """Press once only."""


@PRESSES
def test_an_interrupted_compact_leaves_the_store_as_it_was(
    forker: Forker, tmp_path: Path, press: Callable[[int], None]
) -> None:
    store = tmp_path / "fixtures.jsonl"
    answers = tuple(response(text) for text in ("first", "second", "third"))
    with FixtureStore.open(store) as opened:
        for sample, answer in enumerate(answers):
            record_response(opened, request("q"), answer, sample=sample, meta=META)
    stored = store.read_bytes()
    held = tmp_path / "held"

    def written_beside() -> bool:  # the compacted file, about to replace the store
        return held.exists() and any(tmp_path.glob(".fixtures.jsonl.*.tmp"))

    status, stderr = ctrl_c(["compact", str(store)], written_beside, nothing_more,
                            {"HELD": str(held)}, press, before=HOLD_RENAME,
                            forker=forker)  # fmt: skip
    assert ended_interrupted(status, stderr, interrupted("compact")), stderr
    assert store.read_bytes() == stored
    assert not list(tmp_path.glob(".*.tmp"))
    found = FixtureStore.open(store).lookup(request("q"))
    assert found is not None and found.responses == answers
    compacted = replaygate("compact", str(store))  # its lock was let go
    assert compacted.returncode == 0 and "folded 2 sample line(s)" in compacted.stdout


@PRESSES
def test_an_interrupt_while_verify_starts_its_workers_ends_it_in_one_line(
    forker: Forker, tmp_path: Path, press: Callable[[int], None]
) -> None:
    # one that cut a worker's start short ended in "RuntimeError: cannot join thread
    # before it is started" (and a started worker's own traceback)
    store = tmp_path / "fixtures.jsonl"
    with FixtureStore.open(store) as opened:
        for i in range(12):
            record_response(opened, request(f"q{i}"), response(f"a{i}"), sample=0, meta=META)
    held = tmp_path / "held"
    status, stderr = ctrl_c(["verify", "--jobs", "2", str(store)], held.exists, nothing_more,
                            {"HELD": str(held)}, press, before=HOLD_WORKER_START,
                            forker=forker)  # fmt: skip
    assert ended_interrupted(status, stderr, interrupted("verify")), stderr


def test_a_ctrl_c_as_the_command_line_starts_ends_it_in_one_line(tmp_path: Path) -> None:
    # it printed click's "Aborted!" and exited 1
    held = tmp_path / "held"
    status, stderr = ctrl_c(["verify", str(tmp_path)], held.exists, nothing_more,
                            {"HELD": str(held)}, before=HOLD_FIRST_IMPORT)  # fmt: skip
    assert ended_interrupted(status, stderr, interrupted(None)), stderr


def _recorded_store(options: list[str]) -> str:
    """The store of ``recorded_eval``: ``run`` refuses an empty one before its agent runs."""
    return options[options.index("--fixtures") + 1]


def test_an_interrupted_command_that_writes_nothing_says_so(
    forker: Forker, tmp_path: Path, recorded_eval: list[str]
) -> None:
    waits = tmp_path / "waits"
    args = ["run", "--agent", "eval_job_agents:troubled", "--fixtures",
            _recorded_store(recorded_eval), f"wait:{waits}"]  # fmt: skip
    status, stderr = ctrl_c(args, waits.exists, nothing_more, {}, forker=forker)
    assert ended_interrupted(status, stderr, interrupted("run")), stderr
    assert interrupted("run") == "Interrupted: replaygate run stopped; nothing was written"


@PRESSES
def test_sim_serve_stops_on_ctrl_c_or_sigterm_with_exit_0(
    forker: Forker, press: Callable[[int], None]
) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]

    def listening() -> bool:
        with socket.socket() as client:
            return client.connect_ex(("127.0.0.1", port)) == 0

    status, stderr = ctrl_c(["sim", "serve", "--port", str(port)], listening, nothing_more, {},
                            press, forker=forker)  # fmt: skip
    assert status == 0 and stderr == ""
    assert not listening()


def test_every_command_ends_with_one_interrupted_line(recorded_eval: list[str]) -> None:
    for name in COMMANDS:
        line = interrupted(name)
        assert line.startswith("Interrupted: ") and "\n" not in line
    before = signal.getsignal(signal.SIGTERM)
    done = replaygate("run", "--agent", "eval_job_agents:troubled", "--fixtures",
                      _recorded_store(recorded_eval), "interrupt")  # fmt: skip
    assert ended_interrupted(done.returncode, done.stderr, interrupted("run")), done.stderr
    assert signal.getsignal(signal.SIGTERM) is before  # in a test process, as it was


@pytest.fixture(scope="module")
def recorded_eval(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The options of an ``eval`` whose one case (3 samples) is recorded, once for the module:
    the example's shipped recordings of sample 0, each answer recorded for 3 samples
    (recording them from the simulator imported the SDK into the test process, about 1.5 s
    of CPU)."""
    folder = tmp_path_factory.mktemp("recorded-eval")
    cases, store = folder / "cases.jsonl", folder / "fixtures.jsonl"
    asked = {"id": "rag", "question": "What is RAG?", "samples": 3, "floor": 1,
             "must_contain": ["."]}  # fmt: skip
    cases.write_text(json.dumps(asked) + "\n", encoding="utf-8")
    with FixtureStore.open(store) as samples:
        for shipped in FixtureStore.open(shipped_fixtures()):
            if (first := shipped.responses[0]) is not None:  # a call of the shipped sample 0
                samples.put(Fixture.create(shipped.request, [first] * 3, shipped.meta))
    agent = "replaygate.examples.research_copilot:copilot"
    options = ["--cases", str(cases), "--fixtures", str(store), "--agent", agent]
    replayed = replaygate("eval", *options, "--no-history")  # every sample answered
    assert replayed.returncode == 0 and "3/3 samples passed" in replayed.stdout, replayed.stderr
    return options


@pytest.mark.parametrize("merged", [False, True], ids=["eval", "eval merge"])
@PRESSES
def test_an_interrupt_between_results_and_history_waits_for_both(
    forker: Forker,
    tmp_path: Path,
    press: Callable[[int], None],
    merged: bool,
    recorded_eval: list[str],
) -> None:
    run = ["eval", *recorded_eval]
    out, history, held = tmp_path / "results.json", tmp_path / "h.db", tmp_path / "held"
    if merged:
        shard = replaygate(*run, "--shard", "1/1", "--out", str(tmp_path / "shard.json"))
        assert shard.returncode == 0, shard.stderr
        run = ["eval", "merge", str(tmp_path / "shard.json")]
    args = [*run, "--out", str(out), "--history", str(history)]
    status, stderr = ctrl_c(args, held.exists, nothing_more, {"HELD": str(held)}, press,
                            before=HOLD_BETWEEN_WRITES, forker=forker)  # fmt: skip
    assert ended_interrupted(status, stderr, interrupted("eval")), stderr
    results = load_eval_results(out)
    with History.open(history, read_only=True) as stored:
        runs = stored.runs()
    assert len(runs) == 1 and runs[0].metrics == results.metrics


SIGNALLED_AT_EXIT = """
import atexit, os, signal, sys, time
atexit.register(lambda: (os.kill(os.getpid(), signal.{signal}), time.sleep(0.2)))
sys.argv = ["replaygate", "--version"]
from replaygate.cli import run
run()
"""
"""The ``replaygate`` program signalled as the interpreter ends, its command done."""


@pytest.mark.parametrize("name", ["SIGTERM", "SIGINT"])
def test_a_signal_while_the_process_ends_leaves_the_command_s_exit_status(
    forker: Forker, tmp_path: Path, name: str
) -> None:
    # After its command, the process was killed by the signal: status 143 (or 130 without
    # the Interrupted: line), where the work was done and its status 0.
    stdout, stderr = tmp_path / "stdout", tmp_path / "stderr"
    with stdout.open("wb") as out, stderr.open("wb") as err:
        ended = forker.start([], stdout=out.fileno(), stderr=err.fileno(), cwd=tmp_path,
                             code=SIGNALLED_AT_EXIT.format(signal=name))  # fmt: skip
        status = ended.wait(60)
    assert (status, stderr.read_text()) == (0, ""), stderr.read_text()
    assert stdout.read_text().startswith("replaygate, version")
