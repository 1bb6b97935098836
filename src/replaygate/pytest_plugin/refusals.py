"""Tests refused at collection: a usage error before anything runs, or, on a pytest-xdist
worker (which cannot end the session so: its controller stops on an internal error, the
reason never shown), an error at each refused test's set-up with its reason."""

from __future__ import annotations

import pytest

REFUSED = pytest.StashKey[str]()
"""Why a test was refused on a pytest-xdist worker: it errors at set-up with it."""


def refuse(config: pytest.Config, refused: list[tuple[pytest.Item, str]], message: str) -> None:
    """End the session with ``message`` as a usage error; on a worker, note each test's
    reason (the first one given, when a test is refused twice)."""
    if not refused:
        return
    if not hasattr(config, "workerinput"):
        raise pytest.UsageError(message)
    for item, reason in refused:
        item.stash.setdefault(REFUSED, reason)


def fail_refused(item: pytest.Item) -> None:
    """Error a test a pytest-xdist worker refused at collection, with its reason."""
    reason = item.stash.get(REFUSED, None)
    if reason is not None:
        pytest.fail(reason, pytrace=False)
