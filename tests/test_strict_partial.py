"""``--replaygate-strict`` in a run of part of the suite.

Whether a store tests share (the marker's ``fixtures=``) holds a fixture none of them
uses can only be told by a run that collected every test naming it. A run that collected
part of the suite without saying so on its command line as particular tests (folders
short of the suite, pytest run from a subfolder, ``--ignore``) counted only the tests it
collected, and failed on a fixture the tests it left out replay. It now lists the store as
not checked, with the reason, as it does a run of particular files or tests. A test's own
store that another test's marker names is shared only in a run that collected that test
too: a run of the first test alone checks it as its own, and says the run may have left
out a test sharing it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from nested_pytest import sessions_loading
from sdks import anthropic

ASKING = """
import os

import pytest


@pytest.mark.replaygate(fixtures="shared.jsonl")
def test_asks(anthropic_client):
    if os.environ.get("DROP"):
        return  # the code under test no longer sends its request
    reply = anthropic_client().messages.create(
        model="claude-sonnet-4-6", max_tokens=16, messages=[{{"role": "user", "content": "{text}"}}]
    )
    assert reply.content[0].text == "echo: {text}"
"""
RECORD = (
    "--replaygate-record-mode=record-missing",
    "--replaygate-approve-live",
    "--replaygate-simulator=echo",
)
STRICT = "--replaygate-strict"


sessions_find_their_modules = sessions_loading(anthropic)


@pytest.fixture
def suite(pytester: pytest.Pytester) -> Path:
    """A suite of two folders whose tests share a store, recorded: the store's path."""
    pytester.makeini("[pytest]\n")
    for folder, text in (("unit", "first"), ("integration", "second")):
        (pytester.path / "tests" / folder).mkdir(parents=True)
        (pytester.path / "tests" / folder / f"test_{folder}.py").write_text(
            ASKING.format(text=text)
        )
    pytester.runpytest(*RECORD).assert_outcomes(passed=2)
    whole = pytester.runpytest(STRICT)
    assert (whole.ret, "shared stores" in whole.stdout.str()) == (pytest.ExitCode.OK, False)
    return pytester.path / "tests/fixtures/shared.jsonl"


def not_checked(result: pytest.RunResult, store: Path, why: str) -> None:
    """Assert that ``result`` passed, saying that ``store`` was not checked, and why."""
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    result.stdout.fnmatch_lines([f"not checked: {store}: {why}"])


@pytest.mark.slow  # pytest sessions of the plugin, recording and replaying
def test_a_run_of_part_of_the_suite_does_not_judge_a_store_others_share(
    pytester: pytest.Pytester, suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    short = "the run collected {} only, short of the whole suite ({}): *"
    not_checked(pytester.runpytest(STRICT, "tests/unit"), suite, short.format("tests/unit", "."))
    node = "tests/integration/test_integration.py::test_asks"
    not_checked(
        pytester.runpytest(STRICT, "tests/unit", node),
        suite,
        f"the run was given particular tests ({node})",
    )
    not_checked(
        pytester.runpytest(STRICT, "--ignore=tests/integration"),
        suite,
        "the run left out tests/integration (--ignore*",
    )
    monkeypatch.chdir(pytester.path / "tests/unit")
    not_checked(pytester.runpytest(STRICT), suite, short.format(".", "../.."))
    monkeypatch.chdir(pytester.path)
    # the suite's testpaths are its whole, and its ini file's --ignore shapes every run: a
    # run of them judges the store, a run of less does not
    pytester.makeini("[pytest]\ntestpaths = tests\naddopts = --ignore=tests/manual\n")
    not_checked(
        pytester.runpytest(STRICT, "tests/unit"), suite, short.format("tests/unit", "tests")
    )
    monkeypatch.setenv("DROP", "1")
    for whole in ((), ("tests",)):
        result = pytester.runpytest(STRICT, *whole)
        assert result.ret == pytest.ExitCode.TESTS_FAILED
        result.stdout.fnmatch_lines(
            [f"--replaygate-strict: 2 recorded fixture(s) of the shared store {suite} unused *"]
        )


BORROWED = """
import pytest


def ask(client, text):
    reply = client.messages.create(
        model="claude-sonnet-4-6", max_tokens=16, messages=[{"role": "user", "content": text}]
    )
    assert reply.content[0].text == f"echo: {text}"


def test_own(anthropic_client):
    ask(anthropic_client(), "own")
"""
BORROWING = """
import pytest

from test_own import ask


@pytest.mark.replaygate(fixtures="test_own/test_own.jsonl")
def test_borrows(anthropic_client):
    ask(anthropic_client(), "borrowed")
"""


@pytest.mark.slow  # pytest sessions of the plugin, recording and replaying
def test_a_run_of_one_test_says_another_may_share_its_own_store(
    pytester: pytest.Pytester,
) -> None:
    # test_borrows' marker names test_own's store: a run of test_own alone cannot know
    pytester.makepyfile(test_own=BORROWED, test_borrowing=BORROWING)
    pytester.runpytest(*RECORD).assert_outcomes(passed=2)
    pytester.runpytest(STRICT).assert_outcomes(passed=2)  # the whole suite: shared, used
    alone = pytester.runpytest(STRICT, "test_own.py")
    alone.assert_outcomes(passed=1, errors=1)
    alone.stdout.fnmatch_lines(
        [
            "*--replaygate-strict: 1 recorded fixture(s) of * unused by this test:",
            "*(the run may not have collected every test naming this store: the run was given "
            "particular tests (test_own.py); if another test's marker names it, they share "
            "it: run them together)",
        ]
    )
    assert "replaygate prune" not in alone.stdout.str()  # which to keep, a part cannot tell
    together = pytester.runpytest(STRICT, "-k", "own or borrows")
    assert together.ret == pytest.ExitCode.OK
