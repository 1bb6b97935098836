"""CI stages (seed 003, 6.3): which stages a change must run, and why.

Changed files are sorted into the change classes of ``[tool.replaygate.ci]``; each
class names the stages it needs. A changed fixture runs only the tests that played
it, found in the hits log. The plan prints as a table, as JSON, or as GitHub
Actions outputs for a job matrix.
"""

from __future__ import annotations

from replaygate.ci.fixture_users import FixtureUsers, changed_keys
from replaygate.ci.globs import glob_match
from replaygate.ci.plan import Plan, PlannedStage, every_stage, make_plan

__all__ = [
    "FixtureUsers",
    "Plan",
    "PlannedStage",
    "changed_keys",
    "every_stage",
    "glob_match",
    "make_plan",
]
