"""The seeded simulator answers each conversation the same whatever order requests arrive in."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence

import orjson

from replaygate.examples.research_copilot import build_registry
from replaygate.models.types import Message, ModelResponse, ToolCall, ToolSpec
from replaygate.sim import FaultPlan, SimApp
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


def _post(app: SimApp, question: str, route: str = "/v1/messages") -> dict[str, object]:
    if route == "/v1/messages":
        body = {"model": "m", "max_tokens": 9, "messages": [{"role": "user", "content": question}]}
        headers = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
    else:
        body = {"model": "m", "messages": [{"role": "user", "content": question}]}
        headers = {"authorization": "Bearer k"}
    reply = app.handle("POST", route, headers, orjson.dumps(body))
    assert reply.status == 200 and reply.body is not None
    parsed: dict[str, object] = orjson.loads(reply.body)
    return parsed


def test_response_ids_count_the_answers_to_one_conversation_not_all_requests() -> None:
    app = SimApp(EchoBehavior())
    ids = [_post(app, q)["id"] for q in ("a", "b", "a", "a", "b")]
    assert ids == ["msg_sim_0001", "msg_sim_0001", "msg_sim_0002", "msg_sim_0003", "msg_sim_0002"]
    chat = [_post(app, q, "/v1/chat/completions")["id"] for q in ("c", "c")]
    assert chat == ["chatcmpl-sim-0001", "chatcmpl-sim-0002"]


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
