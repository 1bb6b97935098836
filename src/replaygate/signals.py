"""Ctrl-C and SIGTERM held while a step must not be cut, and worker processes that leave
Ctrl-C to the process that started them, and end once it is gone.

A step held (:func:`held`) runs whole: a Ctrl-C or SIGTERM that arrives meanwhile takes
effect as it ends. A process started inside starts with them held too (a signal mask is
inherited), so a Ctrl-C cannot cut it off half started; it lets them through again with
:func:`ctrl_c_left_to_parent`, from then on ignoring Ctrl-C, which its parent acts on.
A parent killed where it could not stop its workers (SIGKILL, out of memory) leaves them
running: :func:`end_with_parent` ends each as soon as its parent is gone.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import threading
from collections.abc import Iterator
from multiprocessing.connection import wait

STOPPING = frozenset({signal.SIGINT, signal.SIGTERM})
"""The signals that stop a command."""


@contextlib.contextmanager
def held() -> Iterator[None]:
    """Inside the block, :data:`STOPPING` signals wait (blocked in this thread): one that
    arrives takes effect as the block ends. Where signals cannot be held (Windows), the
    block runs as it is."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, STOPPING)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def ctrl_c_left_to_parent() -> None:
    """In a worker process: ignore Ctrl-C from now on (the process that started it decides
    what Ctrl-C stops, and stops it), and let through what :func:`held` held when it was
    started. SIGTERM keeps its default: it is how a parent ends a worker."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPPING)


def end_with_parent() -> None:
    """In a worker process: end it with SIGTERM, as its parent ends it, as soon as the
    process that started it is gone (killed with SIGKILL, or out of memory, before it
    could stop its workers): an orphan would go on running its share of the cases, a
    recording calling the live API for a run nobody waits for. Nothing outside a worker."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        wait([parent.sentinel])  # ready once the parent has ended
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="replaygate-parent-watch", daemon=True).start()
