"""Checking one segment of a store file: the problems its lines hold themselves.

The result numbers lines from the segment's first; :mod:`.verify` adds the lines of
the segments before it and makes the checks across the whole store: duplicates, and
where each sample line applies and whether its response replays.
"""

from __future__ import annotations

import dataclasses
import struct
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from replaygate.errors import WIDE_TEXTS, FixtureFormatError
from replaygate.fixtures.fingerprint import KEY_LENGTH
from replaygate.fixtures.fixture import Fixture
from replaygate.fixtures.store import PartialTailError, SampleLine, TruncatedFileError
from replaygate.fixtures.store.files import read_regular
from replaygate.fixtures.store.jsonl import json_file_fixture, read_line
from replaygate.hygiene.verify_checks import KEY_RANK, Prepared, check_sample, finish, prepare
from replaygate.hygiene.verify_problem import StoreProblem
from replaygate.hygiene.verify_segments import Segment, segment_lines
from replaygate.json_where import field_line
from replaygate.regular import is_blank
from replaygate.sanitize.secret_allow import KnownSafe

BATCH = 256
"""Fixtures checked together (their secret scan clears the clean ones in one pass)."""
RECORD = struct.Struct("<QQ6s16s??B")
"""A fixture for the checks across the store: its line, where the line starts in its
file, its key as bytes when its key starts its digest (zeros otherwise), its request's
identity (:func:`.request_identity`), whether its key starts its digest, whether every
response is null, how its responses are read."""
NO_KEY = bytes(KEY_LENGTH // 2)


@dataclass
class SegmentResult:
    """What one segment holds: problems by line, fixtures for the duplicate check."""

    segment: Segment
    lines: int = 0
    """Lines read (a later segment of the file starts after them)."""
    count: int = 0
    """Fixtures read."""
    problems: list[tuple[int, StoreProblem]] = field(default_factory=list)
    """``(rank, problem)`` in line order; each problem's line counts from the segment's."""
    records: bytearray = field(default_factory=bytearray)
    """A :data:`RECORD` for each fixture with a canonical request, in line order."""
    keys: dict[int, str] = field(default_factory=dict)
    """The stored key of each such fixture (by line) whose key is not the
    :data:`KEY_LENGTH` digits its digest starts with."""
    samples: list[tuple[int, SampleLine]] = field(default_factory=list)
    """The sample lines, by line, in line order."""
    refused: bool = False
    """The file could not be read on from here: its later segments do not count."""


def check_segment(segment: Segment, require_meta: bool, safe: KnownSafe) -> SegmentResult:
    """The problems ``segment``'s lines hold themselves; what the store-wide checks need."""
    batch = _Batch(SegmentResult(segment), require_meta, safe)
    name = segment.file
    if name.endswith(".json"):
        try:  # not a regular file, unreadable, too long: refused unread, as a .jsonl file
            data = read_regular(Path(name))
        except FixtureFormatError as err:
            batch.result.refused = True
            batch.problem(StoreProblem(err.file, err.line, err.reason, refused=True))
            return batch.done()
        try:
            fixture = json_file_fixture(Path(name), data)
        except TruncatedFileError as err:
            batch.problem(StoreProblem(err.file, err.line, err.reason, repairable=True))
        except FixtureFormatError as err:
            batch.problem(StoreProblem(err.file, err.line, err.reason))
        else:  # written as a line, the secret scan clears it as it clears a JSONL line
            batch.add(0, 0, fixture, orjson.dumps(fixture.to_json()), None)
        return _at_field_lines(batch.done(), data)
    result = batch.result
    offset = segment.start
    try:
        for line, raw in segment_lines(segment):
            result.lines = line
            try:
                read = _read_line(name, raw, line)
            except PartialTailError as err:
                batch.problem(StoreProblem(err.file, err.line, err.reason, repairable=True))
            except FixtureFormatError as err:
                batch.problem(StoreProblem(err.file, err.line, err.reason))
                if err.reason.startswith(WIDE_TEXTS):  # one problem for the file: re-save it
                    result.refused = True
                    break
            else:
                if read is not None:
                    batch.add(line, offset, *read)
            offset += len(raw)
    except FixtureFormatError as err:
        result.refused = True
        batch.problem(StoreProblem(err.file, err.line, err.reason, refused=True))
    return batch.done()


class _Batch:
    """The fixtures of a segment waiting to be checked together, and the segment's result."""

    def __init__(self, result: SegmentResult, require_meta: bool, safe: KnownSafe) -> None:
        self.result = result
        self.file = result.segment.file
        self.require_meta = require_meta
        self.safe = safe
        self.lines: list[tuple[int, int]] = []
        """``(line, where it starts in the file)`` of each fixture waiting."""
        self.prepared: list[Prepared] = []

    def add(
        self,
        line: int,
        offset: int,
        entry: Fixture | SampleLine,
        written: bytes | None,
        form: bytes | None,
    ) -> None:
        """A fixture joins the batch; a sample line is checked at once, after the batch.

        ``written`` and ``form`` are the fixture's line and its request's match form
        when the line is exactly as the store writes it (a one-fixture file's fixture
        written as such a line, without a form) (:func:`.prepare`)."""
        if isinstance(entry, SampleLine):
            self.flush()
            result = self.result
            result.samples.append((line, entry))
            for rank, reason in check_sample(entry, self.safe):
                result.problems.append((rank, StoreProblem(result.segment.file, line, reason)))
            return
        self.lines.append((line, offset))
        self.prepared.append(prepare(entry, written, form, self.file, self.require_meta))
        if len(self.lines) >= BATCH:
            self.flush()

    def problem(self, problem: StoreProblem) -> None:
        """A line's problem, after the fixtures before it."""
        self.flush()
        self.result.problems.append((KEY_RANK, problem))

    def done(self) -> SegmentResult:
        self.flush()
        return self.result

    def flush(self) -> None:
        """Check the fixtures of the batch into the result, and empty it."""
        if not self.lines:
            return
        result = self.result
        name = result.segment.file
        problems, records, keys, pack = result.problems, result.records, result.keys, RECORD.pack
        checks = finish(self.prepared, name, self.safe)
        result.count += len(checks)
        for (line, offset), item, checked in zip(self.lines, self.prepared, checks, strict=True):
            for rank, reason in checked:
                problems.append((rank, StoreProblem(name, line, reason)))
            request = item.request
            if request:
                key, key_matches = item.key, item.key_matches
                known = bytes.fromhex(key[:KEY_LENGTH]) if key_matches else NO_KEY
                records += pack(line, offset, known, request, key_matches, item.empty, item.reader)
                if not key_matches or len(key) != KEY_LENGTH:
                    keys[line] = key
        self.lines, self.prepared = [], []


def _read_line(
    name: str, raw: bytes, line: int
) -> tuple[Fixture | SampleLine, bytes | None, bytes | None] | None:
    """A JSONL line (its newline included, if it has one) read as
    :func:`~replaygate.fixtures.store.jsonl.read_line` reads it (None for a blank line),
    with the line itself and its request's match form when the line is a fixture exactly
    as the store writes it."""
    complete = raw.endswith(b"\n")
    text = raw[:-1] if complete else raw
    if is_blank(text):
        return None
    entry, form = read_line(text, name, line, complete=complete)
    return entry, None if form is None else text, form


def _at_field_lines(result: SegmentResult, data: bytes) -> SegmentResult:
    """``result`` of a one-fixture ``.json`` file (``data``), each problem of the whole
    file that names a field the file holds put at that field's line
    (:func:`~replaygate.json_where.field_line`): as the store writes it, the file is
    pretty, a field a line (one written on one line is named alone, as before)."""
    for at, (rank, problem) in enumerate(result.problems):
        line = None if problem.line else field_line(data, problem.reason)
        if line is not None:
            result.problems[at] = (rank, dataclasses.replace(problem, line=line))
    return result
