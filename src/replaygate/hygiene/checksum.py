"""A stable digest of a fixture store's content, for CI cache keys.

The digest covers every fixture file's path (relative to the store) and bytes, in
sorted path order: it ignores file order on disk and modification times, and any
changed, added, removed or renamed fixture file changes it. Each file is read as the
store reads it (:func:`~replaygate.fixtures.store.files.open_binary`): a folder, a
FIFO or a device where a fixture file is expected is refused, naming it, and a file
is hashed as it streams by, never held whole.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from replaygate.fixtures.store import store_files
from replaygate.fixtures.store.files import open_binary
from replaygate.regular import waiting


def store_checksum(path: Path) -> str:
    """The SHA-256 hex digest of the store at ``path`` (a ``.jsonl`` file or a folder).

    Raises :class:`~replaygate.errors.FixtureFormatError` for a fixture path that is
    not a regular file.
    """
    root = path if path.is_dir() else path.parent
    total = hashlib.sha256()
    named = sorted((file.relative_to(root).as_posix(), file) for file in store_files(path))
    for name, file in named:
        # a name that is not UTF-8 keeps its bytes (os.fsencode), as on disk
        total.update(os.fsencode(name) + b"\0" + f"{file_digest(file)}\n".encode())
    return total.hexdigest()


def file_digest(file: Path) -> str:
    """The SHA-256 hex digest of the regular file ``file``, read as it streams by;
    :class:`~replaygate.errors.FixtureFormatError` for a path that is no regular file."""
    digest = hashlib.sha256()
    with open_binary(file) as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
        if chunk is None:  # a file that waits for data (/proc/kmsg): no store file
            raise waiting(file)
    return digest.hexdigest()
