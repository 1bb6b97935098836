"""The inter-process locks replaygate takes (filelock's), never waited for in vain.

filelock takes a lock by making its file and ``flock``-ing it, and tries again while it
cannot: where the folder is there but makes no file (``/proc`` answers "No such file or
directory"), it would try for ever. :class:`Lock` tries once, and when that fails looks
why: a lock file that cannot be made raises its :class:`OSError` (naming the lock) at
once; one that is there is held by another process, and waited for, said once on stderr after
:data:`WAIT_SAID_AFTER` seconds, for as long as it is held (Ctrl-C stops the wait).

The threads of one process take a lock in turn on a mutex of its own before its file:
a thread waiting for another thread of its process sleeps until it is let in, where
tries of the file every few milliseconds (filelock's way between processes) took the
interpreter from the thread holding it, and a write from 16 threads cost several times
its own CPU time in tries.
"""

from __future__ import annotations

import errno
import itertools
import os
import secrets
import sys
import threading
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any, Self

from filelock import AcquireReturnProxy, FileLock, Timeout

from replaygate.wall_clock import steady_seconds

WAIT_SAID_AFTER = 1.0
"""Seconds a lock another process holds is waited for before the wait is said on stderr
(and, from then on, how often the lock file is looked at again while waiting)."""


class Lock(FileLock):
    """filelock's lock, taken as :mod:`replaygate.locks` says. One object per path in a
    process (:func:`lock_at`), so a process may take it again."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._new_turn()
        _LOCKS.add(self)

    def _new_turn(self) -> None:
        """The lock free for this process's threads (made anew in a forked child: the
        thread holding it in the parent is not there)."""
        self._turn = threading.Lock()
        """Held by the thread of this process that holds the lock (its first level)."""
        self._turn_owner: int | None = None
        self._hold = 0
        self._levels = 0
        """How many times the thread holding the lock took it (released as often)."""

    def acquire(
        self,
        timeout: float | None = None,
        poll_interval: float | None = None,
        *,
        poll_intervall: float | None = None,
        blocking: bool | None = None,
        cancel_check: Callable[[], bool] | None = None,
    ) -> AcquireReturnProxy[Self]:
        """Take the lock (:meth:`_acquire_file`), after this process's other threads: a
        thread taking it again (it holds it already) is let in at once, one level more,
        asking nothing of filelock (whose every take, taken again or not, resolves the
        path and checks the process: about 100 µs, four times in each fixture written)."""
        if self._levels and self._turn_owner == threading.get_ident():
            self._levels += 1
            return AcquireReturnProxy(lock=self)
        first = not self.is_locked
        if first:
            wait = self.timeout if timeout is None else timeout
            if not self._take_turn(blocking is not False, wait):
                raise Timeout(self.lock_file)
        try:
            taken = self._acquire_file(
                timeout,
                poll_interval,
                poll_intervall=poll_intervall,
                blocking=blocking,
                cancel_check=cancel_check,
            )
        except BaseException as err:
            if first:
                self._give_turn()
            if isinstance(err, OSError) and (named := self._as_given(err)) is not err:
                raise named from None
            raise
        self._levels += 1
        return taken

    @property
    def lock_counter(self) -> int:
        """How many times this thread took the lock and has not let it go (0: it does not
        hold it)."""
        return self._levels if self._turn_owner == threading.get_ident() else 0

    def _as_given(self, err: OSError) -> OSError:
        """``err`` naming the lock file as it was given, where filelock names it by its
        whole path (``/home/me/project/evals/baseline.json.lock`` for a lock given as
        ``evals/baseline.json.lock``), as the other errors of a command name its files."""
        if isinstance(err, Timeout) or err.filename in (None, self.lock_file):
            return err
        if os.path.realpath(err.filename) != os.path.realpath(self.lock_file):
            return err
        return OSError(err.errno, err.strerror, self.lock_file)

    def release(self, force: bool = False) -> None:
        """Let the lock go (all its levels, ``force``); this process's next thread is let
        in once this thread holds it no more."""
        if self._turn_owner == threading.get_ident():
            if self._levels > 1 and not force:
                self._levels -= 1
                return
            self._levels = 0
        super().release(force)
        if self._turn_owner == threading.get_ident() and not self.is_locked:
            self._give_turn()

    def _take_turn(self, blocking: bool, wait: float) -> bool:
        """Wait for this process's other threads to let the lock go: for ``wait`` seconds
        (for ever when negative), not at all unless ``blocking``."""
        taken = (
            self._turn.acquire(timeout=wait if wait >= 0 else -1)
            if blocking
            else self._turn.acquire(blocking=False)
        )
        if taken:
            self._turn_owner = threading.get_ident()
            self._hold = next(_HOLDS)
        return taken

    def hold(self) -> int | None:
        """Which hold of the lock this thread is in (a number no other hold of it in this
        process has), or None when this thread does not hold it."""
        return self._hold if self._turn_owner == threading.get_ident() else None

    def _give_turn(self) -> None:
        self._turn_owner = None
        self._turn.release()

    def _acquire_file(
        self,
        timeout: float | None = None,
        poll_interval: float | None = None,
        *,
        poll_intervall: float | None = None,
        blocking: bool | None = None,
        cancel_check: Callable[[], bool] | None = None,
    ) -> AcquireReturnProxy[Self]:
        """Take the lock's file: at once when it is free or already this thread's; an
        :class:`OSError` naming the lock file when it cannot be made or opened; else
        wait, for ``timeout`` seconds when one is given (or until ``cancel_check``; then
        :class:`filelock.Timeout`), for ever otherwise, saying so once on stderr."""
        wait = self.timeout if timeout is None else timeout
        bounded = blocking is False or wait >= 0 or cancel_check is not None
        if self.is_locked or bounded:
            try:
                return super().acquire(
                    timeout,
                    poll_interval,
                    poll_intervall=poll_intervall,
                    blocking=blocking,
                    cancel_check=cancel_check,
                )
            except Timeout:
                self._refuse_untakable()
                raise
        said = False
        chunk = 0.0  # one try first: a free lock is taken without looking further
        while True:
            try:  # a wait without end, as filelock sees it: it refuses one this thread
                # could never end (the file held here through another lock object)
                return super().acquire(
                    -1, poll_interval, poll_intervall=poll_intervall, cancel_check=_after(chunk)
                )
            except Timeout:
                self._refuse_untakable()
            if chunk and not said:
                print(
                    f"replaygate: waiting for the lock {self.lock_file}: another process "
                    "holds it; going on once it is free (Ctrl-C stops)",
                    file=sys.stderr,
                    flush=True,
                )
                said = True
            chunk = WAIT_SAID_AFTER

    def acquire_if_made(self) -> bool:
        """Take the lock when its file is there, for a reader waiting for a writer: a
        writer makes the file before it writes and leaves it, so a reader never needs to
        make one (and leaves none in a checkout). Whether it was taken (then release it)."""
        if not os.path.lexists(self.lock_file):
            return False
        self.acquire()
        return True

    def check_file(self) -> None:
        """Raise an :class:`OSError` naming the lock when its file is no longer the file
        this process locked (removed, as ``git clean -X`` removes ignored files, or
        replaced): another writer may have made a new one and taken it, so a rewrite made
        now could undo that writer's. Nothing when this process does not hold it."""
        fd = self._context.lock_file_fd
        if fd is None:
            return
        held = os.fstat(fd)
        try:
            there = os.stat(self.lock_file, follow_symlinks=False)
        except FileNotFoundError:
            there = None
        if there is None or (there.st_dev, there.st_ino) != (held.st_dev, held.st_ino):
            raise OSError(errno.ESTALE, LOCK_LOST, self.lock_file)

    def _refuse_untakable(self) -> None:
        """Raise the :class:`OSError` that keeps the lock file from being made (naming the
        lock file), the one fault filelock retries for ever; nothing when the file is
        there: another process holds it (or leases it, as a file server may: its open
        answers "Resource temporarily unavailable" until the lease ends), and any other
        fault of it filelock raises itself. Whether a file can be made is tried on a name
        of its own, removed at once: a lock file made here would be left where a lock of
        the file's mere presence (filelock's, where ``flock`` is missing) was just let go,
        and hold it for ever."""
        if os.path.lexists(self.lock_file):
            return
        probe = f"{self.lock_file}.{secrets.token_hex(8)}"
        flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)
        try:
            os.close(os.open(probe, flags, 0o600))
        except OSError as err:
            raise OSError(err.errno, _why(err, self.lock_file), self.lock_file) from None
        os.unlink(probe)


LOCK_LOST = (
    "removed or replaced while this process held it (git clean -X removes ignored "
    "files), so another writer may hold it now: nothing was written; run again once "
    "no other writer runs"
)
"""Why a rewrite under a lock whose file went while it was held is refused."""


def check_held() -> None:
    """:meth:`Lock.check_file` of each lock this thread holds: called just before a file
    is replaced, so that no rewrite goes on once its lock is another writer's."""
    me = threading.get_ident()
    for lock in list(_LOCKS):
        if lock._turn_owner == me and lock._levels:
            lock.check_file()


_HOLDS = itertools.count(1)
"""The numbers of the holds of every lock of this process (and of a child forked from it)."""

_LOCKS: weakref.WeakSet[Lock] = weakref.WeakSet()
"""The locks of this process, so that a forked child starts with each one's turn free."""


def _free_turns_in_child() -> None:
    for lock in list(_LOCKS):
        lock._new_turn()


os.register_at_fork(after_in_child=_free_turns_in_child)


def _after(seconds: float) -> Callable[[], bool]:
    """Whether ``seconds`` have passed since this was called (by a clock a test's frozen
    one does not stop: :func:`~replaygate.wall_clock.steady_seconds`)."""
    end = steady_seconds() + seconds
    return lambda: steady_seconds() >= end


def _why(err: OSError, lock: str) -> str:
    """Why the lock file ``lock`` could not be opened (``err``), for a person."""
    reason = err.strerror or str(err)
    if err.errno == errno.ENOENT and os.path.isdir(os.path.dirname(lock) or "."):
        return f"{reason}: its folder makes no new file (a pseudo file system, like /proc)"
    return reason


def lock_at(path: Path | str) -> Lock:
    """The lock whose file is ``path``: one object per path in a process. A write holds
    it for milliseconds: a writer waiting for it looks again every 2 ms (filelock's 50 ms
    let newcomers take it first, a convoy under xdist)."""
    return Lock(os.fspath(path), is_singleton=True, poll_interval=0.002)
