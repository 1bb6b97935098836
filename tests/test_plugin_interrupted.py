"""A pytest session stopped by Ctrl-C while a replaygate test runs ends as interrupted: the
test's teardown, which pytest runs as the session ends, judges nothing of a test cut short
(no "nothing was recorded", no strict check), where a failure raised there ended the run
with a traceback."""

from __future__ import annotations

import io
import sys

import pytest

from nested_pytest import sessions_loading
from replaygate import Fixture, FixtureStore
from replaygate.fixtures.fixture import make_meta
from sdks import anthropic

sessions_find_their_modules = sessions_loading(anthropic)

INTERRUPTED = """
def test_cut_short(anthropic_client):
    anthropic_client()
    raise KeyboardInterrupt
"""


def _interrupted_run(pytester: pytest.Pytester, *args: str) -> pytest.ExitCode | int:
    pytester.makepyprojecttoml("[tool.pytest.ini_options]\n")
    pytester.makepyfile(test_a=INTERRUPTED)
    return pytester.inline_run("-p", "no:cacheprovider", *args, no_reraise_ctrlc=True).ret


@pytest.mark.slow  # a pytest session of the plugin
def test_a_recording_interrupted_before_its_first_request_ends_as_interrupted(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test")
    recording = ("--replaygate-record-mode=record-missing", "--replaygate-approve-live",
                 "--replaygate-simulator=echo")  # fmt: skip
    assert _interrupted_run(pytester, *recording) == pytest.ExitCode.INTERRUPTED


@pytest.mark.slow  # a pytest session of the plugin
def test_a_strict_replay_interrupted_before_its_store_is_used_ends_as_interrupted(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test")
    store = pytester.path / "tests/fixtures/test_a/test_cut_short.jsonl"
    body = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]}
    request = {"method": "POST", "path": "/v1/messages", "headers": {}, "body": body}
    answer = {"status": 200, "headers": {}, "body": {"id": "msg_1", "type": "message"}}
    with FixtureStore.open(store) as opened:  # a fixture the test never gets to ask for
        opened.put(Fixture.create(request, [answer], make_meta("anthropic.messages", "1", "hand")))
    assert _interrupted_run(pytester, "--replaygate-strict") == pytest.ExitCode.INTERRUPTED


QUIT_MID_STREAM = """
import pytest

def test_quit(anthropic_client):
    question = [{"role": "user", "content": "a long one"}]
    events = anthropic_client(max_retries=0).messages.create(
        model="claude-sonnet-4-6", max_tokens=64, stream=True, messages=question)
    for number, event in enumerate(events):
        if number == 3:
            pytest.exit("Quitting debugger")  # what q raises at a breakpoint() or --pdb
"""


@pytest.mark.slow  # a pytest session of the plugin
def test_a_stream_left_unread_by_a_debugger_s_quit_is_not_recorded(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # q at a breakpoint() in a test reading a stream outside a with block (Ctrl-C too): the
    # stream, held by the test's traceback, was closed by the client's teardown and stored
    # as closed by its reader after 3 events: every later record-missing run and replay
    # failed on it
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test")
    _quit_while_recording(pytester, QUIT_MID_STREAM)


QUIT_AT_THE_PROMPT = """
import pytest

def test_quit(anthropic_client):
    question = [{"role": "user", "content": "a long one"}]
    for number, event in enumerate(anthropic_client(max_retries=0).messages.create(
            model="claude-sonnet-4-6", max_tokens=64, stream=True, messages=question)):
        if number == 3:
            pytest.set_trace()  # breakpoint(), and q typed at its prompt
"""


@pytest.mark.slow  # a pytest session of the plugin
def test_a_stream_a_loop_held_alone_when_the_debugger_was_quit_is_not_recorded(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # q at the prompt raised as the loop held the stream: dropped, and closed, as the
    # test's frame unwound, it was stored as closed by its reader after 4 events
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test")
    monkeypatch.setattr(sys, "stdin", io.StringIO("q\n"))
    _quit_while_recording(pytester, QUIT_AT_THE_PROMPT)


def _quit_while_recording(pytester: pytest.Pytester, test: str) -> None:
    """Record ``test`` (a module quitting half-way through a stream) from the simulator:
    the run ends interrupted, and nothing of the stream is stored."""
    pytester.makepyprojecttoml("[tool.pytest.ini_options]\n")
    pytester.makepyfile(test_a=test)
    recording = ("--replaygate-record-mode=record-missing", "--replaygate-approve-live",
                 "--replaygate-simulator=echo")  # fmt: skip
    result = pytester.inline_run("-p", "no:cacheprovider", *recording)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    store = pytester.path / "tests/fixtures/test_a/test_quit.jsonl"
    assert not store.exists() or store.read_bytes() == b""
