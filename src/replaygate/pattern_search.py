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
Two differences of dialect are taken away first. ``regex`` reads ``[:alpha:]`` inside a
set as a POSIX class, where ``re`` and JSON Schema's ECMA-262 read a ``[`` there as the
character (``[[:alpha:]]+`` is a set of ``[:alph`` then a ``]``), so such a ``[`` is
escaped before ``regex`` reads the pattern (:func:`_sets_literal`). And its ``\w``, ``\d``
and ``\s`` (so ``\b`` and ``\B``) are Unicode's, where ``re``'s are ``str.isalnum`` (and
``_``), ``str.isdecimal`` and ``str.isspace``: ``regex`` takes combining marks for word
characters (``^\w+$`` passed ``cafe\u0301`` and a text stacked with accents) and ``²``
for none. In a text beyond ASCII each is written as the set of the text's characters ``re``
takes for it (:func:`_as_re_reads`).
The simulator searches what it makes this way, and the validators of
:mod:`replaygate.json_schema` check the pattern keywords so (:mod:`replaygate.json_patterns`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator

import regex

from replaygate.errors import ReplaygateError
from replaygate.unicode_forms import escaped

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
    ascii_only = bool(re.compile(pattern).flags & re.ASCII)
    read = _sets_literal(pattern) if ascii_only else _as_re_reads(_sets_literal(pattern), text)
    try:
        return regex.search(read, text, timeout=SECONDS) is not None
    except TimeoutError:
        raise SlowPatternError(
            f"pattern '{pattern}' took more than {SECONDS:g} s to search a string of "
            f"{len(text):,} characters: its repeats of alternatives that match the same "
            "text backtrack exponentially (as they would in any check of it with Python's "
            "re)"
        ) from None
    except regex.error:
        return re.search(pattern, text) is not None


def _pieces(pattern: str) -> Iterator[tuple[str, bool]]:
    """``pattern`` cut into escapes (``\\w``), set openings (``[``, ``[^``, ``[]``) and single
    characters, each with whether it stands inside a character set."""
    inside = False
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            yield pattern[i : i + 2], inside
            i += 2
        elif not inside and char == "[":
            start = i + 1 + (pattern[i + 1 : i + 2] == "^")
            start += pattern[start : start + 1] == "]"  # a ] first in a set is the character
            yield pattern[i:start], False
            i, inside = start, True
        else:
            yield char, inside
            inside = inside and char != "]"
            i += 1


@functools.lru_cache(maxsize=256)
def _sets_literal(pattern: str) -> str:
    """``pattern`` with each ``[`` inside a character set escaped, as ``re`` reads it: the
    character, not the start of a POSIX class (or a nested set) as ``regex`` reads it."""
    return "".join(
        "\\[" if inside and piece == "[" else piece for piece, inside in _pieces(pattern)
    )


_CLASSES: dict[str, Callable[[str], bool]] = {
    "w": lambda c: c.isalnum() or c == "_",
    "d": str.isdecimal,
    "s": str.isspace,
}
"""What ``re`` takes for ``\\w``, ``\\d`` and ``\\s`` in a ``str`` pattern; ``\\W``, ``\\D``
and ``\\S`` are the rest."""

_SEPARATORS = "\x1c\x1d\x1e\x1f"
"""The ASCII characters ``re`` takes for ``\\s`` and ``regex`` does not."""


def _as_re_reads(pattern: str, text: str) -> str:
    """``pattern`` with its ``\\w``, ``\\d``, ``\\s`` (and their negations, ``\\b`` and
    ``\\B``) written as the sets of the characters of ``text`` that ``re`` takes for them,
    where ``regex`` may read them otherwise: in a text beyond ASCII, or holding one of
    :data:`_SEPARATORS`. Written so, the pattern searches ``text`` as ``re`` would."""
    if text.isascii() and not any(c in text for c in _SEPARATORS):
        return pattern
    return _rewritten(pattern, frozenset(c for c in text if c > "\x7f" or c in _SEPARATORS))


@functools.lru_cache(maxsize=256)
def _rewritten(pattern: str, alphabet: frozenset[str]) -> str:
    """:func:`_as_re_reads` for a text whose characters beyond ASCII are ``alphabet``."""
    chars = sorted(alphabet.union(map(chr, range(128))))
    sets = {
        (letter if taken else letter.upper()): "".join(
            escaped(c) for c in chars if is_in(c) == taken
        )
        for letter, is_in in _CLASSES.items()
        for taken in (True, False)
    }
    word = sets["w"]
    bounds = {
        "b": f"(?:(?<=[{word}])(?![{word}])|(?<![{word}])(?=[{word}]))",
        "B": f"(?:(?<=[{word}])(?=[{word}])|(?<![{word}])(?![{word}]))",
    }
    out: list[str] = []
    for piece, inside in _pieces(pattern):
        letter = piece[1:] if piece[:1] == "\\" else ""
        if letter in sets:
            out.append(sets[letter] if inside else f"[{sets[letter]}]")
        elif letter in bounds and not inside:  # in a set, \b is a backspace
            out.append(bounds[letter])
        else:
            out.append(piece)
    return "".join(out)
