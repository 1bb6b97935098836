"""Writing a file: in one step (:func:`atomic_write`), and a file a command was asked to
produce (a report, an export, a results file: :func:`write_text`).

A failed write names the file: an error found when the data is flushed (a full disk)
carries no file name of its own, so :func:`write_text` gives it the path, and the
commands print ``Error: <path>: <reason>``.

An output naming a FIFO (``--out >(jq .)``, ``mkfifo``) is opened by :func:`open_fifo`
as the command starts: one that no process reads is refused before a long run, instead
of the run waiting for a reader at its end; one a process reads gets the output as a
stream, its reader waiting until it comes.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import BinaryIO


def _check_locks_held() -> None:
    """:func:`replaygate.locks.check_held`, where this process has made a lock: one that
    has made none holds none (the plugin's start-up and the light commands import no
    filelock)."""
    locks = sys.modules.get("replaygate.locks")
    if locks is not None:
        locks.check_held()


def real_file(path: Path) -> Path:
    """``path``, or the file it links to when it is a symlink: a file reached through a
    link is locked and rewritten where it is (a rename onto the link would replace the
    link and leave the file as it was)."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def atomic_write(
    target: Path,
    data: bytes | Iterable[bytes],
    *,
    check: Callable[[Path], None] | None = None,
) -> None:
    """Replace ``target`` (the file it links to, if it is a symlink: :func:`real_file`)
    with ``data`` (bytes, or its parts in order) in one step (temporary file, fsync, rename).
    ``check``, when given, is called with the temporary file once it is written; what it
    raises leaves ``target`` as it was.

    A file replaced keeps its permissions (a private ``0600`` report stays private) and,
    where the process may give it (root's, as in a CI container writing a checkout its
    runner owns), its owner and group, as writing it in place would; one nobody may write
    (``0444``) is refused with :class:`PermissionError`, as writing it in place would be,
    even where its folder could take the rename.
    """
    target = real_file(target)
    kept = _kept(target)
    tmp = temporary_file(target)
    handle = _created(tmp, target)
    try:
        with handle:
            if kept is not None:
                _keep_owner(handle.fileno(), kept)
                os.fchmod(handle.fileno(), stat.S_IMODE(kept.st_mode))
            if isinstance(data, bytes):
                handle.write(data)
            else:
                handle.writelines(data)
            handle.flush()
            os.fsync(handle.fileno())
        if check is not None:
            check(tmp)
        _check_locks_held()
        os.replace(tmp, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def temporary_file(target: Path) -> Path:
    """The file :func:`atomic_write` writes ``target``'s new bytes to before the rename:
    ``.<name>.<pid>.tmp`` beside it."""
    return target.with_name(f".{target.name}.{os.getpid()}.tmp")


def name_too_long(path: Path) -> str | None:
    """Why no file can be made at ``path`` for the length of its name (more bytes than its
    folder's file system takes, ``NAME_MAX``, 255 on most), or None."""
    size = len(os.fsencode(path.name))
    limit = _name_max(path.parent)
    if size <= limit:
        return None
    return f"{path.name!r} is {size} bytes, more than the {limit} a file name may have there"


def _name_max(folder: Path) -> int:
    """The longest file name, in bytes, the file system of ``folder`` (or of the nearest
    folder above it that is there) takes: 255 where it does not say."""
    there = next((above for above in (folder, *folder.parents) if above.is_dir()), folder)
    try:
        return os.pathconf(there, "PC_NAME_MAX")
    except (AttributeError, OSError, ValueError):  # no pathconf (Windows), or no answer
        return 255


LONGEST_PID = 7
"""Digits of the largest process id (Linux's ``pid_max`` is at most 4,194,304), which
:func:`temporary_file` names hold."""


def temporary_name_problem(target: Path) -> str | None:
    """Why :func:`atomic_write` could not replace ``target``: the name of its temporary
    file (:func:`temporary_file`) is too long for the folder, though ``target``'s is not;
    or None."""
    real = real_file(target)
    tmp = temporary_file(real)
    too_long = name_too_long(tmp)
    if too_long is None:
        return None
    room = len(os.fsencode(real.name)) + len(f"..{'9' * LONGEST_PID}.tmp")
    return (
        f"the temporary file it is rewritten through, {too_long}: shorten the name it is "
        f"made from by {room - _name_max(tmp.parent)} byte(s)"
    )


_REFUSED = frozenset({errno.EACCES, errno.EPERM, errno.EROFS})
"""What a folder answers when no file may be made in it (no permission, an immutable
folder, a read-only file system): the file itself may be writable, so the error names the
folder."""


def _created(tmp: Path, target: Path) -> BinaryIO:
    """``tmp`` made and open to write; an ``OSError`` naming ``target`` and the reason when
    the name of ``tmp`` is too long for its folder (:func:`temporary_name_problem`) or its
    folder makes no file (:data:`_REFUSED`), where the system's error names neither."""
    try:
        return tmp.open("wb")
    except OSError as err:
        if err.errno == errno.ENAMETOOLONG:
            problem = temporary_name_problem(target)
        elif err.errno in _REFUSED:
            problem = f"the temporary file it is written through cannot be made in {tmp.parent}"
        else:
            problem = None
        if problem is None:
            raise
        raise OSError(err.errno, f"{err.strerror}: {problem}", str(target)) from None


def _kept(target: Path) -> os.stat_result | None:
    """The status of the file ``target`` replaces (None: there is none yet);
    :class:`PermissionError` when its permissions let nobody write it."""
    try:
        found = os.stat(target)
    except FileNotFoundError:
        return None
    if stat.S_ISREG(found.st_mode) and not stat.S_IMODE(found.st_mode) & 0o222:
        raise PermissionError(
            errno.EACCES, "Permission denied (the file is read-only)", str(target)
        )
    return found


def _keep_owner(fd: int, kept: os.stat_result) -> None:
    """Give the file open as ``fd`` the owner and group of ``kept`` where the process may
    (root may; another user keeps the file as its own, as the rename makes it)."""
    if sys.platform == "win32" or (kept.st_uid, kept.st_gid) == (os.geteuid(), os.getegid()):
        return
    with contextlib.suppress(PermissionError):
        os.fchown(fd, kept.st_uid, kept.st_gid)


_OPEN_FIFOS: dict[str, int] = {}
"""The write end of each FIFO :func:`open_fifo` opened, by its absolute path."""

NO_READER = "is a FIFO that no process reads: start its reader first (nothing was written)"


def open_fifo(path: Path) -> None:
    """Open the write end of the FIFO at ``path`` now (nothing when ``path`` is no FIFO) and
    keep it for :func:`write_text`; an :class:`OSError` naming ``path`` when no process
    reads it (:data:`NO_READER`), at once, where opening it to write would wait."""
    key = os.path.abspath(path)
    if key in _OPEN_FIFOS or not _is_fifo(path):
        return
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as err:
        reason = NO_READER if err.errno == errno.ENXIO else err.strerror
        raise OSError(err.errno, reason, str(path)) from None
    os.set_blocking(fd, True)
    _OPEN_FIFOS[key] = fd


def close_fifos() -> None:
    """Close the FIFOs :func:`open_fifo` opened and nothing was written to: their
    readers see the end of the stream."""
    while _OPEN_FIFOS:
        os.close(_OPEN_FIFOS.popitem()[1])


def _is_fifo(path: Path) -> bool:
    try:
        return stat.S_ISFIFO(os.stat(path).st_mode)
    except OSError:
        return False


def write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` as UTF-8, in one step where ``path`` is a regular file
    or new (a crash or a full disk leaves the old file whole, never half a new one); a
    FIFO or a device is written directly. An :class:`OSError` names ``path``."""
    data = text.encode("utf-8")
    fifo = _OPEN_FIFOS.pop(os.path.abspath(path), None)
    try:
        if fifo is not None:
            with os.fdopen(fifo, "wb") as stream:
                stream.write(data)
        elif _special(path):
            path.write_bytes(data)
        else:
            atomic_write(path, data)
    except OSError as err:
        if err.errno is None or err.filename == str(path):
            raise
        raise type(err)(err.errno, err.strerror, str(path)) from None  # not its temporary file


def _special(path: Path) -> bool:
    """Whether ``path`` is there and is no regular file (a FIFO, a device)."""
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except (FileNotFoundError, NotADirectoryError):
        return False
