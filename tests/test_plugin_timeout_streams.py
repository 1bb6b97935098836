"""A stream that pytest-timeout's limit stopped its reader in, while a test recorded it, is
not stored cut where the clock found it.

A stream read without a ``with`` block (``for chunk in client.chat.completions.create(...,
stream=True)``) stays open, held by the failed test's traceback, until the test's client
is closed: it was then recorded as closed by its reader, the next ``record-missing`` run
kept it, and every replay failed with "the client closed this stream after 3 event(s)
while it was recorded"."""

from __future__ import annotations

import pytest

from nested_pytest import UNUSED_PLUGINS, sessions_loading
from sdks import openai

pytestmark = pytest.mark.slow  # a pytest session of its own, recording from the simulator

sessions_find_their_modules = sessions_loading(openai)

FAKE_TIMEOUT = """
import pytest

def fire():  # as pytest-timeout's signal handler does when the test's limit is up
    pytest.fail("Timeout (>1.0s) from pytest-timeout.")
"""

READ_SLOWLY = """
import pytest_timeout

def test_stream(openai_client):
    chunks = openai_client(max_retries=0).chat.completions.create(
        model="gpt-4o-mini", stream=True, messages=[{"role": "user", "content": "a long one"}])
    for number, chunk in enumerate(chunks):
        if number == 2:
            pytest_timeout.fire()
"""


def test_a_stream_left_open_by_a_timeout_is_not_recorded(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(pytest_timeout=FAKE_TIMEOUT, test_slow=READ_SLOWLY)
    record = ("--replaygate-record-mode=record-missing", "--replaygate-approve-live")
    result = pytester.runpytest(*record, "--replaygate-simulator", *UNUSED_PLUGINS)
    result.assert_outcomes(failed=1)
    store = pytester.path / "tests" / "fixtures" / "test_slow" / "test_stream.jsonl"
    assert not store.exists() or store.read_bytes() == b""
