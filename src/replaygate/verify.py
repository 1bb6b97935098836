"""``replaygate verify``: every problem of a store, one per line, with file:line.

Unlike opening a store (which stops at the first bad line), verification reads
everything and reports all it finds:

- malformed lines, and a partial last line (a crash mid-append; ``--repair`` cuts it);
- fixtures whose key does not match their request (the request was edited);
- the same request recorded twice with different responses;
- a response that the interface's converter, or the HTTP replay, cannot read;
- secret-looking values, by field path (a streamed text joined across its events);
- a missing or incomplete ``meta`` (unless missing meta is allowed, for seed-style
  stores), and a one-file fixture in an ``<interface>@<version>`` folder whose meta
  names another interface or version.

It is fast enough for a pre-commit hook: about a second for 10,000 one-file
fixtures (``bench/bench_verify.py``).
"""

from __future__ import annotations

import gc
import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import orjson

from replaygate.errors import CanonicalFormError, FixtureFormatError, WireFormatError
from replaygate.fingerprint import KEY_LENGTH, canonical_json
from replaygate.fixture import Fixture, from_json, interface_folder, meta_problems
from replaygate.http.recorded import replayed
from replaygate.providers import INTERFACES
from replaygate.secret_scan import find_fixture_secrets
from replaygate.store import PartialTailError, iter_jsonl

SUFFIXES = (".jsonl", ".json")
MISSING_META = (
    "meta is missing (interface, interface_version, recorded_at, source, replaygate_version); "
    "re-record the fixture, or pass --allow-missing-meta for a seed-style store"
)


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a store, where it is, and whether ``--repair`` can fix it."""

    file: str
    line: int
    reason: str
    repairable: bool = False

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.reason}"


@dataclass(frozen=True)
class _Entry:
    file: str
    line: int
    fixture: Fixture


@dataclass(frozen=True)
class _Seen:
    """What is kept of a fixture to find a conflicting duplicate: where, and its responses."""

    file: str
    line: int
    responses: bytes


def fixture_files(root: Path) -> list[str]:
    """The fixture files under ``root`` (or ``root`` itself), in the store's order."""
    if root.is_file() or root.suffix == ".jsonl":
        return [str(root)] if root.exists() else []
    found: list[tuple[str, ...]] = []
    for folder, _, names in os.walk(root):
        parts = tuple(Path(folder).parts)
        found.extend((*parts, name) for name in names if os.path.splitext(name)[1] in SUFFIXES)
    found.sort()
    return [os.path.join(*parts) for parts in found]


def _json_file(name: str) -> Iterator[_Entry | Problem]:
    try:
        with open(name, "rb") as handle:
            obj = orjson.loads(handle.read())
        yield _Entry(name, 0, from_json(obj, name, 0))
    except orjson.JSONDecodeError as err:
        yield Problem(name, 0, f"malformed JSON: {err}")
    except FixtureFormatError as err:
        yield Problem(err.file, err.line, err.reason)


def _jsonl_file(name: str) -> Iterator[_Entry | Problem]:
    with open(name, "rb") as handle:
        data = handle.read()
    path = Path(name)
    pos, line = 0, 1
    while pos < len(data):
        end = data.find(b"\n", pos)
        end = len(data) if end == -1 else end + 1
        try:
            for loc, fixture in iter_jsonl(path, data[pos:end], first_line=line):
                yield _Entry(name, loc.line, fixture)
        except PartialTailError as err:
            yield Problem(err.file, err.line, err.reason, repairable=True)
        except FixtureFormatError as err:
            yield Problem(err.file, err.line, err.reason)
        pos, line = end, line + 1


def _entries(name: str) -> Iterator[_Entry | Problem]:
    return _json_file(name) if name.endswith(".json") else _jsonl_file(name)


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


def _meta_problems(entry: _Entry, require_meta: bool) -> Iterator[str]:
    meta = entry.fixture.meta
    if meta is None:
        if require_meta:
            yield MISSING_META
        return
    yield from meta_problems(meta)
    folder = os.path.basename(os.path.dirname(entry.file))
    expected = interface_folder(meta)
    if entry.file.endswith(".json") and "@" in folder and expected and folder != expected:
        yield f"stored in folder {folder}/ but its meta says {expected}: move it, or re-record it"


def _check(entry: _Entry, seen: dict[str, _Seen], require_meta: bool) -> Iterator[Problem]:
    fixture = entry.fixture

    def problem(reason: str) -> Problem:
        return Problem(entry.file, entry.line, reason)

    try:
        canonical = canonical_json(fixture.request)
    except CanonicalFormError as err:
        yield problem(str(err))
        return
    full = hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    if len(fixture.key) < KEY_LENGTH or not full.startswith(fixture.key):
        yield problem(
            f"key {fixture.key} does not match its request (expected {full[:KEY_LENGTH]}); "
            "the request was edited after recording: re-record it"
        )
    responses = orjson.dumps(fixture.responses, option=orjson.OPT_SORT_KEYS)
    first = seen.setdefault(full, _Seen(entry.file, entry.line, responses))
    if first.responses != responses:
        yield problem(
            f"request of key {fixture.key} recorded twice with different responses "
            f"(also at {first.file}:{first.line}); keep one"
        )
    for reason in _response_problems(fixture):
        yield problem(reason)
    for finding in find_fixture_secrets(fixture.to_json()):
        yield problem(f"{finding.detector} at {finding.path}")
    for reason in _meta_problems(entry, require_meta):
        yield problem(reason)


def verify_store(path: Path, *, require_meta: bool = True) -> tuple[int, list[Problem]]:
    """The number of fixtures read and every problem found under ``path``.

    ``require_meta=False`` accepts fixtures without ``meta`` (a seed-style store);
    an incomplete ``meta`` is a problem either way.
    """
    if not path.exists():
        return 0, [Problem(str(path), 0, "no such file or folder")]
    problems: list[Problem] = []
    seen: dict[str, _Seen] = {}
    count = 0
    # What is kept is acyclic: pausing the cycle collector saves it from rescanning
    # the growing index again and again on a large store.
    collecting = gc.isenabled()
    gc.disable()
    try:
        for name in fixture_files(path):
            for item in _entries(name):
                if isinstance(item, Problem):
                    problems.append(item)
                else:
                    count += 1
                    problems.extend(_check(item, seen, require_meta))
    finally:
        if collecting:
            gc.enable()
    return count, problems
