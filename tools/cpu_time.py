"""Run a command and print its wall time and the CPU time of every process it started.

Usage: ``python3 tools/cpu_time.py COMMAND [ARG...]`` (Linux). The command runs as a
child subreaper, so processes whose parent did not wait for them (a fork server, a
daemonised helper) are reaped here and their CPU counted too, where ``/usr/bin/time``
would miss them. Prints one line to stderr and exits with the command's status.
"""

from __future__ import annotations

import ctypes
import os
import resource
import subprocess
import sys
import time

PR_SET_CHILD_SUBREAPER = 36


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    started = time.monotonic()
    status = subprocess.call(argv)
    while True:  # the orphans the command left, reparented to this process
        try:
            os.wait()
        except ChildProcessError:
            break
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(
        f"{time.monotonic() - started:.2f} s wall, {used.ru_utime:.2f} s user, "
        f"{used.ru_stime:.2f} s sys",
        file=sys.stderr,
    )
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
