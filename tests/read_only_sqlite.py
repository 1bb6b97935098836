"""SQLite that can only read, as for a read-only history file or mount.

Tests run as root, where a file mode of 0o444 stops no write: every connection not
already asking for a mode is opened with ``mode=ro`` instead. What SQLite does beside
the file it reads (the ``-shm`` file of WAL journal mode) a folder's mode stops only for
another user: :func:`read_where_the_folder_cannot_be_written` reads as one.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

NOBODY = 65534
"""The user id of ``nobody``, who reads as root's own files do for everyone else."""


def make_sqlite_read_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Open every later SQLite connection of the test read-only."""
    connect = sqlite3.connect

    def read_only(database: Any, *args: Any, uri: bool = False, **kwargs: Any) -> Any:
        if not uri:
            database, uri = f"{Path(database).absolute().as_uri()}?mode=ro", True
        return connect(database, *args, uri=uri, **kwargs)

    monkeypatch.setattr(sqlite3, "connect", read_only)


@contextlib.contextmanager
def folder_anyone_reaches() -> Iterator[Path]:
    """An empty folder in the system's temporary folder, which every user can reach (a
    test's ``tmp_path`` only its own user can), removed after."""
    folder = Path(tempfile.mkdtemp(prefix="replaygate-read-only-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        folder.chmod(0o755)
        shutil.rmtree(folder)


def read_where_the_folder_cannot_be_written(folder: Path, read: Callable[[], Any]) -> Any:
    """What ``read()`` returns (JSON), read where ``folder`` (of
    :func:`folder_anyone_reaches`) cannot be written: made read-only (mode 0o555), it is
    read in this process when the mode stops it; for root, whom no mode stops, in a
    forked process that reads as the user ``nobody``, as a user reads a folder of
    someone else's. ``read`` runs there with the modules this process has imported (the
    interpreter's own library may be unreadable to ``nobody``): read an ordinary file
    here first, the way ``read`` does."""
    folder.chmod(0o555)
    try:
        if not os.access(folder, os.W_OK):
            return json.loads(json.dumps(read()))
        if os.geteuid() != 0:
            pytest.skip(
                "this process writes into a read-only folder, and cannot read as another user"
            )
        return _as_nobody(read)
    finally:
        folder.chmod(0o755)


def _as_nobody(read: Callable[[], Any]) -> Any:
    readable, writable = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never back into the test session
        try:
            os.close(readable)
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            try:
                outcome = {"value": read()}
            except BaseException as err:
                outcome = {"error": f"{type(err).__name__}: {err}"}
            with os.fdopen(writable, "w", encoding="utf-8") as pipe:
                json.dump(outcome, pipe)
        finally:
            os._exit(0)
    os.close(writable)
    with os.fdopen(readable, encoding="utf-8") as pipe:
        said = pipe.read()
    os.waitpid(pid, 0)
    outcome = json.loads(said) if said else {"error": "the reading process said nothing"}
    if "error" in outcome:
        raise AssertionError(f"read as the user nobody: {outcome['error']}")
    return outcome["value"]
