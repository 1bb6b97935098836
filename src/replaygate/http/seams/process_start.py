"""``multiprocessing``'s ``BaseProcess.start``, watched while a block is open.

A process started by ``fork`` is a copy of this one, patches and open blocks included
(:mod:`replaygate.http.forked`). One started by ``spawn`` or ``forkserver`` (a ``Pool``
or a ``ProcessPoolExecutor`` given that context, the default one outside Linux) begins
afresh: no client of its is patched, so what it sends is neither answered from the
store nor recorded; while the network is blocked (replaying) its target, or the ``run``
of its class's own, runs blocked too (:class:`~replaygate.network.BlockedTarget`), so
that is refused. Starting one
inside a block warns (:class:`~replaygate.errors.ProcessOutsideBlockWarning`), where a
recording lost its answers, or a replay failed, unseen.
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
import sys
import warnings
from collections.abc import Callable
from multiprocessing.process import BaseProcess

from replaygate.errors import ProcessOutsideBlockWarning
from replaygate.http.active import answering
from replaygate.http.seams import Patch
from replaygate.network import network_blocked
from replaygate.start_methods import start_method

_STARTERS = tuple(
    os.path.dirname(module.__file__ or "") + os.sep
    for module in (multiprocessing, concurrent.futures)
)
"""The folders of the standard library's process starters (pools, executors)."""


def patches() -> list[Patch]:
    """``BaseProcess.start``, warning of a process that will not share the block."""
    return [(BaseProcess, "start", _watched)]


def not_shared(method: str, blocked: bool = False) -> str:
    """What a block says of a process started inside it by ``method``; ``blocked``: its
    target runs with the network blocked, as the block's is (replaying)."""
    goes = (
        "and beyond loopback it is refused, the network being blocked there too"
        if blocked
        else "and goes to the network as the code addresses it"
    )
    return (
        f"a process was started by {method!r} inside an intercept() block: it does not "
        "share the block, so what it sends is neither answered from the store nor "
        f"recorded, {goes}. Start it by 'fork', or enter intercept() in the process "
        "itself (a pool's initializer)"
    )


def _caller_level() -> int:
    """The ``stacklevel`` of the first frame out of this module and the starters."""
    frame, level = sys._getframe(2), 2  # start's caller
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_STARTERS):
        frame, level = frame.f_back, level + 1
    return level


def _watched(original: Callable[[BaseProcess], None]) -> Callable[[BaseProcess], None]:
    def start(self: BaseProcess) -> None:
        method = start_method(self)
        if method != "fork" and answering() is not None:
            level = _caller_level()
            blocked = network_blocked()
            said = not_shared(method, blocked)
            warnings.warn(said, ProcessOutsideBlockWarning, stacklevel=level)
        original(self)

    return start
