"""One of replaygate's two pytest plugins disabled (``-p no:replaygate``, say, copied from
a CI config): the other refuses the tests carrying the disabled one's marker before any
test runs. A ``replaygate`` test would run with nothing intercepted and nothing blocked,
its calls live (law 3); a ``sampled`` one once, its floor unchecked (law 7)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow  # each test: runs a pytest session of its own

MARKED = """
import pytest

pytestmark = pytest.mark.replaygate(note="x")

def test_module_marked():
    open("ran", "w").close()
"""

DECORATED = """
import pytest

@pytest.mark.replaygate
def test_decorated():
    open("ran", "w").close()

@pytest.mark.sampled(n=3, floor=2)
def test_sampled(replaygate_sample):
    open("ran", "w").close()

def test_plain():
    pass
"""


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A project of a module-marked test and one of a decorated, a sampled and a plain
    test; its sessions load plugins by the names the entry points give them."""
    monkeypatch.delenv("PYTEST_PLUGINS")  # the modules the pytester fixture loads
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p replaygate -p replaygate_sampling")
    pytester.makepyfile(test_marked=MARKED, test_decorated=DECORATED)
    return pytester


def assert_refused_before_any_test(result: pytest.RunResult, project: pytest.Pytester) -> None:
    """The run ended as a usage error, no test of the project having run."""
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert not (project.path / "ran").exists()


def test_the_recording_plugin_disabled_refuses_the_marked_tests(project: pytest.Pytester) -> None:
    result = project.runpytest("-p", "no:replaygate")
    assert_refused_before_any_test(result, project)
    result.stderr.fnmatch_lines(
        [
            "ERROR: replaygate's recording plugin is disabled by -p no:replaygate (on the "
            "command line), but these tests carry @pytest.mark.replaygate:",
            "  test_decorated.py::test_decorated",
            "  test_marked.py::test_module_marked",
            "Each would run with no fixture store and nothing blocking the network, its calls "
            "live: disabling a plugin approves no live call (law 3). To run such tests, drop "
            '-p no:replaygate; to run without them, leave them out: -m "not replaygate".',
        ]
    )


def test_the_marked_tests_left_out_the_others_run(project: pytest.Pytester) -> None:
    result = project.runpytest("-p", "no:replaygate", "-m", "not replaygate")
    result.assert_outcomes(passed=2, deselected=2)


def test_the_sampling_plugin_disabled_refuses_the_sampled_tests(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    disabled = "-p replaygate -p replaygate_sampling -p no:replaygate_sampling"
    monkeypatch.setenv("PYTEST_ADDOPTS", disabled)
    result = project.runpytest("--strict-markers")  # the absent plugin's marker is known
    assert_refused_before_any_test(result, project)
    result.stderr.fnmatch_lines(
        [
            "ERROR: replaygate's sampling plugin is disabled by -p no:replaygate_sampling (in "
            "PYTEST_ADDOPTS), but these tests carry @pytest.mark.sampled:",
            "  test_decorated.py::test_sampled",
            "Each would run once, as if unsampled, its sample count and floor unchecked (law "
            "7). To run such tests, drop -p no:replaygate_sampling; to run without them, leave "
            'them out: -m "not sampled".',
        ]
    )
