"""Credentials named from elsewhere: by a table's column header or by markup.

The credential-context rule (:mod:`.secret_entropy`) reads a name written beside its value
(``password = ...``, ``"api_key": "..."``). A table or markup names a value from elsewhere,
and :func:`named_credential` reads those shapes:

- a delimited table (CSV, TSV, ``;`` or ``|`` separated, a Markdown table): each cell under a
  column whose header is a credential name (``password``, ``api_key``, ``API Key``; not a
  ``key`` beside a ``value``, which holds names), in the rows that follow the header with as
  many cells; and the second cell of a row whose first is such a name (``password,...``,
  ``| api_key | ... | ... |``);
- XML or HTML: the text of an element named like a credential (``<password>...</password>``,
  ``<cfg:apiKey><![CDATA[...]]></cfg:apiKey>``); the ``value`` (or the text) of an element
  that names a credential in its ``name``, ``key``, ``id`` or ``property`` attribute, or is
  an input of ``type="password"`` (``<add key="ApiKey" value="..."/>``,
  ``<entry key="db.password">...</entry>``); the ``<string>`` after a property list's
  ``<key>`` that names one. An attribute named like a credential (``password="..."``) is a
  name beside its value, read by the credential-context rule.

A name counts as it does for a field (:func:`~.secret_entropy.auth_like`; the words of a
header cell joined by ``_``: ``API Key`` reads as ``API_Key``), and a value as in any
credential context (:func:`~.secret_entropy.context_secret`: at least 20 characters, no white
space, an entropy of at least 3.5 bits a character). Prose is not a table: a header needs two
cells or more, each of at most :data:`HEADER_WORDS` words, and only the rows right below it
with as many cells are read. Nor is code: one indented name and the delimiter that ends its
line (``    get_netrc_auth,`` in a list of imports) is an item of a list, no header.

Only where the shape may stand is anything parsed: a table needs a line break and a
delimiter in the text, and a header cell ending in a credential word right before a
delimiter or the line's end (each word looked for on its own, a search at C speed); markup
needs a tag holding a credential word.
"""

from __future__ import annotations

import csv
import html
import re

from replaygate.sanitize.secret_entropy import (
    CONTEXT,
    CONTEXT_MIN_LENGTH,
    FIELD_WORDS,
    auth_like,
    context_secret,
)
from replaygate.sanitize.secret_prefilter import folded

__all__ = ["named_credential"]

DELIMITERS = ",;|\t"
"""What separates the cells of a table's line."""
VALUE_HEADERS = frozenset({"value", "values", "val"})
"""The headers of a column of values: beside one, a column headed ``key`` holds the names
(``key,value``), not keys."""
HEADER_WORDS = 3
"""The most words of a header cell (``Access token``, ``DB password hash``)."""
_HEADER_MAX = 48
"""The longest header cell, in characters."""
_WORDS = tuple(word.decode() for word in FIELD_WORDS)
_CELL_END = r"[a-z0-9_.\-]*[ \"'`*]*(?:[,;|\t\r\n]|\Z)"
_HEADER_CELLS = tuple(re.compile(re.escape(word) + _CELL_END) for word in _WORDS)
"""A credential word ending a header cell, in the text in lower case: each starts with the
word, so a search finds it at C speed."""
_CELL_STRIP = " \t\r\"'`*"
"""What is around a cell's text: padding, quotes, Markdown's code and bold marks."""
NAMING_ATTRIBUTES = ("name", "key", "id", "property")
"""The attributes of an element that may name the credential it holds."""
_ONE_WORD = "(?:" + "|".join(_WORDS) + ")"
_NAMED_ELEMENT = re.compile(rf"<(?=[a-z_])[\w.:-]*?{_ONE_WORD}")
"""An opening tag whose name holds a credential word, in the text in lower case."""
_NAMING = tuple(
    (name, re.compile(rf"{name}\s*=\s*[\"']?([^\"'<>\s]*+)"))
    for name in (*NAMING_ATTRIBUTES, "type")
)
"""A naming attribute and its value, in the text in lower case: each starts with the
attribute's name, so a search finds it at C speed, and reads the value once (a possessive
repeat: ``name=name=...`` is not read again from each ``name=``); whether the value names
a credential is asked of it whole, when it holds a credential word (:data:`_WORD`)."""
_WORD = re.compile(_ONE_WORD)
TAG_MAX = 4096
"""The longest opening tag read for the naming attributes."""
_VALUE = re.compile(r"\b(?:value|content)\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s\"'=<>`]+))")
"""The attribute of an element that holds the value it names, in the text in lower case."""
_OPENED = re.compile(r"<([A-Za-z_][\w.:-]*)[^<>]*?(/?)>")
"""An opening tag: the element's name and whether it is empty (``<x/>``)."""
_CLOSE_TAG = re.compile(r"\s*</([A-Za-z_][\w.:-]*)\s*>")
_SPACE = re.compile(r"\s*")
_CDATA = re.compile(r"\s*<!\[CDATA\[(.*?)\]\]>", re.DOTALL)


def named_credential(text: str) -> str | None:
    """The finding of a credential named by a table's column header or by markup in
    ``text`` (:data:`~.secret_entropy.CONTEXT`), or None."""
    has_lines = "\n" in text
    has_tags = "<" in text
    if not has_lines and not has_tags:
        return None
    if has_lines and not any(d in text for d in DELIMITERS):
        has_lines = False
        if not has_tags:
            return None
    lowered = folded(text)
    if lowered is None:  # lower case changes the length: read the names as they are
        lowered = text
    if has_lines and _in_table(text, lowered):
        return CONTEXT
    if has_tags and _in_markup(text, lowered):
        return CONTEXT
    return None


# Tables.


def _in_table(text: str, lowered: str) -> bool:
    """Whether a table in ``text`` holds a secret-looking value under a credential name."""
    seen: set[int] = set()
    read: dict[str, tuple[int, int, int]] = {}
    for pattern in _HEADER_CELLS:
        at = 0
        while (match := pattern.search(lowered, at)) is not None:
            at = match.end()
            if not _may_start_cell(lowered, match.start()):
                continue
            start = text.rfind("\n", 0, match.start()) + 1
            end = text.find("\n", match.start())
            end = len(text) if end < 0 else end
            at = end + 1
            if start not in seen:
                seen.add(start)
                if _table_below(text, start, end, read):
                    return True
            if at > len(text):
                break
    return False


_CELL_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_.- \t\"'`*"
"""What a header cell holds before its credential word (lower case): ``"api_``, `` db ``."""


def _may_start_cell(lowered: str, at: int) -> bool:
    """Whether the credential word at ``at`` may be part of a header cell: after a line
    break or a delimiter (or the text's start), and within :data:`_HEADER_MAX` characters of
    it only name characters, padding and quotes (not prose, not markup)."""
    head = lowered[max(0, at - _HEADER_MAX - 1) : at]
    rest = head.rstrip(_CELL_CHARS)
    if not rest:
        return len(head) < _HEADER_MAX + 1  # the cell starts the text
    return rest[-1] in "\n" + DELIMITERS


def _cells(line: str, delimiter: str) -> list[str]:
    """The cells of ``line`` split at ``delimiter`` (CSV quotes read; a Markdown line's outer
    ``|`` dropped)."""
    if delimiter == "|":
        inner = line.strip()
        inner = inner[1:] if inner.startswith("|") else inner
        inner = inner[:-1] if inner.endswith("|") else inner
        return inner.split("|")
    if '"' not in line:
        return line.split(delimiter)
    return next(csv.reader([line], delimiter=delimiter))


def _cell(cell: str) -> str:
    return cell.strip(_CELL_STRIP)


def _credential_name(cell: str) -> bool:
    """Whether a header cell names a credential: its words joined by ``_`` are auth-like."""
    name = _cell(cell)
    if not name or len(name) > _HEADER_MAX:
        return False
    words = name.split()
    return len(words) <= HEADER_WORDS and auth_like("_".join(words))


def _table_below(text: str, start: int, end: int, read: dict[str, tuple[int, int, int]]) -> bool:
    """Whether the line of ``text`` from ``start`` to ``end``, read as a table's header (or
    a row of a name and a value), names a secret-looking value.

    ``read`` holds, by delimiter, where the rows last read start and end and how many cells
    they have: a line among them of as many cells is a row of that table, not a header, so
    no line is read as a row twice (a text of a thousand ``password,x`` lines is read once).
    A line starting among the rows last read is one of them, of as many cells, read as a
    row of a name and a value too: it is passed over before it is split."""
    header = text[start:end].rstrip("\r")
    for delimiter in DELIMITERS:
        if delimiter not in header:
            continue
        rows_start, rows_end, rows_width = read.get(delimiter, (0, 0, 0))
        if rows_start <= start < rows_end:
            continue  # a row of the table last read
        names = _cells(header, delimiter)
        width = len(names)
        if width < 2:
            continue
        if (
            len(names[1]) >= CONTEXT_MIN_LENGTH
            and _credential_name(names[0])
            and context_secret(_cell(names[1]))
        ):
            return True  # a row of a name and its value: password,..., | api_key | ... |
        if start < rows_end and width == rows_width:
            continue  # a row of a table already read
        if width == 2 and not _cell(names[1]) and header[:1] in " \t":
            continue  # one indented name and the delimiter ending its line: a list in code
        if not all(len(_cell(name)) <= _HEADER_MAX for name in names):
            continue
        headers = {_cell(name).lower() for name in names}
        pairs = "key" in headers and not VALUE_HEADERS.isdisjoint(headers)
        columns = [
            i
            for i, name in enumerate(names)
            if _credential_name(name) and not (pairs and _cell(name).lower() == "key")
        ]
        if columns:
            found, stop = _rows_hold(text, end, delimiter, width, columns)
            if found:
                return True
            read[delimiter] = (end + 1, stop, width)
    return False


def _rows_hold(
    text: str, at: int, delimiter: str, width: int, columns: list[int]
) -> tuple[bool, int]:
    """Whether a row after ``at`` (the header's end) holds a secret-looking value in one of
    ``columns``: the rows of ``width`` cells right below the header (a Markdown table's line
    of dashes among them), up to a line of another width; and where the rows read end."""
    size = len(text)
    while at < size:
        end = text.find("\n", at + 1)
        end = size if end < 0 else end
        line = text[at + 1 : end]
        if delimiter not in line:
            break
        cells = _cells(line.rstrip("\r"), delimiter)
        if len(cells) != width:
            break
        at = end
        for i in columns:  # a cell too short to be a secret is passed over at once
            if len(cells[i]) >= CONTEXT_MIN_LENGTH and context_secret(_cell(cells[i])):
                return True, at
        if (
            len(cells[1]) >= CONTEXT_MIN_LENGTH  # a short value is no secret: no name read
            and _credential_name(cells[0])
            and context_secret(_cell(cells[1]))
        ):
            return True, at
    return False, at


# Markup.


def _in_markup(text: str, lowered: str) -> bool:
    """Whether an element or a tag's attribute in ``text`` names a secret-looking value."""
    for match in _NAMED_ELEMENT.finditer(lowered):
        tag = _OPENED.match(text, match.start())
        if tag is not None and _secret(_element_value(text, tag)):
            return True
    tags: dict[int, re.Match[str] | None] = {}  # each tag read once, whatever it names
    for attribute, pattern in _NAMING:
        for match in pattern.finditer(lowered):
            at = match.start()
            if _WORD.search(lowered, match.start(1), match.end(1)) is None:
                continue
            naming = text[match.start(1) : match.end(1)]
            if not (auth_like(naming) or (attribute == "type" and naming.lower() == "password")):
                continue
            start = lowered.rfind("<", max(0, at - TAG_MAX), at)
            if start < 0 or not lowered[at - 1].isspace() or lowered.find(">", start, at) >= 0:
                continue  # not an attribute of a tag
            if start in tags:
                continue  # its value was read for the first naming attribute of the tag
            tag = tags[start] = _OPENED.match(text, start)
            if tag is not None and _secret(_attribute_value(text, lowered, tag)):
                return True
    return False


def _secret(value: str | None) -> bool:
    return value is not None and context_secret(value)


def _element_value(text: str, tag: re.Match[str]) -> str | None:
    """The text of the element the opening ``tag`` starts, when its name is a credential's
    (``<password>``, ``<cfg:apiKey>``); the value after a property list's ``<key>`` naming
    one (``<key>api_key</key><string>...</string>``); else None."""
    element, empty = tag.groups()
    local = element.rsplit(":", 1)[-1]
    if local.lower() == "key":
        named = _element_text(text, tag.end(), element)
        if named is None or not auth_like(named[0].strip()):
            return None
        after = _OPENED.match(text, named[1])
        held = None if after is None else _element_text(text, after.end(), after.group(1))
    elif auth_like(local) and not empty:
        held = _element_text(text, tag.end(), element)
    else:
        return None
    return None if held is None else held[0]


def _attribute_value(text: str, lowered: str, tag: re.Match[str]) -> str | None:
    """The value an opening ``tag`` holds whose naming attribute names a credential: its
    ``value`` (or ``content``) attribute, else its text."""
    value = _VALUE.search(lowered, tag.start(), tag.end())
    if value is not None:
        start, end = next(value.span(g) for g in (1, 2, 3) if value.group(g) is not None)
        return html.unescape(text[start:end])
    element, empty = tag.groups()
    held = None if empty else _element_text(text, tag.end(), element)
    return None if held is None else held[0]


def _element_text(text: str, at: int, name: str) -> tuple[str, int] | None:
    """The text of the element named ``name`` whose opening tag ends at ``at`` (its CDATA
    section, or the text up to the next tag, entities read) and where its closing tag ends
    (white space after it passed over), when that tag follows; else None."""
    cdata = _CDATA.match(text, at)
    if cdata is not None:
        held, end = cdata.group(1), cdata.end()
    else:
        end = text.find("<", at)
        if end < 0:
            return None
        held = text[at:end]
        held = html.unescape(held) if "&" in held else held
    close = _CLOSE_TAG.match(text, end)
    if close is None or close.group(1) != name:
        return None
    space = _SPACE.match(text, close.end())
    return held, close.end() if space is None else space.end()
