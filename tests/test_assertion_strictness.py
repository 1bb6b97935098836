"""Assertions that must fail what they claim to fail, and refuse settings under which
nothing can fail."""

from __future__ import annotations

import datetime
import enum
import uuid

import pydantic
import pytest

from replaygate.assertions import (
    Judge,
    JudgeReplyError,
    assert_contains,
    assert_json,
    assert_set,
    citations_check,
    contains_check,
)
from replaygate.models.fakes import FunctionModel
from replaygate.models.types import Message, ModelResponse, ToolSpec

# -- pydantic, strictly ------------------------------------------------------------------


class Report(pydantic.BaseModel):
    ok: bool
    count: int
    score: float


def test_a_pydantic_model_fails_wrong_json_types_rather_than_converting_them() -> None:
    with pytest.raises(AssertionError) as err:
        assert_json('{"ok": "yes", "count": "5", "score": "NaN"}', Report)
    assert str(err.value).splitlines() == [
        "payload does not match the schema: 3 failing path(s):",
        "  $.count: Input should be a valid integer",
        "  $.ok: Input should be a valid boolean",
        "  $.score: Input should be a valid number",
    ]
    assert assert_json('{"ok": true, "count": 5, "score": 5}', Report).score == 5.0


class Colour(enum.Enum):
    RED = "red"


class Event(pydantic.BaseModel):
    when: datetime.datetime
    id: uuid.UUID
    colour: Colour
    totals: dict[int, int]


def test_a_pydantic_model_reads_what_json_carries_as_text_and_nothing_else() -> None:
    with pytest.raises(AssertionError, match=r"totals\['3'\]: Input should be a valid integer"):
        assert_json(
            '{"when": "2026-11-30T05:39:00Z", "id": "12345678-1234-5678-1234-567812345678", '
            '"colour": "red", "totals": {"3": "4"}}',
            Event,
        )
    text = (
        '{"when": "2026-11-30T05:39:00Z", "id": "12345678-1234-5678-1234-567812345678", '
        '"colour": "red", "totals": {"3": 4}}'
    )
    event = assert_json(text, Event)
    assert (event.when.year, event.id.int, event.colour, event.totals) == (
        2026,
        0x12345678123456781234567812345678,
        Colour.RED,
        {3: 4},
    )


# -- a key named twice ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "path"),
    [('{"count": "five", "count": 5}', "$.count"), ('[{"a": {"b": 1, "b": 2}}]', "$[0].a.b")],
)
def test_assert_json_refuses_a_key_named_twice_with_its_path(text: str, path: str) -> None:
    schema = {"type": ["object", "array"]}
    with pytest.raises(AssertionError) as err:
        assert_json(text, schema)
    assert f"it names the key {path} twice in one object" in str(err.value)


# -- settings under which nothing can fail -------------------------------------------------


@pytest.mark.parametrize("min_precision", [None, 0, 0.0])
def test_a_set_with_min_recall_zero_and_no_min_precision_is_refused(
    min_precision: float | None,
) -> None:
    with pytest.raises(ValueError, match="every set would pass"):
        assert_set([], {"doc-rag"}, min_recall=0.0, min_precision=min_precision)
    with pytest.raises(ValueError, match="every set would pass"):
        citations_check({"doc-rag"}, kind="gate", min_recall=0, min_precision=min_precision)
    with pytest.raises(AssertionError, match=r"precision 0\.00 < min_precision 0\.50"):
        assert_set(["made-up"], {"doc-rag"}, min_recall=0, min_precision=0.5)


def grader(grade: str) -> FunctionModel:
    def reply(messages: list[Message], tools: list[ToolSpec]) -> ModelResponse:
        return ModelResponse(text=f"reasoning\nGRADE: {grade}")

    model = FunctionModel(reply)
    model.model_id = "gpt-4o-mini"  # type: ignore[attr-defined]
    return model


def test_a_judge_threshold_at_the_lowest_grade_is_refused() -> None:
    with pytest.raises(ValueError, match=r"lowest grade of the scale 1\.\.5: every grade would"):
        Judge(grader("1"), "5: good; 1: bad", threshold=1, under_test="claude-sonnet-4-5")


def test_a_judge_reads_only_ascii_digits_as_a_grade() -> None:
    judge = Judge(grader("\u0665"), "5: good; 1: bad", threshold=4, under_test="claude-sonnet-4-5")
    with pytest.raises(JudgeReplyError, match="no 'GRADE: n' line"):
        judge.grade("text")


@pytest.mark.parametrize("piece", ["\u200f", "\u200b\u200d", "\u2060"])
def test_a_required_piece_of_invisible_characters_is_refused(piece: str) -> None:
    with pytest.raises(ValueError, match="characters that show nothing"):
        assert_contains("any text", [piece])
    with pytest.raises(ValueError, match="characters that show nothing"):
        contains_check(["RAG"], kind="gate", aliases={"RAG": [piece]})
