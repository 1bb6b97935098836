"""The checks ``replaygate verify`` makes of one fixture, apart from duplicates.

:func:`check_fixture` returns the fixture's problems, each with its rank among the
problems of its line (the duplicate check, made later across the whole store, ranks
between the key and the rest), and what the duplicate check needs: the request's
identity and a digest of the responses.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass

import orjson

from replaygate.errors import CanonicalFormError, WireFormatError
from replaygate.fixtures.fingerprint import KEY_LENGTH, digest
from replaygate.fixtures.fixture import (
    Fixture,
    folder_name_problem,
    interface_folder,
    meta_problems,
)
from replaygate.http.recorded import replayed
from replaygate.models.providers import INTERFACES
from replaygate.sanitize.secret_allow import KnownSafe
from replaygate.sanitize.secret_scan import find_fixture_secrets

MISSING_META = (
    "meta is missing (interface, interface_version, recorded_at, source, replaygate_version); "
    "re-record the fixture, or pass --allow-missing-meta for a seed-style store"
)

KEY_RANK, DUPLICATE_RANK, OTHER_RANK = 0, 1, 2
"""Where a problem stands among those of its line: the key, a duplicate, the rest."""

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


def check_fixture(fixture: Fixture, file: str, require_meta: bool, safe: KnownSafe) -> Checked:
    """Every problem of ``fixture`` (stored in ``file``) but a duplicate."""
    try:
        full = digest(fixture.request)
    except CanonicalFormError as err:
        return Checked([(KEY_RANK, str(err))])
    problems: list[tuple[int, str]] = []
    if len(fixture.key) < KEY_LENGTH or not full.startswith(fixture.key):
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
    problems.extend((OTHER_RANK, reason) for reason in _response_problems(fixture))
    problems.extend(
        (OTHER_RANK, f"{finding.detector} at {finding.path}")
        for finding in find_fixture_secrets(fixture.to_json(), safe)
    )
    problems.extend((OTHER_RANK, reason) for reason in _meta_problems(fixture, file, require_meta))
    return Checked(problems, bytes.fromhex(full[:32]), responses)


def _response_problems(fixture: Fixture) -> Iterator[str]:
    """Why a recorded response could not be replayed, if it could not."""
    request = fixture.request
    http = "method" in request and "path" in request
    interface = INTERFACES.get(str((fixture.meta or {}).get("interface")))
    for i, response in enumerate(fixture.responses):
        if response is None:
            continue
        where = f"responses[{i}]" if fixture.samples > 1 else "response"
        try:
            if http:
                replayed(response)
            elif interface is not None:
                if not isinstance(response, dict):
                    raise WireFormatError("response", "expected an object")
                interface.from_response(response)
        except WireFormatError as err:
            kind = "an HTTP" if http else f"a valid {interface.name if interface else ''}"
            detail = err.path.replace("response", where, 1)
            yield f"{where} is not {kind} response: {detail}: {err.reason}"


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
