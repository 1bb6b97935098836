"""A string matching a regular expression: the value of a JSON Schema string's ``pattern``.

The pattern is read by Python's own parser (``re._parser``, the dialect ``jsonschema``
checks a pattern in) and a string is built from its parse tree: a literal as it is,
a class or ``.`` its first character (``a``, ``0``, ...), a repeat its least count, the
first branch of an alternation, a group's text again for a back-reference; anchors,
word boundaries and lookarounds add nothing. The ``variant``-th string differs from the
others in its characters, or in its length where it can grow (``a+``), so the items of
a ``uniqueItems`` array are distinct. The string made is checked as JSON Schema checks
a pattern (``re.search``: unanchored); one that fails (a lookaround or a boundary the
shortest string breaks), one longer than a bound, or a pattern Python cannot read is a
:class:`ValueError` saying why.
"""

from __future__ import annotations

import importlib
import itertools
import math
import re
import string
from collections.abc import Sequence
from typing import Any

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
_GROWTHS = 64
"""How many longer strings are tried for a variant the characters alone cannot give."""

Slot = str | int
"""One character of the string: the characters it may be (in order), or the index of an
earlier slot it repeats (a back-reference)."""


class _Builder:
    """The slots of the shortest string a parse tree matches, each repeat that may grow
    taking ``grow`` more characters in all (from its left)."""

    def __init__(self, grow: int) -> None:
        self.slots: list[Slot] = []
        self.groups: dict[int, tuple[int, int]] = {}
        self.grow = grow

    def walk(self, items: Any) -> None:
        for op, av in items:
            self._item(op.name, av)
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
            self.walk(av[1][0])
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

    def _repeat(self, least: int, most: int, item: Any) -> None:
        for _ in range(least):
            self.walk(item)
        count = least
        while self.grow > 0 and count < most:
            before = len(self.slots)
            self.walk(item)
            if len(self.slots) == before:
                return
            self.grow -= len(self.slots) - before
            count += 1


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
    chars = [s if isinstance(s, str) else "" for s in slots]
    for index in range(len(slots) - 1, -1, -1):
        choices = slots[index]
        if isinstance(choices, str):
            variant, digit = divmod(variant, len(choices))
            chars[index] = choices[digit]
    if variant:
        return None
    for index, slot in enumerate(slots):
        if isinstance(slot, int):
            chars[index] = chars[slot]
    return "".join(chars)


def matching(pattern: str, variant: int = 0, shortest: int = 0, longest: float = math.inf) -> str:
    """The ``variant``-th string (0: the shortest) that ``pattern`` finds a match in, of
    ``shortest`` to ``longest`` characters; a :class:`ValueError` saying why when none is
    made."""
    try:
        tree = _parser.parse(pattern)
        re.compile(pattern)
    except (re.error, OverflowError, RecursionError) as err:
        raise ValueError(f"pattern '{pattern}' is not a regular expression: {err}") from None
    try:
        made = _made(tree, variant, shortest)
    except ValueError as err:
        raise ValueError(f"no string is made for pattern '{pattern}': {err}") from None
    if made is None:  # unanchored at its end, it may go on: the shortest, numbered
        made = f"{_made(tree, 0, shortest)} {variant + 1}"
        if re.search(pattern, made) is None:
            raise ValueError(f"pattern '{pattern}' matches too few strings to make {variant + 1}")
    made, natural = made + "x" * (shortest - len(made)), len(made)
    if len(made) > longest:
        raise ValueError(
            f"no string of at most {longest} characters is made for pattern '{pattern}'"
        )
    if re.search(pattern, made) is None:
        why = (
            f"padded with x to {shortest} characters (minLength)"
            if natural < shortest
            else "the simulator follows no lookaround or word boundary"
        )
        raise ValueError(
            f"the string made for pattern '{pattern}', {made!r}, does not match it: {why}"
        )
    return made


def _made(tree: Any, variant: int, shortest: int) -> str | None:
    """The ``variant``-th string of the parse tree, grown towards ``shortest`` characters
    where it can: the strings of its shortest length first, then those of each longer
    length it grows to; None when it makes fewer."""
    if shortest > MAX_LENGTH:
        raise ValueError(f"it would be longer than {MAX_LENGTH:,} characters")
    base = _Builder(0)
    base.walk(tree)
    length, start = -1, max(shortest - len(base.slots), 0)
    for grow in range(start, start + _GROWTHS):
        builder = _Builder(grow)
        builder.walk(tree)
        if len(builder.slots) == length:
            continue  # grown no longer: the same strings again
        length = len(builder.slots)
        made = _render(builder.slots, variant)
        if made is not None:
            return made
        if builder.grow > 0:  # it cannot grow any further
            break
        variant -= math.prod(len(s) for s in builder.slots if isinstance(s, str))
    return None
