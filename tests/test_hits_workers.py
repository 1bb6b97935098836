"""The hits a ``multiprocessing`` worker plays are logged, whatever its start method.

A ``fork`` worker inherits its parent's hits log; a ``spawn`` or ``forkserver`` worker
starts a fresh interpreter, where logging was off, so the fixtures it replayed were never
logged and ``patrol`` reported them unused. Each hit is logged for the test that started
the worker: a ``forkserver`` worker's environment is the server's, which an earlier test
started, so ``$PYTEST_CURRENT_TEST`` there names the wrong test.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from replaygate.fixtures import hits
from replaygate.fixtures.store import FixtureStore

WORKERS = """
import multiprocessing, os, sys
import openai, replaygate.http
from replaygate.fixtures import hits
from replaygate.sim import Simulator

def ask(base_url, question, mode="replay"):
    http = replaygate.http.httpx2_client("s.jsonl", mode, approve_live=mode != "replay")
    with openai.OpenAI(api_key="k", base_url=base_url, http_client=http) as client:
        asked = [{"role": "user", "content": question}]
        client.chat.completions.create(model="gpt-sim-1", messages=asked)

if __name__ == "__main__":
    with Simulator(behavior="echo") as sim:
        for question in ("first", "second"):
            ask(sim.openai_base_url, question, "record-missing")
    hits.enable("hits", run="run-1", root=os.getcwd())
    context = multiprocessing.get_context(sys.argv[1])
    for test, question in (("test_one", "first"), ("test_two", "second")):
        os.environ["PYTEST_CURRENT_TEST"] = f"tests/test_w.py::{test} (call)"
        worker = context.Process(target=ask, args=("http://sim.invalid/v1", question))
        worker.start()
        worker.join()
        if worker.exitcode:
            sys.exit(worker.exitcode)
"""


@pytest.mark.slow  # fresh interpreters
@pytest.mark.parametrize("start", ["fork", "spawn", "forkserver"])
def test_a_worker_logs_the_hits_it_plays_for_the_test_that_started_it(
    tmp_path: Path, start: str
) -> None:
    (tmp_path / "workers.py").write_text(WORKERS)
    done = subprocess.run(
        [sys.executable, "workers.py", start], cwd=tmp_path, capture_output=True, text=True
    )
    assert (done.returncode, done.stderr) == (0, "")
    fixtures = FixtureStore.open(tmp_path / "s.jsonl")
    key = {f.request["body"]["messages"][0]["content"]: f.key for f in fixtures}
    logged = sorted((h.test, h.run, h.store, h.key) for h in hits.read_hits(tmp_path / "hits"))
    assert logged == [
        ("tests/test_w.py::test_one", "run-1", "s.jsonl", key["first"]),
        ("tests/test_w.py::test_two", "run-1", "s.jsonl", key["second"]),
    ]
