"""Recording the samples a store is missing from a seeded simulator draws new answers.

A recording that replays the samples already recorded and sends the rest tells the
simulator of each replayed answer (:mod:`replaygate.http.learners`); the simulator
counts it as an answer it gave, so the first new sample gets the draw that follows
the replayed ones, not a copy of sample 0, and a store grown from 3 samples to 6 holds
what a recording of the 6 at once holds. Both recorders: HTTP (``intercept``, as the
pytest plugin records) and the model-level :class:`RecordingModel` (as ``eval``
records, through an SDK model whose client points at the simulator).
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from replaygate.evals.ratelimit import RateLimiter, limited
from replaygate.fixtures.store import FixtureStore
from replaygate.http import intercept
from replaygate.models.live import AnthropicModel, GeminiModel
from replaygate.models.replay import RecordingModel, RequestSettings
from replaygate.models.types import Message, ModelResponse, ToolCall, ToolSpec
from replaygate.sim import Simulator
from sdks import genai
from wire_shapes import chat_tool_call_turn

pytestmark = pytest.mark.slow  # each test: records through an SDK from the simulator and replays

HEADERS = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
DOC = {"doc_id": "rag", "title": "RAG", "text": "RAG retrieves documents before answering."}
MESSAGES = (
    Message.user("What is RAG?"),
    Message("assistant", tool_calls=(ToolCall("toolu_1", "fetch_doc", {"doc_id": "rag"}),)),
    Message("tool", json.dumps(DOC), tool_call_id="toolu_1"),
)
TOOLS = (ToolSpec("fetch_doc", "Fetch a document."),)
SETTINGS = RequestSettings("m", 256, None)
BODY = SETTINGS.build(MESSAGES, TOOLS)
"""A conversation the research-copilot answers differently from draw to draw."""


RESPONSES_BODY = {
    "model": "m",
    "input": [
        {"role": "user", "content": "What is RAG?"},
        {"type": "function_call", "call_id": "c1", "name": "fetch_doc", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": json.dumps(DOC)},
    ],
    "tools": [{"type": "function", "name": "fetch_doc", "parameters": {"type": "object"}}],
}
CHAT_BODY = {
    "model": "m",
    "messages": [
        {"role": "user", "content": "What is RAG?"},
        chat_tool_call_turn("c1", "fetch_doc"),
        {"role": "tool", "tool_call_id": "c1", "content": json.dumps(DOC)},
    ],
    "tools": [{"type": "function", "function": {"name": "fetch_doc", "parameters": {}}}],
}
SENT = {
    "anthropic": ("https://api.anthropic.com/v1/messages", HEADERS, BODY),
    "anthropic thread": (  # ids msg_sim_thread_<n> number the threads served
        "https://api.anthropic.com/v1/messages",
        HEADERS,
        {**BODY, "thread": {"type": "create"}},
    ),
    "compact": (  # a compaction counts the conversation's compactions: not a draw
        "https://api.openai.com/v1/responses/compact",
        {"authorization": "Bearer k"},
        {"model": "m", "input": RESPONSES_BODY["input"]},
    ),
    "chat": (
        "https://api.openai.com/v1/chat/completions",
        {"authorization": "Bearer k"},
        CHAT_BODY,
    ),
    "chat streamed": (
        "https://api.openai.com/v1/chat/completions",
        {"authorization": "Bearer k"},
        {**CHAT_BODY, "stream": True},
    ),
    "anthropic streamed": (
        "https://api.anthropic.com/v1/messages",
        HEADERS,
        {**BODY, "stream": True},
    ),
    "responses": (
        "https://api.openai.com/v1/responses",
        {"authorization": "Bearer k"},
        RESPONSES_BODY,
    ),
}


def _answered(response: httpx.Response) -> tuple[str, str, str]:
    """What a sample got: its request id, message id (and time) and text (of a stream: its
    first event's id and the events)."""
    if response.headers["content-type"].startswith("text/event-stream"):
        request_id = response.headers.get("x-request-id") or response.headers["request-id"]
        first = json.loads(response.text.split("data: ", 1)[1].split("\n", 1)[0])
        held = first.get("message") or first.get("response") or first
        return request_id, held["id"], response.text
    body = response.json()
    if body.get("object") == "response.compaction":
        (compaction,) = [item for item in body["output"] if item["type"] == "compaction"]
        return response.headers["x-request-id"], body["id"], compaction["id"]
    if "choices" in body:  # Chat Completions'
        said = body["choices"][0]["message"]["content"] or ""
        return response.headers["x-request-id"], f"{body['id']} {body['created']}", said
    if "output" in body:  # the Responses API's
        said = body["output"][0]["content"][0]["text"]
        return response.headers["x-request-id"], f"{body['id']} {body['created_at']}", said
    return response.headers["request-id"], body["id"], body["content"][0]["text"]


def _record_http(store: Path, samples: int, api: str = "anthropic") -> list[tuple[str, str, str]]:
    """``samples`` sends of the conversation, recorded from a new seeded simulator."""
    url, headers, body = SENT[api]
    with (
        Simulator(behavior="research-copilot", seed=7) as sim,
        intercept(store, "record-missing", approve_live=True, source="sim", live_origin=sim.url),
        httpx.Client() as client,
    ):
        return [_answered(client.post(url, headers=headers, json=body)) for _ in range(samples)]


def _stored(store: Path) -> list[Any]:
    with FixtureStore.open(store) as opened:
        return sorted(
            (json.dumps(f.request, sort_keys=True), json.dumps(f.responses, sort_keys=True))
            for f in opened
        )


@pytest.mark.parametrize("api", sorted(set(SENT) - {"compact"}))
def test_a_grown_http_recording_draws_new_samples_as_one_made_at_once(
    tmp_path: Path, api: str
) -> None:
    grown, fresh = tmp_path / "grown.jsonl", tmp_path / "fresh.jsonl"
    _record_http(grown, 3, api)
    more = _record_http(grown, 6, api)  # samples 0-2 replayed, 3-5 recorded
    at_once = _record_http(fresh, 6, api)
    assert more == at_once
    texts = {text for _, _, text in at_once}
    assert len(texts) > 1  # the conversation is one whose draws differ
    assert len({message_id for _, message_id, _ in more}) == 6  # no answer repeated
    assert _stored(grown) == _stored(fresh)


def test_a_grown_recording_of_compactions_numbers_them_as_one_made_at_once(
    tmp_path: Path,
) -> None:
    grown, fresh = tmp_path / "grown.jsonl", tmp_path / "fresh.jsonl"
    _record_http(grown, 2, "compact")
    more = _record_http(grown, 4, "compact")  # 0-1 replayed, 2-3 recorded
    assert more == _record_http(fresh, 4, "compact")
    assert len({compaction for _, _, compaction in more}) == 4  # cmp_sim_0001_<digest> to 0004_
    assert _stored(grown) == _stored(fresh)


class _NoCalls:
    """A live model's client that is never called: every sample is replayed."""

    def __init__(self, base_url: str) -> None:
        self.base_url = httpx.URL(base_url)
        self.messages = SimpleNamespace(with_raw_response=self)

    def create(self, **request: Any) -> Any:
        raise AssertionError("a replayed sample was sent")


class _Says:
    def complete(self, messages: Any, tools: Any) -> ModelResponse:
        return ModelResponse(text="recorded before")


@pytest.mark.parametrize("limiter", [None, RateLimiter(1000.0)], ids=["bare", "rate-limited"])
def test_a_model_recording_tells_the_simulator_of_each_replayed_sample(
    tmp_path: Path, limiter: RateLimiter | None
) -> None:
    store = tmp_path / "fixtures.jsonl"
    for sample in range(3):  # three samples recorded, by another model
        RecordingModel(
            _Says(), store, approve_live=True, model="m", max_tokens=256, sample=sample
        ).complete(MESSAGES, TOOLS)
    with Simulator(behavior="research-copilot", seed=7) as sim, httpx.Client() as client:
        # eval's --rate-limit wraps the live model: the wrapper passes the word on
        live = limited(AnthropicModel(_NoCalls(sim.url), model="m", max_tokens=256), limiter)
        for sample in range(3):
            replayed = RecordingModel(
                live, store, approve_live=True, model="m", max_tokens=256, sample=sample
            ).complete(MESSAGES, TOOLS)
            assert replayed.text == "recorded before"
        fourth = _answered(client.post(f"{sim.url}/v1/messages", headers=HEADERS, json=BODY))
    with Simulator(behavior="research-copilot", seed=7) as sim, httpx.Client() as client:
        url = f"{sim.url}/v1/messages"
        at_once = [_answered(client.post(url, headers=HEADERS, json=BODY)) for _ in range(4)]
    assert fourth == at_once[3]
    assert fourth[1].startswith("msg_sim_0004")


def test_a_gemini_model_recording_tells_the_simulator_of_each_replayed_sample(
    tmp_path: Path,
) -> None:
    store = tmp_path / "fixtures.jsonl"
    settings: dict[str, Any] = {"model": "m", "max_tokens": 256, "interface": "gemini"}
    for sample in range(3):  # three samples recorded, by another model
        RecordingModel(_Says(), store, approve_live=True, sample=sample, **settings).complete(
            MESSAGES, TOOLS
        )
    request = RequestSettings("m", 256, None, "google.generate_content").build(MESSAGES, TOOLS)

    def fourth(replayed: int) -> Any:
        """The answer to the 4th sample, after ``replayed`` samples a recording replayed."""
        with (
            Simulator(behavior="research-copilot", seed=7) as sim,
            genai.Client(api_key="k", http_options={"base_url": sim.url}) as client,
        ):
            live = GeminiModel(client, model="m", max_tokens=256)
            for sample in range(replayed):
                recording = RecordingModel(
                    live, store, approve_live=True, sample=sample, **settings
                )
                assert recording.complete(MESSAGES, TOOLS).text == "recorded before"
            return [live.complete_wire(request) for _ in range(4 - replayed)][-1]

    assert fourth(replayed=3) == fourth(replayed=0)
