"""The suite split into shares of test modules, one pytest process each (``--share I/N``).

``make test`` and ``make test-fast`` run ``tools/run_shares.py``: one pytest process per
core, each collecting and running only the modules of its share. Each module's tests
run in one process, so its shared recordings and simulators are made once. The modules
using the provider SDKs go in two units, each in one share, so that few processes
import them (seconds of CPU, see :mod:`sdks`): those taking only openai
(:data:`OPENAI_GROUP`) and the others (:data:`sdks.SDK_GROUP`), with which those drawing
plots go (:data:`PLOTTING`); the first joins the second where both fit in one share.

The shares are balanced by what each module took, its import and its tests, in the last
run of the same suite (:class:`ModuleSeconds`, kept in ``.pytest_cache``), or on a fresh
clone in a run of the whole suite shipped with it (:data:`SHIPPED`); a module not timed
yet counts its size at the mean seconds per byte of those timed.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import time
from collections.abc import Generator, Iterable
from pathlib import Path

import pytest
from filelock import FileLock

from sdks import SDK_GROUP

SDKS_THROUGH_REPLAYGATE = "# Its tests import the provider SDKs through replaygate"
"""The line of a test module whose tests import an SDK through replaygate itself (the
example agent recording from the simulator), not from :mod:`sdks`."""

OPENAI_GROUP = "openai"
"""The unit of the test modules taking only openai from :mod:`sdks` (see :func:`work_unit`)."""

PLOTTING = ("needs_matplotlib", "# Its tests draw the report's plots through replaygate")
"""What a test module drawing the report's plots holds: ``extras.needs_matplotlib``, or
the line saying that its tests draw them through replaygate (the report or the demo
command): it goes with the SDK group, whose modules run the demo, which draws them too,
so that one share imports matplotlib (about 0.4 s of CPU a process)."""

SECONDS = "replaygate-tests/seconds-per-module"
"""Where pytest's cache keeps what each module's tests took in the last runs, per suite
(:func:`suite_name`)."""


def share_option(text: str) -> tuple[int, int]:
    """``I/N`` (the I-th of N shares, from 0) as ``(I, N)``."""
    index, sep, count = text.partition("/")
    if sep and index.isdigit() and count.isdigit() and int(index) < int(count):
        return int(index), int(count)
    raise argparse.ArgumentTypeError(f"{text!r}: expected I/N with 0 <= I < N, e.g. 0/2")


def sdks_taken(source: str) -> frozenset[str]:
    """The SDKs a test module takes from :mod:`sdks`, with ``anthropic`` for one whose
    tests import it through replaygate (:data:`SDKS_THROUGH_REPLAYGATE`)."""
    found = re.search(r"^from sdks import (.+)$", source, re.M)
    taken = {name.strip() for name in found.group(1).split(",")} if found else set()
    if SDKS_THROUGH_REPLAYGATE in source:
        taken.add("anthropic")
    return frozenset(taken)


def work_unit(path: Path, source: str) -> str:
    """The unit a test module goes with into a share: :data:`OPENAI_GROUP` for one taking
    only openai (and aiohttp), :data:`sdks.SDK_GROUP` for one taking any other SDK (or
    vcrpy) or drawing plots (:data:`PLOTTING`), or the module alone.

    The SDK modules go in groups so that few processes pay for importing them; those
    taking only openai (0.8 s) make a unit of their own, so that the share of the others
    (anthropic: 2.8 s) is not the one every other share waits for. One taking only
    aiohttp (0.2 s) is left free to go in any share."""
    taken = sdks_taken(source) - {"aiohttp"}
    if any(line in source for line in PLOTTING):
        return SDK_GROUP
    if not taken:
        return str(path)
    return OPENAI_GROUP if taken == {"openai"} else SDK_GROUP


def suite_name(config: pytest.Config) -> str | None:
    """``all`` for ``make test``, ``not-slow`` for ``make test-fast``; None for a run of
    other marks, or of chosen paths or tests."""
    if config.args_source != pytest.Config.ArgsSource.TESTPATHS or config.option.keyword:
        return None
    return {"": "all", "not slow": "not-slow"}.get(config.option.markexpr.strip())


SCHEDSTAT = Path("/proc/thread-self/schedstat")
"""Linux's scheduler figures of the calling thread: nanoseconds on a CPU, then nanoseconds
waiting in a run queue for one (absent where the kernel keeps none)."""


@functools.cache
def _opened(path: Path) -> int | None:
    """A descriptor of ``path`` (:data:`SCHEDSTAT`: that of the thread opening it, the main
    thread, where pytest runs the tests), read again from its start at each call: opening
    the file for each read cost about 30 µs, four times a test. None where it cannot be
    opened."""
    try:
        return os.open(path, os.O_RDONLY)
    except OSError:
        return None


def run_queue_seconds() -> float:
    """The seconds the main thread has waited for a CPU while it could run, 0 where not
    told."""
    fd = _opened(SCHEDSTAT)
    try:
        return int(os.pread(fd, 256, 0).split()[1]) / 1e9 if fd is not None else 0.0
    except (OSError, IndexError, ValueError):
        return 0.0


class ModuleSeconds:
    """The plugin that adds up the seconds each module took, its import (collection) and
    its tests (setup, call and teardown), and keeps them in the cache beside those of the
    modules other shares ran. The import counts: the first module of a share to import a
    provider SDK pays seconds for it (anthropic about 1.5 s), which the share pays
    whatever its tests cost, and balanced by its tests alone the SDK group's share ended
    seconds after the other.

    A test's seconds leave out those its process waited for a CPU (:func:`run_queue_seconds`)
    while other processes of the machine ran: on a busy machine a test that computes took
    several times its seconds on a quiet one, and one that waits (a lock, a process) not,
    so that shares balanced by such figures were seconds apart on the next run."""

    def __init__(self, config: pytest.Config, suite: str) -> None:
        self.config, self.key = config, f"{SECONDS}/{suite}"
        self.seconds: dict[str, float] = {}
        self.collected: set[str] = set()
        self.imported: dict[str, float] = {}
        """The seconds each module's collection took, its import."""

    @pytest.hookimpl(wrapper=True)
    def pytest_make_collect_report(
        self, collector: pytest.Collector
    ) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
        """The seconds a module's collection takes, less those it waited for a CPU."""
        if not isinstance(collector, pytest.Module):
            return (yield)
        started, waited = time.perf_counter(), run_queue_seconds()
        try:
            return (yield)
        finally:
            spent = time.perf_counter() - started - (run_queue_seconds() - waited)
            self.imported[collector.nodeid] = max(spent, 0.0)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.nodeid.endswith(".py") and "::" not in report.nodeid:
            self.collected.add(report.nodeid)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """A module this process collects none of whose tests it runs counts its import
        alone (its tests all deselected, each marked slow, under ``-m "not slow"``): what
        its tests took in an earlier run was kept, and counted in its share for ever. A
        module with tests to run keeps its figure until they have run (a run stopped
        early by ``-x`` does not lower those it did not reach, nor does
        ``--collect-only``)."""
        selected = {item.nodeid.split("::")[0] for item in session.items}
        self.seconds.update(
            (module, self.imported.get(module, 0.0)) for module in self.collected - selected
        )

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        module = report.nodeid.split("::")[0]
        if module not in self.seconds:  # its first test: its import counts with it
            self.seconds[module] = self.imported.get(module, 0.0)
        self.seconds[module] += report.duration

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Generator[None, object, object]:
        """The test's seconds less those it waited for a CPU."""
        waited = run_queue_seconds()
        try:
            return (yield)
        finally:
            module = item.nodeid.split("::")[0]
            spent = self.seconds.get(module, 0.0) - (run_queue_seconds() - waited)
            self.seconds[module] = max(spent, 0.0)

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        cache = getattr(self.config, "cache", None)  # None under -p no:cacheprovider
        if cache is None or exitstatus not in (0, 1) or not self.seconds:
            return  # an interrupted run's figures would be partial
        with FileLock(cache.mkdir("replaygate-tests") / "seconds.lock"):  # the other shares
            kept = cache.get(self.key, {})
            kept = kept if isinstance(kept, dict) else {}
            kept.update((module, round(spent, 3)) for module, spent in self.seconds.items())
            cache.set(self.key, kept)


SHIPPED = Path(__file__).with_name("module_seconds.json")
"""What each module's tests took, per suite, as the cache of a run of the whole suite held
them (``.pytest_cache/v/replaygate-tests/seconds-per-module/<suite>``, copied here): a
fresh clone, which has no cache yet, balances its first run's shares by them instead of
by the modules' sizes (in CI, one share took 89 s and the other 74 s by size)."""


def module_seconds(config: pytest.Config) -> dict[str, float]:
    """What the cache holds of :class:`ModuleSeconds` for this suite, over what
    :data:`SHIPPED` holds (all there is on a fresh clone)."""
    suite = suite_name(config)
    if suite is None:
        return {}
    shipped = json.loads(SHIPPED.read_text(encoding="utf-8")).get(suite, {})
    cache = getattr(config, "cache", None)
    kept = cache.get(f"{SECONDS}/{suite}", {}) if cache is not None else {}
    seconds = _numbers(shipped)
    seconds.update(_numbers(kept))
    return seconds


def _numbers(kept: object) -> dict[str, float]:
    """The seconds of a stored ``{module: seconds}`` (nothing of another shape)."""
    if not isinstance(kept, dict):
        return {}
    return {str(module): float(spent) for module, spent in kept.items() if _number(spent)}


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def assign(
    root: Path, modules: Iterable[tuple[Path, str]], seconds: dict[str, float], count: int
) -> dict[Path, int]:
    """The share of each module (its path and source): the costliest unit first, each to
    the share with the least so far.

    The :data:`OPENAI_GROUP` joins the SDK group where the two together are no more than
    a share's part of the whole: the SDK group's modules import openai too, so the share
    holding both imports it once."""
    units: dict[str, list[Path]] = {}
    sizes: dict[Path, int] = {}
    for path, source in modules:
        units.setdefault(work_unit(path, source), []).append(path)
        sizes[path] = len(source)
    names = {path: str(path.relative_to(root)) for path in sizes}
    timed = {path: seconds[name] for path, name in names.items() if name in seconds}
    per_byte = sum(timed.values()) / max(sum(sizes[path] for path in timed), 1) if timed else 1.0

    def cost(unit: str) -> float:
        return sum(timed.get(path, sizes[path] * per_byte) for path in units[unit])

    whole = sum(cost(unit) for unit in units)
    if {SDK_GROUP, OPENAI_GROUP} <= units.keys() and (
        cost(SDK_GROUP) + cost(OPENAI_GROUP) <= whole / count
    ):
        units[SDK_GROUP] += units.pop(OPENAI_GROUP)

    loads = [0.0] * count
    shares: dict[Path, int] = {}
    for unit in sorted(units, key=lambda unit: (-cost(unit), unit)):
        least = loads.index(min(loads))
        loads[least] += cost(unit)
        shares.update((path, least) for path in units[unit])
    return shares
