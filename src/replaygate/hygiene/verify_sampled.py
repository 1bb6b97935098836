"""The request each sample line of a file names, for ``replaygate verify``.

A sample line names its request by the request's whole digest, while the checks across
a store know a fixture's request by its identity (:func:`.request_identity`), which the
seal the store's writer stamps gives without the digest. So the digest is computed only
where a sample line needs it: for each fixture of the same file whose key starts a
sample line's digest, read again from its line. A file without sample lines costs
nothing here.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from replaygate.errors import CanonicalFormError, FixtureFormatError
from replaygate.fixtures.fixture import Fixture
from replaygate.fixtures.store.files import MAX_LINE_BYTES, open_regular
from replaygate.fixtures.store.jsonl import read_line
from replaygate.hygiene.verify_checks import key_check
from replaygate.hygiene.verify_key import request_digest
from replaygate.hygiene.verify_problem import StoreProblem
from replaygate.hygiene.verify_segment import NO_KEY, RECORD, SegmentResult
from replaygate.hygiene.verify_segments import REPLACED

_IDENTITY = 16
"""Bytes of a digest that name a request in the checks across a store."""
_BLOCK = 1 << 16


def sampled_requests(
    results: Sequence[SegmentResult],
) -> tuple[dict[bytes, bytes], StoreProblem | None]:
    """The identity of the request each sample line of one file's ``results`` names, by
    the first 16 bytes of its digest (a digest no fixture of the file has is left out),
    and a problem when the file changed since its lines were read."""
    digests = {
        bytes.fromhex(sample.digest[: 2 * _IDENTITY])
        for result in results
        for _, sample in result.samples
    }
    if not digests:
        return {}, None
    keys = {digest[: len(NO_KEY)] for digest in digests}
    name = results[0].segment.file
    found: dict[bytes, bytes] = {}
    try:
        fd = open_regular(Path(name))
    except (FixtureFormatError, OSError):
        return found, StoreProblem(name, 0, REPLACED)
    try:
        for result in results:
            for _, offset, key, request, _, takes_samples, _, _ in RECORD.iter_unpack(
                result.records
            ):
                if takes_samples and key in keys:
                    digest = _digest_at(fd, name, offset, request)
                    if digest is None:
                        return found, StoreProblem(name, 0, REPLACED)
                    if digest in digests:
                        found[digest] = request
    finally:
        os.close(fd)
    return found, None


def _digest_at(fd: int, name: str, offset: int, identity: bytes) -> bytes | None:
    """The first 16 bytes of the digest of the fixture's request at ``offset`` of the
    open file ``fd`` (named ``name``); None when no fixture of request ``identity``
    stands there any longer."""
    try:
        fixture, form = read_line(_line_at(fd, offset), name, 0)
        if not isinstance(fixture, Fixture):
            return None
        now, full = key_check(fixture, form)
        if now != identity:
            return None
        if full is None:
            full = request_digest(fixture.request, fixture.key, form)
    except (FixtureFormatError, CanonicalFormError, OSError):
        return None
    return bytes.fromhex(full[: 2 * _IDENTITY])


def _line_at(fd: int, offset: int) -> bytes:
    """The line of the open file ``fd`` starting at ``offset``, without its newline (cut
    past :data:`MAX_LINE_BYTES`: no line longer was read)."""
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
