"""A stable digest of a fixture store's content, for CI cache keys.

The digest covers every fixture file's path (relative to the store) and bytes, in
sorted path order: it ignores file order on disk and modification times, and any
changed, added, removed or renamed fixture file changes it. A line end is taken as the
store reads it, CRLF as LF (a JSON text holds a carriage return only escaped, so its
bytes ``\r\n`` end a line), so an LF and a CRLF checkout of the same fixtures (git's
``core.autocrlf``, ``eol=crlf`` on Windows) have the same digest. Each file is read as the
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
        digest = file_digest(file, crlf_as_lf=True)
        total.update(os.fsencode(name) + b"\0" + f"{digest}\n".encode())
    return total.hexdigest()


def file_digest(file: Path, *, crlf_as_lf: bool = False) -> str:
    """The SHA-256 hex digest of the regular file ``file``, read as it streams by (with
    ``crlf_as_lf``, of its bytes with each CRLF written LF);
    :class:`~replaygate.errors.FixtureFormatError` for a path that is no regular file."""
    digest = hashlib.sha256()
    held = b""  # a CR that ends a chunk, until the next shows whether an LF follows it
    with open_binary(file) as handle:
        while chunk := handle.read(1 << 20):
            if crlf_as_lf:
                chunk = (held + chunk).replace(b"\r\n", b"\n")
                held = b"\r" if chunk.endswith(b"\r") else b""
                chunk = chunk[: len(chunk) - len(held)]
            digest.update(chunk)
        if chunk is None:  # a file that waits for data (/proc/kmsg): no store file
            raise waiting(file)
    digest.update(held)
    return digest.hexdigest()
