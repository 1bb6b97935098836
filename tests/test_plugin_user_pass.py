"""The pytest plugin used as a team uses it, where the docs do not show the way.

A ``--replaygate-dir`` under a file (``notes.txt/fixtures``) failed every test with
"there is no store ...: record it first", where recording would refuse the folder; a
``replaygate_config`` left without its ``return`` was said to return ``null``; a
``sampled`` mark on a ``unittest.TestCase`` was told to take ``replaygate_sample`` as
an argument, which a TestCase method cannot. A miss a test catches by name from an
``asyncio.TaskGroup`` is reported as caught by the code under test, as documented. An
approval of live calls in the ini file's ``addopts`` (or ``PYTEST_ADDOPTS``) approved every
recording run of the project, against law 3. A miss in a run started in a subfolder named
the command that records the test from the rootdir, which failed where it ran; ``--lf``
with no failure to rerun runs every test, yet said it could not check a shared store.
"""

from __future__ import annotations

import os
import re
import shlex

import pytest

from nested_pytest import sessions_loading
from replaygate.pytest_plugin.settings import config_settings
from sdks import aiohttp, anthropic

pytestmark = pytest.mark.native_tracebacks  # nested sessions' failures as Python prints them


sessions_find_their_modules = sessions_loading(
    anthropic, aiohttp, "httpx", "requests", slow_only=True
)


def test_a_replaygate_config_returning_nothing_says_none_and_why() -> None:
    with pytest.raises(pytest.fail.Exception) as failed:
        config_settings(None, "tests/test_a.py::test_x")
    assert str(failed.value) == (
        "replaygate_config (used by tests/test_a.py::test_x) must return a dict, not None "
        "(it returned nothing: a `return` left out?)"
    )


@pytest.mark.slow
@pytest.mark.parametrize("folder", ["notes.txt/fixtures", "notes.txt/a/b"])
def test_a_fixtures_folder_under_a_file_is_a_usage_error_naming_the_file(
    pytester: pytest.Pytester, folder: str
) -> None:
    pytester.path.joinpath("notes.txt").write_text("my notes\n")
    pytester.makepyfile("def test_never(replaygate_store): raise AssertionError('ran')")
    result = pytester.runpytest(f"--replaygate-dir={folder}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    notes = pytester.path / "notes.txt"
    result.stderr.fnmatch_lines(
        [
            f"ERROR: --replaygate-dir: {pytester.path / folder} is under {notes}, which is a "
            "file, where a folder is expected"
        ]
    )
    assert notes.read_text() == "my notes\n"


@pytest.mark.slow
def test_a_sampled_unittest_case_is_refused_saying_it_takes_no_fixtures(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
        import unittest

        import pytest

        @pytest.mark.sampled(n=3, floor=2)
        class TestAnswers(unittest.TestCase):
            def test_cites(self):
                raise AssertionError("ran")
        """
    )
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: *::TestAnswers::test_cites (sampled n=3, floor=2): a unittest.TestCase "
            "method takes no fixtures, so it cannot get replaygate_sample: write the sampled "
            "test as a test function (or a method of a plain class) taking replaygate_sample"
        ]
    )


TASK_GROUP = """
import asyncio

import anthropic
import pytest
from replaygate.errors import FixtureMismatchError


async def ask(client):
    await client.messages.create(
        model="m", max_tokens=8, messages=[{"role": "user", "content": "hi"}]
    )


@pytest.mark.replaygate
def test_caught_by_name_in_a_group():
    async def main():
        client = anthropic.AsyncAnthropic(api_key="test", max_retries=0)
        try:
            async with asyncio.TaskGroup() as group:
                group.create_task(ask(client))
        except* FixtureMismatchError:
            pass

    asyncio.run(main())


@pytest.mark.replaygate(expect_caught_errors=True)
def test_caught_by_name_in_a_group_expected():
    async def main():
        client = anthropic.AsyncAnthropic(api_key="test", max_retries=0)
        with pytest.RaisesGroup(FixtureMismatchError):
            async with asyncio.TaskGroup() as group:
                group.create_task(ask(client))

    asyncio.run(main())
"""


@pytest.mark.slow
def test_a_miss_a_test_catches_from_a_task_group_needs_expect_caught_errors(
    pytester: pytest.Pytester,
) -> None:
    # Its traceback runs along the task, not the test: as docs/http.md says.
    pytester.makepyfile(TASK_GROUP)
    result = pytester.runpytest()
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*_ ERROR at teardown of test_caught_by_name_in_a_group _*",
            "replaygate: the code under test caught a replay error and went on*",
            "no fixture recorded for this HTTP request (POST https://api.anthropic.com/v1/*",
        ]
    )


RECORDING = ("--replaygate-record-mode=record-missing", "--replaygate-simulator=echo")


@pytest.mark.slow
@pytest.mark.parametrize("where", ["ini", "env"])
def test_an_approval_every_run_inherits_is_a_usage_error_naming_where_it_is(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    # law 3: addopts approved every recording run made in the project without a word
    pytester.makepyfile("def test_never(): raise AssertionError('ran')")
    if where == "ini":
        pytester.makeini("[pytest]\naddopts = -q --replaygate-approve-live\n")
        named = f"the addopts of {pytester.path / 'tox.ini'}"
    else:
        given = os.environ.get("PYTEST_ADDOPTS", "")  # the plugins the pytester fixture loads
        monkeypatch.setenv("PYTEST_ADDOPTS", f"{given} --replaygate-approve-live")
        named = "the environment variable PYTEST_ADDOPTS"
    result = pytester.runpytest(*RECORDING)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            f"ERROR: --replaygate-record-mode=record-missing: the approval of live calls comes "
            f"from {named}, where every run inherits it: an approval is given on the command "
            "line of the run that records, never as a default. Remove it from there and give "
            "it to that run: pytest --replaygate-record-mode=record-missing "
            "--replaygate-approve-live"
        ]
    )
    # given on the run's command line too, the run is approved
    pytester.makepyfile("def test_runs(): pass")
    pytester.runpytest(*RECORDING, "--replaygate-approve-live").assert_outcomes(passed=1)
    # a replaying run it approves nothing of is refused too, naming where it comes from
    replayed = pytester.runpytest()
    assert replayed.ret == pytest.ExitCode.USAGE_ERROR
    replayed.stderr.fnmatch_lines([f"*it records nothing. Remove it from {named}, or give *"])


@pytest.mark.slow  # runs a pytest session of its own
def test_an_approval_given_to_a_replaying_run_is_a_usage_error(pytester: pytest.Pytester) -> None:
    # it approves no live call: the user meant to record, and the run would replay instead
    pytester.makepyfile("def test_never(): raise AssertionError('ran')")
    result = pytester.runpytest("--replaygate-approve-live")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: --replaygate-approve-live approves the live calls of a recording mode, and "
            "this run replays (--replaygate-record-mode is replay, the default): it records "
            "nothing. Leave it out to replay, or give the mode that records, on the command "
            "line of that run: pytest --replaygate-record-mode=record-missing "
            "--replaygate-approve-live"
        ]
    )


MISSES = """
import httpx

KEY = {"x-api-key": "k"}  # the simulator refuses a request without one, as the API does


def test_asks(replaygate_intercept):
    httpx.post("https://api.example.com/v1/messages", json={"q": "hi"}, headers=KEY)
"""


@pytest.mark.slow
def test_a_miss_names_a_command_that_runs_from_the_folder_pytest_ran_from(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # it named the test from the rootdir: `pytest 'tests/test_x.py::test_asks'`, run in
    # tests/, was "file or directory not found"
    pytester.makeini("[pytest]\n")  # the rootdir
    pytester.mkdir("tests").joinpath("test_x.py").write_text(MISSES)
    monkeypatch.chdir(pytester.path / "tests")
    missed = pytester.runpytest("--replaygate-dir=recorded")
    missed.assert_outcomes(failed=1)
    named = re.search(r"record it first \(`(pytest [^`]+)`\)", missed.stdout.str())
    assert named is not None
    assert named.group(1) == (
        "pytest 'test_x.py::test_asks' --replaygate-record-mode=record-missing "
        "--replaygate-approve-live --replaygate-dir=recorded"
    )
    recording = pytester.runpytest(*shlex.split(named.group(1))[1:], "--replaygate-simulator")
    recording.assert_outcomes(passed=1)
    pytester.runpytest("--replaygate-dir=recorded").assert_outcomes(passed=1)
    assert pytester.path.joinpath("recorded/test_x/test_asks.jsonl").is_file()


SHARED = """
import httpx
import pytest

KEY = {"x-api-key": "k"}


@pytest.mark.replaygate(fixtures="shared.jsonl")
@pytest.mark.parametrize("question", QUESTIONS)
def test_asks(replaygate_intercept, question):
    httpx.post("https://api.example.com/v1/messages", json={"q": question}, headers=KEY)
"""


@pytest.mark.slow
def test_last_failed_with_no_failures_to_rerun_checks_the_shared_stores(
    pytester: pytest.Pytester,
) -> None:
    # --lf with nothing failed runs every test, yet shared stores were "not checked"
    pytester.makepyfile(test_x=SHARED.replace("QUESTIONS", '["a", "b"]'))
    recording = ("--replaygate-record-mode=record-missing", "--replaygate-approve-live")
    pytester.runpytest(*recording, "--replaygate-simulator").assert_outcomes(passed=2)
    pytester.makepyfile(test_x=SHARED.replace("QUESTIONS", '["a"]'))
    result = pytester.runpytest("--lf", "--replaygate-strict")
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["--replaygate-strict: 1 recorded fixture(s) of the shared *"])
    # with a failure to rerun, it runs that test alone: the store is not checked
    pytester.makepyfile(test_x=SHARED.replace("QUESTIONS", '["a", "c"]'))
    pytester.runpytest().assert_outcomes(passed=1, failed=1)
    rerun = pytester.runpytest("--lf", "--replaygate-strict")
    rerun.assert_outcomes(failed=1)
    rerun.stdout.fnmatch_lines(["not checked: *shared.jsonl: the run reran the last failures"])


@pytest.mark.autoload_plugins
@pytest.mark.slow  # runs a pytest session of its own
def test_an_approval_beside_pytest_recording_s_record_mode_names_whose_mode_it_is(
    pytester: pytest.Pytester,
) -> None:
    # with pytest-recording installed, --record-mode is its own: replaygate's mode stays replay
    pytester.makepyfile("def test_never(): raise AssertionError('ran')")
    result = pytester.runpytest("--record-mode=once", "--replaygate-approve-live")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: --replaygate-approve-live approves * it records nothing. * "
            "--replaygate-approve-live (the --record-mode given is pytest-recording's, for "
            "its cassettes: not replaygate's)"
        ]
    )
