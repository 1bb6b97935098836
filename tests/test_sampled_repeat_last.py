"""A sampled test never counts the last recorded answer again as one of its samples.

``repeat_last=True`` (from ``replaygate_config``, as a suite sets it for its polling
loops, or from the test's mark) answered a sampled test's unrecorded samples with copies
of the last recorded one: one recorded answer gave ``5/5 samples passed``. Each sample
now gets its own recorded answer or a miss that says to record the missing samples, and
recording records them.
"""

from __future__ import annotations

import pytest

from echo_recording import record_echoes
from replaygate.fixtures.store import FixtureStore

pytestmark = pytest.mark.slow  # each test runs pytest on a project of its own

CONFTEST = """
import pytest


@pytest.fixture
def replaygate_config():
    return {"repeat_last": True, "cap": None}
"""
SAMPLED = """
import pytest

from replaygate.assertions import contains_check


@pytest.mark.sampled(n=3, floor=3)
@pytest.mark.replaygate(fixtures="once.jsonl"{mark})
def test_sampled(replaygate_sample, replaygate_checks, anthropic_client):
    answer = anthropic_client(max_retries=0).messages.create(
        model="m", max_tokens=8, messages=[{{"role": "user", "content": "again"}}]
    )
    replaygate_checks.evaluate(answer.content[0].text, contains_check(["again"], kind="gate"))
"""


@pytest.mark.native_tracebacks  # the sessions' failures, as Python prints them
@pytest.mark.parametrize("given_by", ["replaygate_config", "mark"])
def test_an_unrecorded_sample_is_a_miss_whatever_repeat_last_says(
    pytester: pytest.Pytester, given_by: str
) -> None:
    record_echoes(pytester.path / "tests/fixtures/once.jsonl", ["again"])
    if given_by == "replaygate_config":
        pytester.makeconftest(CONFTEST)
    mark = ", repeat_last=True" if given_by == "mark" else ""
    pytester.makepyfile(test_sampled=SAMPLED.format(mark=mark))
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*recorded 1 time and sent 2 times in this session*The samples of this sampled "
            "test (n=3) send it more often than when they were recorded. Record the missing "
            "samples (*--replaygate-record-mode=record-missing*); a sample is never answered "
            "with an answer recorded for another one (repeat_last does not apply to a "
            "sampled test). It was recorded from the simulator*",
            "*raised in sample 1 of 3; no sample is retried",
        ]
    )
    assert "3/3 samples passed" not in result.stdout.str()


def test_recording_records_each_sample_whatever_repeat_last_says(
    pytester: pytest.Pytester,
) -> None:
    store = pytester.path / "tests/fixtures/once.jsonl"
    record_echoes(store, ["again"])
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_sampled=SAMPLED.format(mark=""))
    result = pytester.runpytest(
        "-p",
        "no:cacheprovider",
        "--replaygate-record-mode=record-missing",
        "--replaygate-approve-live",
        "--replaygate-simulator=echo",
    )
    result.assert_outcomes(passed=1)
    with FixtureStore.open(store) as held:
        assert [fixture.samples for fixture in held] == [3]
