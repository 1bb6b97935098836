"""The hits a ``multiprocessing`` worker plays are logged, whatever its start method.

A ``fork`` worker inherits its parent's hits log; a ``spawn`` or ``forkserver`` worker
starts a fresh interpreter, where logging was off, so the fixtures it replayed were never
logged and ``patrol`` reported them unused. Each hit is logged for the test that started
the worker: a ``forkserver`` worker's environment is the server's, which an earlier test
started, so ``$PYTEST_CURRENT_TEST`` there names the wrong test.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from forked_cli import Forker
from replaygate.fixtures import hits
from replaygate.fixtures.store import FixtureStore
from replaygate.http import httpx2_client
from replaygate.hygiene.patrol import patrol
from replaygate.sim import Simulator

ASK = """
import replaygate.http


def ask(question, store="s.jsonl"):
    asked = {"model": "gpt-sim-1", "messages": [{"role": "user", "content": question}]}
    with replaygate.http.httpx2_client(store) as http:
        http.post("http://sim.invalid/v1/chat/completions", json=asked, headers=KEY)
"""
KEY = {"authorization": "Bearer k"}  # the simulator refuses a request without one

WORKERS = f"""
import multiprocessing, os, sys, threading
from replaygate.fixtures import hits
KEY = {KEY!r}
{ASK}

def ask_and_wait(question, asked):
    ask(question)
    asked.set()
    threading.Event().wait()  # till it is killed, as a pool's terminate() kills its workers

if __name__ == "__main__":
    start, end = sys.argv[1:]
    hits.enable("hits", run="run-1", root=os.getcwd())
    context = multiprocessing.get_context(start)
    for test, question in (("test_one", "first"), ("test_two", "second")):
        os.environ["PYTEST_CURRENT_TEST"] = f"tests/test_w.py::{{test}} (call)"
        if end == "killed":
            asked = context.Event()
            worker = context.Process(target=ask_and_wait, args=(question, asked))
            worker.start()
            asked.wait()
            worker.terminate()
        else:
            worker = context.Process(target=ask, args=(question,))
            worker.start()
        worker.join()
        if end == "ends" and worker.exitcode:
            sys.exit(worker.exitcode)
"""


def record(store: Path, *questions: str) -> None:
    """Record the simulator's answer to each of ``questions`` in ``store``, as the
    workers send them."""
    with (
        Simulator(behavior="echo") as sim,
        httpx2_client(store, "record-missing", approve_live=True, source="sim") as http,
    ):
        for question in questions:
            asked = {"model": "gpt-sim-1", "messages": [{"role": "user", "content": question}]}
            http.post(f"{sim.openai_base_url}/chat/completions", json=asked, headers=KEY)


@pytest.fixture(scope="module")
def forker() -> Iterator[Forker]:
    """The interpreter the scripts starting the workers are forked from, with what a
    worker's replay imports (the store, the exchange, httpx2) loaded once and frozen out
    of the garbage collector's reach: a ``fork`` worker finds it loaded, as it does where
    its parent sent a request before, where each imported it again (0.3 s of CPU); a
    ``spawn`` or ``forkserver`` worker still starts an interpreter of its own."""
    # not multiprocessing: it notes the folder it was imported in, the script's own
    forker = Forker(["replaygate.http.bindings", "replaygate.fixtures.hits"], freeze=True)
    yield forker
    forker.close()


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The simulator's answers to the two questions the workers send, recorded once: each
    test replays a copy of it."""
    store = tmp_path_factory.mktemp("answers") / "s.jsonl"
    record(store, "first", "second")
    return store


@dataclass
class Done:
    """How the script ended: its exit status and what it wrote to stderr."""

    returncode: int
    stderr: str


RUN_AS_A_SCRIPT = (
    "import os, runpy\nrunpy.run_path(os.path.abspath('workers.py'), run_name='__main__')"
)
"""``python /path/to/workers.py``: the script is ``__main__``, with its file, which a
``spawn`` or ``forkserver`` worker imports to find the function it runs (its whole path:
the preloaded interpreter it is forked from imported multiprocessing in another folder,
which multiprocessing takes for the program's)."""


def run_workers(forker: Forker, answers: Path, folder: Path, start: str, end: str) -> Done:
    """Run :data:`WORKERS` in ``folder``, in a process of its own (forked from ``forker``),
    replaying a copy of ``answers``: two workers of ``start`` replaying, each to its
    ``end`` (``ends``, ``killed``)."""
    shutil.copy(answers, folder / "s.jsonl")
    (folder / "workers.py").write_text(WORKERS)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = forker.start(
            [start, end], stdout=out.fileno(), stderr=err.fileno(), cwd=folder,
            env=dict(os.environ), code=RUN_AS_A_SCRIPT,
        )  # fmt: skip
        returncode = process.wait(120)
        err.seek(0)
        return Done(returncode, err.read().decode())


@pytest.mark.slow  # fresh interpreters
@pytest.mark.parametrize(
    ("start", "end"),
    [("fork", "ends"), ("spawn", "ends"), ("forkserver", "ends"), ("fork", "killed")],
)
def test_a_worker_logs_the_hits_it_plays_for_the_test_that_started_it(
    forker: Forker, answers: Path, tmp_path: Path, start: str, end: str
) -> None:
    done = run_workers(forker, answers, tmp_path, start, end)
    assert (done.returncode, done.stderr) == (0, "")
    fixtures = FixtureStore.open(tmp_path / "s.jsonl")
    key = {f.request["body"]["messages"][0]["content"]: f.key for f in fixtures}
    logged = sorted((h.test, h.run, h.store, h.key) for h in hits.read_hits(tmp_path / "hits"))
    assert logged == [
        ("tests/test_w.py::test_one", "run-1", "s.jsonl", key["first"]),
        ("tests/test_w.py::test_two", "run-1", "s.jsonl", key["second"]),
    ]


@pytest.mark.slow  # fresh interpreters
def test_a_worker_that_cannot_write_its_hits_says_so_and_replays_on(
    forker: Forker, answers: Path, tmp_path: Path
) -> None:
    (tmp_path / "hits").write_text("")  # a file where the log's folder goes
    done = run_workers(forker, answers, tmp_path, "fork", "ends")
    assert done.returncode == 0
    assert done.stderr == 2 * (
        "replaygate: cannot write the hits log: hits: File exists; patrol and prune do not "
        "see the fixtures this worker replayed\n"
    )  # once by each worker


IN_A_TEST = f"""
import multiprocessing
KEY = {KEY!r}
{ASK}

def test_asks_in_a_worker():
    worker = multiprocessing.get_context("spawn").Process(target=ask, args=("hi", STORE))
    worker.start()
    worker.join()
    assert worker.exitcode == 0
"""


@pytest.mark.slow  # a pytest session of its own, and a spawn worker
def test_patrol_counts_what_a_spawn_worker_of_a_test_played(pytester: pytest.Pytester) -> None:
    store = pytester.path / "tests" / "fixtures" / "worker.jsonl"
    record(store, "hi")
    pytester.makepyfile(test_worker=IN_A_TEST.replace("STORE", repr(str(store))))
    pytester.runpytest().assert_outcomes(passed=1)
    hits_dir = pytester.path / ".replaygate" / "hits"
    (row,) = patrol(store, runs=1, refs=[], hits_dir=hits_dir).rows
    assert (row.plays, row.tests) == (1, ("test_worker.py::test_asks_in_a_worker",))
