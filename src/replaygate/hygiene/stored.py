"""Reading a whole fixture store for a hygiene check."""

from __future__ import annotations

from pathlib import Path

from replaygate.errors import ReplaygateError
from replaygate.fixtures.fixture import Fixture
from replaygate.fixtures.store import FixtureStore, Location, store_roots
from replaygate.hygiene.errors import HygieneError


def load_fixtures(path: Path) -> list[tuple[Location, Fixture]]:
    """Every fixture of the stores under ``path`` with its location, in file and line order.

    ``path`` is one store or a tree of them (:func:`~replaygate.fixtures.store.store_roots`).
    """
    if not path.exists():
        raise HygieneError(f"no fixture store at {path}")
    found = []
    try:
        for root, files in store_roots(path).items():
            with FixtureStore.open(root) as store:
                found += [(loc, store.read(loc)) for loc in store.locations() if loc.file in files]
    except ReplaygateError as err:
        raise HygieneError(f"{err} (run `replaygate verify {path}`)") from None
    found.sort(key=lambda item: (str(item[0].file), item[0].line))
    return found


def where(loc: Location) -> str:
    """``file:line``, or the file alone for a one-fixture ``.json`` file."""
    return str(loc.file) if loc.file.suffix == ".json" else str(loc)
