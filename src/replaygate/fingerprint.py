"""The canonical form of a request and its fingerprint (the fixture key).

Canonical form, version 1 (the form of seed 000, so its fixture lines load as they are):
``json.dumps(request, sort_keys=True, ensure_ascii=False)`` with the standard
separators ``", "`` and ``": "``; NaN and Infinity are refused, and so is text that
is not valid Unicode (a lone surrogate). Enum members and UUIDs are taken as their
JSON value (the member's value, the UUID's string). The key is the SHA-256 of its
UTF-8 bytes, hex; the stored and displayed key is its first :data:`KEY_LENGTH`
characters.

A short key may collide, so a lookup never trusts it: the store finds a recorded
request by :func:`match_form`, a compact byte form that is equal for two requests
exactly when their canonical forms are equal, and confirms a hit by comparing that
whole form (law 1).
"""

from __future__ import annotations

import enum
import hashlib
import json
import math
import uuid
from collections.abc import Mapping
from typing import Any

import orjson

from replaygate.errors import CanonicalFormError

CANONICAL_VERSION = 1
KEY_LENGTH = 12

MATCH_OPTIONS = (
    orjson.OPT_SORT_KEYS
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_SUBCLASS
)


def _json_default(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, uuid.UUID):
        return str(value)
    raise TypeError(f"{type(value).__name__} is not a JSON value")


_ENCODER = json.JSONEncoder(
    sort_keys=True, ensure_ascii=False, allow_nan=False, default=_json_default
)


def canonical_json(request: Any) -> str:
    """The canonical text of ``request``; :class:`CanonicalFormError` names a bad value's path."""
    try:
        text = _ENCODER.encode(request)
        if not text.isascii():
            text.encode("utf-8")
    except (ValueError, TypeError, RecursionError) as err:
        path, reason = _first_bad_value(request, "")
        raise CanonicalFormError(path, reason or str(err)) from None
    return text


def digest(request: Any) -> str:
    """The full SHA-256 hex digest of the canonical form."""
    return hashlib.sha256(canonical_json(request).encode("utf-8")).hexdigest()


def fixture_key(request: Any) -> str:
    """The stored key of ``request``: the first :data:`KEY_LENGTH` hex digits of its digest."""
    return digest(request)[:KEY_LENGTH]


def key_of_canonical(canonical: str) -> str:
    """The key of an already canonical text (saves a second serialization)."""
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:KEY_LENGTH]


def match_form(request: Any, canonical: str | None = None) -> bytes:
    """A compact form of ``request`` that is equal for two requests iff their canonical forms are.

    It is ``orjson.dumps(request, option=OPT_SORT_KEYS)`` (the canonical form without
    the spaces after separators, about ten times cheaper to compute), falling back to
    the canonical text when orjson cannot reproduce it faithfully. ``canonical``, when
    given, must be ``canonical_json(request)``. Raises :class:`CanonicalFormError`
    where :func:`canonical_json` would.
    """
    try:
        form: bytes | None = orjson.dumps(request, option=MATCH_OPTIONS)
    except (TypeError, RecursionError):
        form = None
    if form is not None and (canonical is not None or b"null" not in form):
        return form
    # orjson writes NaN and Infinity as null: a null needs the strict check.
    if canonical is None:
        canonical = canonical_json(request)
    if form is not None:
        return form
    # orjson refused something json accepts (a non-string key, a subclass, a huge int):
    # use its JSON value when that has the same canonical text, else the text itself.
    try:
        value = orjson.loads(canonical)
        if canonical_json(value) == canonical:
            return orjson.dumps(value, option=MATCH_OPTIONS)
    except (orjson.JSONDecodeError, TypeError, CanonicalFormError):
        pass
    return b"\x00" + canonical.encode("utf-8")


def parsed_match_form(value: Any) -> bytes:
    """:func:`match_form` of a value parsed from JSON text (it cannot hold NaN), unchecked."""
    return orjson.dumps(value, option=MATCH_OPTIONS)


def _first_bad_value(value: Any, path: str, depth: int = 0) -> tuple[str, str]:
    if depth > 200:
        return path, "nested too deeply (or a circular reference)"
    if isinstance(value, float) and not math.isfinite(value):
        return path, f"{value!r} is not valid JSON"
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as err:
            return path, f"text is not valid Unicode ({err.reason} at index {err.start})"
        return path, ""
    if isinstance(value, Mapping):
        for k, v in value.items():
            if not isinstance(k, str | int | float | bool) and k is not None:
                return path, f"key {k!r} is not a string"
            found = _first_bad_value(v, f"{path}.{k}" if path else str(k), depth + 1)
            if found[1]:
                return found
        return path, ""
    if isinstance(value, list | tuple):
        for i, item in enumerate(value):
            found = _first_bad_value(item, f"{path}[{i}]", depth + 1)
            if found[1]:
                return found
        return path, ""
    if value is None or isinstance(value, int | float | bool | enum.Enum | uuid.UUID):
        return path, ""
    return path, f"{type(value).__name__} is not a JSON value"
