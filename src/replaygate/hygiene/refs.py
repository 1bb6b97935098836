"""File-level references to fixtures from code: store file names and fixture keys.

The reference folders (``--refs tests/``) are read as text; a file names a fixture
when it holds the fixture's store file name (``rag.jsonl``, ``265288aeb827.json``)
or its key. Fixture files themselves, binary files and tool folders are not read.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from replaygate.fixtures.store.files import resolved
from replaygate.regular import read_regular_bytes

SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".replaygate",
        ".venv",
        "venv",
        "node_modules",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".hypothesis",
        ".tox",
    }
)
MAX_BYTES = 4 << 20
_NAME = re.compile(r"[\w.\-]+\.jsonl?\b")
_HEX = re.compile(r"(?<![0-9a-f])[0-9a-f]{12,64}(?![0-9a-f])")


@dataclass
class References:
    """Which files name each store file (by name) and each key."""

    by_name: dict[str, set[Path]] = field(default_factory=lambda: defaultdict(set))
    by_key: dict[str, set[Path]] = field(default_factory=lambda: defaultdict(set))

    def of(self, file: Path, key: str) -> set[Path]:
        """The files that reference the fixture ``key`` stored in ``file``."""
        return set(self.by_name.get(file.name, ())) | set(self.by_key.get(key, ()))


def _texts(folders: Iterable[Path], skip: set[Path]) -> Iterable[tuple[Path, str]]:
    for folder in folders:
        for current, dirs, names in os.walk(folder):
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
            for name in sorted(names):
                path = Path(current) / name
                if resolved(path) in skip:
                    continue
                try:
                    if path.stat().st_size > MAX_BYTES:
                        continue
                    data = read_regular_bytes(path)
                except OSError:
                    continue
                if b"\0" in data[:8192]:
                    continue
                text = data.decode("utf-8", "replace")
                if path.suffix in (".jsonl", ".json") and _looks_like_fixtures(text):
                    continue
                yield path, text


def _looks_like_fixtures(text: str) -> bool:
    head = text[:4096]
    return '"key"' in head and '"request"' in head


def find_references(
    folders: Iterable[Path], names: set[str], keys: set[str], skip: set[Path]
) -> References:
    """Scan ``folders`` for the store file ``names`` and fixture ``keys``.

    ``skip`` holds resolved paths not to read (the store's own files); other fixture
    files are not read either, so a key shared by two stores is no reference. A name
    with characters a word of code does not hold (brackets, ``+``, a space) is looked
    for as it is: taken apart, it was never found, and ``prune`` took its store's
    fixtures for unreferenced.
    """
    refs = References()
    odd = sorted(name for name in names if not _NAME.fullmatch(name))
    for path, text in _texts(folders, skip):
        for token in set(_NAME.findall(text)):
            if token in names:
                refs.by_name[token].add(path)
        for name in odd:  # a name no token is (test_x[a+b].jsonl, "my cases.jsonl")
            if name in text:
                refs.by_name[name].add(path)
        for token in set(_HEX.findall(text)):
            if token[:12] in keys:
                refs.by_key[token[:12]].add(path)
    return refs
