"""A sampled case that runs twice in one session is counted once, and the run says so.

Under pytest-xdist ``--dist each`` (every test on every worker) or ``--keep-duplicates``
a case's result reached the controller twice: its verdict was counted twice, its
observation queued twice, and the ``--sampling-results`` file held it twice, which
replaygate's own commands then refused to read ("a case is listed once").
"""

from __future__ import annotations

import json

import pytest

from replaygate.sampling.results import load_results

pytestmark = pytest.mark.slow  # pytest runs on a project of its own (pytester)

SAMPLED = """
import pytest


@pytest.mark.sampled(n=3, floor=3)
def test_observed(replaygate_sample):
    assert replaygate_sample != 2
"""


@pytest.mark.parametrize(
    "how",
    [
        ("--keep-duplicates", "test_twice.py", "test_twice.py"),
        ("-p", "xdist", "-n", "2", "--dist", "each"),
    ],
)
def test_a_case_run_twice_is_kept_once_and_fails_the_session(
    pytester: pytest.Pytester, how: tuple[str, ...]
) -> None:
    pytester.makepyfile(test_twice=SAMPLED)
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-W", "ignore::UserWarning", *how,
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
