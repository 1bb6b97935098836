"""Checks on a user's regular expression, made when the configuration is read.

A sanitize rule runs on every request and response a test records or replays, so a
pattern that can match empty text, or that can take exponential time, is refused
before anything runs, with the reason, instead of rewriting every gap between two
characters or hanging a CI job without a word.

The time check refuses the common catastrophic form, a repeated group whose only
required part is itself repeated: ``(a+)+``, ``(\\w+\\s?)*``, ``(x*)+``. A repeated
group with a fixed separator, ``(?:[a-z]+\\.)+``, is accepted. It is a check of the
shape of the pattern, not a proof: keep patterns simple, and anchor them on fixed text.
"""

from __future__ import annotations

import re
from re import _constants as constants  # type: ignore[attr-defined]
from re import _parser as parser  # type: ignore[attr-defined]
from typing import Any

_REPEATS = (constants.MAX_REPEAT, constants.MIN_REPEAT, constants.POSSESSIVE_REPEAT)
_GROUPS = (constants.SUBPATTERN, constants.ATOMIC_GROUP)


def pattern_problem(pattern: str, flags: int = 0) -> str | None:
    """Why ``pattern`` cannot be a sanitize or known-safe pattern, or None."""
    try:
        re.compile(pattern, flags)
        parsed = parser.parse(pattern, flags)
    except re.error as err:
        return f"invalid regular expression {pattern!r}: {err}"
    if parsed.getwidth()[0] == 0:
        return (
            f"pattern {pattern!r} matches empty text: it matches the empty string (its "
            "shortest match is 0 characters), so it would rewrite the gaps between characters "
            "or hide too much; make every match hold at least one character"
        )
    if _nested_repeat(list(parsed)):
        return (
            f"pattern {pattern!r} repeats a group whose only required part is itself repeated, "
            "which can take exponential time on a text that almost matches and hang the run; "
            "repeat the inner part once, or put a fixed character between the repetitions"
        )
    return None


def _items(items: list[Any]) -> list[Any]:
    """``items`` with groups opened, so a group's parts count as the parts around it."""
    opened: list[Any] = []
    for op, av in items:
        if op in _GROUPS:
            opened += _items(list(av[-1]))
        else:
            opened.append((op, av))
    return opened


def _variable_repeat(op: Any, av: Any) -> bool:
    return op in _REPEATS and av[1] > 1 and av[0] != av[1]


def _width(op: Any, av: Any) -> int:
    """The fewest characters one parsed item matches."""
    return int(parser.SubPattern(parser.State(), [(op, av)]).getwidth()[0])


def _nested_repeat(items: list[Any]) -> bool:
    """Whether a repeat in ``items`` (at any depth) has a body whose only required parts
    are variable repeats."""
    for op, av in _items(items):
        if op in _REPEATS:
            body = _items(list(av[2]))
            if av[1] > 1 and any(_variable_repeat(o, a) for o, a in body):
                required = [
                    (o, a) for o, a in body if not _variable_repeat(o, a) and _width(o, a) > 0
                ]
                if not required:
                    return True
            if _nested_repeat(list(av[2])):
                return True
        elif op == constants.BRANCH:
            if any(_nested_repeat(list(branch)) for branch in av[1]):
                return True
        elif op in (constants.ASSERT, constants.ASSERT_NOT) and _nested_repeat(list(av[1])):
            return True
    return False
