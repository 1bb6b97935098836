"""What a command will write, checked before it starts.

An eval may run for minutes (or record at a price) before it writes its results file
and its history entry: a path it cannot write is found first, with the error the
write itself would give, so nothing is run for results that could not be kept. An
output that is one of the command's own inputs (``--out`` naming the fixture store,
the cases or the history) is refused: writing it would replace what is stored.
Nothing is created by the checks.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

from replaygate.evals.errors import EvalError
from replaygate.evals.history import EXPORT_FORMAT, History
from replaygate.evals.reference import BASELINE_FORMAT
from replaygate.fixtures.store.folder import PEEK_BYTES, as_text, held_fixtures, kind_of
from replaygate.regular import not_regular, same_file


def check_writable(path: Path) -> None:
    """Raise the :class:`OSError` writing ``path`` would raise, naming ``path``: a folder
    there, a file where a folder is to be made, a file or folder that cannot be written.

    An existing regular file is opened for appending (its content is left as it is); a
    new one must be creatable in the nearest existing folder above it. A socket is
    refused (no file is written to one). A FIFO or a device is left to the write itself
    (opening a FIFO would wait for a reader).
    """
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        _check_folder(path)
        return
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    if stat.S_ISSOCK(mode):  # opening one fails, after the work, with "no such device"
        raise not_regular(path, mode)
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


def check_not_an_input(
    out: Path,
    inputs: Mapping[str, Path | None],
    *,
    baseline: bool = False,
    export: bool = False,
    page: bool = False,
    queue: bool = False,
    own: Callable[[bytes], bool] | None = None,
) -> None:
    """Refuse ``out`` when it is one of ``inputs`` (what each is, by its path): writing
    there would replace a store, cases or a history with the command's output.

    A file that is or may be a fixture store or a cassette, damaged or not, is refused
    (:func:`~replaygate.fixtures.store.folder.held_fixtures`; ``own`` tells the bytes of
    the output's own kind, which it replaces).

    An existing file that holds what no output of these commands replaces is refused
    too, whatever the inputs (:func:`_stored`): a fixture file, eval cases, a SQLite
    history, ``pyproject.toml``, a hits log, an observation queue unless ``queue`` (the
    output of ``--observe-queue``, which adds to it): ``eval --out`` naming the queue
    replaced the cases waiting for review with results. A baseline is refused unless
    ``baseline`` (the output of ``baseline update``, which says why it changes): ``eval
    --out evals/baseline.json`` replaced the baseline without a reason or a trace, and
    a history export unless ``export`` (the output of ``history export``, which keeps
    the runs it holds). An output that is a ``page`` (an HTML report, a sheet, a drift
    report), none of replaygate's files, refuses every one of them (eval results, a
    history export): ``report --out results.json``, meant as ``--results``, replaced
    the results."""
    for what, path in inputs.items():
        if path is not None and same_file(out, path):
            raise EvalError(
                f"{out}: is {what}: writing the output there would replace it; choose another "
                "file (nothing was written)"
            )
    head = _head(out)
    if head is None:
        return
    if own is not None and own(head):  # the output's own kind, which it replaces
        return
    stored = _stored(out.name, head, baseline=baseline, export=export, page=page, queue=queue)
    held = f"holds {stored}" if stored is not None else held_fixtures(out.name, head)
    if held is not None:
        raise EvalError(
            f"{out}: {held}: writing the output there would replace it; choose another "
            "file (nothing was written)"
        )


_DOCUMENTS = {
    "replaygate.sampling.results": "eval results",
    "replaygate.history": "an exported history",
}
"""What a page names the replaygate documents it refuses to replace."""
_LINES = {
    "hits log": "a hits log (the fixtures the pytest plugin replayed, which patrol reads)",
    "observation queue": "an observation queue (the sampled cases waiting for review)",
}
"""What every output names the line files it refuses to replace (the kinds of
:data:`~replaygate.fixtures.store.folder.LINE_KINDS` but eval cases)."""


def _head(out: Path) -> bytes | None:
    """The first bytes of the existing file ``out``, or None (not there, no regular file,
    unreadable: the write names it)."""
    try:
        if not out.is_file():
            return None
        with out.open("rb") as handle:
            return handle.read(PEEK_BYTES)
    except OSError:
        return None


def _stored(
    name: str, head: bytes, *, baseline: bool, export: bool, page: bool, queue: bool
) -> str | None:
    """What a file named ``name`` whose first bytes are ``head`` holds that a command's
    output must not replace, or None (nothing, or an output's own kind)."""
    kind = kind_of(as_text(head).encode())  # as saved, a baseline in UTF-16 too
    if name == "pyproject.toml":
        return "the project's configuration"
    if head.startswith(b"SQLite format 3\0"):
        return "a SQLite database (an eval history)"
    if kind == "eval cases":
        return "eval cases"
    if kind == BASELINE_FORMAT and not baseline:
        return "a baseline (change it with `replaygate baseline update --reason`)"
    if kind in _LINES and not (queue and kind == "observation queue"):
        return _LINES[kind]
    if page and kind is not None:  # a document
        return _DOCUMENTS.get(kind, f"a {kind} document")
    if kind == EXPORT_FORMAT and not export:
        return "an exported history (merge it with `replaygate history merge`)"
    return None
