"""The fixtures of a store as one side of a review: a git revision or the working tree.

A side lists its fixture files (``.jsonl`` and ``.json``) with their git blob ids, so
files that did not change between two sides are compared by id and never parsed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from replaygate.errors import LFS_POINTER, FixtureFormatError, located, shell_path
from replaygate.fixtures.fixture import Fixture
from replaygate.fixtures.store import iter_jsonl
from replaygate.fixtures.store.files import MAX_LINE_BYTES, too_long
from replaygate.fixtures.store.folder import is_store_file, kind_of, passed_over
from replaygate.fixtures.store.jsonl import json_fixture
from replaygate.hygiene.errors import HygieneError
from replaygate.hygiene.gitlinks import (
    files_at,
    lies_within,
    linked_files,
    outside,
    paths_under,
)
from replaygate.hygiene.gitrev import Repo, blob_id, relative_to_root, run_git
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


def _is_fixture_file(path: str, relpath: str | None = None) -> bool:
    """Whether ``path`` (repository-relative) is named as a fixture file; given ``relpath``,
    the store's path, whether it is one the store reads, by the rule of its walk: below
    the store's folder, not a dot file (:func:`~.folder.is_store_file`) nor in a dot
    folder, ``node_modules`` or ``__pycache__`` (:func:`~.folder.passed_over`)."""
    if not path.endswith(FIXTURE_SUFFIXES):
        return False
    if relpath is None or path == relpath:
        return True
    below = path[len(relpath) + 1 :] if relpath and path.startswith(relpath + "/") else path
    *folders, name = below.split("/")
    return is_store_file(name) and not any(passed_over(folder) for folder in folders)


def parse_file(path: str, data: bytes, label: str) -> list[Entry]:
    """The fixtures of one file's bytes; :class:`HygieneError` names file and line. A line
    (or a one-fixture ``.json`` file) over :data:`MAX_LINE_BYTES` is refused, as the store's
    reader refuses it.

    No fixtures for one of replaygate's other files (eval cases, a baseline...: :func:`kind_of`).
    """
    if kind_of(data) is not None:
        return []
    where = path if label == "working tree" else f"{label}:{path}"
    if data.startswith(LFS_POINTER):
        raise HygieneError(
            f"{where} is a Git LFS pointer, not the fixtures it stands for: git has no Git "
            "LFS filter to check it out with (install git-lfs, run `git lfs install`, then "
            "`git lfs pull`)"
        )
    try:
        if path.endswith(".jsonl"):
            _refuse_long_line(Path(where), data)
            return [Entry(path, loc.line, fx) for loc, fx in iter_jsonl(Path(where), data)]
        if len(data) > MAX_LINE_BYTES:
            raise too_long(Path(where), 0)
        return [Entry(path, 0, json_fixture(data, where))]
    except FixtureFormatError as err:
        said = str(err)
        if label == "working tree":
            advice = "run `replaygate verify` on the store and fix it"
        else:  # the damage is committed: the working tree may well hold the fix
            advice = "committed so; review from another revision with --base or --head"
            said = _without_fix_commands(said, where)
        raise HygieneError(f"{said} ({advice})") from None


def _without_fix_commands(reason: str, where: str) -> str:
    """``reason`` without the commands it gives to fix the file ``where`` in place (``e.g.
    `iconv ... where > copy`, then `mv copy where```, ``Run `replaygate verify --repair
    where` ...``): read from a git revision, ``where`` names no file a command can change."""
    named = rf"`[^`]*{re.escape(shell_path(where))}[^`]*`"
    fixes = rf", e\.g\. {named}(?:, then `[^`]*`)?| Run {named}[^.]*\.| \({named}, or --theirs\)"
    return re.sub(fixes, "", reason)


def _refuse_long_line(name: Path, data: bytes) -> None:
    """Refuse the JSONL bytes ``data`` of the file ``name`` when a line is longer than
    :data:`MAX_LINE_BYTES`, as the store's reader does, naming the first such line
    (:func:`~replaygate.fixtures.store.files.too_long`). Each step looks for the last line
    end within the longest line allowed from the start of a line: none, and that line is
    too long."""
    pos = 0
    while len(data) - pos > MAX_LINE_BYTES:
        last = data.rfind(b"\n", pos, pos + MAX_LINE_BYTES + 1)
        if last == -1:
            raise too_long(name, data.count(b"\n", 0, pos) + 1)
        pos = last + 1


def worktree(repo: Repo, relpath: str) -> Side:
    """The working tree: tracked and untracked (not ignored) fixture files under ``relpath``,
    symlinks followed as the store follows them (:func:`_worktree_files`)."""
    contents: dict[str, tuple[str, bytes]] = {}
    for name, (real, file) in _worktree_files(repo, relpath).items():
        data = _read_worktree_file(file, name)
        if data is not None:
            contents[name] = (real, data)
    converted = repo.converted(real for real, _ in contents.values())
    clean = _clean_index_ids(repo, sorted(converted))
    files = {name: clean.get(real) or blob_id(data) for name, (real, data) in contents.items()}
    return Side("working tree", files, lambda paths: {p: contents[p][1] for p in paths})


def _listed(repo: Repo, relpath: str) -> list[str]:
    args = ["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--full-name"]
    if relpath:
        args += ["--", relpath]
    listed = run_git(args, repo.root).decode("utf-8", "surrogateescape")  # names as on disk
    return sorted({n for n in listed.split("\0") if n})


class _WorkingTree:
    """The working tree's tracked and untracked (not ignored) files, as :func:`linked_files`
    walks them. One ``git ls-files`` lists the store's folder; a link to a folder out of it
    makes one more list the whole repository, which serves every other linked folder."""

    def __init__(self, repo: Repo, relpath: str) -> None:
        self.repo = repo
        self._scope = relpath
        self._paths = _listed(repo, relpath)

    def under(self, folder: str) -> list[tuple[str, bool]]:
        """The files and symlinks within ``folder`` (:class:`~.gitlinks.LinkedTree`)."""
        if not lies_within(folder, self._scope):
            self._scope, self._paths = "", _listed(self.repo, "")
        root = self.repo.root
        return [(path, os.path.islink(root / path)) for path in paths_under(self._paths, folder)]

    def target(self, link: str) -> tuple[str, bool]:
        """Where ``link`` leads and whether that is a folder (:class:`~.gitlinks.LinkedTree`)."""
        target = _link_target(self.repo, link)
        return target, os.path.isdir(self.repo.root / target)


def _worktree_files(repo: Repo, relpath: str) -> dict[str, tuple[str, Path]]:
    """The fixture files under ``relpath``: the name they are reviewed by -> where git
    holds them (repository-relative) and the file to read. A linked file is read through
    its link; a linked folder's files are named through the link, each real folder walked
    once (:func:`~.gitlinks.linked_files`); a link out of the repository is refused
    (:func:`outside`), as is a link to nothing or a loop."""
    return {
        name: (real, repo.root / listed)
        for name, (real, listed) in linked_files(_WorkingTree(repo, relpath), relpath).items()
        if _is_fixture_file(name, relpath)
    }


def _link_target(repo: Repo, link: str) -> str:
    """Where the symlink ``link`` leads, relative to the repository root."""
    file = repo.root / link
    real = os.path.realpath(file)
    if not lies_within(real, repo.root.as_posix()):
        raise outside(link, os.readlink(file), "")
    try:
        os.stat(file)
    except OSError as err:
        what = "fixture file" if _is_fixture_file(link) else "folder"
        raise HygieneError(f"{link}: {unreadable(file, err, what)}") from None
    return relative_to_root(os.path.relpath(real, repo.root))


def _clean_index_ids(repo: Repo, paths: list[str]) -> dict[str, str]:
    """The blob ids the index holds for those of ``paths`` the working tree has not changed
    (git compares through the filters that convert a file): what a file converted on
    checkout (Git LFS, line ends) is, once converted back."""
    if not paths:
        return {}
    staged = run_git(["ls-files", "-z", "-s", "--full-name", "--", *paths], repo.root)
    changed = run_git(["ls-files", "-z", "-m", "--full-name", "--", *paths], repo.root)
    modified = {n.decode("utf-8", "surrogateescape") for n in changed.split(b"\0")}
    ids: dict[str, str] = {}
    for record in staged.split(b"\0"):
        info, _, raw = record.partition(b"\t")
        parts = info.split()
        name = raw.decode("utf-8", "surrogateescape")
        if len(parts) == 3 and parts[2] == b"0" and name not in modified:
            ids[name] = parts[1].decode("ascii")
    return ids


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
    """The fixture files under ``relpath`` at revision ``rev``, each read as ``git checkout``
    writes it (:meth:`Repo.checked_out`)."""
    commit = repo.commit(rev)
    label = f"{rev} ({commit[:7]})"
    tree = {
        p: b
        for p, b in files_at(repo, commit, relpath, label).items()
        if _is_fixture_file(p, relpath)
    }

    def read(paths: list[str]) -> dict[str, bytes]:
        contents = repo.checked_out(tree[p] for p in paths)
        return {p: contents[tree[p]] for p in paths}

    return Side(label, {p: b.oid for p, b in tree.items()}, read)
