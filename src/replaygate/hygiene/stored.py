"""Reading a whole fixture store for a hygiene check."""

from __future__ import annotations

from pathlib import Path

from replaygate.errors import ReplaygateError
from replaygate.fixtures.fixture import Fixture
from replaygate.fixtures.store import FixtureStore, Location
from replaygate.hygiene.errors import HygieneError


def load_fixtures(path: Path) -> list[tuple[Location, Fixture]]:
    """Every fixture of the store at ``path`` with its location, in file and line order."""
    if not path.exists():
        raise HygieneError(f"no fixture store at {path}")
    try:
        with FixtureStore.open(path) as store:
            found = [(loc, store.read(loc)) for loc in store.locations()]
    except ReplaygateError as err:
        raise HygieneError(f"{err} (run `replaygate verify {path}`)") from None
    found.sort(key=lambda item: (str(item[0].file), item[0].line))
    return found


def where(loc: Location) -> str:
    """``file:line``, or the file alone for a one-fixture ``.json`` file."""
    return str(loc.file) if loc.file.suffix == ".json" else str(loc)
