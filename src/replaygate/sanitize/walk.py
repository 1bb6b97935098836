"""Copy-on-write maps over JSON values: only the containers that change are copied."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

TextFn = Callable[[str], str]


def map_strings(value: Any, fn: TextFn) -> Any:
    """``value`` with ``fn`` applied to every string leaf (object keys are left alone).

    Returns ``value`` itself when nothing changed, so a caller can test ``is``.
    """
    if isinstance(value, str):
        out = fn(value)
        return value if out == value else out
    if isinstance(value, dict):
        changed: dict[str, Any] | None = None
        for k, v in value.items():
            new = map_strings(v, fn)
            if new is not v:
                if changed is None:
                    changed = dict(value)
                changed[k] = new
        return value if changed is None else changed
    if isinstance(value, list):
        items: list[Any] | None = None
        for i, v in enumerate(value):
            new = map_strings(v, fn)
            if new is not v:
                if items is None:
                    items = list(value)
                items[i] = new
        return value if items is None else items
    return value


def replace_values(value: Any, mapping: dict[str, str]) -> Any:
    """``value`` with every string leaf equal to a key of ``mapping`` replaced by its value."""
    if not mapping:
        return value
    get = mapping.get
    return map_strings(value, lambda text: get(text, text))
