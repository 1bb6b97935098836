"""Flaky detection: ``--flaky-runs`` and ``replaygate flaky`` find a test made flaky on purpose."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner
from pytest import TestReport

from nested_pytest import UNUSED_PLUGINS, sessions_loading
from replaygate.cli import assert_cmds
from replaygate.cli.assert_cmds import EVERY_RUN, flaky
from replaygate.sampling.flaky import (
    ADVICE,
    FlakyTest,
    failed_every_run,
    find_flaky,
    outcome_of,
)
from timeout_hooks import TIMEOUT_HOOKS

pytestmark = pytest.mark.native_tracebacks  # nested sessions' failures as Python prints them

# fails on its first run, passes on its second: its outcome depends on a counter file
FLAKY = """
from pathlib import Path

def test_counter():
    counter = Path(__file__).with_name("counter.txt")
    runs = int(counter.read_text()) if counter.exists() else 0
    counter.write_text(str(runs + 1))
    assert runs % 2 == 1, f"run {runs}"
"""
STABLE = """
import pytest

def test_stable():
    pass

def test_always_fails():
    assert False

@pytest.mark.sampled(n=3, floor=2)
def test_sampled(replaygate_sample):
    pass
"""


sessions_find_their_modules = sessions_loading(slow_only=True)


@pytest.mark.slow
def test_flaky_runs_finds_the_flaky_test(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_counter_file=FLAKY, test_stable=STABLE)
    result = pytester.runpytest(
        "--flaky-runs=2",
        "--flaky-report=out/flaky.json",
        "--tb=no",
        "-p",
        "no:randomly",
        *UNUSED_PLUGINS,
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=3, failed=1)  # the flaky test's last run passed
    report = json.loads((pytester.path / "out" / "flaky.json").read_text())
    assert report == {
        "runs": 2,
        "tests": 3,
        "flaky": [
            {"nodeid": "test_counter_file.py::test_counter", "outcomes": ["failed", "passed"]}
        ],
        "failed_every_run": ["test_stable.py::test_always_fails"],
    }
    lines = result.stdout.lines
    start = lines.index("1 flaky test(s) out of 3 run 2 times:")
    assert lines[start + 1 : start + 3] == [
        "  test_counter_file.py::test_counter: failed, passed",
        ADVICE,
    ]
    assert (pytester.path / "counter.txt").read_text() == "2"


@pytest.mark.slow
def test_stable_tests_are_not_flaky(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_stable="def test_a():\n    pass\n\ndef test_b():\n    pass\n")
    result = pytester.runpytest("--flaky-runs=3", *UNUSED_PLUGINS)
    assert result.ret == pytest.ExitCode.OK
    assert (
        "no flaky tests: none of 2 unsampled test(s) passed in one of 3 runs and failed in another"
        in result.stdout.lines
    )


@pytest.mark.slow
@pytest.mark.autoload_plugins  # --reruns is pytest-rerunfailures'
def test_flaky_options_are_checked(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_stable="def test_a():\n    pass\n")
    result = pytester.runpytest("--flaky-runs=1", *UNUSED_PLUGINS)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--flaky-runs must be at least 2, got 1" in result.stderr.str()
    result = pytester.runpytest("--flaky-report=flaky.json", *UNUSED_PLUGINS)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--flaky-report needs --flaky-runs N" in result.stderr.str()
    result = pytester.runpytest("--flaky-runs=2", "--reruns=1", *UNUSED_PLUGINS)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "reruns hide exactly the flakiness being looked for" in result.stderr.str()


def test_find_flaky() -> None:
    found = find_flaky({"a": ["passed", "passed"], "b": ["passed", "error in setup"]})
    assert found == [FlakyTest("b", ("passed", "error in setup"))]
    assert str(found[0]) == "b: passed, error in setup"


def test_a_test_that_never_passed_is_a_real_failure_not_flaky() -> None:
    runs = {
        "broken": ["failed", "error in setup"],  # its outcomes differ, but it never passed
        "skipped_or_passed": ["passed", "skipped"],  # never red: nothing to sample
        "flaky": ["skipped", "error in call", "passed"],
    }
    assert find_flaky(runs) == [FlakyTest("flaky", ("skipped", "error in call", "passed"))]
    assert failed_every_run(runs) == ["broken"]


# never passes: its fixture breaks every other run, and the test fails when it does not
NEVER_PASSES = """
from pathlib import Path

import pytest

@pytest.fixture
def alternating():
    counter = Path(__file__).with_name("setups.txt")
    runs = int(counter.read_text()) if counter.exists() else 0
    counter.write_text(str(runs + 1))
    if runs % 2:
        raise RuntimeError("setup broken")

def test_always_broken(alternating):
    assert False
"""


@pytest.mark.slow  # a pytest session of its own
def test_a_failure_and_a_setup_error_are_no_flakiness(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_broken=NEVER_PASSES)
    result = pytester.runpytest(
        "--flaky-runs=2", "--flaky-report=flaky.json", "--tb=no", "-p", "no:randomly",
        *UNUSED_PLUGINS,
    )  # fmt: skip
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert json.loads((pytester.path / "flaky.json").read_text()) == {
        "runs": 2,
        "tests": 1,
        "flaky": [],
        "failed_every_run": ["test_broken.py::test_always_broken"],
    }
    assert (
        "no flaky tests: none of 1 unsampled test(s) passed in one of 2 runs and failed in another"
        in result.stdout.lines
    )


@pytest.mark.slow
def test_the_cli_lists_flaky_tests_and_exits_1(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_counter_file=FLAKY, test_stable=STABLE)
    monkeypatch.chdir(pytester.path)
    result = CliRunner().invoke(flaky, ["--", "-q", "-p", "no:cacheprovider", *UNUSED_PLUGINS])
    assert result.exit_code == 1, result.output
    assert result.output.endswith(  # a test failing every run is listed beside the flaky one
        "replaygate flaky: 1 flaky test(s):\n"
        "  test_counter_file.py::test_counter: failed, passed\n"
        f"{ADVICE}\n"
        f"1 test(s) failed every run ({EVERY_RUN}):\n"
        "  test_stable.py::test_always_fails\n"
    )


@pytest.fixture
def pytest_in_process(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """The ``python -m pytest`` that ``replaygate flaky`` starts, run as a nested session of
    this process, its exit code the process's (the test listing a flaky test runs it as
    a process)."""

    def call(command: list[str]) -> int:
        assert command[:3] == [sys.executable, "-m", "pytest"]
        return int(pytester.runpytest_inprocess(*command[3:]).ret)

    monkeypatch.setattr(assert_cmds, "subprocess", SimpleNamespace(call=call))


@pytest.mark.slow
@pytest.mark.usefixtures("pytest_in_process")
def test_the_cli_without_flaky_tests_keeps_pytests_exit_code(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_stable=STABLE)
    monkeypatch.chdir(pytester.path)
    options = ["-q", "-p", "no:cacheprovider", *UNUSED_PLUGINS]
    result = CliRunner().invoke(flaky, ["--runs", "2", "--", *options])
    assert result.exit_code == 1, result.output
    assert result.output.endswith(
        "replaygate flaky: no flaky test among 2 unsampled test(s) run 2 times\n"
        f"1 test(s) failed every run ({EVERY_RUN}):\n"
        "  test_stable.py::test_always_fails\n"
    )
    only_sampled = pytester.path / "sampled_only"
    only_sampled.mkdir()
    sampled = (
        "import pytest\n\n@pytest.mark.sampled(n=2, floor=1)\n"
        "def test_s(replaygate_sample):\n    pass\n"
    )
    (only_sampled / "test_sampled.py").write_text(sampled)
    result = CliRunner().invoke(flaky, ["--", *options, "sampled_only"])
    # it said "no flaky test among 0 run 2 times"
    assert "replaygate flaky: no unsampled test ran, so none could be flaky\n" in result.output
    result = CliRunner().invoke(flaky, ["--", "-q", "--reruns=1"])
    assert result.exit_code == pytest.ExitCode.USAGE_ERROR
    assert result.output.endswith("pytest stopped before any test ran (exit 4)\n")
    result = CliRunner().invoke(flaky, ["--runs", "1"])
    assert result.exit_code == 2
    assert "--runs must be at least 2, got 1" in result.output


# recording, it fails on its first run and, on its second, sends nothing and passes
SENDS_NOTHING = """
from pathlib import Path

def test_counter(replaygate_exchange):
    counter = Path(__file__).with_name("counter.txt")
    runs = int(counter.read_text()) if counter.exists() else 0
    counter.write_text(str(runs + 1))
    assert runs, "the first run fails"
"""


@pytest.mark.slow
def test_a_rerun_is_checked_as_if_alone(pytester: pytest.Pytester) -> None:
    # the first run's failure was kept on the item, so the second run, recording and
    # sending nothing, was let through instead of being told so
    pytester.makepyfile(test_counter_file=SENDS_NOTHING)
    result = pytester.runpytest(
        "--flaky-runs=2",
        "--replaygate-record-mode=record-missing",
        "--replaygate-approve-live",
        "--replaygate-simulator=echo",
        *UNUSED_PLUGINS,
    )
    result.stdout.fnmatch_lines(
        ["ERROR test_counter_file.py::test_counter - Failed: nothing was recorded: *"]
    )


# an expected failure that comes true every other run: non-strict, it xfails and xpasses
# (both green to pytest); strict, a pass fails the test
XFAIL_ALTERNATING = """
from pathlib import Path

import pytest

def alternate(name):
    counter = Path(__file__).with_name(name)
    runs = int(counter.read_text()) if counter.exists() else 0
    counter.write_text(str(runs + 1))
    assert runs % 2 == 1, f"run {runs}"

@pytest.mark.xfail(reason="sometimes")
def test_xfail_lenient():
    alternate("lenient.txt")

@pytest.mark.xfail(reason="sometimes", strict=True)
def test_xfail_strict():
    alternate("strict.txt")

@pytest.mark.xfail(reason="always")
def test_xfail_always():
    assert False

def test_imperative_xfail_every_run():
    pytest.xfail("not yet")
"""


@pytest.mark.slow
def test_an_xfail_test_that_xpasses_in_one_run_and_xfails_in_another_is_flaky(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_xfail=XFAIL_ALTERNATING)
    result = pytester.runpytest(
        "--flaky-runs=2", "--flaky-report=flaky.json", "--tb=no", "-p", "no:randomly",
        *UNUSED_PLUGINS,
    )  # fmt: skip
    assert json.loads((pytester.path / "flaky.json").read_text()) == {
        "runs": 2,
        "tests": 4,
        "flaky": [
            {"nodeid": "test_xfail.py::test_xfail_lenient", "outcomes": ["xfailed", "xpassed"]},
            {
                "nodeid": "test_xfail.py::test_xfail_strict",
                "outcomes": ["xfailed", "xpassed (strict)"],
            },
        ],
        "failed_every_run": [],  # an expected failure every run is no failure
    }
    result.assert_outcomes(xfailed=2, xpassed=1, failed=1)  # the last run of each


def test_an_expected_failure_and_a_pass_of_its_body_disagree() -> None:
    runs = {
        "lenient": ["xpassed", "xfailed"],
        "strict": ["xfailed", "xpassed (strict)"],
        "xfails": ["xfailed", "xfailed"],
        "xpasses": ["xpassed", "xpassed", "skipped"],
        "passes_or_xfails": ["passed", "xfailed"],  # a pytest.xfail() reached in one run
        "fails_or_xfails": ["failed", "xfailed"],  # xfail(raises=...): another error failed
        "strict_every_run": ["xpassed (strict)", "xpassed (strict)"],
    }
    assert [test.nodeid for test in find_flaky(runs)] == ["lenient", "strict", "passes_or_xfails"]
    assert failed_every_run(runs) == ["strict_every_run"]


def _report(when: str, outcome: str, **extra: object) -> TestReport:
    report = TestReport("t.py::t", ("t.py", 0, "t"), {}, outcome, None, when)
    report.__dict__.update(extra)
    return report


@pytest.mark.parametrize(
    ("call", "outcome"),
    [
        (_report("call", "passed"), "passed"),
        (_report("call", "failed"), "failed"),
        (_report("call", "skipped"), "skipped"),
        (_report("call", "skipped", wasxfail="sometimes"), "xfailed"),
        (_report("call", "passed", wasxfail="sometimes"), "xpassed"),
        (_report("call", "failed", longrepr="[XPASS(strict)] sometimes"), "xpassed (strict)"),
    ],
    ids=["passed", "failed", "skipped", "xfailed", "xpassed", "xpassed strict"],
)
def test_the_outcome_of_a_run(call: TestReport, outcome: str) -> None:
    setup, teardown = _report("setup", "passed"), _report("teardown", "passed")
    assert outcome_of([setup, call, teardown]) == outcome
    assert outcome_of([setup, call, _report("teardown", "failed")]) == (
        outcome if call.failed else "error in teardown"
    )


# passes on one pytest-xdist worker, fails on the other: it passed and failed on the same code
BY_WORKER = """
import os

def test_by_worker():
    assert os.environ["PYTEST_XDIST_WORKER"] == "gw0", "fails on gw1"
"""


@pytest.mark.slow  # a pytest session of its own, with two pytest-xdist workers
def test_every_workers_runs_count_under_dist_each(pytester: pytest.Pytester) -> None:
    # --dist each: each worker reported the test; the last report replaced the other's
    # outcomes, so it was "no flaky tests" or "failed every run", by which finished last
    pytester.makepyfile(test_by_worker=BY_WORKER)
    from forked_xdist_workers import workers_forked  # execnet: the slow tests' alone

    with workers_forked():  # processes of their own, forked from a preloaded interpreter
        result = pytester.runpytest(
            "-p", "xdist", "-n", "2", "--dist", "each", "--flaky-runs=2",
            "--flaky-report=flaky.json", "--tb=no", *UNUSED_PLUGINS,
        )  # fmt: skip
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    outcomes = ["passed", "passed", "failed", "failed"]  # gw0's runs, then gw1's
    report = json.loads((pytester.path / "flaky.json").read_text())
    assert report == {
        "runs": 2,
        "tests": 1,
        "flaky": [{"nodeid": "test_by_worker.py::test_by_worker", "outcomes": outcomes}],
        "failed_every_run": [],
    }
    result.stdout.fnmatch_lines(
        [
            "  test_by_worker.py::test_by_worker: passed, passed, failed, failed",
            "1 test(s) ran more than once in this session (pytest-xdist --dist each *): "
            "the outcomes of every run count, worker by worker: test_by_worker.py::test_by_worker",
        ]
    )


@pytest.mark.parametrize("first", ["gw1", "gw0"])
def test_the_controller_keeps_the_runs_of_every_worker_in_worker_order(first: str) -> None:
    from replaygate.pytest_plugin.sampling_state import SessionState
    from replaygate.pytest_plugin.sampling_summary import Collector

    state = SessionState(False, Path("queue.jsonl"), None, 2, None)
    collector = Collector(state)
    runs = {"gw0": ["passed", "passed"], "gw1": ["failed", "failed"], "gw10": ["skipped"] * 2}
    order = [first, *(w for w in ("gw10", "gw0", "gw1") if w != first)]
    for worker in order:  # as the workers finish, in any order
        report = SimpleNamespace(
            when="teardown", nodeid="t.py::test_w", worker_id=worker, replaygate_flaky=runs[worker]
        )
        collector.pytest_runtest_logreport(report)  # type: ignore[arg-type]
    assert state.flaky_outcomes == {"t.py::test_w": [*runs["gw0"], *runs["gw1"], *runs["gw10"]]}
    assert [test.nodeid for test in state.flaky()] == ["t.py::test_w"]
    assert state.reported_more_than_once() == ["t.py::test_w"]


FAKE_TIMEOUT = (
    TIMEOUT_HOOKS
    + """
import math


@pytest.hookimpl(trylast=True)
def pytest_timeout_set_timer(item, settings):
    item.calls_left = 1  # its clock, counted in calls: time for one
    return True


@pytest.hookimpl(trylast=True)
def pytest_timeout_cancel_timer(item):
    item.calls_left = math.inf
    return True


@pytest.hookimpl(tryfirst=True)
def pytest_exception_interact(node):  # as pytest-timeout stops its clock on a failure
    node.config.pluginmanager.hook.pytest_timeout_cancel_timer(item=node)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    item.calls_left -= 1
    if item.calls_left < 0:
        pytest.fail("Timeout (>1.0s) from pytest-timeout.")
    yield
"""
)
"""pytest-timeout's stand-in: its hooks, a timer set for the test's whole run, and a clock
that lets one call in before it fires."""


@pytest.mark.slow  # a pytest session of its own
def test_each_flaky_run_has_the_whole_of_pytest_timeout_s_limit(
    pytester: pytest.Pytester,
) -> None:
    # its timer, set once for the test, spanned all its runs: a stable test that took
    # more than a third of the limit was listed flaky (passed, failed, passed), the runs
    # after the first failed one going with no limit
    pytester.makepyfile(pytest_timeout=FAKE_TIMEOUT, test_stable="def test_a():\n    pass\n")
    pytester.syspathinsert()
    result = pytester.runpytest("-p", "pytest_timeout", "--flaky-runs=3", *UNUSED_PLUGINS)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["no flaky tests: none of 1 unsampled test(s) passed *"])


RANDOMLY = """
import random

def pytest_addoption(parser):
    parser.addoption("--randomly-dont-reset-seed", action="store_false",
                     dest="randomly_reset_seed", default=True)

def pytest_runtest_setup(item):
    if item.config.getoption("randomly_reset_seed"):
        random.seed(7)
"""
"""pytest-randomly's stand-in: a plugin of its name that sets random's seed before each test."""

COIN = """
import random

def test_coin():
    assert random.random() < 0.5
"""


@pytest.mark.slow  # a pytest session of its own
def test_flaky_runs_refuse_pytest_randomly_resetting_the_seed_of_each_run(
    pytester: pytest.Pytester,
) -> None:
    # each run started from the same seed: a coin flip gave one outcome in all of them,
    # and the run said "no flaky tests"
    pytester.makepyfile(randomly=RANDOMLY, test_coin=COIN)
    pytester.syspathinsert()
    result = pytester.runpytest("-p", "randomly", "--flaky-runs=6", *UNUSED_PLUGINS)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--flaky-runs with pytest-randomly, which sets random's seed anew before each run*"]
    )
    kept = ("-p", "randomly", "--randomly-dont-reset-seed", "-p", "no:cacheprovider")
    result = pytester.runpytest(*kept, "--flaky-runs=2", *UNUSED_PLUGINS)
    assert result.ret != pytest.ExitCode.USAGE_ERROR


def test_the_advice_names_what_varies_in_a_replay() -> None:
    # a LangGraph graph's branches asking one prompt at once were flaky in replay, and the
    # advice was only to sample the test, which replays the same recorded answers
    assert "identical requests sent at once (the parallel branches of a LangGraph" in ADVICE
    assert ADVICE.index("make it deterministic") < ADVICE.index("either sample it")


def test_the_cli_without_pytest_says_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # It ran "python -m pytest" all the same: "No module named pytest", then "pytest stopped
    # before any test ran (exit 1)"
    started = SimpleNamespace(call=lambda command: pytest.fail(f"started {command}"))
    monkeypatch.setattr(assert_cmds, "subprocess", started)
    monkeypatch.setitem(sys.modules, "pytest", None)  # not installed
    result = CliRunner().invoke(flaky, ["--", "tests"])
    assert result.exit_code == 2, result.output
    assert result.output.endswith(
        "Error: replaygate flaky runs your tests with pytest, which is not installed: "
        "pip install pytest\n"
    )
