"""The file names a run's information holds, which may be not UTF-8.

A run names the files it read: the fixture store (``fixtures``), the cases file
(``cases_file``), the price table (``prices.source``) and, merged, its shards
(``shards[].file``). A name that is not UTF-8 (``caf\\xe9.jsonl`` in Latin-1) is held as
Python reads it, each such byte as a character from U+DC80 to U+DCFF
(``caf\\udce9.jsonl``), which JSON writes as the escape ``\\udce9``: results files, the
history and its exports keep it so, and ``os.fsencode`` of it gives back the name's
bytes. Half of a surrogate pair anywhere else is no text, and is refused.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from replaygate.jsonfields import lone_surrogate

NAMES = frozenset({"fixtures", "cases_file"})
"""The fields of a run's information that name a file."""
RUN_INFO = ("eval", "source", "info")
"""Where a document holds a run's information: a results file's ``eval``, a baseline's
``source`` (a part of it), a history run's ``info``."""
_NAME_BYTE = re.compile("[\udc80-\udcff]")
"""A byte of a file name that is not UTF-8, as Python reads the name (``os.fsdecode``)."""


def text_problem(document: Any, *, skip: frozenset[str] = frozenset(), at: str = "") -> str | None:
    """Why ``document`` is no Unicode text (:func:`~replaygate.jsonfields.lone_surrogate`,
    which names the field), the file names of the run information it holds (or each of
    its ``runs``, an export's) apart: a byte of one that is not UTF-8 is kept."""
    return lone_surrogate(_spared(document), skip=skip, at=at)


def _spared(document: Any) -> Any:
    """``document`` with each byte of its run information's file names that is not
    UTF-8 written ``?``."""
    if not isinstance(document, Mapping):
        return document
    spared = dict(document)
    for key in RUN_INFO:
        if key in spared:
            spared[key] = _info_spared(spared[key])
    if isinstance(spared.get("runs"), list):
        spared["runs"] = [_spared(run) for run in spared["runs"]]
    return spared


def _info_spared(info: Any) -> Any:
    spared = _names_spared(info, NAMES)
    if isinstance(spared, dict):
        if "prices" in spared:
            spared["prices"] = _names_spared(spared["prices"], frozenset({"source"}))
        if isinstance(spared.get("shards"), list):
            spared["shards"] = [_names_spared(s, frozenset({"file"})) for s in spared["shards"]]
    return spared


def _names_spared(obj: Any, names: frozenset[str]) -> Any:
    """``obj`` with each byte that is not UTF-8 of its fields ``names`` written ``?``."""
    if not isinstance(obj, Mapping):
        return obj
    return {
        key: _NAME_BYTE.sub("?", value) if key in names and isinstance(value, str) else value
        for key, value in obj.items()
    }
