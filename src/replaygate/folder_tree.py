"""A folder tree walked top-down with a list of folders still to list, not by recursion.

Python 3.11's ``os.walk`` calls itself once per level: a tree about 1,000 folders
deep ends it in ``RecursionError``. :func:`walk` yields what ``os.walk`` does, in the
same order, at any depth; a tree deeper than the system's path limit ends in a folder
whose listing fails (``File name too long``), given to ``onerror`` as any other. Each
entry is told a folder or a symlink by its directory entry: no look at a file, or at a
subfolder that is not a symlink, beyond the listing itself.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Listing:
    """One folder of a walk (:func:`listings`)."""

    folder: str
    subfolders: list[str]
    """The names of its subfolders, symlinks to folders included; the caller may remove
    names to pass them over."""
    files: list[str]
    """The names of everything else."""
    links: frozenset[str]
    """Those of :attr:`subfolders` that are symlinks: listed, not walked."""


def listings(top: str, onerror: Callable[[OSError], None] | None = None) -> Iterator[Listing]:
    """Each folder of the tree at ``top``, parents first, as :func:`walk` yields it, with
    which of its subfolders are symlinks."""
    pending = [top]
    while pending:
        folder = pending.pop()
        subfolders: list[str] = []
        files: list[str] = []
        links: set[str] = set()
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    if not _is_folder(entry):
                        files.append(entry.name)
                        continue
                    subfolders.append(entry.name)
                    if _is_link(entry):
                        links.add(entry.name)
        except OSError as err:
            if onerror is not None:
                onerror(err)
            continue
        yield Listing(folder, subfolders, files, frozenset(links))
        pending += [os.path.join(folder, n) for n in reversed(subfolders) if n not in links]


def walk(
    top: str, onerror: Callable[[OSError], None] | None = None
) -> Iterator[tuple[str, list[str], list[str]]]:
    """``os.walk(top, onerror=onerror)``: each folder as ``(path, subfolders, files)``,
    parents first; the caller may remove names from ``subfolders`` to pass them over.
    Symlinks to folders are listed among the subfolders but not followed. A folder whose
    listing fails is given to ``onerror`` (its error's ``filename`` names it) and not
    yielded."""
    for listing in listings(top, onerror):
        yield listing.folder, listing.subfolders, listing.files


def _is_folder(entry: os.DirEntry[str]) -> bool:
    """Whether ``entry`` is a folder, or a symlink to one (a look at its target only)."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def _is_link(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_symlink()
    except OSError:
        return False
