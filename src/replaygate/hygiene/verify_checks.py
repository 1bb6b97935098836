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
from dataclasses import dataclass

import orjson

from replaygate.errors import CanonicalFormError
from replaygate.fixtures.fingerprint import KEY_LENGTH, digest
from replaygate.fixtures.fixture import (
    Fixture,
    folder_name_problem,
    interface_folder,
    meta_problems,
)
from replaygate.fixtures.store import SampleLine
from replaygate.hygiene.verify_replay import NO_READER, reader_of, response_problems
from replaygate.sanitize.secret_allow import KnownSafe
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


@dataclass(frozen=True)
class Checked:
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


def check_fixtures(
    fixtures: Sequence[Fixture], file: str, require_meta: bool, safe: KnownSafe
) -> list[Checked]:
    """Every problem of each of ``fixtures`` (stored in ``file``) but a duplicate.

    Their secret scan clears the clean ones together (:func:`find_each_fixture_secrets`).
    """
    digests: list[str | None] = []
    checked: list[Checked | None] = []
    for fixture in fixtures:
        try:
            digests.append(digest(fixture.request))
            checked.append(None)
        except CanonicalFormError as err:
            digests.append(None)
            checked.append(Checked([(KEY_RANK, str(err))]))
    scanned = [fixture.to_json() for fixture, full in zip(fixtures, digests, strict=True) if full]
    findings = iter(find_each_fixture_secrets(scanned, safe))
    for i, (fixture, full) in enumerate(zip(fixtures, digests, strict=True)):
        if full is not None:
            checked[i] = _checked(fixture, full, next(findings), file, require_meta)
    return [item for item in checked if item is not None]


def _checked(
    fixture: Fixture, full: str, secrets: list[SecretFinding], file: str, require_meta: bool
) -> Checked:
    problems: list[tuple[int, str]] = []
    key_matches = len(fixture.key) >= KEY_LENGTH and full.startswith(fixture.key)
    if not key_matches:
        problems.append(
            (
                KEY_RANK,
                f"key {fixture.key} does not match its request (expected {full[:KEY_LENGTH]}); "
                "the request was edited after recording: re-record it",
            )
        )
    responses = hashlib.blake2b(
        orjson.dumps(fixture.responses, option=orjson.OPT_SORT_KEYS), digest_size=16
    ).digest()
    reader = reader_of(fixture.request, fixture.meta)
    problems.extend((OTHER_RANK, reason) for reason in _response_problems(fixture, reader))
    problems.extend((OTHER_RANK, f"{found.detector} at {found.path}") for found in secrets)
    problems.extend((OTHER_RANK, reason) for reason in _meta_problems(fixture, file, require_meta))
    return Checked(problems, bytes.fromhex(full[:32]), responses, reader, key_matches)


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


def _meta_problems(fixture: Fixture, file: str, require_meta: bool) -> list[str]:
    meta = fixture.meta
    if meta is None:
        return [MISSING_META] if require_meta else []
    problems, names_folder = _meta_verdict(meta)
    if not names_folder or not file.endswith(".json"):
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
