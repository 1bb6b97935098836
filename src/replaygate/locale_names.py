"""File names as text and as the file system holds them, alike in every locale.

Python holds a name's bytes as the locale decodes them: under a UTF-8 locale ``évals``
as its letters, under an ASCII one (``LC_ALL=C``, ``PYTHONUTF8=0``) each byte outside
ASCII as a surrogate from U+DC80 to U+DCFF (``\\udcc3\\udca9vals``), which alone can
open the file there. A name written to a document (a results file, the hits log) is its
text (:func:`names_as_utf8`), and a name read from one (or from TOML, or git's output)
is opened as the file system names it (:func:`on_disk`): the same document on every
machine, and a byte that is not UTF-8 kept as its surrogate both ways.
"""

from __future__ import annotations

import os
import re

_NAME_BYTES = re.compile("[\udc80-\udcff]+")
"""Bytes of a file name Python decoded as surrogates (``os.fsdecode``, ``surrogateescape``)."""


def _as_utf8(found: re.Match[str]) -> str:
    """The bytes ``found`` holds as surrogates, read as UTF-8 where they are UTF-8."""
    return found.group().encode("utf-8", "surrogateescape").decode("utf-8", "surrogateescape")


def names_as_utf8(text: str) -> str:
    """``text`` with the bytes of a file name held as surrogates read as UTF-8 where they
    are (``\\udcc3\\udcbc`` as ``ü``): a name an ASCII locale (``LC_ALL=C``) decodes byte by
    byte reads as a UTF-8 locale reads it; a byte that is not UTF-8 stays a surrogate."""
    return _NAME_BYTES.sub(_as_utf8, text)


def on_disk(name: str) -> str:
    """A file name read as UTF-8 text (from a TOML file, git's output) as the file system
    names it: the same in a UTF-8 locale; the surrogates of its bytes in an ASCII one
    (``LC_ALL=C``), which can open it where a name of letters outside ASCII cannot be
    encoded. The inverse of :func:`names_as_utf8`. An ASCII name is the same in every
    locale, as it is given (the hits log's names, read a line at a time, mostly are)."""
    return name if name.isascii() else os.fsdecode(name.encode("utf-8", "surrogateescape"))
