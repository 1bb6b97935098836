"""A replay error caught by the code under test still fails the test (law 2), through the
real SDK over loopback, in pytest sessions of their own."""

from __future__ import annotations

import shutil

import pytest

from echo_recording import record_echoes
from nested_pytest import sessions_loading
from sdks import anthropic

pytestmark = [pytest.mark.slow, pytest.mark.native_tracebacks]


sessions_find_their_modules = sessions_loading(anthropic)


CODE_UNDER_TEST = """
import asyncio
import concurrent.futures
import contextvars

import anthropic
import pytest
from replaygate.errors import FixtureMismatchError


def ask(client, question):
    reply = client.messages.create(
        model="m", max_tokens=8, messages=[{"role": "user", "content": question}]
    )
    return reply.content[0].text


def ask_with_fallback(client, question):
    # as a framework's fallback does: any error, and another answer instead
    try:
        return ask(client, question)
    except Exception:
        return "fallback"


def ask_retrying(client, question):
    # as a retry does: the first miss caught, the second let through
    try:
        return ask(client, question)
    except Exception:
        return ask(client, question)


class AgentError(Exception):
    pass


def ask_wrapped(client, question, keep_cause=True):
    try:
        return ask(client, question)
    except Exception as err:
        if keep_cause:
            raise AgentError("the agent failed") from err
        raise AgentError(f"the agent failed: {err}") from None
"""

TESTS = (
    CODE_UNDER_TEST
    + """

def test_recorded(anthropic_client):
    assert ask_with_fallback(anthropic_client(), "hi") == "echo: hi"


def test_fallback_hides_the_miss(anthropic_client):
    assert ask_with_fallback(anthropic_client(), "changed") == "fallback"


def test_fallback_and_a_failing_assert(anthropic_client):
    assert ask_with_fallback(anthropic_client(), "changed") == "echo: changed"


def test_wrapped_with_its_cause(anthropic_client):
    ask_wrapped(anthropic_client(), "changed")


def test_wrapped_with_its_message(anthropic_client):
    ask_wrapped(anthropic_client(), "changed", keep_cause=False)


def test_retried_then_reached(anthropic_client):
    ask_retrying(anthropic_client(), "changed")


def test_fails_on_a_consequence_of_the_hidden_miss(anthropic_client):
    # as a tool's error handler does: the miss becomes the tool's output, and the next
    # request, which carries it, misses too
    client = anthropic_client()
    ask(client, ask_with_fallback(client, "changed"))


def test_the_test_expects_the_miss(anthropic_client):
    with pytest.raises(FixtureMismatchError):
        ask(anthropic_client(), "changed")


def test_the_test_expects_another_miss(anthropic_client):
    # the fallback answers a changed request; the test then checks that a question never
    # recorded misses, by name: that miss is another request's
    client = anthropic_client()
    assert ask_with_fallback(client, "changed") == "fallback"
    with pytest.raises(FixtureMismatchError):
        ask(client, "never recorded")


def test_retried_then_expected(anthropic_client):
    # a retry's second send of the request reaches the test, by name: the first was it too
    with pytest.raises(FixtureMismatchError):
        ask_retrying(anthropic_client(), "changed")


def test_the_test_expects_the_miss_in_its_coroutine(async_anthropic_client):
    async def main():
        client = async_anthropic_client()
        with pytest.raises(FixtureMismatchError):
            await client.messages.create(
                model="m", max_tokens=8, messages=[{"role": "user", "content": "changed"}]
            )
        await client.close()

    asyncio.run(main())


def test_every_fallback_misses(anthropic_client):
    # as pydantic-ai's FallbackModel fails when every model missed: a group of the misses,
    # the first model's (the change) before the next's, which differs in its model too
    client, misses = anthropic_client(), []
    for model in ("m", "fallback"):
        try:
            client.messages.create(
                model=model, max_tokens=8, messages=[{"role": "user", "content": "changed"}]
            )
        except FixtureMismatchError as miss:
            misses.append(miss)
    raise ExceptionGroup("all models failed", misses)


def test_gathered_misses(anthropic_client):
    # a miss in a thread whose error is read by nobody (as asyncio.gather leaves all but
    # the first error it gets), then the test fails with another
    client = anthropic_client()
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(ask, client, "two")
    ask(client, "one")


@pytest.mark.replaygate(fixtures="shared.jsonl", expect_caught_errors=True)
def test_catching_it_is_the_point(anthropic_client):
    assert ask_with_fallback(anthropic_client(), "changed") == "fallback"


LEFT_BEHIND = []


def test_leaves_its_clients_behind(anthropic_client):
    # as a task a test left running on a module-scoped event loop keeps them
    LEFT_BEHIND.append(anthropic_client)


def test_sends_through_an_ended_test_s_client(anthropic_client):
    assert ask_with_fallback(LEFT_BEHIND[0](), "late") == "fallback"


@pytest.mark.replaygate
def test_leaves_its_intercept_behind():
    # the context a task started in the test runs in, intercepted by the test's marker
    LEFT_BEHIND.append(contextvars.copy_context())


@pytest.mark.replaygate
def test_sends_in_an_ended_test_s_intercept():
    client = anthropic.Anthropic(api_key="k", max_retries=0, base_url="http://127.0.0.1:9")
    assert LEFT_BEHIND[1].run(ask_with_fallback, client, "late") == "fallback"
"""
)


def test_a_caught_miss_fails_the_test_unless_it_reached_the_test(
    pytester: pytest.Pytester,
) -> None:
    folder = pytester.path / "tests/fixtures"
    shared = folder / "shared.jsonl"
    record_echoes(shared, ["hi"])
    (folder / "test_caught").mkdir()
    for name in (
        "test_recorded",
        "test_fallback_hides_the_miss",
        "test_fails_on_a_consequence_of_the_hidden_miss",
        "test_the_test_expects_another_miss",
        "test_every_fallback_misses",
    ):  # each test's store holds that one recording: copied, not recorded again
        shutil.copyfile(shared, folder / f"test_caught/{name}.jsonl")
    pytester.makepyfile(test_caught=TESTS)
    result = pytester.runpytest("-rfE")
    summary = {
        tuple(line.split(" - ")[0].split(" test_caught.py::"))
        for line in result.stdout.lines
        if line.startswith(("FAILED", "ERROR")) and "test_caught.py::" in line
    }
    assert summary == {
        ("ERROR", "test_fallback_hides_the_miss"),
        ("ERROR", "test_the_test_expects_another_miss"),
        ("FAILED", "test_fallback_and_a_failing_assert"),
        ("ERROR", "test_fallback_and_a_failing_assert"),
        ("FAILED", "test_wrapped_with_its_cause"),
        ("FAILED", "test_wrapped_with_its_message"),
        ("FAILED", "test_retried_then_reached"),
        ("FAILED", "test_fails_on_a_consequence_of_the_hidden_miss"),
        ("FAILED", "test_every_fallback_misses"),
        ("FAILED", "test_gathered_misses"),
    }
    result.assert_outcomes(passed=11, failed=7, errors=3)
    text = result.stdout.str()
    # a send through an ended test's session, whose miss no test's teardown would see
    result.stdout.fnmatch_lines(
        [
            "*replaygate: requests sent after their test ended*",
            "test_caught.py::test_leaves_its_clients_behind: POST /v1/messages sent",
            "test_caught.py::test_leaves_its_intercept_behind: POST /v1/messages sent",
        ]
    )
    # the teardown error is the miss itself: its store, its diff, its re-record command
    result.stdout.fnmatch_lines(
        [
            "*ERROR at teardown of test_fallback_hides_the_miss*",
            "*the code under test caught a replay error and went on*",
            "*no fixture recorded for this HTTP request*",
            "*body.messages?0?.content: 'hi' != 'changed'*",
            "*expect_caught_errors=True*",
        ]
    )
    # a miss the test expects by name excuses no miss of another request: the caught one
    # fails it, and only that one
    another = text.split("ERROR at teardown of test_the_test_expects_another_miss", 1)[1]
    another = another.split("\n___", 1)[0]
    assert "the code under test caught a replay error and went on" in another
    assert "body.messages[0].content: 'hi' != 'changed'" in another
    assert "(the first of several)" not in another and "never recorded" not in another
    # a test failing on a consequence of a hidden miss: its error names the hidden one
    consequence = text.split("_ test_fails_on_a_consequence_of_the_hidden_miss _", 1)[1]
    consequence = consequence.split("\n___", 1)[0]
    assert "body.messages[0].content: 'hi' != 'fallback'" in consequence
    assert "beside this, the code under test met another replay error" in consequence
    assert "body.messages[0].content: 'hi' != 'changed'" in consequence
    # and the run's list of misses names the hidden one's fields, the change, beside it
    result.stdout.fnmatch_lines(
        [
            "test_caught.py::test_fails_on_a_consequence_of_the_hidden_miss: "
            "body.messages?0?.content; after a miss the code under test caught: "
            "body.messages?0?.content"
        ]
    )
    # a group of misses (every fallback model's): the list names the first one's change
    result.stdout.fnmatch_lines(
        ["test_caught.py::test_every_fallback_misses: body.messages?0?.content"]
    )
    # two misses at once: the one nobody read is named as such, not as caught
    gathered = text.split("_ test_gathered_misses _", 1)[1].split("\n___", 1)[0]
    assert "raised in a task or thread whose error nobody read" in gathered
    elsewhere = text.replace(consequence, "").replace(gathered, "")
    assert "beside this" not in elsewhere  # nowhere else
    assert "ERROR at teardown of test_wrapped" not in text
    assert "ERROR at teardown of test_retried_then_reached" not in text
    assert "ERROR at teardown of test_retried_then_expected" not in text  # a retry, excused
    assert "ERROR at teardown of test_the_test_expects_the_miss" not in text  # and in its coroutine
    assert "ERROR at teardown of test_catching_it_is_the_point" not in text


ELSEWHERE = (
    CODE_UNDER_TEST
    + """
import unittest


@pytest.fixture
def answer(anthropic_client):
    # a fixture that runs the code under test once, for the test to check
    return ask(anthropic_client(), "changed")


@pytest.fixture
def wrapped_answer(anthropic_client):
    return ask_wrapped(anthropic_client(), "changed")


@pytest.fixture
def cleanup(anthropic_client):
    yield
    ask(anthropic_client(), "changed")


def test_miss_in_a_fixture(answer):
    assert answer


def test_wrapped_miss_in_a_fixture(wrapped_answer):
    assert wrapped_answer


def test_miss_in_a_fixture_s_teardown(cleanup):
    pass


def test_the_test_expects_the_miss_calling_pytest_raises(anthropic_client):
    pytest.raises(FixtureMismatchError, ask, anthropic_client(), "changed")


@pytest.mark.replaygate
class TestCase(unittest.TestCase):
    def test_miss_in_a_unittest_test_case(self):
        ask(anthropic.Anthropic(api_key="k", max_retries=0), "changed")
"""
)


def test_a_miss_reaching_pytest_outside_the_test_function_is_reported_once(
    pytester: pytest.Pytester,
) -> None:
    """A miss in a fixture's setup or teardown, one pytest.raises caught given the
    function to call, or one a unittest TestCase failed with reached the test: pytest
    reports it, and the plugin adds no teardown error of its own."""
    pytester.makepyfile(test_elsewhere=ELSEWHERE)
    result = pytester.runpytest("-rfE")
    summary = {
        tuple(line.split(" - ")[0].split(" test_elsewhere.py::"))
        for line in result.stdout.lines
        if line.startswith(("FAILED", "ERROR")) and "test_elsewhere.py::" in line
    }
    assert summary == {
        ("ERROR", "test_miss_in_a_fixture"),
        ("ERROR", "test_wrapped_miss_in_a_fixture"),
        ("ERROR", "test_miss_in_a_fixture_s_teardown"),
        ("FAILED", "TestCase::test_miss_in_a_unittest_test_case"),
    }
    result.assert_outcomes(passed=2, failed=1, errors=3)
    assert "caught a replay error" not in result.stdout.str()
