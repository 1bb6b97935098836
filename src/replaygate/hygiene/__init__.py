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
