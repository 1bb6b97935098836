"""``--sampling-results`` lists the cases in collection order whatever order they
finished in: pytest-xdist workers report them as each finishes, so the same tests and
fixtures gave another file (and ``calibrate export --seed`` another draw) from run to
run."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from replaygate.pytest_plugin.sampling_run import case_text
from replaygate.pytest_plugin.sampling_state import SessionState
from replaygate.pytest_plugin.sampling_summary import Collector
from replaygate.sampling.results import SampledResult, SampleResult, load_results

CASES = ["tests/test_b.py::test_z", "tests/test_a.py::test_y[2]", "tests/test_a.py::test_y[1]"]


def results_file(folder: Path, finished: list[str]) -> Path:
    """The results file of a session whose cases finished in the order ``finished``, as
    the controlling process gets them from the workers' reports."""
    path = folder / "results.json"
    collector = Collector(SessionState(False, folder / "queue.jsonl", path, 0, None))
    collector.pytest_xdist_node_collection_finished(None, CASES)  # as the workers collected
    for case in finished:
        samples = (SampleResult(0), SampleResult(1, failure="assert False"))
        result = SampledResult(case, 2, 1, samples)
        report = SimpleNamespace(when="call", replaygate_case=case_text(result), nodeid=case)
        collector.pytest_runtest_logreport(report)  # type: ignore[arg-type]
    config = SimpleNamespace(  # a run of its tests, to their end, without pytest-xdist here
        getoption=lambda name, default=None: default,
        pluginmanager=SimpleNamespace(getplugin=lambda name: None),
    )
    session = SimpleNamespace(
        exitstatus=pytest.ExitCode.OK, config=config, shouldfail=False, shouldstop=False
    )
    collector.pytest_sessionfinish(session)  # type: ignore[arg-type]
    return path


def test_the_results_file_is_the_same_whatever_order_the_cases_finished_in(
    tmp_path: Path,
) -> None:
    one, other = tmp_path / "one", tmp_path / "other"
    one.mkdir()
    other.mkdir()
    first = results_file(one, list(reversed(CASES)))
    second = results_file(other, [CASES[1], CASES[2], CASES[0]])
    assert first.read_bytes() == second.read_bytes()
    assert [case.case for case in load_results(first)] == CASES


def test_the_summary_lists_observed_and_unjudged_cases_in_collection_order(
    tmp_path: Path,
) -> None:
    # under pytest-xdist they were listed as the workers finished them: another order in
    # each run of the same tests
    collector = Collector(SessionState(False, tmp_path / "queue.jsonl", None, 0, None))
    collector.pytest_xdist_node_collection_finished(None, CASES)
    for case in reversed(CASES):
        samples = (SampleResult(0), SampleResult(1, failure="assert False"))
        result = SampledResult(case, 2, 2, samples)  # 1 of 2, floor 2: observe
        report = SimpleNamespace(when="call", replaygate_case=case_text(result), nodeid=case)
        collector.pytest_runtest_logreport(report)  # type: ignore[arg-type]
        failed = SimpleNamespace(when="call", replaygate_no_verdict=2, nodeid=f"{case}-x")
        collector.pytest_runtest_logreport(failed)  # type: ignore[arg-type]
    collector.state.collected.extend(f"{case}-x" for case in CASES)
    lines: list[str] = []
    reporter = SimpleNamespace(section=lambda *a, **k: None, line=lambda t, **k: lines.append(t))
    collector.pytest_terminal_summary(reporter)
    assert [line.split(": ")[1] for line in lines if line.startswith("observe: ")] == CASES
    unjudged = next(line for line in lines if "with no verdict" in line)
    assert unjudged.endswith(": " + ", ".join(f"{case}-x" for case in CASES))


def test_flaky_tests_are_listed_in_collection_order(tmp_path: Path) -> None:
    # the flaky summary and --flaky-report listed them as pytest-xdist's workers reported
    # them: another order in each run of the same tests
    state = SessionState(False, tmp_path / "queue.jsonl", None, 2, tmp_path / "flaky.json")
    collector = Collector(state)
    collector.pytest_xdist_node_collection_finished(None, CASES)
    for case in reversed(CASES):
        report = SimpleNamespace(
            when="teardown", nodeid=case, replaygate_flaky=["passed", "failed"]
        )
        collector.pytest_runtest_logreport(report)  # type: ignore[arg-type]
    assert [test.nodeid for test in state.flaky()] == CASES
