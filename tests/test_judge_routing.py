"""A judge routed through a provider's own id form is read as the model behind it (law 8).

Databricks names its Foundation Model endpoints ``databricks-<base model>``
(``databricks-claude-3-7-sonnet``, ``databricks-meta-llama-3-3-70b-instruct``), as
LangChain's ``ChatDatabricks(endpoint=...)`` and LiteLLM's ``databricks/...`` send them:
those ids were read as family ``databricks``, so a Claude judge of Claude was accepted.
"""

from __future__ import annotations

import pytest

from replaygate.assertions import Judge, JudgeIndependenceError
from replaygate.assertions.independence import normalize_model_id
from replaygate.models.fakes import FunctionModel
from replaygate.models.types import ModelResponse

GRADER = FunctionModel(lambda messages, tools: ModelResponse(text="GRADE: 5"))


@pytest.mark.parametrize(
    ("judge", "tested", "refused"),
    [
        ("databricks-claude-3-7-sonnet", "claude-sonnet-4-5", "of family 'anthropic'"),
        ("databricks-meta-llama-3-3-70b-instruct", "llama-3.1-8b", "of family 'meta'"),
        ("databricks/databricks-claude-sonnet-4", "anthropic/claude-3-opus", "'anthropic'"),
        ("databricks-gpt-oss-120b", "gpt-4o", "of family 'openai'"),
        ("databricks-claude-3-7-sonnet", "claude-3-7-sonnet", "the model under test"),
    ],
)
def test_a_databricks_endpoint_is_read_as_its_base_model(
    judge: str, tested: str, refused: str
) -> None:
    with pytest.raises(JudgeIndependenceError, match=refused):
        Judge(GRADER, "r", threshold=4, under_test=tested, judge_id=judge)
    with pytest.raises(JudgeIndependenceError, match=refused):  # either side
        Judge(GRADER, "r", threshold=4, under_test=judge, judge_id=tested)


def test_a_databricks_endpoint_of_another_family_judges() -> None:
    assert normalize_model_id("Databricks-Meta-Llama-3-3-70B-Instruct") == (
        "meta-llama-3-3-70b-instruct"
    )
    Judge(GRADER, "r", threshold=4, under_test="gpt-4o", judge_id="databricks-claude-3-7-sonnet")


def test_the_prefix_alone_names_no_model() -> None:
    with pytest.raises(JudgeIndependenceError, match="names no model"):
        Judge(GRADER, "r", threshold=4, under_test="gpt-4o", judge_id="databricks-")
