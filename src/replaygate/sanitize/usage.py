"""Usage: token counts kept by default; ``normalize_usage`` fixes them for quieter diffs.

Every number inside an object held by a ``usage`` or ``usageMetadata`` field, at any
depth of a response (``usage`` of a message, of a stream's ``message_start`` and
``message_delta``, of an OpenAI completion or its last chunk, Gemini's
``usageMetadata``), becomes :data:`FIXED_USAGE`. Strings
(``service_tier``) are kept. A replay then reports that fixed usage, and a cost
computed from it is zero.
"""

from __future__ import annotations

from typing import Any

FIXED_USAGE = 0


def _numbers_fixed(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return FIXED_USAGE
    if isinstance(value, dict):
        return {k: _numbers_fixed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_numbers_fixed(v) for v in value]
    return value


USAGE_FIELDS = frozenset({"usage", "usageMetadata"})
"""The fields that hold token counts (``usageMetadata`` is Gemini's)."""


def normalize_usage(value: Any) -> Any:
    """``value`` with every usage object's numbers set to :data:`FIXED_USAGE`."""
    if isinstance(value, dict):
        return {
            k: _numbers_fixed(v)
            if k in USAGE_FIELDS and isinstance(v, dict)
            else normalize_usage(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [normalize_usage(v) for v in value]
    return value
