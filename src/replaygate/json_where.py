"""Where in a JSON text the strict reader refused it: a value JSON does not hold, or the
deepest nesting.

:func:`replaygate.strict_json.loads` refuses ``NaN``, ``Infinity``, ``1e999`` and an
integer of more digits than are read while Python's reader parses, which tells no
position; a text nested too deeply ends in a ``RecursionError``, which tells none either.
These find the place again, as a line and a column counted as a syntax error's are; and
:func:`field_line` finds the line of a field a reason names in a pretty JSON file (a
one-fixture ``.json`` file, where a line number of the whole file would tell nothing).
"""

from __future__ import annotations

import itertools
import json
import operator
import re
from collections.abc import Iterator
from dataclasses import dataclass

from replaygate import strict_json
from replaygate.json_paths import path_step

_TOKEN = re.compile(
    r'"(?:[^"\\]|\\.)*"'  # a string, skipped whole: what it holds is no value
    r"|(?P<open>[\[{])|(?P<close>[\]}])"
    r"|(?P<value>-?(?:Infinity|NaN|(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?))",
    re.DOTALL,
)


def _text(text: str | bytes | bytearray) -> str:
    """``text`` as Python's JSON reader decodes it (UTF-8, -16 or -32 by its first bytes)."""
    if isinstance(text, str):
        return text
    return bytes(text).decode(json.detect_encoding(text), "surrogatepass")


def line_and_column(text: str, pos: int) -> str:
    """``line 2, column 7``: the place of ``pos``, numbered as a JSON syntax error's."""
    line = text.count("\n", 0, pos) + 1
    return f"line {line}, column {pos - text.rfind(chr(10), 0, pos)}"


def refused_value(text: str | bytes | bytearray, *, field: bool = False) -> str | None:
    """Why and where the strict reader refuses a value of ``text`` (``NaN is not a number
    JSON can hold at line 2, column 7``; with ``field``, after the path of its field, as
    the errors of replaygate's own documents name one: ``metrics.success: NaN ...``): the
    first such value, as the reader meets it; None when every value is one JSON holds."""
    doc = _text(text)
    for match in _TOKEN.finditer(doc):
        value = match.group("value")
        if value is None:
            continue
        try:
            strict_json.loads(value)
        except json.JSONDecodeError:  # not a value the reader met (-NaN): it refused another
            continue
        except ValueError as err:
            path = field_at(doc, match.start()) if field else ""
            where = f"{path}: " if path else ""
            return f"{where}{err} at {line_and_column(doc, match.start())}"
    return None


def deepest(text: str | bytes | bytearray) -> str:
    """How deep ``text`` nests and where its deepest level opens: ``100,000 levels, the
    deepest opening at line 1, column 100000``.

    The brackets are those :data:`_TOKEN` reads outside strings: each string blanked out
    (a value token holds no quote and no bracket), the depth after each character is
    summed in C, one at a time, where a walk of the tokens took a step of Python for each
    bracket (a twentieth of a second for 100,000 levels)."""
    doc = _text(text)
    bare = _STRING.sub(lambda m: " " * len(m.group()), doc) if '"' in doc else doc
    depths = itertools.accumulate(map(_DEPTH_STEPS.get, bare, itertools.repeat(0)))
    # where the depth first reaches its most (max keeps the first of equals), one pass
    at, most = max(enumerate(depths), key=operator.itemgetter(1), default=(0, 0))
    if most <= 0:
        at = most = 0
    return f"{most:,} levels, the deepest opening at {line_and_column(doc, at)}"


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
"""A string, as :data:`_TOKEN` reads one."""
_DEPTH_STEPS = {"[": 1, "{": 1, "]": -1, "}": -1}


_STEP = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}:,]', re.DOTALL)
"""A string (a key or a value) or a bracket, a colon or a comma: the tokens that tell a
field's path; a number, ``true``, ``false`` and ``null`` are passed over."""

_VALUE_START = re.compile(r"[^\s]")

_NAME = r'[^\s.:\[\]"\'(),]+(?::[^\s.:\[\]"\'(),]+)*'  # a colon inside, not at its end
_NAMED_PATH = re.compile(rf'{_NAME}(?:\.{_NAME}|\[\d+\]|\["(?:[^"\\]|\\.)*"\])+')
"""A field path as a reason writes it (:func:`~replaygate.json_paths.path_step`), of two
steps or more: ``response.status``, ``messages[0].content``, ``headers["x.y"]``."""


@dataclass
class _Open:
    """A container open at a point of the walk: its path, and the item or member in it."""

    path: str
    index: int | None  # a list's item; None in an object
    key: str = ""

    def step(self) -> str:
        """The path of the item or member the walk is at."""
        return (
            f"{self.path}[{self.index}]"
            if self.index is not None
            else path_step(self.path, self.key)
        )


def _members(doc: str) -> Iterator[tuple[str, int]]:
    """Each field of the JSON document ``doc`` with where it is, in the document's order:
    an object's member at its key, a list's item where it starts, by path as reasons
    write them."""
    stack: list[_Open] = []

    def next_char(after: int) -> tuple[str, int]:
        found = _VALUE_START.search(doc, after)
        return ("", after) if found is None else (found.group(), found.start())

    for match in _STEP.finditer(doc):
        token = match.group()
        if token in "{[":
            path = stack[-1].step() if stack else ""
            stack.append(_Open(path, 0 if token == "[" else None))
            char, at = next_char(match.end())
            if token == "[" and char not in ("]", ""):
                yield stack[-1].step(), at
        elif token in "}]":
            if stack:  # else a bracket too many: the reader's own reason tells where
                stack.pop()
        elif not stack:
            continue
        elif token == "," and stack[-1].index is not None:
            stack[-1].index += 1
            yield stack[-1].step(), next_char(match.end())[1]
        elif token[0] == '"' and stack[-1].index is None and next_char(match.end())[0] == ":":
            stack[-1].key = json.loads(token)  # a key, not a member's value
            yield stack[-1].step(), match.start()


def field_lines(text: str | bytes | bytearray) -> dict[str, int]:
    """The line (1-based) where each field of the JSON document ``text`` is: an object's
    member at its key, a list's item where it starts, by path as reasons write them."""
    doc = _text(text)
    lines: dict[str, int] = {}
    for path, pos in _members(doc):
        lines.setdefault(path, doc.count("\n", 0, pos) + 1)
    return lines


def field_at(doc: str, pos: int) -> str:
    """The path of the innermost field of the JSON document ``doc`` holding the value at
    ``pos`` (``metrics.success``); empty for the document's own top-level value."""
    found = ""
    for path, at in _members(doc):
        if at > pos:
            break
        found = path
    return found


def field_line(text: str | bytes | bytearray, reason: str) -> int | None:
    """The line of ``text`` (a pretty JSON document) where the deepest field ``reason``
    names by its path is, or None when it names none the document holds, or the document
    is on one line (which its line would not tell)."""
    try:
        doc = _text(text)
        lines = field_lines(doc) if "\n" in doc.strip() else {}
    except ValueError:  # not text, or not JSON: a reason of its own tells why
        return None
    named = [path for path in _NAMED_PATH.findall(reason) if path in lines]
    return lines[max(named, key=len)] if named else None
