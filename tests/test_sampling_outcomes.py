"""What the sampling plugin reports agrees with pytest's outcome: no silent green.

A sampled test's verdict, its results file and pytest's outcome of the test say the
same, whatever the body does (checks nothing, skips, catches its gate's failure, runs
under ``filterwarnings = ["error"]``), and ``--sampling-results`` replaces no file it
did not write. Each test runs pytest on a project of its own (pytester).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from nested_pytest import sessions_loading

pytestmark = pytest.mark.slow  # each test runs a pytest session of its own

# imported once for the module: pytester forgets what each session imports, and every
# session here loads the sampling plugin's checks and results
sessions_find_their_modules = sessions_loading("replaygate.assertions")

HEADER = """
import pytest
from replaygate.assertions import contains_check

GATE = contains_check(["rag"], kind="gate")
"""


def _cases(pytester: pytest.Pytester, name: str = "r.json") -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = json.loads((pytester.path / name).read_text())["cases"]
    return cases


def test_a_sample_that_evaluates_no_check_is_failed_naming_the_test_and_sample(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        test_unchecked=HEADER
        + """
ANSWERS = ["rag one", "", "", "", "rag five"]


@pytest.mark.sampled(n=5, floor=4)
def test_guarded(replaygate_sample, replaygate_checks):
    text = ANSWERS[replaygate_sample]
    if text:
        replaygate_checks.evaluate(text, GATE)


@pytest.mark.sampled(n=3, floor=1)
def test_never(replaygate_sample, replaygate_checks):
    pass


@pytest.mark.sampled(n=3, floor=3)
def test_plain_asserts_only(replaygate_sample):
    assert replaygate_sample < 3
"""
    )
    result = pytester.runpytest(
        "--observe-fails", "--sampling-results=r.json", "-p", "no:recording", "-W", "ignore"
    )
    result.assert_outcomes(passed=1, failed=2)
    out = result.stdout.str()
    assert "test_unchecked.py::test_guarded: 2/5 samples passed (floor 4) -> observe" in out
    assert (
        "  sample 1: checked nothing: sample 1 of test_unchecked.py::test_guarded evaluated no "
        "check (replaygate_checks.evaluate was not called) and failed no assertion, so it is "
        "not counted as passed; evaluate a gate or signal in every sample"
    ) in out
    assert "test_unchecked.py::test_never: 0/3 samples passed (floor 1) -> block" in out
    guarded, never, plain = _cases(pytester)
    assert (guarded["passes"], guarded["verdict"]) == (2, "observe")
    assert [s["passed"] for s in guarded["sample_results"]] == [True, False, False, False, True]
    assert guarded["sample_results"][3]["failure"].startswith(
        "checked nothing: sample 3 of test_unchecked.py::test_guarded "
    )
    assert (never["passes"], never["verdict"]) == (0, "block")
    assert (plain["passes"], plain["verdict"]) == (3, "pass")  # asked for no checks


SKIPS = (
    HEADER
    + """
WRONG = ["wrong answer", "wrong", "", "wrong", "wrong"]
MOSTLY_RIGHT = ["rag", "rag", "", "rag", "rag"]


def check_or_skip(text, checks):
    if not text:
        pytest.skip("model returned nothing")
    checks.evaluate(text, GATE)


@pytest.mark.sampled(n=5, floor=4)
def test_skip_after_failures(replaygate_sample, replaygate_checks):
    check_or_skip(WRONG[replaygate_sample], replaygate_checks)


@pytest.mark.sampled(n=5, floor=4)
def test_one_skip(replaygate_sample, replaygate_checks):
    check_or_skip(MOSTLY_RIGHT[replaygate_sample], replaygate_checks)


@pytest.mark.sampled(n=5, floor=5)
def test_every_sample_skips(replaygate_sample, replaygate_checks):
    pytest.skip("needs the staging index")
"""
)


def test_a_skip_in_one_sample_counts_as_a_failed_sample_and_keeps_the_others(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_skips=SKIPS)
    result = pytester.runpytest("--sampling-results=r.json", "-rs", "-p", "no:recording")
    result.assert_outcomes(passed=1, failed=1, skipped=1)
    out = result.stdout.str()
    assert "test_skips.py::test_skip_after_failures: 0/5 samples passed (floor 4) -> block" in out
    assert (
        "  sample 2: skipped: model returned nothing (a sample that skips is counted as "
        "failed: it cannot skip the samples of its test that ran, and left out it would "
        "raise the pass rate)"
    ) in out
    (skipped,) = [line for line in result.outlines if line.startswith("SKIPPED [1] ")]
    where, _, why = skipped.removeprefix("SKIPPED [1] ").partition(": ")
    assert why == "needs the staging index (every one of the 5 samples skipped)"
    file, line = where.split(":")  # the test's, as a skip mark's; it was the plugin's line
    shown = (pytester.path / file).read_text().splitlines()[int(line) - 1]
    assert shown == "@pytest.mark.sampled(n=5, floor=5)", shown
    after_failures, one_skip = _cases(pytester)  # the test that skipped has no verdict
    assert (after_failures["passes"], after_failures["verdict"]) == (0, "block")
    assert after_failures["assertions"]["contains"]["samples"] == 4
    assert (one_skip["passes"], one_skip["verdict"]) == (4, "pass")
    assert one_skip["sample_results"][2]["failure"].startswith("skipped: model returned nothing")


def test_an_unsampled_test_that_catches_its_failed_gate_fails(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_caught=HEADER
        + """
SIGNAL = contains_check(["rag"], kind="signal", name="mentions")


def test_swallowed(replaygate_checks):
    try:
        replaygate_checks.evaluate("nothing here", GATE)
    except AssertionError:
        pass


def test_failed_signal(replaygate_checks):
    replaygate_checks.evaluate("nothing here", SIGNAL)
"""
    )
    result = pytester.runpytest("--sampling-results=r.json", "-p", "no:recording")
    result.assert_outcomes(passed=1, failed=1)
    assert (
        "test_caught.py::test_swallowed: gate 'contains' failed: text is missing 1 of 1 "
        "required piece(s): 'rag'; text: 'nothing here'. The test went on after "
        "replaygate_checks.evaluate raised (the AssertionError was caught), but a failed gate "
        "fails the test: its one-sample case (n=1, floor=1) is a block"
    ) in result.stdout.str()
    assert [(c["case"], c["verdict"]) for c in _cases(pytester)] == [
        ("test_caught.py::test_swallowed", "block"),
        ("test_caught.py::test_failed_signal", "pass"),
    ]


CAUGHT_THEN_SKIPPED = (
    HEADER
    + """
def test_skips_its_failure(replaygate_checks):
    try:
        replaygate_checks.evaluate("nothing here", GATE)
    except AssertionError:
        pytest.skip("the model is off today")


@pytest.mark.sampled(n=3, floor=3)
def test_every_sample_skips_its_failure(replaygate_sample, replaygate_checks):
    try:
        replaygate_checks.evaluate("nothing here", GATE)
    except AssertionError:
        pytest.skip("the model is off today")


def test_checked_then_skipped(replaygate_checks):
    replaygate_checks.evaluate("rag", GATE)
    pytest.skip("the index is not there")
"""
)


def test_a_skip_after_a_caught_gate_failure_does_not_hide_it(pytester: pytest.Pytester) -> None:
    # the failed gates were caught and the test skipped: pytest said skipped, the results
    # file said block (or, sampled, held no case at all)
    pytester.makepyfile(test_hidden=CAUGHT_THEN_SKIPPED)
    result = pytester.runpytest("--sampling-results=r.json", "-p", "no:recording")
    result.assert_outcomes(failed=2, skipped=1)
    out = result.stdout.str()
    assert (
        "test_hidden.py::test_skips_its_failure: gate 'contains' failed: text is missing 1 of "
        "1 required piece(s): 'rag'; text: 'nothing here'. The test skipped (the model is off "
        "today) after replaygate_checks.evaluate raised (the AssertionError was caught), but "
        "a failed gate fails the test: its one-sample case (n=1, floor=1) is a block. To test "
        "that a check fails, call check.evaluate(output) and look at the outcome it returns"
    ) in out
    assert "test_every_sample_skips_its_failure: 0/3 samples passed (floor 3) -> block" in out
    # a test that skipped with no gate failed has no verdict, as a sampled one has none
    assert [(c["case"], c["verdict"]) for c in _cases(pytester)] == [
        ("test_hidden.py::test_skips_its_failure", "block"),
        ("test_hidden.py::test_every_sample_skips_its_failure", "block"),
    ]


def test_a_fixture_that_evaluates_checks_for_a_sampled_test_is_refused(
    pytester: pytest.Pytester,
) -> None:
    # the fixture got one recorder for the whole test: the second sample failed with
    # "check 'contains' was evaluated twice in sample 0", and a test that also asked for
    # replaygate_checks had samples that "checked nothing"
    pytester.makepyfile(
        test_helper=HEADER
        + """
@pytest.fixture
def check(replaygate_checks):
    return lambda text: replaygate_checks.evaluate(text, GATE)


@pytest.mark.sampled(n=3, floor=3)
def test_x(replaygate_sample, check):
    check("rag")
"""
    )
    result = pytester.runpytest("-p", "no:recording")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*test_helper.py::test_x (sampled n=3, floor=3): fixture(s) check request "
            "replaygate_checks, but fixtures are set up once per test, not once per sample: "
            "what they evaluate would count in no sample; request replaygate_checks in the "
            "test function and pass it on"
        ]
    )


ADVISED = (
    HEADER
    + """
ANSWERS = ["rag", "rag", "no", "rag", "no"]


@pytest.mark.sampled(n=2, floor=1)
def test_two(replaygate_sample, replaygate_checks):
    replaygate_checks.evaluate("rag", GATE)


@pytest.mark.sampled(n=5, floor=4)
def test_observe(replaygate_sample, replaygate_checks):
    replaygate_checks.evaluate(ANSWERS[replaygate_sample], GATE)
"""
)


def test_advice_under_filterwarnings_error_is_a_warning_not_a_failure(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeini("[pytest]\nfilterwarnings = error\n")
    pytester.makepyfile(test_advised=ADVISED)
    result = pytester.runpytest("--sampling-results=r.json", "-p", "no:recording")
    assert result.parseoutcomes() == {"passed": 1, "observed": 1, "warnings": 2}
    out = result.stdout.str()
    assert "SamplingWarning: test_advised.py::test_two: 2 sample(s) on a semantic" in out
    assert "ObserveWarning: observe: test_advised.py::test_observe: 3/5 samples passed" in out
    assert "Traceback" not in out
    assert "1 pass, 1 observe, 0 block" in out
    assert [c["verdict"] for c in _cases(pytester)] == ["pass", "observe"]
    ignored = pytester.runpytest(
        "-p", "no:recording", "-W", "ignore::replaygate.sampling.advice.SamplingWarning"
    )
    assert ignored.parseoutcomes() == {"passed": 1, "observed": 1, "warnings": 1}  # filtered
    strict = pytester.runpytest("-p", "no:recording", "--observe-fails")
    strict.assert_outcomes(passed=1, failed=1, warnings=1)  # the switch for observe


def test_an_eval_results_file_is_not_replaced_by_sampling_results(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_m="def test_a():\n    open('ran.txt', 'w').close()\n")
    evaluated = pytester.path / "results.json"
    text = json.dumps(
        {
            "format": "replaygate.sampling.results",
            "version": 1,
            "eval": {"time": "2026-12-01T00:00:00Z", "commit": None, "mode": "replay"},
            "metrics": {"success": 1.0},
            "cases": [],
        }
    )
    evaluated.write_text(text)
    result = pytester.runpytest("--sampling-results=results.json", "-p", "no:recording")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert (
        f"--sampling-results: {evaluated}: holds eval results (its `eval` and `metrics` are "
        "what `replaygate gate`, `report`, `upgrade` and `eval merge` read), not a sampling "
        "results file of a pytest session: writing the output there would replace it"
    ) in result.stderr.str()
    assert evaluated.read_text() == text
    assert not (pytester.path / "ran.txt").exists()
    evaluated.write_text('{"format": "replaygate.sampling.results", "version": 1, "cases": []}')
    replaced = pytester.runpytest("--sampling-results=results.json", "-p", "no:recording")
    replaced.assert_outcomes(passed=1)  # a sampling results file is the option's own


XFAILS = (
    HEADER
    + """
MOSTLY_RIGHT = ["rag", "rag", "", "rag", "rag"]


def check_or_xfail(text, checks):
    if not text:
        pytest.xfail("the model returns nothing on this one (known)")
    checks.evaluate(text, GATE)


@pytest.mark.sampled(n=5, floor=4)
def test_one_xfail(replaygate_sample, replaygate_checks):
    check_or_xfail(MOSTLY_RIGHT[replaygate_sample], replaygate_checks)


@pytest.mark.sampled(n=5, floor=5)
def test_one_xfail_below_the_floor(replaygate_sample, replaygate_checks):
    check_or_xfail(MOSTLY_RIGHT[replaygate_sample], replaygate_checks)


@pytest.mark.sampled(n=3, floor=2)
def test_every_sample_xfails(replaygate_sample, replaygate_checks):
    pytest.xfail("the planner is not written yet")


@pytest.mark.xfail(strict=True, reason="strict marker")
@pytest.mark.sampled(n=3, floor=3)
def test_strict_marker_passes(replaygate_sample, replaygate_checks):
    replaygate_checks.evaluate("rag", GATE)


@pytest.mark.xfail(strict=True, reason="strict marker")
@pytest.mark.sampled(n=3, floor=3)
def test_strict_marker_blocks(replaygate_sample, replaygate_checks):
    replaygate_checks.evaluate("nothing", GATE)
"""
)


@pytest.mark.native_tracebacks  # the samples' words, not the source of each frame
def test_an_xfail_in_one_sample_is_a_failed_sample_that_says_so(
    pytester: pytest.Pytester,
) -> None:
    # pytest.xfail raises pytest.fail's exception: the sample was counted as a plain
    # failure with the bare reason, and a test whose every sample xfailed failed
    pytester.makepyfile(test_xfails=XFAILS)
    result = pytester.runpytest(
        "--sampling-results=r.json", "--observe-fails", "-rxXf", "-p", "no:recording"
    )
    result.assert_outcomes(passed=1, failed=2, xfailed=2)
    out = result.stdout.str()
    assert "test_one_xfail_below_the_floor: 4/5 samples passed (floor 5) -> observe" in out
    assert (
        "  sample 2: xfailed: the model returns nothing on this one (known) (a sample that "
        "xfails is counted as failed: an expected failure is no pass, and left out it would "
        "raise the pass rate; the test is xfailed only when every sample xfails)"
    ) in out
    assert (
        "XFAIL test_xfails.py::test_every_sample_xfails - the planner is not written yet "
        "(every one of the 3 samples xfailed)"
    ) in out
    assert "XFAIL test_xfails.py::test_strict_marker_blocks - strict marker" in out
    assert "FAILED test_xfails.py::test_strict_marker_passes" in out  # XPASS(strict)
    cases = {c["case"].split("::")[1]: c for c in _cases(pytester)}
    assert "test_every_sample_xfails" not in cases  # xfailed, as a test: no verdict
    one = cases["test_one_xfail"]
    assert (one["passes"], one["verdict"]) == (4, "pass")
    assert one["sample_results"][2]["failure"].startswith("xfailed: the model returns nothing")
    assert one["assertions"]["assert"]["passes"] == 4
    assert cases["test_strict_marker_blocks"]["verdict"] == "block"


def test_an_unsampled_test_that_asks_for_checks_and_evaluates_none_fails(
    pytester: pytest.Pytester,
) -> None:
    # a sampled test's sample that checked nothing failed, the same test unsampled passed
    pytester.makepyfile(
        test_unchecked=HEADER
        + """
def test_guarded(replaygate_checks):
    answer = ""
    if answer:
        replaygate_checks.evaluate(answer, GATE)


def test_checked(replaygate_checks):
    replaygate_checks.evaluate("rag", GATE)


def test_plain_assert_fails_first(replaygate_checks):
    assert 1 == 2


def test_skips(replaygate_checks):
    pytest.skip("no index today")


@pytest.fixture
def helper(replaygate_checks):
    return replaygate_checks


def test_through_a_fixture_only(helper):
    pass
"""
    )
    result = pytester.runpytest("--sampling-results=r.json", "-p", "no:recording")
    result.assert_outcomes(passed=2, failed=2, skipped=1)
    out = result.stdout.str()
    assert (
        "checked nothing: test_unchecked.py::test_guarded asks for replaygate_checks but "
        "evaluated no check (replaygate_checks.evaluate was not called) and failed no "
        "assertion, so it does not pass; evaluate a gate or signal, or take replaygate_checks "
        "out of the test's arguments"
    ) in out
    assert "assert 1 == 2" in out  # its own failure, not the checks'
    assert [(c["case"], c["verdict"]) for c in _cases(pytester)] == [
        ("test_unchecked.py::test_guarded", "block"),
        ("test_unchecked.py::test_checked", "pass"),
    ]
    guarded = _cases(pytester)[0]["sample_results"][0]
    assert guarded["failure"].startswith("checked nothing: test_unchecked.py::test_guarded ")


def test_an_unsampled_test_that_xfails_with_no_gate_failed_has_no_verdict(
    pytester: pytest.Pytester,
) -> None:
    # pytest said xfailed, the results file said block: 0 of 1 passed, failure "later"
    pytester.makepyfile(
        test_xfail=HEADER
        + """
def test_checked_then_xfailed(replaygate_checks):
    replaygate_checks.evaluate("rag", GATE)
    pytest.xfail("the planner is not written yet")


def test_caught_then_xfailed(replaygate_checks):
    try:
        replaygate_checks.evaluate("nothing here", GATE)
    except AssertionError:
        pytest.xfail("the model is off today")


@pytest.mark.xfail(reason="known")
def test_marked(replaygate_checks):
    replaygate_checks.evaluate("nothing here", GATE)
"""
    )
    result = pytester.runpytest("--sampling-results=r.json", "-p", "no:recording")
    result.assert_outcomes(xfailed=3)
    assert [(c["case"], c["verdict"]) for c in _cases(pytester)] == [
        ("test_xfail.py::test_caught_then_xfailed", "block"),  # its gate failed
        ("test_xfail.py::test_marked", "block"),
    ]


def test_an_xfail_marker_raising_assertion_error_takes_a_blocked_sampled_test(
    pytester: pytest.Pytester,
) -> None:
    # the verdict failed the test with pytest.fail's exception alone: raises=AssertionError
    # did not match it, and the test whose every sample failed its gate was FAILED
    pytester.makepyfile(
        test_raises=HEADER
        + """
@pytest.mark.xfail(raises=AssertionError, reason="known")
@pytest.mark.sampled(n=3, floor=2)
def test_blocked(replaygate_sample, replaygate_checks):
    replaygate_checks.evaluate("nothing here", GATE)


@pytest.mark.xfail(raises=KeyError, reason="another failure")
@pytest.mark.sampled(n=3, floor=2)
def test_blocked_other(replaygate_sample, replaygate_checks):
    replaygate_checks.evaluate("nothing here", GATE)


@pytest.mark.sampled(n=3, floor=2)
def test_blocked_unmarked(replaygate_sample, replaygate_checks):
    replaygate_checks.evaluate("nothing here", GATE)
"""
    )
    result = pytester.runpytest("-p", "no:recording", "-W", "ignore")
    result.assert_outcomes(failed=2, xfailed=1)
    out = result.stdout.str()
    assert "Traceback" not in out and "raise VerdictFailed" not in out  # the message alone
    assert "test_raises.py::test_blocked_unmarked: 0/3 samples passed (floor 2) -> block" in out


def test_a_test_that_checked_nothing_is_no_expected_failure_of_an_xfail_marker(
    pytester: pytest.Pytester,
) -> None:
    # under @pytest.mark.xfail the failure for checking nothing was taken for the
    # expected one: XFAIL, where the test (passing before) was an XPASS(strict) failure
    pytester.makepyfile(
        test_marked=HEADER
        + """
@pytest.mark.xfail(strict=True, reason="the planner is not written yet")
def test_guarded(replaygate_checks):
    answer = ""
    if answer:
        replaygate_checks.evaluate(answer, GATE)


@pytest.mark.xfail(reason="the planner is not written yet")
def test_expected(replaygate_checks):
    replaygate_checks.evaluate("nothing here", GATE)


@pytest.mark.xfail(strict=True, reason="the planner is not written yet")
@pytest.mark.sampled(n=3, floor=3)
def test_sampled_guarded(replaygate_sample, replaygate_checks):
    if replaygate_sample == 1:
        replaygate_checks.evaluate("nothing here", GATE)


@pytest.mark.xfail(strict=True, reason="the planner is not written yet")
@pytest.mark.sampled(n=3, floor=3)
def test_sampled_expected(replaygate_sample, replaygate_checks):
    replaygate_checks.evaluate("nothing here", GATE)


@pytest.mark.xfail(reason="the planner is not written yet")
@pytest.mark.sampled(n=3, floor=1)
def test_sampled_xpass(replaygate_sample, replaygate_checks):
    if replaygate_sample:
        replaygate_checks.evaluate("rag", GATE)
"""
    )
    result = pytester.runpytest("-p", "no:recording", "-rfX", "-W", "ignore")
    result.assert_outcomes(failed=2, xfailed=2, xpassed=1)
    result.stdout.fnmatch_lines(["FAILED test_marked.py::test_guarded - *checked nothing: *"])
    result.stdout.fnmatch_lines(["FAILED test_marked.py::test_sampled_guarded - VerdictFailed: *"])
    assert "  sample 0: checked nothing: sample 0 of test_marked.py::test_sampled_guarded" in (
        result.stdout.str()
    )


TIMED_OUT = """
import pathlib
import pytest
import pytest_timeout

@pytest.mark.sampled(n=5, floor=4)
def test_hangs(replaygate_sample):
    with pathlib.Path("ran.txt").open("a") as ran:
        ran.write(str(replaygate_sample))
    if replaygate_sample == 1:
        pytest_timeout.fire()
"""

FAKE_TIMEOUT = """
import pytest

def fire():  # as pytest-timeout's signal handler does when the test's limit is up
    pytest.fail("Timeout (>1.0s) from pytest-timeout.")
"""


def test_a_timeout_in_a_sample_ends_the_test_and_is_no_failed_sample(
    pytester: pytest.Pytester,
) -> None:
    """pytest-timeout's limit is the whole test's: counted as one failed sample, the test
    passed its floor (4 of 5) and the samples after it ran with no limit."""
    pytester.makepyfile(test_hang=TIMED_OUT, pytest_timeout=FAKE_TIMEOUT)
    result = pytester.runpytest("-p", "no:cacheprovider", "--sampling-results=r.json")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*raised in sample 1 of 5: pytest-timeout's limit is the whole*"])
    assert (pytester.path / "ran.txt").read_text() == "01"
    assert _cases(pytester) == []
