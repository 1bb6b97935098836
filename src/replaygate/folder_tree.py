"""A folder tree walked top-down with a list of folders still to list, not by recursion.

Python 3.11's ``os.walk`` calls itself once per level: a tree about 1,000 folders
deep ends it in ``RecursionError``. :func:`walk` yields what ``os.walk`` does, in the
same order, at any depth; a tree deeper than the system's path limit ends in a folder
whose listing fails (``File name too long``), given to ``onerror`` as any other.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator


def walk(
    top: str, onerror: Callable[[OSError], None] | None = None
) -> Iterator[tuple[str, list[str], list[str]]]:
    """``os.walk(top, onerror=onerror)``: each folder as ``(path, subfolders, files)``,
    parents first; the caller may remove names from ``subfolders`` to pass them over.
    Symlinks to folders are listed among the subfolders but not followed. A folder whose
    listing fails is given to ``onerror`` (its error's ``filename`` names it) and not
    yielded."""
    pending = [top]
    while pending:
        folder = pending.pop()
        subfolders: list[str] = []
        files: list[str] = []
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    try:
                        is_folder = entry.is_dir()
                    except OSError:
                        is_folder = False
                    (subfolders if is_folder else files).append(entry.name)
        except OSError as err:
            if onerror is not None:
                onerror(err)
            continue
        yield folder, subfolders, files
        for name in reversed(subfolders):
            path = os.path.join(folder, name)
            if not os.path.islink(path):
                pending.append(path)
