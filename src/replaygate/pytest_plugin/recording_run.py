"""What the recording tests of one pytest session share: the simulator and the spending cap.

Registered by :mod:`.recording` when the session records. With ``--replaygate-simulator``
(or ini ``replaygate_simulator``) the in-process simulator is built at configure time (a
bad behaviour or script file is a usage error before any test runs), started by the
first test that needs it and stopped at the end; fixtures recorded from it say
``meta.source: "sim"``. One :class:`~replaygate.fixtures.spending.SpendingCap` counts
the live calls of every test: ``--replaygate-max-cost``, else ini ``replaygate_max_cost``,
else ``max_cost`` of ``[tool.replaygate]``, else
:data:`~replaygate.fixtures.spending.DEFAULT_MAX_COST` without the simulator (none with
it). Under pytest-xdist each worker has its own simulator and an equal share of the cap;
the controller's summary adds up what the workers spent. A script (``script:FILE``) is
refused there: it answers the session's requests with its lines in order, and workers
would each play it from its first line, in the order their tests happen to be given; so
it is while pytest-randomly shuffles the tests, or a test runs more than once (a rerun, a
repetition, ``--flaky-runs``).
"""

from __future__ import annotations

import os
from collections.abc import Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from replaygate.errors import ReplaygateError, SpendingCapError
from replaygate.pytest_plugin.options import (
    MAX_COST,
    SIM_BATCH_POLLS,
    SIM_SEED,
    SIMULATOR,
    number,
    simulator_behavior,
    spending_cap_option,
)
from replaygate.pytest_plugin.repeats import repetitions, unrepeated
from replaygate.pytest_plugin.reruns import item_retries, session_reruns, session_retries
from replaygate.regular import backslashed_here
from replaygate.seed import SIMULATOR_SEED

if TYPE_CHECKING:
    import ssl

    from replaygate.fixtures.spending import SpendingCap
    from replaygate.sim import Simulator

RUN = "replaygate-recording-run"
"""The name the run is registered under with pytest's plugin manager."""
SPENT = "replaygate_spent"
"""Where a pytest-xdist worker hands what it spent to the controller."""
SIM_ANSWERED = "replaygate_simulator_answered"
UNCAPPED = "replaygate_uncapped"
"""The key a pytest-xdist worker sends how many of its tests recorded with no cap."""
"""Where a pytest-xdist worker hands how many requests its simulator answered."""
RECORDED_INTO = "replaygate_recorded_into"
"""Where a pytest-xdist worker hands the stores its tests recorded into."""
RAISE_WITH = f"--replaygate-max-cost, ini {MAX_COST}, or max_cost in [tool.replaygate]"
"""How the session's cap is raised under pytest, as its message says."""


def _behavior_spec(behavior: str, root: Path) -> str:
    """``script:FILE`` with FILE resolved against the rootdir; other behaviours as given.
    A FILE whose folders a backslash separates, as an ini file written on Windows gives
    it, is refused on Linux and macOS, naming the path to write (``ValueError``)."""
    prefix = "script:"
    script = behavior[len(prefix) :]
    if not behavior.startswith(prefix) or not script:
        return behavior
    slashed = backslashed_here(script, root)
    if slashed is not None:
        raise ValueError(f"script:{slashed}")
    return prefix + str(root / script)


def _from_here(behavior: str, root: Path, here: Path) -> str:
    """The script to give, as a sentence, where ``script:FILE`` names no file from the
    rootdir ``root`` but one from ``here``, the folder pytest runs from (``cd tests``
    and ``script:../answers.jsonl``); else nothing."""
    script = behavior.removeprefix("script:")
    if script == behavior or not script or (root / script).exists():
        return ""
    found = here / script
    if not found.is_file():
        return ""
    try:
        given = Path(os.path.relpath(found.resolve(), root.resolve())).as_posix()
    except ValueError:  # another drive, on Windows
        given = str(found.resolve())
    return f": {found} is there, from the folder pytest runs in; give script:{given}"


def _distributed(config: pytest.Config) -> str | None:
    """How the session's tests are spread over pytest-xdist workers (``-n 2``), or None
    when they run in this process."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:
        return f"-n {workerinput.get('workercount', '?')}"
    if config.getoption("dist", "no") != "no" and config.getoption("tx", None):
        return f"-n {len(config.getoption('tx'))}"
    return None


def _refuse_script_when_distributed(behavior: str, config: pytest.Config) -> None:
    """A usage error for a script under pytest-xdist: each worker would play it from its
    first line, in the order the tests happen to reach it, and record each test with
    answers written for another."""
    spread = _distributed(config)
    if spread is None or not behavior.startswith("script:"):
        return
    raise pytest.UsageError(
        f"--replaygate-simulator / ini {SIMULATOR}: {behavior} cannot record under "
        f"pytest-xdist ({spread}): a "
        "script answers the session's requests with its lines in order, and the workers "
        "would each play it from its first line, in whatever order their tests come; "
        "record it without -n (echo and research-copilot answer by the request, and "
        "record under -n)"
    )


def _refuse_script_when_shuffled(behavior: str, config: pytest.Config) -> None:
    """A usage error for a script while pytest-randomly shuffles the tests (it does, once
    installed, unless ``-p no:randomly`` or ``--randomly-dont-reorganize``): the script's
    lines, written for the tests in their order, would answer them in another from run to
    run, and record each test with answers written for another."""
    if not behavior.startswith("script:") or not config.pluginmanager.hasplugin("randomly"):
        return
    if not config.getoption("randomly_reorganize", True):
        return
    raise pytest.UsageError(
        f"--replaygate-simulator / ini {SIMULATOR}: {behavior} cannot record in the order "
        "pytest-randomly shuffles the tests into: a script answers the session's requests "
        "with its lines in order, so each test would be recorded with the answers written "
        "for another, a different one each run; record it with -p no:randomly (or "
        "--randomly-dont-reorganize) (echo and research-copilot answer by the request, and "
        "record in any order)"
    )


SCRIPT_RUN_AGAIN = (
    "a script answers the session's requests with its lines in order, and the requests of "
    "a test run again, answered from the store, would take the lines written for the tests "
    "after it, each recorded with the answer written for another"
)
"""Why a script does not record where a test runs more than once in the session."""


def _runs_again(config: pytest.Config) -> str | None:
    """The option by which every test may run more than once in the session
    (pytest-rerunfailures' reruns, pytest-retry's retries, the flaky plugin's
    ``--force-flaky``, pytest-repeat's ``--count``, ``--flaky-runs``), or None."""
    reruns = session_reruns(config)
    if reruns:
        return f"pytest-rerunfailures reruns a test that fails (up to {reruns} time(s): --reruns)"
    retries = session_retries(config)
    if retries:
        return f"pytest-retry retries a test that fails (up to {retries} time(s): --retries)"
    if config.getoption("force_flaky", False):
        return "the flaky plugin reruns a test that fails (--force-flaky)"
    count = config.getoption("count", None) or 0
    if count > 1:
        return f"pytest-repeat runs each test {count} times (--count)"
    runs = config.getoption("replaygate_flaky_runs", None) or 0
    if runs > 1:
        return f"--flaky-runs runs each test {runs} times"
    return None


def _refuse_script_when_run_again(behavior: str, config: pytest.Config) -> None:
    """A usage error for a script while tests run more than once (:func:`_runs_again`)."""
    again = _runs_again(config) if behavior.startswith("script:") else None
    if again is not None:
        raise pytest.UsageError(
            f"--replaygate-simulator / ini {SIMULATOR}: {behavior} cannot record while "
            f"{again}: {SCRIPT_RUN_AGAIN}; record each test once"
        )


def _worker_count(config: pytest.Config) -> int:
    """How many pytest-xdist workers share the session's cap (1 outside a worker)."""
    workerinput = getattr(config, "workerinput", None)
    return int(workerinput.get("workercount", 1)) if workerinput is not None else 1


def _worker_share(cap: SpendingCap, workers: int) -> SpendingCap:
    """A pytest-xdist worker's share of the session's ``cap``, whose refusal says so."""
    from replaygate.evals.cap_share import CapShare

    split = "pytest-xdist worker's share: the session's cap of {whole} split over {jobs} workers"
    return CapShare(
        cap.limit / workers,
        cap.prices,
        raise_with=cap.raise_with,
        whole=cap.limit,
        jobs=workers,
        split=split,
        fewer="-n",
    )


def _not_started(err: Exception) -> str:
    """Why the simulator could not start its server, for a person; pytest-socket's
    ``--disable-socket``, which refuses the socket it listens on, named with the remedy."""
    why = "replaygate: the simulator could not start its server on 127.0.0.1"
    why += f" ({type(err).__name__}: {err})"
    if type(err).__module__.partition(".")[0] == "pytest_socket":
        why += (
            "; pytest-socket's --disable-socket (or its disable_socket marker) refuses every "
            "socket, the simulator's own too: add --allow-hosts=127.0.0.1, which lets sockets "
            "be made and connect to loopback only"
        )
    return why


def _batch_polls(config: pytest.Config) -> int:
    """The simulator's ``batch_polls`` (``--replaygate-sim-batch-polls``, else its ini
    setting, else 0); one out of range is a usage error naming the option."""
    from replaygate.sim.message_batches import batch_polls_problem

    given = number(config, SIM_BATCH_POLLS, int)
    polls = int(given) if given is not None else 0
    problem = batch_polls_problem(polls)
    if problem is not None:
        raise pytest.UsageError(
            f"--replaygate-sim-batch-polls / ini {SIM_BATCH_POLLS}: "
            + problem.removeprefix("batch_polls: ")
        )
    return polls


class RecordingRun:
    """The simulator (if asked for) and the spending cap of a recording session."""

    def __init__(self, config: pytest.Config, fixtures: Path) -> None:
        from replaygate.evals.config import load_config
        from replaygate.evals.prices import with_shipped
        from replaygate.fixtures.spending import spending_cap

        self.behavior = simulator_behavior(config)
        seed = number(config, SIM_SEED, int)
        self.seed = int(seed) if seed is not None else SIMULATOR_SEED
        self.batch_polls = _batch_polls(config)
        if self.behavior is not None:
            _refuse_script_when_distributed(self.behavior, config)
            _refuse_script_when_shuffled(self.behavior, config)
            _refuse_script_when_run_again(self.behavior, config)
        self._simulator = self._build_simulator(
            Path(config.rootpath), Path(config.invocation_params.dir)
        )
        try:
            project = load_config(near=fixtures)
        except ReplaygateError as err:
            raise pytest.UsageError(f"replaygate: {err}") from None
        given = spending_cap_option(config)
        self.cap_given = given is not None
        """A cap given for the run (option or ini): no test's settings may lift it."""
        prices = with_shipped(project.prices)
        self.cap: SpendingCap | None = spending_cap(
            given, project.max_cost, prices, self.behavior is not None, RAISE_WITH
        )
        self.workers = _worker_count(config)
        if self.cap is not None and self.workers > 1:  # their sum stays within the limit
            self.cap = _worker_share(self.cap, self.workers)
        self._from_workers: list[tuple[float, int]] = []
        self._answered_by_workers = 0
        self.uncapped = 0
        """How many tests recorded with the cap turned off (``"cap": None`` in their
        ``replaygate_config``): what they spent is not the cap's to count."""
        self._uncapped_by_workers = 0
        self.recorded_into: set[str] = set()
        """The stores the session's tests recorded a fixture into (its workers' too)."""
        self._worker = getattr(config, "workerinput", None) is not None
        self._started = False
        self._not_started: str | None = None
        """Why the simulator could not start, once it failed to."""
        self._tls: dict[str, ssl.SSLContext | None] = {}

    def _build_simulator(self, root: Path, here: Path) -> Simulator | None:
        """The session's simulator, of a script read from the rootdir ``root``; a usage
        error naming the behaviour that cannot be played, and the script to give where
        the path names one from ``here``, the folder pytest runs from."""
        if self.behavior is None:
            return None
        from replaygate.sim import Simulator

        try:
            return Simulator(
                behavior=_behavior_spec(self.behavior, root),
                seed=self.seed,
                batch_polls=self.batch_polls,
            )
        except (ReplaygateError, ValueError) as err:
            found = _from_here(self.behavior, root, here)
            raise pytest.UsageError(
                f"--replaygate-simulator / ini {SIMULATOR}: {err} (behaviours: research-copilot, "
                f"echo, script:FILE with FILE relative to the rootdir){found}"
            ) from None

    @property
    def source(self) -> str | None:
        """The ``meta.source`` of what this run records (None: the default, ``live``)."""
        return "sim" if self._simulator is not None else None

    def simulator(self) -> Simulator | None:
        """The session's simulator, started on first use; None when recording from the API.
        One that could not start fails the test asking for it, and each later one, with
        one line saying why (:func:`_not_started`), without trying again."""
        if self._simulator is not None and not self._started:
            if self._not_started is None:
                try:
                    self._simulator.start()
                    self._started = True
                except Exception as err:  # its thread's error, raised again here
                    self._not_started = _not_started(err)
            if self._not_started is not None:
                pytest.fail(self._not_started, pytrace=False)
        return self._simulator

    def live_transport(self, *, is_async: bool, library: str = "httpx2") -> Any:
        """A new transport of ``library`` (``httpx2``, or ``httpx`` for an SDK built on it)
        for a client's live calls. Every one of a library shares the session's TLS context:
        loading the CA bundle costs tens of milliseconds a client.

        An asynchronous one keeps no connection open between calls: its connections
        belong to the test's event loop, which is gone when the fixture's teardown could
        close them, so a kept one would be left for the garbage collector (an unclosed
        socket warning in a later test). A recorded call is slow anyway.

        It sends through the proxy the environment names, as the SDK's own client does
        (:class:`~replaygate.http.adapter.ByEnvironment`).
        """
        from replaygate.http.bindings import binding

        bound = binding(library)
        lib = bound.library.module
        if library not in self._tls:  # httpx before 0.28 has no create_ssl_context
            create = getattr(lib, "create_ssl_context", None)
            self._tls[library] = create() if create is not None else None
        options: dict[str, Any] = {}
        if self._tls[library] is not None:
            options["verify"] = self._tls[library]
        if is_async:
            limits = lib.Limits(max_connections=100, max_keepalive_connections=0)
            return bound.async_transport.default_live(limits=limits, **options)
        return bound.transport.default_live(**options)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        """Recording from a script, a usage error naming the tests a marker runs more than
        once: pytest-rerunfailures' ``flaky``, pytest-repeat's ``repeat``
        (:data:`SCRIPT_RUN_AGAIN`)."""
        if self.behavior is None or not self.behavior.startswith("script:"):
            return
        again = [
            unrepeated(it, it.nodeid) for it in items if item_retries(it)[1] or repetitions(it)
        ]
        named = ", ".join(dict.fromkeys(again))
        if again:
            raise pytest.UsageError(
                f"--replaygate-simulator / ini {SIMULATOR}: {self.behavior} cannot record "
                f"tests a flaky or repeat marker runs more than once ({named}): "
                f"{SCRIPT_RUN_AGAIN}; record each test once"
            )

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, None, None]:
        """A test stopped by the cap fails with the cap's message, not a traceback."""
        try:
            return (yield)
        except SpendingCapError as err:  # its message once, not again as the context
            raise pytest.fail.Exception(str(err), pytrace=False) from None

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """On a pytest-xdist worker, send what it spent to the controller."""
        output = getattr(session.config, "workeroutput", None)
        if output is not None and self.cap is not None:
            output[SPENT] = (self.cap.spent, self.cap.calls)
        if output is not None:
            output[SIM_ANSWERED] = self._answered()
            output[UNCAPPED] = self.uncapped
            output[RECORDED_INTO] = sorted(self.recorded_into)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """On the pytest-xdist controller, keep what a finished worker spent."""
        output = getattr(node, "workeroutput", {})
        spent = output.get(SPENT)
        if spent is not None:
            self._from_workers.append((float(spent[0]), int(spent[1])))
        self._answered_by_workers += int(output.get(SIM_ANSWERED, 0))
        self._uncapped_by_workers += int(output.get(UNCAPPED, 0))
        self.recorded_into.update(output.get(RECORDED_INTO, ()))

    def _answered(self) -> int:
        """How many requests this process's simulator answered (not those it refused of
        its own accord, a script run out, nor those to a route it does not serve: nothing
        was recorded of them)."""
        if self._simulator is None or not self._started:
            return 0
        simulator = self._simulator
        return len(simulator.requests) - simulator.refused - simulator.unserved

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        """Say where the session recorded from and what it spent (its workers' included)."""
        from replaygate.fixtures.spending import spending_status

        lines = []
        if self._simulator is not None:
            answered = self._answered() + self._answered_by_workers
            simulator = f"the simulator ({self.behavior}, seed {self.seed})"
            lines.append(
                f"recorded from {simulator}: it answered {answered} request(s)"
                if answered
                else f"{simulator} answered no request: nothing was recorded from it"
            )
        cap = self.cap
        if cap is not None:
            spent = cap.spent + sum(amount for amount, _ in self._from_workers)
            calls = cap.calls + sum(count for _, count in self._from_workers)
            limit = cap.limit * self.workers
            status = spending_status(spent, limit, calls, cap.prices.currency)
            lines.append(f"{status} (prices: {cap.prices.source})")
            uncapped = self.uncapped + self._uncapped_by_workers
            if uncapped:
                lines.append(
                    f'{uncapped} test(s) recorded with the cap turned off ("cap": None in '
                    "their replaygate_config): what they spent is not counted above"
                )
        ignored = self._ignored()
        if ignored:
            lines.append(ignored)
        if lines:
            terminalreporter.section("replaygate recording")
            for line in lines:
                terminalreporter.line(line)

    def _ignored(self) -> str | None:
        """What to say of the store files the session recorded into that git ignores: a
        commit leaves them out, and every checkout elsewhere (CI) misses their fixtures,
        where the recording looked done; None when there is none."""
        from replaygate.checkouts import ignored_stores_note
        from replaygate.fixtures.store import store_files
        from replaygate.pytest_plugin.misses import shown_here

        if not self.recorded_into or self._worker:  # the controller says it once
            return None
        files = []
        for store in sorted(self.recorded_into):
            try:
                files += store_files(Path(store))
            except (ReplaygateError, OSError):
                continue  # gone since, or damaged: its own test said so
        return ignored_stores_note(files, shown_here)

    def pytest_unconfigure(self) -> None:
        """Stop the simulator."""
        if self._simulator is not None and self._started:
            self._simulator.stop()
            self._started = False
