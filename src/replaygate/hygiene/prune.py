"""``prune --unused``: delete fixtures that no recent run played and no code references.

Deleting takes the store's write lock (and each ``.jsonl`` file's own lock), so it
never races a recorder (law 5). A one-fixture ``.json`` file is removed; a ``.jsonl``
file is first copied to a backup (``<name>.bak``, ``.bak1``...), then rewritten
without the pruned lines in one atomic replace. A ``.jsonl`` file left
without fixtures is removed (its backup stays). A fixture still played or
referenced is refused, whoever asks.
"""

from __future__ import annotations

import contextlib
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock

from replaygate.errors import ReplaygateError
from replaygate.fixtures.store import (
    FixtureStore,
    atomic_write,
    backup_of,
    folded_jsonl,
    read_json_file,
)
from replaygate.hygiene.errors import HygieneError
from replaygate.hygiene.patrol import Patrol, PatrolRow, shown


@dataclass(frozen=True)
class PruneResult:
    """What was deleted, and the backups of the rewritten ``.jsonl`` files."""

    deleted: tuple[PatrolRow, ...]
    backups: tuple[Path, ...]
    files_removed: tuple[Path, ...]


def candidates(result: Patrol) -> list[PatrolRow]:
    """The unused fixtures of a patrol; refuses when no run was recorded."""
    if not result.runs:
        raise HygieneError(
            f"no test run in the hits log at {shown(result.hits_dir)}: run the test suite "
            "first (the pytest plugin logs which fixtures each run replays); nothing deleted"
        )
    return result.unused


def _rewrite_jsonl(file: Path, keys: set[str]) -> Path:
    data = file.read_bytes()
    drop = sorted(
        line
        for loc, fx, added in folded_jsonl(file, data)
        if fx.key in keys
        for line in (loc, *added)
    )
    kept = bytearray()
    pos = 0
    for loc in drop:
        kept += data[pos : loc.offset]
        end = loc.offset + loc.length
        pos = end + (data[end : end + 1] == b"\n")
    kept += data[pos:]
    backup = backup_of(file)
    atomic_write(backup, data)
    if kept.strip():
        atomic_write(file, bytes(kept))
    else:
        file.unlink()
    return backup


def delete(path: Path, rows: Sequence[PatrolRow]) -> PruneResult:
    """Delete the fixtures of ``rows`` from the store at ``path``, under its locks."""
    refused = [r for r in rows if not r.unused]
    if refused:
        first = refused[0]
        why = "played" if first.plays else f"referenced by {', '.join(first.refs)}"
        raise HygieneError(
            f"refusing to delete {first.where} (key {first.key}): it is still {why}; "
            "nothing deleted"
        )
    by_file: dict[Path, set[str]] = defaultdict(set)
    for row in rows:
        by_file[row.file].add(row.key)
    locks = {FixtureStore(path).lock_path}
    locks |= {FixtureStore(f).lock_path for f in by_file if f.suffix == ".jsonl"}
    backups: list[Path] = []
    removed: list[Path] = []
    try:
        with contextlib.ExitStack() as stack:
            for lock in sorted(locks):
                lock.parent.mkdir(parents=True, exist_ok=True)
                stack.enter_context(FileLock(str(lock)))
            for file, keys in sorted(by_file.items()):
                if not file.exists():
                    continue
                if file.suffix == ".json":
                    if read_json_file(file).key in keys:
                        file.unlink()
                        removed.append(file)
                else:
                    backup = _rewrite_jsonl(file, keys)
                    backups.append(backup)
                    if not file.exists():
                        removed.append(file)
    except ReplaygateError as err:
        raise HygieneError(f"{err}; nothing more deleted") from None
    return PruneResult(tuple(rows), tuple(backups), tuple(removed))
