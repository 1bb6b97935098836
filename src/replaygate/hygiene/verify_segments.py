"""A store's files cut into segments: byte ranges of whole lines, checked independently.

A large ``.jsonl`` file is cut at line ends about every :data:`SEGMENT_BYTES`, so its
parts can be checked in parallel; a segment numbers its lines from 1 and the reader
adds the lines of the segments before it. Segments are grouped into tasks of about
:data:`SEGMENT_BYTES` each (many small files make one task).
"""

from __future__ import annotations

import io
import itertools
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from replaygate.errors import FixtureFormatError
from replaygate.fixtures.store.files import MAX_LINE_BYTES, open_binary, open_regular, too_long
from replaygate.fixtures.store.writing import own_lock

SEGMENT_BYTES = 8 << 20
"""About how many bytes of fixtures one task reads."""
TASK_FILES = 256
"""At most how many files one task reads."""
_PROBE = 1 << 20
_READ_BUFFER = 1 << 20


@dataclass(frozen=True)
class Segment:
    """Bytes ``start`` to ``end`` of ``file`` (``end`` None: to the end), whole lines."""

    file: str
    start: int = 0
    end: int | None = None
    size: int = 0
    """How many bytes it holds, as far as known when it was cut (for grouping only)."""
    cut_from: tuple[int, int, int] | None = None
    """The device, inode and size of the file it was cut from, when it is one of several
    segments: the cuts are line ends of that file only."""


REPLACED = (
    "was replaced or cut shorter while verify read it (compact, a recording or a checkout "
    "wrote it meanwhile): part of it was not checked; run verify again"
)


def file_segments(name: str) -> list[Segment]:
    """``name`` cut into segments; a file that cannot be read is one (its reader says why)."""
    try:
        size = os.stat(name).st_size
    except OSError:
        return [Segment(name)]
    if not name.endswith(".jsonl") or size < 2 * SEGMENT_BYTES:
        return [Segment(name, size=size)]
    try:
        with open_binary(Path(name)) as handle:
            held = os.fstat(handle.fileno())
            size = held.st_size
            cuts = [0, *_line_starts(handle, size), size]
    except (OSError, FixtureFormatError):
        return [Segment(name, size=size)]
    last = len(cuts) - 2
    cut_from = (held.st_dev, held.st_ino, size)
    return [
        Segment(name, start, None if i == last else end, end - start, cut_from)
        for i, (start, end) in enumerate(itertools.pairwise(cuts))
    ]


def _line_starts(handle: BinaryIO, size: int) -> Iterator[int]:
    """The first line start at or after each multiple of :data:`SEGMENT_BYTES`."""
    for nominal in range(SEGMENT_BYTES, size - SEGMENT_BYTES // 2, SEGMENT_BYTES):
        handle.seek(nominal - 1)
        pos = nominal - 1
        limit = min(size, nominal + SEGMENT_BYTES // 2)
        while pos < limit:
            block = handle.read(min(_PROBE, limit - pos))
            if not block:
                break
            at = block.find(b"\n")
            if at >= 0:
                if pos + at + 1 < size:
                    yield pos + at + 1
                break
            pos += len(block)


def tasks(segments: Sequence[Segment]) -> list[list[Segment]]:
    """``segments`` in order, grouped into tasks of about :data:`SEGMENT_BYTES` each."""
    grouped: list[list[Segment]] = []
    current: list[Segment] = []
    held = 0
    for segment in segments:
        if current and (held + segment.size > SEGMENT_BYTES or len(current) >= TASK_FILES):
            grouped.append(current)
            current, held = [], 0
        current.append(segment)
        held += segment.size
    if current:
        grouped.append(current)
    return grouped


def segment_lines(segment: Segment) -> Iterator[tuple[int, bytes]]:
    """``(line number in the segment, bytes)`` of each line; a line over the maximum is
    refused, and so is a segment of a file that is no longer the one it was cut from
    (another file renamed over it, or cut shorter): its offsets are no line ends there.
    Where the read ends (a line without its newline, or no line), a file found shorter
    than it was (:func:`_size_kept`) was cut shorter while read: refused too, so the
    line the cut left is never taken for damage. A last line found cut is read again
    once its writer is done (:func:`_written_out`)."""
    path = Path(segment.file)
    with os.fdopen(open_regular(path), "rb", buffering=_READ_BUFFER) as handle:
        size = _size_kept(handle, segment)
        handle.seek(segment.start)
        lines: BinaryIO = handle
        end = segment.end
        number, pos, waited = 1, segment.start, False
        while end is None or pos < end:
            raw = lines.readline(MAX_LINE_BYTES + 1)
            if len(raw) > MAX_LINE_BYTES:
                raise too_long(path, number)
            if not raw.endswith(b"\n"):  # the end of the file, as it was or cut shorter
                if os.fstat(handle.fileno()).st_size < size:
                    raise FixtureFormatError(str(path), 0, REPLACED)
                if not raw:
                    return
                if end is None and not waited:
                    waited = True
                    rest = _written_out(handle.fileno(), path, pos)
                    if rest is not None:
                        lines = io.BytesIO(rest)
                        continue
            yield number, raw
            number += 1
            pos += len(raw)


def _size_kept(handle: BinaryIO, segment: Segment) -> int:
    """The size the file open as ``handle`` keeps while ``segment`` is read: the size it
    was cut at, or for a file read whole, its size now. A segment of a file that is no
    longer the one it was cut from is refused (:data:`REPLACED`)."""
    now = os.fstat(handle.fileno())
    if segment.cut_from is None:
        return now.st_size
    device, inode, size = segment.cut_from
    if (now.st_dev, now.st_ino) != (device, inode) or now.st_size < size:
        raise FixtureFormatError(str(Path(segment.file)), 0, REPLACED)
    return size


def _written_out(fd: int, path: Path, pos: int) -> bytes | None:
    """The bytes of the open file ``fd`` (the ``.jsonl`` file at ``path``) from ``pos``,
    where its last line was found cut, read under the lock every append to it takes, once
    a writer half way through its append lets go; None where no writer made that lock
    (no append is under way: a reader makes none) or it cannot be taken."""
    try:
        lock = own_lock(path)
        if not lock.acquire_if_made():
            return None
    except OSError:
        return None
    try:
        return os.pread(fd, max(0, os.fstat(fd).st_size - pos), pos)
    finally:
        lock.release()
