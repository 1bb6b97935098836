"""``replaygate ARGS`` run in this process, answered like a finished process.

The command line is a thin click layer over the library; starting a Python process
for each call only adds the interpreter and the SDK imports. ``replaygate(...)`` runs
the same ``main`` through click's test runner and returns ``returncode``, ``stdout``
and ``stderr`` as ``subprocess.run`` would. An exception that escapes a command is
printed to ``stderr`` as its traceback, with exit code 1, as the interpreter does,
so a test that asserts "no traceback" still sees one. A few tests in test_cli.py
still start the installed entry point in a real process.
"""

from __future__ import annotations

import os
import traceback
from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner

from replaygate.cli import main


@dataclass(frozen=True)
class Done:
    """What a finished ``replaygate`` process would have given back."""

    args: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str


def replaygate(
    *args: str, env: dict[str, str] | None = None, cwd: str | Path | None = None
) -> Done:
    """Run ``replaygate ARGS`` in process, with ``env`` added to the environment."""
    before = Path.cwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        result = CliRunner().invoke(main, list(args), env=env, prog_name="replaygate")
    finally:
        os.chdir(before)
    stderr, code = result.stderr, result.exit_code
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        stderr += "".join(traceback.format_exception(*result.exc_info))
        code = 1
    return Done(tuple(args), code, result.stdout, stderr)
