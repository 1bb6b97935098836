"""Fixture age: ``meta.recorded_at`` and the ``--max-age`` syntax (``90d``, ``12w``, ``36h``)."""

from __future__ import annotations

import re
from datetime import timedelta

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
