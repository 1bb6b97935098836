"""A sample whose replay miss the code under test caught is a failed sample: it checked
an answer no fixture gave (law 2). The verdict, the session summary and the results
file count it so, with the miss as its failure; the test's teardown still names it."""

from __future__ import annotations

import json

import pytest

from echo_recording import record_echoes
from nested_pytest import sessions_loading
from sdks import anthropic

pytestmark = [pytest.mark.slow, pytest.mark.native_tracebacks]  # a pytest session of its own


sessions_find_their_modules = sessions_loading(anthropic)


SAMPLED = """
import anthropic
import pytest

from replaygate.assertions import contains_check

ECHO = contains_check(["echo"], kind="gate")


def ask_with_fallback(question):
    try:
        client = anthropic.Anthropic(api_key="k", max_retries=0)
        reply = client.messages.create(
            model="m", max_tokens=8, messages=[{"role": "user", "content": question}]
        )
        return reply.content[0].text
    except Exception:
        return "fallback"


@pytest.mark.sampled(n=3, floor=2)
@pytest.mark.replaygate(fixtures="sampled.jsonl")
def test_sampled(replaygate_sample, replaygate_checks):
    question = "s" if replaygate_sample == 0 else "changed"
    replaygate_checks.evaluate(ask_with_fallback(question) + " echo", ECHO)
"""

CAUGHT = "replaygate: the code under test caught a replay error"


def test_a_sample_whose_miss_was_caught_counts_as_failed(pytester: pytest.Pytester) -> None:
    record_echoes(pytester.path / "tests/fixtures/sampled.jsonl", ["s", "s", "s"])
    pytester.makepyfile(test_sampled=SAMPLED)
    result = pytester.runpytest("-p", "no:cacheprovider", "--sampling-results=results.json")
    assert result.parseoutcomes() == {"errors": 1, "observed": 1, "warnings": 1}
    result.stdout.fnmatch_lines(
        [
            "*ERROR at teardown of test_sampled*",
            f"{CAUGHT}*",
            "0 pass, 1 observe, 0 block",
            "observe: test_sampled.py::test_sampled: 1/3 passed, floor 2; failing: assert 1/3",
        ]
    )
    (case,) = json.loads((pytester.path / "results.json").read_text())["cases"]
    assert (case["verdict"], case["passes"]) == ("observe", 1)
    first, *caught = case["sample_results"]
    assert (first["passed"], first["failure"]) == (True, None)
    for sample in caught:
        assert (sample["passed"], sample["output"]) == (False, "fallback echo")
        assert sample["failure"].startswith(f"{CAUGHT} and went on"), sample["failure"]
        assert "body.messages[0].content: 's' != 'changed'" in sample["failure"]
