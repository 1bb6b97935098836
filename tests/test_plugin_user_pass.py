"""The pytest plugin used as a team uses it, where the docs do not show the way.

A ``--replaygate-dir`` under a file (``notes.txt/fixtures``) failed every test with
"there is no store ...: record it first", where recording would refuse the folder; a
``replaygate_config`` left without its ``return`` was said to return ``null``; a
``sampled`` mark on a ``unittest.TestCase`` was told to take ``replaygate_sample`` as
an argument, which a TestCase method cannot.
"""

from __future__ import annotations

import pytest

from replaygate.pytest_plugin.settings import config_settings


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
