"""``record`` interrupted: a Ctrl-C or SIGTERM that lands while it builds the SDK's HTTP
client ends the command with its one ``Interrupted:`` line (the client is built whole,
the signal waiting for it, and closed, so no finalizer of a half-built client prints
"Exception ignored"), and one that lands between recordings keeps what was recorded.

Each command runs in a process of its own, forked from one interpreter that imported the
SDK and the command line once (``forker``): importing the SDK costs about 1.4 s of CPU.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from forked_cli import Forker
from interrupting import TESTS, ctrl_c, ended_interrupted, terminate_alone
from replaygate.cli.interrupts import interrupted
from run_cli import replaygate

pytestmark = pytest.mark.slow  # processes of their own, signalled

PRELOADED = [
    "anthropic._base_client",
    "httpcore2",
    "replaygate.cli.live",
    "replaygate.cli.replay_cmds",
    "replaygate.examples.research_copilot",
    "replaygate.sim.server",
]
"""What ``record --simulator`` imports (its client's connection pool, the simulator's
server), imported before the tests fork its processes."""


@pytest.fixture(scope="module")
def forker() -> Iterator[Forker]:
    """The interpreter the commands' processes are forked from, what it imported frozen
    out of the collector's reach: the exit of each process walked all of the SDK again
    (about 0.6 s of CPU each), where what the process builds (the client half-built, whose
    finalizer is the point) is collected as before."""
    forker = Forker(PRELOADED, freeze=True)
    yield forker
    forker.close()


SIGNAL_WHILE_BUILT = """
import os, signal, time
import anthropic._base_client as sdk
from replaygate.cli import main
base = sdk.SyncHttpxClientWrapper.__mro__[1]
built = base.__init__
def init(self, *args, **kwargs):
    os.kill(os.getpid(), getattr(signal, os.environ["SIGNAL"]))  # as `timeout` or Ctrl-C sends it
    time.sleep(0.05)
    return built(self, *args, **kwargs)
base.__init__ = init
main(prog_name="replaygate")
"""
"""``replaygate ARGS`` sent the signal ``$SIGNAL`` while the SDK's HTTP client is built."""


@pytest.mark.parametrize("name", ["SIGTERM", "SIGINT"])
def test_a_signal_while_the_client_is_built_ends_in_one_line(
    forker: Forker, tmp_path: Path, name: str
) -> None:
    store, stderr = tmp_path / "fixtures.jsonl", tmp_path / "stderr"
    args = ["record", "--agent", "replaygate.examples.research_copilot:copilot",
            "--fixtures", str(store), "--approve-live", "--simulator", "What is RAG?"]  # fmt: skip
    with open(os.devnull, "wb") as out, stderr.open("wb") as err:
        env = {**os.environ, "SIGNAL": name}
        ended = forker.start(args, stdout=out.fileno(), stderr=err.fileno(), cwd=TESTS, env=env,
                             code=SIGNAL_WHILE_BUILT)  # fmt: skip
        status = ended.wait(60)
    said = stderr.read_text()
    assert ended_interrupted(status, said, interrupted("record")), said
    assert "Exception ignored" not in said
    assert not store.exists()


def nothing_more(session: int) -> None:
    """Press once only."""


def test_an_interrupted_recording_keeps_what_was_recorded(forker: Forker, tmp_path: Path) -> None:
    store = tmp_path / "fixtures.jsonl"
    waits = tmp_path / "waits"
    args = ["record", "--agent", "eval_job_agents:troubled", "--fixtures", str(store),
            "--approve-live", "--simulator", "What is RAG?", f"wait:{waits}"]  # fmt: skip
    status, stderr = ctrl_c(args, waits.exists, nothing_more, {}, terminate_alone, forker=forker)
    assert ended_interrupted(status, stderr, interrupted("record")), stderr
    assert replaygate("verify", str(store)).returncode == 0
    replayed = replaygate("run", "--agent", "eval_job_agents:troubled", "--fixtures",
                          str(store), "What is RAG?")  # fmt: skip
    assert replayed.returncode == 0, replayed.stderr
