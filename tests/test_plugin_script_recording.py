"""Recording under pytest from a simulator script (``--replaygate-simulator=script:FILE``):
its lines answer the session's requests in order, so a session that would play it out of
order is refused, and a request answered from the store still takes its line."""

from __future__ import annotations

import pytest

RECORD = ("--replaygate-record-mode=record-missing", "--replaygate-approve-live")
SCRIPT = "--replaygate-simulator=script:answers.jsonl"
XDIST = ("-p", "xdist")


def test_a_script_under_xdist_is_a_usage_error(pytester: pytest.Pytester) -> None:
    # each worker played the script from its first line, in the order its tests came:
    # tests recorded each other's answers, some of them green
    pytester.path.joinpath("answers.jsonl").write_text('{"text": "one"}\n{"text": "two"}\n')
    pytester.makepyfile("def test_never(): raise AssertionError('ran')")
    result = pytester.runpytest(*XDIST, *RECORD, SCRIPT, "-n", "2")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*--replaygate-simulator / ini replaygate_simulator: script:answers.jsonl cannot "
            "record under pytest-xdist (-n 2): a script answers the session's requests with "
            "its lines in order*record it without -n*"
        ]
    )
    pytester.makeini("[pytest]\nreplaygate_simulator = script:answers.jsonl\n")
    result = pytester.runpytest(*XDIST, *RECORD, "-n", "1")  # the ini's script alike
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*script:answers.jsonl cannot record under pytest-xdist (-n 1)*"])
    # without workers the script plays in order, one session
    pytester.makepyfile("def test_passes(): pass")
    pytester.runpytest(*XDIST, *RECORD, "-n", "0").assert_outcomes(passed=1)
