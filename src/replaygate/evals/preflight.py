"""What an eval run will write, checked before the run starts.

An eval may run for minutes (or record at a price) before it writes its results file
and its history entry: a path it cannot write is found first, with the error the
write itself would give, so nothing is run for results that could not be kept.
Nothing is created by the checks.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

from replaygate.evals.history import History


def check_writable(path: Path) -> None:
    """Raise the :class:`OSError` writing ``path`` would raise, naming ``path``: a folder
    there, a file where a folder is to be made, a file or folder that cannot be written.

    An existing regular file is opened for appending (its content is left as it is); a
    new one must be creatable in the nearest existing folder above it. A FIFO or a
    device is left to the write itself (opening a FIFO would wait for a reader).
    """
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        _check_folder(path)
        return
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    if stat.S_ISREG(mode):
        _named(path, lambda: path.open("ab").close())


def _check_folder(path: Path) -> None:
    """A new file at ``path``: the nearest existing folder above it takes a file."""
    folder = path.absolute().parent
    while not folder.exists() and not folder.is_symlink() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(folder))
    _named(path, lambda: tempfile.TemporaryFile(dir=folder).close())


def _named(path: Path, probe: Callable[[], object]) -> None:
    """Run ``probe``; an :class:`OSError` it raises names ``path`` instead."""
    try:
        probe()
    except OSError as err:
        raise type(err)(err.errno, err.strerror, str(path)) from None


def check_history(path: Path) -> None:
    """The history at ``path`` can take a run: an existing one opens as a writable
    history (a :class:`~replaygate.evals.errors.HistoryError` says why not); a new one
    can be created."""
    if path.exists() or path.is_symlink():
        History.open(path).close()
    else:
        check_writable(path)
