"""pytest-xdist's workers, for the nested sessions whose controller runs in the test's own
process, forked from one interpreter that loaded pytest, its installed plugins and
replaygate's modules once (tests/forked_cli.py, tests/pytest_preloaded.py).

A worker started as xdist starts it (``python -u -c BOOTSTRAP``, execnet's popen gateway)
spends about 0.6 s of CPU importing them before its session starts, each time. A forked
one is a process of its own all the same: its own pid, stores and hits logs, its exit
status; talking to the controller over the pipes execnet reads and writes, in the folder
and with the environment the controller has as it starts the worker. The plugins were
imported with their asserts rewritten, as a worker's session imports them, and no session
ran in the interpreter forked from.
"""

from __future__ import annotations

import atexit
import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import execnet.gateway_io
import pytest
from execnet.gateway_base import ExecModel

from forked_cli import Forker
from nested_pytest import PLUGIN_IMPORTS

PRELOAD = [
    "pytest_preloaded",
    *PLUGIN_IMPORTS,
    "execnet.gateway_base",
    "httpcore2",
    "multiprocessing.context",
    "replaygate.assertions.checks",
    "replaygate.examples.research_copilot",
    "replaygate.pytest_plugin.rootdirs",
    "xdist.remote",
    # what else each ``pytest`` process of tests/test_pytest_coexist.py imports as its
    # session runs: the seams replaygate binds the clients' sending through, vcrpy's stubs
    "replaygate.http.seams.aiohttp_session",
    "replaygate.http.seams.httpx_send",
    "replaygate.http.seams.requests_session",
    "vcr.stubs.aiohttp_stubs",
    "vcr.stubs.urllib3_stubs",
]
"""What a worker imports as its session runs: pytest, its plugins and replaygate's modules,
and what the generated projects' tests import (the example agent, the assertions); and
what a ``pytest`` process forked by :func:`preloaded_forker` imports as its session runs."""


_forker: Forker | None = None


def preloaded_forker() -> Forker:
    """The interpreter this process forks ``pytest`` processes and xdist's workers from,
    importing :data:`PRELOAD` (about 1 s of CPU) once for the whole session, started as
    first asked; it ends as this process exits, once every process forked from it ended,
    so that their CPU counts as that of this process's children. Each process forked from
    it is one of its own, in which no session ran before."""
    global _forker
    if _forker is None:
        tests = str(Path(__file__).parent)
        with pytest.MonkeyPatch.context() as patch:
            parts = [tests, os.getenv("PYTHONPATH")]
            patch.setenv("PYTHONPATH", os.pathsep.join(filter(None, parts)))
            _forker = Forker(PRELOAD, freeze=True)
        atexit.register(_forker.close)
    return _forker


class _ForkedWorker:
    """The process of a worker forked by :class:`WorkerForker`, as execnet uses a
    :class:`subprocess.Popen`: its pipes, its exit status, and ``kill``."""

    def __init__(self, forker: Forker) -> None:
        to_worker, self._stdin = os.pipe()
        self._stdout, from_worker = os.pipe()
        try:
            self._process = forker.start(
                [],
                stdout=from_worker,
                stderr=2,
                cwd=Path.cwd(),
                env=dict(os.environ),
                code=execnet.gateway_io.popen_bootstrapline,
                stdin=to_worker,
            )
        finally:
            os.close(to_worker)
            os.close(from_worker)
        self.pid = self._process.pid
        self.stdin: IO[bytes] = os.fdopen(self._stdin, "wb", 0)
        self.stdout: IO[bytes] = os.fdopen(self._stdout, "rb", 0)

    @property
    def returncode(self) -> int | None:
        return self._process.returncode

    def poll(self) -> int | None:
        return self._process.poll()

    def wait(self, timeout: float | None = None) -> int:
        return self._process.wait(120 if timeout is None else timeout)

    def kill(self) -> None:
        if self.poll() is None:
            os.kill(self.pid, signal.SIGKILL)


class _ForkedIO(execnet.gateway_io.Popen2IOMaster):
    """execnet's end of a popen gateway whose process is a :class:`_ForkedWorker`."""

    def __init__(self, forker: Forker, execmodel: ExecModel) -> None:
        self.popen = worker = _ForkedWorker(forker)  # type: ignore[assignment]
        execnet.gateway_io.Popen2IO.__init__(self, worker.stdin, worker.stdout, execmodel)


@contextmanager
def workers_forked() -> Iterator[None]:
    """While in the block, the workers of the nested sessions this process controls are
    forked (popen gateways started from this interpreter) from :func:`preloaded_forker`."""
    started = execnet.gateway_io.create_io
    forker = preloaded_forker()

    def create_io(spec: execnet.XSpec, execmodel: ExecModel) -> Any:
        if spec.popen and not spec.python and not spec.via:
            return _ForkedIO(forker, execmodel)
        return started(spec, execmodel)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(execnet.gateway_io, "create_io", create_io)
        yield
