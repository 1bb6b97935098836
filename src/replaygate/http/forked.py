"""What the forked copies of an HTTP session did, told to the session they were copied from.

A session made before a fork (``multiprocessing``'s ``fork`` start method: a pool's
workers, a server forking its workers) answers in the forked process too, from its copy
there (:class:`~replaygate.http.exchange.Exchange`). What the session is checked for once
the code under test returned (a replay error a worker caught and went on from, a
recording that saw no send) happened in that copy, so the copy tells it: each forked
process appends a line per event to a file of its own in a private folder of the
session's, as the event happens (a pool's ``terminate()`` kills its workers, with no
chance to say more), and the session reads the files as it is asked
(:meth:`ForkReports.collect`). The folder is made as the process forks while the
session lives, and removed as the session ends. Each line is one of::

    s              a send the copy was asked to answer
    r              a response it recorded
    u <key>        an answer it gave from fixture key, or recorded into it (the session's
                   process counts it for ``--replaygate-strict``)
    e <base64>     a replay error it raised, pickled (its first KEPT_ERRORS only)
    l <n>          its n-th error left the process, pickled by multiprocessing

The session's process says in the folder when the session is over (:meth:`ForkReports.end`,
a file :data:`ENDED`), so a forked copy still at work (a pool's worker forked in one
pytest test, sent another test's requests) refuses what it is asked from then on.

An error that left (a pool's worker sending back the error its task raised, which the
parent raises again) is the parent's to see, as itself, and is not told as one the
worker caught (:func:`_leaving`). A ``spawn`` or ``forkserver`` worker builds sessions
of its own, and tells nothing.
"""

from __future__ import annotations

import base64
import contextlib
import os
import pickle
import shutil
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from replaygate.errors import KEPT_ERRORS, ReplaygateError

__all__ = ["ForkReports", "forked_after_end"]

SENT = b"s"
RECORDED = b"r"
USED = b"u"
RAISED = b"e"
LEFT = b"l"

ENDED = "ended"
"""The file the session's process makes in its folder once the session is over."""

_pid = os.getpid()
"""This process's id, renewed in a forked child: every send asks it, and ``os.getpid()``
is a system call."""

_LIVE: weakref.WeakSet[ForkReports] = weakref.WeakSet()
"""The reports of every session of this process (and of those copied into it by a fork)."""


@dataclass
class _Log:
    """This forked process's file of reports (None: it could not be made) and the errors
    it told there, in order."""

    fd: int | None
    errors: list[ReplaygateError] = field(default_factory=list)


@dataclass
class _Read:
    """How far the session has read one forked process's file: its bytes, its errors."""

    offset: int = 0
    errors: int = 0


class ForkReports:
    """The reports of the processes forked, with a copy of a session, from the process it
    was made in (:attr:`pid`): told there (:meth:`tell_sent`, :meth:`tell_recorded`,
    :meth:`tell_raised`, each nothing in that process itself), read in it
    (:meth:`collect`), which counts :attr:`sent` and :attr:`recorded`, and gives ``used``
    each fixture key a forked process told it answered from."""

    def __init__(self, used: Callable[[str], None] | None = None) -> None:
        self.pid = _pid
        self.used = used
        self.folder: str | None = None
        self.sent = 0
        self.recorded = 0
        self._read: dict[str, _Read] = {}
        self._log: _Log | None = None
        self._lock = threading.Lock()
        _LIVE.add(self)

    # -- told by a forked process ------------------------------------------------------

    def tell_sent(self) -> None:
        """A send was asked of the session here."""
        if _pid != self.pid:
            self._tell(SENT)

    def tell_recorded(self) -> None:
        """The session wrote a response here."""
        if _pid != self.pid:
            self._tell(RECORDED)

    def tell_used(self, key: str) -> None:
        """The session answered from fixture ``key`` here, or recorded into it."""
        if _pid != self.pid:
            self._tell(USED + b" " + key.encode("utf-8"))

    def tell_raised(self, error: ReplaygateError) -> None:
        """A send of the session raised ``error`` here."""
        if _pid == self.pid:
            return
        with self._lock:
            log = self._opened()
            if len(log.errors) >= KEPT_ERRORS:
                return
            log.errors.append(error)
            self._write(log, RAISED + b" " + base64.b64encode(_pickled(error)))
        from multiprocessing.reduction import ForkingPickler

        ForkingPickler.register(type(error), _leaving)

    def left(self, error: ReplaygateError) -> None:
        """``error`` leaves this process, pickled by ``multiprocessing``: said of it when
        it is one this process told."""
        log = self._log
        if log is None:
            return
        with self._lock:
            index = next((i for i, told in enumerate(log.errors) if told is error), None)
            if index is not None:
                self._write(log, LEFT + b" %d" % index)

    def _tell(self, event: bytes) -> None:
        with self._lock:
            self._write(self._opened(), event)

    def _opened(self) -> _Log:
        """This process's log, its file made on its first event."""
        if self._log is None:
            self._log = _Log(self._made_file())
        return self._log

    def _made_file(self) -> int | None:
        """A new file of this process's in the session's folder (its name sorts the files
        in the order they were made), or None, said on stderr, when it cannot be made."""
        if self.folder is None:
            self._untold("the session had no folder made for it as the process forked")
            return None
        name = os.path.join(self.folder, f"{time.monotonic_ns():020d}-{_pid}")
        try:
            return os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o600)
        except OSError as err:
            self._untold(err)
            return None

    def _write(self, log: _Log, line: bytes) -> None:
        if log.fd is None:
            return
        try:
            os.write(log.fd, line + b"\n")
        except OSError as err:
            log.fd = None
            self._untold(err)

    def _untold(self, why: object) -> None:
        """Say on stderr why this process cannot tell the session what it does."""
        print(
            f"replaygate: process {_pid}, forked from process {self.pid} with a copy "
            f"of its HTTP session, cannot tell that session what it does ({why}): the "
            "replay errors it raises, its sends and its recordings are not counted there",
            file=sys.stderr,
        )

    # -- read by the session's process -------------------------------------------------

    def collect(self) -> list[ReplaygateError]:
        """The replay errors the forked processes told since the last call, but those that
        left them (the processes in the order they first told, each one's in order), each
        noted with its process; :attr:`sent` and :attr:`recorded` count their sends and
        recordings meanwhile. Nothing in a forked process."""
        folder = self.folder
        if folder is None or _pid != self.pid:
            return []
        with self._lock:
            names = sorted(name for name in os.listdir(folder) if name != ENDED)
            return [error for name in names for error in self._new(folder, name)]

    def _new(self, folder: str, name: str) -> list[ReplaygateError]:
        """The errors told in file ``name`` since it was last read, but those that left."""
        read = self._read.setdefault(name, _Read())
        with open(os.path.join(folder, name), "rb") as file:
            file.seek(read.offset)
            chunk = file.read()
        lines = chunk[: chunk.rfind(b"\n") + 1]  # a line being written is read next time
        read.offset += len(lines)
        told: dict[int, ReplaygateError] = {}
        for line in lines.splitlines():
            event, _, rest = line.partition(b" ")
            if event == SENT:
                self.sent += 1
            elif event == RECORDED:
                self.recorded += 1
            elif event == USED and self.used is not None:
                self.used(rest.decode("utf-8"))
            elif event == RAISED:
                told[read.errors] = _loaded(rest, name.rpartition("-")[2])
                read.errors += 1
            elif event == LEFT:
                told.pop(int(rest), None)
        return list(told.values())

    # -- the folder --------------------------------------------------------------------

    def before_fork(self) -> None:
        """Make the folder the processes about to be forked tell in, unless there is one
        or this is not the session's process; removed as the session ends, in its process."""
        if self.folder is not None or _pid != self.pid:
            return
        try:
            self.folder = tempfile.mkdtemp(prefix="replaygate-forked-")
        except OSError:  # the forked processes say so, as they first tell (_made_file)
            return
        weakref.finalize(self, _removed, self.folder, self.pid)

    def end(self) -> None:
        """The session is over: its forked copies refuse what they are asked from now on
        (:meth:`ended`). Nothing in a forked process, or with no copy forked."""
        if self.folder is None or _pid != self.pid:
            return
        with contextlib.suppress(OSError):  # its folder gone: the copies find none (ended)
            os.close(os.open(os.path.join(self.folder, ENDED), os.O_WRONLY | os.O_CREAT, 0o600))

    def ended(self) -> bool:
        """In a forked process: whether the session's process said the session is over
        (or removed its folder, as it does once the session is gone)."""
        if _pid == self.pid or self.folder is None:
            return False
        return os.path.exists(os.path.join(self.folder, ENDED)) or not os.path.isdir(self.folder)

    def after_fork(self) -> None:
        """In a forked process: it has told nothing yet, and no thread holds the lock."""
        self._lock = threading.Lock()
        self._log = None


def forked_after_end(request: str, session_pid: int) -> str:
    """What a forked copy of a session that is over in process ``session_pid`` says of
    ``request`` (``POST /v1/messages``) it was asked to send."""
    return (
        f"replaygate: {request} was sent in process {_pid}, forked from process "
        f"{session_pid} with a copy of an HTTP session that has ended there (a pytest "
        "test's): a pool of worker processes that outlives the test it forked them in (a "
        "ProcessPoolExecutor of a session- or module-scoped fixture, which forks its "
        "workers at its first submit) keeps that test's session, and would answer a later "
        "test from that test's store. Neither replayed nor recorded. Make such a pool in "
        "the test, or in a fixture of function scope."
    )


def _pickled(error: ReplaygateError) -> bytes:
    """``error`` pickled, or, when an attribute of its own does not pickle, what the
    checks read of it: its message as a :class:`ReplaygateError`."""
    try:
        return pickle.dumps(error)
    except Exception:
        return pickle.dumps(ReplaygateError(str(error)))


def _loaded(data: bytes, pid: str) -> ReplaygateError:
    """The error pickled in ``data`` by forked process ``pid``, noted as such."""
    error: ReplaygateError = pickle.loads(base64.b64decode(data))
    error.add_note(f"replaygate: raised in process {pid}, forked from this one")
    return error


def _leaving(error: ReplaygateError) -> str | tuple[Any, ...]:
    """How ``multiprocessing`` pickles a replay error it sends to another process (a
    pool's worker sending back the error its task raised): as itself
    (:meth:`~replaygate.errors.ReplaygateError.__reduce__`), said to have left by the
    session that told it."""
    for reports in list(_LIVE):
        reports.left(error)
    return error.__reduce__()


def _removed(folder: str, pid: int) -> None:
    """Remove a session's ``folder``, in the process it was made in (``pid``) only."""
    if _pid == pid:
        shutil.rmtree(folder, ignore_errors=True)


def _before_fork() -> None:
    for reports in list(_LIVE):
        reports.before_fork()


def _after_fork_in_child() -> None:
    global _pid
    _pid = os.getpid()
    for reports in list(_LIVE):
        reports.after_fork()


os.register_at_fork(before=_before_fork, after_in_child=_after_fork_in_child)
