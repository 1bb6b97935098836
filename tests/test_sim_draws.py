"""The seeded simulator answers each conversation the same whatever order requests arrive in."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Sequence
from pathlib import Path

import httpx
import orjson
import pytest

from replaygate.examples.research_copilot import build_registry
from replaygate.fixtures.store import FixtureStore
from replaygate.http import intercept
from replaygate.models.types import Message, ModelResponse, ToolCall, ToolSpec
from replaygate.sim import FaultPlan, SimApp, Simulator
from replaygate.sim.behaviors import EchoBehavior, SeededResearch, make_behavior
from replaygate.sim.draws import Draws

TOOLS = build_registry().specs
QUESTIONS = [f"What is topic {n}?" for n in range(40)]
Conversation = tuple[Message, ...]


def after_search(question: str) -> Conversation:
    """A conversation whose next turn the policy draws (search again, or fetch)."""
    call = ToolCall("toolu_01", "search_corpus", {"q": question})
    hits = json.dumps({"hits": [{"doc_id": "doc-rag", "title": "RAG", "snippet": "..."}]})
    return (
        Message.user(question),
        Message(role="assistant", tool_calls=(call,)),
        Message(role="tool", content=hits, tool_call_id="toolu_01"),
    )


def after_fetch(question: str) -> Conversation:
    """A conversation whose answer the policy draws (wording, citation)."""
    call = ToolCall("toolu_01", "fetch_doc", {"doc_id": "doc-rag"})
    doc = json.dumps({"doc_id": "doc-rag", "title": "RAG", "text": "RAG retrieves text. More."})
    return (
        Message.user(question),
        Message(role="assistant", tool_calls=(call,)),
        Message(role="tool", content=doc, tool_call_id="toolu_01"),
    )


CONVERSATIONS = [make(q) for q in QUESTIONS for make in (after_search, after_fetch)]


def answers(
    seed: int, order: Sequence[int], tools: Sequence[ToolSpec] = TOOLS
) -> dict[int, list[ModelResponse]]:
    """Each conversation's answers (three times each) when they come in ``order``."""
    policy = SeededResearch(seed)
    got: dict[int, list[ModelResponse]] = {}
    for index in order:
        got.setdefault(index, []).append(policy.respond(CONVERSATIONS[index], tools))
    return got


def test_answers_do_not_depend_on_the_order_requests_arrive_in() -> None:
    serial = [i for i in range(len(CONVERSATIONS)) for _ in range(3)]
    shuffled = serial[:]
    random.Random(1).shuffle(shuffled)
    assert answers(7, shuffled) == answers(7, serial)


def test_answers_still_vary_from_one_conversation_and_one_repeat_to_the_next() -> None:
    got = answers(7, [i for i in range(len(CONVERSATIONS)) for _ in range(3)])
    texts = {r.text for rs in got.values() for r in rs if r.text}
    searched_again = [
        r
        for rs in got.values()
        for r in rs
        if r.tool_calls and r.tool_calls[0].name == "search_corpus"
    ]
    fetched = [
        r for rs in got.values() for r in rs if r.tool_calls and r.tool_calls[0].name == "fetch_doc"
    ]
    assert len(texts) >= 3 and searched_again and fetched
    assert any(len({repr(r) for r in rs}) > 1 for rs in got.values())  # repeats differ


def test_the_seed_chooses_the_answers() -> None:
    order = list(range(len(CONVERSATIONS)))
    assert answers(7, order) == answers(7, order)
    assert answers(7, order) != answers(8, order)
    assert make_behavior("research-copilot", seed=7).respond(CONVERSATIONS[1], TOOLS) == (
        SeededResearch(7).respond(CONVERSATIONS[1], TOOLS)
    )


def test_answers_are_numbered_per_conversation() -> None:
    draws = Draws()
    first, other, second = (draws.next(CONVERSATIONS[i], TOOLS) for i in (0, 1, 0))
    assert (first.number, other.number, second.number) == (0, 0, 1)
    assert first.digest == second.digest != other.digest
    assert first.rng(7).random() == Draws().next(CONVERSATIONS[0], TOOLS).rng(7).random()
    assert first.rng(7).random() != second.rng(7).random()
    assert first.rng(7).random() != first.rng(8).random()


TOOLS_WIRE = [{"name": t.name, "description": "", "input_schema": t.input_schema} for t in TOOLS]
_ANTHROPIC = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
_OPENAI = {"authorization": "Bearer k"}
_FORCED = {"type": "function", "function": {"name": "lookup"}}  # the simulator calls it
_CHAT_TOOLS = [
    {"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}
]


def _request(route: str, question: str) -> tuple[dict[str, str], dict[str, object]]:
    """The headers and body of a request asking ``question`` on ``route``."""
    said = [{"role": "user", "content": question}]
    if route == "/v1/messages":
        return _ANTHROPIC, {"model": "m", "max_tokens": 99, "messages": said, "tools": TOOLS_WIRE}
    if route == "/v1/responses":
        return _OPENAI, {"model": "m", "input": question}
    if route.startswith("/v1beta"):
        return {"x-goog-api-key": "k"}, {
            "contents": [{"role": "user", "parts": [{"text": question}]}]
        }
    return _OPENAI, {"model": "m", "messages": said, "tools": _CHAT_TOOLS, "tool_choice": _FORCED}


ROUTES = (
    "/v1/messages",
    "/v1/chat/completions",
    "/v1/responses",
    "/v1beta/models/g:generateContent",
)


def _ids(seed: int, order: Sequence[tuple[str, str]]) -> dict[tuple[str, str], list[str]]:
    """The response and tool call ids each (route, question) got, asked in ``order``."""
    app = SimApp(make_behavior("research-copilot", seed=seed), seed=seed)
    got: dict[tuple[str, str], list[str]] = {}
    for route, question in order:
        headers, body = _request(route, question)
        reply = app.handle("POST", route, headers, orjson.dumps(body))
        assert reply.status == 200 and reply.body is not None
        text = reply.body.decode()
        found = re.findall(r'"(?:id|responseId)":"([^"]+)"', text)
        got.setdefault((route, question), []).extend(found)
    return got


def test_ids_are_each_answers_own_and_the_same_in_any_order() -> None:
    asked = [(route, f"{q} {route}") for route in ROUTES for q in ("a", "b", "a")]
    serial = _ids(7, asked)
    every = [i for ids in serial.values() for i in ids]
    # response, tool call and output item ids: none given twice, in any API
    assert len(every) == len(set(every)) > 3 * len(ROUTES)
    assert any(i.startswith("call_sim_") for i in every)
    shuffled = asked[:]
    random.Random(2).shuffle(shuffled)
    assert _ids(7, shuffled) == serial
    assert set(every).isdisjoint(i for ids in _ids(8, asked).values() for i in ids)


def _statuses(app: SimApp, questions: Sequence[str]) -> dict[str, list[int]]:
    """Each question's reply statuses, in the order its requests came."""
    got: dict[str, list[int]] = {}
    body = {"model": "m", "max_tokens": 9}
    for question in questions:
        raw = orjson.dumps({**body, "messages": [{"role": "user", "content": question}]})
        headers = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
        reply = app.handle("POST", "/v1/messages", headers, raw)
        got.setdefault(question, []).append(reply.status)
    return got


def test_faults_do_not_depend_on_the_order_requests_arrive_in() -> None:
    plan = FaultPlan.parse("429:0.3,500:0.2")
    serial = [q for q in QUESTIONS for _ in range(3)]  # each sent, then retried twice
    shuffled = serial[:]
    random.Random(3).shuffle(shuffled)
    first = _statuses(SimApp(EchoBehavior(), seed=5, faults=plan), serial)
    assert first == _statuses(SimApp(EchoBehavior(), seed=5, faults=plan), shuffled)
    statuses = [s for got in first.values() for s in got]
    assert {200, 429, 500} <= set(statuses)
    assert any(len(set(got)) > 1 for got in first.values()), "a retry draws afresh"
    assert first != _statuses(SimApp(EchoBehavior(), seed=6, faults=plan), serial)


_OPENAI_API = "https://api.openai.com/v1"


def _conversation_test(client: httpx.Client, name: str) -> None:
    """One test's calls: a conversation made, added to, answered, compacted, looked up."""

    def call(method: str, path: str, body: object = None) -> dict[str, object]:
        sent = client.request(method, f"{_OPENAI_API}{path}", headers=_OPENAI, json=body)
        assert sent.status_code == 200, sent.text
        assert sent.headers["x-request-id"].startswith("req_sim_")
        return dict(sent.json())

    said = [{"type": "message", "role": "user", "content": name}]
    made = call("POST", "/conversations", {"items": said})["id"]
    call("POST", f"/conversations/{made}/items", {"items": said})  # the same item again
    asked = {"model": "m", "input": f"And {name}?", "conversation": made}
    answered = call("POST", "/responses", asked)
    call("POST", "/responses/compact", {"model": "m", "previous_response_id": answered["id"]})
    items = call("GET", f"/conversations/{made}/items?order=asc")["data"]
    assert isinstance(items, list) and len(items) == 4
    ids = [str(item["id"]) for item in items]
    assert len(set(ids)) == 4 and ids[0].startswith("item_sim_")
    assert call("GET", f"/conversations/{made}/items/{ids[1]}")["content"] == items[1]["content"]
    assert call("GET", f"/conversations/{made}")["id"] == made


def _recorded(store: Path, names: Sequence[str]) -> set[tuple[str, str]]:
    """The fixtures (request and responses, as stored) of the tests ``names``, recorded
    from a new seeded simulator in that order."""
    with (
        Simulator(behavior="echo", seed=3) as sim,
        intercept(store, "record-missing", approve_live=True, source="sim", live_origin=sim.url),
        httpx.Client() as client,
    ):
        for name in names:
            _conversation_test(client, name)
    with FixtureStore.open(store) as opened:
        return {
            (json.dumps(f.request, sort_keys=True), json.dumps(f.responses, sort_keys=True))
            for f in opened
        }


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_tests_recorded_in_another_order_or_alone_store_the_same_bytes(tmp_path: Path) -> None:
    """Request ids, conversation and item ids, compactions and ``created_at`` come from
    the seed and the request, not from what the simulator served before."""
    both = _recorded(tmp_path / "ab.jsonl", ["a", "b"])
    assert _recorded(tmp_path / "ba.jsonl", ["b", "a"]) == both
    assert _recorded(tmp_path / "b.jsonl", ["b"]) < both  # as a run selecting one test


def _offered(route: str, tools: Sequence[ToolSpec]) -> list[dict[str, object]]:
    """``tools`` as a request to ``route`` offers them."""
    if route == "/v1/messages":
        return [{"name": t.name, "input_schema": t.input_schema} for t in tools]
    if route == "/v1/chat/completions":
        return [
            {"type": "function", "function": {"name": t.name, "parameters": t.input_schema}}
            for t in tools
        ]
    return [{"type": "function", "name": t.name, "parameters": t.input_schema} for t in tools]


def test_the_calls_the_simulator_makes_are_named_as_the_api_answering_names_its_own() -> None:
    """The research agent's calls were named ``toolu_...`` (Anthropic's form) in OpenAI's
    answers too, and a forced call ``call_...`` (OpenAI's) in Anthropic's, so a recording
    from the simulator held ids no recording from the API holds."""
    app = SimApp(make_behavior("research-copilot", seed=7), seed=7)
    said = [{"role": "user", "content": "What is RAG?"}]
    asked = [
        ("/v1/messages", _ANTHROPIC, {"max_tokens": 99, "messages": said}, {"type": "any"}),
        ("/v1/chat/completions", _OPENAI, {"messages": said}, "required"),
        ("/v1/responses", _OPENAI, {"input": said}, "required"),
    ]
    for route, headers, body, forcing in asked:
        prefix = "toolu_sim_" if route == "/v1/messages" else "call_sim_"
        for tools, choice in ((TOOLS, {}), (TOOLS[1:], {"tool_choice": forcing})):
            sent = {"model": "m", **body, "tools": _offered(route, tools), **choice}
            reply = app.handle("POST", route, headers, orjson.dumps(sent))
            assert reply.status == 200 and reply.body is not None, reply.body
            ids = re.findall(r'"(?:id|call_id)":"((?:toolu|call)_[^"]+)"', reply.body.decode())
            assert ids and all(i.startswith(prefix) for i in ids), (route, ids)
