"""The checks of ``replaygate verify`` across a store, made in line order as segments come back.

A fixture whose request was recorded before in the store with other responses is a
duplicate; one whose every response is ``null`` holds nothing to replay, unless a
sample line below it in its file fills one (:func:`unfilled`). A sample line applies to
the last fixture of its request above it in its file whose key starts its digest (none
is a problem), and its response must replay as that fixture's would, under the
interface of its own ``meta`` when it has one. Duplicates compare the responses written
on the fixtures' own lines.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from dataclasses import dataclass, field

from replaygate.errors import located, shown_file
from replaygate.fixtures.fingerprint import KEY_LENGTH
from replaygate.fixtures.store import SampleLine
from replaygate.fixtures.store.added import unresolved
from replaygate.hygiene.verify_checks import NOTHING_RECORDED, STORE_RANK
from replaygate.hygiene.verify_problem import StoreProblem
from replaygate.hygiene.verify_replay import response_problems, sample_reader, unknown_interface
from replaygate.hygiene.verify_requests import StoreRequests
from replaygate.hygiene.verify_reread import Rereads, SampledFile
from replaygate.hygiene.verify_segment import RECORD, SegmentResult


def across_store(
    result: SegmentResult,
    requests: StoreRequests,
    base: int,
    sampled: SampledFile,
    rereads: Rereads,
    damaged: DamagedAbove | None = None,
) -> Iterator[tuple[int, StoreProblem]]:
    """The problems of a segment's lines decided across the store, ranked, in line order.

    ``base`` is the number of lines of the file before the segment; ``sampled`` the
    requests the sample lines of the file name and what their fixtures hold
    (:meth:`.Rereads.sampled_requests`); ``rereads`` reads the fixtures
    of a request recorded again, to compare their responses; ``damaged`` the lines of the
    file, read so far, that may hide a sample line's fixture.
    """
    name = result.segment.file
    number = requests.number(name)
    samples = iter(result.samples)
    pending = next(samples, None)
    for line, offset, known, request, takes_samples, empty, reader in RECORD.iter_unpack(
        result.records
    ):
        while pending is not None and pending[0] < line:
            yield from _sample_problems(
                name, base + pending[0], pending[1], requests, sampled, damaged
            )
            pending = next(samples, None)
        if empty:
            requests.empty.setdefault(request, []).append(base + line)
        first = requests.add(request, number, base + line, offset, takes_samples, reader)
        if first is None:
            continue
        same = rereads.same_responses((first[0], first[2]), (name, offset), request)
        if same is not None:  # else its file changed: reported so
            requests.repeat(same)
        if same is False:
            key = shown_file(result.keys.get(line) or known.hex())  # a hand edit's NUL escaped
            reason = (
                f"request of key {key} recorded twice with different responses "
                f"(also at {located(first[0], first[1])}); keep one"
            )
            yield STORE_RANK, StoreProblem(name, base + line, reason)
    while pending is not None:
        yield from _sample_problems(name, base + pending[0], pending[1], requests, sampled, damaged)
        pending = next(samples, None)


@dataclass
class DamagedAbove:
    """The lines of one file, read so far, that may hide the fixture a sample line below
    them applies to: those read as neither a fixture nor a sample line, and each fixture
    whose request or key was edited (its stored key no longer its request's), by its
    stored key."""

    unread: list[int] = field(default_factory=list)
    """In file order, as the segments are added in it."""
    edited: dict[str, int] = field(default_factory=dict)

    def add(self, result: SegmentResult, base: int) -> None:
        """Note the lines of ``result``'s segment, ``base`` lines of the file before it."""
        read = {line for line, _ in result.samples}
        for line, *_, key_matches, _empty, _reader in RECORD.iter_unpack(result.records):
            read.add(line)
            if not key_matches:
                self.edited.setdefault(result.keys[line][:KEY_LENGTH], base + line)
        lines = {problem.line for _, problem in result.problems if problem.line not in read}
        self.unread += [base + line for line in sorted(lines)]

    def line_for(self, sample: SampleLine, line: int) -> int | None:
        """The damaged line above ``line`` that may hold the fixture of ``sample``: a
        fixture of its key edited, else the nearest damaged line above it (a sample line
        is appended below its fixture, so among several damaged lines the last above it
        is the likeliest; the first of them sent the reader to a line far away)."""
        edited = self.edited.get(sample.digest[:KEY_LENGTH])
        if edited is not None and edited < line:
            return edited
        at = bisect.bisect_left(self.unread, line)
        return self.unread[at - 1] if at else None


def unfilled(requests: StoreRequests, name: str) -> list[StoreProblem]:
    """The fixtures of file ``name``, just read, that hold no response; forgets them."""
    lines = sorted(line for found in requests.empty.values() for line in found)
    requests.empty.clear()
    return [StoreProblem(name, line, NOTHING_RECORDED) for line in lines]


def _sample_problems(
    name: str,
    line: int,
    sample: SampleLine,
    requests: StoreRequests,
    sampled: SampledFile,
    damaged: DamagedAbove | None,
) -> Iterator[tuple[int, StoreProblem]]:
    request = sampled.requests.get(sample.digest)
    reader = None if request is None else requests.reader_in(request, name)
    if request is None or reader is None:
        above = None if damaged is None else damaged.line_for(sample, line)
        reason = unresolved(sample, name, line, above).reason
        yield STORE_RANK, StoreProblem(name, line, reason)
        return
    over = sampled.follows(sample, request, line)
    if over is not None:
        yield STORE_RANK, StoreProblem(name, line, over)
    if sample.response is not None:
        requests.filled(request)
    reader = sample_reader(reader, sample.meta)
    unknown = unknown_interface(reader, sample.meta)  # its meta replaces the fixture's
    if unknown is not None:
        yield STORE_RANK, StoreProblem(name, line, unknown)
    for reason in response_problems(sample.response, "response", reader, sample.meta):
        yield STORE_RANK, StoreProblem(name, line, reason)
