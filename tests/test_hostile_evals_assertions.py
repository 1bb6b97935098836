"""Hostile measurements from a user's check: what a check gives is checked where it is made.

A check's measurement says ``passed`` and ``score``. A ``passed`` that is not a yes or
no (the string ``"false"`` from a parsed reply) was taken by its truth, so it passed;
a score of NaN or infinity was written to the results file, which replaygate then
refused to read.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from replaygate.assertions.kinds import Check, Outcome
from replaygate.sampling import run_sampled
from replaygate.sampling.results import load_results, write_results


@dataclass(frozen=True)
class Measured:
    passed: Any
    message: str = "measured"
    score: Any = None


def sampled(measured: Measured) -> Any:
    check = Check("grounded", "gate", lambda _: measured, "custom")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return run_sampled(lambda i: "answer", 3, 3, [check], case="c1")


@pytest.mark.parametrize("passed", ["false", "no", None, [], "", 0.5])
def test_a_passed_that_is_not_yes_or_no_is_an_error_naming_the_check(passed: Any) -> None:
    with pytest.raises(TypeError, match=r"check 'grounded': passed must be true or false, got"):
        sampled(Measured(passed))


@pytest.mark.parametrize("score", [math.nan, math.inf, -math.inf, "0.5", True])
def test_a_score_that_is_not_a_finite_number_is_an_error_naming_the_check(score: Any) -> None:
    with pytest.raises(ValueError, match=r"check 'grounded': score must be a finite number"):
        sampled(Measured(True, score=score))


def test_numbers_that_mean_yes_or_no_are_taken(tmp_path: Path) -> None:
    result = sampled(Measured(1, score=0))
    assert result.verdict == "pass" and result.samples[0].outcomes[0].passed is True
    assert sampled(Measured(0)).verdict == "block"
    written = write_results(tmp_path / "results.json", [result])
    (loaded,) = load_results(written)
    assert loaded == result


def test_an_outcome_is_checked_when_made() -> None:
    with pytest.raises(TypeError, match="passed must be true or false"):
        Outcome("x", "gate", "false")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="score must be a finite number"):
        Outcome("x", "gate", True, "", math.nan)


def test_a_check_named_with_a_control_character_is_refused_when_made() -> None:
    # Its results file could not have been read back.
    with pytest.raises(ValueError, match="must hold no control character"):
        Check("cites\nsource", "gate", lambda _: None)


@pytest.mark.parametrize("flag", [True, False])
def test_a_numpy_bool_is_one_yes_or_no_to_a_check_and_to_an_outcome(flag: bool) -> None:
    numpy = pytest.importorskip("numpy")
    given = numpy.bool_(flag)
    made = Outcome("x", "gate", given, "", numpy.float64(0.5))  # type: ignore[arg-type]
    checked = Check("x", "gate", lambda _: Measured(given, "", numpy.float64(0.5))).evaluate(0)
    assert made == checked
    assert made.passed is flag and type(made.score) is float
    assert checked.to_json() == made.to_json()


def test_a_results_file_whose_outcome_says_passed_false_as_text_is_refused(
    tmp_path: Path,
) -> None:
    written = write_results(tmp_path / "results.json", [sampled(Measured(False))])
    text = written.read_text().replace('"passed": false', '"passed": "false"')
    assert '"passed": "false"' in text
    written.write_text(text)
    refused = r"outcomes\[0\]\.passed: must be true or false, got 'false'"
    with pytest.raises(Exception, match=refused) as caught:
        load_results(written)  # by its truth, the text "false" passed the gate
    assert "results.json" in str(caught.value)
