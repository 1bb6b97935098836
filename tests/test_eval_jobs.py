"""``replaygate eval --jobs N``: the results of a serial run, from N processes.

The end-to-end tests run the real command in this process against a store recorded
from the simulator; the processes it starts are real.
"""

from __future__ import annotations

import io
import json
import multiprocessing
import os
import signal
import time
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from forked_cli import Forker
from interrupting import ctrl_c, ended_interrupted, press_ctrl_c, terminate_alone
from replaygate.cli.interrupts import interrupted
from replaygate.errors import FixtureMismatchError
from replaygate.evals import History, RecordPlan, RecordRecipe, load_eval_cases, progress, run_eval
from replaygate.evals.cases import EvalCase
from replaygate.evals.casework import chains
from replaygate.evals.jobs import Work, describe_failure, run_in_processes, shares
from replaygate.evals.prices import shipped_prices
from replaygate.examples.research_copilot import SETTINGS, copilot, shipped_eval_cases
from replaygate.models.fakes import FunctionModel
from replaygate.models.types import ModelResponse
from run_cli import Done, replaygate

# Its tests import the provider SDKs through replaygate (the example agent).

AGENT = "replaygate.examples.research_copilot:copilot"
TROUBLED = "eval_job_agents:troubled"
INTERRUPTED = interrupted("eval")


def case(case_id: str, question: str, samples: int = 3) -> dict[str, Any]:
    return {"id": case_id, "question": question, "samples": samples, "floor": 1,
            "must_contain": ["."]}  # fmt: skip


def write_cases(path: Path, cases: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases), "utf-8")
    return path


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """The shipped cases plus two asking a question again, 3 samples each, recorded."""
    root = tmp_path_factory.mktemp("jobs")
    shipped = [json.loads(line) for line in shipped_eval_cases().read_text("utf-8").splitlines()]
    again = [{**shipped[0], "id": "rag-again"}, {**shipped[2], "id": "flaky-again"}]
    cases = write_cases(
        root / "cases.jsonl", [{**c, "samples": 3, "floor": 1} for c in shipped + again]
    )
    store = root / "fixtures.jsonl"
    recorded = eval_cmd(cases, store, "--record-mode", "record-missing", "--approve-live",
                        "--simulator", "--no-history")  # fmt: skip
    assert recorded.returncode == 0, recorded.stderr
    yield cases, store


def eval_cmd(cases: Path, store: Path, *args: str, agent: str = AGENT) -> Done:
    return replaygate("eval", "--cases", str(cases), "--fixtures", str(store), "--agent", agent,
                      *args)  # fmt: skip


def untimed(path: Path) -> str:
    """The results file without its timing field."""
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["eval"].pop("time")
    return json.dumps(document, ensure_ascii=False, indent=2)


def printed(done: Done) -> list[str]:
    """What a run printed, but where it wrote (which differs from run to run)."""
    return [
        line for line in done.stdout.splitlines() if not line.startswith(("results:", "history:"))
    ]


def history_entry(path: Path) -> dict[str, Any]:
    with History.open(path) as history:
        (run,) = history.export()["runs"]
    assert run.pop("id") and run.pop("time") and run["info"].pop("time")
    return dict(run)


@pytest.mark.slow
def test_jobs_give_the_results_and_history_of_a_serial_run(
    suite: tuple[Path, Path], tmp_path: Path
) -> None:
    cases, store = suite
    serial = eval_cmd(cases, store, "--out", str(tmp_path / "1.json"), "--history",
                      str(tmp_path / "1.db"))  # fmt: skip
    parallel = eval_cmd(cases, store, "--jobs", "3", "--out", str(tmp_path / "3.json"),
                        "--history", str(tmp_path / "3.db"))  # fmt: skip
    assert serial.returncode == parallel.returncode == 0, parallel.stderr
    assert untimed(tmp_path / "3.json") == untimed(tmp_path / "1.json")
    assert history_entry(tmp_path / "3.db") == history_entry(tmp_path / "1.db")
    assert printed(parallel) == printed(serial)  # each case's verdict, then the metrics
    assert "Traceback" not in parallel.stderr


@pytest.mark.slow
def test_jobs_split_a_shard_and_more_jobs_than_cases_start_fewer_processes(
    suite: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cases, store = suite
    picked = load_eval_cases(cases)
    half = [c for c in picked if c.id in ("rag-basics", "secrets")]
    small = write_cases(tmp_path / "two.jsonl", [case(c.id, c.question) for c in half])
    one = eval_cmd(small, store, "--shard", "1/2", "--out", str(tmp_path / "a.json"))
    many = eval_cmd(
        small, store, "--shard", "1/2", "--jobs", "8", "--out", str(tmp_path / "b.json")
    )
    assert one.returncode == many.returncode == 0, many.stderr
    assert untimed(tmp_path / "b.json") == untimed(tmp_path / "a.json")
    screen = io.StringIO()
    terminal = Console(file=screen, force_terminal=True, width=120)
    monkeypatch.setattr(progress, "stderr_console", lambda: terminal)
    both = eval_cmd(small, store, "--jobs", "8", "--no-history", "--progress",
                    "--out", str(tmp_path / "c.json"))  # fmt: skip
    assert both.returncode == 0, both.stderr
    assert "2/2" in screen.getvalue()  # the bar moved with the results the processes sent
    assert [c["case"] for c in json.loads((tmp_path / "c.json").read_text())["cases"]] == [
        c.id for c in half
    ]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("question", "message"),
    [
        ("What is a zyzzyva?", ["Error: no fixture", "\nraised in sample 0 of 3 of case bad\n"]),
        ("divide", ["Error: ZeroDivisionError: integer division or modulo by zero (raised by "
                    "the agent at ", "eval_job_agents.py:21 in _go_wrong) (raised in sample 0 "
                    "of 3 of case bad)"]),
        ("exit", ["Error: eval process 2 of 2 ended (exit code 3) before its cases were done"]),
    ],
)  # fmt: skip
def test_a_failing_process_ends_the_run_with_one_error(
    suite: tuple[Path, Path], tmp_path: Path, question: str, message: list[str]
) -> None:
    _, store = suite
    cases = write_cases(
        tmp_path / "cases.jsonl", [case("ok", "What is RAG?"), case("bad", question)]
    )
    done = eval_cmd(cases, store, "--jobs", "2", "--no-history", agent=TROUBLED)
    assert done.returncode == 2, done.stderr
    assert all(part in done.stderr for part in message), done.stderr
    assert "Traceback" not in done.stderr + done.stdout


@pytest.mark.slow
@pytest.mark.parametrize("press", [press_ctrl_c, terminate_alone], ids=["Ctrl-C", "SIGTERM"])
def test_ctrl_c_while_cases_run_stops_every_process_and_writes_nothing(
    forker: Forker, suite: tuple[Path, Path], tmp_path: Path, press: Callable[[int], None]
) -> None:
    _, store = suite
    stored = store.read_bytes()
    markers = [tmp_path / "waits", tmp_path / "ignores-sigterm"]
    asked = [case("a", f"wait:{markers[0]}"), case("b", f"stubborn:{markers[1]}")]
    cases = write_cases(tmp_path / "cases.jsonl", asked)
    out = tmp_path / "results.json"
    args = ["eval", "--cases", str(cases), "--fixtures", str(store), "--agent", TROUBLED,
            "--jobs", "2", "--out", str(out), "--history", str(tmp_path / "h.db")]  # fmt: skip

    def again(session: int) -> None:
        time.sleep(0.5)  # while the command waits for the process ignoring SIGTERM
        press(session)

    status, stderr = ctrl_c(args, lambda: all(m.exists() and m.read_text() for m in markers),
                            again, {}, press, forker=forker)  # fmt: skip
    assert ended_interrupted(status, stderr, INTERRUPTED), stderr
    for pid in [int(m.read_text()) for m in markers]:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    assert not out.exists() and not (tmp_path / "h.db").exists()
    assert store.read_bytes() == stored


@pytest.mark.slow
@pytest.mark.skipif(
    "forkserver" not in multiprocessing.get_all_start_methods(), reason="starts by spawning"
)
def test_ctrl_c_while_the_processes_start_stops_them(
    forker: Forker, suite: tuple[Path, Path], tmp_path: Path
) -> None:
    _, store = suite
    cases = write_cases(tmp_path / "cases.jsonl", [case("a", "What is RAG?"),
                                                   case("b", "What is a token?")])  # fmt: skip
    args = ["eval", "--cases", str(cases), "--fixtures", str(store), "--agent",
            "eval_job_start:troubled", "--jobs", "2", "--no-history"]  # fmt: skip
    held = tmp_path / "held"  # by the fork server importing the agent, before any process
    status, stderr = ctrl_c(
        args, held.exists, lambda _: (tmp_path / "go").touch(), {"EVAL_JOB_HOLD": str(tmp_path)},
        forker=forker,
    )  # fmt: skip
    assert ended_interrupted(status, stderr, INTERRUPTED), stderr


WAITING_PARENT = """
import sys
from pathlib import Path
from replaygate.evals.cases import EvalCase
from replaygate.evals.jobs import Work, run_in_processes
from replaygate.examples.research_copilot import SETTINGS
marker, store, folder = map(Path, sys.argv[1:])
work = Work(store, "eval_job_agents:troubled", SETTINGS, None, None, agent_folder=folder)
run_in_processes([EvalCase("a", f"wait:{marker}", 1, 1, must_contain=(".",))], work, 2, None)
"""
"""A parent of an eval process, running one case whose agent waits (``wait:MARKER``)."""


def _ended(pid: int) -> bool:
    """Whether process ``pid`` is gone or a zombie (an orphan waits for init to reap it)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1].startswith("Z")
    except (FileNotFoundError, ProcessLookupError):
        return True


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_process_ends_when_its_parent_is_killed_outright(forker: Forker, tmp_path: Path) -> None:
    # its parent killed with SIGKILL (out of memory, a CI job's cancel), a process went on
    # running its share: recording, calling the live API for a run nobody waited for
    store, marker = tmp_path / "fixtures.jsonl", tmp_path / "worker.pid"
    store.touch()
    args = [str(marker), str(store), str(Path(__file__).parent)]
    with (tmp_path / "stderr").open("wb") as stderr:  # `python -c WAITING_PARENT ARGS`, forked
        parent = forker.start(args, stdout=stderr.fileno(), stderr=stderr.fileno(),
                              cwd=tmp_path, code=WAITING_PARENT)  # fmt: skip
    deadline = time.monotonic() + 30
    while not (marker.exists() and marker.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    worker = int(marker.read_text())
    os.kill(parent.pid, signal.SIGKILL)
    assert parent.wait(60) == -signal.SIGKILL
    deadline = time.monotonic() + 10
    while not _ended(worker) and time.monotonic() < deadline:
        time.sleep(0.05)
    ended = _ended(worker)
    if not ended:
        os.kill(worker, signal.SIGKILL)
    assert ended


@pytest.mark.slow  # a real git repository
def test_ctrl_c_ends_a_serial_run_with_one_line_and_no_results(tmp_path: Path) -> None:
    store = tmp_path / "fixtures.jsonl"
    store.touch()
    cases = write_cases(tmp_path / "cases.jsonl", [case("a", "interrupt")])
    out, history = tmp_path / "results.json", tmp_path / "h.db"
    done = eval_cmd(cases, store, "--out", str(out), "--history", str(history), agent=TROUBLED)
    assert ended_interrupted(done.returncode, done.stderr, INTERRUPTED), done.stderr
    assert not out.exists() and not history.exists()


@pytest.mark.slow
def test_an_agent_interrupting_a_process_of_a_parallel_run_ends_it_as_a_serial_run(
    tmp_path: Path,
) -> None:
    # its process printed a traceback and the run said it was killed (exit 2)
    store = tmp_path / "fixtures.jsonl"
    store.touch()
    # b waits to be stopped: a miss of its own could end the run before a's interrupt
    asked = [case("a", "interrupt"), case("b", f"wait:{tmp_path / 'b.pid'}")]
    cases = write_cases(tmp_path / "cases.jsonl", asked)
    out = tmp_path / "results.json"
    done = eval_cmd(cases, store, "--out", str(out), "--no-history", "--jobs", "2",
                    agent=TROUBLED)  # fmt: skip
    assert ended_interrupted(done.returncode, done.stderr, INTERRUPTED), done.stderr
    assert "Traceback" not in done.stderr and not out.exists()


@pytest.mark.slow
def test_ctrl_c_while_recording_starts_no_other_case(tmp_path: Path) -> None:
    store = tmp_path / "fixtures.jsonl"
    cases = write_cases(
        tmp_path / "cases.jsonl", [case("a", "interrupt"), case("b", "What is RAG?")]
    )
    done = eval_cmd(cases, store, "--record-mode", "record-missing", "--approve-live",
                    "--simulator", "--no-history", agent=TROUBLED)  # fmt: skip
    assert ended_interrupted(done.returncode, done.stderr, INTERRUPTED), done.stderr
    assert not store.exists() or not store.read_text(encoding="utf-8")  # b was not recorded


def test_shares_keep_a_question_together_and_deal_round_robin() -> None:
    cases = [EvalCase(str(i), q, 1, 1) for i, q in enumerate("abacdab")]
    assert chains(cases) == [[0, 2, 5], [1, 6], [3], [4]]
    assert shares(cases, 2) == [[0, 2, 3, 5], [1, 4, 6]]
    assert shares(cases, 8) == [[0, 2, 5], [1, 6], [3], [4]]  # no process without cases
    tracemalloc.start()
    try:
        assert shares(cases, 10**6) == shares(cases, 8)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 100_000  # nothing is made for processes that never start (--jobs 10**20)
    assert shares(cases, 1) == [list(range(7))]
    assert shares([], 2) == []


def test_no_cases_start_no_process(tmp_path: Path) -> None:
    work = Work(tmp_path / "none.jsonl", AGENT, SETTINGS, None, None)
    assert run_in_processes([], work, 2, None) == []


def test_a_failure_is_described_in_words() -> None:
    miss = FixtureMismatchError("no fixture for this request", key="k", store="s")
    assert describe_failure(miss) == str(miss)
    miss.add_note("raised in sample 0 of 5 of case llm-judge")  # as a serial run says it
    assert describe_failure(miss) == f"{miss}\nraised in sample 0 of 5 of case llm-judge"
    missing = FileNotFoundError(2, "No such file or directory", "corpus.jsonl")
    assert describe_failure(missing) == (
        "FileNotFoundError: [Errno 2] No such file or directory: 'corpus.jsonl'"
    )
    broken = ValueError("bad value")
    broken.add_note("raised in sample 1 of 3 of case c")
    assert describe_failure(broken) == "ValueError: bad value (raised in sample 1 of 3 of case c)"


def test_jobs_need_an_importable_agent_and_a_recipe(tmp_path: Path) -> None:
    cases = load_eval_cases(shipped_eval_cases())[:1]
    store = tmp_path / "f.jsonl"
    store.touch()
    with pytest.raises(ValueError, match="jobs must be a whole number of at least 1"):
        run_eval(cases, store, agent=AGENT, jobs=0)
    with pytest.raises(ValueError, match="'module:function'"):
        run_eval(cases, store, agent=copilot, jobs=2)
    live = FunctionModel(lambda messages, tools: ModelResponse(text="x"))
    plan = RecordPlan(live, approve_live=True)
    with pytest.raises(ValueError, match="RecordRecipe"):
        run_eval(cases, store, agent=AGENT, recording=plan, jobs=2)
    assert replaygate("eval", "--jobs", "0").returncode == 2


def test_a_recipe_shares_the_rate_and_the_cap_among_the_processes() -> None:
    live = FunctionModel(lambda messages, tools: ModelResponse(text="x"))
    opened: list[bool] = []

    class Opened:
        def __enter__(self) -> FunctionModel:
            opened.append(True)
            return live

        def __exit__(self, *exc: object) -> None:
            opened.append(False)

    recipe = RecordRecipe(Opened, approve_live=True, rate_limit=8.0, max_cost=2.0)
    with recipe.plan(shipped_prices(), jobs=4) as plan:
        assert plan.live is live and plan.rate_limit == 2.0
        assert plan.cap is not None and plan.cap.limit == 0.5
    assert opened == [True, False]
    with RecordRecipe(Opened, approve_live=True).plan(None) as plan:
        assert plan.cap is None and plan.rate_limit is None
    capped = RecordRecipe(Opened, approve_live=True, max_cost=1.0)
    with pytest.raises(ValueError, match="needs a price table"), capped.plan(None):
        pass


@pytest.mark.slow
def test_a_process_shows_replaygate_s_warnings_as_the_command_line_does(
    forker: Forker, suite: tuple[Path, Path], tmp_path: Path
) -> None:
    """In the processes of --jobs, a sampling warning was printed in Python's form, naming
    replaygate's own source file and the code there."""
    _, store = suite
    shipped = [json.loads(line) for line in shipped_eval_cases().read_text("utf-8").splitlines()]
    cases = write_cases(
        tmp_path / "once.jsonl", [{**c, "samples": 1, "floor": 1} for c in shipped[:2]]
    )
    args = ["eval", "--cases", str(cases), "--fixtures", str(store), "--agent", AGENT]
    out, err = tmp_path / "stdout", tmp_path / "stderr"
    with out.open("wb") as stdout, err.open("wb") as stderr:  # the processes' stderr is the
        status = forker.run(  # command's own (fd 2): `python -m replaygate ARGS`, forked
            [*args, "--jobs", "2", "--no-history"],
            stdout=stdout.fileno(), stderr=stderr.fileno(), cwd=tmp_path,
        )  # fmt: skip
    said = err.read_text(encoding="utf-8")
    assert status in (0, 1), said
    warned = [line for line in said.splitlines() if "1 sample(s)" in line]
    assert [line.partition(":")[0] for line in warned] == ["warning", "warning"], said
    assert ".py:" not in said
