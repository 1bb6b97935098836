"""The checks ``replaygate verify`` makes of one line, apart from those across the store.

:func:`check_fixtures` returns each fixture's problems, each with its rank among the
problems of its line (the checks made later across the whole store rank between the
key and the rest), and what those need: the request's identity, a digest of the
responses and how they are read. :func:`check_sample` does the same for a sample line.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator, Sequence
from typing import NamedTuple

import orjson

from replaygate.errors import CanonicalFormError
from replaygate.fixtures.fingerprint import KEY_LENGTH
from replaygate.fixtures.fixture import (
    Fixture,
    folder_name_problem,
    interface_folder,
    meta_problems,
)
from replaygate.fixtures.store import SampleLine
from replaygate.hygiene.verify_key import request_digest
from replaygate.hygiene.verify_replay import NO_READER, reader_of, response_problems
from replaygate.sanitize.secret_allow import KnownSafe
from replaygate.sanitize.secret_gate import CUT, cut_written
from replaygate.sanitize.secret_scan import (
    SecretFinding,
    find_each_fixture_secrets,
    find_fixture_secrets,
)

MISSING_META = (
    "meta is missing (interface, interface_version, recorded_at, source, replaygate_version); "
    "re-record the fixture, or pass --allow-missing-meta for a seed-style store"
)

KEY_RANK, STORE_RANK, OTHER_RANK = 0, 1, 2
"""Where a problem stands among those of its line: the key; what is decided across the
store (a duplicate, where a sample line applies and whether its response replays); the rest."""

_META_CACHE_SIZE = 1024
_meta_cache: dict[bytes, tuple[list[str], bool]] = {}
_VERDICT_CACHE_SIZE = 4096
_verdicts: dict[tuple[bool, bytes, bytes | None], _Verdict] = {}
"""What a fixture's responses and meta decide, by their exact bytes (:func:`_verdict`)."""


class Checked(NamedTuple):
    """A fixture's problems as ``(rank, reason)``, and its identity for the duplicate check.

    ``request`` (16 bytes of the request's digest) and ``responses`` (a 16-byte digest)
    are empty when the request has no canonical form.
    """

    problems: list[tuple[int, str]]
    request: bytes = b""
    responses: bytes = b""
    reader: int = NO_READER
    """How its responses are read (:mod:`.verify_replay`), for the sample lines applied to it."""
    key_matches: bool = False
    """Its stored key starts its digest (only such a fixture takes sample lines)."""


class _Verdict(NamedTuple):
    """What depends on a fixture's responses and meta alone (and whether it is an HTTP one)."""

    reader: int
    responses: bytes
    """The responses' digest for the duplicate check (their keys sorted)."""
    reasons: tuple[str, ...]
    """Why a response could not be replayed, if one could not."""
    meta: tuple[str, ...]
    """What is wrong with the meta (not its folder; not a missing meta)."""
    names_folder: bool


def check_fixtures(
    fixtures: Sequence[Fixture],
    file: str,
    require_meta: bool,
    safe: KnownSafe,
    written: Sequence[bytes | None] | None = None,
) -> list[Checked]:
    """Every problem of each of ``fixtures`` (stored in ``file``) but a duplicate.

    Their secret scan clears the clean ones together (:func:`find_each_fixture_secrets`);
    ``written`` holds, for each, its line when that is exactly what ``orjson.dumps``
    writes for it (else None): the line is then read as it is, not written again.
    """
    lines = [None] * len(fixtures) if written is None else written
    checked: list[Checked | None] = []
    kept: list[tuple[Fixture, str, bytes | None, bytes | None]] = []
    cuts: list[list[bytes] | None] = []
    for fixture, line in zip(fixtures, lines, strict=True):
        responses, meta, cut, request = _parts(fixture, line)
        try:
            full = request_digest(fixture.request, fixture.key, request)
        except CanonicalFormError as err:
            checked.append(Checked([(KEY_RANK, str(err))]))
            continue
        checked.append(None)
        kept.append((fixture, full, responses, meta))
        cuts.append(cut)
    findings = find_each_fixture_secrets([item[0].to_json() for item in kept], safe, cuts)
    done = iter(
        _checked(*item, secrets, file, require_meta)
        for item, secrets in zip(kept, findings, strict=True)
    )
    return [next(done) if item is None else item for item in checked]


def _parts(
    fixture: Fixture, line: bytes | None
) -> tuple[bytes | None, bytes | None, list[bytes] | None, list[bytes] | None]:
    """The fixture's responses (a list) and meta as orjson writes them (None if it cannot),
    its line cut by :func:`cut_written` (when the line is exactly what orjson writes), and
    the request's text in that line cut likewise, when the line is laid out as
    :meth:`~replaygate.fixtures.fixture.Fixture.to_line` lays it out."""
    try:
        responses: bytes | None = orjson.dumps(fixture.responses)
        meta = None if fixture.meta is None else orjson.dumps(fixture.meta)
    except TypeError:
        return None, None, None, None
    if line is None:
        return responses, meta, None, None
    pieces = cut_written(line)
    if pieces is None or responses is None:
        return responses, meta, pieces, None
    head = b'{"key":"' + fixture.key.encode() + b'","request":'
    if fixture.samples == 1:
        tail = b',"response":' + responses[1:-1]
    else:
        tail = b',"responses":' + responses
    tail += b"}" if meta is None else b',"meta":' + meta + b"}"
    if len(head) + len(tail) >= len(line) or not line.startswith(head) or not line.endswith(tail):
        return responses, meta, pieces, None
    # The request stands between head and tail: its first piece starts the line's first,
    # its last ends the piece the tail starts in (no cut straddles either edge).
    last = len(pieces) - 1 - tail.count(CUT)
    into = tail.find(CUT)
    end = len(pieces[last]) - (len(tail) if into < 0 else into)
    request = pieces[: last + 1]
    if last == 0:
        request[0] = request[0][len(head) : end]
    else:
        request[0] = request[0][len(head) :]
        request[last] = request[last][:end]
    return responses, meta, pieces, request


def _checked(
    fixture: Fixture,
    full: str,
    responses: bytes | None,
    meta: bytes | None,
    secrets: list[SecretFinding],
    file: str,
    require_meta: bool,
) -> Checked:
    verdict = _verdict(fixture, responses, meta)
    key_matches = len(fixture.key) >= KEY_LENGTH and full.startswith(fixture.key)
    request = bytes.fromhex(full[:32])
    if key_matches and not verdict.reasons and not secrets and not verdict.meta:
        if fixture.meta is not None:
            if not verdict.names_folder or not file.endswith(".json"):
                return Checked([], request, verdict.responses, verdict.reader, True)
        elif not require_meta:
            return Checked([], request, verdict.responses, verdict.reader, True)
    problems: list[tuple[int, str]] = []
    if not key_matches:
        problems.append(
            (
                KEY_RANK,
                f"key {fixture.key} does not match its request (expected {full[:KEY_LENGTH]}); "
                "the request was edited after recording: re-record it",
            )
        )
    problems.extend((OTHER_RANK, reason) for reason in verdict.reasons)
    problems.extend((OTHER_RANK, f"{found.detector} at {found.path}") for found in secrets)
    problems.extend(
        (OTHER_RANK, reason) for reason in _meta_problems(fixture, verdict, file, require_meta)
    )
    return Checked(problems, request, verdict.responses, verdict.reader, key_matches)


def _verdict(fixture: Fixture, responses: bytes | None, meta: bytes | None) -> _Verdict:
    """How the fixture's responses are read, their digest, why one could not be replayed,
    and what is wrong with its meta.

    They depend on the responses and meta alone (and whether the request is an HTTP
    one), so a store's fixtures that recorded the same share them, kept by their exact
    bytes (``responses`` and ``meta`` as orjson writes them, when it can).
    """
    http = "method" in fixture.request and "path" in fixture.request
    if responses is None or (meta is None and fixture.meta is not None):
        return _judge(fixture)
    known = (http, responses, meta)
    verdict = _verdicts.get(known)
    if verdict is None:
        if len(_verdicts) >= _VERDICT_CACHE_SIZE:
            _verdicts.clear()
        verdict = _verdicts[known] = _judge(fixture)
    return verdict


def _judge(fixture: Fixture) -> _Verdict:
    reader = reader_of(fixture.request, fixture.meta)
    digest = hashlib.blake2b(
        orjson.dumps(fixture.responses, option=orjson.OPT_SORT_KEYS), digest_size=16
    ).digest()
    reasons = tuple(_response_problems(fixture, reader))
    meta = fixture.meta
    if meta is None:
        return _Verdict(reader, digest, reasons, (), False)
    problems, names_folder = _meta_verdict(meta)
    return _Verdict(reader, digest, reasons, tuple(problems), names_folder)


def check_sample(sample: SampleLine, safe: KnownSafe) -> list[tuple[int, str]]:
    """The problems a sample line holds itself: a secret, an incomplete ``meta``.

    Where it applies and whether its response replays are decided across the store
    (:mod:`.verify_across`).
    """
    line = {"key": sample.digest, "sample": sample.sample, "response": sample.response}
    if sample.meta is not None:
        line["meta"] = sample.meta
    problems = [
        (OTHER_RANK, f"{found.detector} at {found.path}")
        for found in find_fixture_secrets(line, safe)
    ]
    if sample.meta is not None:
        problems.extend((OTHER_RANK, reason) for reason in _meta_verdict(sample.meta)[0])
    return problems


def _response_problems(fixture: Fixture, reader: int) -> Iterator[str]:
    """Why a recorded response could not be replayed, if it could not."""
    several = fixture.samples > 1
    for i, response in enumerate(fixture.responses):
        yield from response_problems(response, f"responses[{i}]" if several else "response", reader)


def _meta_problems(fixture: Fixture, verdict: _Verdict, file: str, require_meta: bool) -> list[str]:
    meta = fixture.meta
    if meta is None:
        return [MISSING_META] if require_meta else []
    problems = list(verdict.meta)
    if not verdict.names_folder or not file.endswith(".json"):
        return problems
    folder = os.path.basename(os.path.dirname(file))
    expected = interface_folder(meta)
    if "@" in folder and expected and folder != expected:
        return [
            *problems,
            f"stored in folder {folder}/ but its meta says {expected}: move it, or re-record it",
        ]
    return problems


def _meta_verdict(meta: dict[str, object]) -> tuple[list[str], bool]:
    """:func:`meta_problems` of ``meta``, and whether it can name a folder.

    A store's fixtures share a few metas, so each verdict is kept by the meta's bytes.
    """
    try:
        known = orjson.dumps(meta)
    except TypeError:
        return meta_problems(meta), folder_name_problem(meta) is None
    verdict = _meta_cache.get(known)
    if verdict is None:
        if len(_meta_cache) >= _META_CACHE_SIZE:
            _meta_cache.clear()
        verdict = _meta_cache[known] = (meta_problems(meta), folder_name_problem(meta) is None)
    return list(verdict[0]), verdict[1]
