"""Why a path is not there, said so that a person can act on it: a relative path looked
for while the current folder no longer exists (removed, or renamed away, in another
shell) is missing for that reason, which a bare "no such file" would hide."""

from __future__ import annotations

import glob
import os
import re
import unicodedata
from pathlib import Path

from replaygate.checkouts import left_out_of_sparse_checkout

ONE_FIXTURE_FILE = "a .json file holds one recorded fixture, and no recording makes one"
"""Why a ``.json`` store that is not there cannot be recorded into either: a store to
record into is a ``.jsonl`` file or a folder."""

CWD_GONE = (
    "the current folder no longer exists (it was removed while this shell was in it): "
    "cd into an existing folder and run the command again"
)
"""What to say when the current folder no longer exists."""


def cwd_gone() -> bool:
    """Whether the current folder no longer exists."""
    try:
        os.getcwd()
    except FileNotFoundError:
        return True
    return False


def missing(
    path: str | os.PathLike[str], reason: str = "no such file or folder", *, near: bool = True
) -> str:
    """Why ``path`` is not there: ``reason``, or :data:`CWD_GONE` for a relative path
    while the current folder no longer exists; for a path git holds that a sparse
    checkout leaves out, ``reason`` and what to run to check it out; for one a typo away
    from a path there (:func:`typo_of`), unless ``near`` is false, ``reason`` and that
    path."""
    if not os.path.isabs(path) and cwd_gone():
        return CWD_GONE
    left_out = left_out_of_sparse_checkout(Path(path))
    if left_out is not None:
        return f"{reason}: {left_out}"
    meant = typo_note(path) if near else None
    return reason if meant is None else f"{reason}: {meant}"


def typo_note(path: str | os.PathLike[str]) -> str | None:
    """``did you mean <path there>, which is there?`` of a ``path`` that misspells it
    (:func:`typo_of`), or that names it from a folder above the working one
    (:func:`found_above`); None for any other path."""
    meant = typo_of(path) or found_above(path)
    return None if meant is None else f"did you mean {meant}, which is there?"


ABOVE = 3
"""How many folders above the working one :func:`found_above` looks in."""


def found_above(path: str | os.PathLike[str]) -> str | None:
    """A relative ``path``, not there, as a path from the working folder to where it is
    there from a folder above it (``../tests/fixtures`` for ``tests/fixtures`` given in
    ``tests``, the command run from the wrong folder); None where it is in none of the
    :data:`ABOVE` folders above, or ``path`` is absolute or there."""
    text = os.fsdecode(path)
    if not text or os.path.isabs(text) or os.path.lexists(text) or cwd_gone():
        return None
    for folder in Path.cwd().parents[:ABOVE]:
        if os.path.lexists(folder / text):
            return os.path.relpath(folder / text)
    return None


def typo_of(path: str | os.PathLike[str]) -> str | None:
    """The path there that ``path``, not there, misspells in one of its names
    (``tests/fixture/rc.jsonl`` for ``tests/fixtures/rc.jsonl``): its first name not there
    replaced by the one name of its folder a typo away from it (:func:`_typos`), when the
    whole path so spelled is there; None otherwise, and for a name of one or two
    characters (``-``), which every name as short is a typo away from."""
    text = os.fsdecode(path)
    if not text or os.path.lexists(text):
        return None
    parts = Path(text).parts
    found = Path()
    for index, part in enumerate(parts):
        if not os.path.lexists(found / part):
            try:
                names = os.listdir(found)
            except OSError:
                return None
            if len(part) < 3:  # "-" (stdin), "t": any short name is a typo away
                return None
            allowed = 1 if len(part) < 10 else 2
            close = [name for name in names if _typos(part, name, allowed) <= allowed]
            if len(close) != 1:
                return None  # none alike, or several: no one name meant
            meant = found.joinpath(close[0], *parts[index + 1 :])
            return os.fspath(meant) if os.path.lexists(meant) else None
        found = found / part
    return None


def _typos(one: str, other: str, most: int) -> int:
    """How many typos (a letter added, left out, changed, or two swapped) make ``other``
    of ``one``, counted up to ``most`` + 1."""
    if abs(len(one) - len(other)) > most:
        return most + 1
    before: list[int] = []
    row = list(range(len(other) + 1))
    for i, letter in enumerate(one, start=1):
        current = [i] + [0] * len(other)
        for j, theirs in enumerate(other, start=1):
            current[j] = min(row[j] + 1, current[j - 1] + 1, row[j - 1] + (letter != theirs))
            if i > 1 and j > 1 and letter == other[j - 2] and one[i - 2] == theirs:
                current[j] = min(current[j], before[j - 2] + 1)  # two letters swapped
        before, row = row, current
    return min(row[-1], most + 1)


def missing_store(path: str | os.PathLike[str]) -> str:
    """Why the store ``path`` is not there (:func:`missing`), and what was meant when it
    is a fixture's place or a pattern pasted as a store (:func:`pasted_location`)."""
    located = pasted_location(path)
    return missing(path) if located is None else f"{missing(path, near=False)}: {located}"


_LOCATION = re.compile(r"(.+\.jsonl?):([0-9]+)(?::[0-9]+)?")
"""A store file's name and a line (and column), as the commands name a fixture's place."""


def pasted_location(path: str | os.PathLike[str]) -> str | None:
    """What ``path``, given as a store and not there, names when it is a fixture's place
    as ``verify``, ``patrol``, ``prune`` and a miss print one, a store file and a line
    (``tests/fixtures/rc.jsonl:3``, pasted whole), and the file to pass instead; or when
    it is a ``*`` pattern no shell expanded that matches files there (``"fx/*.jsonl"``, quoted,
    or an argument of ``subprocess`` or nox's ``session.run``), and the folder to pass
    instead; or when its name is that of a file or folder there in another Unicode form
    (``café.jsonl`` typed in NFC, the file's name in NFD), and the path to pass instead;
    or when it is a ``.json`` name beside the ``.jsonl`` store of that name (``rc.json``
    typed for ``rc.jsonl``), and that store; None for any other path. Recorded into, it
    would be made a store of that name: two stores that look alike, the one replayed
    missing what was recorded into the other (a ``.json`` one is refused, and only
    misses, replayed)."""
    text = os.fsdecode(path)
    if os.path.lexists(text):
        return None
    other_form = _other_unicode_form(text)
    if other_form is not None:
        return (
            f"{other_form} is there, a name that looks the same in another Unicode form "
            f"({_form(text)} given, {_form(other_form)} there: an accented letter as one "
            "character is NFC, as a letter and a combining accent NFD, as a copy from macOS "
            f"or a zip archive may leave it): pass {other_form}, copied from this message"
        )
    if text.endswith(".json") and os.path.isfile(text + "l"):
        return f"{text}l is there: pass it ({ONE_FIXTURE_FILE})"
    found = _LOCATION.fullmatch(os.path.basename(text))
    if found is not None:
        file = os.path.join(os.path.dirname(text), found.group(1))
        return (
            f"it names line {found.group(2)} of {file}, a fixture's place as the commands "
            f"print it, not a store: pass {file}"
        )
    if "*" not in text:  # not [ nor ?: a parametrized test's store, test_x[1].jsonl, is
        return None  # no pattern, even where test_x1.jsonl is there
    matched = glob.glob(text, recursive=True)
    if len(matched) == 1:
        return f"it is a pattern no shell expanded, matching {matched[0]}: pass that"
    if not matched:
        return None
    folder = os.path.commonpath([os.path.normpath(m) for m in matched])
    holding = folder if os.path.isdir(folder) else os.path.dirname(folder) or "."
    return (
        f"it is a pattern no shell expanded, matching {len(matched)} file(s) or folder(s): "
        f"pass one store, or the folder holding them ({holding}), whose every store is read"
    )


def _other_unicode_form(text: str) -> str | None:
    """``text`` with its first component that is not there replaced by the name there in
    its folder that differs from it only in Unicode normal form; None when there is none."""
    head, tail = os.path.split(text)
    if head and head != text and not os.path.lexists(head):
        inner = _other_unicode_form(head)
        return None if inner is None else os.path.join(inner, tail)
    if not tail or tail.isascii():
        return None
    wanted = unicodedata.normalize("NFC", tail)
    try:
        names = os.listdir(head or ".")
    except OSError:
        return None
    for name in sorted(names):
        if name != tail and unicodedata.normalize("NFC", name) == wanted:
            return os.path.join(head, name)
    return None


def _form(text: str) -> str:
    """The Unicode normal form ``text`` is in: ``NFC``, ``NFD``, or ``mixed``."""
    for form in ("NFC", "NFD"):
        if unicodedata.is_normalized(form, text):
            return form
    return "mixed"
