"""Running a sampled test once per sample, and an unsampled one N times for flaky runs."""

from __future__ import annotations

import dataclasses
import json
import warnings
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

import pytest
from _pytest.outcomes import Failed
from _pytest.runner import runtestprotocol

from replaygate.errors import timed_out
from replaygate.pytest_plugin.caught import caught_since, checked_raised
from replaygate.pytest_plugin.fixture_info import argnames
from replaygate.pytest_plugin.sampling_state import (
    CASE,
    CHECKS_FIXTURE,
    FLAKY_PHASES,
    FLAKY_PRIOR,
    SAMPLE_FIXTURE,
    SPEC,
    STATE,
    UNCHECKED,
)

if TYPE_CHECKING:
    from replaygate.sampling.recorder import SampleChecks
    from replaygate.sampling.results import SampledResult, SampleResult
    from replaygate.sampling.verdict import SampleSpec

_FAILURE_LINES = 6


class VerdictFailed(Failed, AssertionError):
    """A sampled test failed by its verdict (a ``block``, or an ``observe`` under
    ``--observe-fails``): ``pytest.fail``'s exception, shown as its message alone, and an
    :class:`AssertionError`, as what failed its samples was, so that an ``xfail`` marker
    with ``raises=AssertionError`` takes it as pytest takes a failed ``assert``."""

    __module__ = "builtins"  # named alone in pytest's summary, as pytest names its Failed


def _failure_text(err: BaseException) -> str:
    return _first_lines(str(err).strip() or type(err).__name__)


def _first_lines(text: str) -> str:
    """The first lines of ``text``, what a sample's failure keeps of it."""
    lines = text.splitlines()
    return "\n".join(lines[:_FAILURE_LINES] + (["..."] if len(lines) > _FAILURE_LINES else []))


def _run_samples(item: pytest.Function, spec: SampleSpec) -> SampledResult:
    """The case of a sampled test; a test whose samples ignored their index fails."""
    from replaygate.sampling.index_use import unused_index_watch, watching_replays

    watched = unused_index_watch(item.obj, spec.n, SAMPLE_FIXTURE)
    with watching_replays(watched) as watch:
        result = _sampled(item, spec)
    _refuse_unused_index(item, spec, watch)
    return result


def _refuse_unused_index(item: pytest.Function, spec: SampleSpec, watch: Any) -> None:
    """Fail a test whose body never read ``replaygate_sample`` yet replayed fixtures that
    hold several samples: every sample replayed the same one (a broken test, which an
    ``xfail`` marker does not excuse)."""
    from replaygate.sampling.index_use import unused_index_problem

    how = "ReplayModel(..., sample=replaygate_sample), or a RuleStub's Rule(..., sample=...)"
    problem = unused_index_problem(item.nodeid, spec.n, watch, how)
    if problem is not None:
        item.stash[UNCHECKED] = problem
        pytest.fail(problem, pytrace=False)


def _sampled(item: pytest.Function, spec: SampleSpec) -> SampledResult:
    """Run the body once per sample; the case it makes (or the skip or xfail of every
    sample)."""
    from replaygate.sampling.recorder import SampleChecks
    from replaygate.sampling.results import SampledResult

    kwargs = {name: item.funcargs[name] for name in argnames(item)}
    checked = CHECKS_FIXTURE in kwargs
    samples: list[SampleResult] = []
    descriptions: dict[str, str] = {}
    skips: list[str] = []
    xfails: list[str] = []
    for index in range(spec.n):
        recorder = SampleChecks(index)
        kwargs[SAMPLE_FIXTURE] = index
        if checked:
            kwargs[CHECKS_FIXTURE] = recorder
        since = len(checked_raised(item))
        ended: BaseException | None = None
        try:
            item.obj(**kwargs)
        except pytest.xfail.Exception as err:  # before pytest.fail's: it is one
            ended, reason = err, _failure_text(err)
            if not _failed_gates(recorder):  # a sample whose gate failed did not just xfail
                xfails.append(reason)
            sample = recorder.result(_xfailed(reason))
        except (AssertionError, pytest.fail.Exception) as err:
            if timed_out(err):  # the whole test's limit (all its samples): no failed sample
                err.add_note(
                    f"raised in sample {index} of {spec.n}: pytest-timeout's limit is the "
                    "whole test's, so the test ends here, with no verdict; no sample is retried"
                )
                raise
            ended, sample = err, recorder.result(_failure_text(err))
        except _skip_exceptions() as err:
            ended, reason = err, _failure_text(err)
            if not _failed_gates(recorder):  # a sample whose gate failed is no mere skip
                skips.append(reason)
            sample = recorder.result(_skipped(reason))
        except BaseException as err:
            err.add_note(f"raised in sample {index} of {spec.n}; no sample is retried")
            raise
        else:
            unchecked = recorder.unchecked(item.nodeid) if checked else None
            if unchecked is not None:
                item.stash[UNCHECKED] = unchecked
            sample = recorder.result(unchecked)
        samples.append(_with_caught(sample, caught_since(item, since, ended)))
        descriptions.update(recorder.descriptions)
    if len(skips) == spec.n:  # the test's condition, not a sample's (a missing resource)
        item.stash[_EVERY_SAMPLE_SKIPPED] = True
        pytest.skip(f"{skips[0]} (every one of the {spec.n} samples skipped)")
    if len(xfails) == spec.n:  # the test's expected failure, as pytest.xfail says of a test
        pytest.xfail(f"{xfails[0]} (every one of the {spec.n} samples xfailed)")
    return SampledResult(item.nodeid, spec.n, spec.floor, tuple(samples), descriptions)


def _with_caught(sample: SampleResult, caught: str | None) -> SampleResult:
    """``sample`` failed by the replay errors the code under test caught in it (``caught``
    says which), before anything else it failed with: the answer it checked is no
    recorded one (law 2). The test's teardown fails on them too."""
    if caught is None:
        return sample
    failure = "\n".join(filter(None, [_first_lines(caught), sample.failure]))
    return dataclasses.replace(sample, failure=failure)


def _failed_gates(recorder: SampleChecks) -> list[str]:
    """Each gate that failed in ``recorder``'s sample, with its message."""
    return [f"gate {o.name!r} failed: {o.message}" for o in recorder.outcomes if o.blocks]


def _skip_exceptions() -> tuple[type[BaseException], ...]:
    """What pytest reports as a skip: ``pytest.skip`` and unittest's ``SkipTest``."""
    import unittest

    return (pytest.skip.Exception, unittest.SkipTest)


def _skipped(reason: str) -> str:
    """The failure of a sample that skipped while others of its test did not."""
    return (
        f"skipped: {reason} (a sample that skips is counted as failed: it cannot skip the "
        "samples of its test that ran, and left out it would raise the pass rate)"
    )


def _xfailed(reason: str) -> str:
    """The failure of a sample that called ``pytest.xfail`` while others of its test did
    not."""
    return (
        f"xfailed: {reason} (a sample that xfails is counted as failed: an expected failure "
        "is no pass, and left out it would raise the pass rate; the test is xfailed only "
        "when every sample xfails)"
    )


def _kinds(result: SampledResult) -> set[str]:
    """The kinds of the checks a case evaluated, with ``gate`` for a plain assertion that
    failed a sample (a plain ``assert`` gates)."""
    kinds: set[str] = {o.kind for s in result.samples for o in s.outcomes}
    if any(s.failure is not None for s in result.samples):
        kinds.add("gate")
    return kinds


def _failure_report(result: SampledResult) -> str:
    why = (
        "every sample failed"
        if result.verdict == "block"
        else "fewer samples passed than the floor, and --observe-fails is on"
    )
    return "\n".join([f"{result.summary()} ({why})", *_failed_samples(result)])


def _failed_samples(result: SampledResult) -> list[str]:
    """One line per failed sample: its index and why it failed (each failed gate's
    message, or its failure outside the checks)."""
    lines = []
    for sample in result.samples:
        if sample.passed:
            continue
        failed = [f"{o.name}: {o.message}" for o in sample.outcomes if o.blocks]
        if sample.failure is not None:
            failed.append(sample.failure)
        detail = "\n".join(failed).replace("\n", "\n    ")
        lines.append(f"  sample {sample.index}: {detail}")
    return lines


def _advise(item: pytest.Function, message: str, category: type[Warning]) -> None:
    """Show ``message`` in pytest's warnings summary, at the test's own file and line.

    Advice (too few samples, an ``observe`` verdict) never decides a test's outcome: the
    verdict does, and ``--observe-fails``. The warning filters still apply (``ignore``
    hides it), but one that turns warnings into errors (``filterwarnings = ["error"]``)
    shows it as a warning rather than failing a test whose verdict passed.
    """
    path, line, _ = item.location
    filename, lineno = str(item.config.rootpath / path), (line or 0) + 1
    with warnings.catch_warnings(record=True) as shown:
        try:
            warnings.warn_explicit(message, category, filename, lineno)
        except category as err:  # an "error" filter
            shown.append(warnings.WarningMessage(err, category, filename, lineno))
    for warning in shown:
        item.config.hook.pytest_warning_recorded.call_historic(
            kwargs={
                "warning_message": warning,
                "when": "runtest",
                "nodeid": item.nodeid,
                "location": None,
            }
        )


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """Run a sampled test's body once per sample and turn the passes into a verdict."""
    spec = pyfuncitem.stash.get(SPEC, None)
    if spec is None:
        return None
    from replaygate.sampling.advice import (
        ObserveWarning,
        SamplingWarning,
        sample_count_advice,
        signals_only_advice,
    )

    state = pyfuncitem.config.stash[STATE]
    result = _run_samples(pyfuncitem, spec)
    pyfuncitem.stash[CASE] = result
    categories = {o.category for s in result.samples for o in s.outcomes}
    # a sample that failed stopped at its failure: the checks after it were never seen
    ran_through = any(sample.passed for sample in result.samples)
    advice = sample_count_advice(result.case, spec.n, categories or None, complete=ran_through)
    if advice:
        _advise(pyfuncitem, advice, SamplingWarning)
    signals_only = signals_only_advice(result.case, _kinds(result))
    if signals_only:
        _advise(pyfuncitem, signals_only, SamplingWarning)
    if result.verdict == "pass":
        return True
    if result.verdict == "observe" and not state.observe_fails:
        observed = "\n".join([f"observe: {result.summary()}", *_failed_samples(result)])
        _advise(pyfuncitem, observed, ObserveWarning)
        return True
    raise VerdictFailed(_failure_report(result), pytrace=False)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    """Fail an unsampled test whose ``replaygate_checks`` saw a gate fail, when the test
    went on and passed or skipped (it caught the :class:`AssertionError`): its one-sample
    case is a ``block``, and the results file and the test's outcome must agree. Fail one
    that asks for ``replaygate_checks`` and passed having evaluated none, as a sample that
    checked nothing fails."""
    if UNCHECKED in item.stash:  # from an earlier run of the test (--flaky-runs)
        del item.stash[UNCHECKED]
    skipped = None
    try:
        yield
    except _skip_exceptions() as err:
        skipped = err
    recorder = _unsampled_checks(item)
    failed = _failed_gates(recorder) if recorder is not None else []
    if not failed:
        if skipped is not None:
            raise skipped
        if recorder is not None and CHECKS_FIXTURE in argnames(item):
            unchecked = recorder.unchecked(item.nodeid, sampled=False)
            if unchecked is not None:  # it asked for the checks, ran none, and passed
                item.stash[UNCHECKED] = unchecked
                pytest.fail(unchecked, pytrace=False)
        return
    went_on = "went on" if skipped is None else f"skipped ({_failure_text(skipped)})"
    pytest.fail(
        f"{item.nodeid}: " + "; ".join(failed) + f". The test {went_on} after "
        "replaygate_checks.evaluate raised (the AssertionError was caught), but a failed "
        "gate fails the test: its one-sample case (n=1, floor=1) is a block. To test that "
        "a check fails, call check.evaluate(output) and look at the outcome it returns",
        pytrace=False,
    )


def _unsampled_checks(item: pytest.Item) -> SampleChecks | None:
    """The ``replaygate_checks`` of an unsampled test, or None (a sampled test's verdict
    decides its outcome and makes its case)."""
    if SPEC in item.stash:
        return None
    funcargs: dict[str, Any] = getattr(item, "funcargs", None) or {}
    recorder = funcargs.get(CHECKS_FIXTURE)
    if recorder is None:
        return None  # most tests: the recorder's module stays unimported
    from replaygate.sampling.recorder import SampleChecks

    return recorder if isinstance(recorder, SampleChecks) else None


def _unsampled_case(item: pytest.Item, call: pytest.CallInfo[None]) -> SampledResult | None:
    """The one-sample case (n=1, floor=1) of an unsampled test that evaluated checks."""
    recorder = _unsampled_checks(item)
    if recorder is None or not (recorder.outcomes or UNCHECKED in item.stash):
        return None
    from replaygate.sampling.results import SampledResult

    failure = None
    if call.excinfo is not None:
        if call.excinfo.errisinstance(_skip_exceptions()):
            return None  # skipped with no gate failed: no verdict, as a sampled test's
        if call.excinfo.errisinstance(pytest.xfail.Exception) and not _failed_gates(recorder):
            return None  # xfailed with no gate failed: as a sampled test whose samples all did
        failure = _failure_text(call.excinfo.value)
    return SampledResult(item.nodeid, 1, 1, (recorder.result(failure),), recorder.descriptions)


_EVERY_SAMPLE_SKIPPED = pytest.StashKey[bool]()


def _at_the_test(item: pytest.Item, report: pytest.TestReport) -> None:
    """Place the skip of every sample at the test, as pytest places a skip mark's: raised
    by the plugin, it was shown at the plugin's own line (``-rs``)."""
    if isinstance(report.longrepr, tuple):
        path, line = item.reportinfo()[:2]
        report.longrepr = (str(path), (line or 0) + 1, report.longrepr[2])


def case_text(case: SampledResult) -> str:
    """``case`` as the ASCII JSON text a report carries to pytest-xdist's controller: an
    output holding half of a surrogate pair (a reply with a bad escape), carried as such,
    made the worker fail to send the report, and the test was lost from the session's
    counts, which still exited 0. ``json.loads`` gives the surrogate back."""
    return json.dumps(case.to_json())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Attach the case result (as ASCII JSON text) and flaky outcomes to the reports (they
    travel to xdist's controller with the report), and, to a sampled test that failed with
    no verdict (an error in a sample), its sample count, for the summary. A test failed for checking
    nothing stays failed under an ``xfail`` marker, and so does a sampled test that failed
    with a sample that checked nothing: it is a broken test, not the failure the marker
    expects."""
    report: pytest.TestReport = yield
    xfailed = report.skipped and hasattr(report, "wasxfail")
    if report.when == "call" and report.skipped and item.stash.get(_EVERY_SAMPLE_SKIPPED, False):
        _at_the_test(item, report)
    if report.when == "call" and xfailed and UNCHECKED in item.stash:
        del report.wasxfail  # pytest's xfail marker took the failure for the expected one
        report.outcome = "failed"
    if report.when == "call":
        case = item.stash.get(CASE, None) or _unsampled_case(item, call)
        if case is not None:
            report.replaygate_case = case_text(case)  # type: ignore[attr-defined]
            report.replaygate_verdict = case.verdict  # type: ignore[attr-defined]
        elif report.failed and SPEC in item.stash:
            report.replaygate_no_verdict = item.stash[SPEC].n  # type: ignore[attr-defined]
    phases = item.stash.get(FLAKY_PHASES, None)
    if phases is not None:
        phases.append(report)
        if report.when == "teardown":
            from replaygate.sampling.flaky import outcome_of

            outcomes = [*item.stash[FLAKY_PRIOR], outcome_of(phases)]
            report.replaygate_flaky = outcomes  # type: ignore[attr-defined]
    return report


_TIMER = pytest.StashKey[Any]()
"""The settings of the timer pytest-timeout set for a test."""


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_timeout_set_timer(item: pytest.Item, settings: Any) -> None:
    """Keep the settings of the timer pytest-timeout sets for ``item`` (and set it)."""
    item.stash[_TIMER] = settings


def _restart_timer(item: pytest.Item) -> None:
    """Give the next flaky run of ``item`` the whole of pytest-timeout's limit: its timer,
    set once for the test's whole run (setup, call and teardown), spanned all N runs,
    failed a later one, listed as flaky, and let the runs after it (and after any failed
    run, which cancels it) go with no limit. A timer of the call alone
    (``timeout_func_only``) is set for each call already."""
    settings = item.stash.get(_TIMER, None)
    if settings is not None and not getattr(settings, "func_only", False):
        hook = item.config.pluginmanager.hook
        hook.pytest_timeout_cancel_timer(item=item)
        hook.pytest_timeout_set_timer(item=item, settings=settings)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
    """With ``--flaky-runs N``: run an unsampled test N times, each with pytest-timeout's
    whole limit, log the last run."""
    runs = item.config.stash[STATE].flaky_runs
    if runs < 2 or SPEC in item.stash:
        return None
    from replaygate.pytest_plugin.reruns import RETRY_PLUGIN, item_retries, without_retries
    from replaygate.sampling.flaky import outcome_of

    if item_retries(item)[0] == RETRY_PLUGIN:  # each of the N runs counts as it ended
        without_retries(item)
    item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    prior = []
    for _ in range(runs - 1):
        prior.append(outcome_of(runtestprotocol(item, log=False, nextitem=nextitem)))
        _restart_timer(item)
    item.stash[FLAKY_PRIOR] = prior
    item.stash[FLAKY_PHASES] = []
    runtestprotocol(item, log=True, nextitem=nextitem)
    item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
    return True
