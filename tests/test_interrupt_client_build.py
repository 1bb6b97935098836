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

pytestmark = pytest.mark.slow  # processes of their own, signalled

SIGNALS = ("TERM", "INT")

SIGNAL_WHILE_BUILT = """
import os, signal, sys, time
signal.signal(signal.SIGINT, signal.default_int_handler)  # even started with it ignored (&)
import gc
import anthropic._base_client as sdk
from replaygate.cli import main
import replaygate.cli.live, replaygate.cli.replay_cmds, replaygate.examples.research_copilot
import replaygate.sim  # what `record --simulator` imports, imported once for the forks
gc.freeze()  # what was imported is shared with the forks, not walked again as each ends
base = sdk.SyncHttpxClientWrapper.__mro__[1]
built = base.__init__
folder, *names = sys.argv[1:]
for name in names:
    sys.stdout.flush()
    sys.stderr.flush()
    command = os.fork()
    if command == 0:  # the command's process: it ends as the command ends it
        os.dup2(os.open(f"{folder}/{name}.stderr", os.O_WRONLY | os.O_CREAT), 2)
        def init(self, *args, **kwargs):
            os.kill(os.getpid(), getattr(signal, f"SIG{name}"))  # as `timeout` or Ctrl-C sends it
            time.sleep(0.05)
            return built(self, *args, **kwargs)
        base.__init__ = init
        sys.argv[1:] = ["record", "--agent", "replaygate.examples.research_copilot:copilot",
                        "--fixtures", f"{folder}/{name}", "--approve-live", "--simulator",
                        "What is RAG?"]
        main(prog_name="replaygate")
    _, status = os.waitpid(command, 0)
    with open(f"{folder}/{name}.status", "w") as out:
        out.write(str(os.waitstatus_to_exitcode(status)))
"""
"""One interpreter that imports the SDK and the command line once, then forks one process
per signal: each runs ``replaygate record`` to its end as a process started for it would
(its exit status, its stderr, the interpreter's exit), with the signal sent while the
SDK's HTTP client is built. What the parent imported is frozen out of the garbage
collector's reach before it forks (``gc.freeze``, as Python's documentation advises for a
fork): the exit of each fork walked all of the SDK again (about 0.6 s of CPU each), where
what the fork builds (the client half-built, whose finalizer is the point) is collected
as before."""


@pytest.fixture(scope="module")
def signalled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder with each signal's ``NAME.status``, ``NAME.stderr`` and store ``NAME``."""
    folder = tmp_path_factory.mktemp("signalled")
    subprocess.run(
        [sys.executable, "-c", SIGNAL_WHILE_BUILT, str(folder), *SIGNALS],
        capture_output=True, timeout=60, cwd=TESTS, check=True,
    )  # fmt: skip
    return folder


@pytest.mark.parametrize("name", SIGNALS)
def test_a_signal_while_the_client_is_built_ends_in_one_line(signalled: Path, name: str) -> None:
    status = int((signalled / f"{name}.status").read_text())
    stderr = (signalled / f"{name}.stderr").read_text()
    assert ended_interrupted(status, stderr, interrupted("record")), stderr
    assert "Exception ignored" not in stderr
    assert not (signalled / name).exists()
