"""Ages written as a whole number and a unit (``90d``, ``12w``, ``36h``), as ``patrol
--max-age`` and ``[tool.replaygate.patrol] max_age`` take them."""

from __future__ import annotations

import re
from datetime import timedelta

_AGE = re.compile(r"([0-9]+)([hdw])")  # ASCII digits: \d takes ３ and ٣ too
_UNITS = {"h": "hours", "d": "days", "w": "weeks"}


def age_of(text: str) -> timedelta:
    """``90d`` -> 90 days; a ValueError saying what is expected for anything else."""
    match = _AGE.fullmatch(text.strip())
    if match is None or int(match.group(1)) == 0:
        raise ValueError(
            "expected a positive whole number (digits 0-9) and a unit, h (hours), d (days) "
            "or w (weeks), like 90d or 12w"
        )
    try:
        return timedelta(**{_UNITS[match.group(2)]: int(match.group(1))})
    except OverflowError:
        raise ValueError(
            f"at most {timedelta.max.days:,} days (a fixture that old cannot exist)"
        ) from None
