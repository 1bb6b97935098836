"""Outputs that vary, used as a team would: a judge named as another model while its
model sends the model under test's id (law 8)."""

from __future__ import annotations

from pathlib import Path

import pytest

from replaygate.assertions import Judge, JudgeIndependenceError
from replaygate.models.replay import ReplayModel

RUBRIC = "The answer cites its source. 5: cited; 1: not cited."


def replayed(tmp_path: Path, model: str) -> ReplayModel:
    return ReplayModel(tmp_path / "judge.jsonl", model=model, max_tokens=256)


@pytest.mark.parametrize(
    "under_test", ["claude-sonnet-4-5", "us.anthropic.claude-sonnet-4-5-20250929-v1:0"]
)
def test_a_judge_id_cannot_make_the_model_under_test_its_own_judge(
    tmp_path: Path, under_test: str
) -> None:
    # judge_id names a judge whose id cannot be read; here the judge's requests name
    # the model under test, and judge_id="gpt-4o" let it grade its own answers.
    judge = replayed(tmp_path, "claude-sonnet-4-5")
    for tested in (under_test, replayed(tmp_path, under_test)):
        with pytest.raises(
            JudgeIndependenceError,
            match=r"judge_id='gpt-4o' names the judge, but its ReplayModel sends model "
            r"'claude-sonnet-4-5': refusing a judge that is the model under test",
        ):
            Judge(judge, RUBRIC, threshold=4, under_test=tested, judge_id="gpt-4o")


def test_a_judge_id_still_names_a_model_whose_id_tells_no_base_model(tmp_path: Path) -> None:
    deployment = replayed(tmp_path, "grader-deployment")  # an Azure deployment's name
    judge = Judge(
        deployment, RUBRIC, threshold=4, under_test="claude-sonnet-4-5", judge_id="gpt-4o"
    )
    assert judge.judge_id == "gpt-4o"
    with pytest.raises(JudgeIndependenceError, match="both are of family 'anthropic'"):
        Judge(deployment, RUBRIC, threshold=4, under_test="claude-sonnet-4-5", judge_id="claude-3")
