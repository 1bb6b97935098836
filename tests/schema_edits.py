"""A JSON schema with one keyword of one of its schemas changed, for the tests of the rules
the APIs hold a structured output's schema to."""

from __future__ import annotations

import copy
from typing import Any


def edited(schema: dict[str, Any], path: tuple[str, ...], key: str, value: Any) -> dict[str, Any]:
    """A copy of ``schema`` whose schema at ``path`` (the keys leading to it) is given
    ``key: value``, or has no ``key`` when ``value`` is None."""
    changed: dict[str, Any] = copy.deepcopy(schema)
    node = changed
    for step in path:
        node = node[step]
    if value is None:
        del node[key]
    else:
        node[key] = value
    return changed
