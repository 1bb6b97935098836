"""How replaygate's worker processes start: forked by a fork server where there is one.

``eval --jobs N`` and ``verify --jobs N`` start their workers from a fork server that
loaded the modules they run once, before it forks them (single-threaded, so a fork is
safe), where each spawned worker would start an interpreter and import them itself
(0.2 s of CPU for verify's checks, 1.4 s for the anthropic SDK a recording worker opens).
Where a platform has no fork server (Windows), workers are spawned.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Sequence
from multiprocessing.process import BaseProcess
from typing import Any


def start_method(process: BaseProcess) -> str:
    """How ``process`` is about to be started: its context's method, or the default one
    (a plain ``multiprocessing.Process``), fixed here as ``start`` fixes it."""
    method = getattr(process, "_start_method", None)
    return method if isinstance(method, str) else multiprocessing.get_start_method()


def workers_context(preload: Sequence[str]) -> Any:
    """A ``multiprocessing`` context whose processes are forked by a fork server that
    imported the modules ``preload`` names (one it cannot import is left out), else spawned.

    The fork server is one per process: the preload of the first context that starts it
    is the one it keeps."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(list(preload))
    return context
