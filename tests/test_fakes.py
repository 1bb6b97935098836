"""The model doubles run the real ResearchCopilot loop, tool calls included."""

from __future__ import annotations

import copy
import json
import pickle
import re
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from replaygate import FixtureStore, Message, ModelResponse, RecordingModel, ToolCall, ToolSpec
from replaygate.errors import (
    FixtureFormatError,
    NoRuleMatchedError,
    ScriptExhaustedError,
    SecretInFixtureError,
)
from replaygate.examples.research_copilot import ResearchPolicy, build_registry, run
from replaygate.fixtures.fingerprint import fixture_key
from replaygate.fixtures.fixture import Fixture
from replaygate.models.fakes import FunctionModel, Rule, RuleStub, ScriptedModel
from replaygate.sim import SimApp
from replaygate.sim.behaviors import make_behavior

SEARCH = ModelResponse(
    tool_calls=(ToolCall("toolu_01", "search_corpus", {"q": "RAG"}),), stop_reason="tool_use"
)
FETCH = ModelResponse(
    tool_calls=(ToolCall("toolu_02", "fetch_doc", {"doc_id": "doc-rag"}),), stop_reason="tool_use"
)
ANSWER = ModelResponse(text="RAG retrieves before it generates [doc-rag].")


def test_scripted_model_drives_the_loop_and_records_calls() -> None:
    model = ScriptedModel([SEARCH, FETCH, ANSWER])
    result = run(model, build_registry(), "What is RAG?")
    assert result.final == ANSWER.text
    assert [s.tool_call.name for s in result.steps if s.tool_call] == ["search_corpus", "fetch_doc"]
    assert len(model.calls) == 3
    last_messages, tools = model.calls[-1]
    assert [m.role for m in last_messages] == ["user", "assistant", "tool", "assistant", "tool"]
    assert last_messages[-1].tool_call_id == "toolu_02"
    assert '"doc_id": "doc-rag"' in last_messages[-1].content
    assert {t.name for t in tools} == {"search_corpus", "fetch_doc"}


def test_scripted_model_running_out_names_the_count_and_last_message() -> None:
    model = ScriptedModel([SEARCH])
    with pytest.raises(ScriptExhaustedError, match=r"called 2 time\(s\) but scripts 1") as info:
        run(model, build_registry(), "What is RAG?")
    assert "tool message" in str(info.value)


def test_function_model_sees_the_conversation() -> None:
    seen: list[int] = []

    def answer(messages: object, tools: object) -> ModelResponse:
        assert isinstance(messages, tuple | list)
        seen.append(len(messages))
        return ModelResponse(text=f"{len(messages)} message(s)")

    result = run(FunctionModel(answer), build_registry(), "hello")
    assert result.final == "1 message(s)" and seen == [1]


def test_function_model_with_the_policy_answers_with_a_citation() -> None:
    result = run(FunctionModel(ResearchPolicy().respond), build_registry(), "What is RAG?")
    assert result.final.endswith("[doc-rag].")


@pytest.mark.parametrize("hits", [["doc-rag"], [None], "doc-rag", [[{"doc_id": "doc-rag"}]]])
def test_the_policy_answers_search_hits_of_another_shape_as_found_nothing(hits: Any) -> None:
    # a list of strings broke it: 'str' object has no attribute 'get'
    search = ToolCall("toolu_01", "search_corpus", {"q": "RAG"})
    conversation = [
        Message.user("What is RAG?"),
        Message(role="assistant", tool_calls=(search,)),
        Message(role="tool", content=json.dumps({"hits": hits}), tool_call_id="toolu_01"),
    ]
    answer = ResearchPolicy().respond(conversation, build_registry().specs)
    assert answer.tool_calls == ()
    assert answer.text is not None and "[doc-rag]" not in answer.text


def test_rule_stub_covers_a_branch_by_rules() -> None:
    stub = RuleStub(
        [
            Rule(when=r"^What is RAG", call=("search_corpus", {"q": "RAG"}), role="user"),
            Rule(when=r'"hits"', call=("fetch_doc", {"doc_id": "doc-rag"}), role="tool"),
            Rule(when=r'"text"', text="RAG grounds answers [doc-rag].", role="tool"),
        ]
    )
    result = run(stub, build_registry(), "What is RAG?")
    assert result.final == "RAG grounds answers [doc-rag]."
    calls = [s.tool_call for s in result.steps if s.tool_call]
    assert [c.id for c in calls] == ["toolu_stub_01", "toolu_stub_02"]


def test_rule_stub_takes_an_error_branch() -> None:
    stub = RuleStub(
        [
            Rule(when="missing", call=("fetch_doc", {"doc_id": "doc-nope"}), role="user"),
            Rule(when="unknown doc", text="Not found.", role="tool"),
        ]
    )
    result = run(stub, build_registry(), "fetch something missing")
    assert result.steps[0].is_error and result.final == "Not found."


def test_rule_stub_without_a_matching_rule_names_the_message() -> None:
    stub = RuleStub([Rule(when="RAG", text="x")])
    with pytest.raises(NoRuleMatchedError, match=r"user message 'What is CI\?'.*'RAG'"):
        stub.complete([Message.user("What is CI?")], [])


def test_no_matching_rule_names_the_call_and_the_role_each_rule_is_kept_to() -> None:
    stub = RuleStub([Rule(when="RAG", call=("search_corpus", {"q": "RAG"}), role="user")])
    with pytest.raises(NoRuleMatchedError) as info:
        run(stub, build_registry(), "What is RAG?")  # the search result holds "RAG" too
    assert re.search(
        r"^RuleStub call 2: .* tool message .*rules: 0: 'RAG' \(user messages only\)$",
        str(info.value),
    )


def test_rule_needs_exactly_one_answer() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        Rule(when="x", text="a", call=("t", {}))
    with pytest.raises(ValueError, match="exactly one"):
        Rule(when="x")
    with pytest.raises(ValueError, match="role"):
        Rule(when="x", text="a", role="assistant")


@pytest.mark.parametrize(
    ("rule", "named"),
    [
        ({"when": "(", "text": "a"}, "rule '(': not a regular expression: missing )"),
        ({"when": "x", "call": ("search_corpus", "RAG")}, "rule 'x': call must be (tool name"),
        ({"when": "x", "call": ("", {})}, "rule 'x': call must be (tool name"),
        ({"when": "x", "call": ("search_corpus",)}, "rule 'x': call must be (tool name"),
    ],
)
def test_a_rule_that_cannot_answer_is_refused_when_made(rule: dict[str, Any], named: str) -> None:
    with pytest.raises(ValueError, match=re.escape(named)):
        Rule(**rule)


@pytest.mark.parametrize(
    ("rule", "named"),
    [
        ({"when": "x", "fixture": 3}, "rule 'x': fixture must be a string, got int"),
        ({"when": "x", "text": b"hi"}, "rule 'x': text must be a string, got bytes"),
        ({"when": b"x", "text": "hi"}, "rule b'x': when must be a string, got bytes"),
        ({"when": "x", "call": ("f", {"q": {1}})}, "rule 'x': ToolCall.arguments.q of call"),
    ],
)
def test_a_rule_of_the_wrong_types_is_refused_naming_the_field(
    rule: dict[str, Any], named: str
) -> None:
    with pytest.raises(TypeError, match=re.escape(named)):
        Rule(**rule)


def test_a_rule_call_may_be_a_list_pair() -> None:
    stub = RuleStub([Rule(when="RAG", call=["search_corpus", {"q": "RAG"}])])
    reply = stub.complete([Message.user("What is RAG?")], [])
    assert [(c.name, dict(c.arguments)) for c in reply.tool_calls] == [
        ("search_corpus", {"q": "RAG"})
    ]


@pytest.mark.parametrize(
    ("make", "named"),
    [
        (lambda: ScriptedModel({ANSWER, ModelResponse(text="b")}), "got a set (a set has no order"),
        (lambda: ScriptedModel(ANSWER), "got a ModelResponse (one ModelResponse? put it in a"),
        (lambda: RuleStub(Rule("a", text="b")), "RuleStub takes a list, in order, got a Rule"),
        (lambda: FunctionModel(None), "FunctionModel takes a function (messages, tools)"),
    ],
)
def test_a_double_given_no_list_or_no_function_is_refused_where_made(make: Any, named: str) -> None:
    with pytest.raises(TypeError, match=re.escape(named)):
        make()


def test_a_double_answering_with_something_else_is_named() -> None:
    with pytest.raises(TypeError, match="ScriptedModel response 1 is a str, not a ModelResponse"):
        ScriptedModel([ANSWER, "RAG retrieves first."])  # type: ignore[list-item]

    def says_hi(messages: object, tools: object) -> str:
        return "hi"

    model = FunctionModel(says_hi)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"FunctionModel's .*says_hi returned is a str"):
        run(model, build_registry(), "What is RAG?")


def _recorded_answer_store(tmp_path: object) -> tuple[FixtureStore, str]:
    path = f"{tmp_path}/answers.jsonl"
    recorder = RecordingModel(
        FunctionModel(lambda m, t: ModelResponse(text="Recorded: RAG retrieves [doc-rag].")),
        path,
        approve_live=True,
        model="claude-sonnet-4-5",
        max_tokens=256,
    )
    recorder.complete([Message.user("What is RAG?")], [ToolSpec("search_corpus", "search")])
    store = FixtureStore.open(path)
    return store, store.keys()[0]


def test_rule_stub_fills_content_from_a_recorded_fixture(tmp_path: object) -> None:
    store, key = _recorded_answer_store(tmp_path)
    stub = RuleStub([Rule(when="RAG", fixture=key)], store=store)
    response = stub.complete([Message.user("Tell me about RAG")], [])
    assert response.text == "Recorded: RAG retrieves [doc-rag]."


def test_rule_stub_fixture_errors(tmp_path: object) -> None:
    store, key = _recorded_answer_store(tmp_path)
    with pytest.raises(ValueError, match="no fixture store"):
        RuleStub([Rule(when="RAG", fixture=key)])
    stub = RuleStub([Rule(when="RAG", fixture="ffffffffffff")], store=store)
    with pytest.raises(NoRuleMatchedError, match="holds no fixture"):
        stub.complete([Message.user("RAG")], [])
    stub = RuleStub([Rule(when="RAG", fixture=key, sample=3)], store=store)
    with pytest.raises(NoRuleMatchedError, match="1 sample"):
        stub.complete([Message.user("RAG")], [])


@pytest.mark.parametrize(
    "model",
    [
        ScriptedModel([ModelResponse(text="hi")]),
        FunctionModel(lambda messages, tools: ModelResponse(text="hi")),
        RuleStub([Rule(when="hi", text="hello")]),
    ],
    ids=["scripted", "function", "rule stub"],
)
def test_a_fake_refuses_a_conversation_in_another_shape_as_a_recording_does(model: Any) -> None:
    # the scripted and function fakes answered a provider's message dicts, which every
    # recorded or replayed model refuses: a green test of an agent that could not run
    with pytest.raises(TypeError, match=r"^messages\[0\]: expected a Message"):
        model.complete([{"role": "user", "content": "hi"}], [])
    with pytest.raises(TypeError, match=r"^tools\[0\]: expected a ToolSpec"):
        model.complete([Message.user("hi")], [{"name": "search"}])
    assert model.calls == []


@pytest.mark.parametrize("sample", [-1, True, 1.0])
def test_a_rule_sample_that_is_no_index_is_refused_when_made(sample: object) -> None:
    # -1 replayed the last recorded sample, as a list index does
    with pytest.raises(ValueError, match=r"rule 'x': sample must be an integer of 0 or more"):
        Rule(when="x", fixture="a" * 12, sample=sample)  # type: ignore[arg-type]


def test_a_rule_naming_a_sample_that_never_sent_the_request_names_the_recorded_ones(
    tmp_path: object,
) -> None:
    path = f"{tmp_path}/samples.jsonl"
    for sample in (0, 2):
        recorder = RecordingModel(
            FunctionModel(lambda m, t, n=sample: ModelResponse(text=f"sample {n}")),
            path,
            approve_live=True,
            model="m",
            max_tokens=8,
            sample=sample,
        )
        recorder.complete([Message.user("What is RAG?")], [])
    store = FixtureStore.open(path)
    stub = RuleStub([Rule(when="RAG", fixture=store.keys()[0], sample=1)], store=store)
    with pytest.raises(
        NoRuleMatchedError, match=r"sample 1 was asked for \(recorded samples: \[0, 2\]\)"
    ):
        stub.complete([Message.user("RAG")], [])


def test_a_rule_naming_a_response_that_cannot_be_served_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    request = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "q"}]}
    FixtureStore.open(path).put(Fixture.create(request, [{"content": 5}]))
    stub = RuleStub([Rule(when="RAG", fixture=fixture_key(request))], store=FixtureStore.open(path))
    with pytest.raises(FixtureFormatError, match=r"bad\.jsonl:1: the recorded response cannot be"):
        stub.complete([Message.user("RAG")], [])


def _exchange(path: str, question: str, response: dict[str, Any], interface: str) -> Fixture:
    """A fixture as an SDK client recording at the HTTP layer stores it."""
    body = {"model": "m", "messages": [{"role": "user", "content": question}]}
    request = {"method": "POST", "path": path, "headers": {}, "body": body}
    return Fixture.create(request, [response], {"interface": interface})


def _events(*data: dict[str, Any]) -> list[dict[str, str]]:
    return [{"event": str(d["type"]), "data": json.dumps(d)} for d in data]


def test_a_rule_serves_the_answer_an_sdk_recorded_at_the_http_layer(tmp_path: Path) -> None:
    # each was FixtureFormatError "the recorded response cannot be served: response.content:
    # missing field", the fixture called damaged where the stub read the HTTP envelope
    chat = {
        "choices": [{"index": 0, "finish_reason": "length", "message": {"content": "cu"}}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1},
    }
    call = {"type": "tool_use", "id": "t1", "name": "f", "input": {}}
    usage = {"input_tokens": 3, "output_tokens": 1}
    stream = _events(
        {"type": "message_start", "message": {"id": "m1", "content": [], "usage": usage}},
        {"type": "content_block_start", "index": 0, "content_block": call},
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": '{"a": 1}'},
        },
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use"},
            "usage": {"output_tokens": 9},
        },
        {"type": "message_stop"},
    )
    store = FixtureStore.open(tmp_path / "http.jsonl")
    fixtures = [
        _exchange(
            "/v1/chat/completions", "a", {"status": 200, "body": chat}, "openai.chat.completions"
        ),
        _exchange("/v1/messages", "b", {"status": 200, "events": stream}, "anthropic.messages"),
        _exchange("/v1/messages", "c", {"status": 429, "body": {}}, "anthropic.messages"),
    ]
    for fixture in fixtures:
        store.put(fixture)
    stub = RuleStub(
        [Rule(when=f.request["body"]["messages"][0]["content"], fixture=f.key) for f in fixtures],
        store=store,
    )
    assert stub.complete([Message.user("a")], []).stop_reason == "max_tokens"
    answer = stub.complete([Message.user("b")], [])
    assert (answer.tool_calls[0].arguments, answer.stop_reason) == ({"a": 1}, "tool_use")
    assert answer.usage.output_tokens == 9
    with pytest.raises(
        NoRuleMatchedError,
        match=r"http\.jsonl:3, an HTTP exchange \(POST "
        r"/v1/messages\) answered with status 429, not a model's answer",
    ):
        stub.complete([Message.user("c")], [])


def test_a_rule_serves_a_recorded_answer_as_the_api_its_fixture_names(tmp_path: Path) -> None:
    # an OpenAI answer read as Anthropic's was "cannot be served: response.content: missing"
    path = tmp_path / "openai.jsonl"
    scripted = ScriptedModel([ModelResponse(text="hey")])
    recorder = RecordingModel(
        scripted,
        path,
        approve_live=True,
        model="m",
        max_tokens=8,
        interface="openai.chat.completions",
    )
    recorder.complete([Message.user("q")], [])
    store = FixtureStore.open(path)
    stub = RuleStub([Rule(when="q", fixture=store.keys()[0])], store=store)
    assert stub.complete([Message.user("q")], []).text == "hey"


def test_a_rule_stub_given_no_rule_or_no_store_names_what_it_got() -> None:
    # they raised AttributeError ("'str' object has no attribute 'fixture'", "... 'get'")
    with pytest.raises(TypeError, match=r"each rule must be a Rule\(\.\.\.\), got rule 1: 'x'"):
        RuleStub([Rule("a", text="b"), "x"])  # type: ignore[list-item]
    with pytest.raises(TypeError, match=r"store must be a FixtureStore .*, got 'f\.jsonl'"):
        RuleStub([Rule("a", text="b")], store="f.jsonl")  # type: ignore[arg-type]


def test_threads_sharing_a_scripted_model_are_given_each_answer_once() -> None:
    class SlowCalls(list[Any]):  # widens the gap between a call noted and its answer chosen
        def append(self, item: Any) -> None:
            super().append(item)
            time.sleep(0.002)

    model = ScriptedModel([ModelResponse(text=str(i)) for i in range(4)])
    model.calls = SlowCalls()
    answers: list[str] = []
    threads = [
        threading.Thread(
            target=lambda: answers.append(model.complete([Message.user("hi")], []).text)
        )
        for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(answers) == ["0", "1", "2", "3"]


def test_a_scripted_model_pickles_and_copies_with_its_place_in_the_script() -> None:
    model = ScriptedModel([SEARCH, ANSWER])
    model.complete([Message.user("q")], [])
    for copied in (pickle.loads(pickle.dumps(model)), copy.deepcopy(model)):
        assert copied.complete([Message.user("q")], []) == ANSWER
        assert copied.unused == ()
    assert model.unused == (ANSWER,)


def test_a_rule_stub_names_the_rules_no_call_matched() -> None:
    stub = RuleStub(
        [
            Rule(when=r"^What is RAG", call=("search_corpus", {"q": "RAG"}), role="user"),
            Rule(when=r'"hits"', text="Found it.", role="tool"),
            Rule(when=r'"text"', text="Read it.", role="tool"),  # a branch not taken
            Rule(when=r'"hits"', text="Found it.", role="tool"),  # rule 1 answers first
        ]
    )
    run(stub, build_registry(), "What is RAG?")
    assert stub.unused == stub.rules[2:]
    with pytest.raises(AssertionError) as info:
        stub.assert_used()
    assert str(info.value) == (
        "RuleStub has 4 rule(s) and was called 2 time(s); never matched: "
        "rule 2: '\"text\"' (tool messages only); rule 3: '\"hits\"' (tool messages only)"
    )
    used = RuleStub(stub.rules[:2])
    run(used, build_registry(), "What is RAG?")
    used.assert_used()


def _swallowing(model: Any) -> str:
    """An agent that answers anything going wrong with a fallback."""
    try:
        return str(model.complete([Message.user("What is RAG?")], []).text)
    except Exception:
        return "Sorry, something went wrong."


@pytest.mark.parametrize(
    ("model", "kept"),
    [
        (ScriptedModel([]), ScriptExhaustedError),
        (RuleStub([Rule(when="CI", text="CI runs tests.")]), NoRuleMatchedError),
        (FunctionModel(lambda messages, tools: "RAG"), TypeError),  # type: ignore[arg-type,return-value]
    ],
    ids=["scripted", "rule stub", "function"],
)
def test_a_fake_raises_again_the_error_of_its_own_an_agent_caught(
    model: Any, kept: type[Exception]
) -> None:
    model.raise_caught()  # nothing raised yet
    assert _swallowing(model) == "Sorry, something went wrong."
    assert [type(e) for e in model.raised] == [kept]
    with pytest.raises(kept) as info:
        model.raise_caught()
    assert "the code under test caught this error and went on" in info.value.__notes__[0]


def test_a_recording_model_raises_again_a_refusal_an_agent_caught(tmp_path: Path) -> None:
    # eval and record from an agent that fell back on any error went on green, the
    # refused answer recorded nowhere, and the next replay missed
    live = ScriptedModel(
        [ModelResponse(text="your token is ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5")]
    )
    store = tmp_path / "s.jsonl"
    recorder = RecordingModel(live, store, approve_live=True, model="m", max_tokens=8)
    assert _swallowing(recorder) == "Sorry, something went wrong."
    with pytest.raises(SecretInFixtureError, match="GitHub token found at response") as info:
        recorder.raise_caught()
    assert "the code under test caught this error and went on" in info.value.__notes__[0]
    assert recorder.recorded == 0


def test_an_error_a_function_model_is_given_to_raise_is_not_kept() -> None:
    def rate_limited(messages: object, tools: object) -> ModelResponse:
        raise ConnectionError("429 rate limited")  # the error branch under test

    model = FunctionModel(rate_limited)
    assert _swallowing(model) == "Sorry, something went wrong."
    assert model.raised == []
    model.raise_caught()


def test_a_scripted_error_is_raised_in_its_turn_and_not_kept() -> None:
    limited = ConnectionError("429 rate limited")
    model = ScriptedModel([limited, ANSWER, NoRuleMatchedError("a branch the test drives")])
    with pytest.raises(ConnectionError) as info:
        model.complete([Message.user("What is RAG?")], [])
    assert info.value is limited
    assert model.unused == (ANSWER, model.responses[2])
    assert model.complete([Message.user("What is RAG?")], []) == ANSWER
    with pytest.raises(AssertionError, match=r"never asked for: response 2: raises NoRuleM"):
        model.assert_used()
    with pytest.raises(NoRuleMatchedError, match="a branch the test drives"):
        model.complete([Message.user("What is RAG?")], [])
    assert model.raised == []
    with pytest.raises(TypeError, match=r"response 0 is the class ConnectionError: script an"):
        ScriptedModel([ConnectionError])  # type: ignore[list-item]


def test_a_function_model_given_an_async_function_is_refused_where_made() -> None:
    async def answer(messages: object, tools: object) -> ModelResponse:
        return ANSWER

    with pytest.raises(TypeError, match=r"not the async .*answer: complete\(\) is called wi"):
        FunctionModel(answer)  # type: ignore[arg-type]


def test_a_fake_is_a_simulator_behaviour_and_keeps_what_the_sdk_is_answered_with(
    caplog: pytest.LogCaptureFixture,
) -> None:
    stub = RuleStub([Rule(when="RAG", text="RAG retrieves first.")])
    app = SimApp(stub)  # as Simulator(behavior=stub) serves it to the SDK clients
    headers = {"x-api-key": "k", "anthropic-version": "2023-06-01"}

    def post(question: str) -> Any:
        body = {"model": "m", "max_tokens": 9, "messages": [{"role": "user", "content": question}]}
        return app.handle("POST", "/v1/messages", headers, json.dumps(body).encode())

    answered = post("What is RAG?")
    assert answered.status == 200 and b"RAG retrieves first." in answered.body
    assert post("What is CI?").status == 500  # what an SDK client's caller may swallow
    assert not caplog.records  # the stub's own error, said in the answer: no traceback logged
    with pytest.raises(NoRuleMatchedError, match="RuleStub call 2: no rule matches"):
        stub.raise_caught()
    for fake in (ScriptedModel([]), FunctionModel(lambda m, t: ANSWER)):
        assert make_behavior(fake) is fake


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/messages", {"model": "m", "max_tokens": 9}),
        ("/v1/chat/completions", {"model": "gpt-4o"}),
        ("/v1/responses", {"model": "gpt-4o", "input": "Count."}),
    ],
)
@pytest.mark.parametrize("stream", [False, True])
def test_a_fake_tool_call_with_an_integer_beyond_64_bits_is_answered_exactly(
    path: str, body: dict[str, Any], stream: bool
) -> None:
    # the simulator dropped the connection (orjson: Integer exceeds 64-bit range), and the
    # SDK client saw "Server disconnected without sending a response"
    big = 10**30
    call = ToolCall("call_1", "count", {"n": big, "items": [-big]})
    app = SimApp(ScriptedModel([ModelResponse(tool_calls=(call,), stop_reason="tool_use")]))
    headers = {"x-api-key": "k", "anthropic-version": "2023-06-01", "authorization": "Bearer k"}
    sent = {**body, "stream": stream}
    if "input" not in sent:
        sent["messages"] = [{"role": "user", "content": "Count."}]
    reply = app.handle("POST", path, headers, json.dumps(sent).encode())
    assert reply.status == 200
    if not stream:
        assert str(big) in reply.body.decode().replace("\\", "")
        return
    datas = [event.data for event in reply.events if event.data != "[DONE]"]
    said = "".join(_arguments_said(json.loads(data)) for data in datas)
    assert f'"n":{big}' in said or f'"n": {big}' in said


def _arguments_said(value: Any) -> str:
    """The pieces of tool call arguments a streamed event carries, in order."""
    if isinstance(value, list):
        return "".join(map(_arguments_said, value))
    if not isinstance(value, dict):
        return ""
    return "".join(
        inner
        if key in ("partial_json", "arguments") and isinstance(inner, str)
        else _arguments_said(inner)
        for key, inner in value.items()
    )


SUMMARY_SCHEMA = {
    "type": "object",
    "properties": {"summary": {"type": "string"}, "n": {"type": "integer"}},
    "required": ["summary", "n"],
    "additionalProperties": False,
}
JSON_FORMATS = {
    "/v1/chat/completions": {
        "model": "gpt-4o",
        "messages": [{"role": "user", "content": "Sum up."}],
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "R", "schema": SUMMARY_SCHEMA, "strict": True},
        },
    },
    "/v1/responses": {
        "model": "gpt-4o",
        "input": "Sum up.",
        "text": {
            "format": {"type": "json_schema", "name": "R", "schema": SUMMARY_SCHEMA, "strict": True}
        },
    },
    "/v1/messages": {
        "model": "claude-sonnet-4-6",
        "max_tokens": 9,
        "messages": [{"role": "user", "content": "Sum up."}],
        "output_config": {"format": {"type": "json_schema", "schema": SUMMARY_SCHEMA}},
    },
}


@pytest.mark.parametrize("path", list(JSON_FORMATS))
def test_a_fake_s_json_cut_at_the_token_limit_is_answered_cut_as_scripted(path: str) -> None:
    # the simulator made the cut JSON whole ({"summary": "{\"summary\":\"x\",\"n\":1", "n": 0}),
    # so responses.parse gave a parsed answer where the API's cut JSON fails to parse
    cut = '{"summary": "RAG retrieves", "n'
    whole = '{"summary": "RAG retrieves", "n": 3}'
    fake = ScriptedModel(
        [
            ModelResponse(text=cut, stop_reason="max_tokens"),
            ModelResponse(text=whole),
            ModelResponse(text="RAG retrieves"),
        ]
    )
    app = SimApp(fake)
    headers = {"x-api-key": "k", "anthropic-version": "2023-06-01", "authorization": "Bearer k"}
    said = [
        app.handle("POST", path, headers, json.dumps(JSON_FORMATS[path]).encode()).body.decode()
        for _ in fake.responses
    ]
    assert json.dumps(cut)[1:-1] in said[0] and json.dumps(whole)[1:-1] in said[1]
    assert json.dumps('{"summary": "RAG retrieves", "n": 0}')[1:-1] in said[2]  # made JSON
