"""The pytest plugin's number options and ini settings take the digits 0-9 only.

argparse's ``int`` and ``float`` are Python's, which read a full-width ``７`` as 7 and
``1_000`` as a thousand: ``--replaygate-sim-seed ７`` recorded with seed 7, and
``--flaky-runs ２`` ran each test twice. Each is a usage error now, naming the option
or the ini setting, as the command line's number options are (``click_numbers.py``).
"""

from __future__ import annotations

import pytest

from replaygate import digits

RECORD = ("--replaygate-record-mode=record-missing", "--replaygate-approve-live")


@pytest.mark.slow  # a pytest session of its own, as each test with pytester
@pytest.mark.parametrize(
    ("option", "value", "kind"),
    [
        ("--replaygate-sim-seed", "\uff17", "integer"),  # a full-width 7
        ("--replaygate-sim-seed", "1_000", "integer"),
        ("--replaygate-sim-seed", "\u0667", "integer"),  # an Arabic-Indic 7
        ("--flaky-runs", "\uff12", "integer"),
        ("--replaygate-max-cost", "\uff10.5", "number"),  # a full-width 0, then .5
    ],
)
def test_an_option_in_other_digits_is_a_usage_error_naming_it(
    pytester: pytest.Pytester, option: str, value: str, kind: str
) -> None:
    pytester.makepyfile("def test_never(): raise AssertionError('ran')")
    result = pytester.runpytest(*RECORD, "--replaygate-simulator=echo", f"{option}={value}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*argument {option}: invalid {kind} value: {value!r}"])


@pytest.mark.slow
@pytest.mark.parametrize(
    ("setting", "value", "kind"),
    [("replaygate_sim_seed", "\uff17", "an integer"), ("replaygate_max_cost", "1_0", "a number")],
)
def test_an_ini_setting_in_other_digits_is_a_usage_error_naming_it(
    pytester: pytest.Pytester, setting: str, value: str, kind: str
) -> None:
    pytester.makeini(f"[pytest]\n{setting} = {value}\n")
    pytester.makepyfile("def test_never(): raise AssertionError('ran')")
    result = pytester.runpytest(*RECORD, "--replaygate-simulator=echo")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*tox.ini: {setting} = {value!r} is not {kind}"])


@pytest.mark.slow
def test_ascii_numbers_are_still_read(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nreplaygate_max_cost = 2.5\n")
    pytester.makepyfile(
        "def test_options(request):\n"
        "    assert request.config.getoption('replaygate_sim_seed') == 7\n"
        "    assert request.config.getoption('replaygate_flaky_runs') == 0\n"
    )
    result = pytester.runpytest("--replaygate-sim-seed", " 7", "-p", "no:randomly")
    result.assert_outcomes(passed=1)


@pytest.mark.parametrize("text", ["7", "-3", "+0012", " 5 "])
def test_integers_in_ascii_digits(text: str) -> None:
    assert digits.integer(text) == int(text)


@pytest.mark.parametrize("text", ["0.5", "1e-3", ".5", "-2.", "nan", "INF"])
def test_numbers_in_ascii_digits(text: str) -> None:
    assert digits.number(text) == pytest.approx(float(text), nan_ok=True)


@pytest.mark.parametrize("text", ["\uff17", "1_000", "", "0x10", "1.5", "٣"])
def test_other_integers_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="is not an integer written in the digits 0-9"):
        digits.integer(text)


@pytest.mark.parametrize("text", ["\uff10.5", "1_0.5", "", "1e", "0x1p3", "one"])
def test_other_numbers_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="is not a number written in the digits 0-9"):
        digits.number(text)
