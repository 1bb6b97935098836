"""The pytest plugin for sampled tests, the observation queue and flaky detection.

Inert unless a test is marked ``sampled``, requests ``replaygate_checks``, or
``--flaky-runs`` is given.

- ``@pytest.mark.sampled(n=5, floor=4)``: the test body runs ``n`` times; the
  ``replaygate_sample`` fixture holds the sample index (0..n-1) in each run. Verdict
  ``pass`` (passes >= floor), ``observe`` (reported as passed with a warning, queued
  in ``.replaygate/observe.jsonl``, listed in the session summary) or ``block`` (every
  sample failed: the test fails). ``--observe-fails`` makes ``observe`` fail too.
- ``replaygate_checks``: ``replaygate_checks.evaluate(output, *checks)`` records gates
  and signals; only failed gates fail the sample.
- ``--sampling-results PATH`` writes every case's passes and samples per assertion.
- ``--flaky-runs N`` runs each unsampled test N times and lists those whose outcome
  differed; the session then exits 1.
- A sampled test that pytest-rerunfailures would rerun is a usage error (law 7).
"""

from __future__ import annotations

import inspect
import json
import warnings
from collections.abc import Generator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from _pytest.runner import runtestprotocol

from replaygate.sampling.advice import ObserveWarning, SamplingWarning, sample_count_advice
from replaygate.sampling.flaky import FlakyTest, find_flaky, outcome_of, report_lines
from replaygate.sampling.queue import DEFAULT_QUEUE, Observation, append_observation
from replaygate.sampling.recorder import SampleChecks
from replaygate.sampling.reruns import RERUNS_REFUSED, item_reruns, session_reruns
from replaygate.sampling.results import SampledResult, SampleResult, write_results
from replaygate.sampling.verdict import SampleSpec

MARKER = "sampled"
SAMPLE_FIXTURE = "replaygate_sample"
CHECKS_FIXTURE = "replaygate_checks"
_FAILURE_LINES = 6


@dataclass
class _State:
    observe_fails: bool
    queue: Path
    results: Path | None
    flaky_runs: int
    flaky_report: Path | None
    cases: list[SampledResult] = field(default_factory=list)
    observed: list[Observation] = field(default_factory=list)
    flaky_outcomes: dict[str, list[str]] = field(default_factory=dict)

    def flaky(self) -> list[FlakyTest]:
        return find_flaky(self.flaky_outcomes)


STATE = pytest.StashKey[_State]()
SPEC = pytest.StashKey[SampleSpec]()
CASE = pytest.StashKey[SampledResult]()
FLAKY_PRIOR = pytest.StashKey[list[str]]()
FLAKY_PHASES = pytest.StashKey[list[pytest.TestReport]]()


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
        help=f"observation queue file (default {DEFAULT_QUEUE}, under the rootdir)",
    )
    group.addoption(
        "--sampling-results",
        dest="replaygate_sampling_results",
        default=None,
        help="write passes and samples per case and per assertion to this JSON file",
    )
    group.addoption(
        "--flaky-runs",
        dest="replaygate_flaky_runs",
        type=int,
        default=0,
        help="run each unsampled test this many times (>= 2) and list those whose outcome differed",
    )
    group.addoption(
        "--flaky-report",
        dest="replaygate_flaky_report",
        default=None,
        help="with --flaky-runs: write the outcomes of the flaky tests to this JSON file",
    )


def _path(config: pytest.Config, value: str | None) -> Path | None:
    """A path option, relative to the directory pytest was invoked from."""
    return None if value is None else config.invocation_params.dir / value


def pytest_configure(config: pytest.Config) -> None:
    """Register the marker; check the flaky options; set up the session state."""
    config.addinivalue_line(
        "markers",
        "sampled(n, floor): run the test body n times (sample index in the replaygate_sample "
        "fixture); pass when at least floor samples pass",
    )
    runs = config.getoption("replaygate_flaky_runs")
    if runs and runs < 2:
        raise pytest.UsageError(f"--flaky-runs must be at least 2, got {runs}")
    if runs and session_reruns(config):
        raise pytest.UsageError(
            "--flaky-runs with --reruns: reruns hide exactly the flakiness being looked for; "
            "drop --reruns"
        )
    queue = _path(config, config.getoption("replaygate_observe_queue"))
    config.stash[STATE] = _State(
        observe_fails=config.getoption("replaygate_observe_fails"),
        queue=queue or config.rootpath / DEFAULT_QUEUE,
        results=_path(config, config.getoption("replaygate_sampling_results")),
        flaky_runs=runs or 0,
        flaky_report=_path(config, config.getoption("replaygate_flaky_report")),
    )
    if not _is_worker(config):
        config.pluginmanager.register(
            _Collector(config.stash[STATE]), "replaygate-sampling-collector"
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
    return SampleChecks(0)


# -- collection: declared samples, refused reruns --------------------------------------


class _Refused(Exception):
    """A sampled test declared in a way that cannot give a trustworthy verdict."""


def _spec(item: pytest.Item) -> SampleSpec | None:
    marker = item.get_closest_marker(MARKER)
    if marker is None:
        return None
    arguments = {**dict(zip(("n", "floor"), marker.args, strict=False)), **marker.kwargs}
    unknown = len(marker.args) > 2 or set(arguments) - {"n", "floor"}
    if unknown or "n" not in arguments or "floor" not in arguments:
        raise _Refused(
            f"{item.nodeid}: declare @pytest.mark.{MARKER}(n=..., floor=...) with both the "
            f"sample count and the pass floor (law 7); got {marker.args!r} {marker.kwargs!r}"
        )
    try:
        return SampleSpec(arguments["n"], arguments["floor"])
    except ValueError as err:
        raise _Refused(f"{item.nodeid}: @pytest.mark.{MARKER}: {err}") from None


def _argnames(item: pytest.Item) -> tuple[str, ...]:
    info = getattr(item, "_fixtureinfo", None)
    return tuple(getattr(info, "argnames", ()))


def _fixtures_needing_sample(item: pytest.Item) -> list[str]:
    info = getattr(item, "_fixtureinfo", None)
    defs: dict[str, Any] = getattr(info, "name2fixturedefs", {})
    return sorted(
        name
        for name, fixturedefs in defs.items()
        if name != SAMPLE_FIXTURE
        and fixturedefs
        and SAMPLE_FIXTURE in getattr(fixturedefs[-1], "argnames", ())
    )


def _check_sampled(item: pytest.Item, spec: SampleSpec) -> None:
    where = f"{item.nodeid} (sampled n={spec.n}, floor={spec.floor})"
    if not isinstance(item, pytest.Function):
        raise _Refused(f"{where}: only test functions can be sampled")
    if inspect.iscoroutinefunction(item.obj):
        raise _Refused(f"{where}: async tests cannot be sampled; sample a sync wrapper")
    if SAMPLE_FIXTURE not in _argnames(item):
        raise _Refused(
            f"{where}: the test does not request the {SAMPLE_FIXTURE} fixture, so every sample "
            f"would replay the same recorded response; take {SAMPLE_FIXTURE} as an argument and "
            f"build the model with sample={SAMPLE_FIXTURE}"
        )
    needing = _fixtures_needing_sample(item)
    if needing:
        raise _Refused(
            f"{where}: fixture(s) {', '.join(needing)} request {SAMPLE_FIXTURE}, but fixtures "
            f"are set up once per test, not once per sample; request {SAMPLE_FIXTURE} in the "
            "test function and build per-sample objects there"
        )
    reruns = item_reruns(item)
    if reruns:
        raise _Refused(
            f"{where}: pytest-rerunfailures would rerun it up to {reruns} time(s): "
            + RERUNS_REFUSED
        )


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Validate every sampled test's declaration before anything runs; report all at once."""
    refused: list[str] = []
    for item in items:
        try:
            spec = _spec(item)
            if spec is not None:
                _check_sampled(item, spec)
                item.stash[SPEC] = spec
        except _Refused as err:
            refused.append(str(err))
    if refused:
        raise pytest.UsageError("\n".join(refused))


# -- running a sampled test ------------------------------------------------------------


def _failure_text(err: BaseException) -> str:
    text = str(err).strip() or type(err).__name__
    lines = text.splitlines()
    return "\n".join(lines[:_FAILURE_LINES] + (["..."] if len(lines) > _FAILURE_LINES else []))


def _run_samples(item: pytest.Function, spec: SampleSpec) -> SampledResult:
    kwargs = {name: item.funcargs[name] for name in _argnames(item)}
    samples: list[SampleResult] = []
    descriptions: dict[str, str] = {}
    for index in range(spec.n):
        recorder = SampleChecks(index)
        kwargs[SAMPLE_FIXTURE] = index
        if CHECKS_FIXTURE in kwargs:
            kwargs[CHECKS_FIXTURE] = recorder
        try:
            item.obj(**kwargs)
        except (AssertionError, pytest.fail.Exception) as err:
            samples.append(recorder.result(_failure_text(err)))
        except BaseException as err:
            err.add_note(f"raised in sample {index} of {spec.n}; no sample is retried")
            raise
        else:
            samples.append(recorder.result())
        descriptions.update(recorder.descriptions)
    return SampledResult(item.nodeid, spec.n, spec.floor, tuple(samples), descriptions)


def _failure_report(result: SampledResult) -> str:
    why = (
        "every sample failed"
        if result.verdict == "block"
        else "fewer samples passed than the floor, and --observe-fails is on"
    )
    lines = [f"{result.summary()} ({why})"]
    for sample in result.samples:
        if sample.passed:
            continue
        failed = [f"{o.name}: {o.message}" for o in sample.outcomes if o.blocks]
        if sample.failure is not None:
            failed.append(sample.failure)
        detail = "\n".join(failed).replace("\n", "\n    ")
        lines.append(f"  sample {sample.index}: {detail}")
    return "\n".join(lines)


def _warn_at(item: pytest.Function, message: str, category: type[Warning]) -> None:
    """Warn with the test's own file and line as the place."""
    path, line, _ = item.location
    warnings.warn_explicit(message, category, str(item.config.rootpath / path), (line or 0) + 1)


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """Run a sampled test's body once per sample and turn the passes into a verdict."""
    spec = pyfuncitem.stash.get(SPEC, None)
    if spec is None:
        return None
    state = pyfuncitem.config.stash[STATE]
    result = _run_samples(pyfuncitem, spec)
    pyfuncitem.stash[CASE] = result
    categories = {o.category for s in result.samples for o in s.outcomes}
    advice = sample_count_advice(result.case, spec.n, categories or None)
    if advice:
        _warn_at(pyfuncitem, advice, SamplingWarning)
    if result.verdict == "pass":
        return True
    if result.verdict == "observe" and not state.observe_fails:
        _warn_at(pyfuncitem, f"observe: {result.summary()}", ObserveWarning)
        return True
    pytest.fail(_failure_report(result), pytrace=False)


def _unsampled_case(item: pytest.Item, call: pytest.CallInfo[None]) -> SampledResult | None:
    funcargs: dict[str, Any] = getattr(item, "funcargs", None) or {}
    recorder = funcargs.get(CHECKS_FIXTURE)
    if not isinstance(recorder, SampleChecks) or not recorder.outcomes:
        return None
    failure = None
    if call.excinfo is not None and not call.excinfo.errisinstance(pytest.skip.Exception):
        failure = _failure_text(call.excinfo.value)
    return SampledResult(item.nodeid, 1, 1, (recorder.result(failure),), recorder.descriptions)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Attach the case result and flaky outcomes to the reports (they travel to xdist's
    controller with the report)."""
    report: pytest.TestReport = yield
    if report.when == "call":
        case = item.stash.get(CASE, None) or _unsampled_case(item, call)
        if case is not None:
            report.replaygate_case = case.to_json()  # type: ignore[attr-defined]
            report.replaygate_verdict = case.verdict  # type: ignore[attr-defined]
    phases = item.stash.get(FLAKY_PHASES, None)
    if phases is not None:
        phases.append(report)
        if report.when == "teardown":
            outcomes = [*item.stash[FLAKY_PRIOR], outcome_of(phases)]
            report.replaygate_flaky = outcomes  # type: ignore[attr-defined]
    return report


# -- flaky runs ------------------------------------------------------------------------


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
    """With ``--flaky-runs N``: run an unsampled test N times, log the last run."""
    runs = item.config.stash[STATE].flaky_runs
    if runs < 2 or SPEC in item.stash:
        return None
    item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    prior = [
        outcome_of(runtestprotocol(item, log=False, nextitem=nextitem)) for _ in range(runs - 1)
    ]
    item.stash[FLAKY_PRIOR] = prior
    item.stash[FLAKY_PHASES] = []
    runtestprotocol(item, log=True, nextitem=nextitem)
    item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
    return True


# -- reporting -------------------------------------------------------------------------


def pytest_report_teststatus(
    report: pytest.TestReport, config: pytest.Config
) -> tuple[str, str, tuple[str, dict[str, bool]]] | None:
    """Show an observed case as ``o`` / ``OBSERVE`` rather than a plain pass."""
    observed = getattr(report, "replaygate_verdict", None) == "observe"
    if report.when == "call" and report.passed and observed:
        return "observed", "o", ("OBSERVE", {"yellow": True})
    return None


class _Collector:
    """Collects cases and flaky outcomes from the reports (in the controlling process)."""

    def __init__(self, state: _State) -> None:
        self.state = state

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Keep a case's result, queue an observation, keep flaky outcomes."""
        case = getattr(report, "replaygate_case", None)
        if case is not None and report.when == "call":
            result = SampledResult.from_json(case)
            self.state.cases.append(result)
            if result.verdict == "observe":
                observation = Observation.of(result)
                append_observation(self.state.queue, observation)
                self.state.observed.append(observation)
        flaky = getattr(report, "replaygate_flaky", None)
        if flaky is not None:
            self.state.flaky_outcomes[report.nodeid] = list(flaky)

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Write the results file and flaky report; exit 1 when a test was flaky."""
        state = self.state
        if state.results is not None:
            write_results(state.results, state.cases)
        if state.flaky_runs:
            flaky = state.flaky()
            if state.flaky_report is not None:
                _write_flaky_report(state, flaky)
            if flaky and session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """List this session's sampled verdicts, observation queue and flaky tests."""
        state = self.state
        sampled = [c for c in state.cases if c.n > 1]
        if sampled:
            counts = {
                v: sum(1 for c in sampled if c.verdict == v) for v in ("pass", "observe", "block")
            }
            terminalreporter.section("replaygate sampled cases")
            terminalreporter.line(", ".join(f"{n} {v}" for v, n in counts.items()))
            for observation in state.observed:
                terminalreporter.line(f"observe: {observation.summary()}")
            if state.observed:
                terminalreporter.line(f"observation queue: {state.queue}")
        if state.flaky_runs:
            terminalreporter.section("replaygate flaky tests")
            lines = report_lines(state.flaky(), len(state.flaky_outcomes), state.flaky_runs)
            for line in lines:
                terminalreporter.line(line)


def _write_flaky_report(state: _State, flaky: list[FlakyTest]) -> None:
    assert state.flaky_report is not None
    state.flaky_report.parent.mkdir(parents=True, exist_ok=True)
    document = {
        "runs": state.flaky_runs,
        "tests": len(state.flaky_outcomes),
        "flaky": [{"nodeid": t.nodeid, "outcomes": list(t.outcomes)} for t in flaky],
        "failed_every_run": sorted(
            node
            for node, outcomes in state.flaky_outcomes.items()
            if all(o != "passed" and o != "skipped" for o in outcomes)
        ),
    }
    state.flaky_report.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
