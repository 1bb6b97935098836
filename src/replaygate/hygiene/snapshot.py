"""The fixtures of a store as one side of a review: a git revision or the working tree.

A side lists its fixture files (``.jsonl`` and ``.json``) with their git blob ids, so
files that did not change between two sides are compared by id and never parsed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from replaygate.checkouts import sparse_add
from replaygate.errors import LFS_POINTER, FixtureFormatError, located, shell_path
from replaygate.fixtures.fingerprint import KEY_LENGTH, parsed_match_form
from replaygate.fixtures.fixture import Fixture
from replaygate.fixtures.store.added import fold
from replaygate.fixtures.store.files import MAX_LINE_BYTES, too_long
from replaygate.fixtures.store.folder import is_store_file, other_kind, walk_leaves_out
from replaygate.fixtures.store.index import Location
from replaygate.fixtures.store.jsonl import iter_lines, json_fixture
from replaygate.hygiene.errors import HygieneError
from replaygate.hygiene.gitlinks import (
    files_at,
    into_module,
    lies_within,
    linked_files,
    outside,
    paths_under,
)
from replaygate.hygiene.gitrev import Blob, Repo, blob_id, relative_to_root, run_git
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

    def entries(self, paths: Iterable[str]) -> tuple[list[Entry], dict[str, Other]]:
        """The fixtures of ``paths``, in file and line order; and those of ``paths`` that
        are replaygate's other files (eval cases, a baseline...: :func:`~.folder.other_kind`,
        as ``verify`` tells them), by name, which hold none."""
        wanted = sorted(paths)
        contents = self.read(wanted)
        found: list[Entry] = []
        others: dict[str, Other] = {}
        for path in wanted:
            kind = other_kind(Path(path), contents[path])
            if kind is None:
                found.extend(parse_file(path, contents[path], self.label))
            else:
                others[path] = Other(kind, contents[path])
        return found, others


@dataclass(frozen=True)
class Other:
    """One of replaygate's other files on one side: what it is, and its bytes."""

    kind: str
    data: bytes


def _is_fixture_file(path: str, relpath: str | None = None) -> bool:
    """Whether ``path`` (repository-relative) is named as a fixture file; given ``relpath``,
    the store's path, whether it is one the store reads, by the rule of its walk: below
    the store's folder, not a dot file (:func:`~.folder.is_store_file`) nor in a dot
    folder, ``node_modules`` or ``__pycache__`` (:func:`~.folder.walk_leaves_out`)."""
    if not path.endswith(FIXTURE_SUFFIXES):
        return False
    if relpath is None or path == relpath:
        return True
    *folders, name = _below(path, relpath).split("/")
    return is_store_file(name) and not any(walk_leaves_out(folder) for folder in folders)


def _below(path: str, relpath: str) -> str:
    """``path`` relative to the store's path ``relpath`` (as it is, when not below it)."""
    return path[len(relpath) + 1 :] if relpath and path.startswith(relpath + "/") else path


def _walked(folder: str, relpath: str) -> bool:
    """Whether the store at ``relpath`` walks ``folder`` (a git submodule's path): it is
    the store's own folder, or no folder on the way to it is one the walk leaves out."""
    return folder == relpath or not any(map(walk_leaves_out, _below(folder, relpath).split("/")))


def parse_file(path: str, data: bytes, label: str) -> list[Entry]:
    """The fixtures of one file's bytes; :class:`HygieneError` names file and line. A line
    (or a one-fixture ``.json`` file) over :data:`MAX_LINE_BYTES` is refused, as the store's
    reader refuses it."""
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
            return _jsonl_entries(path, Path(where), data)
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


def _jsonl_entries(path: str, name: Path, data: bytes) -> list[Entry]:
    """The fixtures of the ``.jsonl`` file ``path`` (``name`` in errors), sample lines
    applied. A line that records the request of a line above it again, with other
    responses than that one holds there (its sample lines above applied), is given as
    written: the store's reader refuses the file at it (recorded twice), and a sample
    line applied to both would make the two alike, a harmless copy to the review."""
    lines = list(iter_lines(name, data))
    entries = []
    keys: set[str] = set()
    for at, (loc, fixture) in enumerate(lines):
        if not isinstance(fixture, Fixture):
            continue
        key = fixture.key[:KEY_LENGTH]
        if key in keys and _recorded_again(fixture, fold(lines[:at], str(name), _line)):
            entries.append(Entry(path, loc.line, fixture))
        keys.add(key)
    as_written = {entry.line for entry in entries}
    entries += [
        Entry(path, loc.line, fixture)
        for loc, fixture, _ in fold(lines, str(name), _line)
        if loc.line not in as_written
    ]
    return sorted(entries, key=lambda entry: entry.line)


def _line(loc: Location) -> int:
    return loc.line


def _recorded_again(
    fixture: Fixture, above: list[tuple[Location, Fixture, list[Location]]]
) -> bool:
    """Whether ``fixture`` records the request of one of the fixtures ``above`` it with other
    responses than that one holds there, as the store's reader finds it."""
    form = parsed_match_form(fixture.request)
    return any(
        other.key[:KEY_LENGTH] == fixture.key[:KEY_LENGTH]
        and parsed_match_form(other.request) == form
        and other.responses != fixture.responses
        for _, other, _ in above
    )


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
    symlinks followed as the store follows them, and the files of the git submodules
    there as they are checked out (:func:`_worktree_files`)."""
    contents: dict[str, tuple[Repo, str, bytes]] = {}
    missing: dict[str, tuple[Repo, str]] = {}
    for name, (holder, real, file) in _worktree_files(repo, relpath).items():
        data = _read_worktree_file(file, name)
        if data is None:
            missing[name] = (holder, real)
        else:
            contents[name] = (holder, real, data)
    _refuse_left_out(missing)
    clean: dict[tuple[Repo, str], str] = {}
    for holder in dict.fromkeys(holder for holder, _, _ in contents.values()):
        converted = holder.converted(r for h, r, _ in contents.values() if h == holder)
        ids = _clean_index_ids(holder, sorted(converted))
        clean.update({(holder, real): oid for real, oid in ids.items()})
    files = {
        name: clean.get((holder, real)) or blob_id(data)
        for name, (holder, real, data) in contents.items()
    }
    return Side("working tree", files, lambda paths: {p: contents[p][2] for p in paths})


def _refuse_left_out(missing: dict[str, tuple[Repo, str]]) -> None:
    """Refuse a fixture file git holds but a sparse checkout leaves out of the working
    tree (its skip-worktree bit set), which would read as deleted, its fixtures removed."""
    for holder in dict.fromkeys(holder for holder, _ in missing.values()):
        reals = sorted(real for h, real in missing.values() if h == holder)
        listed = run_git(["ls-files", "-z", "-t", "--full-name", "--", *reals], holder.root)
        left_out = {os.fsdecode(r[2:]) for r in listed.split(b"\0") if r.startswith(b"S ")}
        for name, (h, real) in sorted(missing.items()):
            if h == holder and real in left_out:
                added = sparse_add(holder.root, real, folder=False)
                raise HygieneError(
                    f"{name}: left out of this sparse checkout (git holds it, the working "
                    "tree does not), so its fixtures cannot be compared with the working "
                    f"tree: bring it back, `git sparse-checkout add {added}`, or compare "
                    "two revisions with --head"
                )


def _listed(repo: Repo, relpath: str) -> list[str]:
    args = ["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--full-name"]
    if relpath:
        args += ["--", relpath]
    listed = os.fsdecode(run_git(args, repo.root))  # names as the file system names them
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


WorktreeFile = tuple[Repo, str, Path]
"""A fixture file of the working tree: the repository that holds it (a git submodule's,
for one of its files), where that repository holds it, and the file to read."""


def _worktree_files(repo: Repo, relpath: str) -> dict[str, WorktreeFile]:
    """The fixture files under ``relpath``: the name they are reviewed by (repository-
    relative) -> where git holds them and the file to read. A linked file is read through
    its link; a linked folder's files are named through the link, each real folder walked
    once (:func:`~.gitlinks.linked_files`); a link out of the repository is refused
    (:func:`outside`), as is a link to nothing or a loop. A git submodule's files are
    those of its checkout (:func:`_module_files`)."""
    return {
        name: found
        for name, found in _module_files(repo, relpath, relpath, "").items()
        if _is_fixture_file(name, relpath)
    }


def _module_files(repo: Repo, relpath: str, scope: str, prefix: str) -> dict[str, WorktreeFile]:
    """The files under ``relpath`` in the working tree of ``repo``, named ``prefix`` +
    their path (``repo`` is the git submodule at ``prefix``, or ``""`` for the top one);
    the store's path ``scope`` decides which submodules the walk reads."""
    held = _module_holding(repo, relpath)
    if held is not None:
        inner = _checkout(repo, held, prefix)
        with _within(held, prefix):
            return _module_files(inner, _below(relpath, held), scope, f"{prefix}{held}/")
    tree = _WorkingTree(repo, relpath)
    linked = linked_files(tree, relpath)
    _refuse_nested(linked, scope, prefix)
    folders = [real for real, _ in linked.values() if os.path.isdir(repo.root / real)]
    modules = repo.gitlinks(sorted(set(folders)))
    found: dict[str, WorktreeFile] = {}
    for name, (real, listed) in linked.items():
        if real not in modules:
            found[prefix + name] = (repo, real, repo.root / listed)
        elif _walked(prefix + name, scope):
            inner = _checkout(repo, real, prefix)
            with _within(real, prefix):
                found.update(_module_files(inner, "", scope, f"{prefix}{name}/"))
    return found


def _refuse_nested(linked: dict[str, tuple[str, str]], scope: str, prefix: str) -> None:
    """Refuse a git repository inside the store's folder that is no submodule (``git
    ls-files`` lists it as ``folder/``): git holds none of its files, which the store
    reads all the same."""
    for name in linked:
        if name.endswith("/") and _walked(prefix + name.rstrip("/"), scope):
            raise HygieneError(
                f"{prefix}{name.rstrip('/')} is a git repository of its own inside this one, "
                "not a submodule: git holds none of its files here, so no revision of them "
                "can be compared. Add it as a submodule (`git submodule add URL "
                f"{shell_path(prefix + name.rstrip('/'))}`), or review it in its own repository"
            )


def _module_holding(repo: Repo, relpath: str) -> str | None:
    """The git submodule of the working tree that holds ``relpath`` (a path below it)."""
    parts = relpath.split("/")
    above = ["/".join(parts[:n]) for n in range(1, len(parts))]
    checked_out = [folder for folder in above if os.path.lexists(repo.root / folder / ".git")]
    return next(iter(repo.gitlinks(checked_out)), None)


def _checkout(repo: Repo, module: str, prefix: str) -> Repo:
    """The repository checked out at ``module``, a git submodule of ``repo``; refused,
    naming it and what to run, when it is not checked out."""
    root = repo.root / module
    if os.path.lexists(root / ".git"):
        try:
            top = os.fsdecode(run_git(["rev-parse", "--show-toplevel"], root).strip())
        except HygieneError:
            top = ""
        if top and Path(top).resolve() == root.resolve():
            return Repo(root.resolve())
    named = shell_path(prefix + module)
    if not repo.gitlinks([module]):  # removed since the revision that records it
        raise ModuleError(
            f"{prefix}{module} is a git submodule that the working tree no longer holds: "
            "`replaygate diff` reads a submodule's fixtures in its own clone. Review from a "
            f"checkout that holds it (`git submodule update --init {named}` there)"
        )
    raise ModuleError(
        f"{prefix}{module} is a git submodule that is not checked out: `replaygate diff` "
        "reads a submodule's fixtures in its own clone. Run `git submodule update --init "
        f"{named}` (from the repository's top folder), then review again"
    )


class ModuleError(HygieneError):
    """A git submodule whose fixtures cannot be read: not checked out, or its clone does
    not hold the commit recorded for it. Names it by its whole path, and what to run."""


@contextmanager
def _within(module: str, prefix: str) -> Iterator[None]:
    """Read in the git submodule ``module`` (at ``prefix``): an error says so."""
    try:
        yield
    except ModuleError:
        raise
    except HygieneError as err:
        raise HygieneError(f"in the git submodule {prefix}{module}: {err}") from None


def _link_target(repo: Repo, link: str) -> str:
    """Where the symlink ``link`` leads, relative to the repository root; a link into the
    files of a git submodule is refused (:func:`~.gitlinks.into_module`)."""
    file = repo.root / link
    real = os.path.realpath(file)
    if not lies_within(real, repo.root.as_posix()):
        raise outside(link, os.readlink(file), "")
    try:
        os.stat(file)
    except OSError as err:
        what = "fixture file" if _is_fixture_file(link) else "folder"
        raise HygieneError(f"{link}: {unreadable(file, err, what)}") from None
    target = relative_to_root(os.path.relpath(real, repo.root))
    folder = real if os.path.isdir(real) else os.path.dirname(real)
    top = os.fsdecode(run_git(["rev-parse", "--show-toplevel"], Path(folder)).strip())
    module = relative_to_root(os.path.relpath(os.path.realpath(top), repo.root))
    if module and target != module:
        raise into_module(link, os.readlink(file), module, "")
    return target


def _clean_index_ids(repo: Repo, paths: list[str]) -> dict[str, str]:
    """The blob ids the index holds for those of ``paths`` the working tree has not changed
    (git compares through the filters that convert a file): what a file converted on
    checkout (Git LFS, line ends) is, once converted back."""
    if not paths:
        return {}
    staged = run_git(["ls-files", "-z", "-s", "--full-name", "--", *paths], repo.root)
    changed = run_git(["ls-files", "-z", "-m", "--full-name", "--", *paths], repo.root)
    modified = {os.fsdecode(n) for n in changed.split(b"\0")}
    ids: dict[str, str] = {}
    for record in staged.split(b"\0"):
        info, _, raw = record.partition(b"\t")
        parts = info.split()
        name = os.fsdecode(raw)
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
    writes it (:meth:`Repo.checked_out`); a git submodule's files are read in its clone at
    the commit the revision records for it (:func:`_files_at`)."""
    commit = repo.commit(rev)
    label = f"{rev} ({commit[:7]})"
    tree = {
        p: held
        for p, held in _files_at(repo, commit, relpath, label, relpath, "").items()
        if _is_fixture_file(p, relpath)
    }

    def read(paths: list[str]) -> dict[str, bytes]:
        found: dict[str, bytes] = {}
        for holder in dict.fromkeys(tree[p][0] for p in paths):
            mine = [p for p in paths if tree[p][0] == holder]
            contents = holder.checked_out(tree[p][1] for p in mine)
            found.update({p: contents[tree[p][1]] for p in mine})
        return found

    return Side(label, {p: b.oid for p, (_, b) in tree.items()}, read)


def _files_at(
    repo: Repo, commit: str, relpath: str, label: str, scope: str, prefix: str
) -> dict[str, tuple[Repo, Blob]]:
    """The files under ``relpath`` at ``commit`` of ``repo`` (the git submodule at
    ``prefix``, or ``""`` for the top one), named ``prefix`` + their path, each with the
    repository that holds it; a submodule the store's path ``scope`` walks is read in
    its clone at the commit recorded for it (:func:`_module_at`)."""
    files, modules = files_at(repo, commit, relpath, label)
    if not files and not modules and (held := repo.gitlink_holding(commit, relpath)):
        module, inner = held
        clone = _module_at(repo, module, inner, label, prefix)
        with _within(module, prefix):
            below, at = _below(relpath, module), f"{prefix}{module}/"
            return _files_at(clone, inner, below, label, scope, at)
    found = {prefix + name: (repo, blob) for name, blob in files.items()}
    for name, gitlink in modules.items():
        if _walked(prefix + name, scope):
            clone = _module_at(repo, gitlink.path, gitlink.oid, label, prefix)
            with _within(gitlink.path, prefix):
                found.update(_files_at(clone, gitlink.oid, "", label, scope, f"{prefix}{name}/"))
    return found


def _module_at(repo: Repo, module: str, commit: str, label: str, prefix: str) -> Repo:
    """The clone of the git submodule ``module`` of ``repo``, which ``label`` records at
    ``commit``; refused, naming it and what to run, when the clone is not checked out or
    does not hold that commit."""
    clone = _checkout(repo, module, prefix)
    if not clone.holds(commit):
        raise ModuleError(
            f"{prefix}{module} is a git submodule at commit {commit[:12]} in {label}, which "
            "its clone does not hold: fetch it (`git -C "
            f"{shell_path(prefix + module)} fetch origin {commit}`, from the repository's "
            "top folder: it fetches that commit into a shallow clone too, where a plain "
            "fetch does not; in CI, `submodules: true` with `fetch-depth: 0` in "
            "actions/checkout), then review again"
        )
    return clone
