"""JSON read strictly, in one pass: no key named twice, no number JSON allows only loosely.

Python's reader, like most, keeps the last of two equal keys and reads ``NaN``,
``Infinity`` and ``1e999`` as numbers; a hand edit would then be read as a value the
text does not say. :func:`loads` refuses them, naming the path of a key named twice.
Used by replaygate's own JSON documents (:mod:`replaygate.jsondoc`) and by the fixture
store's careful read of a line that is not as written.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable
from typing import Any

import orjson

from replaygate.collector import collector_paused

__all__ = ["DuplicateKeyError", "loads", "plain_loads"]

MAX_DEPTH = 1024
"""How deep a text may nest to be read (orjson's limit, which a fixture line keeps too)."""


class _Refused(ValueError):
    """A value JSON allows only loosely, refused while parsing (its message says which)."""


def _no_constant(text: str) -> Any:
    raise _Refused(f"{text} is not a number JSON can hold")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(f"{text} is beyond the range of a number")
    return value


def _bounded_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    limit = sys.get_int_max_str_digits()
    if limit and digits > limit:
        raise _Refused(f"an integer of {digits:,} digits (at most {limit:,} are read)")
    return int(text)


class DuplicateKeyError(ValueError):
    """A JSON text holding an object that names a key twice: read as the last of its
    values, it would say what the text does not. ``path`` is the key's field path."""

    def __init__(self, path: str) -> None:
        super().__init__(f"duplicate key {path}: an object names it twice; keep one")
        self.path = path


class _Twice(dict[str, Any]):
    """A parsed object that names ``key`` twice."""

    key = ""


class _UniqueKeys:
    """The ``object_pairs_hook`` of one parse: it marks an object that names a key twice,
    so the value is walked for the key's path only when there is one to name."""

    def __init__(self) -> None:
        self.found = False

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(pairs)
        if len(obj) == len(pairs):
            return obj
        self.found = True
        twice = _Twice(obj)
        keys = [key for key, _ in pairs]
        twice.key = next(key for i, key in enumerate(keys) if key in keys[:i])
        return twice


def plain_loads(text: str | bytes) -> Any:
    """``json.loads(text)``, nested past :data:`MAX_DEPTH` refused as :func:`loads` refuses
    it (:func:`_json_loads`)."""
    return _json_loads(text)


_SHALLOW = 64
"""Brackets a text may hold and still be parsed without a look at its depth."""


def _json_loads(text: str | bytes, **hooks: Any) -> Any:
    """``json.loads(text, **hooks)``, where a text nesting past :data:`MAX_DEPTH` raises
    ``RecursionError`` before it is parsed, told by orjson, which counts its depth without
    recursing; a text of many brackets is parsed with the cycle collector paused. Python's
    reader recurses, and near its limit a garbage collection fails the finalizers of
    unrelated objects ("Exception ignored in ...")."""
    if isinstance(text, bytes):
        brackets = text.count(b"[") + text.count(b"{")
    else:
        brackets = text.count("[") + text.count("{")
    if brackets <= _SHALLOW:
        return json.loads(text, **hooks)
    if brackets > MAX_DEPTH and nests_past(text, MAX_DEPTH):
        raise RecursionError(f"nested more than {MAX_DEPTH:,} levels deep")
    with collector_paused():
        return json.loads(text, **hooks)


def nests_past(text: str | bytes, depth: int) -> bool:
    """Whether the JSON ``text`` nests objects and lists more than ``depth`` levels (at
    most :data:`MAX_DEPTH`), told by orjson, which counts its depth without recursing,
    so on every Python alike; False for a text that is not JSON."""
    pad = MAX_DEPTH - depth
    padded: str | bytes
    if isinstance(text, bytes):
        brackets = text.count(b"[") + text.count(b"{")
        padded = b"[" * pad + text + b"]" * pad
    else:
        brackets = text.count("[") + text.count("{")
        padded = "[" * pad + text + "]" * pad
    if brackets <= depth:
        return False
    try:
        orjson.loads(padded)
    except orjson.JSONDecodeError as err:
        return str(err).startswith("depth limit exceeded")
    return False


def _twice_path(value: Any) -> str:
    """The field path of the first key named twice in ``value`` (parsed by :class:`_UniqueKeys`)."""
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, _Twice):
            return f"{path}.{item.key}" if path else item.key
        if isinstance(item, dict):
            stack.extend(reversed([(f"{path}.{k}" if path else k, v) for k, v in item.items()]))
        elif isinstance(item, list):
            stack.extend(reversed([(f"{path}[{i}]", v) for i, v in enumerate(item)]))
    raise AssertionError("no key named twice")  # pragma: no cover - found before the walk


def loads(
    text: str | bytes,
    *,
    strict_numbers: bool = True,
    unique_keys: bool = True,
    parse_int: Callable[[str], object] | None = None,
) -> Any:
    """``text`` parsed as JSON in one pass that refuses, with ``unique_keys``, an object
    naming a key twice (:class:`DuplicateKeyError`, naming its path: ``schema.type``)
    and, with ``strict_numbers``, what JSON allows only loosely: NaN, Infinity, a number
    beyond a float's range, an integer of more digits than are read (a ``ValueError``
    saying which). ``parse_int``, when given, reads each integer instead (a hook that
    notes one beyond a range, say). ``json.JSONDecodeError`` and ``RecursionError`` pass
    as they are; a text nested past :data:`MAX_DEPTH` raises ``RecursionError`` before it
    is parsed (:func:`_json_loads`)."""
    hooks: dict[str, Any] = {}
    if strict_numbers:
        hooks.update(parse_constant=_no_constant, parse_float=_finite, parse_int=_bounded_int)
    if parse_int is not None:
        hooks["parse_int"] = parse_int
    if not unique_keys:
        return _json_loads(text, **hooks)
    pairs = _UniqueKeys()
    value = _json_loads(text, object_pairs_hook=pairs, **hooks)
    if pairs.found:
        raise DuplicateKeyError(_twice_path(value))
    return value
