"""Shared test setup: pytester (for the pytest plugin's tests) and Hypothesis profiles.

Every property test runs in every profile; the profile sets how many examples each
one draws (a test's own ``@settings`` keep their other options), with no per-example
deadline (the machine running the suite is often shared; a slow example is not a
failure of what the test asserts):

- ``quick`` (the default, ``make test``): 25 examples;
- ``inner-loop`` (``make test-fast``): 5 examples, each property still tried on every
  run of the inner loop, at 25 in the whole suite;
- ``thorough`` (``make test-thorough``, or ``--hypothesis-profile=thorough``):
  500 examples, for a scheduled run or a change to the parsers, the canonical form
  or the secret scanner.

``HYPOTHESIS_PROFILE=thorough`` selects a profile from the environment too.

Temporary files (``tmp_path``, ``tempfile``, and those of the processes the tests
start) go to ``/dev/shm`` where it is a tmpfs with room to spare and ``TMPDIR`` is not
set: the stores fsync every line they append, and each run writes and later removes
thousands of files, which on a disk costs seconds of waiting and nothing in memory.

Under ``-m "not slow"`` (``make test-fast``) a module marked slow as a whole is not
collected at all: none of its tests would run, and importing some of them (the Gemini
SDK, matplotlib, the pytest plugins' projects) costs each worker seconds.
"""

from __future__ import annotations

import ast
import gc
import os
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

from sdks import SDK_GROUP

pytest_plugins = ("pytester", "shared_tls")  # shared_tls: one TLS context for all clients
# pytest-recording is not loaded here (pyproject.toml's addopts), but the projects the
# tests run in process load it, and it asks for vcr.matchers' asserts to be rewritten:
# asked here too, before any test imports vcr, so that they need not warn that it was
# imported without.
pytest.register_assert_rewrite("vcr.matchers")

settings.register_profile("quick", max_examples=25, deadline=None)
settings.register_profile("inner-loop", max_examples=5, deadline=None)
settings.register_profile("thorough", max_examples=500, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "quick"))


def marked_slow_as_a_whole(source: str) -> bool:
    """Whether a module's own ``pytestmark`` (one mark or a list) includes ``slow``."""
    if "pytestmark" not in source or "mark.slow" not in source:
        return False
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "pytestmark" for target in node.targets
        ):
            marks = node.value.elts if isinstance(node.value, ast.List) else [node.value]
            return any(ast.unparse(mark) == "pytest.mark.slow" for mark in marks)
    return False


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    if config.option.markexpr.strip() != "not slow" or collection_path.suffix != ".py":
        return None
    if not collection_path.name.startswith("test_"):
        return None
    return True if marked_slow_as_a_whole(collection_path.read_text(encoding="utf-8")) else None


MEMORY = Path("/dev/shm")
ROOM = 2 << 30
"""The free bytes a tmpfs needs to hold the suite's temporary files (a few hundred MB)."""


def scratch_in_memory() -> None:
    """Temporary files on :data:`MEMORY` when it is a tmpfs with :data:`ROOM` free and no
    ``TMPDIR`` is set (the processes the tests start inherit it)."""
    if "TMPDIR" in os.environ or not os.access(MEMORY, os.W_OK | os.X_OK):
        return
    stats = os.statvfs(MEMORY)
    if stats.f_bavail * stats.f_frsize >= ROOM:
        os.environ["TMPDIR"] = str(MEMORY)
        tempfile.tempdir = None  # read TMPDIR again


def pytest_configure(config: pytest.Config) -> None:
    """Temporary files in memory where there is room (:func:`scratch_in_memory`), and no
    garbage collection while a process collects (see ``pytest_collection_finish``).

    An xdist controller collects nothing (it never reaches that hook), so it keeps its
    collector.
    """
    scratch_in_memory()
    if os.environ.get("PYTEST_XDIST_WORKER") or not getattr(config.option, "numprocesses", 0):
        gc.disable()


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection made live until the session ends (the modules, the SDKs' model
    classes, the items): frozen out of the collector's reach.

    Collection makes those few hundred thousand objects and little garbage: collecting
    while the SDKs' model classes are built only walked them again and again (about
    0.5 s of CPU per process), and every full collection after it would walk them once
    more (about 1 s per xdist worker in ``make test-fast``). Garbage is collected first
    (none is frozen, so any finalizer still runs).

    The objects the tests make are collected as before, less often (:data:`GC_THRESHOLDS`):
    with Python's default thresholds a worker of ``make test-fast`` ran about a thousand
    collections, walking the same surviving objects (the SDKs a test imports, module
    fixtures) again and again, for about 0.9 s of a 14 s run of eight modules; 0.4 s
    with these. A test that needs garbage collected (the leak checks) collects it itself.
    """
    gc.enable()
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


GC_THRESHOLDS = (20_000, 20, 20)
"""Allocations before a young collection (Python's default: 700), and young collections
before an older one (default: 10 each)."""


SDKS_THROUGH_REPLAYGATE = "# Its tests import the provider SDKs through replaygate"
"""The line of a test module whose tests import an SDK through replaygate itself (the
example agent recording from the simulator), not from :mod:`sdks`."""


def uses_sdks(path: Path) -> bool:
    """Whether a test module takes a provider SDK (or vcrpy) from :mod:`sdks`, or says
    that its tests import one through replaygate (:data:`SDKS_THROUGH_REPLAYGATE`).

    One that takes only aiohttp (0.2 s to import) is left free to run in either worker,
    as the other modules are: the worker of the SDK modules has the most to do."""
    source = path.read_text(encoding="utf-8")
    if SDKS_THROUGH_REPLAYGATE in source:
        return True
    found = re.search(r"^from sdks import (.+)$", source, re.M)
    return found is not None and {n.strip() for n in found.group(1).split(",")} != {"aiohttp"}


PLOTS_GROUP = "plots"
"""The xdist work unit of the test modules that draw the report's plots
(``extras.needs_matplotlib``): importing matplotlib costs a process about 0.7 s of CPU."""


def work_group(path: Path) -> str | None:
    """The xdist work unit a test module shares with others (:data:`sdks.SDK_GROUP`,
    :data:`PLOTS_GROUP`), if any."""
    if uses_sdks(path):
        return SDK_GROUP
    return PLOTS_GROUP if "needs_matplotlib" in path.read_text(encoding="utf-8") else None


SECONDS = "replaygate-tests/seconds-per-module"
"""Where pytest's cache (``.pytest_cache``) keeps what each module's tests took in the
last runs, per suite (:func:`suite_name`): the order in which the workers get them."""


def suite_name(config: pytest.Config) -> str | None:
    """``all`` for ``make test``, ``not-slow`` for ``make test-fast``; None for a run of
    other marks, or of chosen paths or tests."""
    if config.args_source != pytest.Config.ArgsSource.TESTPATHS or config.option.keyword:
        return None
    return {"": "all", "not slow": "not-slow"}.get(config.option.markexpr.strip())


class ModuleSeconds:
    """The xdist controller's plugin that adds up the seconds each module's tests took
    (setup, call and teardown, as the workers timed them) and keeps them in the cache
    with the module's number of tests, beside those of the modules this run did not run."""

    def __init__(self, config: pytest.Config, suite: str) -> None:
        self.config, self.key = config, f"{SECONDS}/{suite}"
        self.seconds: dict[str, float] = {}
        self.tests: dict[str, int] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        module = report.nodeid.split("::")[0]
        self.seconds[module] = self.seconds.get(module, 0.0) + report.duration
        self.tests[module] = self.tests.get(module, 0) + (report.when == "setup")

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        cache = getattr(self.config, "cache", None)  # None under -p no:cacheprovider
        if cache is None or exitstatus not in (0, 1) or not self.seconds:
            return  # an interrupted run's figures would be partial
        kept = cache.get(self.key, {})
        for module, seconds in self.seconds.items():
            kept[module] = [round(seconds, 3), self.tests.get(module, 0)]
        cache.set(self.key, kept)


def module_seconds(config: pytest.Config) -> dict[str, tuple[float, int]]:
    """What the cache holds of :class:`ModuleSeconds` for this suite (nothing on a clone):
    the seconds and the number of tests of each module."""
    suite = suite_name(config)
    cache = getattr(config, "cache", None)
    kept = cache.get(f"{SECONDS}/{suite}", {}) if suite and cache is not None else {}
    if not isinstance(kept, dict):
        return {}
    return {
        str(module): (float(value[0]), int(value[1]))
        for module, value in kept.items()
        if isinstance(value, list) and len(value) == 2
    }


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """Under ``--dist loadfile`` each module's tests run in one worker (its shared
    recordings and simulators are made once), the modules using the provider SDKs all in
    the same one: the only worker to import them (seconds of CPU, see :mod:`sdks`), and
    those drawing plots in the same one (:data:`PLOTS_GROUP`).

    The costliest work unit left goes to the next worker that asks, by the seconds its
    modules took in the last run of the same suite (:class:`ModuleSeconds`); a module
    not timed yet counts its tests at the mean seconds per test of those timed. The
    modules that take seconds with few tests (a nested xdist session, a browser) then
    start early instead of last, when one worker would run them while the other waits.
    Without any figure (a fresh clone) the units go by their number of tests, as
    pytest-xdist hands them out.
    """
    if config.getvalue("dist") != "loadfile":
        return None
    from collections import OrderedDict

    from xdist.scheduler import LoadFileScheduling

    root = config.rootpath
    known: dict[str, str] = {}
    seconds = module_seconds(config)
    suite = suite_name(config)
    if suite is not None:
        config.pluginmanager.register(ModuleSeconds(config, suite), "replaygate-module-seconds")

    timed_tests = sum(tests for _, tests in seconds.values())
    per_test = sum(spent for spent, _ in seconds.values()) / max(timed_tests, 1)

    def cost(scope: str, tests: dict[str, bool]) -> float:
        """The seconds a work unit is expected to take (its number of tests, untimed)."""
        if not seconds:
            return len(tests)
        modules = [path for path, unit in known.items() if unit == scope]
        untimed = sum(1 for test in tests if test.split("::")[0] not in seconds)
        return sum(seconds[path][0] for path in modules if path in seconds) + untimed * per_test

    class CostliestFirst(OrderedDict[str, dict[str, bool]]):
        """pytest-xdist's queue of work units, giving out the costliest first."""

        def popitem(self, last: bool = True) -> tuple[str, dict[str, bool]]:
            if last:
                return super().popitem(last)
            scope = max(self, key=lambda scope: cost(scope, self[scope]))
            return scope, self.pop(scope)

    class SdkModulesTogether(LoadFileScheduling):
        def __init__(self, config: pytest.Config, log: object) -> None:
            super().__init__(config, log)
            self.workqueue = CostliestFirst()

        def _split_scope(self, nodeid: str) -> str:
            path = super()._split_scope(nodeid)
            if path not in known:
                known[path] = work_group(root / path) or path
            return known[path]

    return SdkModulesTogether(config, log)


REPLAYGATE_PLUGINS = ("replaygate.pytest_plugin.recording", "replaygate.pytest_plugin.sampling")
"""replaygate's two pytest plugins, as its entry points name them (``-p`` module names)."""


@pytest.fixture
def pytester(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> pytest.Pytester:
    """``pytester`` whose sessions (in process, and the ``pytest`` processes a test starts)
    load replaygate's plugins and no other installed one.

    Each installed plugin a nested session loads (pytest-recording, xdist, hypothesis,
    rerunfailures, anyio, platformdirs) costs it tens of milliseconds: a quarter of the
    CPU of the modules that run pytest sessions of their own. A test marked
    ``autoload_plugins`` runs its sessions as a user's run is, with every installed
    plugin loaded through its entry point (replaygate's beside pytest-recording's, say).
    """
    if request.node.get_closest_marker("autoload_plugins") is None:
        monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
        loaded = " ".join(f"-p {plugin}" for plugin in REPLAYGATE_PLUGINS)
        monkeypatch.setenv("PYTEST_ADDOPTS", f"{os.environ.get('PYTEST_ADDOPTS', '')} {loaded}")
    return pytester
