"""The cycle collector paused for a block of work that makes no cycle worth collecting."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cycle collector for the block, and resume it after, if it ran before.

    For work that builds many acyclic objects (an index growing: the collector would
    rescan it again and again) or recurses deep (a parser: a collection near the recursion
    limit fails the finalizers of unrelated objects, "Exception ignored in ...").
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
