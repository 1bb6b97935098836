"""Reading replaygate's own JSON documents (results, baselines, history exports).

Each document is an object with a ``format`` name and a ``version``; reading one
names the file (escaped when its name holds a control character: see
:func:`~replaygate.errors.shown_file`) and the field that is wrong, with the caller's
error class.
:func:`json_fields` builds the objects such documents are written from.
"""

from __future__ import annotations

import codecs
import dataclasses
import json
import os
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

import orjson

from replaygate.errors import (
    LFS_POINTER,
    checked_out_link,
    conflict_line,
    lfs_pointer_reason,
    looks_like_wide_text,
    shown_file,
)
from replaygate.json_where import refused_value
from replaygate.regular import read_regular_bytes
from replaygate.strict_json import DuplicateKeyError, loads

T = TypeVar("T")
ErrorType = Callable[[str], Exception]


def json_fields(obj: Any, names: Iterable[str] | None = None) -> dict[str, Any]:
    """``{name: obj.name}`` for each of ``names`` in that order, a tuple value as a list.

    ``names`` defaults to the fields of the dataclass ``obj``, in declaration order.
    """
    if names is None:
        names = (f.name for f in dataclasses.fields(obj))
    values = {name: getattr(obj, name) for name in names}
    return {name: list(v) if isinstance(v, tuple) else v for name, v in values.items()}


class FieldError(ValueError):
    """A field of an item that is not what it must be: ``field`` is its path in the item,
    the message what it must be (:func:`parse_items` names the item and the file)."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(reason)
        self.field = field


def shown(value: object) -> str:
    """``value`` for a message, cut short: an integer of many digits is named by its length."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**20:
        return f"an integer of {len(str(abs(value))):,} digits"
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."


def got(value: Any) -> str:
    """``value`` for a message, in JSON's words (``null``, ``true``, ``an object``)."""
    if value is None or isinstance(value, bool):
        return "null" if value is None else str(value).lower()
    if isinstance(value, dict | list):
        return "an object" if isinstance(value, dict) else "a list"
    return shown(value)


def version_of(obj: Mapping[str, Any]) -> Any:
    """``obj["version"]`` (``None`` when missing), exactly an integer: ``true`` or ``1.0``,
    which Python compares equal to ``1``, is a :class:`FieldError` naming the field."""
    value = obj.get("version")
    if "version" in obj and type(value) is not int:
        raise FieldError("version", f"must be an integer, got {got(value)}")
    return value


def count_field(
    obj: Mapping[str, Any], field: str, minimum: int, maximum: int | None = None
) -> int:
    """``obj[field]``, an integer from ``minimum`` to ``maximum`` (never a float cut to
    one, nor true or false); else :class:`FieldError`. A missing field is a ``KeyError``."""
    value = obj[field]
    if isinstance(value, bool) or not isinstance(value, int):
        raise FieldError(field, f"must be an integer, got {shown(value)}")
    if value < minimum or (maximum is not None and value > maximum):
        bound = f"at least {minimum:,}" if maximum is None else f"from {minimum:,} to {maximum:,}"
        raise FieldError(field, f"must be an integer {bound}, got {shown(value)}")
    return value


def strings_field(obj: Mapping[str, Any], field: str) -> tuple[str, ...]:
    """``obj[field]``, a list of strings (none when missing); else :class:`FieldError`
    (a string is not read as a list of its characters)."""
    value = obj.get(field, [])
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise FieldError(field, f"must be a list of strings, got {shown(value)}")
    return tuple(value)


_BOMS = (codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
"""Byte order marks: of UTF-8 (an editor's 'UTF-8 with BOM'), of UTF-16 (PowerShell's ``>``)."""


def _encoding_reason(raw: bytes, name: str) -> str:
    """Why ``raw``, the JSON file ``name`` that is not UTF-8 text or starts with a byte
    order mark, is refused, in the words of the fixture store's reader: UTF-32 or UTF-16
    with the commands that convert it, UTF-8 with a BOM, or the first byte that is not
    UTF-8 by its column (and line)."""
    from replaygate.fixtures.store.jsonl import json_file_reason

    try:
        orjson.loads(raw)
    except orjson.JSONDecodeError as err:
        return json_file_reason(name, raw, err)
    return "not UTF-8 text"  # pragma: no cover - orjson refuses both


def syntax_error(err: json.JSONDecodeError, *, line: bool = True) -> str:
    """Why a JSON reader refused a text, and where: ``Expecting value at line 3, column 7``
    (``at column 7`` alone for one line of a file already named by its number).

    (Some of the reasons end in "at" themselves: "Unterminated string starting at".)
    """
    where = f"line {err.lineno}, column {err.colno}" if line else f"column {err.colno}"
    return f"{err.msg.removesuffix(' at')} at {where}{_trailing_comma(err, line=line)}"


def _trailing_comma(err: json.JSONDecodeError, *, line: bool) -> str:
    """Where the comma is, when ``err`` is a comma after the last item of an object or a
    list (``{"a": 1,}``, as a hand edit leaves it), which the parser names by the brace
    that follows it, a line further down; empty otherwise."""
    doc, pos = err.doc, err.pos
    if pos >= len(doc) or doc[pos] not in "}]":
        return ""
    before = doc[:pos].rstrip()
    if not before.endswith(","):
        return ""
    at = len(before) - 1
    column = at - doc.rfind("\n", 0, at)
    where = f"line {doc.count(chr(10), 0, at) + 1}, column {column}" if line else f"column {column}"
    return (
        f": a comma after the last item, at {where}, where JSON allows none before "
        f"'{doc[pos]}': delete it"
    )


def _cut_or_joined(text: str, err: json.JSONDecodeError) -> str:
    """What the syntax error ``err`` of ``text`` tells of the file: it ends before its JSON
    does (cut short), or a second document follows a whole one (two joined); empty when it
    tells neither."""
    if err.msg == "Extra data":
        return (
            ": a whole JSON document ends there and more follows, as when output is appended "
            "(`>>`) to a file that held a document already; keep one document"
        )
    if err.msg.startswith("Unterminated string") or err.pos >= len(text.rstrip()):
        return (
            ": the file ends before its JSON does: it was cut short (a copy, download or "
            "write that stopped); write or download it again"
        )
    return ""


def read_json(path: str | os.PathLike[str], what: str, error: ErrorType) -> Any:
    """Parse the JSON file at ``path``; ``error`` says why it cannot be read.

    NaN, Infinity, a number beyond the range of a float and a key named twice in one
    object are refused, as in a fixture line: each would be read as a value the file
    does not say (a metric that never compares, the last of two keys). A refused value
    is named with its line and column, a key named twice by its path.
    """
    name = shown_file(str(path))
    try:
        raw = read_regular_bytes(path)
    except OSError as err:
        raise error(f"{name}: cannot read {what}: {err.strerror}") from None
    if raw.startswith(_BOMS):
        raise error(f"{name}: {_encoding_reason(raw, name)}")
    if raw.startswith(LFS_POINTER):
        raise error(f"{name}: {lfs_pointer_reason(what)}")
    link = checked_out_link(raw)
    if link is not None:
        raise error(f"{name}: {link}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise error(f"{name}: {_encoding_reason(raw, name)}") from None
    if "\0" in text and looks_like_wide_text(raw):  # UTF-32 or -16 without a byte order mark
        raise error(f"{name}: {_encoding_reason(raw, name)}")
    if not text.strip():
        raise error(f"{name}: the file is empty, where {what} should be")
    try:
        return loads(text)
    except json.JSONDecodeError as err:
        marker = conflict_line(raw)
        if marker:
            raise error(
                f"{name}: not JSON: a git merge conflict marker at line {marker}: the file "
                "was merged with a conflict left unresolved; keep one side's version (git "
                "checkout --ours or --theirs) or join the two by hand, then delete the "
                "marker lines"
            ) from None
        raise error(f"{name}: not JSON: {syntax_error(err)}{_cut_or_joined(text, err)}") from None
    except RecursionError:
        raise error(f"{name}: not JSON this reader accepts: nested too deeply") from None
    except DuplicateKeyError as err:  # named by its path
        raise error(f"{name}: not JSON this reader accepts: {err}") from None
    except ValueError as err:  # a refused value, named with its field, line and column
        why = refused_value(text, field=True) or err
        raise error(f"{name}: not JSON this reader accepts: {why}") from None


def check_document(
    obj: Any, name: str, *, format: str, version: int, what: str, error: ErrorType
) -> dict[str, Any]:
    """``obj`` if it is a document of ``format`` at ``version``, else ``error``."""
    name = shown_file(name)
    if not isinstance(obj, dict) or obj.get("format") != format:
        raise error(f"{name}: not {what} (format {format!r})")
    try:
        found = version_of(obj)
    except FieldError as err:
        raise error(f"{name}: {err.field}: {err}") from None
    if found != version:
        raise error(f"{name}: {version_refused(found, version)}")
    return obj


def version_refused(found: Any, known: int) -> str:
    """Why a document at format version ``found`` is not read by this replaygate, which
    reads ``known``: a later version is a newer replaygate's, which an upgrade reads."""
    if isinstance(found, int) and found > known:
        return (
            f"version {found} was written by a newer replaygate; this one reads version "
            f"{known}: upgrade replaygate to read it (nothing was read or changed)"
        )
    return f"unsupported version {found!r} (this replaygate reads version {known})"


def parse_items(
    obj: dict[str, Any], field: str, name: str, parse: Callable[[Any, str], T], error: ErrorType
) -> list[T]:
    """``parse(item, where)`` of each item of the list ``obj[field]``; an error ``parse``
    raises is ``error``, naming the item by its index (and the field of a
    :class:`FieldError`) in words, never by a Python exception's name."""
    name = shown_file(name)
    items = obj.get(field)
    if not isinstance(items, list):
        raise error(f"{name}: '{field}' must be a list")
    parsed = []
    for i, item in enumerate(items):
        where = f"{name}: {field}[{i}]"
        try:
            parsed.append(parse(item, where))
        except FieldError as err:
            raise error(f"{where}.{err.field}: {err}") from None
        except KeyError as err:
            raise error(f"{where}: {shown(err.args[0])} is missing") from None
        except (TypeError, ValueError, AttributeError, OverflowError) as err:
            raise error(f"{where}: {err}") from None
    return parsed


def read_items(
    path: str | os.PathLike[str],
    label: str,
    *,
    format: str,
    version: int,
    what: str,
    field: str,
    parse: Callable[[Any, str], T],
    error: ErrorType,
) -> list[T]:
    """The parsed items of ``field`` in the document of ``format`` at ``path``.

    ``label`` names the file when it cannot be read (``"results"``), ``what`` the
    document it should be (``"a replaygate results file"``).
    """
    name = shown_file(str(path))
    document = check_document(
        read_json(path, label, error), name, format=format, version=version, what=what, error=error
    )
    return parse_items(document, field, name, parse, error)
