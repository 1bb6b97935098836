"""Shared test setup: pytester (for the pytest plugin's tests) and Hypothesis profiles.

Every property test runs in every profile; the profile sets how many examples each
one draws (a test's own ``@settings`` keep their other options), with no per-example
deadline (the machine running the suite is often shared; a slow example is not a
failure of what the test asserts):

- ``quick`` (the default, ``make test``): 20 examples;
- ``inner-loop`` (``make test-fast``): 5 examples, each property still tried on every
  run of the inner loop, at 20 in the whole suite;
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
import functools
import gc
import importlib
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from forked_cli import ASCII_LOCALE, ASCII_PRELOAD, CLI_PRELOAD, Forker
from shares import ModuleSeconds, assign, module_seconds, share_option, suite_name

pytest_plugins = ("pytester", "shared_tls")  # shared_tls: one TLS context for all clients
# pytest-recording is not loaded here (pyproject.toml's addopts), but the projects the
# tests run in process load it, and it asks for vcr.matchers' asserts to be rewritten:
# asked here too, before any test imports vcr, so that they need not warn that it was
# imported without.
pytest.register_assert_rewrite("vcr.matchers")

# The suite runs as on a developer's machine wherever it runs: replaygate words some
# output for CI (``CI`` set: no progress bar, a rerun command naming the tests), and the
# tests of that set it themselves.
os.environ.pop("CI", None)

settings.register_profile("quick", max_examples=20, deadline=None)
settings.register_profile("inner-loop", max_examples=5, deadline=None)
settings.register_profile("thorough", max_examples=500, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "quick"))


@functools.cache
def marked_slow_as_a_whole(source: str) -> bool:
    """Whether a module's own ``pytestmark`` (one mark or a list) includes ``slow``
    (parsed once per source: the selection and its own test both ask)."""
    if "pytestmark" not in source or "mark.slow" not in source:
        return False
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "pytestmark" for target in node.targets
        ):
            marks = node.value.elts if isinstance(node.value, ast.List) else [node.value]
            return any(ast.unparse(mark) == "pytest.mark.slow" for mark in marks)
    return False


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--share",
        metavar="I/N",
        type=share_option,
        help="run only the modules of the I-th of N shares of the suite, from 0 "
        "(tools/run_shares.py runs one process per share: tests/shares.py)",
    )


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    if collection_path.suffix != ".py" or not collection_path.name.startswith("test_"):
        return None
    if not_this_run(config).get(collection_path.resolve(), False):
        return True
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A module named on the command line is collected whatever its share: its tests
    run in its own share only."""
    if config.getoption("share") is None:
        return
    left = not_this_run(config)
    dropped = [item for item in items if left.get(item.path.resolve(), False)]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        gone = set(dropped)
        items[:] = [item for item in items if item not in gone]


def not_this_run(config: pytest.Config) -> dict[Path, bool]:
    """Each test module under ``tests/``, and whether this run leaves it uncollected:
    marked slow as a whole under ``-m "not slow"``, or in another share than this
    process's (``--share``). Worked out once per run."""
    known: dict[Path, bool] | None = getattr(config, "_replaygate_not_this_run", None)
    if known is not None:
        return known
    fast = config.option.markexpr.strip() == "not slow"
    share = config.getoption("share")
    if not fast and share is None:
        config._replaygate_not_this_run = {}  # type: ignore[attr-defined]
        return {}
    every = [(path, path.read_text(encoding="utf-8")) for path in sorted(TESTS.rglob("test_*.py"))]
    modules = [(path, text) for path, text in every if not (fast and marked_slow_as_a_whole(text))]
    known = {path: True for path, _ in every}
    if share is None:
        known.update((path, False) for path, _ in modules)
    else:
        index, count = share
        shares = assign(config.rootpath, modules, module_seconds(config), count)
        known.update((path, shares[path] != index) for path, _ in modules)
    config._replaygate_not_this_run = known  # type: ignore[attr-defined]
    return known


TESTS = Path(__file__).resolve().parent


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


WIDTH = "80"
"""The terminal width every test sees, whatever the terminal running the suite: pytest
and rich cut and wrap lines to ``COLUMNS``, and the nested sessions' output that the
tests match would otherwise change with the width of the terminal or CI runner."""


def pytest_configure(config: pytest.Config) -> None:
    """A fixed terminal width (:data:`WIDTH`), temporary files in memory where there is
    room (:func:`scratch_in_memory`), no
    garbage collection while a process collects (see ``pytest_collection_finish``), and
    the seconds each module took kept for the next run's shares (:mod:`shares`).

    An xdist controller collects nothing (it never reaches that hook), so it keeps its
    collector.
    """
    os.environ["COLUMNS"] = WIDTH
    scratch_in_memory()
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker or not getattr(config.option, "numprocesses", 0):
        gc.disable()
    suite = suite_name(config)
    if suite is not None and not worker:
        config.pluginmanager.register(ModuleSeconds(config, suite), "replaygate-module-seconds")


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


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """Everything live as the session ends frozen out of the collector's reach: as the
    interpreter exits, its last collections walked every object of the SDKs and modules
    the tests loaded (about 0.8 s of a process that imported them). The garbage is
    collected by then: pytest's unraisable-exception plugin collects it as the session
    ends, to report what its finalizers raised."""
    gc.freeze()


GC_THRESHOLDS = (20_000, 20, 20)
"""Allocations before a young collection (Python's default: 700), and young collections
before an older one (default: 10 each)."""


REPLAYGATE_PLUGINS = "replaygate.pytest_plugin.recording,replaygate.pytest_plugin.sampling"
"""replaygate's two pytest plugins, the modules its entry points name, as ``PYTEST_PLUGINS``
lists them."""


def with_replaygate_plugins(
    inline_run: Callable[..., pytest.HookRecorder],
) -> Callable[..., pytest.HookRecorder]:
    """``inline_run`` handing a session replaygate's plugin modules already imported, while
    ``PYTEST_PLUGINS`` names them: registered before the session reads ``PYTEST_PLUGINS``,
    they are not looked for again among every installed package's entry points, which
    pytest does for each name it is given (about 7 ms a session)."""

    @functools.wraps(inline_run)
    def run(
        *args: object, plugins: tuple[object, ...] = (), **kwargs: object
    ) -> pytest.HookRecorder:
        if os.environ.get("PYTEST_PLUGINS") == REPLAYGATE_PLUGINS:
            modules = [importlib.import_module(name) for name in REPLAYGATE_PLUGINS.split(",")]
            plugins = (*modules, *plugins)
        return inline_run(*args, plugins=plugins, **kwargs)

    return run


UNUSED_BUILTINS = ("junitxml", "pastebin", "legacypath", "stepwise")
"""pytest's own plugins that no nested session of the suite uses: each registered costs a
session about a millisecond (their hooks, options and fixtures parsed once more)."""


@pytest.fixture(scope="session")
def forker() -> Iterator[Forker]:
    """The interpreter the tests' ``replaygate`` commands are forked from
    (:class:`forked_cli.Forker`), importing :data:`forked_cli.CLI_PRELOAD` once for the
    whole session, what it imported frozen out of the collector's reach: each module
    running commands in processes of their own started one of its own (about 0.3 s of CPU
    each). Every command is a process forked from it, whose imports and state are its
    own; a module needing other modules preloaded defines a ``forker`` of its own."""
    forker = Forker(CLI_PRELOAD, freeze=True)
    yield forker
    forker.close()


@pytest.fixture(scope="session")
def ascii_forker() -> Iterator[Forker]:
    """The interpreter the tests' processes in an ASCII locale are forked from, started in
    :data:`forked_cli.ASCII_LOCALE`, importing :data:`forked_cli.ASCII_PRELOAD` once for
    the whole session: each process forked from it holds the encodings an interpreter
    started in that locale holds, where each test started one (about 0.2 s of CPU)."""
    forker = Forker(ASCII_PRELOAD, freeze=True, env={**os.environ, **ASCII_LOCALE})
    yield forker
    forker.close()


@pytest.fixture(scope="module")
def sim() -> Iterator[Any]:
    """A :class:`replaygate.sim.Simulator` of the ``echo`` behaviour, serving on loopback for
    the tests of one module; a module wanting another defines a ``sim`` of its own."""
    from replaygate.sim import Simulator

    with Simulator(behavior="echo") as running:
        yield running


@pytest.fixture(scope="session")
def plugin_modules_loaded() -> None:
    """What replaygate's plugins import as a nested session needs it, imported once in this
    process before the first ``pytester``: pytester forgets the modules imported after it
    was made, and each session the modules it imported, so that each imported them again
    (:func:`nested_pytest.loaded_for_sessions`)."""
    from nested_pytest import loaded_for_sessions

    loaded_for_sessions()


@pytest.fixture
def pytester(
    plugin_modules_loaded: None,
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> pytest.Pytester:
    """``pytester`` whose sessions (in process, and the ``pytest`` processes a test starts)
    load replaygate's plugins and no other installed one, finding the modules those import
    already loaded (:func:`plugin_modules_loaded`).

    Each installed plugin a nested session loads (pytest-recording, xdist, hypothesis,
    rerunfailures, anyio, platformdirs) costs it tens of milliseconds: a quarter of the
    CPU of the modules that run pytest sessions of their own; pytest's own plugins that
    no test of the suite uses (:data:`UNUSED_BUILTINS`) are left out too. A test marked
    ``autoload_plugins`` runs its sessions as a user's run is, with every installed
    plugin loaded through its entry point (replaygate's beside pytest-recording's, say).

    A test marked ``native_tracebacks`` has its sessions show a failure's traceback as
    Python prints it (``--tb=native``), not in pytest's long form, which reads the source
    of each frame's function, parsing the whole file it is in (an SDK's client is
    thousands of lines) for every failure: most of the CPU of a module whose sessions fail
    on misses through the SDKs. Such tests check the plugin's words, which both forms
    show, and the native form shows every frame, the hidden ones too; one of how pytest
    shows a failure passes ``--tb`` on the session's command line, which wins.

    The sessions run in this process check each plugin's attributes for a fixture hidden
    behind decorators once per object, not once per session (a fifth of a session's
    CPU), and parse the files a traceback in pytest's long form shows once, not once per
    traceback (:func:`nested_pytest.remembering_across_sessions`).
    """
    from nested_pytest import remembering_across_sessions

    remembering_across_sessions(monkeypatch)
    added = []
    if request.node.get_closest_marker("autoload_plugins") is None:
        monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
        monkeypatch.setenv("PYTEST_PLUGINS", REPLAYGATE_PLUGINS)
        monkeypatch.setattr(pytester, "inline_run", with_replaygate_plugins(pytester.inline_run))
        added += [f"-p no:{plugin}" for plugin in UNUSED_BUILTINS]
    if request.node.get_closest_marker("native_tracebacks") is not None:
        added.append("--tb=native")
    if added:
        given = os.environ.get("PYTEST_ADDOPTS", "")
        monkeypatch.setenv("PYTEST_ADDOPTS", " ".join([given, *added]).strip())
    return pytester


@pytest.fixture
def quick_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pattern search's time bound of a twentieth of a second (one second in use:
    :mod:`replaygate.pattern_search`)."""
    from replaygate import pattern_search

    monkeypatch.setattr(pattern_search, "SECONDS", 0.05)


@pytest.fixture
def counted() -> Iterator[str]:
    """``.../v1/messages`` of a :class:`loopback.Counted` server, its count cleared."""
    from loopback import Counted, serving

    Counted.received.clear()
    with serving(Counted) as base:
        yield f"{base}/v1/messages"
