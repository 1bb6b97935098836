"""A Ctrl-C or SIGTERM that lands while ``record`` builds the SDK's HTTP client ends the
command with its one ``Interrupted:`` line: the client is built whole (the signal waits
for it) and closed, so no finalizer of a half-built client prints "Exception ignored"."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from interrupting import TESTS, ended_interrupted
from replaygate.cli.interrupts import interrupted

pytestmark = pytest.mark.slow  # a process of its own, signalled

SIGNAL_WHILE_BUILT = """
import os, signal, time
import anthropic._base_client as sdk
base = sdk.SyncHttpxClientWrapper.__mro__[1]
built = base.__init__
def init(self, *args, **kwargs):
    os.kill(os.getpid(), signal.SIG{name})  # as `timeout` or a terminal's Ctrl-C sends it
    time.sleep(0.05)
    return built(self, *args, **kwargs)
base.__init__ = init
from replaygate.cli import main
main(prog_name="replaygate")
"""


@pytest.mark.parametrize("name", ["TERM", "INT"])
def test_a_signal_while_the_client_is_built_ends_in_one_line(tmp_path: Path, name: str) -> None:
    store = tmp_path / "fold"
    done = subprocess.run(
        [sys.executable, "-c", SIGNAL_WHILE_BUILT.format(name=name), "record", "--agent",
         "replaygate.examples.research_copilot:copilot", "--fixtures", str(store),
         "--approve-live", "--simulator", "What is RAG?"],
        capture_output=True, text=True, timeout=60, cwd=TESTS,
    )  # fmt: skip
    assert ended_interrupted(done.returncode, done.stderr, interrupted("record")), done.stderr
    assert "Exception ignored" not in done.stderr
    assert not store.exists()
