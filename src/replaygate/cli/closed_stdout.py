"""Printing to a stdout whose reader went away (``replaygate eval | head -n 1``).

Such a write fails with a broken pipe (``EPIPE``). Where a command still has files to
write after its printing, :func:`printing` lets it go on: the rest of what it prints
goes nowhere, the files are written, and the command ends with its own exit status.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
from collections.abc import Iterator


def _discard_stdout() -> None:
    """Send what is still to be printed on stdout (and what its buffer holds) nowhere, so
    no later write or the flush at exit fails again."""
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, sys.stdout.fileno())
    finally:
        os.close(null)


@contextlib.contextmanager
def printing() -> Iterator[None]:
    """Inside the block, a write to a stdout whose reader has gone ends the block (not the
    command), and stdout prints nothing from then on."""
    try:
        yield
    except OSError as err:
        if err.errno != errno.EPIPE:
            raise
        _discard_stdout()
