"""ResearchCopilot: corpus search, tools, the agent loop, the policy and the cases."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest

from replaygate.errors import ReplaygateError
from replaygate.examples.research_copilot import (
    DEFAULT_MAX_TOKENS,
    DEFAULT_MODEL,
    DEFAULT_SYSTEM,
    Case,
    Corpus,
    DataFormatError,
    Document,
    ResearchPolicy,
    RunResult,
    StepLimitExceeded,
    Tool,
    ToolRegistry,
    ToolResult,
    argument_problems,
    build_registry,
    default_corpus,
    load_cases,
    load_corpus,
    run,
    search_query,
    tokenize,
)
from replaygate.models.types import Message, Model, ModelResponse, ToolCall, ToolSpec, Usage

RAG_SNIPPET = "Retrieval-augmented generation (RAG) answers a question by first retrieving..."
RAG_FIRST_LINE = (
    "search_corpus({'q': 'RAG'}) -> "
    '{"hits": [{"doc_id": "doc-rag", "title": "Retrieval-augmented generation (RAG)", '
    f'"snippet": "{RAG_SNIPPET}"}}]}}'
)
RAG_FINAL = (
    "Retrieval-augmented generation (RAG) answers a question by first retrieving relevant "
    "passages from an external corpus and then giving them to the model as context [doc-rag]."
)


class ScriptedModel:
    """Returns the scripted responses in order and records what it was given."""

    def __init__(self, responses: Sequence[ModelResponse]) -> None:
        self.responses = list(responses)
        self.calls: list[tuple[tuple[Message, ...], tuple[ToolSpec, ...]]] = []

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        self.calls.append((tuple(messages), tuple(tools)))
        return self.responses[len(self.calls) - 1]


class AlwaysSearch:
    """A model that never stops calling tools."""

    def __init__(self) -> None:
        self.count = 0

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        self.count += 1
        call = ToolCall(f"toolu_{self.count:02d}", "search_corpus", {"q": "agent loop"})
        return ModelResponse(tool_calls=(call,), stop_reason="tool_use")


def call(name: str, arguments: Any, call_id: str = "toolu_01") -> ToolCall:
    return ToolCall(call_id, name, arguments)


def tool_use(*calls: ToolCall, usage: Usage | None = None) -> ModelResponse:
    return ModelResponse(tool_calls=calls, stop_reason="tool_use", usage=usage or Usage())


def trace(result: RunResult) -> list[str]:
    return [step.detail for step in result.steps]


@pytest.fixture(scope="module")
def registry() -> ToolRegistry:
    return build_registry()


# --- corpus and search -------------------------------------------------------------


def test_corpus_is_packaged_data_with_enough_short_documents() -> None:
    resource = files("replaygate.examples.research_copilot").joinpath("data", "corpus.jsonl")
    assert resource.is_file()
    corpus = default_corpus()
    assert len(corpus) >= 32
    ids = [doc.doc_id for doc in corpus.documents]
    assert len(ids) == len(set(ids))
    for doc in corpus.documents:
        assert doc.doc_id.startswith("doc-")
        assert doc.title.strip()
        assert 60 <= len(doc.text.split()) <= 150, doc.doc_id


def test_tokenize_lowercases_ascii_words_and_splits_cjk_into_bigrams() -> None:
    assert tokenize("LLM-as-Judge, v2!") == ["llm", "as", "judge", "v2"]
    assert tokenize("什么是 RAG") == ["什么", "么是", "rag"]
    assert tokenize("是") == ["是"]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("RAG", "doc-rag"),
        ("什么是 RAG", "doc-rag"),
        ("flaky tests", "doc-flaky-tests"),
        ("fixture drift", "doc-fixture-drift"),
        ("status 429 rate limits", "doc-rate-limits"),
        ("cross-encoder reranking", "doc-reranking"),
        ("JSON Schema structured output", "doc-structured-output"),
        ("judge calibration against human labels", "doc-human-calibration"),
    ],
)
def test_search_ranks_the_right_document_first(
    registry: ToolRegistry, query: str, expected: str
) -> None:
    result = registry.execute(call("search_corpus", {"q": query}))
    assert not result.is_error
    hits = json.loads(result.content)["hits"]
    assert hits[0]["doc_id"] == expected


def test_search_hits_have_id_title_and_snippet(registry: ToolRegistry) -> None:
    result = registry.execute(call("search_corpus", {"q": "RAG"}))
    hit = json.loads(result.content)["hits"][0]
    assert list(hit) == ["doc_id", "title", "snippet"]
    assert hit["snippet"] == RAG_SNIPPET
    assert len(hit["snippet"]) <= 83


def test_search_respects_k(registry: ToolRegistry) -> None:
    def count(arguments: dict[str, Any]) -> int:
        return len(json.loads(registry.execute(call("search_corpus", arguments)).content)["hits"])

    assert count({"q": "model"}) == 3
    assert count({"q": "model", "k": 1}) == 1
    assert count({"q": "model", "k": 7}) == 7


def test_search_with_no_matching_term_returns_no_hits(registry: ToolRegistry) -> None:
    result = registry.execute(call("search_corpus", {"q": "zyzzyva"}))
    assert result == ToolResult('{"hits": []}')


def test_search_breaks_ties_by_doc_id_whatever_the_file_order() -> None:
    docs = [Document(f"doc-{name}", "Same title", "alpha beta gamma") for name in "dbca"]
    for ordering in (docs, list(reversed(docs))):
        hits = Corpus(ordering).search("alpha", k=4)
        assert [hit.document.doc_id for hit in hits] == ["doc-a", "doc-b", "doc-c", "doc-d"]
        assert len({hit.score for hit in hits}) == 1


def test_tool_results_keep_non_ascii_text() -> None:
    title, text = "检索增强", "检索增强生成先检索再生成。"
    registry = build_registry(Corpus([Document("doc-zh", title, text)]))
    result = registry.execute(call("search_corpus", {"q": "什么是检索增强"}))
    expected = {"hits": [{"doc_id": "doc-zh", "title": title, "snippet": text}]}
    assert result.content == json.dumps(expected, ensure_ascii=False)
    assert text in result.content


# --- tools -------------------------------------------------------------------------


def test_specs_declare_strict_json_schemas(registry: ToolRegistry) -> None:
    specs = {spec.name: spec for spec in registry.specs}
    assert list(specs) == ["search_corpus", "fetch_doc"]
    search = specs["search_corpus"].input_schema
    assert search["required"] == ["q"]
    assert search["additionalProperties"] is False
    assert search["properties"]["q"]["type"] == "string"
    assert search["properties"]["k"]["type"] == "integer"
    fetch = specs["fetch_doc"].input_schema
    assert fetch["required"] == ["doc_id"]
    assert fetch["additionalProperties"] is False
    assert fetch["properties"]["doc_id"]["type"] == "string"
    assert all(spec.description for spec in registry.specs)


def test_fetch_returns_the_document(registry: ToolRegistry) -> None:
    result = registry.execute(call("fetch_doc", {"doc_id": "doc-rag"}))
    assert not result.is_error
    doc = default_corpus().get("doc-rag")
    assert doc is not None
    assert json.loads(result.content) == {"doc_id": "doc-rag", "title": doc.title, "text": doc.text}
    assert result.content.startswith('{"doc_id": "doc-rag", "title": ')


def test_fetch_of_an_unknown_id_is_a_tool_error(registry: ToolRegistry) -> None:
    result = registry.execute(call("fetch_doc", {"doc_id": "doc-nope"}))
    assert result.is_error
    assert "fetch_doc" in result.content
    assert "'doc-nope'" in result.content
    assert "search_corpus" in result.content


@pytest.mark.parametrize(
    ("name", "arguments", "expected"),
    [
        ("fetch_doc", {}, "missing required argument 'doc_id'"),
        ("fetch_doc", {"doc_id": 3}, "argument 'doc_id' must be string, got integer 3"),
        ("fetch_doc", {"doc_id": "doc-rag", "full": True}, "unexpected argument 'full'"),
        ("fetch_doc", {"doc_id": ""}, "argument 'doc_id' must have at least 1 character"),
        ("search_corpus", {"k": 2}, "missing required argument 'q'"),
        ("search_corpus", {"q": "RAG", "k": "3"}, "argument 'k' must be integer, got string"),
        ("search_corpus", {"q": "RAG", "k": True}, "argument 'k' must be integer, got boolean"),
        ("search_corpus", {"q": "RAG", "k": 2.0}, "argument 'k' must be integer, got number"),
        ("search_corpus", {"q": "RAG", "k": 0}, "argument 'k' must be >= 1"),
        ("search_corpus", {"q": "RAG", "k": 11}, "argument 'k' must be <= 10"),
        ("search_corpus", {"query": "RAG"}, "unexpected argument 'query'"),
    ],
)
def test_bad_arguments_are_tool_errors_naming_tool_and_problem(
    registry: ToolRegistry, name: str, arguments: Any, expected: str
) -> None:
    result = registry.execute(call(name, arguments))
    assert result.is_error
    assert result.content.startswith(f"{name}: ")
    assert expected in result.content


def test_arguments_that_are_no_object_are_named_as_such() -> None:
    # a ToolCall refuses them (tests/test_types.py); the checker takes any parsed value
    schema = {"type": "object", "properties": {"q": {"type": "string"}}}
    assert argument_problems(schema, ["RAG"]) == ["arguments must be a JSON object, got array"]


def test_missing_and_extra_arguments_are_reported_together(registry: ToolRegistry) -> None:
    result = registry.execute(call("search_corpus", {"query": "RAG"}))
    assert result.content == (
        "search_corpus: missing required argument 'q'; unexpected argument 'query'. "
        "Expected search_corpus(q: string, k: integer (optional))."
    )


def test_unknown_tool_is_a_tool_error(registry: ToolRegistry) -> None:
    result = registry.execute(call("web_search", {"q": "RAG"}))
    assert result == ToolResult(
        "unknown tool 'web_search'; available tools: search_corpus, fetch_doc", is_error=True
    )


def test_a_bug_in_a_handler_is_not_hidden() -> None:
    def broken(arguments: Any) -> str:
        raise KeyError("bug")

    registry = ToolRegistry([Tool(ToolSpec("broken", "always fails"), broken)])
    with pytest.raises(KeyError):
        registry.execute(call("broken", {}))


def test_duplicate_tool_names_are_refused() -> None:
    spec = ToolSpec("same", "a tool")
    with pytest.raises(ValueError, match="duplicate tool name 'same'"):
        ToolRegistry([Tool(spec, lambda _: ""), Tool(spec, lambda _: "")])


# --- the loop with the canonical policy ----------------------------------------------


def test_rag_trace_matches_the_seed_format(registry: ToolRegistry) -> None:
    result = run(ResearchPolicy(), registry, "What is RAG?")
    lines = trace(result)
    assert lines[0] == RAG_FIRST_LINE
    assert lines[1].startswith(
        "fetch_doc({'doc_id': 'doc-rag'}) -> "
        '{"doc_id": "doc-rag", "title": "Retrieval-augmented generation (RAG)", "text": '
    )
    assert lines[2] == RAG_FINAL
    assert [step.kind for step in result.steps] == ["tool", "tool", "answer"]
    assert result.final == RAG_FINAL


@pytest.mark.parametrize("case", load_cases(), ids=lambda case: case.id)
def test_canonical_policy_answers_every_shipped_case(registry: ToolRegistry, case: Case) -> None:
    result = run(ResearchPolicy(), registry, case.question)
    for doc_id in case.expected_doc_ids:
        assert f"[{doc_id}]" in result.final
        assert any(
            step.tool_call is not None
            and step.tool_call.name == "fetch_doc"
            and step.tool_call.arguments == {"doc_id": doc_id}
            for step in result.steps
        )
    for term in case.must_contain:
        assert term.lower() in result.final.lower()
    assert not any(step.is_error for step in result.steps)


def test_shipped_cases_include_the_seed_question() -> None:
    cases = {case.id: case for case in load_cases()}
    assert 6 <= len(cases) <= 8
    assert cases["rag-basics"].question == "What is RAG?"
    assert cases["rag-basics"].expected_doc_ids == ("doc-rag",)


def test_loop_feeds_tool_results_back_to_the_model(registry: ToolRegistry) -> None:
    policy = ResearchPolicy()
    seen: list[tuple[Message, ...]] = []

    class Recording:
        def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
            seen.append(tuple(messages))
            assert tuple(tools) == registry.specs
            return policy.complete(messages, tools)

    result = run(Recording(), registry, "What is RAG?")
    assert [len(messages) for messages in seen] == [1, 3, 5]
    assert [m.role for m in result.messages] == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "assistant",
    ]
    search_call = result.messages[1].tool_calls[0]
    assert search_call == ToolCall("toolu_01", "search_corpus", {"q": "RAG"})
    assert seen[1][2] == Message.tool_result("toolu_01", result.steps[0].result or "")
    assert seen[2][3].tool_calls[0] == ToolCall("toolu_02", "fetch_doc", {"doc_id": "doc-rag"})
    assert seen[2][4].tool_call_id == "toolu_02"
    assert json.loads(seen[2][4].content)["doc_id"] == "doc-rag"
    assert result.messages[-1] == Message.assistant(result.final)


def test_loop_runs_every_call_of_a_response_in_order(registry: ToolRegistry) -> None:
    model = ScriptedModel(
        [
            tool_use(
                call("fetch_doc", {"doc_id": "doc-rag"}, "c1"),
                call("fetch_doc", {"doc_id": "doc-citations"}, "c2"),
            ),
            ModelResponse(text="done"),
        ]
    )
    result = run(model, registry, "two docs")
    assert [m.tool_call_id for m in model.calls[1][0][2:]] == ["c1", "c2"]
    assert [step.tool_call.id for step in result.steps if step.tool_call] == ["c1", "c2"]


def test_loop_reports_a_tool_error_to_the_model_and_continues(registry: ToolRegistry) -> None:
    model = ScriptedModel(
        [
            tool_use(call("fetch_doc", {"doc_id": "doc-nope"}, "c1")),
            tool_use(call("search_corpus", {"q": "citations"}, "c2")),
            tool_use(call("fetch_doc", {"doc_id": "doc-citations"}, "c3")),
            ModelResponse(text="Citations link claims to sources [doc-citations]."),
        ]
    )
    result = run(model, registry, "What is a citation?")
    first = result.steps[0]
    assert first.is_error
    assert first.detail == f"fetch_doc({{'doc_id': 'doc-nope'}}) -> {first.result}"
    error_message = model.calls[1][0][-1]
    assert error_message.role == "tool"
    assert error_message.is_error
    assert error_message.tool_call_id == "c1"
    assert "doc-nope" in error_message.content
    assert [step.is_error for step in result.steps] == [True, False, False, False]
    assert result.final == "Citations link claims to sources [doc-citations]."


def test_policy_answers_without_citation_after_a_tool_error(registry: ToolRegistry) -> None:
    class BadFetch:
        def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
            response = ResearchPolicy().complete(messages, tools)
            if response.tool_calls and response.tool_calls[0].name == "fetch_doc":
                return tool_use(call("fetch_doc", {"doc_id": "doc-missing"}, "toolu_02"))
            return response

    result = run(BadFetch(), registry, "What is RAG?")
    assert result.steps[1].is_error
    assert result.final == "I could not find information about RAG in the corpus."
    assert "[" not in result.final


def test_policy_grades_a_judges_prompt_so_a_judge_records_from_the_simulator() -> None:
    from replaygate.assertions import Judge

    judge = Judge(ResearchPolicy(), "Cites its source.", threshold=4, under_test=DEFAULT_MODEL,
                  judge_id="gpt-4o-mini")  # fmt: skip
    assert judge.grade("RAG retrieves first [doc-rag].").score == 5
    assert judge.grade("RAG retrieves first.").score == 1
    varied = Judge(ResearchPolicy(random.Random(3)), "r", threshold=6, under_test=DEFAULT_MODEL,
                   judge_id="gpt-4o-mini", scale=(0, 10))  # fmt: skip
    # with a random stream, as the simulator's, a judge's grades vary within its scale
    assert {varied.grade(f"answer {i} [doc-a]").score for i in range(40)} == {9, 10}


def test_policy_says_it_found_nothing_when_search_is_empty(registry: ToolRegistry) -> None:
    result = run(ResearchPolicy(), registry, "What is a zyzzyva?")
    assert trace(result)[0] == "search_corpus({'q': 'zyzzyva'}) -> {\"hits\": []}"
    assert result.final == "I could not find information about zyzzyva in the corpus."
    assert len(result.steps) == 2


def test_usage_is_summed_over_model_calls(registry: ToolRegistry) -> None:
    model = ScriptedModel(
        [
            tool_use(call("search_corpus", {"q": "RAG"}), usage=Usage(42, 18)),
            ModelResponse(text="RAG [doc-rag].", usage=Usage(100, 7)),
        ]
    )
    assert run(model, registry, "What is RAG?").usage == Usage(142, 25)


def test_step_limit_raises_with_a_useful_message(registry: ToolRegistry) -> None:
    model = AlwaysSearch()
    with pytest.raises(StepLimitExceeded) as info:
        run(model, registry, "Loop forever?", max_steps=3)
    assert model.count == 3
    error = info.value
    assert isinstance(error, ReplaygateError)
    assert error.max_steps == 3
    assert error.question == "Loop forever?"
    assert error.last_call == ToolCall("toolu_03", "search_corpus", {"q": "agent loop"})
    message = str(error)
    assert "max_steps=3" in message
    assert "'Loop forever?'" in message
    assert "search_corpus({'q': 'agent loop'})" in message


def test_max_steps_must_be_positive(registry: ToolRegistry) -> None:
    with pytest.raises(ValueError, match="max_steps"):
        run(ResearchPolicy(), registry, "What is RAG?", max_steps=0)


def test_system_prompt_is_recorded_not_sent(registry: ToolRegistry) -> None:
    model = ScriptedModel([ModelResponse(text="hi")])
    result = run(model, registry, "hello", system=DEFAULT_SYSTEM)
    assert result.system == DEFAULT_SYSTEM
    assert model.calls[0][0] == (Message.user("hello"),)
    assert run(ScriptedModel([ModelResponse(text="hi")]), registry, "hello").system is None


def test_system_prompt_comes_from_the_model_setting(registry: ToolRegistry) -> None:
    class WithSystem(ScriptedModel):
        system = "Be brief."

    assert run(WithSystem([ModelResponse(text="a")]), registry, "q").system == "Be brief."
    same = run(WithSystem([ModelResponse(text="a")]), registry, "q", system="Be brief.")
    assert same.system == "Be brief."
    with pytest.raises(ValueError, match="system"):
        run(WithSystem([ModelResponse(text="a")]), registry, "q", system="Be long.")


def test_request_defaults() -> None:
    assert DEFAULT_SYSTEM == (
        "You are a careful research assistant. Search the corpus, fetch the documents "
        "you rely on, and cite them as [doc-id]."
    )
    assert DEFAULT_MODEL == "claude-sonnet-4-6"
    assert DEFAULT_MAX_TOKENS == 1024


# --- the policy ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "query"),
    [
        ("What is RAG?", "RAG"),
        ("什么是 RAG？", "RAG"),
        ("What does LLM-as-judge mean?", "LLM-as-judge"),
        ("How do I keep API keys out of fixtures?", "keep API keys out fixtures"),
        ("What’s a flaky test?", "flaky test"),
        ("Why?", "Why"),
    ],
)
def test_search_query_keeps_key_terms(question: str, query: str) -> None:
    assert search_query(question) == query


def test_policy_is_a_model_with_deterministic_ids_and_usage(registry: ToolRegistry) -> None:
    policy = ResearchPolicy()
    assert isinstance(policy, Model)
    first = policy.respond([Message.user("What is RAG?")], registry.specs)
    assert first.tool_calls == (ToolCall("toolu_01", "search_corpus", {"q": "RAG"}),)
    assert first.stop_reason == "tool_use"
    assert first.text == ""
    assert first.usage.input_tokens > 0 and first.usage.output_tokens > 0
    assert policy.complete([Message.user("What is RAG?")], registry.specs) == first
    result = run(policy, registry, "What is RAG?")
    responses = [m for m in result.messages if m.role == "assistant"]
    assert [c.id for m in responses for c in m.tool_calls] == ["toolu_01", "toolu_02"]
    longer = policy.respond([Message.user("What is RAG? " * 20)], registry.specs)
    assert longer.usage.input_tokens > first.usage.input_tokens


def test_policy_without_tools_answers_directly() -> None:
    response = ResearchPolicy().respond([Message.user("What is RAG?")], [])
    assert response.tool_calls == ()
    assert response.stop_reason == "end_turn"
    assert response.text == "I could not find information about RAG in the corpus."


def test_policy_reads_only_the_latest_question(registry: ToolRegistry) -> None:
    first = run(ResearchPolicy(), registry, "What is RAG?")
    messages = [*first.messages, Message.user("What is LLM-as-judge?")]
    response = ResearchPolicy().respond(messages, registry.specs)
    assert response.tool_calls == (ToolCall("toolu_03", "search_corpus", {"q": "LLM-as-judge"}),)


def _stochastic(seed: int, registry: ToolRegistry, question: str = "What is RAG?") -> RunResult:
    return run(ResearchPolicy(random.Random(seed)), registry, question)


def test_stochastic_policy_is_reproducible_from_its_seed(registry: ToolRegistry) -> None:
    for seed in range(10):
        a, b = _stochastic(seed, registry), _stochastic(seed, registry)
        assert trace(a) == trace(b)
        assert a.messages == b.messages
        assert a.usage == b.usage


def test_stochastic_policy_varies_like_a_model(registry: ToolRegistry) -> None:
    results = [_stochastic(seed, registry) for seed in range(50)]
    traces = {tuple(trace(result)) for result in results}
    searches = [
        sum(1 for s in r.steps if s.tool_call and s.tool_call.name == "search_corpus")
        for r in results
    ]
    uncited = [r for r in results if "[doc-rag]" not in r.final]
    finals = {r.final for r in results}
    assert len(traces) >= 2
    assert 1 in searches and 2 in searches
    assert max(searches) == 2
    assert 0 < len(uncited) < 25
    assert len(finals) >= 3
    two_search = results[searches.index(2)]
    assert two_search.steps[1].tool_call is not None
    assert two_search.steps[1].tool_call.arguments["q"] != "RAG"
    assert all("RAG" in r.steps[1].detail for r in results)
    for r in results:
        assert "retrieval-augmented generation" in r.final.lower()


# --- determinism -------------------------------------------------------------------------


def test_two_runs_give_byte_identical_final_and_trace() -> None:
    a = run(ResearchPolicy(), build_registry(), "What is RAG?")
    b = run(ResearchPolicy(), build_registry(load_corpus()), "What is RAG?")
    assert a.final.encode() == b.final.encode()
    assert "\n".join(trace(a)).encode() == "\n".join(trace(b)).encode()
    assert a == b


_SCRIPT = """
import json
from replaygate.examples.research_copilot import ResearchPolicy, build_registry, load_cases, run
out = []
for case in load_cases():
    result = run(ResearchPolicy(), build_registry(), case.question)
    out.append([result.final, [step.detail for step in result.steps]])
print(json.dumps(out, ensure_ascii=False))
"""


def _another_hash_seed() -> str:
    """A hash seed other than this process's (``PYTHONHASHSEED`` as it started: 0 where
    hashing is not randomized; a random one where it was not set)."""
    own = os.environ.get("PYTHONHASHSEED") if sys.flags.hash_randomization else "0"
    return "0" if own == "12345" else "12345"


@pytest.mark.slow
def test_runs_are_identical_across_processes_and_hash_seeds() -> None:
    # a process of its own under another hash seed than this one's, whose runs are the
    # other side (one such process, where two with seeds of their own cost twice its CPU)
    env = {**os.environ, "PYTHONHASHSEED": _another_hash_seed()}
    done = subprocess.run([sys.executable, "-c", _SCRIPT], env=env, capture_output=True, check=True)
    local = [
        [r.final, trace(r)]
        for r in (run(ResearchPolicy(), build_registry(), c.question) for c in load_cases())
    ]
    assert json.loads(done.stdout.decode("utf-8")) == local


# --- data files --------------------------------------------------------------------------


GOOD_CASE = {"id": "a", "question": "What is RAG?", "expected_doc_ids": [], "must_contain": []}


def _write_lines(path: Path, lines: Sequence[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("bad_line", "reason"),
    [
        ("{not json", "invalid JSON"),
        ("[1, 2]", "expected a JSON object, got list"),
        (json.dumps({**GOOD_CASE, "id": "b", "must_contain": "RAG"}), "'must_contain' must be"),
        (json.dumps({"id": "b", "question": "q", "expected_doc_ids": []}), "missing field"),
        (json.dumps({**GOOD_CASE, "id": "b", "extra": 1}), "unknown field(s): extra"),
        (json.dumps({**GOOD_CASE, "id": ""}), "'id' must be a non-empty string"),
        (json.dumps(GOOD_CASE), "duplicate case id 'a'"),
    ],
)
def test_load_cases_reports_file_and_line(tmp_path: Path, bad_line: str, reason: str) -> None:
    path = _write_lines(tmp_path / "cases.jsonl", [json.dumps(GOOD_CASE), "", bad_line])
    with pytest.raises(DataFormatError) as info:
        load_cases(path)
    assert str(info.value).startswith(f"{path}:3: ")
    assert reason in str(info.value)
    assert info.value.line == 3
    assert isinstance(info.value, ValueError)


def test_load_cases_reads_a_good_file(tmp_path: Path) -> None:
    path = _write_lines(
        tmp_path / "cases.jsonl",
        [json.dumps({**GOOD_CASE, "expected_doc_ids": ["doc-rag"], "must_contain": ["RAG"]})],
    )
    (case,) = load_cases(path)
    assert case.expected_doc_ids == ("doc-rag",)
    assert case.must_contain == ("RAG",)


def test_load_corpus_reports_file_and_line(tmp_path: Path) -> None:
    good = json.dumps({"doc_id": "doc-a", "title": "A", "text": "alpha"})
    path = _write_lines(tmp_path / "corpus.jsonl", [good, good])
    with pytest.raises(DataFormatError, match=r"corpus\.jsonl:2: duplicate doc_id 'doc-a'"):
        load_corpus(path)
    path = _write_lines(tmp_path / "corpus.jsonl", [good, json.dumps({"doc_id": "doc-b"})])
    with pytest.raises(DataFormatError, match=r"corpus\.jsonl:2: missing field\(s\): title, text"):
        load_corpus(path)


def test_load_corpus_reads_a_custom_corpus(tmp_path: Path) -> None:
    line = json.dumps({"doc_id": "doc-a", "title": "Alpha", "text": "alpha beta"})
    corpus = load_corpus(_write_lines(tmp_path / "corpus.jsonl", [line]))
    registry = build_registry(corpus)
    result = registry.execute(call("fetch_doc", {"doc_id": "doc-a"}))
    assert json.loads(result.content) == {"doc_id": "doc-a", "title": "Alpha", "text": "alpha beta"}
    assert registry.execute(call("fetch_doc", {"doc_id": "doc-rag"})).is_error
