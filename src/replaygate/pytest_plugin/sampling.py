"""The pytest plugin for sampled tests, the observation queue and flaky detection.

Inert unless a test is marked ``sampled``, requests ``replaygate_checks``, or
``--flaky-runs`` is given.

- ``@pytest.mark.sampled(n=5, floor=4)``: the test body runs ``n`` times; the
  ``replaygate_sample`` fixture holds the sample index (0..n-1) in each run. Verdict
  ``pass`` (passes >= floor), ``observe`` (reported as passed with a warning, queued
  in ``.replaygate/observe.jsonl``, listed in the session summary) or ``block`` (every
  sample failed: the test fails). ``--observe-fails`` makes ``observe`` fail too.
- ``replaygate_checks``: ``replaygate_checks.evaluate(output, *checks)`` records gates
  and signals; only failed gates fail the sample (or the unsampled test, even when it
  catches the ``AssertionError`` and goes on or skips); a sample of a test that asks
  for it and evaluates no check fails too (it checked nothing), and so does such an
  unsampled test. A fixture of a sampled
  test may not request it (it is set up once per test).
- ``--sampling-results PATH`` writes every case's passes and samples per assertion.
- ``--flaky-runs N`` runs each unsampled test N times and lists those whose outcome
  differed; the session then exits 1.
- A sampled test that pytest-rerunfailures would rerun is a usage error (law 7).

This module holds the options, the session set-up and the fixtures, and registers
the hooks of the others: :mod:`.sampling_collect` (declarations checked at
collection), :mod:`.sampling_run` (the samples of a test, flaky runs) and
:mod:`.sampling_summary` (progress letters, session summary, result files).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from replaygate import digits
from replaygate.pytest_plugin.outputs import check_outputs, option_path
from replaygate.pytest_plugin.randomly_note import reseeds_random
from replaygate.pytest_plugin.reruns import session_reruns, session_retries
from replaygate.pytest_plugin.sampling_collect import (
    pytest_collection_modifyitems,
    pytest_runtest_setup,
)
from replaygate.pytest_plugin.sampling_run import (
    pytest_pyfunc_call,
    pytest_runtest_call,
    pytest_runtest_makereport,
    pytest_runtest_protocol,
    pytest_timeout_set_timer,
)
from replaygate.pytest_plugin.sampling_state import STATE, SessionState
from replaygate.pytest_plugin.sampling_summary import Collector, pytest_report_teststatus
from replaygate.pytest_plugin.unloaded import register_unloaded
from replaygate.sampling.queue import DEFAULT_QUEUE

if TYPE_CHECKING:
    from replaygate.sampling.recorder import SampleChecks

__all__ = [
    "pytest_addoption",
    "pytest_collection_modifyitems",
    "pytest_configure",
    "pytest_pyfunc_call",
    "pytest_report_teststatus",
    "pytest_runtest_call",
    "pytest_runtest_makereport",
    "pytest_runtest_protocol",
    "pytest_runtest_setup",
    "pytest_timeout_set_timer",
    "replaygate_checks",
    "replaygate_sample",
]
"""The hooks and fixtures this plugin registers (each module holds one part of them)."""


def pytest_addoption(parser: pytest.Parser) -> None:
    """Register the sampling options."""
    group = parser.getgroup("replaygate-sampling", "replaygate: sampled tests, flaky detection")
    group.addoption(
        "--observe-fails",
        dest="replaygate_observe_fails",
        action="store_true",
        default=False,
        help="fail sampled tests whose verdict is observe (for strict stages)",
    )
    group.addoption(
        "--observe-queue",
        dest="replaygate_observe_queue",
        default=None,
        metavar="FILE",
        help=f"observation queue file (default {DEFAULT_QUEUE}, under the rootdir)",
    )
    group.addoption(
        "--sampling-results",
        dest="replaygate_sampling_results",
        default=None,
        metavar="FILE",
        help="write passes and samples per case and per assertion to this JSON file",
    )
    group.addoption(
        "--flaky-runs",
        dest="replaygate_flaky_runs",
        type=digits.integer,
        default=0,
        metavar="RUNS",
        help="run each unsampled test this many times (>= 2) and list those whose outcome "
        "differed; 0 (the default) runs each once",
    )
    group.addoption(
        "--flaky-report",
        dest="replaygate_flaky_report",
        default=None,
        metavar="FILE",
        help="with --flaky-runs: write the outcomes of the flaky tests to this JSON file",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Register the marker (and the recording plugin's, when it is not loaded: see
    :mod:`.unloaded`); check the flaky options; set up the session state."""
    config.addinivalue_line(
        "markers",
        "sampled(n, floor): run the test body n times (sample index in the replaygate_sample "
        "fixture); pass when at least floor samples pass",
    )
    register_unloaded(config, "replaygate")
    runs = config.getoption("replaygate_flaky_runs")
    if runs and runs < 2:
        raise pytest.UsageError(f"--flaky-runs must be at least 2, got {runs}")
    if not runs and config.getoption("replaygate_flaky_report") is not None:
        raise pytest.UsageError(
            "--flaky-report needs --flaky-runs N (N >= 2): without it no test is run more "
            "than once and no report is written"
        )
    if runs and session_reruns(config):
        raise pytest.UsageError(
            "--flaky-runs with --reruns: reruns hide exactly the flakiness being looked for; "
            "drop --reruns"
        )
    if runs and config.getoption("force_flaky", False):
        raise pytest.UsageError(
            "--flaky-runs with the flaky plugin's --force-flaky: its reruns hide exactly the "
            "flakiness being looked for; drop --force-flaky"
        )
    if runs and session_retries(config):
        raise pytest.UsageError(
            "--flaky-runs with pytest-retry's --retries (or its retries ini value): retries "
            "hide exactly the flakiness being looked for; drop --retries"
        )
    if runs and reseeds_random(config):
        raise pytest.UsageError(
            "--flaky-runs with pytest-randomly, which sets random's seed anew before each run "
            "of a test, to the same value: a test flaky through random would give the same "
            "outcome in every run, and be missed; add -p no:randomly (or "
            "--randomly-dont-reset-seed)"
        )
    if not _is_worker(config):
        check_outputs(config)
    queue = option_path(config, "replaygate_observe_queue")
    config.stash[STATE] = SessionState(
        observe_fails=config.getoption("replaygate_observe_fails"),
        queue=queue or config.rootpath / DEFAULT_QUEUE,
        results=option_path(config, "replaygate_sampling_results"),
        flaky_runs=runs or 0,
        flaky_report=option_path(config, "replaygate_flaky_report"),
    )
    if not _is_worker(config):
        config.pluginmanager.register(
            Collector(config.stash[STATE]), "replaygate-sampling-collector"
        )


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


# -- the fixtures ----------------------------------------------------------------------


@pytest.fixture
def replaygate_sample() -> int:
    """The sample index of the current run of a sampled test (0 in an unsampled test)."""
    return 0


@pytest.fixture
def replaygate_checks() -> SampleChecks:
    """Records gates and signals for the current sample: ``.evaluate(output, *checks)``."""
    from replaygate.sampling.recorder import SampleChecks

    return SampleChecks(0)
