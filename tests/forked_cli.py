"""``python -m replaygate ARGS`` in processes forked from one interpreter that imported the
command line once.

A test about what only a process shows (how it ends, what its interpreter does as it
exits with its streams gone) needs one, not the 0.3 s of CPU a fresh interpreter spends
importing the command line each time. :class:`Forker` starts one interpreter that
imports the modules named, then forks a process per command: each sets up its streams
and folder, runs ``replaygate`` as ``python -m replaygate`` does and ends as that
process would end (its exit status, its interpreter's exit).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

SERVER = """
import json, os, runpy, socket, sys
requests = socket.socket(fileno=int(sys.argv[1]))
for name in sys.argv[2:]:
    __import__(name)
while True:
    message, fds, _, _ = socket.recv_fds(requests, 1 << 16, 4)
    if not message:
        break  # the tests are done
    reply, streams = fds[0], fds[1:]
    if os.fork() == 0:  # waits for the command and says how it ended
        requests.close()
        command = os.fork()
        if command == 0:  # ends as `python -m replaygate ARGS` ends
            os.close(reply)
            for target, fd in enumerate(streams):
                os.dup2(fd, target)
            request = json.loads(message)
            os.chdir(request["cwd"])
            sys.argv[1:] = request["args"]
            runpy.run_module("replaygate", run_name="__main__", alter_sys=True)
            sys.exit(0)
        _, status = os.waitpid(command, 0)
        os.write(reply, str(os.waitstatus_to_exitcode(status)).encode())
        os._exit(0)
    for fd in fds:
        os.close(fd)
    try:  # the waiters that are done
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        pass
"""


class Forker:
    """The interpreter the commands are forked from (:data:`SERVER`), importing
    ``preload`` once."""

    def __init__(self, preload: list[str]) -> None:
        self._requests, theirs = socket.socketpair()
        with theirs:
            self._server = subprocess.Popen(
                [sys.executable, "-c", SERVER, str(theirs.fileno()), *preload],
                pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL,
            )  # fmt: skip

    def run(self, args: list[str], *, stdout: int, stderr: int, cwd: Path) -> int:
        """The exit status of ``python -m replaygate ARGS`` run in ``cwd`` with the file
        descriptors ``stdout`` and ``stderr``, and stdin at ``/dev/null``."""
        answer, reply = socket.socketpair()
        with answer, open(os.devnull, "rb") as stdin:
            with reply:
                request = json.dumps({"args": args, "cwd": str(cwd)}).encode()
                fds = [reply.fileno(), stdin.fileno(), stdout, stderr]
                socket.send_fds(self._requests, [request], fds)
            answer.settimeout(60)
            said = b""
            while chunk := answer.recv(64):
                said += chunk
        return int(said)

    def close(self) -> None:
        """End the interpreter (it ends as the tests' end of its socket closes)."""
        self._requests.close()
        self._server.wait(timeout=60)
