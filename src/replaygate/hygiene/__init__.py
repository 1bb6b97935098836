"""Fixture hygiene: checksum, review diffs, drift, patrol and prune.

- :func:`review_store`: the fixtures of a git revision against the working tree (or
  another revision): added, removed, paired with their request difference, and the
  ALARM of a response changed for an unchanged request;
- :func:`drift_live` / :func:`drift_against`: response field sets against the live
  API (re-sent through :class:`LiveSender`) or another fixture set, both ways;
- :func:`patrol`: age, use (the hits log) and references of every fixture;
- :func:`delete` (``prune``): remove unused fixtures, never a played or referenced one;
- :func:`store_checksum`: a stable digest for CI cache keys.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from replaygate._lazy import lazy_names

if TYPE_CHECKING:
    from replaygate.fixtures.recorded_time import recorded_at
    from replaygate.hygiene.age import parse_max_age
    from replaygate.hygiene.checksum import store_checksum
    from replaygate.hygiene.drift import DriftReport, InterfaceDrift, drift_against, drift_live
    from replaygate.hygiene.errors import HygieneError
    from replaygate.hygiene.fieldset import field_paths, fixture_fields, response_fields
    from replaygate.hygiene.patrol import Patrol, PatrolRow, patrol
    from replaygate.hygiene.prune import PruneResult, candidates, delete
    from replaygate.hygiene.resend import LiveSender
    from replaygate.hygiene.review import (
        KeyMismatch,
        MetaChanged,
        Paired,
        ResponseChanged,
        Review,
        SamplesAdded,
        review,
        review_store,
    )

_EXPORTS = {
    "candidates": "replaygate.hygiene.prune",
    "delete": "replaygate.hygiene.prune",
    "drift_against": "replaygate.hygiene.drift",
    "drift_live": "replaygate.hygiene.drift",
    "DriftReport": "replaygate.hygiene.drift",
    "field_paths": "replaygate.hygiene.fieldset",
    "fixture_fields": "replaygate.hygiene.fieldset",
    "HygieneError": "replaygate.hygiene.errors",
    "InterfaceDrift": "replaygate.hygiene.drift",
    "KeyMismatch": "replaygate.hygiene.review",
    "LiveSender": "replaygate.hygiene.resend",
    "MetaChanged": "replaygate.hygiene.review",
    "Paired": "replaygate.hygiene.review",
    "parse_max_age": "replaygate.hygiene.age",
    "Patrol": "replaygate.hygiene.patrol",
    "patrol": "replaygate.hygiene.patrol",
    "PatrolRow": "replaygate.hygiene.patrol",
    "PruneResult": "replaygate.hygiene.prune",
    "recorded_at": "replaygate.fixtures.recorded_time",
    "response_fields": "replaygate.hygiene.fieldset",
    "ResponseChanged": "replaygate.hygiene.review",
    "Review": "replaygate.hygiene.review",
    "review": "replaygate.hygiene.review",
    "review_store": "replaygate.hygiene.review",
    "SamplesAdded": "replaygate.hygiene.review",
    "store_checksum": "replaygate.hygiene.checksum",
}
"""Each public name and the module it is imported from on first use: ``replaygate verify``
or ``checksum`` in a pre-commit hook does not load the review, drift and patrol modules."""

__all__ = [
    "DriftReport",
    "HygieneError",
    "InterfaceDrift",
    "KeyMismatch",
    "LiveSender",
    "MetaChanged",
    "Paired",
    "Patrol",
    "PatrolRow",
    "PruneResult",
    "ResponseChanged",
    "Review",
    "SamplesAdded",
    "candidates",
    "delete",
    "drift_against",
    "drift_live",
    "field_paths",
    "fixture_fields",
    "parse_max_age",
    "patrol",
    "recorded_at",
    "response_fields",
    "review",
    "review_store",
    "store_checksum",
]

if not TYPE_CHECKING:  # to a type checker, a name not declared above is an error
    __getattr__, __dir__ = lazy_names(__name__, _EXPORTS)
