"""Every way of starting replaygate runs one program (``replaygate.cli.run``): the console
script ``replaygate``, ``python -m replaygate`` and ``python -m replaygate.sim.cli``.

Each is started with its stdout a pipe whose reader has gone (``| head`` after its
fill), or closed (``>&-``): ``sim serve`` keeps serving, as docs/cli.md says, and a
SIGTERM ends it with exit status 0 and nothing on stderr. ``python -m replaygate.sim.cli``
ran the ``sim`` group by itself, without that handling, and ended with exit status 1 at
its first line.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # each test starts replaygate in a process of its own

ENTRY_POINTS = {
    "console script": [str(Path(sys.executable).with_name("replaygate")), "sim"],
    "python -m replaygate": [sys.executable, "-m", "replaygate", "sim"],
    "python -m replaygate.sim.cli": [sys.executable, "-m", "replaygate.sim.cli"],
}


def _free_port() -> int:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        return int(held.getsockname()[1])


def _answers(proc: subprocess.Popen[bytes], port: int, within: float) -> bool:
    """Whether ``proc`` answers HTTP on ``port`` within ``within`` seconds (no, as soon as
    it has ended)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as conn:
                conn.sendall(b"GET /v1/models HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                return conn.recv(12).startswith(b"HTTP/1.1")
        except OSError:
            time.sleep(0.05)
    return False


def _serves_and_stops(proc: subprocess.Popen[bytes], port: int) -> None:
    """``proc`` serves on ``port`` until a SIGTERM ends it with exit status 0, saying
    nothing."""
    try:
        serving = _answers(proc, port, within=30)
        ended = proc.poll()
    finally:
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=10)
    assert (serving, ended) == (True, None), (proc.returncode, stderr)
    assert (proc.returncode, stderr) == (0, b"")


@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
def test_sim_serve_keeps_serving_when_its_reader_leaves_however_started(entry: str) -> None:
    port = _free_port()
    read, write = os.pipe()
    os.close(read)
    with os.fdopen(write, "wb") as closed:
        proc = subprocess.Popen(
            [*ENTRY_POINTS[entry], "serve", "--port", str(port), "--behavior", "echo"],
            stdout=closed,
            stderr=subprocess.PIPE,
        )
    _serves_and_stops(proc, port)


def test_sim_serve_started_with_its_stdout_closed_serves() -> None:
    # ``replaygate sim serve >&-``: Python's sys.stdout is None, and serve ended in a
    # traceback (AttributeError) as it flushed it
    port = _free_port()
    serve = [*ENTRY_POINTS["python -m replaygate"], "serve", "--port", str(port)]
    proc = subprocess.Popen(
        ["sh", "-c", 'exec "$0" "$@" >&-', *serve, "--behavior", "echo"],
        stderr=subprocess.PIPE,
    )
    _serves_and_stops(proc, port)
