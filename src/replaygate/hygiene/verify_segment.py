"""Checking one segment of a store file: its fixtures' own problems, line by line.

The result numbers lines from the segment's first; :mod:`.verify` adds the lines of
the segments before it and checks duplicates across the whole store.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from replaygate.errors import FixtureFormatError
from replaygate.fixtures.fingerprint import KEY_LENGTH
from replaygate.fixtures.fixture import Fixture
from replaygate.fixtures.store import PartialTailError, iter_jsonl, read_json_file
from replaygate.hygiene.verify_checks import KEY_RANK, check_fixture
from replaygate.hygiene.verify_problem import StoreProblem
from replaygate.hygiene.verify_segments import Segment, segment_lines
from replaygate.sanitize.secret_allow import KnownSafe

RECORD = struct.Struct("<Q16s16s")
"""A fixture for the duplicate check: its line, its request's identity, its responses' digest."""


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
    """The stored key of each such fixture (by line) whose key is not the digest's start."""
    refused: bool = False
    """The file could not be read on from here: its later segments do not count."""


def check_segment(segment: Segment, require_meta: bool, safe: KnownSafe) -> SegmentResult:
    """Every problem of ``segment`` but duplicates, and its fixtures for that check."""
    result = SegmentResult(segment)
    for item in _entries(segment, result):
        if isinstance(item, StoreProblem):
            result.problems.append((KEY_RANK, item))
            continue
        line, fixture = item
        result.count += 1
        checked = check_fixture(fixture, segment.file, require_meta, safe)
        for rank, reason in checked.problems:
            result.problems.append((rank, StoreProblem(segment.file, line, reason)))
        if checked.request:
            result.records += RECORD.pack(line, checked.request, checked.responses)
            if fixture.key != checked.request.hex()[:KEY_LENGTH]:
                result.keys[line] = fixture.key
    return result


def _entries(
    segment: Segment, result: SegmentResult
) -> Iterator[tuple[int, Fixture] | StoreProblem]:
    """The fixtures and problems of a segment; a file that cannot be read safely is refused."""
    name = segment.file
    if name.endswith(".json"):
        try:
            yield 0, read_json_file(Path(name))
        except FixtureFormatError as err:
            yield StoreProblem(err.file, err.line, err.reason)
        return
    path = Path(name)
    try:
        for line, raw in segment_lines(segment):
            result.lines = line
            try:
                for loc, fixture in iter_jsonl(path, raw, first_line=line):
                    yield loc.line, fixture
            except PartialTailError as err:
                yield StoreProblem(err.file, err.line, err.reason, repairable=True)
            except FixtureFormatError as err:
                yield StoreProblem(err.file, err.line, err.reason)
    except FixtureFormatError as err:
        result.refused = True
        yield StoreProblem(err.file, err.line, err.reason, refused=True)
