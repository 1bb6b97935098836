"""Symlinks in a git revision or the working tree, followed inside the repository as the
store follows them on disk (:func:`linked_files`); a link out of the repository is refused
by name (:func:`outside`), as is a link into a git submodule's files (:func:`into_module`).
Git submodules are listed as the entries they are (:func:`files_at`), for the review to
read them in their own repository."""

from __future__ import annotations

import bisect
import os
import posixpath
from collections.abc import Iterable, Iterator
from operator import itemgetter
from typing import Protocol

from replaygate.hygiene.errors import HygieneError
from replaygate.hygiene.gitrev import GITLINK, Blob, Repo, relative_to_root

_MAX_LINKS = 40
"""How many symlinks one path may go through, as the system allows (a loop goes on)."""


def outside(link: str, target: str, where: str) -> HygieneError:
    """The refusal of a symlink that leads out of the repository: git does not hold what it
    links to, so no revision of it can be compared; never passed over in silence."""
    return HygieneError(
        f"{where}{link} is a symlink to {target!r}, outside the git repository: "
        "`replaygate diff` compares what git holds, and this repository holds nothing "
        "of what it links to. Review those fixtures in the repository that holds them, "
        "and here diff the paths beside the link"
    )


def into_module(link: str, target: str, module: str, where: str) -> HygieneError:
    """The refusal of a symlink that leads into the files of the git submodule ``module``:
    the repository holds only the commit the submodule is at, not its files."""
    return HygieneError(
        f"{where}{link} is a symlink to {target!r}, in the git submodule {module}: this "
        "repository holds none of the submodule's files, only its commit. Review them "
        f"by the submodule's own path (`replaygate diff {module}`)"
    )


def lies_within(path: str, folder: str) -> bool:
    """Whether repository-relative ``path`` is ``folder`` or inside it (``""``: the root)."""
    return not folder or path == folder or path.startswith(folder + "/")


def walked_already(folder: str, walked: list[str]) -> bool:
    """Whether the folder a link leads to is, holds or lies in a folder already walked:
    the store walks each real folder once and follows no link back up (a loop)."""
    return any(lies_within(folder, w) or lies_within(w, folder) for w in walked)


def paths_under(paths: list[str], folder: str) -> Iterator[str]:
    """The sorted repository-relative ``paths`` that lie within ``folder`` (``""``: all)."""
    if not folder:
        yield from paths
        return
    start = bisect.bisect_left(paths, folder)
    end = bisect.bisect_left(paths, folder + "0")  # "0" sorts right after "/"
    yield from (p for p in paths[start:end] if lies_within(p, folder))


class LinkedTree(Protocol):
    """A repository's files, as :func:`linked_files` walks them: a revision or the working tree."""

    def under(self, folder: str) -> Iterable[tuple[str, bool]]:
        """The files and symlinks within ``folder`` (repository-relative), each with whether
        it is a symlink."""
        ...

    def target(self, link: str) -> tuple[str, bool]:
        """Where the symlink ``link`` leads (repository-relative) and whether that is a
        folder; a link out of the repository (:func:`outside`), to nothing, or in a loop
        is refused, naming it."""
        ...


def linked_files(tree: LinkedTree, relpath: str) -> dict[str, tuple[str, str]]:
    """The files under ``relpath`` with the symlinks of ``tree`` followed, as the store
    follows them on disk: the name each is reached by (a linked folder's files are named
    through the link) -> its real path and the path listed (the link, for a linked file).
    Each real folder is walked once: the store's own first, then the links in path order;
    a link to a folder walked already (one holding it, or in it) is not followed."""
    found: dict[str, tuple[str, str]] = {}
    walked: list[str] = []
    pending = [(relpath, relpath)]
    while pending:
        real, shown = pending.pop(0)
        walked.append(real)
        links: list[tuple[str, str]] = []
        for path, is_link in tree.under(real):
            name = shown + path[len(real) :]
            if is_link:
                links.append((path, name))
            else:
                found[name] = (path, path)
        for path, name in sorted(links, key=itemgetter(1)):
            target, is_folder = tree.target(path)
            if not is_folder:
                found[name] = (target, path)
            elif not walked_already(target, walked):
                pending.append((target, name))
    return found


def files_at(
    repo: Repo, commit: str, relpath: str, label: str
) -> tuple[dict[str, Blob], dict[str, Blob]]:
    """Files under ``relpath`` at ``commit`` (``label`` in errors), symlinks followed as
    the store follows them (:class:`CommitTree`): the path they are named by -> blob; and
    the git submodules among them: the path they are named by -> their path and the
    commit recorded for them (a ``Blob`` whose id is that commit's)."""
    listed = repo.listing(commit, relpath)
    if any(entry.is_link for entry in listed.values()):
        tree = CommitTree(repo, commit, label)
        found = tree.files(relpath)
        modules = {n: b for n, b in found.items() if tree.entries[b.path].kind == GITLINK}
        return {n: b for n, b in found.items() if n not in modules}, modules
    blobs = {p: Blob(p, e.oid) for p, e in listed.items() if e.kind == "blob"}
    return blobs, {p: Blob(p, e.oid) for p, e in listed.items() if e.kind == GITLINK}


class _InModule(Exception):
    """A path followed into the files of the git submodule ``module``."""

    def __init__(self, module: str) -> None:
        super().__init__(module)
        self.module = module


class CommitTree:
    """The files of one commit with its symlinks followed inside the repository, as the store
    follows them on disk: a linked file is its target's blob, a linked folder's files are
    named through the link. Each real folder is walked once (the store's own first, then
    the links in path order); a link to nothing or a loop of links is refused, naming it,
    as is a link out of the repository (:func:`outside`) or into a git submodule's files
    (:func:`into_module`); a git submodule is listed as its own entry, as a link to one."""

    def __init__(self, repo: Repo, commit: str, label: str) -> None:
        self.repo = repo
        self.label = label
        self.entries = repo.listing(commit, "", trees=True)
        self._paths = sorted(self.entries)
        self._texts: dict[str, str] = {}

    def _where(self) -> str:
        return f"{self.label}:"

    def _link_target(self, link: str) -> str:
        """The repository-relative path ``link`` points to (``""``: the root)."""
        if link not in self._texts:
            oid = self.entries[link].oid
            data = self.repo.blobs([oid])[oid]
            self._texts[link] = os.fsdecode(data)
        text = self._texts[link]
        root = self.repo.root.as_posix()
        if posixpath.isabs(text):
            if not lies_within(text, root):
                raise outside(link, text, self._where())
            return relative_to_root(posixpath.relpath(text, root))
        target = posixpath.normpath(posixpath.join(posixpath.dirname(link), text))
        if target == ".." or target.startswith("../"):
            raise outside(link, text, self._where())
        return relative_to_root(target)

    def real(self, path: str, links: int = 0) -> str | None:
        """``path`` with its symlinks followed, part by part; None when nothing is there."""
        done = ""
        parts = path.split("/") if path else []
        for i, part in enumerate(parts):
            here = posixpath.join(done, part) if done else part
            entry = self.entries.get(here)
            if entry is None:
                return None
            if entry.kind == GITLINK and i < len(parts) - 1:
                raise _InModule(here)
            if entry.is_link:
                if links >= _MAX_LINKS:
                    raise HygieneError(f"{self._where()}{here} is a symlink loop")
                rest = "/".join(parts[i + 1 :])
                target = self._link_target(here)
                return self.real("/".join(p for p in (target, rest) if p), links + 1)
            done = here
        return done

    def under(self, folder: str) -> Iterator[tuple[str, bool]]:
        """The files and symlinks within ``folder`` (:class:`LinkedTree`)."""
        for path in paths_under(self._paths, folder):
            entry = self.entries[path]
            if entry.is_link or entry.kind in ("blob", GITLINK):
                yield path, entry.is_link

    def target(self, link: str) -> tuple[str, bool]:
        """Where ``link`` leads and whether that is a folder (:class:`LinkedTree`): a git
        submodule is one, walked as the folder on disk is, and listed as its entry."""
        try:
            target = self.real(link)
        except _InModule as held:
            raise into_module(link, self._texts.get(link, ""), held.module, self._where()) from None
        if target is None:
            raise HygieneError(
                f"{self._where()}{link} is a symlink to "
                f"{self._texts.get(link, '')!r}, which does not exist"
            )
        linked = self.entries.get(target)
        return target, linked is None or linked.kind != "blob"

    def files(self, relpath: str) -> dict[str, Blob]:
        """The files under ``relpath``, named through the links that lead to them."""
        return {
            name: Blob(real, self.entries[real].oid)
            for name, (real, _) in linked_files(self, relpath).items()
        }
