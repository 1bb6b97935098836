"""Work a process does as it ends, in a ``multiprocessing`` worker too.

A ``fork`` or ``forkserver`` worker ends with ``os._exit``: the interpreter's exit
handlers (:mod:`atexit`), which write what a process left unwritten, never run there.
:func:`as_worker_ends` has ``multiprocessing`` run such a handler as its worker ends.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

_REGISTERED: set[tuple[int, Callable[[], None]]] = set()
"""The handlers registered, with the process each was registered in."""


def in_worker() -> bool:
    """Whether this process is a ``multiprocessing`` worker."""
    process = sys.modules.get("multiprocessing.process")
    return process is not None and process.parent_process() is not None


def as_worker_ends(handler: Callable[[], None]) -> None:
    """Run ``handler`` as this process ends when it is a ``multiprocessing`` worker, once
    however often it is asked; nothing elsewhere. A ``spawn`` worker runs its exit
    handlers as well, so ``handler`` must do nothing the second time."""
    if not in_worker():
        return
    entry = (os.getpid(), handler)
    if entry in _REGISTERED:
        return
    from multiprocessing.util import Finalize

    _REGISTERED.add(entry)
    Finalize(None, handler, exitpriority=10)
