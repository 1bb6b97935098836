"""Interrupting a real ``replaygate`` process: Ctrl-C as a terminal sends it, SIGTERM as
``timeout`` sends it, and how an interrupted command must end."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

TESTS = Path(__file__).parent


def press_ctrl_c(session: int) -> None:
    """Ctrl-C as a terminal presses it: SIGINT to every process of the session."""
    os.killpg(session, signal.SIGINT)


def terminate_alone(session: int) -> None:
    """SIGTERM to the command alone (its process leads its session), as ``timeout`` sends."""
    os.kill(session, signal.SIGTERM)


def _hears_ctrl_c() -> None:
    """In the command's process before it starts: SIGINT as a terminal's commands get it,
    even where the tests run with it ignored (started with ``nohup`` or ``&`` from a
    script, which a process inherits and Python keeps)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def ctrl_c(
    args: list[str],
    ready: Callable[[], bool],
    then: Callable[[int], None],
    env: dict[str, str],
    press: Callable[[int], None] = press_ctrl_c,
    before: str | None = None,
) -> tuple[int, str]:
    """Start ``replaygate ARGS`` in a session of its own, wait until ``ready()``,
    ``press(session)`` (Ctrl-C by default), call ``then(session)``, and return its exit
    status and stderr once every process that holds its stderr (the command, the fork
    server, the eval processes) has ended. ``before``: Python run in the process first
    (the command then runs as ``python -c``, not through its entry point).

    A command that does not stop in time is ended with all its processes and fails the
    test, instead of it waiting forever.
    """
    if before is None:
        command = [str(Path(sys.executable).parent / "replaygate"), *args]
    else:
        main = "from replaygate.cli import main; main(prog_name='replaygate')"
        command = [sys.executable, "-c", f"{before}\n{main}", *args]
    with subprocess.Popen(
        command, env={**os.environ, "PYTHONPATH": str(TESTS), **env}, stderr=subprocess.PIPE,
        text=True, start_new_session=True, preexec_fn=_hears_ctrl_c,
    ) as parent:  # fmt: skip
        try:
            deadline = time.monotonic() + 60
            while not ready():
                assert parent.poll() is None and time.monotonic() < deadline, parent.stderr
                time.sleep(0.02)
            press(parent.pid)
            then(parent.pid)
            _, stderr = parent.communicate(timeout=30)
        except BaseException:
            with contextlib.suppress(ProcessLookupError):  # all of them already gone
                os.killpg(parent.pid, signal.SIGKILL)
            raise
    return parent.returncode, stderr


def ended_interrupted(status: int, stderr: str, line: str) -> bool:
    """Whether the command ended as Ctrl-C ends it: status 130, ``line`` last and once,
    no traceback."""
    return (
        status == 130
        and stderr.splitlines()[-1:] == [line]
        and stderr.count(line) == 1
        and "Traceback" not in stderr
    )
