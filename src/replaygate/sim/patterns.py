"""Strings matching a regular expression: the values of a JSON Schema string's ``pattern``.

The pattern is read by Python's own parser (``re._parser``, the dialect ``jsonschema``
checks a pattern in) and a string is built from its parse tree: a literal as it is,
a class or ``.`` its first character (``a``, ``0``, ...), a repeat its least count, the
first branch of an alternation, a group's text again for a back-reference; anchors,
word boundaries and lookarounds add nothing. The ``variant``-th string differs from the
others in its characters, its alternatives, or its length where it can grow (``a+``), so
the items of a ``uniqueItems`` array are distinct. The string made is checked as JSON
Schema checks a pattern (``re.search``: unanchored); one that fails (a lookaround or a
boundary the string breaks), one longer than a bound, too few distinct ones, or a
pattern Python cannot read is a :class:`ValueError` saying why, as is one whose check
backtracks past a time bound (:mod:`~replaygate.pattern_search`).
"""

from __future__ import annotations

import bisect
import importlib
import itertools
import math
import re
import string
from collections.abc import Iterator, Sequence
from typing import Any

from replaygate.pattern_search import searched

_parser: Any = importlib.import_module("re._parser")  # typeshed has no stubs for it

MAX_LENGTH = 10_000
"""The longest string made for a pattern (``a{1000000}`` would build a megabyte)."""
_ALPHABET = string.ascii_lowercase + string.digits + string.ascii_uppercase + " _-.@/:+,"
"""The characters a class, ``.`` or a negation chooses from, in the order it tries them."""
_CATEGORIES = {
    "CATEGORY_DIGIT": r"\d",
    "CATEGORY_NOT_DIGIT": r"\D",
    "CATEGORY_SPACE": r"\s",
    "CATEGORY_NOT_SPACE": r"\S",
    "CATEGORY_WORD": r"\w",
    "CATEGORY_NOT_WORD": r"\W",
}
MAX_WORK = 100_000
"""How many characters the strings of one pattern are built of at most, all lengths
together (``^(ab)+$`` makes one string of each length: 1,000 distinct ones are a million
characters)."""
_BRANCHINGS = 64
"""How many picks of the alternations' alternatives are tried at each length."""

Slot = str | int
"""One character of the string: the characters it may be (in order), or the index of an
earlier slot it repeats (a back-reference)."""


class _Builder:
    """The slots of the shortest string a parse tree matches, each repeat that may grow
    taking ``grow`` more characters in all (from its left), each alternation the
    alternative ``branches`` picks (as digits, the first alternation's first): the first
    alternatives when it is 0."""

    def __init__(self, grow: int, branches: int = 0) -> None:
        self.slots: list[Slot] = []
        self.groups: dict[int, tuple[int, int]] = {}
        self.grow = grow
        self.branches = branches
        self.branched = False

    def walk(self, items: Any) -> None:
        for name, av in items:
            self._item(name, av)
            if len(self.slots) > MAX_LENGTH:
                raise ValueError(f"it would be longer than {MAX_LENGTH:,} characters")

    def _item(self, name: str, av: Any) -> None:
        if name == "LITERAL":
            self.slots.append(chr(av))
        elif name == "NOT_LITERAL":
            self.slots.append(_choices(lambda c: ord(c) != av))
        elif name == "ANY":
            self.slots.append(_ALPHABET)
        elif name == "IN":
            self.slots.append(_class_choices(av))
        elif name == "BRANCH":
            self.branched = True
            self.branches, pick = divmod(self.branches, len(av[1]))
            self.walk(av[1][pick])
        elif name == "SUBPATTERN":
            start = len(self.slots)
            self.walk(av[3])
            if av[0] is not None:
                self.groups[av[0]] = (start, len(self.slots))
        elif name == "ATOMIC_GROUP":
            self.walk(av)
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            self._repeat(*av)
        elif name == "GROUPREF":
            start, end = self.groups.get(av, (0, 0))
            self.slots.extend(range(start, end))
        elif name == "GROUPREF_EXISTS":
            chosen = av[1] if av[0] in self.groups else av[2]
            self.walk(chosen or [])
        elif name not in ("AT", "ASSERT", "ASSERT_NOT"):  # checked once the string is made
            raise ValueError(f"it holds {name}, which the simulator does not follow")

    def _repeat(self, least: int, most: int, item: Any, kept: list[Any]) -> None:
        if _made_once(item, kept):
            self._repeat_made(least, most, kept[0])
            return
        for done in range(least):
            before = len(self.slots)
            self.walk(item)
            if len(self.slots) == before and done == 0:
                return  # it adds no character: once is as many times (\b{3000000})
        count = least
        while self.grow > 0 and count < most:
            before = len(self.slots)
            self.walk(item)
            if len(self.slots) == before:
                return
            self.grow -= len(self.slots) - before
            count += 1

    def _repeat_made(self, least: int, most: int, made: tuple[list[Slot], Any]) -> None:
        """:meth:`_repeat` of an item whose slots and groups are ``made`` once
        (:func:`_made_once`): they are added as many times as the walks would add them,
        its groups put where the last one lands, ``grow`` taken as the walks take it."""
        slots, groups = made
        size = len(slots)
        if size == 0:  # walked once at most: once is as many times (\b{3000000})
            times = 1 if least or (self.grow > 0 and most > least) else 0
        else:
            times = least
            if self.grow > 0 and most > least:
                more = min(most - least, -(-self.grow // size))
                self.grow -= more * size
                times += more
        if not times:
            return
        at = len(self.slots) + (times - 1) * size
        if at + size > MAX_LENGTH:
            raise ValueError(f"it would be longer than {MAX_LENGTH:,} characters")
        self.slots.extend(slots * times)
        for group, (start, end) in groups.items():
            self.groups[group] = (at + start, at + end)


def _made_once(item: list[tuple[str, Any]], kept: list[Any]) -> bool:
    """Whether a repeat's ``item`` adds the same slots each time (:func:`_fixed`), made
    once into ``kept`` (its slots and groups, as one walk from 0 makes them): a walk per
    repeat took a step of Python per character, and ``(ab)+`` grows to thousands. An item
    that is not, or too long to make, is walked each time, as it was (``kept`` says so)."""
    if not kept:
        builder = _Builder(0)
        try:
            builder.walk(item)
        except ValueError:  # raised by a walk of it, if one is ever made
            kept.append(None)
        else:
            kept.append((builder.slots, builder.groups))
    return kept[0] is not None


def _plain(items: Any) -> list[tuple[str, Any]]:
    """A parse tree (``re._parser``'s ``SubPattern``) as lists of ``(name, av)``, the parts
    :class:`_Builder` walks made lists too: a ``SubPattern`` gives each item through a
    method of Python, which a walk of a pattern's growing strings called for every
    character it built."""
    plain = []
    for op, av in items:
        name = op.name
        if name == "BRANCH":
            av = (av[0], [_plain(branch) for branch in av[1]])
        elif name == "SUBPATTERN":
            av = (*av[:3], _plain(av[3]))
        elif name == "ATOMIC_GROUP":
            av = _plain(av)
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            item = _plain(av[2])
            av = (av[0], av[1], item, [] if _fixed(item) else [None])  # see _made_once
        elif name == "GROUPREF_EXISTS":
            av = (av[0], _plain(av[1]), None if av[2] is None else _plain(av[2]))
        plain.append((name, av))
    return plain


_SAME_EACH_TIME = frozenset(
    ("LITERAL", "NOT_LITERAL", "ANY", "IN", "AT", "ASSERT", "ASSERT_NOT", "SUBPATTERN")
)
"""The items of a plain tree that add the same slots wherever they are walked (a group's
span moved with them), their parts being so too."""


def _fixed(items: list[tuple[str, Any]]) -> bool:
    """Whether a plain tree adds the same slots each time it is walked: no alternation
    (each takes its pick from the builder's ``branches``), no back-reference (it repeats
    what a group last held), no repeat that may grow (it takes from ``grow``)."""
    for name, av in items:
        if name == "SUBPATTERN":
            if not _fixed(av[3]):
                return False
        elif name == "ATOMIC_GROUP":
            if not _fixed(av):
                return False
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            if av[0] != av[1] or av[3][:1] == [None]:
                return False
        elif name not in _SAME_EACH_TIME:
            return False
    return True


def _choices(keep: Any) -> str:
    """The characters of :data:`_ALPHABET` that ``keep`` accepts, else the first few
    beyond ASCII it accepts (a space alone when none)."""
    kept = "".join(c for c in _ALPHABET if keep(c))
    if not kept:
        wider = (chr(n) for n in range(0xA0, 0x3000))
        kept = "".join(itertools.islice((c for c in wider if keep(c)), len(_ALPHABET)))
    return kept or " "


def _class_choices(items: Sequence[tuple[Any, Any]]) -> str:
    """The characters a class (``[...]``, ``\\d``) may be: its own first ones first."""
    if items and items[0][0].name == "NEGATE":
        return _choices(lambda c: not _member(items[1:], c))
    own = ""
    for op, av in items:
        if op.name == "LITERAL":
            own += chr(av)
        elif op.name == "RANGE":
            own += "".join(chr(n) for n in range(av[0], min(av[1], av[0] + 25) + 1))
    own += "".join(c for c in _ALPHABET if _member(items, c))
    return "".join(dict.fromkeys(own)) or _choices(lambda c: _member(items, c))


def _member(items: Sequence[tuple[Any, Any]], char: str) -> bool:
    """Whether ``char`` is one of a class's ``items`` (its negation left out)."""
    for op, av in items:
        name = op.name
        if name == "LITERAL" and ord(char) == av:
            return True
        if name == "RANGE" and av[0] <= ord(char) <= av[1]:
            return True
        if name == "CATEGORY" and re.fullmatch(_CATEGORIES.get(av.name, "(?!)"), char):
            return True
    return False


def _render(slots: Sequence[Slot], variant: int) -> str | None:
    """The ``variant``-th string the slots make (counting from the right, as digits), or
    None when they make fewer strings than that."""
    # each slot's first choice, the digit 0; a back-reference's index for now
    chars: list[Any] = [s[0] if isinstance(s, str) else s for s in slots]
    index = len(slots)
    while variant and index:  # the digits left once variant is 0 are all 0
        index -= 1
        choices = slots[index]
        if isinstance(choices, str) and len(choices) > 1:  # one choice: the digit 0
            variant, digit = divmod(variant, len(choices))
            chars[index] = choices[digit]
    if variant:
        return None
    try:
        return "".join(chars)
    except TypeError:  # back-references: each the character of the slot it names
        for index, slot in enumerate(slots):
            if isinstance(slot, int):
                chars[index] = chars[slot]
        return "".join(chars)


class PatternStrings:
    """The strings ``pattern`` finds a match in, of ``shortest`` to ``longest``
    characters, numbered from 0 (the shortest): those of its shortest length first
    (of the first alternatives, then of the others), then those of each longer length
    it grows to. They are made as they are asked for, so a ``uniqueItems`` array of many
    asks each once. A pattern Python cannot read is a :class:`ValueError`."""

    def __init__(self, pattern: str, shortest: int = 0, longest: float = math.inf) -> None:
        try:
            tree = _parser.parse(pattern)
            re.compile(pattern)
        except (re.error, OverflowError, RecursionError) as err:
            raise ValueError(f"pattern '{pattern}' is not a regular expression: {err}") from None
        self.pattern, self.shortest, self.longest = pattern, shortest, longest
        self._layouts = _layouts(_plain(tree), shortest)
        self._slots: list[list[Slot]] = []
        self._ends: list[int] = []
        """How many strings the layouts up to each one make."""

    def nth(self, variant: int) -> str:
        """The ``variant``-th string; a :class:`ValueError` saying why when none is made."""
        pattern = self.pattern
        made = self._rendered(variant)
        if made is None:  # unanchored at its end, it may go on: the first, numbered
            made = f"{self._rendered(0)} {variant + 1}"
            if not searched(pattern, made):
                raise ValueError(
                    f"pattern '{pattern}' matches too few strings to make {variant + 1}"
                )
        made, natural = made + "x" * (self.shortest - len(made)), len(made)
        if len(made) > self.longest:
            raise ValueError(
                f"no string of at most {self.longest} characters is made for pattern '{pattern}'"
            )
        if not searched(pattern, made):
            why = (
                f"padded with x to {self.shortest} characters (minLength)"
                if natural < self.shortest
                else "the simulator follows no lookaround or word boundary"
            )
            raise ValueError(
                f"the string made for pattern '{pattern}', {made!r}, does not match it: {why}"
            )
        return made

    def _rendered(self, variant: int) -> str | None:
        """The ``variant``-th string the layouts make, or None when they make fewer."""
        try:
            while not self._ends or self._ends[-1] <= variant:
                slots, count = next(self._layouts)
                self._slots.append(slots)
                self._ends.append(count + (self._ends[-1] if self._ends else 0))
        except StopIteration:
            return None
        except ValueError as err:
            raise ValueError(f"no string is made for pattern '{self.pattern}': {err}") from None
        index = bisect.bisect_right(self._ends, variant)
        return _render(self._slots[index], variant - (self._ends[index - 1] if index else 0))


def _layouts(tree: Any, shortest: int) -> Iterator[tuple[list[Slot], int]]:
    """The slots of each length and pick of alternatives of the parse tree's strings, grown
    towards ``shortest`` characters where it can, in order, each with how many strings
    they make; a :class:`ValueError` once they took :data:`MAX_WORK` characters."""
    if shortest > MAX_LENGTH:
        raise ValueError(f"it would be longer than {MAX_LENGTH:,} characters")
    built = 0

    def walked(grow: int, branches: int = 0) -> _Builder:
        nonlocal built
        builder = _Builder(grow, branches)
        builder.walk(tree)
        built += len(builder.slots) + 1
        if built > MAX_WORK:
            raise ValueError(
                f"its strings grow too slowly to make as many distinct ones as asked "
                f"within {MAX_WORK:,} characters"
            )
        return builder

    least = len(walked(0).slots)
    grow, seen = max(shortest - least, 0), set()
    while True:
        builder = walked(grow)
        for branches in range(_BRANCHINGS if builder.branched else 1):
            picked = walked(grow, branches) if branches else builder
            layout = tuple(picked.slots)
            if not picked.branches and layout not in seen:  # a pick of its own, anew
                seen.add(layout)
                yield picked.slots, math.prod(len(s) for s in layout if isinstance(s, str))
        if builder.grow > 0:  # it cannot grow any further
            return
        grow = max(grow + 1, len(builder.slots) - least + 1)  # the least that grows it again
