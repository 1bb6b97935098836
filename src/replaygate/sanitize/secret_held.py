"""JSON held as text: a string that is one JSON object or array (tool-call arguments, an
event's ``data``), or that holds such lines (a JSONL file sent as a body), or a multipart
body with parts that are or hold such JSON (a file of requests uploaded for a batch or a
fine-tuning job, one a line; any other file or form field).

The secret rules read the strings of such JSON with their own field names
(:func:`~.secret_decode.json_leaves`), as they read a JSON body, so the field rules of
encoded data (:func:`~.secret_entropy.encoded_field`: ``encrypted_content``, an image's
``data``) hold there too, but in a multipart body for a file other than one of requests
and for a form field, on one line or many: those rules describe what a provider sends,
not a user's text, whose field names are read for credentials only. The free-standing
check of the text itself leaves that JSON out (:func:`outside_held_json`) but for its
field names. JSON in which an object repeats a field name is not held JSON: a parser
keeps one value of the name, so the text is read as plain text, every value with it.
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
_FILENAME = re.compile(r'(?i)content-disposition:[^\r\n]*?\bfilename="([^"\r\n]*)"')
_PURPOSE_FIELD = re.compile(r'(?i)content-disposition:[^\r\n]*?\bname="purpose"')
_REQUEST_PURPOSES = ("batch", "fine-tune")
"""The ``purpose`` of a file of requests, one a line (``client.files.create``)."""


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


def part_contents(text: str) -> Iterator[tuple[int, int, int]]:
    """``(headers start, start, end)`` of each part of ``text`` when it is a multipart body
    (it starts with a boundary's delimiter line): its content after the part's headers and
    the blank line, up to the line break before the next delimiter (or the end of a cut
    body)."""
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
        yield at, start, end
        if found < 0:
            return
        after = found + len(delimiter)
        line_end = text.find("\n", after)
        if text.startswith("--", after) or line_end < 0:
            return
        at = line_end + 1


def _multipart_json(text: str) -> Iterator[tuple[int, int, Any, bool]]:
    """The JSON held in the parts of a multipart body (:func:`held_json`). Each line of a
    file of requests (a ``.jsonl`` file, or any file uploaded for a batch or a fine-tuning
    job) is read with the rules of a request; any other file, and a form field, is a user's
    text: the JSON it is (on one line or many), or each line that is one, is read with its
    field names only."""
    parts = [(text[head:start], start, end) for head, start, end in part_contents(text)]
    requests = any(
        _PURPOSE_FIELD.search(headers) and text[start:end].strip() in _REQUEST_PURPOSES
        for headers, start, end in parts
    )
    for headers, start, end in parts:
        filename = _FILENAME.search(headers)
        lines = filename is not None and (requests or filename.group(1).lower().endswith(".jsonl"))
        value = None if lines else _parsed(text[start:end])
        if value is not None:
            yield start, end, value, True
            continue
        for line in _LINE.finditer(text, start, end):
            value = _parsed(line.group())
            if value is not None:
                yield line.start(), line.end(), value, not lines


def held_json(text: str) -> Iterator[tuple[int, int, Any, bool]]:
    """``(start, end, value, whether it is a user's file)`` of the JSON held in ``text``:
    the whole text when it is one JSON object or array, else that of a multipart body's
    parts (:func:`_multipart_json`), else each line that is one."""
    whole = _parsed(text)
    if whole is not None:
        yield 0, len(text), whole, False
        return
    if text.startswith("--") and _DELIMITER.match(text):
        yield from _multipart_json(text)
        return
    if "\n{" not in text and "\n[" not in text and text[:1] not in _STARTS:
        return
    for line in _LINE.finditer(text):
        value = _parsed(line.group())
        if value is not None:
            yield line.start(), line.end(), value, False


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
