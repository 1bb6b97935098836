"""Shared test setup: pytester (for the pytest plugin's tests) and Hypothesis profiles.

Every property test runs in every profile; the profile sets how many examples each
one draws (a test's own ``@settings`` keep their other options):

- ``quick`` (the default: ``make test``, ``make test-fast``): 25 examples;
- ``thorough`` (``make test-thorough``, or ``--hypothesis-profile=thorough``):
  500 examples, for a scheduled run or a change to the parsers, the canonical form
  or the secret scanner.

``HYPOTHESIS_PROFILE=thorough`` selects a profile from the environment too.
"""

from __future__ import annotations

import os

from hypothesis import settings

pytest_plugins = ("pytester",)

settings.register_profile("quick", max_examples=25, deadline=None)
settings.register_profile("thorough", max_examples=500)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "quick"))
