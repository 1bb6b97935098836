"""``--replaygate-strict`` for a store the marker names (``fixtures=``), shared by tests.

A test's own store is checked at its teardown: every fixture it holds is that test's,
unless another test's marker names it too (then it is shared by them), or pytest-repeat
repeats the test (its repetitions share it, and each may send requests of its own: one
pytest-randomly seeds from its id, say). A shared
store's fixtures belong to all the tests naming it, so it is checked once, at the end
of the run: a fixture that none of them replayed (or that none of them
requested as many times as it has responses) fails the run, named in the summary.

That verdict needs every test naming the store, so a store is checked only when the run
collected them all and each passed: one of them failed, was skipped or deselected
(``-k``, ``-m``, ``--deselect``), and the store is not checked (a line of the summary
says so). A run that collected only part of the suite (:func:`part_of_suite`: particular
files or tests, folders short of the suite, pytest run from a subfolder, ``--ignore``,
``--last-failed`` with failures to rerun) may have left out a test naming the store: it
checks no shared store, and says so, but for one only a test's repetitions share: they
are all collected wherever the test is. Under pytest-xdist each worker sends the tests it
collected and the uses it counted, and the controller decides.
"""

from __future__ import annotations

import glob
import os
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

PLUGIN = "replaygate-strict-shared"
"""The name the check is registered under with pytest's plugin manager."""
_SENT = "replaygate_strict_shared"
"""Where a pytest-xdist worker hands its tests and uses to the controller."""


def part_of_suite(config: pytest.Config, failures_before: bool = True) -> str | None:
    """Why the run may not have collected every test of the suite, or None. The suite is
    what pytest collects run with no arguments from the rootdir (:func:`whole_suite`); a
    run given particular files or tests, folders short of it, ``--ignore`` on its command
    line, or ``--last-failed`` with failures to rerun (``failures_before``) may not have
    collected a test naming a store."""
    if config.getoption("lf", False) and failures_before:
        return "the run reran the last failures"
    left_out = ignored_on_command_line(config.invocation_params.args)
    if left_out:
        return f"the run left out {', '.join(left_out)}"
    here = Path(config.invocation_params.dir)
    whole = whole_suite(config)
    given = [
        arg
        for arg in config.args
        if "::" in arg or not ((root := (here / arg).resolve()).is_dir() or root in whole)
    ]  # a folder collects what it holds; a file, all of it, when the suite names it
    if given:
        return f"the run was given particular tests ({', '.join(given)})"
    roots = [(here / arg).resolve() for arg in config.args]
    if all(any(root == path or root in path.parents for root in roots) for path in whole):
        return None
    return (
        f"the run collected {_shown(roots, here)} only, short of the whole suite "
        f"({_shown(whole, here)}): run pytest from the rootdir with no arguments"
    )


def whole_suite(config: pytest.Config) -> list[Path]:
    """What pytest collects run with no arguments from the rootdir: the paths its
    ``testpaths`` match (files too), else the rootdir."""
    root = Path(config.rootpath)
    matched = [
        (root / path).resolve()
        for pattern in config.getini("testpaths")
        for path in sorted(glob.glob(pattern, root_dir=root, recursive=True))
    ]
    return matched or [root.resolve()]


def ignored_on_command_line(args: Iterable[str]) -> list[str]:
    """What ``--ignore`` and ``--ignore-glob`` leave out on a command line, each as
    ``PATH (--ignore)`` (given in the ini file's ``addopts``, they shape every run: the
    suite)."""
    left_out: list[str] = []
    words = list(args)
    for at, word in enumerate(words):
        option, equals, value = word.partition("=")
        if option in ("--ignore", "--ignore-glob"):
            if not equals and at + 1 < len(words):
                value = words[at + 1]
            left_out.append(f"{value} ({option})")
    return left_out


def _shown(paths: Iterable[Path], here: Path) -> str:
    """``paths`` as from the folder pytest runs in, comma-separated."""
    return ", ".join(os.path.relpath(path, here) for path in paths)


class SharedStrict:
    """Which tests name each shared store, what each of them used, and how they ended."""

    def __init__(self) -> None:
        self.naming: dict[str, set[str]] = {}
        """Store path -> the node ids of the collected tests naming it."""
        self.repeated: set[str] = set()
        """The stores that are a test's own, shared only by its pytest-repeat repetitions:
        every repetition is collected wherever the test is, so a run of part of the suite
        checks them too."""
        self.used: dict[str, Counter[str]] = {}
        """Store path -> fixture key -> the most answers one test took from it."""
        self.passed: set[str] = set()
        self.failed: set[str] = set()
        self.problems: list[str] = []
        self.unchecked: list[str] = []
        self.failures_before = True
        """Whether pytest's cache held failures as the run began: ``--last-failed`` reruns
        only those; without any, it runs every test."""

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        """Note whether there are failures for ``--last-failed`` to rerun, before the
        run's reports take its passed tests off pytest's list."""
        last = session.config.pluginmanager.get_plugin("lfplugin")
        self.failures_before = bool(getattr(last, "lastfailed", True))

    def collected(
        self, stores: Iterable[tuple[pytest.Item, Path]], repeated: Iterable[Path] = ()
    ) -> None:
        """Note the tests of the run (before any deselection) and the shared store each
        names (or has as its own), and the stores only a test's repetitions share."""
        for item, path in stores:
            self.naming.setdefault(os.fspath(path), set()).add(item.nodeid)
        self.repeated.update(map(os.fspath, repeated))

    def names(self, test: str, path: Path) -> bool:
        """Whether the collected test ``test`` counts among those sharing the store at
        ``path`` (its marker names it, or it is its own store and another's marker names
        it)."""
        return test in self.naming.get(os.fspath(path), ())

    def used_by_test(self, path: Path, before: Mapping[str, int], after: Mapping[str, int]) -> None:
        """Note what one test took from the shared store at ``path`` (its use counts before
        the test and after)."""
        most = self.used.setdefault(os.fspath(path), Counter())
        for key, count in after.items():
            took = count - before.get(key, 0)
            if took > most.get(key, 0):
                most[key] = took

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Keep how each test ended (on the pytest-xdist controller, its workers' tests)."""
        if report.failed:
            self.failed.add(report.nodeid)
        elif report.when == "call" and report.passed:
            self.passed.add(report.nodeid)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """On the pytest-xdist controller, add what a finished worker collected and used."""
        sent = getattr(node, "workeroutput", {}).get(_SENT)
        if not sent:
            return
        for path, tests in sent["naming"].items():
            self.naming.setdefault(path, set()).update(tests)
        self.repeated.update(sent.get("repeated", ()))
        for path, counts in sent["used"].items():
            most = self.used.setdefault(path, Counter())
            for key, count in counts.items():
                most[key] = max(most.get(key, 0), int(count))

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """A worker sends what it saw; the controller (or a run without workers) checks
        each shared store and fails the run when one holds fixtures no test used."""
        output = getattr(session.config, "workeroutput", None)
        if output is not None:
            output[_SENT] = {
                "naming": {path: sorted(tests) for path, tests in self.naming.items()},
                "used": {path: dict(counts) for path, counts in self.used.items()},
                "repeated": sorted(self.repeated),
            }
            return
        if session.config.getoption("collectonly", False):
            return  # nothing ran: nothing to say
        why_not = part_of_suite(session.config, self.failures_before)
        for path in sorted(self.naming):
            self._check(path, why_not)
        if self.problems and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        if self.problems and not session.shouldfail:  # said beside the counts' last line
            session.shouldfail = (
                f"--replaygate-strict: {len(self.problems)} shared store(s) hold fixtures no "
                "test used (replaygate strict: shared stores, above)"
            )

    def _check(self, path: str, why_not: str | None) -> None:
        tests = sorted(self.naming[path])
        repeated = path in self.repeated
        if repeated:
            if not any(test in self.passed or test in self.failed for test in tests):
                return  # the test did not run (deselected, skipped): nothing to say of it
            why_not = None  # a run of the test runs all its repetitions
        if why_not is None:
            left = [test for test in tests if test not in self.passed or test in self.failed]
            if left:
                why_not = (
                    f"{len(left)} of the {len(tests)} test(s) naming it did not run and pass "
                    f"({_first_few(left)})"
                )
        if why_not is not None:
            self.unchecked.append(f"{path}: {why_not}")
            return
        used = self.used.get(path, Counter())
        lines = unused_lines(path, used)
        if lines:
            shared = "" if repeated else "the shared store "
            users = "repetition(s) of its test" if repeated else "test(s) naming it"
            self.problems.append(
                f"--replaygate-strict: {len(lines)} recorded fixture(s) of {shared}"
                f"{path} unused by all {len(tests)} {users} ({_first_few(tests)}):\n  "
                + "\n  ".join(lines)
                + (
                    (STALE_SHARED if not repeated else "")
                    if any(used.values())
                    else none_requested("The tests naming it", "their")
                )
            )

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        """Name the shared stores that hold fixtures no test used, and those not checked."""
        if not self.problems and not self.unchecked:
            return
        terminalreporter.section("replaygate strict: shared stores")
        for problem in self.problems:
            terminalreporter.line(problem, red=True)
        for line in self.unchecked:
            terminalreporter.line(f"not checked: {line}")


STALE_SHARED = (
    "\nA request the tests no longer send (a prompt changed, then recorded again, which "
    "keeps the fixtures of requests it does not send) leaves its fixture (so does a "
    "request now sent fewer times), and prune keeps every fixture of a store a "
    "test's marker names. Move the store aside and record every test naming it again, in "
    "one run (record mode record-missing, from the simulator with --replaygate-simulator "
    "if it came from there): `replaygate diff` then pairs each changed request with the "
    "one it replaced."
)
"""What ``--replaygate-strict`` adds of a shared store some of whose fixtures the tests
naming it requested: how to drop the others, which ``prune`` keeps (references are
file-level) and recording again keeps too."""


def none_requested(tests: str, their: str) -> str:
    """What ``--replaygate-strict`` adds of a store none of whose fixtures ``tests`` (the
    test that owns it, or those naming it) requested: a response cache of ``their`` code
    under test answered it, or a spawned worker replaying through an ``intercept()`` of
    its own, which the test does not see."""
    return (
        f"\n{tests} requested none of its fixtures: if {their} code still calls a model, a "
        "response cache of its own answered it (DSPy's, DeepEval's and ragas's, kept on disk "
        "between runs; LiteLLM's litellm.cache; Instructor's, given to its client's cache=; "
        "LangChain's, set_llm_cache(...) or a model's cache=; LangGraph's, a graph's "
        "compile(cache=...)): turn it off in tests (docs/frameworks.md) rather than prune "
        "what a replay without that cache needs; or a worker process it started by spawn or "
        "forkserver played them through an intercept() of its own, which the test does not "
        "see (docs/frameworks.md#background-jobs-and-worker-processes)."
    )


def prune_hint(path: str | os.PathLike[str], root: Path) -> str:
    """What removes the fixtures of requests a test no longer sends from its own store at
    ``path``: recording again (``rerecord`` too) keeps them, and this run's hits log,
    under ``root``, tells which it played. Not for a store a marker names: ``prune``
    keeps every fixture of a file a test names."""
    from replaygate.errors import shell_path

    store = Path(path)
    shown = store.relative_to(root) if store.is_relative_to(root) else store
    return (
        "\nA request the tests no longer send (a prompt changed, then recorded again, which "
        "keeps the fixtures of requests it does not send) leaves its fixture: from "
        f"{shell_path(str(root))}, `replaygate prune {shell_path(str(shown))} --unused "
        "--runs 1` lists the fixtures this run did not play (add --yes to delete them)."
    )


def unused_lines(path: str, most: Mapping[str, int]) -> list[str]:
    """One line per HTTP fixture of the store at ``path`` that no test requested, or none
    as many times as it has responses (``most``: the most one test took of each)."""
    from replaygate.errors import ReplaygateError
    from replaygate.fixtures.store import FixtureStore
    from replaygate.fixtures.uses import unused_http_lines

    try:
        store = FixtureStore.open(Path(path))
    except ReplaygateError as err:  # its tests passed: it changed on disk since
        return [f"cannot be read: {err}"]
    try:
        return unused_http_lines(store, most, by_one_test=True)
    finally:
        store.close()


def _first_few(tests: list[str]) -> str:
    """The first three of ``tests``, and ``...`` for any more: a store hundreds of tests
    share is named in a line that can be read."""
    return ", ".join(tests[:3]) + (", ..." if len(tests) > 3 else "")
