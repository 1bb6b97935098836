"""Checking one segment of a store file: the problems its lines hold themselves.

The result numbers lines from the segment's first; :mod:`.verify` adds the lines of
the segments before it and makes the checks across the whole store: duplicates, and
where each sample line applies and whether its response replays.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from replaygate.errors import FixtureFormatError
from replaygate.fixtures.fingerprint import KEY_LENGTH
from replaygate.fixtures.fixture import Fixture
from replaygate.fixtures.store import PartialTailError, SampleLine, iter_lines, read_json_file
from replaygate.hygiene.verify_checks import KEY_RANK, check_fixtures, check_sample
from replaygate.hygiene.verify_problem import StoreProblem
from replaygate.hygiene.verify_segments import Segment, segment_lines
from replaygate.sanitize.secret_allow import KnownSafe

BATCH = 16
"""Fixtures checked together (their secret scan clears the clean ones in one pass)."""
RECORD = struct.Struct("<Q16s16s?B")
"""A fixture for the checks across the store: its line, its request's identity, its
responses' digest, whether its key starts its digest, how its responses are read."""


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
    samples: list[tuple[int, SampleLine]] = field(default_factory=list)
    """The sample lines, by line, in line order."""
    refused: bool = False
    """The file could not be read on from here: its later segments do not count."""


def check_segment(segment: Segment, require_meta: bool, safe: KnownSafe) -> SegmentResult:
    """The problems ``segment``'s lines hold themselves; what the store-wide checks need."""
    result = SegmentResult(segment)
    batch: list[tuple[int, Fixture]] = []
    for item in _entries(segment, result):
        if isinstance(item, StoreProblem):
            _check_batch(batch, result, require_meta, safe)
            result.problems.append((KEY_RANK, item))
            continue
        line, entry = item
        if isinstance(entry, SampleLine):
            _check_batch(batch, result, require_meta, safe)
            result.samples.append((line, entry))
            for rank, reason in check_sample(entry, safe):
                result.problems.append((rank, StoreProblem(segment.file, line, reason)))
        else:
            batch.append((line, entry))
            if len(batch) >= BATCH:
                _check_batch(batch, result, require_meta, safe)
    _check_batch(batch, result, require_meta, safe)
    return result


def _check_batch(
    batch: list[tuple[int, Fixture]], result: SegmentResult, require_meta: bool, safe: KnownSafe
) -> None:
    """Check the fixtures of ``batch`` into ``result``, and empty it."""
    name = result.segment.file
    fixtures = [fixture for _, fixture in batch]
    for (line, fixture), checked in zip(
        batch, check_fixtures(fixtures, name, require_meta, safe), strict=True
    ):
        result.count += 1
        for rank, reason in checked.problems:
            result.problems.append((rank, StoreProblem(name, line, reason)))
        if checked.request:
            result.records += RECORD.pack(
                line, checked.request, checked.responses, checked.key_matches, checked.reader
            )
            if fixture.key != checked.request.hex()[:KEY_LENGTH]:
                result.keys[line] = fixture.key
    batch.clear()


def _entries(
    segment: Segment, result: SegmentResult
) -> Iterator[tuple[int, Fixture | SampleLine] | StoreProblem]:
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
                for loc, entry in iter_lines(path, raw, first_line=line):
                    yield loc.line, entry
            except PartialTailError as err:
                yield StoreProblem(err.file, err.line, err.reason, repairable=True)
            except FixtureFormatError as err:
                yield StoreProblem(err.file, err.line, err.reason)
    except FixtureFormatError as err:
        result.refused = True
        yield StoreProblem(err.file, err.line, err.reason, refused=True)
