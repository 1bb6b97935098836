"""Writing a file: in one step (:func:`atomic_write`), and a file a command was asked to
produce (a report, an export, a results file: :func:`write_text`).

A failed write names the file: an error found when the data is flushed (a full disk)
carries no file name of its own, so :func:`write_text` gives it the path, and the
commands print ``Error: <path>: <reason>``.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterable
from pathlib import Path


def real_file(path: Path) -> Path:
    """``path``, or the file it links to when it is a symlink: a file reached through a
    link is locked and rewritten where it is (a rename onto the link would replace the
    link and leave the file as it was)."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def atomic_write(target: Path, data: bytes | Iterable[bytes]) -> None:
    """Replace ``target`` (the file it links to, if it is a symlink: :func:`real_file`)
    with ``data`` (bytes, or its parts in order) in one step (temporary file, fsync, rename)."""
    target = real_file(target)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        with tmp.open("wb") as handle:
            if isinstance(data, bytes):
                handle.write(data)
            else:
                handle.writelines(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` as UTF-8, in one step where ``path`` is a regular file
    or new (a crash or a full disk leaves the old file whole, never half a new one); a
    FIFO or a device is written directly. An :class:`OSError` names ``path``."""
    data = text.encode("utf-8")
    try:
        if _special(path):
            path.write_bytes(data)
        else:
            atomic_write(path, data)
    except OSError as err:
        if err.filename is not None or err.errno is None:
            raise
        raise type(err)(err.errno, err.strerror, str(path)) from None


def _special(path: Path) -> bool:
    """Whether ``path`` is there and is no regular file (a FIFO, a device)."""
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except (FileNotFoundError, NotADirectoryError):
        return False
