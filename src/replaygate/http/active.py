"""Which session answers an intercepted send: the innermost ``intercept`` block's.

:func:`~replaygate.http.intercept` pushes its session with :func:`answering_with`; the
patched client methods (:mod:`replaygate.http.seams`) ask :func:`answering` on every
send. A block answers the sends made in its own context (its thread, its asyncio task
and the tasks started inside it): two blocks open at once in two tasks or threads
answer each their own sends from their own store. A send made where no block was
entered (a thread of a pool started elsewhere, which begins with an empty context) is
answered by the block entered last in the process; one made in a task that outlived the
block it was started in is answered by none (refused by an ended pytest test's session).
While an intercepted send goes live (:func:`live_call`), the sends it makes underneath
are not intercepted again: a client whose transport is built on another intercepted
library (an ``httpx`` client over an ``aiohttp`` transport, as LiteLLM's) is recorded
once, where it was first seen, and answered there on replay.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import Context, ContextVar
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from replaygate.http.exchange import Exchange

_stack: list[Exchange] = []
"""Every open block's session, in the order they were entered (the process's)."""
_lock = threading.Lock()
_own: ContextVar[tuple[Exchange, ...]] = ContextVar("replaygate_answering", default=())
"""The sessions of the blocks entered in this context, innermost last."""
_live: ContextVar[bool] = ContextVar("replaygate_live_call", default=False)
_live_sends = 0
"""How many intercepted sends are going live now, in the whole process."""


def answering() -> Exchange | None:
    """The session answering a send made here and now, or None (not intercepted). A
    send made where blocks were entered that have all ended (a task that outlived the
    block it was started in, as a session-wide event loop lets one outlive its test) is
    none of another block's: answered by the block open now, it would be recorded into
    and replayed from the store of code it is not part of. A pytest test's session that
    has ended takes it, and refuses it naming the test
    (:attr:`~replaygate.http.exchange.Exchange.after_end`)."""
    if _live.get():
        return None
    own = _own.get()
    with _lock:
        for exchange in reversed(own):
            if exchange in _stack or exchange.after_end is not None:
                return exchange
        return _stack[-1] if _stack and not own else None


def outlived() -> bool:
    """Whether this context (a task's) was started inside blocks that have all ended, so
    that no block answers its sends (:func:`answering`)."""
    own = _own.get()
    with _lock:
        return bool(own) and not any(exchange in _stack for exchange in own)


def entered_in(context: Context, exchange: Exchange) -> bool:
    """Whether ``exchange``'s block was entered in ``context`` (a task's): so the task was
    started inside that block, or inside a block nested in it."""
    return exchange in context.get(_own, ())


@contextmanager
def live_call() -> Iterator[None]:
    """While inside, sends made in this context (thread or task) are not intercepted."""
    global _live_sends
    token = _live.set(True)
    with _lock:
        _live_sends += 1
    try:
        yield
    finally:
        with _lock:
            _live_sends -= 1
        _live.reset(token)


def only_answering() -> bool:
    """Whether a block is open and no intercepted send is going live: a connection
    beyond loopback made now was not made by a client the blocks answer."""
    with _lock:
        return bool(_stack) and _live_sends == 0


@contextmanager
def answering_with(exchange: Exchange) -> Iterator[None]:
    """``exchange`` answers intercepted sends while inside: those made in this context,
    and those made where no block was entered."""
    with _lock:
        _stack.append(exchange)
    _own.set((*_own.get(), exchange))
    try:
        yield
    finally:
        # Taken out rather than reset to what it was on entry: blocks may end in another
        # order than they were entered (a reset would bring an ended one back), or in
        # another context (where a reset fails).
        own = _own.get()
        if exchange in own:
            _own.set(tuple(entered for entered in own if entered is not exchange))
        with _lock:
            for i in range(len(_stack) - 1, -1, -1):
                if _stack[i] is exchange:
                    del _stack[i]
                    break
