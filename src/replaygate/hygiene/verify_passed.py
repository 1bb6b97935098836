"""The folders below a folder store that its walk does not enter, when they hold files
named as fixture files: ``verify`` names each in a note, so fixtures kept in a dot folder
(a symlinked ``fixtures/.shared``), ``node_modules`` or a Python environment are not
passed over in silence.

A passed-over folder is looked into cheaply, never walked: its own files and those of its
``<interface>@<version>`` folders, at most :data:`LOOK_LIMIT` entries, and no more than
:data:`FOLDER_LIMIT` folders in all. Its own ``.json`` files count when named as a store
names a one-fixture file (``<key>.json``), so a tool's ``settings.json`` or
``package.json`` is not taken for a fixture.
"""

from __future__ import annotations

import os
from pathlib import Path

from replaygate.fixtures.store.folder import PASSED_OVER, StoreTree, is_store_file
from replaygate.fixtures.store.jsonl import is_fixture_name
from replaygate.folder_tree import listings

LOOK_LIMIT = 1000
"""The most folder entries looked at in one passed-over folder, its interface folders'
included."""
FOLDER_LIMIT = 100
"""The most passed-over folders looked into by one verification."""
NEVER_HOLDS = frozenset({"__pycache__"})
"""Passed-over folders not looked into: Python writes only its bytecode there."""


def passed_over_notes(tree: StoreTree) -> list[str]:
    """One note line for each folder of ``tree`` its walk did not enter
    (:attr:`~replaygate.fixtures.store.folder.StoreTree.passed_over`) that holds files
    named as fixture files."""
    looked = [folder for folder in tree.passed_over if folder.name not in NEVER_HOLDS]
    notes = []
    for folder in looked[:FOLDER_LIMIT]:
        count, more = fixture_named(folder)
        if count:
            why, what_to_do = _why(folder.name)
            notes.append(
                f"note: {folder} is passed over ({why}): its {count}{'+' if more else ''} "
                f".json/.jsonl file(s) are not read as fixtures; {what_to_do}, or name it "
                "as a store of its own"
            )
    return notes


def _why(name: str) -> tuple[str, str]:
    """Why a folder named ``name`` is passed over, and what to do to have its files read."""
    if name.startswith("."):
        return "a dot folder", "rename it without the dot"
    if name in PASSED_OVER:
        return f"no {name} folder is entered", "move them out of it"
    return "a Python environment", "move them out of it"


def fixture_named(folder: Path) -> tuple[int, bool]:
    """How many files named as fixture files ``folder`` holds, and whether
    :data:`LOOK_LIMIT` stopped the count: in an ``<interface>@<version>`` folder of it,
    any (:func:`is_store_file`); in itself, a ``.jsonl`` file or a ``<key>.json`` one
    (:func:`~replaygate.fixtures.store.jsonl.is_fixture_name`). A folder that cannot be
    listed holds none."""
    count, seen = 0, 0
    for listing in listings(os.fspath(folder)):
        inner = listing.folder != os.fspath(folder)
        listing.subfolders[:] = [] if inner else [n for n in listing.subfolders if _interface(n)]
        for name in listing.files:
            seen += 1
            if seen > LOOK_LIMIT:
                return count, True
            count += is_store_file(name) and (inner or _own_fixture_name(name))
    return count, False


def _own_fixture_name(name: str) -> bool:
    """Whether ``name``, a file of a passed-over folder itself, is named as a fixture file
    is: a ``.jsonl`` store or a one-fixture ``<key>.json``."""
    return name.endswith(".jsonl") or is_fixture_name(name)


def _interface(name: str) -> bool:
    """Whether a subfolder ``name`` is named as an ``<interface>@<version>`` folder."""
    return "@" in name and not name.startswith(".")
