"""A sampled case that runs twice in one session is counted once, and the run says so.

Under pytest-xdist ``--dist each`` (every test on every worker) or ``--keep-duplicates``
a case's result reached the controller twice: its verdict was counted twice, its
observation queued twice, and the ``--sampling-results`` file held it twice, which
replaygate's own commands then refused to read ("a case is listed once").
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from replaygate.sampling.results import load_results

pytestmark = pytest.mark.slow  # pytest runs on a project of its own (pytester)

SAMPLED = """
import pytest


@pytest.mark.sampled(n=3, floor=3)
def test_observed(replaygate_sample):
    assert replaygate_sample != 2
"""


def test_a_case_run_twice_is_kept_once_and_fails_the_session(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_twice=SAMPLED)
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "-W", "ignore::UserWarning", "--keep-duplicates",
        "test_twice.py", "test_twice.py",
        "--sampling-results", "results.json", "--observe-queue", "queue.jsonl",
    )  # fmt: skip
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*replaygate: 1 case(s) ran more than once in this session "
            "(test_twice.py::test_observed)*"
        ]
    )
    (case,) = load_results(pytester.path / "results.json")  # readable: the case once
    assert case.case == "test_twice.py::test_observed" and case.verdict == "observe"
    queued = (pytester.path / "queue.jsonl").read_text().splitlines()
    assert [json.loads(line)["case"] for line in queued] == ["test_twice.py::test_observed"]


def test_the_controller_keeps_a_case_two_workers_report_once(tmp_path: Path) -> None:
    # pytest-xdist --dist each: every worker runs every test and reports its case
    from replaygate.pytest_plugin.sampling_run import case_text
    from replaygate.pytest_plugin.sampling_state import SessionState
    from replaygate.pytest_plugin.sampling_summary import Collector
    from replaygate.sampling.results import SampledResult, SampleResult

    case = case_text(SampledResult("t.py::test_s", 1, 1, (SampleResult(0),)))
    report = SimpleNamespace(when="call", replaygate_case=case, nodeid="t.py::test_s")
    state = SessionState(False, tmp_path / "queue.jsonl", None, 0, None)
    collector = Collector(state)
    for _ in range(2):
        collector.pytest_runtest_logreport(report)  # type: ignore[arg-type]
    assert [c.case for c in state.cases] == ["t.py::test_s"]
    assert state.repeated == ["t.py::test_s"]


def test_a_case_whose_output_is_not_unicode_travels_to_the_controller(tmp_path: Path) -> None:
    # pytest-xdist's execnet sends only UTF-8 text: a lone surrogate in an output lost the
    # test from the session, which exited 0
    execnet = pytest.importorskip("execnet")
    from replaygate.pytest_plugin.sampling_run import case_text
    from replaygate.pytest_plugin.sampling_state import SessionState
    from replaygate.pytest_plugin.sampling_summary import Collector
    from replaygate.sampling.results import SampledResult, SampleResult

    case = SampledResult("t.py::test_s", 1, 1, (SampleResult(0, output="a\ud800b"),))
    sent = execnet.loads(execnet.dumps(case_text(case)))
    state = SessionState(False, tmp_path / "queue.jsonl", None, 0, None)
    Collector(state).pytest_runtest_logreport(  # type: ignore[arg-type]
        SimpleNamespace(when="call", replaygate_case=sent, nodeid="t.py::test_s")
    )
    assert [s.output for s in state.cases[0].samples] == ["a\ud800b"]
