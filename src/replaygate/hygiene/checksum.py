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

A file another program changes while it is read (cut, edited, appended to) is refused,
naming it (its digest would be of neither its old bytes nor its new ones): run the
command again.

A file holding a git merge conflict marker (a ``<<<<<<<``, ``=======`` or ``>>>>>>>``
line, a merge left unresolved) is refused, as every reader of the store refuses it
(:func:`~replaygate.fixtures.store.jsonl.conflict_error`, naming the file and the
marker's line): its digest would key a cache on fixtures no replay can read. So is a
file that stands in for its fixtures in this checkout only: a Git LFS pointer (a checkout
without Git LFS) or a symbolic link git checked out as a file holding its target's path
(``core.symlinks=false``); its digest would differ from that of a checkout of the same
commit that holds the fixtures, and key a cache on no fixture at all. So is a SQLite
database (the eval history, ``.replaygate/history.db``, given for the store beside it),
which holds no fixture either, and a file every reader refuses from its first bytes on:
one saved as UTF-16 or UTF-32, or starting with a UTF-8 byte order mark. So is a file whose
end an interrupted write cut short (a ``.jsonl`` file's truncated last line, a truncated
one-fixture file), which every reader refuses until ``replaygate verify --repair``.
"""

from __future__ import annotations

import codecs
import hashlib
import os
import re
from pathlib import Path

from replaygate.errors import (
    BOM_REASON,
    LFS_POINTER,
    SQLITE_HEADER,
    FixtureFormatError,
    checked_out_link,
    is_conflict_marker,
    looks_like_wide_text,
    wide_reason,
)
from replaygate.fixtures.store import store_files
from replaygate.fixtures.store.files import jsonl_lines, open_binary, read_regular
from replaygate.fixtures.store.jsonl import (
    LFS_REASON,
    SQLITE_REASON,
    PartialTailError,
    TruncatedFileError,
    conflict_error,
    missing_closers,
    partial_tail,
    truncated_file,
)
from replaygate.regular import file_state, waiting

_MARKER_START = re.compile(rb"\n(?:<{7}|\|{7}|={7}|>{7})")
"""Where a git conflict marker may start a line: searched for as a file streams by, so
only a file that may hold one is read again line by line."""


def store_checksum(path: Path) -> str:
    """The SHA-256 hex digest of the store at ``path`` (a ``.jsonl`` file or a folder).

    Raises :class:`~replaygate.errors.FixtureFormatError` for a fixture path that is
    not a regular file, a fixture file holding a git merge conflict marker, or one that
    stands in for its fixtures (:func:`_refuse_stand_in`).
    """
    root = path if path.is_dir() else path.parent
    total = hashlib.sha256()
    named = sorted((file.relative_to(root).as_posix(), file) for file in store_files(path))
    for name, file in named:
        # a name that is not UTF-8 keeps its bytes (os.fsencode), as on disk
        digest, marked, head, ended = _streamed_digest(file, crlf_as_lf=True)
        _refuse_stand_in(file, head)
        if marked:
            _refuse_conflict(file)
        if not ended:
            _refuse_cut(file)
        total.update(os.fsencode(name) + b"\0" + f"{digest}\n".encode())
    return total.hexdigest()


def file_digest(file: Path, *, crlf_as_lf: bool = False) -> str:
    """The SHA-256 hex digest of the regular file ``file``, read as it streams by (with
    ``crlf_as_lf``, of its bytes with each CRLF written LF);
    :class:`~replaygate.errors.FixtureFormatError` for a path that is no regular file."""
    return _streamed_digest(file, crlf_as_lf=crlf_as_lf)[0]


_HEAD = 4097
"""How much of a file's start :func:`_streamed_digest` keeps: one byte more than the
longest path :func:`~replaygate.errors.checked_out_link` reads as a file's whole text."""


def _streamed_digest(file: Path, *, crlf_as_lf: bool) -> tuple[str, bool, bytes, bool]:
    """:func:`file_digest`, whether a line of the file may start with a git conflict
    marker (:data:`_MARKER_START`), the file's first :data:`_HEAD` bytes (all of a
    shorter file), and whether it is empty or ends in a newline (else its last line may
    be cut short)."""
    digest = hashlib.sha256()
    head = b""
    held = b""  # a CR that ends a chunk, until the next shows whether an LF follows it
    tail = b"\n"  # the end of the last chunk, where a marker may begin; the file starts a line
    marked = False
    with open_binary(file) as handle:
        before = file_state(os.fstat(handle.fileno()))
        while chunk := handle.read(1 << 20):
            head = head or chunk[:_HEAD]
            marked = marked or _MARKER_START.search(tail + chunk[:7]) is not None
            marked = marked or _MARKER_START.search(chunk) is not None
            tail = chunk[-7:]
            if crlf_as_lf:
                chunk = (held + chunk).replace(b"\r\n", b"\n")
                held = b"\r" if chunk.endswith(b"\r") else b""
                chunk = chunk[: len(chunk) - len(held)]
            digest.update(chunk)
        if chunk is None:  # a file that waits for data (/proc/kmsg): no store file
            raise waiting(file)
        if file_state(os.fstat(handle.fileno())) != before:
            raise FixtureFormatError(
                str(file),
                0,
                "changed on disk while it was read (cut, edited or appended to by another "
                "program), so its digest would be of neither its old bytes nor its new ones: "
                "run the command again",
            )
    digest.update(held)
    return digest.hexdigest(), marked, head, tail[-1:] in (b"", b"\n")


def _refuse_stand_in(file: Path, head: bytes) -> None:
    """Refuse ``file``, whose first bytes are ``head``, when it stands in for its fixtures
    in this checkout only: a Git LFS pointer, or a symlink checked out as a file holding
    its target's path; or when it is a SQLite database, which holds none, or text no
    reader reads (UTF-16 or UTF-32, a UTF-8 byte order mark); named as every reader of
    the store names it."""
    if head.startswith(LFS_POINTER):
        reason: str | None = LFS_REASON
    elif head.startswith(SQLITE_HEADER):
        reason = SQLITE_REASON
    elif looks_like_wide_text(head):
        reason = wide_reason(str(file), head, 1)
    elif head.startswith(codecs.BOM_UTF8):
        reason = BOM_REASON
    else:
        reason = checked_out_link(head)
    if reason is not None:
        raise FixtureFormatError(str(file), 0 if file.suffix == ".json" else 1, reason)


def _refuse_cut(file: Path) -> None:
    """Refuse ``file``, which ends without a newline, when its end is what an interrupted
    write leaves (a ``.jsonl`` file's last line cut short, a one-fixture file cut short),
    named as every reader of the store names it, with the repair."""
    if file.suffix == ".json":
        data = read_regular(file)
        if truncated_file(file, data):
            raise TruncatedFileError(str(file), missing_closers(data))
        return
    size, last = file.stat().st_size, (0, b"")
    for number, raw in jsonl_lines(file):
        last = (number, raw)
    number, raw = last
    if raw and not raw.endswith(b"\n") and partial_tail(raw):
        raise PartialTailError(str(file), number, size - len(raw), missing_closers(raw))


def _refuse_conflict(file: Path) -> None:
    """Refuse ``file`` at its first line that is a git conflict marker, if one is."""
    for number, raw in jsonl_lines(file):
        if is_conflict_marker(raw):
            raise conflict_error(str(file), number, one_fixture=file.suffix == ".json")
