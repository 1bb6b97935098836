"""Blocks entered by hand, across the cells of a notebook, and left later.

``intercept()`` and ``block_network()`` are context managers. Entered with ``__enter__()``
and left with ``__exit__()``, a block lasts as long as its object: one entered and dropped
unleft (``block_network().__enter__()`` keeps no object; a notebook cell that enters a
block, run again, drops the one it entered before) would be ended by the collector without
a word, and the code after it would run unanswered and unblocked. :class:`HeldBlock` ends
it where it is dropped, warning :class:`~replaygate.errors.BlockDroppedWarning` there.
One still entered as the interpreter exits (a script that never left it) is ended then,
before the exit clears the namespace holding it, so it says what it says as it ends (a
miss the code under test caught and went on from), where it said nothing.
"""

from __future__ import annotations

import atexit
import itertools
import os
import sys
import threading
import warnings
import weakref
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, TypeVar

from replaygate.errors import BlockDroppedWarning

T = TypeVar("T")

_EXITING = threading.Event()
"""Set as the interpreter exits: handlers registered before this module's (IPython's, which
clears the namespace holding a notebook's blocks) run after it."""

_OPEN: weakref.WeakKeyDictionary[HeldBlock[Any], tuple[tuple[int, int], int]] = (
    weakref.WeakKeyDictionary()
)
"""The blocks entered and not left: the process and thread each was entered in (a process
forked from it ends none of them), and its turn."""
_TURNS = itertools.count()


def end_open_blocks() -> None:
    """End each block this thread of this process entered and has not left, as if left
    there, the first entered first (one a block entered inside it, by ``with``, ends with
    it): what a block says as it ends is said. Each is ended, whatever another raised; the
    first error raised is raised again after."""
    here = _here()
    entered = sorted(((turn, b) for b, (where, turn) in _OPEN.items() if where == here))
    errors: list[Exception] = []
    for _, block in entered:
        if block not in _OPEN:  # ended by the block it was entered inside
            continue
        try:
            block.__exit__(None, None, None)
        except Exception as err:
            errors.append(err)
    if errors:
        raise errors[0]


def _here() -> tuple[int, int]:
    """This process and thread."""
    return os.getpid(), threading.get_ident()


def _exiting() -> None:
    """As the interpreter exits: blocks dropped from now on end without a word, and those
    still entered end (:func:`end_open_blocks`)."""
    _EXITING.set()
    end_open_blocks()


atexit.register(_exiting)


class HeldBlock(AbstractContextManager[T]):
    """A block made anew by ``make`` each time it is entered, once at a time; dropped
    entered, it ends there, saying so. ``call`` is how the code names it
    (``intercept(store)``), ``after`` what runs after it ends."""

    def __init__(
        self, make: Callable[[], AbstractContextManager[T]], call: str, after: str
    ) -> None:
        self._make = make
        self._call = call
        self._after = after
        self._entered: AbstractContextManager[T] | None = None

    def __enter__(self) -> T:
        if self._entered is not None:
            raise RuntimeError(
                f"this {self._call} block is entered already: call {self._call} again for "
                "another block (each thread or nested block its own)"
            )
        turn = next(_TURNS)  # before the blocks it enters inside it
        block = self._make()
        entered = block.__enter__()
        self._entered = block
        _OPEN[self] = (_here(), turn)
        return entered

    def __exit__(self, *exc: Any) -> bool | None:
        _OPEN.pop(self, None)
        block, self._entered = self._entered, None
        assert block is not None, f"a {self._call} block left that was not entered"
        return block.__exit__(*exc)

    def __del__(self) -> None:
        """A block entered and dropped unleft ends here, saying so at the line that dropped
        it. Said not while the interpreter exits, which ends every block still open
        (IPython's exit drops its namespace's)."""
        _OPEN.pop(self, None)  # kept alive after this (by an unraisable hook), it is left
        block, self._entered = self._entered, None
        if block is None or sys.is_finalizing():
            return
        try:
            if not _EXITING.is_set():
                warnings.warn(self.dropped(), BlockDroppedWarning, stacklevel=2)
        finally:  # ended even where warnings are errors (-W error)
            block.__exit__(None, None, None)

    def dropped(self) -> str:
        """What this block says as it ends dropped (:class:`BlockDroppedWarning`)."""
        call = self._call
        return (
            f"this {call} block was entered and its object dropped without leaving it "
            f"({call}.__enter__() keeps no object; a notebook cell that enters a block, run "
            f"again, drops the one it entered before): it ends here, and {self._after}. Keep "
            f"the block and leave it (block = {call}; block.__enter__(); ...; "
            f"block.__exit__(None, None, None)), or use `with {call}:`"
        )
