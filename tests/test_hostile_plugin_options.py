"""Odd values of the pytest plugin's options are usage errors naming the option, at once.

A spending cap of NaN compares false with every amount, so it capped nothing; a
negative one failed the first test with "spending cap reached" as if money had been
spent. An empty ``--replaygate-dir`` took the rootdir itself for the fixtures folder,
and one naming a file failed each test with "there is no store ...: record it first".
"""

from __future__ import annotations

import pytest

RECORD = (
    "--replaygate-record-mode=record-missing",
    "--replaygate-approve-live",
    "--replaygate-simulator=echo",
)


@pytest.mark.parametrize("value", ["nan", "-1", "-inf"])
def test_a_spending_cap_that_is_no_amount_is_a_usage_error(
    pytester: pytest.Pytester, value: str
) -> None:
    pytester.makepyfile("def test_never(): raise AssertionError('ran')")
    result = pytester.runpytest(*RECORD, f"--replaygate-max-cost={value}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [f"*--replaygate-max-cost: must be a number >= 0 (an amount to spend), got {value}"]
    )


def test_a_spending_cap_in_the_ini_that_is_no_amount_names_the_setting(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeini("[pytest]\nreplaygate_max_cost = NaN\n")
    pytester.makepyfile("def test_never(): raise AssertionError('ran')")
    result = pytester.runpytest(*RECORD)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*tox.ini: replaygate_max_cost = 'NaN' must be a number >= 0 (an amount to spend)"]
    )


EMPTY = "*--replaygate-dir is empty: name the folder of the fixture stores*"


@pytest.mark.parametrize(
    ("mode", "folder", "message"),
    [
        ((), "", EMPTY),
        (RECORD, "", EMPTY),
        ((), "  ", EMPTY),
        ((), "notes.txt", "*--replaygate-dir: *notes.txt is a file, where a folder is expected"),
        ((), "/dev/null", "*--replaygate-dir: /dev/null is a device, where a folder is expected"),
    ],
    ids=["empty", "empty, recording", "blank", "a file", "a device"],
)
def test_a_fixtures_folder_that_is_none_is_a_usage_error(
    pytester: pytest.Pytester, mode: tuple[str, ...], folder: str, message: str
) -> None:
    # Recording into a file names each test's store instead (test_http_plugin.py).
    pytester.path.joinpath("notes.txt").write_text("my notes\n")
    pytester.makepyfile("def test_never(): raise AssertionError('ran')")
    result = pytester.runpytest(*mode, f"--replaygate-dir={folder}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    assert pytester.path.joinpath("notes.txt").read_text() == "my notes\n"


SAMPLED = """
import pytest

@pytest.mark.sampled(n=3, floor=2)
def test_sampled(replaygate_sample):
    assert replaygate_sample != 1
"""


@pytest.mark.parametrize(
    ("options", "option"),
    [
        (["--sampling-results=/dev/full"], "--sampling-results"),
        (["--flaky-runs=2", "--flaky-report=/dev/full"], "--flaky-report"),
    ],
)
def test_a_result_file_that_cannot_be_written_fails_the_session_saying_so(
    pytester: pytest.Pytester, options: list[str], option: str
) -> None:
    # A full disk at the end of the session ended pytest in a traceback from the plugin.
    pytester.makepyfile(SAMPLED)
    result = pytester.runpytest(*options)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [f"replaygate: {option}: cannot write /dev/full: No space left on device*"]
    )
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
