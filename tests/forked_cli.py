"""``python -m replaygate ARGS`` in processes forked from one interpreter that imported the
command line once.

A test about what only a process shows (how it ends on a signal, what its interpreter
does as it exits with its streams gone) needs one, not the 0.3 s of CPU a fresh
interpreter spends importing the command line each time. :class:`Forker` starts one
interpreter that imports the modules named, then forks a process per command: each sets
up its streams, folder, environment and session, runs ``replaygate`` as ``python -m
replaygate`` does (or ``python -c CODE``) and ends as that process would end (its exit
status, its interpreter's exit). A test about what happens as the interpreter starts
still starts one.
"""

from __future__ import annotations

import json
import os
import select
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

SERVER = """
import gc, io, json, os, runpy, signal, socket, sys
signal.signal(signal.SIGINT, signal.default_int_handler)  # as an interpreter starts

def stdio(fd, old):
    # the stream an interpreter starting with the file descriptor fd would make
    write = fd > 0
    buffered = not write or not old.write_through  # python -u, PYTHONUNBUFFERED
    raw = io.FileIO(fd, "wb" if write else "rb", closefd=False)
    layer = (io.BufferedWriter if write else io.BufferedReader)(raw) if buffered else raw
    stream = io.TextIOWrapper(
        layer, old.encoding, old.errors, "\\n",
        line_buffering=buffered and (fd == 2 or raw.isatty()), write_through=not buffered,
    )
    stream.mode = "w" if write else "r"
    return stream

requests = socket.socket(fileno=int(sys.argv[1]))
gc.disable()  # what the imports make lives on: collections in between only walked it
for name in sys.argv[2:]:
    if name == "--gc-freeze":  # what was imported, shared with the forks, never walked in them
        gc.freeze()
    else:
        __import__(name)
if "--gc-freeze" not in sys.argv:
    gc.collect()  # the forks' youngest generation starts empty, as after the usual collections
gc.enable()
while True:
    message, fds, _, _ = socket.recv_fds(requests, 1 << 16, 4)
    if not message:
        break  # the tests are done
    reply, streams = fds[0], fds[1:]
    if os.fork() == 0:  # waits for the command and says how it ended
        requests.close()
        command = os.fork()
        if command == 0:  # ends as `python -m replaygate ARGS` (or `python -c CODE`) ends
            os.close(reply)
            for target, fd in enumerate(streams):
                os.dup2(fd, target)
            sys.stdin = sys.__stdin__ = stdio(0, sys.stdin)
            sys.stdout = sys.__stdout__ = stdio(1, sys.stdout)
            sys.stderr = sys.__stderr__ = stdio(2, sys.stderr)
            request = json.loads(message)
            if request["session"]:
                os.setsid()
            # the folder and environment as bytes (sent as Latin-1), as subprocess gives
            # them: in an ASCII locale a name beyond it cannot be encoded from its text
            os.chdir(request["cwd"].encode("latin-1"))
            if request["env"] is not None:
                os.environb.clear()
                os.environb.update(
                    (k.encode("latin-1"), v.encode("latin-1")) for k, v in request["env"]
                )
                sys.path[1:1] = [p for p in os.environ.get("PYTHONPATH", "").split(":") if p]
            sys.argv[1:] = request["args"]
            if request["code"] is None:
                runpy.run_module("replaygate", run_name="__main__", alter_sys=True)
            else:
                exec(compile(request["code"], "<string>", "exec"), {"__name__": "__main__"})
            sys.exit(0)
        os.write(reply, f"{command}\\n".encode())
        _, status = os.waitpid(command, 0)
        os.write(reply, f"{os.waitstatus_to_exitcode(status)}\\n".encode())
        os._exit(0)
    for fd in fds:
        os.close(fd)
    try:  # the waiters that are done
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        pass
try:  # every waiter, so that its command's time is its parent's too
    while True:
        os.wait()
except ChildProcessError:
    pass
"""


CLI_PRELOAD = [
    "asyncio.base_events",  # what a command's network block imports (network.BLOCK_IMPORTS)
    "replaygate.cli",
    "replaygate.cli.compact_cmd",
    "replaygate.cli.eval_cmds",
    "replaygate.cli.json_docs",
    "replaygate.cli.replay_cmds",
    "replaygate.cli.verify_cmd",
    "replaygate.sim.cli",
]
"""What the interpreter the suite's ``replaygate`` commands are forked from imports (the
``forker`` fixture of tests/conftest.py): the command line and its commands, and what the
network block of a replaying command imports as it begins (about 15 ms of CPU a command),
none of the SDKs nor the plotting library."""


ASCII_LOCALE = {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0"}
"""The environment of an ASCII locale: Python's file system encoding and its streams'
are ASCII, a name beyond it held as the surrogates of its bytes."""

ASCII_PRELOAD = [
    "replaygate.cli",
    "replaygate.cli.diff_cmd",
    "replaygate.cli.hygiene_cmds",
    "replaygate.evals",
    "replaygate.evals.git",
    "replaygate.fixtures.hits",
    "replaygate.fixtures.store",
    "replaygate.http",
    "replaygate.hygiene.gitrev",
]
"""What the interpreter the tests' processes in an :data:`ASCII_LOCALE` are forked from
imports (the ``ascii_forker`` fixture of tests/conftest.py)."""


def _raw(text: str | Path) -> str:
    """``text`` as the bytes this process's file system encoding gives it, sent as Latin-1
    (:data:`SERVER` takes them back so)."""
    return os.fsencode(text).decode("latin-1")


class Forked:
    """A command's process forked by :class:`Forker`: its id and, once it ended, its exit
    status (``-N`` for signal N, as :mod:`subprocess` gives it)."""

    def __init__(self, answer: socket.socket) -> None:
        self._answer, self._said = answer, b""
        self.returncode: int | None = None
        self.pid = int(self._line(60))

    def _line(self, timeout: float | None) -> str:
        """The next line the waiter says, waiting at most ``timeout`` seconds (None: not
        at all, ``""`` when there is none yet)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self._said:
            left = 0.0 if deadline is None else max(0.0, deadline - time.monotonic())
            if not select.select([self._answer], [], [], left)[0]:
                if deadline is None:
                    return ""
                raise TimeoutError(f"the process {getattr(self, 'pid', '')} did not end in time")
            chunk = self._answer.recv(64)
            if not chunk:
                raise EOFError("the process's waiter ended without saying how it ended")
            self._said += chunk
        line, _, self._said = self._said.partition(b"\n")
        return line.decode()

    def poll(self) -> int | None:
        """The exit status if the process ended, else None."""
        if self.returncode is None:
            said = self._line(None)
            self.returncode = int(said) if said else None
        return self.returncode

    def wait(self, timeout: float) -> int:
        """The exit status, once the process ended (:class:`TimeoutError` after
        ``timeout`` seconds)."""
        if self.returncode is None:
            self.returncode = int(self._line(timeout))
            self._answer.close()
        return self.returncode


class Forker:
    """The interpreter the commands are forked from (:data:`SERVER`), importing
    ``preload`` once.

    With ``freeze``, what it imported is then frozen out of the garbage collector's reach
    (``gc.freeze``, as Python's documentation advises before forking): the collections of
    each forked process, and those of its interpreter's exit, no longer walk all of it
    (an SDK's objects: about 0.3 s of CPU a process). What a process makes after the fork
    is collected as before.

    The garbage collector is off while it imports: the collections in between walked the
    modules' objects again and again (about 0.4 s of CPU for anthropic's). Without
    ``freeze`` one collection follows, as the forks' would have.
    """

    def __init__(
        self, preload: list[str], *, freeze: bool = False, env: Mapping[str, str] | None = None
    ) -> None:
        """``env``: the interpreter's environment (None: this process's), which sets what
        it takes from it as it starts (its locale's encodings, say) for every command."""
        self._requests, theirs = socket.socketpair()
        frozen = ["--gc-freeze"] if freeze else []
        with theirs:
            self._server = subprocess.Popen(
                [sys.executable, "-c", SERVER, str(theirs.fileno()), *preload, *frozen],
                pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL, env=env,
            )  # fmt: skip

    def start(
        self,
        args: list[str],
        *,
        stdout: int,
        stderr: int,
        cwd: Path,
        env: Mapping[str, str] | None = None,
        session: bool = False,
        code: str | None = None,
        stdin: int | None = None,
    ) -> Forked:
        """Start ``python -m replaygate ARGS`` (with ``code``: ``python -c CODE ARGS``) in
        ``cwd`` with the file descriptors ``stdout`` and ``stderr``, and ``stdin`` (None:
        ``/dev/null``), the environment ``env`` (None: the forking interpreter's), in a
        session of its own with ``session``."""
        answer, reply = socket.socketpair()
        given = None if env is None else [(_raw(k), _raw(v)) for k, v in env.items()]
        request = {"args": args, "cwd": _raw(cwd), "env": given, "session": session, "code": code}
        with reply, open(os.devnull, "rb") as null:
            given = null.fileno() if stdin is None else stdin
            fds = [reply.fileno(), given, stdout, stderr]
            socket.send_fds(self._requests, [json.dumps(request).encode()], fds)
        return Forked(answer)

    def run(self, args: list[str], *, stdout: int, stderr: int, cwd: Path) -> int:
        """The exit status of ``python -m replaygate ARGS`` (see :meth:`start`)."""
        return self.start(args, stdout=stdout, stderr=stderr, cwd=cwd).wait(60)

    def capture(
        self,
        args: list[str],
        *,
        cwd: Path,
        env: Mapping[str, str] | None = None,
        code: str | None = None,
    ) -> subprocess.CompletedProcess[bytes]:
        """``python -m replaygate ARGS`` (with ``code``: ``python -c CODE ARGS``) run in
        ``cwd`` with the environment ``env`` (None: the forking interpreter's), as
        :func:`subprocess.run` with ``capture_output`` gives it: its exit status, stdout
        and stderr."""
        with tempfile.TemporaryFile() as stdout, tempfile.TemporaryFile() as stderr:
            status = self.start(
                args, stdout=stdout.fileno(), stderr=stderr.fileno(), cwd=cwd, env=env, code=code
            ).wait(60)
            stdout.seek(0)
            stderr.seek(0)
            said = stdout.read(), stderr.read()
        return subprocess.CompletedProcess(["python", *args], status, *said)

    def close(self) -> None:
        """End the interpreter (it ends as the tests' end of its socket closes)."""
        self._requests.close()
        self._server.wait(timeout=60)
