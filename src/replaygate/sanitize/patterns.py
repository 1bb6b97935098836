"""Checks on a user's regular expression, made when the configuration is read.

A sanitize rule runs on every request and response a test records or replays, so a
pattern that can match empty text, or that can take exponential time, is refused
before anything runs, with the reason, instead of rewriting every gap between two
characters or hanging a CI job without a word.

The time check refuses the two common catastrophic forms: a repeated group whose only
required part (or an alternative's) is itself repeated, ``(a+)+``, ``(\\w+\\s?)*``,
``(x*)+``, ``(?:[a-z]+|\\.)+``, also inside an optional part, ``(?:(?:\\w+)?\\s?)+``,
``(?:a+|)+``, or whose body can match empty text, ``(a?){28}``; and a repeated group of
alternatives that can match the same text, one alternative as another or as several
others in a row, ``(a|aa)+``, ``(?:.|\\s)*``, ``(ab|a|b)+``, or two rows of them one text,
``(?:ab|c|a|bc)+``, ``(?:\\d\\d|\\d{3})+`` (six digits); and a repeated group whose
repeated part can match the rest of it, ``(?:.+,)+``. A repeated group
with a fixed separator, ``(?:[a-z]+\\.)+``, is accepted, and so are alternatives that
cannot match alike, ``(?:foo|foobar)+``. It is a check of the shape of the pattern, not
a proof: keep patterns simple, and anchor them on fixed text.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Iterator
from re import _compiler as compiler  # type: ignore[attr-defined]
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
    if _nested_repeat(list(parsed), parsed.state):
        return (
            f"pattern {pattern!r} repeats a group whose only required part is itself repeated "
            "(or made optional, or that can match empty text), which can take exponential time "
            "on a text that almost matches and hang the run; repeat the inner part once, or put "
            "a fixed character between the repetitions"
        )
    if _swallowing_repeat(list(parsed), parsed.state):
        return (
            f"pattern {pattern!r} repeats a group whose repeated part can also match the "
            "rest of the group (as '.+' matches the ',' of '(?:.+,)+'), so one repetition can "
            "take the text of any number of others, which can take exponential time on a "
            "text that almost matches and hang the run; make the repeated part exclude what "
            "follows it ('[^,]+,')"
        )
    if _ambiguous_repeat(list(parsed), parsed.state):
        return (
            f"pattern {pattern!r} repeats a group whose alternatives can match the same text "
            "(one alternative as another, or a row of them as another row), which can take "
            "exponential time on a text that almost matches and hang the run; make the "
            "alternatives match different text"
        )
    return None


def _items(items: list[Any]) -> list[Any]:
    """``items`` with groups opened, so a group's parts count as the parts around it."""
    opened: list[Any] = []
    for op, av in items:
        if op == constants.ATOMIC_GROUP:  # its argument is the group's pattern itself
            opened += _items(list(av))
        elif op == constants.SUBPATTERN:
            opened += _items(list(av[-1]))
        else:
            opened.append((op, av))
    return opened


def _variable_repeat(op: Any, av: Any) -> bool:
    return op in _REPEATS and av[1] > 1 and av[0] != av[1]


def _width(op: Any, av: Any, state: Any) -> int:
    """The fewest characters one parsed item matches (``state``: the pattern's, which
    knows its groups' widths, for a back-reference)."""
    return int(parser.SubPattern(state, [(op, av)]).getwidth()[0])


def _repeats(items: list[Any]) -> Iterator[Any]:
    """The arguments of every repeat in ``items``, at any depth (groups, alternatives,
    lookarounds, other repeats): ``(min, max, body)``."""
    for op, av in _items(items):
        if op in _REPEATS:
            yield av
            yield from _repeats(list(av[2]))
        elif op == constants.BRANCH:
            for branch in av[1]:
                yield from _repeats(list(branch))
        elif op in (constants.ASSERT, constants.ASSERT_NOT):
            yield from _repeats(list(av[1]))


def _nested_repeat(items: list[Any], state: Any) -> bool:
    """Whether a repeat in ``items`` (at any depth) has a body, or an alternative of a body
    that is one choice, whose only required parts are variable repeats, ``(a+)+``,
    ``(?:[a-z]+|\\.)+``, or a body that can match empty text, ``(a?){28}``: each repetition
    may then take any share of the text, and a near miss tries them all."""
    for _, high, body in _repeats(items):
        if high > 1 and (
            body.getwidth()[0] == 0
            or any(_only_repeated(part, state) for part in _choices(list(body), state))
        ):
            return True
    return False


def _swallowing_repeat(items: list[Any], state: Any) -> bool:
    """Whether a repeat in ``items`` (at any depth) has a body of single characters and
    repeats of one, one of whose variable repeats can match a character of each other
    part, ``(?:.+,)+``: its text can then be read as one repetition or as many, and a
    near miss tries every split."""
    for _, high, body in _repeats(items):
        if high < 2:
            continue
        parts = _items(list(body))
        chars = [_one_char(op, av, state) for op, av in parts]
        if len(parts) < 2:
            continue
        for (op, av), char in zip(parts, chars, strict=True):
            if op != constants.POSSESSIVE_REPEAT and _variable_repeat(op, av) and char:
                others = [c for c in chars if c is not char]
                if all(other and _share(char, other) for other in others):
                    return True
    return False


def _one_char(op: Any, av: Any, state: Any) -> tuple[Char, str] | None:
    """The character test of an item matching one character, or of a repeat of one
    (``,``, ``.+``, ``\\d{3}``); None for any other item."""
    if op in _REPEATS:
        inner = _items(list(av[2]))
        return _char(inner[0][0], inner[0][1], state) if len(inner) == 1 else None
    return _char(op, av, state)


def _choices(body: list[Any], state: Any) -> list[list[Any]]:
    """``body``, and each of its alternatives when it is one choice among them (beside
    parts that match no character)."""
    opened = _items(body)
    wide = [(op, av) for op, av in opened if _width(op, av, state) > 0 or op in _REPEATS]
    if len(wide) == 1 and wide[0][0] == constants.BRANCH:
        return [opened, *(list(branch) for branch in wide[0][1][1])]
    return [opened]


def _repeat_like(op: Any, av: Any, state: Any) -> bool:
    """Whether one parsed item is a variable repeat, or an optional part holding one alone:
    ``\\w+``, ``(?:\\w+)?``, ``(?:\\w+){0,1}``, ``(?:\\w+|)``."""
    if _variable_repeat(op, av):
        return True
    if op in _REPEATS and av[0] == 0 and av[1] == 1:
        inner = [list(av[2])]
    elif op == constants.BRANCH and _width(op, av, state) == 0:
        inner = [list(branch) for branch in av[1]]
    else:
        return False
    return any(_only_repeated(part, state) for part in inner)


def _only_repeated(items: list[Any], state: Any) -> bool:
    """Whether ``items`` hold a variable repeat (:func:`_repeat_like`) and no other part
    that must match."""
    opened = _items(items)
    repeated = [_repeat_like(op, av, state) for op, av in opened]
    required = [
        not r and _width(op, av, state) > 0 for r, (op, av) in zip(repeated, opened, strict=True)
    ]
    return any(repeated) and not any(required)


_SAMPLE = string.printable + "\x00\x85\xa0\xe9\u2028\u4e00"
"""Characters tried, besides those a pattern names, when asking whether two classes share one."""
_MOST_SPELLINGS = 64
"""A group with more spellings than this (or longer ones) is not looked into."""
_LONGEST_SPELLING = 32

Char = Callable[[str], bool]
"""Whether a character matches one item of a pattern."""


def _ambiguous_repeat(items: list[Any], state: Any) -> bool:
    """Whether a repeat in ``items`` (at any depth) repeats a body of single characters
    and alternatives whose spellings can match one text in two ways (:func:`_spellings`,
    :func:`_alike`)."""
    for low, high, body in _repeats(items):
        if high > 1 and low != high:
            spelled = _spellings(list(body), state)
            if spelled is not None and _alike(spelled):
                return True
    return False


def _spellings(items: list[Any], state: Any) -> list[list[tuple[Char, str]]] | None:
    """Every sequence of single characters ``items`` can match, each character as a test
    and the characters the pattern names for it (a repeat of a fixed count, ``\\d{3}``,
    spelled out); None when ``items`` holds anything else (a variable repeat, an
    assertion) or spells too many or too long."""
    spelled: list[list[tuple[Char, str]]] = [[]]
    for op, av in _items(items):
        if op == constants.BRANCH:
            options: list[list[tuple[Char, str]]] = []
            for branch in av[1]:
                inner = _spellings(list(branch), state)
                if inner is None:
                    return None
                options += inner
        elif op in _REPEATS and av[0] == av[1] <= _LONGEST_SPELLING:
            once = _spellings(list(av[2]), state)
            if once is None:
                return None
            options = [[]]
            for _ in range(av[0]):
                options = [head + tail for head in options for tail in once]
                if len(options) > _MOST_SPELLINGS:
                    return None
        else:
            char = _char(op, av, state)
            if char is None:
                return None
            options = [[char]]
        spelled = [head + tail for head in spelled for tail in options]
        if len(spelled) > _MOST_SPELLINGS or any(len(s) > _LONGEST_SPELLING for s in spelled):
            return None
    return spelled


def _char(op: Any, av: Any, state: Any) -> tuple[Char, str] | None:
    """An item matching exactly one character, as a test (compiled under the pattern's
    flags) and the characters it names; None for any other item."""
    if op not in (constants.LITERAL, constants.NOT_LITERAL, constants.ANY, constants.IN):
        return None
    if op == constants.IN:
        bounds = [a if o == constants.RANGE else (a,) for o, a in av if o in _NAMING]
        named = "".join(chr(x) for bound in bounds for x in bound)
    else:
        named = "" if av is None else chr(av)
    compiled = compiler.compile(parser.SubPattern(state, [(op, av)]))
    return (lambda text: compiled.fullmatch(text) is not None), named


_NAMING = (constants.LITERAL, constants.RANGE)


def _alike(spelled: list[list[tuple[Char, str]]]) -> bool:
    """Whether a text that spellings match in a row can be matched by them in two ways:
    two of one length matching a common text (``a``, ``.``), one matching what several
    match in a row (``ab``, ``a``, ``b``), or two rows of them one text (``ab``, ``c``,
    ``a``, ``bc``: ``abc``; ``\\d\\d``, ``\\d\\d\\d``: six digits).

    The Sardinas-Patterson test, with two characters alike when they can match a common
    one: a tail is what is left of one spelling past the text another row has matched so
    far, as (spelling, offset); a row that ends where the other does reads the text twice.
    """
    words = [word for word in spelled if word]
    shared: dict[tuple[int, int], bool] = {}

    def overlap(one: list[tuple[Char, str]], other: list[tuple[Char, str]]) -> bool:
        for a, b in zip(one, other, strict=False):
            pair = (id(a), id(b))
            if pair not in shared:
                shared[pair] = _share(a, b)
            if not shared[pair]:
                return False
        return True

    tails: list[tuple[int, int]] = []
    for i, one in enumerate(words):
        for j, other in enumerate(words):
            if i != j and len(one) <= len(other) and overlap(one, other):
                if len(one) == len(other):
                    return True
                tails.append((j, len(one)))
    seen: set[tuple[int, int]] = set()
    while tails:
        j, start = tails.pop()
        if (j, start) in seen:
            continue
        seen.add((j, start))
        rest = words[j][start:]
        for i, word in enumerate(words):
            if overlap(word, rest):
                if len(word) == len(rest):
                    return True
                tails.append((j, start + len(word)) if len(word) < len(rest) else (i, len(rest)))
    return False


def _share(one: tuple[Char, str], other: tuple[Char, str]) -> bool:
    """Whether two single-character items match a common character (of those they name,
    and a sample of others)."""
    return any(one[0](c) and other[0](c) for c in set(one[1] + other[1] + _SAMPLE))
