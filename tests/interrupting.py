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

from forked_cli import Forked, Forker

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


ENTRY_POINT = str(Path(sys.executable).parent / "replaygate")
"""The console script ``replaygate``."""


def ctrl_c(
    args: list[str],
    ready: Callable[[], bool],
    then: Callable[[int], None],
    env: dict[str, str],
    press: Callable[[int], None] = press_ctrl_c,
    before: str | None = None,
    forker: Forker | None = None,
) -> tuple[int, str]:
    """Start ``replaygate ARGS`` in a session of its own, wait until ``ready()``,
    ``press(session)`` (Ctrl-C by default), call ``then(session)``, and return its exit
    status and stderr once every process that holds its stderr (the command, the fork
    server, the eval processes) has ended. ``before``: Python run in the process first
    (the command then runs as ``python -c``, not through its entry point). ``forker``:
    the process is forked from it (tests/forked_cli.py), not a fresh interpreter.

    A command that does not stop in time is ended with all its processes and fails the
    test, instead of it waiting forever.
    """
    environment = {**os.environ, "PYTHONPATH": str(TESTS), **env}
    if forker is not None:
        return _forked_ctrl_c(forker, args, ready, then, environment, press, before)
    if before is None:
        command = [ENTRY_POINT, *args]
    else:
        command = [sys.executable, "-c", f"{before}\n{MAIN}", *args]
    with subprocess.Popen(
        command, env=environment, stderr=subprocess.PIPE, text=True, start_new_session=True,
        preexec_fn=_hears_ctrl_c,
    ) as parent:  # fmt: skip
        try:
            _press_when_ready(parent, ready, then, press)
            _, stderr = parent.communicate(timeout=30)
        except BaseException:
            _kill_session(parent.pid)
            raise
    return parent.returncode, stderr


MAIN = "from replaygate.cli import main; main(prog_name='replaygate')"
"""The command line as ``ctrl_c`` runs it after Python of its own."""


def _press_when_ready(
    process: subprocess.Popen[str] | Forked,
    ready: Callable[[], bool],
    then: Callable[[int], None],
    press: Callable[[int], None],
) -> None:
    deadline = time.monotonic() + 60
    while not ready():
        assert process.poll() is None and time.monotonic() < deadline, "ended or not ready"
        time.sleep(0.02)
    press(process.pid)
    then(process.pid)


def _kill_session(session: int) -> None:
    with contextlib.suppress(ProcessLookupError):  # all of them already gone
        os.killpg(session, signal.SIGKILL)


def _forked_ctrl_c(
    forker: Forker,
    args: list[str],
    ready: Callable[[], bool],
    then: Callable[[int], None],
    env: dict[str, str],
    press: Callable[[int], None],
    before: str | None,
) -> tuple[int, str]:
    """:func:`ctrl_c` for a process forked from ``forker``."""
    script = f"import sys\nsys.argv[0] = {ENTRY_POINT!r}\nfrom replaygate.cli import run\nrun()"
    code = script if before is None else f"{before}\n{MAIN}"
    read, write = os.pipe()
    with open(read, encoding="utf-8") as stderr:
        with open(write, "wb") as held:
            process = forker.start(
                args, stdout=1, stderr=held.fileno(), cwd=Path.cwd(), env=env,
                session=True, code=code,
            )  # fmt: skip
        try:
            _press_when_ready(process, ready, then, press)
            status = process.wait(30)
            return status, stderr.read()  # once every process holding it has ended
        except BaseException:
            _kill_session(process.pid)
            if process.returncode is None:
                raise
            said = stderr.read()
            raise AssertionError(f"it ended ({process.returncode}) before: {said}") from None


def ended_interrupted(status: int, stderr: str, line: str) -> bool:
    """Whether the command ended as Ctrl-C ends it: status 130, ``line`` last and once,
    no traceback."""
    return (
        status == 130
        and stderr.splitlines()[-1:] == [line]
        and stderr.count(line) == 1
        and "Traceback" not in stderr
    )
