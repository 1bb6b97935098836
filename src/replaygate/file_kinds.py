"""Replaygate's own files told apart, for a reader given one where another is expected.

A history database, a cases file or a fixture store given where a results file is read
(``gate --results``, ``eval merge``, ``calibrate export``) is named as what it holds, not
by the byte or line where it stops being JSON; a JSON document of another ``format`` (a
baseline where results are read, a history export) names its ``format`` and what it holds.
"""

from __future__ import annotations

import os
import stat
from typing import Any

from replaygate import jsondoc
from replaygate.errors import SQLITE_HEADER as SQLITE_HEADER
from replaygate.errors import SQLITE_HELD, shown_file
from replaygate.fixtures.store.folder import LINE_KINDS, PEEK_BYTES, as_text, held_fixtures
from replaygate.fixtures.store.folder import kind_of as file_kind
from replaygate.jsondoc import ErrorType, got

RESULTS_FORMAT = "replaygate.sampling.results"
BASELINE_FORMAT = "replaygate.eval.baseline"
EXPORT_FORMAT = "replaygate.history"
DOCUMENTS = {
    RESULTS_FORMAT: "eval results (`replaygate eval --out FILE` writes them)",
    BASELINE_FORMAT: "a baseline (`replaygate baseline update` writes it)",
    EXPORT_FORMAT: (
        "an exported history (`replaygate history export` writes it, `replaygate history "
        "merge` reads it)"
    ),
}
"""What each of replaygate's JSON documents is, by its ``format``, in a user's words."""


def read_document(path: str | os.PathLike[str], what: str, error: ErrorType) -> Any:
    """:func:`~replaygate.jsondoc.read_json` of ``path``, where a file that is another of
    replaygate's files (:func:`other_file`) is named as what it holds, in ``error``."""
    try:
        return jsondoc.read_json(path, what, error)
    except Exception:  # the ``error`` it raises (a callable type, so no except clause)
        held = other_file(path)
        if held is None:
            raise
        raise error(f"{shown_file(str(path))}: holds {held}, where {what} should be") from None


def other_file(path: str | os.PathLike[str]) -> str | None:
    """What the regular file at ``path`` holds when it is one of replaygate's files that
    are not JSON documents: a SQLite history, eval cases or fixtures (one JSON a line);
    None for anything else (a damaged document is named by where it is damaged)."""
    try:  # a FIFO or a device is never opened: it may wait for ever
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        with open(path, "rb") as handle:
            head = handle.read(PEEK_BYTES)
    except OSError:
        return None
    if head.startswith(SQLITE_HEADER):
        return SQLITE_HELD
    kind = file_kind(as_text(head).encode())
    if kind in LINE_KINDS:
        return f"{kind} (a JSON Lines file, one object a line)"
    if kind is None and held_fixtures(os.fspath(path), head) == "holds fixtures":
        return "fixtures (a fixture store, one recorded interaction a line)"
    return None


def other_document(obj: Any, name: str, wanted: str, error: ErrorType) -> Exception:
    """The ``error`` for ``obj``, parsed from the file ``name``, that is not ``wanted``
    (``a results file ('replaygate.sampling.results')``): what its ``format`` says it
    holds instead (a baseline, an exported history), that it names none, or that it is
    no object."""
    name = shown_file(name)
    if not isinstance(obj, dict):
        return error(f"{name}: holds {got(obj)}, where {wanted} should be")
    if "format" not in obj:
        return error(f"{name}: format: is missing, where {wanted} should be")
    found = obj["format"]
    held = DOCUMENTS.get(found) if isinstance(found, str) else None
    if held is None:
        return error(
            f"{name}: format: {got(found)} is none of replaygate's documents, where {wanted} "
            "should be"
        )
    return error(f"{name}: format: {found!r}: holds {held}, where {wanted} should be")
