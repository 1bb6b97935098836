"""A ``replaygate`` mark a conftest adds in ``pytest_collection_modifyitems`` (the way
teams apply their ``vcr`` marks), in whatever order its hook runs, applies in full: the
test's clients are answered from the store the mark names, and a miss the code under
test catches still fails it. One added as the test is set up fails its setup, saying why."""

from __future__ import annotations

import pytest

from echo_recording import ASKING, record_echoes
from nested_pytest import sessions_loading
from sdks import anthropic

pytestmark = [pytest.mark.slow, pytest.mark.native_tracebacks]  # a pytest session of its own


sessions_find_their_modules = sessions_loading(anthropic)


MARKING = """
import pytest


def marking(folder):
    def modifyitems(items):
        for item in items:
            if item.path.parent.name == folder:
                item.add_marker(pytest.mark.replaygate(fixtures="shared.jsonl"))

    return modifyitems
"""

CONFTEST = """
import pytest

from marking import marking

pytest_plugins = ["late"]


def pytest_collection_modifyitems(items):  # as plain as a team writes it
    marking("plain")(items)
"""

LATE = """
import pytest

from marking import marking


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    marking("late")(items)
"""

TESTS = (
    """
import anthropic
"""
    + ASKING
    + """

def test_recorded():
    assert ask("hi") == "echo: hi"


def test_caught():
    assert ask_with_fallback("changed") == "fallback"
"""
)


def test_a_mark_added_by_any_modifyitems_hook_applies_in_full(pytester: pytest.Pytester) -> None:
    record_echoes(pytester.path / "tests/fixtures/shared.jsonl", ["hi"])
    pytester.makepyfile(marking=MARKING, late=LATE)
    pytester.makeconftest(CONFTEST)
    for folder in ("plain", "late"):
        (pytester.path / folder).mkdir()
        (pytester.path / folder / f"test_{folder}.py").write_text(TESTS)
    pytester.syspathinsert()
    result = pytester.runpytest("-p", "no:cacheprovider", "-rE")
    result.assert_outcomes(passed=4, errors=2)
    result.stdout.fnmatch_lines_random(
        [f"ERROR {folder}/test_{folder}.py::test_caught - Failed*" for folder in ("plain", "late")]
    )
    caught = "replaygate: the code under test caught"
    assert [line.startswith(caught) for line in result.outlines].count(True) == 2  # one a test
    assert "network attempts refused" not in result.stdout.str()


LATE_TESTS = (
    """
import anthropic
import pytest
"""
    + ASKING
    + """

@pytest.fixture
def marked(request):
    request.applymarker(pytest.mark.replaygate(fixtures="shared.jsonl"))


@pytest.mark.replaygate(fixtures="shared.jsonl")
def test_marked_as_collected():
    assert ask("hi") == "echo: hi"


def test_marked_by_a_fixture(marked):
    assert ask("hi") == "echo: hi"


def test_marked_by_a_setup_hook():
    assert ask("hi") == "echo: hi"
"""
)

SETUP_HOOK = """
import pytest


def pytest_runtest_setup(item):
    if item.name.endswith("setup_hook"):
        item.add_marker(pytest.mark.replaygate(fixtures="shared.jsonl"))
"""


def test_a_mark_added_at_setup_fails_the_setup_saying_so(pytester: pytest.Pytester) -> None:
    # Such a test got no intercept: its client went to the network, refused here only
    # because another test of the session made it offline, and live in a session of its own.
    record_echoes(pytester.path / "tests/fixtures/shared.jsonl", ["hi"])
    pytester.makeconftest(SETUP_HOOK)
    pytester.makepyfile(test_late=LATE_TESTS)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=2)
    for name in ("test_marked_by_a_fixture", "test_marked_by_a_setup_hook"):
        result.stdout.fnmatch_lines(
            [f"replaygate: the replaygate marker of test_late.py::{name} was added after *"]
        )
    assert "network attempts refused" not in result.stdout.str()
