"""Each assertion on ResearchCopilot's answers, replayed from recorded fixtures.

``fixtures/rag_basics_samples.jsonl`` holds 5 samples of the ``rag-basics`` case
recorded from the simulator; its stochastic policy left the citation out of sample
4, so the sampled verdict below is measured, not staged. Re-record with
``.venv/bin/python tests/examples/record_research_copilot.py --approve-live``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pydantic
import pytest
from record_research_copilot import (
    CASE_ID,
    SAMPLED_STORE,
    SAMPLES,
    answer_model,
    judge_model,
    make_judge,
    question,
    record_samples,
)

from replaygate.assertions import (
    JudgeIndependenceError,
    assert_contains,
    assert_set,
    assert_structure,
    citations_check,
    contains_check,
    extract_citations,
    structure_check,
)
from replaygate.examples.research_copilot import (
    DEFAULT_MAX_TOKENS,
    DEFAULT_MODEL,
    DEFAULT_SYSTEM,
    RunResult,
    build_registry,
    load_cases,
    run,
    shipped_fixtures,
)
from replaygate.fixtures.fixture import Fixture
from replaygate.fixtures.store import FixtureStore
from replaygate.models.replay import ReplayModel
from replaygate.sampling import SampleChecks, run_sampled

# Its tests import the provider SDKs through replaygate (the example agent).

CASE = next(case for case in load_cases() if case.id == CASE_ID)
REPORT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["answer", "citations", "tools"],
    "properties": {
        "answer": {"type": "string", "minLength": 1},
        "citations": {"type": "array", "items": {"type": "string", "pattern": "^doc-"}},
        "tools": {"type": "array", "items": {"enum": ["search_corpus", "fetch_doc"]}},
    },
}
CITES = citations_check(CASE.expected_doc_ids, kind="gate")
MENTIONS = contains_check(
    ["RAG", *CASE.must_contain],
    kind="signal",
    aliases={"RAG": ["检索增强生成", "retrieval-augmented generation"]},
)


class Report(pydantic.BaseModel):
    """The report the example builds from a run."""

    answer: str
    citations: list[str]
    tools: list[str]


def answer(sample: int) -> RunResult:
    """Sample ``sample`` of the recorded case, replayed offline."""
    return run(answer_model(sample), build_registry(), question())


def report_of(result: RunResult) -> dict[str, Any]:
    """A structured report of a run."""
    return {
        "answer": result.final,
        "citations": list(extract_citations(result.final)),
        "tools": [s.tool_call.name for s in result.steps if s.tool_call is not None],
    }


def test_the_recorded_fixture_is_a_5_sample_simulator_recording() -> None:
    fixtures: list[Fixture] = list(FixtureStore.open(SAMPLED_STORE))
    # every sample asks the question; a later turn is held by the samples that reached it
    assert fixtures[0].samples == max(f.samples for f in fixtures) == SAMPLES
    answered = {i for f in fixtures for i in range(f.samples) if f.sample(i) is not None}
    assert answered == set(range(SAMPLES))
    assert {(f.meta or {}).get("source") for f in fixtures} == {"sim"}


@pytest.mark.slow
def test_the_recording_script_gives_back_the_committed_samples(tmp_path: Path) -> None:
    """Re-recording as the docs say (the seeded simulator) records the same 5 answers."""
    recorded = record_samples(tmp_path / "samples.jsonl", approve_live=True)
    assert recorded == [answer(sample).final for sample in range(SAMPLES)]


# -- structure: a gate, run once ----------------------------------------------------


def test_structure_of_the_report_with_json_schema_and_pydantic() -> None:
    report = report_of(answer(0))
    assert assert_structure(report, REPORT_SCHEMA) == report
    assert assert_structure(report, Report).citations == ["doc-rag"]


def test_structure_lists_every_failing_path() -> None:
    broken = {"answer": "", "citations": ["rag", 7], "tools": ["search_corpus", "rm -rf"]}
    with pytest.raises(AssertionError) as err:
        assert_structure(broken, REPORT_SCHEMA)
    assert str(err.value).splitlines()[1:] == [
        "  $.answer: '' should be non-empty",
        "  $.citations[0]: 'rag' does not match '^doc-'",
        "  $.citations[1]: 7 is not of type 'string'",
        "  $.tools[1]: 'rm -rf' is not one of ['search_corpus', 'fetch_doc']",
    ]


def test_structure_check_is_a_gate_on_text() -> None:
    check = structure_check(REPORT_SCHEMA, kind="gate", from_json=True)
    outcome = check.evaluate('{"answer": "x", "citations": []}')
    assert (outcome.passed, outcome.kind) == (False, "gate")
    assert "$: 'tools' is a required property" in outcome.message


# -- containment and sets ------------------------------------------------------------


def test_contains_with_aliases_on_the_chinese_case() -> None:
    model = ReplayModel(
        shipped_fixtures(),
        model=DEFAULT_MODEL,
        max_tokens=DEFAULT_MAX_TOKENS,
        system=DEFAULT_SYSTEM,
    )
    final = run(model, build_registry(), "什么是 RAG？").final
    assert_contains(
        final, ["检索增强生成"], aliases={"检索增强生成": ["retrieval-augmented generation"]}
    )
    with pytest.raises(AssertionError, match=r"missing 1 of 2 required piece\(s\): '向量数据库'"):
        assert_contains(final, ["RAG", "向量数据库"])


def test_citations_as_a_set() -> None:
    assert extract_citations(answer(0).final) == ("doc-rag",)
    assert_set(extract_citations(answer(0).final), CASE.expected_doc_ids)
    with pytest.raises(AssertionError, match=r"missing: \['doc-rag'\]; extra: \[\]"):
        assert_set(extract_citations(answer(4).final), CASE.expected_doc_ids)


# -- sampling: a citation gate and a containment signal over 5 recorded samples --------


@pytest.mark.sampled(n=5, floor=4)
def test_cites_its_source_sampled(replaygate_sample: int, replaygate_checks: SampleChecks) -> None:
    final = answer(replaygate_sample).final
    replaygate_checks.evaluate(final, CITES, MENTIONS)


def test_the_sampled_verdict_is_measured() -> None:
    result = run_sampled(lambda i: answer(i).final, 5, 4, [CITES, MENTIONS], case=CASE_ID)
    assert (result.passes, result.verdict) == (4, "pass")
    dropped = result.samples[4].outcomes[0]
    assert (dropped.name, dropped.passed) == ("citations", False)
    assert "missing: ['doc-rag']" in dropped.message
    assert [a.passes for a in result.assertions()] == [4, 5]
    strict = run_sampled(lambda i: answer(i).final, 5, 5, [CITES], case=CASE_ID)
    assert strict.verdict == "observe"


# -- an independent judge, replayed from its recorded grades --------------------------


def test_judge_grades_the_cited_answer_and_fails_the_uncited_one() -> None:
    judge = make_judge(judge_model(), under_test=answer_model(0))
    assert judge.judge_id == "gpt-4o-mini"
    assert judge.assert_passes(answer(0).final).score == 5
    with pytest.raises(AssertionError, match=r"graded 2, which is below the threshold 4"):
        judge.assert_passes(answer(4).final)


def test_a_judge_of_the_same_family_is_refused() -> None:
    same_family = ReplayModel(SAMPLED_STORE, model="claude-haiku-4-5", max_tokens=256)
    with pytest.raises(JudgeIndependenceError, match="family 'anthropic'"):
        make_judge(same_family, under_test=answer_model(0))
