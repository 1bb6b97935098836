"""Fixture age: ``meta.recorded_at`` and the ``--max-age`` syntax (``90d``, ``12w``, ``36h``)."""

from __future__ import annotations

from datetime import timedelta

from replaygate.ages import age_of
from replaygate.hygiene.errors import HygieneError

DEFAULT_MAX_AGE = timedelta(days=90)
"""The age past which ``patrol`` flags a fixture stale when neither ``--max-age`` nor
``[tool.replaygate.patrol] max_age`` gives one."""


def parse_max_age(text: str) -> timedelta:
    """``--max-age``: ``90d`` -> 90 days; :class:`HygieneError` for anything else."""
    try:
        return age_of(text)
    except ValueError as err:
        raise HygieneError(f"bad --max-age {text!r}: {err}") from None
