"""Reporting: observed cases in the progress line, the session summary, the result files."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from replaygate.outputs import write_text
from replaygate.pytest_plugin.sampling_state import SessionState

if TYPE_CHECKING:
    from replaygate.sampling.flaky import FlakyTest


def pytest_report_teststatus(
    report: pytest.TestReport, config: pytest.Config
) -> tuple[str, str, tuple[str, dict[str, bool]]] | None:
    """Show an observed case as ``o`` / ``OBSERVE`` rather than a plain pass."""
    observed = getattr(report, "replaygate_verdict", None) == "observe"
    if report.when == "call" and report.passed and observed:
        return "observed", "o", ("OBSERVE", {"yellow": True})
    return None


class Collector:
    """Collects cases and flaky outcomes from the reports (in the controlling process)."""

    def __init__(self, state: SessionState) -> None:
        self.state = state

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Keep the collection order, which the results file follows."""
        self.state.collected = [item.nodeid for item in session.items]

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        """Under pytest-xdist the workers collect (each the same tests, in one order):
        keep the order the first gives."""
        if not self.state.collected:
            self.state.collected = list(ids)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Keep a case's result, queue an observation, keep flaky outcomes."""
        case = getattr(report, "replaygate_case", None)
        if case is not None and report.when == "call":
            from replaygate.sampling.queue import Observation, append_observation
            from replaygate.sampling.results import SampledResult

            result = SampledResult.from_json(json.loads(case))
            if any(kept.case == result.case for kept in self.state.cases):
                self.state.repeated.append(result.case)  # its samples would count twice
                return
            self.state.cases.append(result)
            if result.verdict == "observe":
                observation = Observation.of(result)
                self.state.observed.append(observation)
                try:
                    append_observation(self.state.queue, observation)
                except OSError as err:
                    self.state.queue_error = str(err)
        no_verdict = getattr(report, "replaygate_no_verdict", 0)
        if no_verdict > 1 and report.nodeid not in self.state.no_verdict:
            self.state.no_verdict.append(report.nodeid)
        flaky = getattr(report, "replaygate_flaky", None)
        if flaky is not None:
            # every report counts: under pytest-xdist --dist each every worker runs the test
            # (and --keep-duplicates runs it as often as it is named), and a test that
            # passed on one worker and failed on another passed and failed on the same code
            worker = str(getattr(report, "worker_id", ""))
            self.state.flaky_reported.setdefault(report.nodeid, []).append((worker, list(flaky)))

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Write the results file and flaky report, unless a usage error stopped the
        session before any test ran, it runs none (``--collect-only``, ``--setup-only``,
        ``--setup-plan``) or it stopped early (Ctrl-C, ``-x``: its files would hold part
        of the run); exit 1 when a test was flaky."""
        state = self.state
        if session.exitstatus == pytest.ExitCode.USAGE_ERROR or _runs_no_test(session.config):
            return  # no test ran: the files of the last run are kept
        stopped = _stopped_early(session)
        if stopped is not None:
            _keep_last_files(state, stopped)
            return
        if state.results is not None:
            from replaygate.sampling.results import write_results

            with _write_error(state, "--sampling-results", state.results):
                write_results(state.results, state.in_order())
        if state.flaky_runs:
            flaky = state.flaky()
            if state.flaky_report is not None:
                with _write_error(state, "--flaky-report", state.flaky_report):
                    _write_flaky_report(state, flaky)
            if flaky and session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED
        if state.repeated:
            state.write_errors.append(
                f"{len(state.repeated)} case(s) ran more than once in this session "
                f"({', '.join(sorted(set(state.repeated)))}): pytest-xdist --dist each, or "
                "--keep-duplicates, runs a test once per worker or per time it is named, so "
                "its samples would be counted again and a results file cannot hold a case "
                "twice; each was counted once, from its first run. Run sampled tests with "
                "--dist load or loadfile, each named once"
            )
        failed = state.queue_error is not None or state.write_errors
        if failed and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """List this session's sampled verdicts, observation queue and flaky tests."""
        state = self.state
        sampled = [c for c in state.cases if c.n > 1]
        order = state.collection_order()  # not the order the tests finished in
        if sampled or state.no_verdict:
            counts = {
                v: sum(1 for c in sampled if c.verdict == v) for v in ("pass", "observe", "block")
            }
            terminalreporter.section("replaygate sampled cases")
            terminalreporter.line(", ".join(f"{n} {v}" for v, n in counts.items()))
            if state.no_verdict:
                one = len(state.no_verdict) == 1
                unjudged = ", ".join(sorted(state.no_verdict, key=order))
                its, failure = ("its", "failure") if one else ("their", "failures")
                terminalreporter.line(
                    f"{len(state.no_verdict)} failed with no verdict, {its} samples not judged "
                    f"(see {its} {failure} above): {unjudged}",
                    red=True,
                )
            for observation in sorted(state.observed, key=lambda o: order(o.case)):
                terminalreporter.line(f"observe: {observation.summary()}")
            if state.queue_error is not None:
                terminalreporter.line(
                    f"observation queue: cannot write {state.queue}: {state.queue_error}; "
                    "the observations above were not queued",
                    red=True,
                )
            elif state.observed:
                terminalreporter.line(f"observation queue: {state.queue}")
        if state.flaky_runs:
            from replaygate.sampling.flaky import report_lines

            terminalreporter.section("replaygate flaky tests")
            lines = report_lines(state.flaky(), len(state.flaky_outcomes), state.flaky_runs)
            for line in lines:
                terminalreporter.line(line)
            repeated = state.reported_more_than_once()
            if repeated:
                terminalreporter.line(
                    f"{len(repeated)} test(s) ran more than once in this session (pytest-xdist "
                    "--dist each runs each on every worker, --keep-duplicates as often as it "
                    f"is named): the outcomes of every run count, worker by worker: "
                    f"{', '.join(repeated)}"
                )
        for error in state.write_errors:
            terminalreporter.line(f"replaygate: {error}", red=True)


def _runs_no_test(config: pytest.Config) -> bool:
    """Whether the session only collects (``--collect-only``) or sets up (``--setup-only``,
    ``--setup-plan``) the tests, and runs none: its empty results would replace the last
    run's."""
    return any(config.getoption(name, False) for name in ("collectonly", "setuponly", "setupplan"))


def _stopped_early(session: pytest.Session) -> str | None:
    """How the session stopped before running every test it selected, or None: Ctrl-C,
    or ``-x`` / ``--maxfail`` (``stopping after 1 failures``), which ends a serial session
    as failed and a pytest-xdist one as interrupted."""
    dsession = session.config.pluginmanager.getplugin("dsession")
    reason = session.shouldfail or session.shouldstop or getattr(dsession, "shouldstop", None)
    if isinstance(reason, str) and reason:
        return f"the session stopped early ({reason})"
    if session.exitstatus == pytest.ExitCode.INTERRUPTED:
        return "the session was interrupted"
    return None


def _keep_last_files(state: SessionState, stopped: str) -> None:
    """Write no result file for a session that stopped before its end (Ctrl-C, ``-x``):
    its cases are a part of the run, and would replace the last complete file; say so
    (``stopped``) in the summary."""
    options = [
        (option, path)
        for option, path in (
            ("--sampling-results", state.results),
            ("--flaky-report", state.flaky_report),
        )
        if path is not None
    ]
    for option, path in options:
        state.write_errors.append(
            f"{option}: {stopped}, so {path} was not written (any earlier "
            "file there is as the last complete session left it)"
        )


@contextlib.contextmanager
def _write_error(state: SessionState, option: str, path: Path) -> Iterator[None]:
    """Keep why the file of ``option`` could not be written (a full disk, a read-only
    folder, results its reader would refuse), for the summary; the session then exits 1
    instead of ending in a traceback."""
    from replaygate.sampling.results import ResultsFormatError

    try:
        yield
    except OSError as err:
        reason = err.strerror or str(err)
        state.write_errors.append(
            f"{option}: cannot write {path}: {reason} (any earlier file there is as it was)"
        )
    except ResultsFormatError as err:
        state.write_errors.append(f"{option}: {err} (any earlier file there is as it was)")


def _write_flaky_report(state: SessionState, flaky: list[FlakyTest]) -> None:
    from replaygate.sampling.flaky import failed_every_run

    assert state.flaky_report is not None
    state.flaky_report.parent.mkdir(parents=True, exist_ok=True)
    document = {
        "runs": state.flaky_runs,
        "tests": len(state.flaky_outcomes),
        "flaky": [{"nodeid": t.nodeid, "outcomes": list(t.outcomes)} for t in flaky],
        "failed_every_run": failed_every_run(state.flaky_outcomes),
    }
    write_text(state.flaky_report, json.dumps(document, indent=2) + "\n")
