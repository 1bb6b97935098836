"""Which fixtures the last N recorded runs played, from the hits log: the last N test
sessions and the last N runs of ``replaygate eval``, each counted apart (a store only
the eval plays is not left unplayed by the test sessions run since, nor the other way);
and the stores played by a test that did not pass in a test session counted (what it
never reached is no evidence of anything unused)."""

from __future__ import annotations

import os
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from replaygate.fixtures.fingerprint import KEY_LENGTH
from replaygate.fixtures.hits import (
    DEFAULT_DIR,
    EVAL,
    TESTS,
    StoreInHitsLogError,
    first_hits,
    hits_folder_problem,
    read_hits,
    read_outcomes,
    run_started,
)
from replaygate.fixtures.store.files import resolved
from replaygate.hygiene.errors import HygieneError


@dataclass(frozen=True)
class Play:
    """A fixture played in one of the considered runs."""

    store: Path
    test: str | None
    time: str


@dataclass
class FixtureUsage:
    """The plays of the runs counted (oldest first), by fixture key."""

    runs: tuple[str, ...] = ()
    recorded_runs: int = 0
    plays: dict[str, list[Play]] = field(default_factory=lambda: defaultdict(list))
    test_sessions: int = 0
    """How many of ``runs`` are test sessions (the others are eval runs)."""
    eval_stores: set[Path] = field(default_factory=set)
    """The stores (resolved) the eval runs counted played: judged by eval runs, not by
    test sessions."""
    unpassed: dict[Path, set[str]] = field(default_factory=lambda: defaultdict(set))
    """The stores (resolved) played by a test that did not pass in the run it played them
    in (failed, errored, skipped as it ran, interrupted), with those tests, of the test
    sessions counted that noted their tests' outcomes."""
    started: dict[str, datetime] = field(default_factory=dict)
    """When the newest run counted of each runner (:data:`TESTS`, ``eval``) started, as its
    id says (none for a runner whose ids name no time)."""
    _resolved: dict[Path, Path] = field(default_factory=dict, repr=False, compare=False)

    def of(self, file: Path, key: str) -> list[Play]:
        """The plays of fixture ``key`` stored in ``file`` (a store file or inside a folder)."""
        plays = self.plays.get(key[:KEY_LENGTH], ())
        if not plays:
            return []
        target = self._real(file)
        return [p for p in plays if within(target, p.store)]

    def failed_tests(self, file: Path) -> tuple[str, ...]:
        """The tests that played the store holding ``file`` in a run counted and did not
        pass in it (:attr:`unpassed`)."""
        if not self.unpassed:
            return ()
        target = self._real(file)
        found = {
            t for store, tests in self.unpassed.items() if within(target, store) for t in tests
        }
        return tuple(sorted(found))

    def in_eval_store(self, file: Path) -> bool:
        """Whether ``file`` is, or lies in, a store an eval run counted played."""
        if not self.eval_stores:
            return False
        target = self._real(file)
        return any(within(target, store) for store in self.eval_stores)

    def judged_from(self, file: Path) -> datetime | None:
        """When the newest run counted that would play ``file`` started: an eval run for a
        store an eval run counted played, else a test session (None: none, or no time told).
        A fixture recorded after it was in no run counted, whatever it played."""
        return self.started.get(EVAL if self.in_eval_store(file) else TESTS)

    def _real(self, file: Path) -> Path:
        """``file`` resolved, once per store file, not once per fixture."""
        target = self._resolved.get(file)
        if target is None:
            target = self._resolved[file] = resolved(file)
        return target


def within(file: Path, store: Path) -> bool:
    """Whether ``file`` is ``store`` (a ``.jsonl`` file) or lies in it (a folder store),
    both resolved."""
    return store == file or store in file.parents


PROJECT_FILES = ("pyproject.toml", "pytest.ini", ".pytest.ini", "tox.ini", "setup.cfg", "setup.py")
"""The files that make a folder a project's, where pytest run in it takes its rootdir (and
the pytest plugin writes the hits log: ``<rootdir>/.replaygate/hits``)."""
_INSTALLED = frozenset({"site-packages", "dist-packages"})


def project_folder(store: Path) -> Path:
    """The folder of the project that owns ``store``: the nearest at or above it holding
    one of :data:`PROJECT_FILES` or a ``.git`` (the repository's top), whatever folder the
    command runs from; the current folder when there is none (the walk stops at an
    installed-packages folder, as :func:`~replaygate.config.find_pyproject` does). The
    store is taken as it is named (a symlinked folder is the project's that names it)."""
    folder = Path(os.path.abspath(store))
    for candidate in (folder, *folder.parents):
        if any(os.path.lexists(candidate / name) for name in (*PROJECT_FILES, ".git")):
            return candidate
        if candidate.name in _INSTALLED:
            break
    return Path.cwd()


def project_root(hits_dir: Path) -> Path:
    """The directory relative store paths in the log are relative to.

    ``<root>/.replaygate/hits`` gives ``<root>``; any other directory, the current one.
    """
    hits = resolved(hits_dir)
    if hits.parent.name == DEFAULT_DIR.parent.name:
        return hits.parent.parent
    return Path.cwd()


DAMAGED_HITS_FIX = (
    ": mend that line, or delete the file (it holds the plays of one process of one run; "
    "the runs after it log theirs anew, and once it is gone the plays it held are not "
    "counted: run the test suite before pruning)"
)
"""What to do with a hits log file that does not read: it is the log's, not the project's."""


def read_usage(hits_dir: Path, last: int, root: Path | None = None) -> FixtureUsage:
    """The plays of the last ``last`` runs of each runner (test sessions, ``eval``)
    logged under ``hits_dir`` (runs sort by time), whose store paths are relative to the
    project folder ``root`` (None: :func:`project_root` of ``hits_dir``)."""
    if last < 1:
        raise HygieneError(f"--runs must be at least 1, got {last}")
    problem = hits_folder_problem(hits_dir)
    if problem is not None:
        raise HygieneError(f"--hits-dir {problem}")
    root = root if root is not None else project_root(hits_dir)
    by_runner: dict[str, set[str]] = defaultdict(set)
    try:
        firsts = first_hits(hits_dir)  # the runs: those not counted are not parsed
        for first in firsts.values():
            by_runner[first.runner].add(first.run)
        newest = {runner: sorted(runs)[-last:] for runner, runs in by_runner.items()}
        kept = {run for runs in newest.values() for run in runs}
        hits = list(read_hits(hits_dir, [f for f, first in firsts.items() if first.run in kept]))
        outcomes = read_outcomes(hits_dir)
    except StoreInHitsLogError as err:  # its file is a store: never to be deleted
        raise HygieneError(str(err)) from None
    except ValueError as err:
        raise HygieneError(f"damaged hits log: {err}{DAMAGED_HITS_FIX}") from None
    usage = FixtureUsage(tuple(sorted(kept)), len({first.run for first in firsts.values()}))
    usage.test_sessions = len(newest.get(TESTS, ()))
    for runner, runs in newest.items():
        times = [t for run in runs if (t := run_started(run)) is not None]
        if times:
            usage.started[runner] = max(times)
    stores: dict[str, Path] = {}
    for hit in hits:
        if hit.run not in kept:
            continue
        store = stores.get(hit.store)
        if store is None:
            store = stores[hit.store] = resolved(root / hit.store)
        usage.plays[hit.key[:KEY_LENGTH]].append(Play(store, hit.test, hit.time))
        if hit.runner != TESTS:
            usage.eval_stores.add(store)
        elif hit.test is not None and not _passed(outcomes, hit.run, hit.test):
            usage.unpassed[store].add(hit.test)
    return usage


def _passed(outcomes: dict[str, dict[str, bool]], run: str, test: str) -> bool:
    """Whether ``test`` passed in ``run``, as far as the run says: a run that noted no
    outcome (logged before they were) says nothing against it; in one that did, a test
    noted as passed only did (one it never noted started and never ended)."""
    noted = outcomes.get(run)
    return noted is None or noted.get(test, False)
