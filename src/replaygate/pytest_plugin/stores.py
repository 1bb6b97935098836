"""Stores named by the marker, shared between tests: opened once per process.

Opening a store indexes every fixture in it. A store that many tests share
(``@pytest.mark.replaygate(fixtures=...)``) opened again for each test would cost
tests x fixtures; each process (the session, or each pytest-xdist worker) opens it
once instead, and at each test indexes only what changed on disk since (fixtures
other workers appended, a file rewritten).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from replaygate.fixtures.store import FixtureStore

_OPEN = pytest.StashKey[dict[Path, "FixtureStore"]]()


def shared_store(config: pytest.Config, path: Path) -> FixtureStore:
    """The store at ``path``, opened on first use in this session, brought up to date."""
    from replaygate.fixtures.store import FixtureStore

    stores = config.stash.setdefault(_OPEN, {})
    store = stores.get(path)
    if store is None:
        store = stores[path] = FixtureStore.open(path)
    else:
        store.refresh()
    return store


def close_shared(config: pytest.Config) -> None:
    """Close the session's shared stores."""
    for store in config.stash.get(_OPEN, {}).values():
        store.close()
    config.stash[_OPEN] = {}
