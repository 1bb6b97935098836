"""Which session answers an intercepted send: the innermost ``intercept`` block's.

:func:`~replaygate.http.intercept` pushes its session with :func:`answering_with`; the
patched client methods (:mod:`replaygate.http.seams`) ask :func:`answering` on every
send. While an intercepted send goes live (:func:`live_call`), the sends it makes
underneath are not intercepted again: a client whose transport is built on another
intercepted library (an ``httpx`` client over an ``aiohttp`` transport, as LiteLLM's) is
recorded once, where it was first seen, and answered there on replay.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from replaygate.http.exchange import Exchange

_stack: list[Exchange] = []
_lock = threading.Lock()
_live: ContextVar[bool] = ContextVar("replaygate_live_call", default=False)


def answering() -> Exchange | None:
    """The session answering a send made here and now, or None (not intercepted)."""
    if _live.get():
        return None
    with _lock:
        return _stack[-1] if _stack else None


@contextmanager
def live_call() -> Iterator[None]:
    """While inside, sends made in this context (thread or task) are not intercepted."""
    token = _live.set(True)
    try:
        yield
    finally:
        _live.reset(token)


@contextmanager
def answering_with(exchange: Exchange) -> Iterator[None]:
    """``exchange`` answers intercepted sends while inside (process-wide, every thread)."""
    with _lock:
        _stack.append(exchange)
    try:
        yield
    finally:
        with _lock:
            for i in range(len(_stack) - 1, -1, -1):
                if _stack[i] is exchange:
                    del _stack[i]
                    break
