"""``replaygate verify``: every problem of a store, one per line, with file:line.

Unlike opening a store (which stops at the first bad line), verification reads
everything and reports all it finds: malformed or partial lines, fixtures whose key
does not match their request, the same request recorded twice with different
responses, and secret-looking values.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from replaygate.errors import CanonicalFormError, FixtureFormatError
from replaygate.fingerprint import KEY_LENGTH, canonical_json
from replaygate.fixture import Fixture
from replaygate.secret_scan import find_secrets
from replaygate.store import PartialTailError, iter_jsonl, read_json_file, store_files


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


def _entries(file: Path) -> Iterator[_Entry | Problem]:
    if file.suffix == ".json":
        try:
            yield _Entry(str(file), 0, read_json_file(file))
        except FixtureFormatError as err:
            yield Problem(err.file, err.line, err.reason)
        return
    data = file.read_bytes()
    pos, line = 0, 1
    while pos < len(data):
        end = data.find(b"\n", pos)
        end = len(data) if end == -1 else end + 1
        try:
            for loc, fixture in iter_jsonl(file, data[pos:end], first_line=line):
                yield _Entry(str(file), loc.line, fixture)
        except PartialTailError as err:
            yield Problem(err.file, err.line, err.reason, repairable=True)
        except FixtureFormatError as err:
            yield Problem(err.file, err.line, err.reason)
        pos, line = end, line + 1


def _check(entry: _Entry, seen: dict[str, _Entry]) -> Iterator[Problem]:
    fixture = entry.fixture
    try:
        canonical = canonical_json(fixture.request)
    except CanonicalFormError as err:
        yield Problem(entry.file, entry.line, str(err))
        return
    full = hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    if len(fixture.key) < KEY_LENGTH or not full.startswith(fixture.key):
        yield Problem(
            entry.file,
            entry.line,
            f"key {fixture.key} does not match its request (expected {full[:KEY_LENGTH]}); "
            "the request was edited after recording: re-record it",
        )
    first = seen.setdefault(canonical, entry)
    if first is not entry and first.fixture.responses != fixture.responses:
        yield Problem(
            entry.file,
            entry.line,
            f"request of key {fixture.key} recorded twice with different responses "
            f"(also at {first.file}:{first.line}); keep one",
        )
    for finding in find_secrets(fixture.to_json()):
        yield Problem(entry.file, entry.line, f"{finding.detector} at {finding.path}")


def verify_store(path: Path) -> tuple[int, list[Problem]]:
    """The number of fixtures read and every problem found under ``path``."""
    if not path.exists():
        return 0, [Problem(str(path), 0, "no such file or folder")]
    problems: list[Problem] = []
    seen: dict[str, _Entry] = {}
    count = 0
    for file in store_files(path):
        for item in _entries(file):
            if isinstance(item, Problem):
                problems.append(item)
            else:
                count += 1
                problems.extend(_check(item, seen))
    return count, problems
