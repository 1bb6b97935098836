"""Field-by-field differences between two JSON values, named by path."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

MISSING = object()
_REPR_LIMIT = 80


@dataclass(frozen=True)
class FieldDifference:
    """One path where two JSON values differ; ``MISSING`` marks an absent side."""

    path: str
    left: Any
    right: Any

    def render(self, limit: int = _REPR_LIMIT) -> str:
        """``path: left != right`` with long values truncated."""
        left, right = short_repr(self.left, limit), short_repr(self.right, limit)
        return f"{self.path or '<root>'}: {left} != {right}"


def short_repr(value: Any, limit: int = _REPR_LIMIT) -> str:
    """``repr`` of a value, cut to ``limit`` characters."""
    if value is MISSING:
        return "<missing>"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def field_diff(left: Any, right: Any, path: str = "") -> list[FieldDifference]:
    """Every leaf path where ``left`` and ``right`` differ, in document order."""
    if isinstance(left, Mapping) and isinstance(right, Mapping):
        out: list[FieldDifference] = []
        for key in list(left) + [k for k in right if k not in left]:
            out.extend(
                field_diff(left.get(key, MISSING), right.get(key, MISSING), _join(path, str(key)))
            )
        return out
    if isinstance(left, list) and isinstance(right, list):
        out = []
        for i in range(max(len(left), len(right))):
            a = left[i] if i < len(left) else MISSING
            b = right[i] if i < len(right) else MISSING
            out.extend(field_diff(a, b, f"{path}[{i}]"))
        return out
    if left is MISSING and right is MISSING:
        return []
    if type(left) is type(right) and left == right:
        return []
    return [FieldDifference(path, left, right)]
