"""The fixtures of a store as one side of a review: a git revision or the working tree.

A side lists its fixture files (``.jsonl`` and ``.json``) with their git blob ids, so
files that did not change between two sides are compared by id and never parsed.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from replaygate.errors import FixtureFormatError, located
from replaygate.fixtures.fixture import Fixture
from replaygate.fixtures.store import iter_jsonl
from replaygate.fixtures.store.folder import PEEK_BYTES, kind_of
from replaygate.fixtures.store.jsonl import json_fixture
from replaygate.hygiene.errors import HygieneError
from replaygate.hygiene.gitrev import Repo, blob_id, run_git
from replaygate.regular import read_regular_bytes, unreadable

FIXTURE_SUFFIXES = (".jsonl", ".json")


@dataclass(frozen=True)
class Entry:
    """One fixture on one side: repository-relative file, line (0 for a ``.json`` file)."""

    file: str
    line: int
    fixture: Fixture

    def __str__(self) -> str:
        return located(self.file, self.line)


@dataclass(frozen=True)
class Side:
    """The fixture files of one side (path -> blob id) and how to read them."""

    label: str
    files: dict[str, str]
    read: Callable[[list[str]], dict[str, bytes]]

    def entries(self, paths: Iterable[str]) -> list[Entry]:
        """The fixtures of ``paths``, in file and line order."""
        wanted = sorted(paths)
        contents = self.read(wanted)
        found: list[Entry] = []
        for path in wanted:
            found.extend(parse_file(path, contents[path], self.label))
        return found


def _is_fixture_file(path: str) -> bool:
    return path.endswith(FIXTURE_SUFFIXES)


def parse_file(path: str, data: bytes, label: str) -> list[Entry]:
    """The fixtures of one file's bytes; :class:`HygieneError` names file and line.

    No fixtures for one of replaygate's other files (eval cases, a baseline...: :func:`kind_of`).
    """
    if kind_of(data[:PEEK_BYTES]) is not None:
        return []
    where = path if label == "working tree" else f"{label}:{path}"
    try:
        if path.endswith(".jsonl"):
            return [Entry(path, loc.line, fx) for loc, fx in iter_jsonl(Path(where), data)]
        return [Entry(path, 0, json_fixture(data, where))]
    except FixtureFormatError as err:
        if label == "working tree":
            advice = "run `replaygate verify` on the store and fix it"
        else:  # the damage is committed: the working tree may well hold the fix
            advice = "committed so; review from another revision with --base or --head"
        raise HygieneError(f"{err} ({advice})") from None


def worktree(repo: Repo, relpath: str) -> Side:
    """The working tree: tracked and untracked (not ignored) fixture files under ``relpath``."""
    args = ["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--full-name"]
    if relpath:
        args += ["--", relpath]
    listed = run_git(args, repo.root).decode("utf-8", "surrogateescape")  # names as on disk
    names = sorted({n for n in listed.split("\0") if n})
    contents: dict[str, bytes] = {}
    for name in names:
        if _is_fixture_file(name):
            data = _read_worktree_file(repo.root / name, name)
            if data is not None:
                contents[name] = data
    files = {name: blob_id(data) for name, data in contents.items()}
    return Side("working tree", files, lambda paths: {p: contents[p] for p in paths})


def _read_worktree_file(file: Path, name: str) -> bytes | None:
    """The bytes of a listed fixture file, None when it was deleted; anything but a regular
    file (a FIFO, a folder, a symlink to nothing or a symlink loop) is refused, naming it,
    not passed over as if its fixtures were removed."""
    try:
        return read_regular_bytes(file)
    except OSError as err:
        if isinstance(err, FileNotFoundError) and not os.path.islink(file):
            return None
        raise HygieneError(f"{name}: {unreadable(file, err, 'fixture file')}") from None


def revision(repo: Repo, rev: str, relpath: str) -> Side:
    """The fixture files under ``relpath`` at revision ``rev``."""
    commit = repo.commit(rev)
    tree = {p: b for p, b in repo.tree(commit, relpath).items() if _is_fixture_file(p)}

    def read(paths: list[str]) -> dict[str, bytes]:
        blobs = repo.blobs([tree[p] for p in paths])
        return {p: blobs[tree[p]] for p in paths}

    return Side(f"{rev} ({commit[:7]})", tree, read)
