"""Fixture patrol (seed 003, 7.3): age, use and references of every fixture of a store.

- age: ``meta.recorded_at`` of its oldest answer (a sample line added later carries
  its own), oldest first; older than ``max_age`` is *stale*; a
  fixture without it has an unknown age; one recorded after the patrol's ``now`` is
  *future* (a wrong clock or an edited date: its age cannot be trusted, so it is
  reported, never taken as fresh);
- use: how often the last N recorded test runs played it (the hits log); while the runs
  counted hold no test session, only eval runs, the use of a fixture outside the stores
  they played is *unknown* (no run counted would play it), never taken as unused; so is
  that of a fixture of the project's eval store while no eval run counted played it
  (:func:`with_eval_stores`); a fixture recorded after the newest run counted that would
  play its store started is *new*: no run counted could play it, so it is never unused;
- references: the files of the reference folders that name its store file, its key,
  or the folder of the folder store it belongs to;
- failed tests: the tests that played its store in a run counted and did not pass there
  (failed, errored, skipped as it ran, interrupted): what such a test never reached may
  be what it asks for once it passes, so the store keeps every fixture.

A fixture neither played nor referenced, in no store of a test that did not pass, is
*unused*: what ``prune --unused`` removes.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

from replaygate.fixtures.fixture import Fixture
from replaygate.fixtures.recorded_time import recorded_at
from replaygate.fixtures.store import store_files
from replaygate.fixtures.store.files import resolved
from replaygate.fixtures.store.folder import store_of
from replaygate.hygiene.errors import HygieneError
from replaygate.hygiene.refs import find_references
from replaygate.hygiene.stored import each_fixture_metas
from replaygate.hygiene.usage import read_usage, within
from replaygate.regular import file_kind, unreadable
from replaygate.wall_clock import wall_now


def shown(path: Path) -> str:
    """``path`` relative to the current directory when under it."""
    try:
        return Path(os.path.relpath(path)).as_posix() if path.is_absolute() else path.as_posix()
    except ValueError:
        return path.as_posix()


@dataclass(frozen=True)
class PatrolRow:
    """One fixture's age, use and references."""

    file: Path
    line: int
    key: str
    recorded_at: datetime | None
    age: timedelta | None
    stale: bool
    future: bool
    plays: int
    tests: tuple[str, ...]
    last_played: str | None
    refs: tuple[str, ...]
    eval_store: bool = False
    """Whether its store is one an eval run counted played (judged by eval runs, not by
    test sessions)."""
    use_known: bool = True
    """False while the runs counted hold no test session (none at all, or eval runs only)
    and its store is none they played: no run counted would play it, so whether it is
    used is unknown."""
    misdated: bool = False
    """Whether its age is unknown for a ``meta.recorded_at`` that is no time (a hand
    edit: ``2026-13-45``), not for the lack of one."""
    failed_tests: tuple[str, ...] = ()
    """The tests that played its store in a run counted and did not pass in it: it is
    kept, whether they reached it or not."""
    new: bool = False
    """Whether it was recorded (its oldest answer) after the newest run counted that would
    play its store started, and none played it: no run counted could (a fixture of
    ``replaygate record``, of a run still going, or pulled from a teammate since). One
    dated in the future is not: its date tells nothing (:attr:`future`)."""
    judged_ahead: bool = False
    """Whether the newest run counted that would play its store is dated after the
    patrol's now (logged by a clock that was ahead, or after such a run): whether it was
    recorded after that run, and so :attr:`new`, cannot be told."""
    stamp: str = ""
    """:func:`content_stamp` of the fixture as it was judged: ``prune`` deletes it only
    while it is still so, never once a recording changed it (a re-record, a sample)."""

    @property
    def where(self) -> str:
        """``file:line`` (the file alone for a one-fixture ``.json`` file)."""
        name = shown(self.file)
        return name if self.file.suffix == ".json" else f"{name}:{self.line}"

    @property
    def unused(self) -> bool:
        """Neither played in the considered runs nor referenced, nor in the store of a test
        that did not pass in them, nor recorded since they started (:attr:`new`)."""
        return self.plays == 0 and not self.refs and not self.failed_tests and not self.new

    @property
    def held_by_failure(self) -> bool:
        """Kept only for a test of its store that did not pass: else unused."""
        return self.plays == 0 and not self.refs and bool(self.failed_tests)

    def to_json(self) -> dict[str, Any]:
        """The JSON form."""
        return {
            "fixture": self.where,
            "key": self.key,
            "recorded_at": self.recorded_at.isoformat() if self.recorded_at else None,
            "age_days": self.age.days if self.age is not None else None,
            "stale": self.stale,
            "future": self.future,
            "plays": self.plays,
            "tests": list(self.tests),
            "last_played": self.last_played,
            "refs": list(self.refs),
            "failed_tests": list(self.failed_tests),
            "new": self.new,
            "unused": self.unused if self.use_known else None,
        }


def limit_text(limit: timedelta) -> str:
    """A maximum age in whole days (``90d``, ``12w`` as ``84d``), or in hours when it is
    not whole days (``36h``, which an age of 36 hours shows as ``1d``)."""
    if limit.seconds or limit.microseconds:
        return f"{int(limit.total_seconds() // 3600)}h"
    return f"{limit.days}d"


@dataclass(frozen=True)
class Patrol:
    """The patrol of one store."""

    path: Path
    rows: tuple[PatrolRow, ...]
    max_age: timedelta | None
    runs: tuple[str, ...]
    recorded_runs: int
    runs_asked: int
    refs: tuple[Path, ...]
    hits_dir: Path
    now: datetime
    unread: tuple[tuple[Path, str], ...] = ()
    """Files under ``refs`` that could not be read, each with why: a reference in one
    would not be seen."""
    test_sessions: int = 0
    """How many of ``runs`` are test sessions (the others are eval runs)."""
    unplayed_eval_stores: tuple[tuple[Path, str], ...] = ()
    """The project's eval stores, each with where it is named, whose fixtures are of
    unknown use as no eval run counted played them (:func:`with_eval_stores`)."""
    missing_refs: Path | None = None
    """The default reference folder (the project's ``tests``), when it is not there and no
    ``--refs`` was given: no reference was searched."""
    max_age_written: str | None = None
    """``max_age`` as the user wrote it (``12w``), which the patrol shows; None: shown
    from ``max_age`` (:func:`limit_text`)."""

    @property
    def max_age_shown(self) -> str | None:
        """``max_age`` as written, else in days or hours; None when there is none."""
        if self.max_age is None:
            return None
        return self.max_age_written or limit_text(self.max_age)

    @property
    def stale(self) -> list[PatrolRow]:
        """Fixtures older than the maximum age."""
        return [r for r in self.rows if r.stale]

    @property
    def future(self) -> list[PatrolRow]:
        """Fixtures whose ``meta.recorded_at`` lies after the patrol's ``now``."""
        return [r for r in self.rows if r.future]

    @property
    def unknown_age(self) -> list[PatrolRow]:
        """Fixtures without a readable ``meta.recorded_at``."""
        return [r for r in self.rows if r.recorded_at is None]

    @property
    def unplayed(self) -> list[PatrolRow]:
        """Fixtures no considered run played, of those whose use is known, but those
        recorded since (:attr:`new`)."""
        return [r for r in self.rows if r.plays == 0 and r.use_known and not r.new]

    @property
    def new(self) -> list[PatrolRow]:
        """Fixtures recorded after the newest run counted that would play them started."""
        return [r for r in self.rows if r.new]

    @property
    def unused(self) -> list[PatrolRow]:
        """Fixtures neither played nor referenced, of those whose use is known."""
        return [r for r in self.rows if r.unused and r.use_known]

    @property
    def held_by_failures(self) -> list[PatrolRow]:
        """Fixtures kept only as a test of their store did not pass in the runs counted."""
        return [r for r in self.rows if r.held_by_failure and r.use_known]

    @property
    def failed_tests(self) -> list[str]:
        """The tests that did not pass of the fixtures :attr:`held_by_failures` keeps."""
        return sorted({t for r in self.held_by_failures for t in r.failed_tests})

    @property
    def use_unknown(self) -> list[PatrolRow]:
        """Fixtures whose use no run counted tells (:attr:`PatrolRow.use_known`)."""
        return [r for r in self.rows if not r.use_known]

    def to_json(self) -> dict[str, Any]:
        """The JSON form."""
        return {
            "path": shown(self.path),
            "now": self.now.isoformat(),
            "max_age": self.max_age_shown,
            "max_age_days": self.max_age.total_seconds() / 86400 if self.max_age else None,
            "runs": list(self.runs),
            "recorded_runs": self.recorded_runs,
            "refs": [shown(p) for p in self.refs],
            "missing_refs": shown(self.missing_refs) if self.missing_refs else None,
            "unread_refs": [{"file": shown(p), "why": why} for p, why in self.unread],
            "hits_dir": shown(self.hits_dir),
            "fixtures": [r.to_json() for r in self.rows],
            "summary": {
                "fixtures": len(self.rows),
                "stale": len(self.stale),
                "future": len(self.future),
                "unknown_age": len(self.unknown_age),
                "unplayed": len(self.unplayed),
                "new": len(self.new),
                "unused": len(self.unused),
                "held_by_failed_tests": len(self.held_by_failures),
                "use_unknown": len(self.use_unknown),
            },
        }


def _sort_key(row: PatrolRow) -> tuple[int, datetime, str, int]:
    when = row.recorded_at or datetime.max.replace(tzinfo=UTC)
    return (row.recorded_at is None, when, str(row.file), row.line)


def _oldest(metas: Sequence[Any]) -> datetime | None:
    """When the oldest answer of a fixture was recorded: the earliest ``recorded_at`` of
    the lines that store its answers; None when none has one, or when one holds a
    ``recorded_at`` that is no time (that answer may be the oldest: its age is unknown,
    never the age of a sample added since)."""
    times = [recorded_at(meta) for meta in metas]
    if any(t is None and (m or {}).get("recorded_at") for t, m in zip(times, metas, strict=True)):
        return None
    return min(filter(None, times), default=None)


def _refs_problem(folder: Path) -> str | None:
    """Why ``folder``, named by ``--refs``, is no folder to search, or None: not there,
    or what is there instead (a file, a device, a FIFO, a symlink to nothing or a loop),
    worded as the readers of a store word it (:func:`~replaygate.regular.unreadable`)."""
    try:
        mode = folder.stat().st_mode
    except OSError as err:
        if isinstance(err, FileNotFoundError) and not folder.is_symlink():
            return "no such directory"
        return unreadable(folder, err, "folder")
    if stat.S_ISDIR(mode):
        return None
    kind = "a file" if stat.S_ISREG(mode) else file_kind(mode)
    return f"is {kind}, where a folder is expected"


def patrol(
    path: Path,
    *,
    max_age: timedelta | None = None,
    max_age_written: str | None = None,
    runs: int,
    refs: Sequence[Path],
    hits_dir: Path,
    now: datetime | None = None,
    missing_refs: Path | None = None,
    root: Path | None = None,
) -> Patrol:
    """Age, use and references of every fixture of the store at ``path``.

    ``max_age`` None flags nothing stale, ``max_age_written`` is how it was written;
    ``runs`` is how many of the last recorded
    runs count; ``missing_refs`` is the default reference folder when it is not there
    (``refs`` is then empty: no reference is searched); ``root`` is the project folder the
    log's store paths are relative to (None: :func:`~replaygate.hygiene.usage.project_root`
    of ``hits_dir``); ``now`` is for tests.
    """
    for folder in refs:
        problem = _refs_problem(folder)
        if problem is not None:
            raise HygieneError(f"--refs {folder}: {problem}")
    moment = now or wall_now()
    seen = [(loc, f.key, metas, content_stamp(f)) for loc, f, metas in each_fixture_metas(path)]
    usage = read_usage(hits_dir, runs, root)
    own = {resolved(f) for f in store_files(path)}
    files = {loc.file for loc, _, _, _ in seen}
    keys = {key[:12] for _, key, _, _ in seen}
    played = {loc.file for loc, key, _, _ in seen if usage.of(loc.file, key)}
    stores = {f: store_of(f).name for f in files if f.suffix == ".json"}
    references = find_references(
        refs, {f.name for f in files}, keys, own, tests=files, stores=stores
    )
    rows = []
    for loc, key, metas, stamp in seen:
        when = _oldest(metas)
        age = moment - when if when is not None else None
        plays = usage.of(loc.file, key)
        since = usage.judged_from(loc.file)
        # the store of a test that ran keeps only what it played; of one not run, everything
        by_test = bool(plays) or loc.file not in played
        in_eval_store = usage.in_eval_store(loc.file)
        rows.append(
            PatrolRow(
                file=loc.file,
                line=loc.line,
                key=key,
                recorded_at=when,
                age=age,
                stale=age is not None and max_age is not None and age > max_age,
                future=age is not None and age < timedelta(0),
                plays=len(plays),
                tests=tuple(sorted({p.test for p in plays if p.test})),
                last_played=max((p.time for p in plays), default=None),
                refs=tuple(sorted(shown(p) for p in references.of(loc.file, key[:12], by_test))),
                eval_store=in_eval_store,
                use_known=in_eval_store or bool(usage.test_sessions),
                misdated=when is None and any((m or {}).get("recorded_at") for m in metas),
                failed_tests=usage.failed_tests(loc.file),
                new=not plays and when is not None and since is not None and since < when <= moment,
                judged_ahead=since is not None and since > moment,
                stamp=stamp,
            )
        )
    rows.sort(key=_sort_key)
    return Patrol(
        path=path,
        rows=tuple(rows),
        max_age=max_age,
        runs=usage.runs,
        recorded_runs=usage.recorded_runs,
        runs_asked=runs,
        refs=tuple(refs),
        hits_dir=hits_dir,
        now=moment,
        unread=tuple(references.unread),
        test_sessions=usage.test_sessions,
        missing_refs=missing_refs,
        max_age_written=max_age_written,
    )


def content_stamp(fixture: Fixture) -> str:
    """A digest of what ``fixture`` (its sample lines applied) answers and its ``meta``:
    another after a re-record or a sample added, the same after ``compact`` folds it."""
    data = orjson.dumps([fixture.responses, fixture.meta])
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def with_eval_stores(result: Patrol, stores: Sequence[tuple[Path, str]]) -> Patrol:
    """``result`` with the fixtures of ``stores`` (the project's eval stores, each with
    where it is named) that no run counted played of unknown use, in a store no eval run
    counted played, while the runs counted hold test sessions: a test session seldom
    plays an eval's store, so its fixtures are not unused for that."""
    if not result.test_sessions:  # then every store no eval run played is of unknown use
        return result
    real = [(resolved(store), store, named) for store, named in stores]
    rows = []
    unplayed: dict[Path, tuple[Path, str]] = {}
    for row in result.rows:
        target = resolved(row.file)
        found = next(((r, s, n) for r, s, n in real if within(target, r)), None)
        if found is not None and not row.plays and not row.eval_store:  # played: used
            unplayed.setdefault(found[0], (found[1], found[2]))
            row = replace(row, use_known=False)
        rows.append(row)
    return replace(result, rows=tuple(rows), unplayed_eval_stores=tuple(unplayed.values()))
