"""A replay miss caught on its way to a test marked ``xfail`` still fails the run (law 2):
the teardown error that names it is no expected failure (a worker of pytest-xdist makes
its reports with the same hook)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from echo_recording import ASKING, record_echoes
from nested_pytest import sessions_loading
from sdks import anthropic

pytestmark = [pytest.mark.slow, pytest.mark.native_tracebacks]  # pytest sessions of their own


sessions_find_their_modules = sessions_loading(anthropic)


XFAILS = (
    """
import anthropic
import pytest

pytestmark = pytest.mark.replaygate(fixtures="shared.jsonl")
"""
    + ASKING
    + """

@pytest.mark.xfail(reason="known bug in the answer")
def test_caught_by_the_code_under_test():
    assert ask_with_fallback("changed") == "echo: changed"


@pytest.mark.xfail(reason="known bug in the answer")
def test_caught_by_the_test():
    try:
        answer = ask("changed")
    except Exception:
        answer = "fallback"
    assert answer == "echo: changed"


@pytest.mark.xfail(reason="known bug in the answer")
def test_caught_then_xpassed():
    assert ask_with_fallback("changed") == "fallback"


@pytest.mark.xfail(reason="known bug in the answer")
def test_recorded():
    assert ask_with_fallback("hi") == "echo: hi, fixed"
"""
)

CAUGHT = (
    "test_caught_by_the_code_under_test",
    "test_caught_by_the_test",
    "test_caught_then_xpassed",
)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One message, ``hi``, recorded once for the module's sessions."""
    path = tmp_path_factory.mktemp("caught_xfail") / "shared.jsonl"
    record_echoes(path, ["hi"])
    return path


def run(pytester: pytest.Pytester, recorded: Path, *args: str) -> pytest.RunResult:
    """The tests of :data:`XFAILS` run over a copy of the recorded store."""
    (pytester.path / "tests/fixtures").mkdir(parents=True)
    shutil.copy(recorded, pytester.path / "tests/fixtures/shared.jsonl")
    pytester.makepyfile(test_xfails=XFAILS)
    return pytester.runpytest("-rA", "-p", "no:cacheprovider", *args)


def check_caught_misses_fail(result: pytest.RunResult) -> None:
    """Each test whose miss was caught errs at teardown with the miss and a ``replaygate``
    section saying an xfail does not expect it; the recorded one xfails."""
    result.assert_outcomes(xfailed=3, xpassed=1, errors=3)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    for name in CAUGHT:
        result.stdout.fnmatch_lines([f"ERROR test_xfails.py::{name} - Failed*"])
    assert "XFAIL at teardown" not in result.stdout.str()
    said = "replaygate: the test is marked xfail, but it failed on a replay error, which*"
    assert sum(line.startswith(said[:-1]) for line in result.stdout.lines) == 3
    result.stdout.fnmatch_lines(["XFAIL test_xfails.py::test_recorded - known bug*"])


def test_a_caught_miss_fails_a_test_marked_xfail(pytester: pytest.Pytester, recorded: Path) -> None:
    result = run(pytester, recorded)
    check_caught_misses_fail(result)
    result.stdout.fnmatch_lines(
        [
            "*ERROR at teardown of test_caught_by_the_test*",
            "replaygate: the test caught a replay error with `except Exception` "
            "(test_xfails.py:*), which does not name it*",
        ]
    )
