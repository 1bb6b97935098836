"""Reading the package's JSONL data files, with errors that name file and line."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Mapping
from importlib.resources import files
from pathlib import Path
from typing import Any, TypeVar

from replaygate.errors import jsonl_not_utf8, line_encoding_reason
from replaygate.examples.research_copilot.errors import DataFormatError
from replaygate.regular import is_blank, text_lines

_PACKAGE = "replaygate.examples.research_copilot"

T = TypeVar("T")

Builder = Callable[[str, int, Mapping[str, Any]], T]
"""Makes one item from ``(file name, line, record)``; raises on a bad field."""


def read_source(path: str | os.PathLike[str] | None, default_name: str) -> tuple[str, str]:
    """Return ``(name, text)`` of ``path``, or of the packaged ``data/default_name``."""
    if path is None:
        resource = files(_PACKAGE).joinpath("data", default_name)
        return str(resource), resource.read_text(encoding="utf-8")
    name = str(path)
    data = Path(path).read_bytes()
    try:
        return name, data.decode("utf-8")
    except UnicodeDecodeError as exc:  # named as the fixture store names it
        raise DataFormatError(name, *jsonl_not_utf8(data, exc.start, name)) from None


def records(name: str, text: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` for each non-blank line; raise on a bad line."""
    for number, line in text_lines(text):
        if is_blank(line):
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:  # UTF-16, a byte order mark, lone CR line ends
            reason = line_encoding_reason(line.encode("utf-8", "surrogatepass"), name, number)
            raise DataFormatError(name, number, reason or f"invalid JSON: {exc.msg}") from exc
        if not isinstance(value, dict):
            raise DataFormatError(
                name, number, f"expected a JSON object, got {type(value).__name__}"
            )
        yield number, value


def check_keys(name: str, line: int, record: Mapping[str, Any], required: tuple[str, ...]) -> None:
    """Raise unless ``record`` has exactly the keys ``required``."""
    missing = [key for key in required if key not in record]
    if missing:
        raise DataFormatError(name, line, f"missing field(s): {', '.join(missing)}")
    extra = sorted(key for key in record if key not in required)
    if extra:
        raise DataFormatError(
            name,
            line,
            f"unknown field(s): {', '.join(extra)} (allowed: {', '.join(required)})",
        )


def text_field(name: str, line: int, record: Mapping[str, Any], key: str) -> str:
    """The non-empty string ``record[key]``, or raise."""
    value = record[key]
    if not isinstance(value, str) or not value.strip():
        raise DataFormatError(name, line, f"field {key!r} must be a non-empty string")
    return value


def text_list_field(name: str, line: int, record: Mapping[str, Any], key: str) -> tuple[str, ...]:
    """The list of non-empty strings ``record[key]`` as a tuple, or raise."""
    value = record[key]
    if not isinstance(value, list) or not all(
        isinstance(item, str) and item.strip() for item in value
    ):
        raise DataFormatError(name, line, f"field {key!r} must be a list of non-empty strings")
    return tuple(value)


def load_unique(
    path: str | os.PathLike[str] | None,
    default_name: str,
    keys: tuple[str, ...],
    build: Builder[T],
    id_label: str,
) -> list[T]:
    """The items of a JSONL file whose records have exactly ``keys``, the first a unique id.

    Without ``path``, the packaged ``data/default_name``. A repeated id raises
    ``duplicate <id_label> <id>`` naming the file and the line.
    """
    name, text = read_source(path, default_name)
    items: list[T] = []
    seen: set[str] = set()
    for line, record in records(name, text):
        check_keys(name, line, record, keys)
        item = build(name, line, record)
        item_id = record[keys[0]]
        if item_id in seen:
            raise DataFormatError(name, line, f"duplicate {id_label} {item_id!r}")
        seen.add(item_id)
        items.append(item)
    return items
