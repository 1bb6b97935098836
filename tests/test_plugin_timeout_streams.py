"""A stream that pytest-timeout's limit stopped its reader in, while a test recorded it, is
not stored cut where the clock found it.

A stream read without a ``with`` block (``for chunk in client.chat.completions.create(...,
stream=True)``) stays open, held by the failed test's traceback, until the test's client
is closed, or, held by the loop alone, is dropped and closed as the test's frame unwinds:
either way it was recorded as closed by its reader, the next ``record-missing`` run kept
it, and every replay failed with "the client closed this stream after 3 event(s) while it
was recorded"."""

from __future__ import annotations

import pytest

from nested_pytest import UNUSED_PLUGINS, sessions_loading
from sdks import anthropic, openai
from timeout_hooks import TIMEOUT_HOOKS

pytestmark = pytest.mark.slow  # a pytest session of its own, recording from the simulator

sessions_find_their_modules = sessions_loading(anthropic, openai)

FAKE_TIMEOUT = (
    TIMEOUT_HOOKS
    + """
import signal


@pytest.hookimpl(trylast=True)
def pytest_timeout_set_timer(item, settings):
    def handler(signum, frame):
        pytest.fail("Timeout (>1.0s) from pytest-timeout.")

    signal.signal(signal.SIGALRM, handler)
    return True


@pytest.hookimpl(trylast=True)
def pytest_timeout_cancel_timer(item):
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    return True


def fire():  # the limit is up: the signal its timer sends
    signal.raise_signal(signal.SIGALRM)
"""
)
"""pytest-timeout's stand-in: its hooks, and its signal method's handler of SIGALRM."""

READ_SLOWLY = """
import pytest_timeout

def test_stream(openai_client):
    chunks = openai_client(max_retries=0).chat.completions.create(
        model="gpt-4o-mini", stream=True, messages=[{"role": "user", "content": "a long one"}])
    for number, chunk in enumerate(chunks):
        if number == 2:
            pytest_timeout.fire()
"""


DROPPED = """
import pytest_timeout

def test_events(anthropic_client):
    client = anthropic_client(max_retries=0)
    question = [{"role": "user", "content": "a long one"}]
    # held by the loop alone: dropped, and closed, as the test's frame unwinds
    for number, event in enumerate(client.messages.create(
            model="claude-sonnet-4-6", max_tokens=64, stream=True, messages=question)):
        if number == 3:
            pytest_timeout.fire()
"""


def test_a_stream_left_open_or_dropped_by_a_timeout_is_not_recorded(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(pytest_timeout=FAKE_TIMEOUT, test_slow=READ_SLOWLY, test_drop=DROPPED)
    pytester.syspathinsert()
    record = ("--replaygate-record-mode=record-missing", "--replaygate-approve-live")
    result = pytester.runpytest(
        "-p", "pytest_timeout", *record, "--replaygate-simulator", *UNUSED_PLUGINS
    )
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["*Timeout (>1.0s) from pytest-timeout.*"])
    for store in ("test_slow/test_stream.jsonl", "test_drop/test_events.jsonl"):
        path = pytester.path / "tests" / "fixtures" / store
        assert not path.exists() or path.read_bytes() == b"", store
