"""Fixtures ``replaygate verify`` reads again from where their lines start, for the rare
checks across a store that need more than a fixture's record.

The checks across a store know a fixture by its record (:data:`.RECORD`): its request's
identity (:func:`.request_identity`), which the seal the store's writer stamps gives
without the request's digest, and where its line starts. Two checks need more, and read
the fixture again:

- a sample line names its request by the request's whole digest, so that digest is
  computed for each fixture of the same file whose key starts a sample line's digest
  (:meth:`Rereads.sampled_requests`): a file without sample lines costs nothing;
- a request recorded again is compared by its responses with where it was first
  recorded (:meth:`Rereads.same_responses`): a store that records each request once
  costs nothing.

A fixture read again must still be the one of its record (its request's identity): where
it is not, or its file can no longer be read, the file was changed while verify read it,
and is reported so (:data:`~.verify_segments.REPLACED`).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from replaygate.errors import CanonicalFormError, FixtureFormatError
from replaygate.fixtures.fingerprint import KEY_LENGTH
from replaygate.fixtures.fixture import Fixture
from replaygate.fixtures.store import SampleLine
from replaygate.fixtures.store.added import diverged, held_answer
from replaygate.fixtures.store.files import MAX_LINE_BYTES, open_regular, read_regular
from replaygate.fixtures.store.jsonl import json_file_fixture, read_line
from replaygate.hygiene.verify_checks import key_check
from replaygate.hygiene.verify_key import request_digest
from replaygate.hygiene.verify_problem import StoreProblem
from replaygate.hygiene.verify_segment import RECORD, SegmentResult
from replaygate.hygiene.verify_segments import REPLACED

_BLOCK = 1 << 16


@dataclass
class SampledFile:
    """The requests the sample lines of one file name, and what their fixtures hold as
    the file's lines are read in order."""

    requests: dict[str, bytes] = field(default_factory=dict)
    """The identity of each request a sample line names, by the digest it names it by."""
    fixtures: dict[bytes, tuple[int, Fixture]] = field(default_factory=dict)
    """The last fixture of each such request in the file and its line, with the sample
    lines read so far applied."""
    given: dict[tuple[bytes, int], int] = field(default_factory=dict)
    """The line of the last sample line read so far of each request and sample."""

    def follows(self, sample: SampleLine, request: bytes, line: int) -> str | None:
        """The problem of ``sample``, at ``line``, when it was recorded over another answer
        than the lines above give its sample (:func:`~.added.diverged`); else applies it."""
        at, fixture = self.fixtures[request]
        since = self.given.get((request, sample.sample), at)
        self.given[request, sample.sample] = line
        if not sample.recorded_over(held_answer(fixture, sample.sample)):
            return diverged(sample, "", line, since).reason
        self.fixtures[request] = (at, sample.applied_to(fixture))
        return None


class Rereads:
    """The fixtures of one store read again (:meth:`close` when done)."""

    def __init__(self) -> None:
        self._fds: dict[str, int] = {}
        self._first: dict[bytes, bytes] = {}
        """The responses' digest where each request compared so far was first recorded."""
        self.changed: list[StoreProblem] = []
        """A problem for each file found changed since its lines were read, once."""

    def close(self) -> None:
        for fd in self._fds.values():
            os.close(fd)
        self._fds.clear()

    def sampled_requests(self, results: Sequence[SegmentResult]) -> SampledFile:
        """The requests the sample lines of one file's ``results`` name, with the answers
        their fixtures hold (a digest no fixture of the file has is left out)."""
        digests = {sample.digest for result in results for _, sample in result.samples}
        found = SampledFile()
        if not digests:
            return found
        keys = {bytes.fromhex(digest[:KEY_LENGTH]) for digest in digests}
        name, base = results[0].segment.file, 0
        for result in results:
            for line, offset, key, request, takes_samples, _, _ in RECORD.iter_unpack(
                result.records
            ):
                if takes_samples and key in keys:
                    read = self._fixture_at(name, offset, request)
                    if read is None:
                        return found
                    fixture, form, full = read
                    if full is None:
                        full = request_digest(fixture.request, fixture.key, form)
                    if full in digests:
                        found.requests[full] = request
                        found.fixtures[request] = (base + line, fixture)
            base += result.lines
        return found

    def same_responses(
        self, first: tuple[str, int], again: tuple[str, int], request: bytes
    ) -> bool | None:
        """Whether the fixture of ``request`` at ``again`` (its file, where it starts)
        holds the responses of the one at ``first``; None when either was changed."""
        recorded = self._first.get(request)
        if recorded is None:
            recorded = self._responses_at(*first, request)
            if recorded is None:
                return None
            self._first[request] = recorded
        now = self._responses_at(*again, request)
        return None if now is None else now == recorded

    def _responses_at(self, file: str, offset: int, request: bytes) -> bytes | None:
        """A digest of the responses of the fixture of ``request`` at ``offset`` of
        ``file``, their keys sorted; None when it is no longer there."""
        read = self._fixture_at(file, offset, request)
        if read is None:
            return None
        sorted_keys = orjson.dumps(read[0].responses, option=orjson.OPT_SORT_KEYS)
        return hashlib.blake2b(sorted_keys, digest_size=16).digest()

    def _fixture_at(
        self, file: str, offset: int, request: bytes
    ) -> tuple[Fixture, bytes | None, str | None] | None:
        """The fixture of ``request`` at ``offset`` of ``file``, its match form when its
        line holds it verbatim, and its request's digest when computed
        (:func:`.key_check`); None (the file noted changed) when it is no longer there."""
        try:
            fixture, form = self._entry_at(file, offset)
            if isinstance(fixture, Fixture):
                identity, full = key_check(fixture, form)
                if identity == request:
                    return fixture, form, full
        except (FixtureFormatError, CanonicalFormError, OSError):
            pass
        problem = StoreProblem(file, 0, REPLACED)
        if problem not in self.changed:
            self.changed.append(problem)
        return None

    def _entry_at(self, file: str, offset: int) -> tuple[Fixture | SampleLine, bytes | None]:
        """What stands at ``offset`` of ``file`` (a one-fixture ``.json`` file whole), as
        :func:`~replaygate.fixtures.store.jsonl.read_line` reads it."""
        if file.endswith(".json"):
            return json_file_fixture(Path(file), read_regular(Path(file))), None
        return read_line(self._line_at(file, offset), file, 0)

    def _line_at(self, file: str, offset: int) -> bytes:
        """The line of ``file`` starting at ``offset``, without its newline (cut past
        :data:`MAX_LINE_BYTES`: no line longer was read)."""
        fd = self._fds.get(file)
        if fd is None:
            fd = self._fds[file] = open_regular(Path(file))
        blocks: list[bytes] = []
        size = 0
        while size <= MAX_LINE_BYTES:
            block = os.pread(fd, _BLOCK, offset + size)
            end = block.find(b"\n")
            if end >= 0:
                blocks.append(block[:end])
                break
            if not block:
                break
            blocks.append(block)
            size += len(block)
        return b"".join(blocks)
