"""Reading a whole fixture store for a hygiene check."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from replaygate.errors import FixtureFormatError, ReplaygateError, shell_path
from replaygate.fixtures.fixture import Fixture
from replaygate.fixtures.store import FixtureStore, Location, store_roots
from replaygate.fixtures.store.files import existing_store
from replaygate.fixtures.store.given import read_under
from replaygate.hygiene.errors import HygieneError
from replaygate.missing import pasted_location, typo_note


def each_fixture(path: Path) -> Iterator[tuple[Location, Fixture]]:
    """Every fixture of the stores under ``path`` with its location, read one at a time
    (a store of any size is never held whole), in each store's order.

    ``path`` is one store or a tree of them (:func:`~replaygate.fixtures.store.store_roots`);
    a path that is not there, or is a symlink loop, a FIFO... is refused saying which.
    """
    for store, loc in _each_location(path):
        yield loc, store.read(loc)


def each_fixture_metas(
    path: Path,
) -> Iterator[tuple[Location, Fixture, list[dict[str, Any] | None]]]:
    """:func:`each_fixture`, each fixture with the ``meta`` of each line that stores one of
    its answers: its own line's, while a sample line has not recorded each of its answers
    again, then its sample lines' in file order, each but one that a later line recorded
    again (the fixture's ``meta`` is the last of them, so a sample added today hides when
    the first answer was; a line whose every answer was recorded again dates none)."""
    grown: dict[Location, list[Location]] = {}
    held: FixtureStore | None = None
    for store, loc in _each_location(path):
        if store is not held:
            held, grown = store, store.sample_lines()
        fixture = store.read(loc)
        lines = grown.get(loc)
        metas = [fixture.meta] if not lines else _answer_metas(store, loc, lines)
        yield loc, fixture, metas


def _answer_metas(
    store: FixtureStore, loc: Location, lines: list[Location]
) -> list[dict[str, Any] | None]:
    """The ``meta`` of the fixture's line at ``loc`` and of its sample lines ``lines`` that
    still hold one of its answers: the line that holds an answer is the last to give its
    sample one."""
    base = _line_at(store, loc)
    answered = base.get("responses") if "responses" in base else [base.get("response")]
    holder: dict[int, int] = {
        sample: 0 for sample, answer in enumerate(answered or ()) if answer is not None
    }
    read = [base]
    for n, at in enumerate(lines, start=1):
        obj = _line_at(store, at)
        read.append(obj)
        if type(obj.get("sample")) is int:
            holder[obj["sample"]] = n
    kept = sorted(set(holder.values())) or [0]
    return [_meta_of(read[n]) for n in kept]


def _line_at(store: FixtureStore, loc: Location) -> dict[str, Any]:
    """The JSON object of the JSONL line at ``loc`` ({} for another value), read from the
    file ``store`` indexed: a recording may have rewritten the file at its path since."""
    obj = orjson.loads(store.stored_line(loc))
    return obj if type(obj) is dict else {}


def _meta_of(obj: dict[str, Any]) -> dict[str, Any] | None:
    """The ``meta`` of a stored line's object (None when it has none)."""
    meta = obj.get("meta")
    return meta if type(meta) is dict else None


def _each_location(path: Path) -> Iterator[tuple[FixtureStore, Location]]:
    """The location of each fixture of the stores under ``path`` (:func:`each_fixture`),
    with its open store."""
    if not os.path.lexists(path):
        located = pasted_location(path) or typo_note(path)
        raise HygieneError(f"no fixture store at {path}" + (f": {located}" if located else ""))
    try:
        existing_store(path)
    except FixtureFormatError as err:
        raise HygieneError(str(err)) from None
    try:
        for root, files in store_roots(path).items():
            named = set(files)  # a folder store of 20,000 files: no list searched per fixture
            with FixtureStore.open(root) as store:
                store.hold_files()
                for loc in store.locations():
                    if loc.file in named:
                        yield store, loc
    except FixtureFormatError as err:
        told = read_under(err.reason, err.file, path)
        if told != err.reason:  # a file of other data: verify would say no more
            raise HygieneError(str(FixtureFormatError(err.file, err.line, told))) from None
        raise HygieneError(f"{err} (run `replaygate verify {shell_path(str(path))}`)") from None
    except ReplaygateError as err:
        raise HygieneError(f"{err} (run `replaygate verify {shell_path(str(path))}`)") from None


def fixtures_at(path: Path, found: list[tuple[Location, str]]) -> list[tuple[Location, Fixture]]:
    """The fixtures found at these locations under ``path`` with these keys, read again in
    that order; a store changed since (a line moved by a rewrite, another fixture in its
    place) is refused."""
    wanted = dict(found)
    read = {loc: store.read(loc) for store, loc in _each_location(path) if loc in wanted}
    changed = [loc for loc, key in found if loc not in read or read[loc].key != key]
    if changed:
        raise HygieneError(
            f"{where(changed[0])}: the store changed while it was read (a rewrite moved its "
            "lines): run the command again"
        )
    return [(loc, read[loc]) for loc, _ in found]


def load_fixtures(path: Path) -> list[tuple[Location, Fixture]]:
    """:func:`each_fixture`, all held, in file and line order."""
    return sorted(each_fixture(path), key=lambda item: (str(item[0].file), item[0].line))


def where(loc: Location) -> str:
    """``file:line``, or the file alone for a one-fixture ``.json`` file."""
    return str(loc.file) if loc.file.suffix == ".json" else str(loc)
