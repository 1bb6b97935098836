"""Assertions given values that made them pass vacuously, or end in a traceback.

An alias list written as one string (``aliases={"RAG": "retrieval"}``) was read letter
by letter, so a text holding an ``r`` passed. A set check expecting nothing passed on
any set. A payload holding NaN (``json.loads`` takes it) passed every ``maximum`` and
``minimum`` of its schema, since NaN compares false with every bound. A schema whose
``$ref`` leads back to itself ended in a RecursionError, and a case file holding one
loaded as if it were fine. A judge spelled ``openai:gpt-4o`` (pydantic-ai, LangChain)
was not the model under test ``gpt-4o`` under ``exact_only`` (law 8).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from replaygate.assertions import (
    assert_structure,
    citations_check,
    measure_contains,
    measure_set,
    measure_structure,
)
from replaygate.assertions.errors import JudgeIndependenceError
from replaygate.assertions.independence import check_independence, exact_only, normalize_model_id
from replaygate.evals import load_eval_cases
from replaygate.evals.errors import EvalError


def test_an_alias_list_written_as_one_string_is_refused() -> None:
    with pytest.raises(TypeError, match=r"aliases\['RAG'\] must be a list of strings, got 'xyz'"):
        measure_contains("a text with x in it", ["RAG"], aliases={"RAG": "xyz"})
    with pytest.raises(TypeError, match="aliases must map a required piece"):
        measure_contains("text", ["RAG"], aliases=["RAG"])  # type: ignore[arg-type]
    assert measure_contains("x marks", ["RAG"], aliases={"RAG": ("x",)}).passed


def test_a_set_check_that_expects_nothing_is_refused_unless_extras_fail() -> None:
    with pytest.raises(ValueError, match="expected is empty: every set would pass"):
        measure_set(["doc-a"], [])
    with pytest.raises(ValueError, match="expected is empty"):
        citations_check([], kind="gate")
    assert not measure_set(["doc-a"], [], min_precision=1.0).passed
    assert measure_set([], [], min_precision=1.0).passed
    with pytest.raises(TypeError, match="got must be a collection of hashable items, got NoneType"):
        measure_set(None, ["doc-a"])  # type: ignore[arg-type]


@pytest.mark.parametrize("number", [math.nan, math.inf, -math.inf])
def test_a_number_json_cannot_hold_fails_the_structure_check_at_its_path(number: float) -> None:
    schema = {"type": "object", "properties": {"score": {"type": "number", "maximum": 1}}}
    payload = json.loads(json.dumps({"score": number, "items": [number]}))
    result = measure_structure(payload, schema)
    assert not result.passed
    assert [p.path for p in result.problems][:2] == ["$.items[0]", "$.score"]
    assert f"{number!r} is not a number JSON can hold" in result.message


def test_a_numpy_value_failing_its_type_is_named_with_its_conversion() -> None:
    numpy = pytest.importorskip("numpy")
    schema = {"type": "object", "properties": {"n": {"type": "integer"}, "xs": {"type": "array"}}}
    message = measure_structure({"n": numpy.int64(2), "xs": numpy.array([1])}, schema).message
    assert "$.n: np.int64(2) is not of type 'integer' (a numpy.int64, which" in message
    assert "convert it with .item())" in message
    assert "(a numpy.ndarray, which a JSON Schema reads as no JSON type" in message
    assert "convert it with .tolist())" in message


def test_a_numpy_value_failing_a_pydantic_model_is_named_with_its_conversion() -> None:
    numpy = pytest.importorskip("numpy")
    pydantic = pytest.importorskip("pydantic")

    class Report(pydantic.BaseModel):
        n: int
        tags: list[str]

    message = measure_structure({"n": numpy.int64(2), "tags": numpy.array(["a"])}, Report).message
    assert (
        "$.n: Input should be a valid integer (a numpy.int64: convert it with .item())" in message
    )
    assert "$.tags: Input should be a valid list (a numpy.ndarray: convert it with .tolist())" in (
        message
    )


def test_a_numpy_count_or_threshold_is_named_with_its_conversion() -> None:
    numpy = pytest.importorskip("numpy")
    from replaygate.assertions import Judge
    from replaygate.models.fakes import ScriptedModel
    from replaygate.sampling import run_sampled

    with pytest.raises(ValueError, match=re.escape("got np.int64(3) (a numpy.int64: convert")):
        run_sampled(lambda i: "x", numpy.int64(3), 2, [citations_check({"a"}, kind="gate")])
    with pytest.raises(TypeError, match=re.escape("np.int64(4) (a numpy.int64: convert it")):
        Judge(ScriptedModel([]), "r", threshold=numpy.int64(4), under_test="claude-sonnet-4-5")


@pytest.mark.parametrize(
    ("schema", "where"),
    [
        ({"$ref": "#"}, ""),
        ({"type": "object", "properties": {"a": {"$ref": "#/properties/a"}}}, "properties.a"),
        ({"allOf": [{"$ref": "#"}]}, ""),
        ({"$defs": {"x": {"$ref": "#/$defs/y"}, "y": {"$ref": "#/$defs/x"}}}, "$defs.x"),
        # a property named as a data keyword holds a schema all the same
        ({"properties": {"default": {"$ref": "#/properties/default"}}}, "properties.default"),
    ],
)
def test_a_schema_that_refers_to_itself_without_end_is_refused_where_it_loops(
    tmp_path: Path, schema: dict[str, object], where: str
) -> None:
    # a loop under properties once loaded, and ended the eval at the first answer holding a
    with pytest.raises(ValueError, match=r"refers to itself without end") as caught:
        assert_structure({"b": 1}, schema)
    assert f"invalid JSON Schema at {where or '$'}: " in str(caught.value)
    cases = tmp_path / "cases.jsonl"
    case = {"id": "c", "question": "q", "schema": schema, "samples": 1, "floor": 1}
    cases.write_text(json.dumps(case) + "\n")
    named = f"schema.{where}" if where else "schema"
    with pytest.raises(EvalError, match=rf"cases\.jsonl:1: {re.escape(named)}: it refers"):
        load_eval_cases(cases)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"child": {"$ref": "#"}}},
        {
            "$defs": {"node": {"properties": {"next": {"$ref": "#/$defs/node"}}}},
            "$ref": "#/$defs/node",
        },
    ],
)
def test_a_schema_recursing_into_a_part_of_the_value_is_kept(schema: dict[str, object]) -> None:
    assert_structure({"child": {"child": {}}, "next": {"next": {}}}, schema)


@pytest.mark.parametrize(
    ("judge", "under_test"),
    [
        ("openai:gpt-4o", "gpt-4o"),
        ("google-gla:gemini-2.0-flash", "models/gemini-2.0-flash"),
        ("anthropic:claude-sonnet-4-5", "us.anthropic.claude-sonnet-4-5"),
    ],
)
def test_a_provider_prefix_does_not_make_the_model_under_test_a_judge(
    judge: str, under_test: str
) -> None:
    # pydantic-ai's and LangChain's "provider:model" spelling passed exact_only (law 8)
    with pytest.raises(JudgeIndependenceError, match="is the model under test: "):
        check_independence(judge, under_test, exact_only)


def test_a_tag_after_a_colon_is_not_taken_for_a_provider() -> None:
    assert normalize_model_id("llama3:8b") == "llama3:8b"
    check_independence("llama3:70b", "llama3:8b", exact_only)  # two models: accepted


def test_a_loop_under_a_nested_id_is_refused_by_the_case_file(tmp_path: Path) -> None:
    # references under a nested $id are the validator's to resolve: the case file asks it
    schema = {"$defs": {"x": {"$id": "http://e.test/x", "$ref": "#"}}, "$ref": "#/$defs/x"}
    cases = tmp_path / "cases.jsonl"
    case = {"id": "c", "question": "q", "schema": schema, "samples": 1, "floor": 1}
    cases.write_text(json.dumps(case) + "\n")
    with pytest.raises(EvalError, match=r"cases\.jsonl:1: schema: it refers"):
        load_eval_cases(cases)


def test_a_bad_ref_under_a_property_named_as_a_data_keyword_is_refused() -> None:
    with pytest.raises(ValueError, match=r"cannot resolve \$ref '#/nope' at properties\.enum"):
        assert_structure({"enum": 1}, {"properties": {"enum": {"$ref": "#/nope"}}})


def test_a_schema_nested_too_deeply_is_refused_not_a_traceback() -> None:
    schema: dict[str, object] = {"type": "string"}
    for _ in range(150):
        schema = {"type": "array", "items": schema}
    with pytest.raises(ValueError, match=r"^invalid JSON Schema: nested too deeply to be checked$"):
        assert_structure([], schema)


def test_a_case_schema_its_metaschema_rejects_is_named_at_its_field(tmp_path: Path) -> None:
    cases = tmp_path / "cases.jsonl"
    schema = {"properties": {"a": {"type": "strin"}}}
    case = {"id": "c", "question": "q", "schema": schema, "samples": 1, "floor": 1}
    cases.write_text(json.dumps(case) + "\n")
    named = r"cases\.jsonl:1: schema\.properties\.a\.type: not a valid JSON Schema: 'strin'"
    with pytest.raises(EvalError, match=named):
        load_eval_cases(cases)
