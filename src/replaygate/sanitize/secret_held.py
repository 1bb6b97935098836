"""JSON held as text: a string that is one JSON object or array (tool-call arguments, an
event's ``data``), or that holds such lines (a JSONL file sent as a body, or uploaded in
a multipart form for a batch or a fine-tuning job), or a multipart body with a part that
is one (a JSON file uploaded, pretty-printed over many lines).

The secret rules read the strings of such JSON with their own field names
(:func:`~.secret_decode.json_leaves`), as they read a JSON body, so the field rules of
encoded data (:func:`~.secret_entropy.encoded_field`: ``encrypted_content``, an image's
``data``) hold there too, but for a file uploaded whole (a part of a multipart body read as
one JSON value over many lines): those rules describe what a provider sends, not a user's
file, whose field names are read for credentials only. The free-standing check of the text
itself leaves that JSON out (:func:`outside_held_json`) but for its field names. JSON in
which an object repeats a field name is not held JSON: a parser keeps one value of the
name, so the text is read as plain text, every value with it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from replaygate import strict_json

_LINE = re.compile(r"[^\n]+")
_STARTS = ("{", "[")
_DELIMITER = re.compile(r"--([0-9A-Za-z'()+_,./:=? -]{1,70})\r?\n")
"""The first line of a multipart body: ``--`` and the boundary (RFC 2046)."""
_HEADERS_END = re.compile(r"\r?\n\r?\n")


def _parsed(text: str) -> Any:
    """The JSON object or array ``text`` is, or None (also when an object in it repeats a
    field name: the values a parser drops would be read by nothing)."""
    if text.lstrip()[:1] not in _STARTS:
        return None
    try:
        value = strict_json.loads(text, strict_numbers=False)
    except (ValueError, RecursionError):  # DuplicateKeyError is a ValueError
        return None
    return value if isinstance(value, dict | list) else None


def _part_contents(text: str) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of the content of each part of ``text`` when it is a multipart body
    (it starts with a boundary's delimiter line): after the part's headers and the blank
    line, up to the line break before the next delimiter (or the end of a cut body)."""
    first = _DELIMITER.match(text)
    if first is None:
        return
    delimiter = "\n--" + first.group(1)
    at = first.end()
    while at < len(text):
        blank = _HEADERS_END.search(text, at - 1)
        if blank is None:
            return
        start = blank.end()
        found = text.find(delimiter, start - 1)
        end = len(text) if found < 0 else found - (text[found - 1 : found] == "\r")
        yield start, end
        if found < 0:
            return
        after = found + len(delimiter)
        line_end = text.find("\n", after)
        if text.startswith("--", after) or line_end < 0:
            return
        at = line_end + 1


def held_json(text: str) -> Iterator[tuple[int, int, Any, bool]]:
    """``(start, end, value, whether it is a file)`` of the JSON held in ``text``: the whole
    text when it is one JSON object or array, else the content of each part of a multipart
    body that is one over many lines (a file), and each other line that is one."""
    whole = _parsed(text)
    if whole is not None:
        yield 0, len(text), whole, False
        return
    blocks = []
    if text.startswith("--"):
        for start, end in _part_contents(text):
            value = _parsed(text[start:end]) if "\n" in text[start:end] else None
            if value is not None:
                blocks.append((start, end, value, True))
    if "\n{" not in text and "\n[" not in text and text[:1] not in _STARTS:
        yield from blocks
        return
    ahead = iter(blocks)
    block = next(ahead, None)
    for line in _LINE.finditer(text):
        while block is not None and block[1] <= line.start():
            yield block
            block = next(ahead, None)
        if block is not None and line.end() > block[0]:
            continue  # within a part read whole
        value = _parsed(line.group())
        if value is not None:
            yield line.start(), line.end(), value, False
    if block is not None:
        yield block
        yield from ahead


def _names(value: Any) -> Iterator[str]:
    """The field names of every object in ``value``."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            yield from map(str, item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def outside_held_json(text: str) -> str:
    """``text`` with the JSON it holds (:func:`held_json`) left out but for its field
    names: what the free-standing check reads of it when the strings of that JSON are
    read with their field names."""
    kept: list[str] = []
    at = 0
    for start, end, value, _ in held_json(text):
        kept.extend((text[at:start], " ", " ".join(_names(value)), " "))
        at = end
    if not at:
        return text
    kept.append(text[at:])
    return "".join(kept)
