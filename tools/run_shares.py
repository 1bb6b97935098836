"""Run the test suite as one pytest process per share of its modules, all at once.

``python tools/run_shares.py [--shares N] [PYTEST ARGS...]`` starts N pytest processes
(default 2, one per core of the machines the suite is kept within budget on), each
with the arguments given and ``--share I/N`` (``tests/shares.py``). Each process
collects and runs only its modules: against pytest-xdist's controller and workers,
which each collect every module and send every test's reports over a channel, the
suite costs several seconds of CPU less.

The first process prints as it runs; each other one's output follows when it ends. The
exit status is the first failing share's (1 tests failed, 2 interrupted, 3 internal
error, 4 usage error), 5 when no share ran a test, else 0.
"""

from __future__ import annotations

import argparse
import contextlib
import subprocess
import sys
import tempfile

NO_TESTS = 5
"""pytest's exit status when it collected no test (a share can hold none of a -k)."""


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False)  # the rest: pytest's
    parser.add_argument("--shares", type=int, default=2, help="how many processes (default 2)")
    options, pytest_args = parser.parse_known_args(argv)
    if options.shares < 1:
        parser.error("--shares must be at least 1")
    count = options.shares
    with contextlib.ExitStack() as stack:
        outputs = [stack.enter_context(tempfile.TemporaryFile()) for _ in range(count - 1)]
        processes = [
            subprocess.Popen(
                [sys.executable, "-m", "pytest", *pytest_args, f"--share={index}/{count}"],
                stdout=None if index == 0 else outputs[index - 1],
                stderr=None if index == 0 else subprocess.STDOUT,
            )
            for index in range(count)
        ]
        statuses = [_wait(process) for process in processes]
        for output in outputs:
            output.seek(0)
            sys.stdout.flush()
            sys.stdout.buffer.write(output.read())
    sys.stdout.flush()
    return exit_status(statuses)


def _wait(process: subprocess.Popen[bytes]) -> int:
    """The exit status of ``process``; a Ctrl-C reaches every process of the terminal's
    group, so after one the run waits for each to end as pytest ends on it."""
    while True:
        try:
            return process.wait()
        except KeyboardInterrupt:
            continue


def exit_status(statuses: list[int]) -> int:
    """The run's status from the shares' (see the module's docstring)."""
    failed = [status for status in statuses if status not in (0, NO_TESTS)]
    if failed:
        return failed[0]
    return NO_TESTS if all(status == NO_TESTS for status in statuses) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
