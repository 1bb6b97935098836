"""Fixture age: ``meta.recorded_at`` and the ``--max-age`` syntax (``90d``, ``12w``, ``36h``)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

from replaygate.hygiene.errors import HygieneError

_AGE = re.compile(r"([0-9]+)([hdw])")  # ASCII digits: \d takes ３ and ٣ too
_UNITS = {"h": "hours", "d": "days", "w": "weeks"}


def parse_max_age(text: str) -> timedelta:
    """``90d`` -> 90 days; :class:`HygieneError` for anything else."""
    match = _AGE.fullmatch(text.strip())
    if match is None or int(match.group(1)) == 0:
        raise HygieneError(
            f"bad --max-age {text!r}: expected a positive whole number (digits 0-9) and a unit, "
            "h (hours), d (days) or w (weeks), like 90d or 12w"
        )
    try:
        return timedelta(**{_UNITS[match.group(2)]: int(match.group(1))})
    except OverflowError:
        raise HygieneError(
            f"bad --max-age {text!r}: at most {timedelta.max.days:,} days (a fixture that old "
            "cannot exist)"
        ) from None


def recorded_at(meta: dict[str, Any] | None) -> datetime | None:
    """When a fixture was recorded (UTC), from ``meta.recorded_at``; None when absent or unreadable.

    Accepts ISO 8601 times (``2026-11-30T05:28:24Z``) and dates (``2026-09-12``);
    a time without a zone is taken as UTC. A valid time within hours of year 1 or 9999
    whose UTC time falls beyond what a datetime holds (``0001-01-01T00:00:00+14:00``) is
    taken as the earliest or the latest time: old and stale, or in the future.
    """
    value = (meta or {}).get("recorded_at")
    if not isinstance(value, str):
        return None
    try:
        when = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        return when.replace(tzinfo=UTC)
    try:
        return when.astimezone(UTC)
    except OverflowError:
        return (datetime.min if when.year == 1 else datetime.max).replace(tzinfo=UTC)
