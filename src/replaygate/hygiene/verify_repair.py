"""``verify --repair``: undo what an interrupted write left in a store, saying what was done.

Only the problems :func:`~.verify.verify_store` marks ``repairable`` are touched, each
by :mod:`replaygate.fixtures.store.repair` under the lock the store's writers take: a
``.jsonl`` file's partial last line is cut (after a ``.bak`` copy of the file); a
one-fixture ``.json`` file cut short, and a temporary file of an interrupted write,
are renamed to a backup name beside them. A hand edit, a conflict or anything else is
left for a person. A ``.json`` or temporary file reached through a symlink is left too:
the writers of another store sharing that folder take another lock than this store's.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from replaygate.errors import shown_file
from replaygate.fixtures.store.folder import store_of
from replaygate.fixtures.store.jsonl import TRUNCATED, missing_closers
from replaygate.fixtures.store.repair import (
    repair_partial_tail,
    set_aside_leftover,
    set_aside_truncated,
)
from replaygate.fixtures.store.side_files import is_leftover
from replaygate.fixtures.store.writing import lock_error
from replaygate.hygiene.errors import HygieneError
from replaygate.hygiene.verify_problem import StoreProblem

INTERRUPTED_TEMPORARY = "temporary file left by an interrupted write (nothing stored was lost)"
BY_HAND = (
    "it is reached through a symlink, which `verify --repair` leaves (a store's writers "
    "lock its own folders only, not where a link leads): move it aside by hand while no "
    "recording runs there"
)
LINKED = f"not repaired: {BY_HAND}"


def repair(root: Path, problems: Iterable[StoreProblem]) -> Iterator[str]:
    """Repair the ``repairable`` problems found under ``root``: one line for each file
    repaired (what was done, and where its backup is) or left although repairable (why),
    each as soon as it is done, so that those done before a file that fails are named."""
    for problem in problems:
        if problem.repairable and (what := _repaired(root, Path(problem.file))) is not None:
            yield f"{shown_file(problem.file)}: {what}"


def _repaired(root: Path, file: Path) -> str | None:
    """:func:`_repair`; a lock that cannot be taken (a symlink, a folder) or a failed file
    operation that names no file (a full disk, found as the data is flushed) raised as a
    :class:`HygieneError` naming ``file``, left unchanged."""
    try:
        return _repair(root, file)
    except OSError as err:
        reason = lock_error(err)
        if reason is None:
            if err.errno is None or err.filename is not None:
                raise
            reason = err.strerror or str(err)
            reason = reason[:1].lower() + reason[1:]
        raise HygieneError(f"{file}: cannot repair it: {reason}; the file is unchanged") from None


def as_repair_takes(root: Path, problem: StoreProblem) -> StoreProblem:
    """``problem``, found under ``root``, as ``--repair`` takes it: a file it leaves alone
    (:func:`left_alone`) is not repairable, and its reason says to move it aside by hand."""
    file = Path(problem.file)
    if not problem.repairable or not left_alone(root, file):
        return problem
    what = TRUNCATED if file.suffix == ".json" else INTERRUPTED_TEMPORARY
    return StoreProblem(problem.file, problem.line, f"{what}; {BY_HAND}")


def left_alone(root: Path, file: Path) -> bool:
    """Whether ``--repair`` and ``prune --yes`` leave ``file`` (a ``.json`` or temporary
    file of the store path ``root``) alone: one reached through a symlink is another
    store's, written under another lock."""
    return (is_leftover(file.name) or file.suffix == ".json") and _through_link(root, file)


def _repair(root: Path, file: Path) -> str | None:
    """What was done to ``file``; None when it was found whole under the lock. A file or
    a lock that cannot be written raises its ``OSError``."""
    if left_alone(root, file):
        return LINKED
    leftover = is_leftover(file.name)
    after = ""
    if leftover:
        backup = set_aside_leftover(file)
        what = "moved aside a temporary file of an interrupted write"
    elif file.suffix == ".json":
        backup = set_aside_truncated(file)
        what = "moved aside a truncated fixture file"
        after = _cut_by_hand(backup, None) or "; the fixture it held is lost: re-record it"
    else:
        repaired = repair_partial_tail(file)
        if repaired is None:
            return None
        backup, removed = repaired
        what = f"removed a partial tail of {removed} bytes"
        after = _cut_by_hand(backup, removed)
    return None if backup is None else f"{what} (backup: {shown_file(str(backup))}){after}"


def _cut_by_hand(backup: Path | None, tail: int | None) -> str:
    """What to do with the fixture set aside in ``backup`` (its last ``tail`` bytes, or
    all of it) when it lacks only its closing brackets (an edit cut them), else ``""``."""
    if backup is None:
        return ""
    try:
        with backup.open("rb") as read:
            if tail is not None:
                read.seek(-tail, os.SEEK_END)
            data = read.read()
    except OSError:
        return ""
    closers = missing_closers(data)
    if closers is None:
        return ""
    return (
        f"; it lacked only its closing {closers}: to keep its fixture, add {closers} at its "
        "end in the backup and put the backup back in its place"
    )


def _through_link(root: Path, file: Path) -> bool:
    """Whether ``file``, found under the store path ``root``, is a symlink or is reached
    through one below ``root`` (a file named alone: below the folder of its store)."""
    top = root
    if not root.is_dir():  # a fixture file named alone, or a temporary file beside a store file
        top = store_of(file) if file.suffix == ".json" else file.parent
    below = os.path.relpath(file, top)
    return os.path.realpath(file) != os.path.join(os.path.realpath(top), below)
