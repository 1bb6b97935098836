"""``prune --unused``: delete fixtures that no recent run played and no code references.

Deleting takes the store's write lock and the lock of each store whose files it deletes
from (a ``.jsonl`` file's own, a folder store's below the path pruned), so it never
races a recorder (law 5), and deletes a fixture only as it was listed. A one-fixture
``.json`` file is renamed to a backup beside it (``<key>.json.bak``, ``.bak1``...); a
``.jsonl`` file is first copied to a backup (``<name>.bak``, ``.bak1``...), then
rewritten without the pruned lines (their sample lines too) in one atomic replace, both
streamed line by line. A ``.jsonl`` file left without fixtures is removed (its backup
stays); one named through a symlink is emptied instead, the link kept (removing the link
would leave every fixture in the file it links to). A file the store names twice (an old
name kept as a link to it) is one file: locked, rewritten and counted once. A fixture
still played or referenced is refused, whoever asks, under any of its file's names. A
one-fixture file reached through a symlink (a linked interface folder another
repository's store shares) is listed but left, as ``verify --repair`` leaves it
(:func:`~.verify_repair.left_alone`): this store's runs do not say what the other
store's tests play, and its writers take another lock.
"""

from __future__ import annotations

import contextlib
import os
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from replaygate.errors import ReplaygateError
from replaygate.fixtures.hits import run_started
from replaygate.fixtures.running import RUNNING, runs_in_progress
from replaygate.fixtures.store import (
    FixtureStore,
    atomic_write,
    backup_of,
    read_json_file,
    store_files,
)
from replaygate.fixtures.store.files import jsonl_lines, open_binary, resolved
from replaygate.fixtures.store.folder import store_of
from replaygate.fixtures.store.index import Location
from replaygate.fixtures.store.writing import lock_problem, write_errors
from replaygate.hygiene.errors import HygieneError
from replaygate.hygiene.patrol import Patrol, PatrolRow, content_stamp, shown
from replaygate.hygiene.usage import within
from replaygate.hygiene.verify_repair import left_alone
from replaygate.locks import lock_at

LINKED = "reached through a symlink: not pruned; prune the store it belongs to"
"""Why a fixture file of :attr:`PruneResult.linked` was left."""


@dataclass(frozen=True)
class PruneResult:
    """What was deleted, the backups of the files removed or rewritten, the files left
    because they are reached through a symlink (:data:`LINKED`), and the fixtures listed
    that were no longer there as listed once the store's lock was taken (``gone``:
    another prune removed them, or a recording changed them, first: those are kept)."""

    deleted: tuple[PatrolRow, ...]
    backups: tuple[Path, ...]
    files_removed: tuple[Path, ...]
    linked: tuple[Path, ...] = ()
    gone: tuple[PatrolRow, ...] = ()


def candidates(
    result: Patrol, eval_stores: Callable[[], Sequence[tuple[Path, str]]] = lambda: ()
) -> list[PatrolRow]:
    """The unused fixtures of a patrol, each once; refuses when no run was recorded, when
    no test session was and one lies outside the stores the eval runs played (what the
    tests play only a test session says), when one lies in a store ``eval_stores()``
    gives, each with where it is named (``[tool.replaygate] fixtures``, the baseline's or
    the history's runs), that no eval run counted played (only an eval plays it; read
    only when a fixture outside the stores they played is offered), or when a file or
    folder that may reference one could not be read.

    A file the store reaches by two names (``b.jsonl`` a symlink to ``a.jsonl``) holds
    each of its fixtures once: it is listed under the name that is not a link, and kept
    when played or referenced under either name."""
    if not result.runs:
        raise HygieneError(
            f"no test run in the hits log at {shown(result.hits_dir)}: run the test suite "
            "first (the pytest plugin logs which fixtures each run replays; `replaygate "
            "eval` does for an eval's store); nothing deleted"
        )
    if result.unread:
        file, why = result.unread[0]
        raise HygieneError(
            f"{shown(file)} under --refs could not be read ({why}), so a reference in it "
            f"would not be seen ({len(result.unread)} such file(s) or folder(s)): make it "
            "readable, or name folders without it in --refs; nothing deleted"
        )
    # each store file resolved once, not once per fixture
    real_of = {file: resolved(file) for file in dict.fromkeys(row.file for row in result.rows)}
    used = {(real_of[row.file], row.key) for row in result.rows if not row.unused}
    picked: dict[tuple[Path, int], PatrolRow] = {}
    for row in (r for r in result.rows if r.unused):  # those of unknown use too: refused below
        real = real_of[row.file]
        if (real, row.key) in used:  # played or referenced under the file's other name
            continue
        held = picked.get((real, row.line))
        if held is None or (held.file.is_symlink() and not row.file.is_symlink()):
            picked[real, row.line] = row
    doomed = list(picked.values())
    unjudged = [row for row in doomed if not row.eval_store]
    if not result.test_sessions and unjudged:
        others = f" and {len(unjudged) - 1} more" if len(unjudged) > 1 else ""
        raise HygieneError(
            f"no test session in the hits log at {shown(result.hits_dir)}, only "
            f"{len(result.runs)} eval run(s), which do not play {unjudged[0].where}{others}: "
            "run the test suite first (the pytest plugin logs which fixtures each run "
            "replays), or prune only the eval's store; nothing deleted"
        )
    outside = [row for row in doomed if not row.eval_store]  # judged by test sessions
    if not outside:  # the eval runs counted judge their stores: nothing more to read
        _refuse_runs_ahead(result, doomed)
        return doomed
    evals = len(result.runs) - result.test_sessions
    for configured, named in eval_stores():
        store = resolved(configured)
        in_store = [row for row in outside if within(real_of[row.file], store)]
        if in_store:
            others = f" and {len(in_store) - 1} more" if len(in_store) > 1 else ""
            counted = (
                f"none of the {evals} eval run(s) in the hits log at {shown(result.hits_dir)} plays"
                if evals
                else f"no eval run in the hits log at {shown(result.hits_dir)}, only "
                f"{result.test_sessions} test session(s), which do not play"
            )
            raise HygieneError(
                f"{counted} {in_store[0].where}{others} of the eval's store "
                f"{shown(configured)} ({named}): run `replaygate eval` first (it logs which "
                "fixtures it replays), or prune other stores; nothing deleted"
            )
    _refuse_runs_ahead(result, doomed)
    return doomed


def _refuse_runs_ahead(result: Patrol, doomed: Sequence[PatrolRow]) -> None:
    """Refuse while the run that judges a fixture of ``doomed`` is dated after the
    patrol's now (:attr:`~.patrol.PatrolRow.judged_ahead`): logged by a clock that was
    ahead (or after such a run, whose time a run then takes after it), it makes a fixture
    recorded since, which no run counted played, look recorded before it: unused, where
    it is new."""
    if any(row.judged_ahead for row in doomed):
        ahead = (
            sorted(r for r in result.runs if (t := run_started(r)) is not None and t > result.now)
            or sorted(result.runs)[-1:]
        )
        raise HygieneError(
            f"{len(ahead)} run(s) in the hits log at {shown(result.hits_dir)} are dated after "
            f"now, the newest {ahead[-1]} (logged by a clock that was ahead, or after such a "
            "run): a fixture recorded since, which no run played, would be taken for unused; "
            "once the clock is right, move those runs' files aside (their names start with "
            f"the time they say, {ahead[0].split('-', 1)[0]} the first) and run the tests "
            "again; nothing deleted"
        )


def running_line(result: Patrol) -> str | None:
    """What says that a run of the project (a test session, ``replaygate eval``) is
    replaying now, holding its mark in the hits log (:mod:`~replaygate.fixtures.running`),
    or None: what it plays is logged as it goes, so a fixture it has yet to play reads as
    unused until then."""
    running = runs_in_progress(result.hits_dir)
    if not running:
        return None
    others = f" and {len(running) - 1} more" if len(running) > 1 else ""
    return (
        f"a test session or eval run is replaying now (its mark "
        f"{shown(result.hits_dir / (running[0] + RUNNING))}{others}, held until it ends): "
        "a fixture it has yet to play reads as unused until it has played it"
    )


def refuse_running(result: Patrol) -> None:
    """Refuse to delete while a run of the project replays (:func:`running_line`): a
    fixture it was about to replay would be gone from under it, a miss."""
    line = running_line(result)
    if line is not None:
        raise HygieneError(f"{line}: prune once it has ended; nothing deleted")


def _chunks(file: Path, size: int = 1 << 20) -> Iterator[bytes]:
    with open_binary(file) as handle:
        while chunk := handle.read(size):
            yield chunk


def _rewrite_jsonl(
    file: Path, keys: dict[str, set[str]], linked: bool
) -> tuple[Path | None, set[str]]:
    """Back ``file`` up, then write it again without the fixtures of ``keys`` (each key's
    :func:`~.patrol.content_stamp` as listed) and their sample lines; both are streamed,
    so a file of any size is never held whole. Left without fixtures, it is removed, or
    emptied when ``linked`` (a symlink of the store names it). Returns the backup and the
    keys of ``keys`` the file held as listed; a file that holds none of them (pruned, or
    changed by a recording, meanwhile) is left as it is, with no backup (``None``)."""
    store = FixtureStore(file)
    store.refresh()
    with store:
        grown = store.sample_lines()
        pruned: list[Location] = []
        found: set[str] = set()
        for key in sorted(keys):
            for loc, fixture in store.get(key):
                if content_stamp(fixture) in keys[key]:
                    pruned.append(loc)
                    found.add(key)
        drop = {line.line for loc in pruned for line in (loc, *grown.get(loc, ()))}
        left = len(store) - len(pruned)
    if not found:
        return None, found
    backup = backup_of(file)
    atomic_write(backup, _chunks(file))
    if left or linked:  # emptied through a link: the link stays, as in a rewrite
        atomic_write(file, (raw for number, raw in jsonl_lines(file) if number not in drop))
    else:
        file.unlink()
    return backup, found


def delete(path: Path, rows: Sequence[PatrolRow]) -> PruneResult:
    """Delete the fixtures of ``rows`` from the store at ``path``, under its locks; a
    one-fixture file reached through a symlink is left (:func:`~.verify_repair.left_alone`)."""
    refused = [r for r in rows if not r.unused]
    if refused:
        first = refused[0]
        why = "played" if first.plays else f"referenced by {', '.join(first.refs)}"
        raise HygieneError(
            f"refusing to delete {first.where} (key {first.key}): it is still {why}; "
            "nothing deleted"
        )
    # each file named is resolved once: a large store's rows name a few files many times
    real_of = {file: resolved(file) for file in dict.fromkeys(row.file for row in rows)}
    names: dict[Path, set[Path]] = defaultdict(set)  # each real file, by the names given
    keys: dict[Path, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for row in rows:  # a fixture is deleted only while it is as it was listed
        names[real_of[row.file]].add(row.file)
        keys[real_of[row.file]][row.key].add(row.stamp)
    # each lock once, however reached, taken in one order (two prunes cannot deadlock),
    # the lock itself never followed: one that is a symlink is refused
    # a one-fixture .json file is written under its folder store's lock, which for a
    # folder store below the path pruned (a marker's fixtures=) is that store's own
    lock_files = [FixtureStore(store_of(path) if path.is_file() else path).lock_path]
    lock_files += [
        FixtureStore(store_of(file)).lock_path for file in real_of if not left_alone(path, file)
    ]
    for lock_file in lock_files:
        problem = lock_problem(str(lock_file))
        if problem is not None:
            raise HygieneError(f"cannot prune {path}: its lock {problem}; nothing deleted")
    locks = {resolved(lock_file.parent) / lock_file.name for lock_file in lock_files}
    linked = {resolved(file) for file in store_files(path) if file.is_symlink()}
    backups: list[Path] = []
    removed: list[Path] = []
    elsewhere: list[Path] = []
    found: set[tuple[Path, str]] = set()  # (real file, key) deleted under the lock
    try:
        with contextlib.ExitStack() as stack:
            for lock in sorted(locks):
                lock.parent.mkdir(parents=True, exist_ok=True)
                stack.enter_context(lock_at(lock))
            for real, named in sorted(names.items()):
                file = min(named, key=lambda name: (name.is_symlink(), name.parts))
                if left_alone(path, file):
                    elsewhere.append(file)
                    continue
                if not file.exists():
                    continue
                with write_errors(file, "prune it", "the file is left as it is"):
                    if file.suffix == ".json":
                        fixture = read_json_file(file)
                        key = fixture.key
                        if content_stamp(fixture) in keys[real].get(key, ()):
                            backups.append(backup_of(file))
                            os.rename(file, backups[-1])
                            removed.append(file)
                            found.add((real, key))
                    else:
                        backup, held = _rewrite_jsonl(file, keys[real], real in linked)
                        backups += [backup] if backup is not None else []
                        found |= {(real, key) for key in held}
                        if not file.exists():
                            removed.append(file)
    except ReplaygateError as err:
        raise HygieneError(f"{err}; nothing more deleted") from None
    left = {real_of[file] for file in elsewhere}
    listed = [row for row in rows if real_of[row.file] not in left]
    deleted = tuple(row for row in listed if (real_of[row.file], row.key) in found)
    gone = tuple(row for row in listed if (real_of[row.file], row.key) not in found)
    return PruneResult(deleted, tuple(backups), tuple(removed), tuple(elsewhere), gone)
