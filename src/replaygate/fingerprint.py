"""The canonical form of a request and its fingerprint (the fixture key).

Canonical form, version 1 (the form of seed 000, so its fixture lines load as they are):
``json.dumps(request, sort_keys=True, ensure_ascii=False)`` with the standard
separators ``", "`` and ``": "``; NaN and Infinity are refused. The key is the
SHA-256 of its UTF-8 bytes, hex; the stored and displayed key is its first
:data:`KEY_LENGTH` characters. A short key may collide, so a lookup always confirms
a hit by comparing the whole canonical request (law 1).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from typing import Any

from replaygate.errors import CanonicalFormError

CANONICAL_VERSION = 1
KEY_LENGTH = 12


def canonical_json(request: Any) -> str:
    """The canonical text of ``request``; :class:`CanonicalFormError` names a bad value's path."""
    try:
        return json.dumps(request, sort_keys=True, ensure_ascii=False, allow_nan=False)
    except (ValueError, TypeError) as err:
        path, reason = _first_bad_value(request, "")
        raise CanonicalFormError(path, reason or str(err)) from None


def digest(request: Any) -> str:
    """The full SHA-256 hex digest of the canonical form."""
    return hashlib.sha256(canonical_json(request).encode("utf-8")).hexdigest()


def fixture_key(request: Any) -> str:
    """The stored key of ``request``: the first :data:`KEY_LENGTH` hex digits of its digest."""
    return digest(request)[:KEY_LENGTH]


def key_of_canonical(canonical: str) -> str:
    """The key of an already canonical text (saves a second serialization)."""
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:KEY_LENGTH]


def _first_bad_value(value: Any, path: str) -> tuple[str, str]:
    if isinstance(value, float) and not math.isfinite(value):
        return path, f"{value!r} is not valid JSON"
    if isinstance(value, Mapping):
        for k, v in value.items():
            if not isinstance(k, str):
                return path, f"key {k!r} is not a string"
            found = _first_bad_value(v, f"{path}.{k}" if path else k)
            if found[1]:
                return found
        return path, ""
    if isinstance(value, list | tuple):
        for i, item in enumerate(value):
            found = _first_bad_value(item, f"{path}[{i}]")
            if found[1]:
                return found
        return path, ""
    if value is None or isinstance(value, str | int | float | bool):
        return path, ""
    return path, f"{type(value).__name__} is not a JSON value"
