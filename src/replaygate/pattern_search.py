r"""A JSON Schema ``pattern`` searched in a string within a time bound.

JSON Schema's ``pattern`` and ``patternProperties`` are checked with ``re.search`` by
``jsonschema``: Python's engine backtracks, so a pattern like ``^((x|x){50}){1,4}$``
takes exponential time on a string it does not match, and ``re`` cannot be interrupted:
a check of such a string held its thread for ever. A pattern is read by ``re`` (the
dialect JSON Schema is checked in: what it refuses is no pattern) and searched by the
``regex`` module, which reads that dialect alike (its version 0), under a time bound: a
search past :data:`SECONDS` is a :class:`SlowPatternError` naming the pattern. ``regex``
also fails at once where ``re`` backtracks for ever (``(?:(?:\w|\w)+)+!`` on a long
word), so its answer is the one taken; a pattern it cannot read is searched by ``re``.
One difference of dialect is taken away first: ``regex`` reads ``[:alpha:]`` inside a
set as a POSIX class, where ``re`` and JSON Schema's ECMA-262 read a ``[`` there as the
character (``[[:alpha:]]+`` is a set of ``[:alph`` then a ``]``), so such a ``[`` is
escaped before ``regex`` reads the pattern (:func:`_sets_literal`).
The simulator searches what it makes this way, and the validators of
:mod:`replaygate.json_schema` check the pattern keywords so (:mod:`replaygate.json_patterns`).
"""

from __future__ import annotations

import functools
import re

import regex

from replaygate.errors import ReplaygateError

SECONDS = 1.0
"""How long one search of a pattern may take before the pattern is refused."""


class SlowPatternError(ReplaygateError, ValueError):
    """A pattern whose search of a string took longer than :data:`SECONDS`: a
    :class:`~replaygate.errors.ReplaygateError`, so ``except ReplaygateError`` catches it
    as every other refusal of replaygate's."""


def searched(pattern: str, text: str) -> bool:
    """Whether ``pattern`` matches somewhere in ``text``; :class:`SlowPatternError` when
    the search takes longer than :data:`SECONDS`, and ``re.error`` for what ``re`` does
    not read as a pattern."""
    re.compile(pattern)
    try:
        return regex.search(_sets_literal(pattern), text, timeout=SECONDS) is not None
    except TimeoutError:
        raise SlowPatternError(
            f"pattern '{pattern}' took more than {SECONDS:g} s to search a string of "
            f"{len(text):,} characters: its repeats of alternatives that match the same "
            "text backtrack exponentially (as they would in any check of it with Python's "
            "re)"
        ) from None
    except regex.error:
        return re.search(pattern, text) is not None


@functools.lru_cache(maxsize=256)
def _sets_literal(pattern: str) -> str:
    """``pattern`` with each ``[`` inside a character set escaped, as ``re`` reads it: the
    character, not the start of a POSIX class (or a nested set) as ``regex`` reads it."""
    out: list[str] = []
    inside = False
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if not inside and char == "[":
            start = i + 1 + (pattern[i + 1 : i + 2] == "^")
            start += pattern[start : start + 1] == "]"  # a ] first in a set is the character
            out.append(pattern[i:start])
            i, inside = start, True
            continue
        if inside and char == "[":
            char = "\\["
        elif inside and char == "]":
            inside = False
        out.append(char)
        i += 1
    return "".join(out)
