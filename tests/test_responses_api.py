"""The OpenAI Responses API through the real ``openai`` SDK over loopback HTTP.

Every interaction is recorded from the in-process simulator (``record-missing``),
then replayed offline with the network blocked and the SDK pointed at the real API
host, and what the SDK produced must be the same. Also: the loud miss of a changed
request, what the stored fixture holds, the refusal of a route the server does not
serve, the simulator's validation, and the engine converters.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import httpx2
import pytest
from hypothesis import given
from hypothesis import strategies as st

from replaygate.errors import (
    FixtureMismatchError,
    SimulatorRefusalError,
    UnservedRouteError,
    WireFormatError,
)
from replaygate.fixtures.store import FixtureStore
from replaygate.http import block_network, httpx2_async_client, httpx2_client, intercept
from replaygate.http.routes import simulator_refusal, unserved_route
from replaygate.hygiene.drift import drift_live
from replaygate.hygiene.resend import LiveSender
from replaygate.models.live import OpenAIResponsesModel
from replaygate.models.providers import get_interface
from replaygate.models.providers.openai_responses import (
    from_responses_request,
    from_responses_response,
    to_responses_request,
    to_responses_response,
)
from replaygate.models.replay import RecordingModel, ReplayModel
from replaygate.models.types import Message, ModelResponse, ToolCall, ToolSpec
from replaygate.sanitize import SanitizeConfig
from replaygate.sim import Simulator
from replaygate.sim.app import SimApp
from replaygate.sim.behaviors import EchoBehavior
from replaygate.sim.conversations import Conversations
from replaygate.sim.research_policy import ResearchPolicy
from sdks import openai
from test_providers import conversations, responses, systems, tool_specs

KEY = "test-key"
MODEL = "gpt-sim-1"
INSTRUCTIONS = "Answer in one sentence and cite the document."
QUESTION = "What is RAG?"
TOOLS: list[Any] = [
    {
        "type": "function",
        "name": "search_corpus",
        "description": "Search the corpus.",
        "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
    },
    {
        "type": "function",
        "name": "fetch_doc",
        "description": "Fetch one document.",
        "parameters": {"type": "object", "properties": {"doc_id": {"type": "string"}}},
    },
]
TOOL_OUTPUTS = {
    "search_corpus": {"hits": [{"doc_id": "doc-rag", "title": "RAG"}]},
    "fetch_doc": {
        "doc_id": "doc-rag",
        "title": "RAG",
        "text": "Retrieval-augmented generation grounds answers in fetched documents.",
    },
}
STABLE = SanitizeConfig(ids=True, times=True)
"""Volatile ids and times replaced on record (both are opt-in)."""
Result = dict[str, Any]


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    """The research agent's model, without randomness: the same answers in any test order."""
    with Simulator(behavior=ResearchPolicy()) as server:
        yield server


def client(store: Path, mode: str, base_url: str | None) -> openai.OpenAI:
    """An SDK client recording to (or replaying from) ``store``."""
    approve = mode != "replay"
    source = "sim" if approve else None
    http = httpx2_client(store, mode, approve_live=approve, source=source, sanitize=STABLE)
    options: dict[str, Any] = {"base_url": base_url} if base_url else {}
    return openai.OpenAI(api_key=KEY, http_client=http, max_retries=0, **options)


def _calls(response: Any) -> list[Any]:
    return [item for item in response.output if item.type == "function_call"]


def _outputs(calls: list[Any]) -> list[Any]:
    return [
        {
            "type": "function_call_output",
            "call_id": call.call_id,
            "output": json.dumps(TOOL_OUTPUTS[call.name]),
        }
        for call in calls
    ]


# -- interactions: what user code does with a client, as comparable data ------------------


def plain(c: openai.OpenAI) -> Result:
    response = c.responses.create(model=MODEL, input=QUESTION, instructions=INSTRUCTIONS)
    return {"final": response.model_dump(mode="json"), "text": response.output_text}


def streamed(c: openai.OpenAI) -> Result:
    events = [e.model_dump(mode="json") for e in c.responses.create(
        model=MODEL, input=QUESTION, instructions=INSTRUCTIONS, stream=True
    )]  # fmt: skip
    text = "".join(e["delta"] for e in events if e["type"] == "response.output_text.delta")
    return {"events": events, "text": text}


def helper(c: openai.OpenAI) -> Result:
    with c.responses.stream(model=MODEL, input=QUESTION, instructions=INSTRUCTIONS) as stream:
        events = [e.type for e in stream]
        final = stream.get_final_response()
    return {"events": events, "final": final.model_dump(mode="json"), "text": final.output_text}


def tool_loop(c: openai.OpenAI, *, chained: bool) -> Result:
    """Answer every function call until the model answers in text.

    ``chained`` continues with ``previous_response_id``; otherwise the whole
    conversation (the output items, then the outputs) is sent again each turn.
    """
    items: list[Any] = [{"role": "user", "content": QUESTION}]
    response = c.responses.create(model=MODEL, input=items, tools=TOOLS, instructions=INSTRUCTIONS)
    turns = [response.model_dump(mode="json")]
    while _calls(response):
        outputs = _outputs(_calls(response))
        if chained:
            response = c.responses.create(
                model=MODEL, previous_response_id=response.id, input=outputs, tools=TOOLS
            )
        else:
            items += [item.model_dump(exclude_none=True) for item in response.output] + outputs
            response = c.responses.create(model=MODEL, input=items, tools=TOOLS)
        turns.append(response.model_dump(mode="json"))
    return {"turns": turns, "text": response.output_text}


INTERACTIONS: dict[str, Callable[[openai.OpenAI], Result]] = {
    "plain": plain,
    "stream": streamed,
    "helper": helper,
    "tools": lambda c: tool_loop(c, chained=False),
    "previous-response-id": lambda c: tool_loop(c, chained=True),
}


_ID = re.compile(r"\b(resp|msg|fc|toolu|call)_[A-Za-z0-9_]+")
_TIMES = frozenset({"created_at", "completed_at"})


def without_ids(value: Any) -> Any:
    """``value`` with provider ids and times blanked: the client sees the live ones while
    recording, the stable ones (:data:`STABLE`) on replay."""
    if isinstance(value, dict):
        return {k: 0 if k in _TIMES and v else without_ids(v) for k, v in value.items()}
    if isinstance(value, list):
        return [without_ids(v) for v in value]
    return _ID.sub("<id>", value) if isinstance(value, str) else value


def record_and_replay(
    sim: Simulator, store: Path, interact: Callable[[openai.OpenAI], Result]
) -> tuple[Result, Result]:
    """What ``interact`` gave live while recording, and what it gives replayed offline
    (twice, the same), as the client saw them: the live ids and times while recording,
    the stable ones (:data:`STABLE`) on replay."""
    with client(store, "record-missing", sim.openai_base_url) as recording:
        live = interact(recording)
    with block_network():
        with client(store, "replay", None) as replaying:
            replayed = interact(replaying)
        with client(store, "replay", None) as again:
            assert interact(again) == replayed
    return live, replayed


@dataclass(frozen=True)
class RoundTrip:
    """One interaction recorded into a store of its own, then replayed offline twice."""

    store: Path
    seen_live: Result
    seen_replayed: Result
    """What the client saw recording (the live ids and times) and replayed (the stable ones)."""
    live: Result
    replayed: Result
    """The same, ids and times blanked (:func:`without_ids`)."""


@pytest.fixture(scope="module")
def round_trips(
    sim: Simulator, tmp_path_factory: pytest.TempPathFactory
) -> Callable[[str], RoundTrip]:
    """The round trip of each interaction of :data:`INTERACTIONS` by name, made once for
    the module: the tests check each its own part of the same recordings. A test that
    writes to a store makes its own."""
    made: dict[str, RoundTrip] = {}

    def round_trip(name: str) -> RoundTrip:
        if name not in made:
            store = tmp_path_factory.mktemp(name) / "r.jsonl"
            seen, replayed = record_and_replay(sim, store, INTERACTIONS[name])
            made[name] = RoundTrip(store, seen, replayed, without_ids(seen), without_ids(replayed))
        return made[name]

    return round_trip


@pytest.mark.slow  # whole flows: recorded from the simulator, then replayed offline
@pytest.mark.parametrize("name", INTERACTIONS)
def test_record_then_replay_offline(round_trips: Callable[[str], RoundTrip], name: str) -> None:
    done = round_trips(name)
    live, replayed = done.live, done.replayed
    assert replayed == live
    assert live["text"]
    (fixture, *_) = FixtureStore.open(done.store)
    assert fixture.meta is not None
    assert (fixture.meta["interface"], fixture.meta["interface_version"]) == (
        "openai.responses",
        "v1",
    )


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_stream_iteration_and_helper_give_the_plain_text(
    round_trips: Callable[[str], RoundTrip],
) -> None:
    texts = {name: round_trips(name).replayed["text"] for name in ("plain", "stream", "helper")}
    assert len(set(texts.values())) == 1
    assert "[doc-" not in texts["plain"]  # no tools offered: nothing fetched, nothing cited


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_tool_round_trip_ends_with_a_cited_answer(round_trips: Callable[[str], RoundTrip]) -> None:
    done = round_trips("tools")
    replayed = done.replayed
    first = replayed["turns"][0]["output"]
    assert [item["type"] for item in first] == ["function_call"]
    assert first[0]["name"] == "search_corpus"
    assert "[doc-rag]" in replayed["text"]
    assert len(FixtureStore.open(done.store)) == len(replayed["turns"])


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_previous_response_id_is_stored_stable_and_replays(
    round_trips: Callable[[str], RoundTrip],
) -> None:
    done = round_trips("previous-response-id")
    store, replayed = done.store, done.seen_replayed
    assert done.replayed == done.live
    follow_ups = [f.request["body"] for f in FixtureStore.open(store)
                  if "previous_response_id" in f.request["body"]]  # fmt: skip
    assert follow_ups
    for body in follow_ups:  # the live id was replaced by the id replay hands out
        assert body["previous_response_id"].startswith("resp_rg_")
        assert all(item["call_id"].startswith("toolu_rg_") for item in body["input"])
    assert replayed["turns"][1]["previous_response_id"] == replayed["turns"][0]["id"]


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_async_client_records_and_replays(sim: Simulator, tmp_path: Path) -> None:
    store = tmp_path / "r.jsonl"

    async def interact(mode: str, base_url: str | None) -> Result:
        approve = mode != "replay"
        source = "sim" if approve else None
        http = httpx2_async_client(
            store, mode, approve_live=approve, source=source, sanitize=STABLE
        )
        options: dict[str, Any] = {"base_url": base_url} if base_url else {}
        async with openai.AsyncOpenAI(api_key=KEY, http_client=http, max_retries=0, **options) as c:
            plain_answer = await c.responses.create(model=MODEL, input=QUESTION)
            async with c.responses.stream(model=MODEL, input=QUESTION, tools=TOOLS) as stream:
                events = [e.type async for e in stream]
                final = await stream.get_final_response()
        return {"plain": plain_answer.model_dump(mode="json"), "events": events,
                "final": final.model_dump(mode="json")}  # fmt: skip

    live = asyncio.run(interact("record-missing", sim.openai_base_url))
    with block_network():
        replayed = asyncio.run(interact("replay", None))
    assert without_ids(replayed) == without_ids(live)
    assert replayed["final"]["output"][0]["type"] == "function_call"


# -- a changed request is a loud miss ------------------------------------------------


@pytest.mark.parametrize(
    ("change", "path"),
    [
        ({"input": "What is RAG exactly?"}, "body.input"),
        ({"instructions": "Answer in two sentences and cite the document."}, "body.instructions"),
    ],
)
def test_one_word_changed_is_a_miss_with_a_diff(
    round_trips: Callable[[str], RoundTrip], change: dict[str, str], path: str
) -> None:
    store = round_trips("plain").store  # QUESTION with INSTRUCTIONS, recorded
    args: dict[str, Any] = {"model": MODEL, "input": QUESTION, "instructions": INSTRUCTIONS}
    args.update(change)
    with (
        block_network(),
        client(store, "replay", None) as replaying,
        pytest.raises(FixtureMismatchError) as caught,
    ):
        replaying.responses.create(**args)
    assert any(line.startswith(path) for line in caught.value.differences)
    assert str(store) in str(caught.value)


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_changed_tool_output_is_diffed_against_the_turn_it_continues(
    sim: Simulator, tmp_path: Path
) -> None:
    """The nearest recorded request is the one with the longest common run of ``input``
    items, and the diff is the one item that changed, not every item past the first turn."""
    store = tmp_path / "r.jsonl"

    def run(mode: str, base_url: str | None, output: str) -> None:
        with client(store, mode, base_url) as c:
            first = c.responses.create(model=MODEL, input=QUESTION, tools=TOOLS)
            call = _calls(first)[0]
            turn = {"type": "function_call_output", "call_id": call.call_id, "output": output}
            conversation = [{"role": "user", "content": QUESTION}]
            function_call = {k: getattr(call, k) for k in ("type", "call_id", "name", "arguments")}
            c.responses.create(model=MODEL, input=[*conversation, function_call, turn], tools=TOOLS)

    recorded = json.dumps(TOOL_OUTPUTS["search_corpus"])
    run("record-missing", sim.openai_base_url, recorded)
    with block_network(), pytest.raises(FixtureMismatchError) as caught:
        run("replay", None, recorded.replace("RAG", "RAG!"))
    assert f"{store}:2 (recorded != requested)" in str(caught.value)
    assert [line.split(":")[0] for line in caught.value.differences] == ["body.input[2].output"]


# -- what the stored fixture holds ---------------------------------------------------


def _ids_and_times(value: Any, found: dict[str, list[Any]]) -> dict[str, list[Any]]:
    if isinstance(value, dict):
        for key, member in value.items():
            if key in ("id", "item_id", "call_id", "created_at", "completed_at"):
                found.setdefault(key, []).append(member)
            _ids_and_times(member, found)
    elif isinstance(value, list):
        for member in value:
            _ids_and_times(member, found)
    return found


@pytest.mark.parametrize("name", ["plain", "stream", "tools"])
def test_stored_ids_and_times_are_sanitized(
    round_trips: Callable[[str], RoundTrip], name: str
) -> None:
    done = round_trips(name)
    live = done.seen_live
    for fixture in FixtureStore.open(done.store):
        response = fixture.response
        body = response.get("body") or [json.loads(e["data"]) for e in response["events"]]
        found = _ids_and_times(body, {})
        assert found["id"] and found["created_at"]
        assert {value for value in found["created_at"] if value is not None} == {0}
        for key in ("id", "item_id", "call_id"):
            for value in found.get(key, []):
                assert "_rg_" in value, (key, value)
    assert "sim_" in json.dumps(live)  # the client saw the live ids while recording


# -- a route the server does not serve -----------------------------------------------


def test_unserved_route_404_is_refused_and_nothing_is_written(
    sim: Simulator, tmp_path: Path
) -> None:
    store = tmp_path / "r.jsonl"
    with (
        client(store, "record-missing", sim.url) as wrong_base,  # without /v1: POST /responses
        pytest.raises(UnservedRouteError) as caught,
    ):
        wrong_base.responses.create(model=MODEL, input=QUESTION)
    message = str(caught.value)
    assert "POST /responses" in message and "404" in message and "nothing was written" in message
    assert "replaygate's simulator does not serve it" in message  # recorded as source "sim"
    assert isinstance(caught.value, openai.OpenAIError)  # the SDK passes it through unwrapped
    with (
        client(store, "record-missing", sim.openai_base_url) as right_base,
        pytest.raises(UnservedRouteError, match="GET /v1/responses/resp_x/input_items"),
    ):
        right_base.responses.input_items.list("resp_x")
    assert not store.exists() or not FixtureStore.open(store)


def test_a_route_the_simulator_lacks_is_said_so_when_the_session_was_not_told_of_it(
    sim: Simulator, tmp_path: Path
) -> None:
    """A client sent to the simulator by its base URL alone (no ``source="sim"``): its 404
    for text to speech is told by its request id, not taken for a wrong base URL."""
    store = tmp_path / "r.jsonl"
    http = httpx2_client(store, "record-missing", approve_live=True)
    base = sim.openai_base_url
    with (
        openai.OpenAI(api_key=KEY, http_client=http, max_retries=0, base_url=base) as c,
        pytest.raises(UnservedRouteError) as caught,
    ):
        c.audio.speech.create(model="tts-1", voice="alloy", input="hello")
    assert "replaygate's simulator does not serve it" in str(caught.value)
    assert "check its base URL" not in str(caught.value)
    assert not store.exists()


def stored_then_deleted(c: openai.OpenAI) -> list[Any]:
    """A background response polled until done, retrieved, deleted; then neither
    retrieved nor continued."""
    made = c.responses.create(model=MODEL, input=QUESTION, background=True)
    seen = [made.status]
    while made.status in ("queued", "in_progress"):
        made = c.responses.retrieve(made.id)
        seen.append(made.status)
    seen.append(c.responses.retrieve(made.id).output_text == made.output_text)
    c.responses.delete(made.id)
    for gone in (
        lambda: c.responses.retrieve(made.id),
        lambda: c.responses.create(model=MODEL, input="And?", previous_response_id=made.id),
    ):
        with pytest.raises(openai.APIStatusError) as caught:
            gone()
        seen.append((caught.value.status_code, caught.value.message.split(".")[0]))
    return seen


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_stored_response_is_retrieved_and_deleted_from_the_simulator(tmp_path: Path) -> None:
    """``GET`` and ``DELETE /v1/responses/{id}`` were answered 404 (``Invalid URL``),
    so polling a background response stopped the recording; sent to the real API's host
    under ``live_origin``, the poll was refused by the network block instead."""
    store = tmp_path / "r.jsonl"
    plain_client = openai.OpenAI(api_key=KEY, max_retries=0)
    with (
        Simulator(behavior="echo") as echo,
        intercept(store, "record-missing", approve_live=True, live_origin=echo.url),
    ):
        recorded = stored_then_deleted(plain_client)
    assert recorded[:3] == ["queued", "completed", True]
    assert recorded[3][0] == 404 and "not found" in recorded[3][1]
    assert recorded[4][0] == 400 and "not found" in recorded[4][1]
    with intercept(store) as exchange:
        assert stored_then_deleted(plain_client) == recorded
    assert exchange.replays == 6  # made, polled, retrieved, deleted, then two refusals


def test_a_background_response_is_queued_and_cancelled_while_queued(sim: Simulator) -> None:
    """A background request was answered ``completed`` at once, as the API never does:
    an agent's polling loop and its cancel were never run, nor recorded; the cancel
    route was not served."""
    c = openai.OpenAI(api_key=KEY, base_url=sim.openai_base_url, max_retries=0)
    queued = c.responses.create(model=MODEL, input=QUESTION, background=True)
    assert (queued.status, queued.background, queued.output) == ("queued", True, [])
    cancelled = c.responses.cancel(queued.id)
    assert cancelled.status == "cancelled" and c.responses.retrieve(queued.id).status == "cancelled"
    polled = c.responses.create(model=MODEL, input=QUESTION, background=True)
    assert c.responses.retrieve(polled.id).status == "completed"
    with pytest.raises(openai.BadRequestError, match="Cannot cancel a completed response"):
        c.responses.cancel(polled.id)
    plain = c.responses.create(model=MODEL, input=QUESTION)
    assert plain.background is False and plain.status == "completed"
    with pytest.raises(openai.BadRequestError, match="background=true"):
        c.responses.cancel(plain.id)
    # background without store was answered queued, and every poll was a 404: the API
    # refuses it, and a `background` that is no boolean ran in the foreground
    with pytest.raises(openai.BadRequestError, match="Background mode requires 'store'"):
        c.responses.create(model=MODEL, input=QUESTION, background=True, store=False)
    with pytest.raises(openai.BadRequestError, match="'background': expected a boolean"):
        c.responses.create(model=MODEL, input=QUESTION, extra_body={"background": "true"})


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_background_response_a_replay_made_is_refused_when_polled_not_recorded_missing(
    sim: Simulator, tmp_path: Path
) -> None:
    """A recording grown by a poll after its background request was replayed: the
    simulator, which had not made that response, answered the poll with a 404, and the
    404 was recorded as the API's answer to the poll."""
    store = tmp_path / "grown.jsonl"
    with httpx2_client(store, mode="record-missing", approve_live=True) as http:
        c = openai.OpenAI(api_key=KEY, base_url=sim.openai_base_url, http_client=http)
        c.responses.create(model=MODEL, input=QUESTION, background=True)
    recorded = store.read_bytes()
    with (
        Simulator(behavior="echo") as fresh,
        httpx2_client(store, mode="record-missing", approve_live=True) as http,
    ):
        c = openai.OpenAI(api_key=KEY, base_url=fresh.openai_base_url, http_client=http)
        made = c.responses.create(model=MODEL, input=QUESTION, background=True)  # replayed
        with pytest.raises(SimulatorRefusalError, match="record the background request anew"):
            c.responses.retrieve(made.id)
        assert store.read_bytes() == recorded
        assert c.responses.cancel(made.id).status == "cancelled"  # still queued there


def test_a_background_response_a_replayed_poll_gave_done_is_continued() -> None:
    """A background response learned from a recording's replay (``queued``, then done at
    its replayed poll) was held without its conversation: a changed later turn naming it
    by ``previous_response_id``, sent to the simulator, was refused as not found."""
    headers = {"authorization": f"Bearer {KEY}", "host": "127.0.0.1"}
    asked = {"model": MODEL, "input": QUESTION, "background": True}
    served = SimApp(EchoBehavior())
    queued = json.loads(
        served.handle("POST", "/v1/responses", headers, json.dumps(asked).encode()).body
    )
    polled = f"/v1/responses/{queued['id']}"
    done = json.loads(served.handle("GET", polled, headers, b"").body)
    app = SimApp(EchoBehavior())
    app.learn("POST", "/v1/responses", asked, {"status": 200, "body": queued})
    app.learn("GET", polled, None, {"status": 200, "body": done})
    later = {"model": MODEL, "input": "And then?", "previous_response_id": queued["id"]}
    reply = app.handle("POST", "/v1/responses", headers, json.dumps(later).encode())
    assert reply.status == 200, reply.body


def _streamed(app: SimApp, method: str, path: str, body: Any = None) -> dict[str, Any]:
    """A stream ``app`` served, as a fixture records it."""
    headers = {"authorization": f"Bearer {KEY}", "host": "127.0.0.1"}
    sent = json.dumps(body).encode() if body is not None else b""
    reply = app.handle(method, path, headers, sent)
    assert reply.status == 200 and reply.events, reply.body
    return {"status": 200, "events": [event.to_json() for event in reply.events]}


@pytest.mark.parametrize("kind", ["resumed", "incomplete"])
def test_a_stream_replayed_to_a_recording_is_continued(kind: str) -> None:
    """Two streamed answers a recording replayed were not learned, so a changed later turn
    naming them by ``previous_response_id`` was refused as not found: a background stream
    read in part and streamed again from where its reader left it (``starting_after``),
    and a stream that ended ``response.incomplete`` at ``max_output_tokens``."""
    served, app = SimApp(EchoBehavior()), SimApp(EchoBehavior())
    if kind == "resumed":
        asked = {"model": MODEL, "input": QUESTION, "background": True, "stream": True}
        whole = _streamed(served, "POST", "/v1/responses", asked)
        read = {**whole, "events": whole["events"][:3]}
        named = json.loads(read["events"][0]["data"])["response"]["id"]
        again = f"/v1/responses/{named}?starting_after=2&stream=true"
        app.learn("POST", "/v1/responses", asked, read)
        app.learn("GET", again, None, _streamed(served, "GET", again))
    else:
        asked = {"model": MODEL, "input": "word " * 40, "max_output_tokens": 16, "stream": True}
        whole = _streamed(served, "POST", "/v1/responses", asked)
        named = json.loads(whole["events"][0]["data"])["response"]["id"]
        app.learn("POST", "/v1/responses", asked, whole)
    later = {"model": MODEL, "input": "And then?", "previous_response_id": named}
    headers = {"authorization": f"Bearer {KEY}", "host": "127.0.0.1"}
    reply = app.handle("POST", "/v1/responses", headers, json.dumps(later).encode())
    assert reply.status == 200, reply.body


def test_a_response_states_the_settings_its_request_left_out_as_the_api_does(
    sim: Simulator,
) -> None:
    """The settings a request left out were ``null`` in the response (``text``,
    ``truncation``, ``temperature``...), where the API states its defaults: an agent
    reading ``response.text.format`` or ``truncation`` met ``None`` only in tests."""
    c = openai.OpenAI(api_key=KEY, base_url=sim.openai_base_url, max_retries=0)
    plain = c.responses.create(model=MODEL, input=QUESTION, temperature=0.2, service_tier="auto")
    stated = plain.model_dump(include={"temperature", "top_p", "truncation", "service_tier"})
    assert stated == {
        "temperature": 0.2,
        "top_p": 1.0,
        "truncation": "disabled",
        "service_tier": "default",
    }
    assert (plain.text and plain.text.format.type, plain.metadata, plain.top_logprobs) == (
        "text",
        {},
        0,
    )
    assert plain.reasoning is not None and plain.reasoning.effort is None
    with c.responses.stream(model="o3", input=QUESTION, reasoning={"summary": "auto"}) as events:
        streamed = events.get_final_response()
    assert streamed.reasoning is not None
    assert (streamed.reasoning.effort, streamed.reasoning.summary) == ("medium", "auto")


def test_a_response_states_whether_it_is_stored(sim: Simulator) -> None:
    """The answer had no ``store``, which the API states in every response (``true``
    unless the request asked ``store: false``): a fixture recorded from the simulator
    showed drift against the live API on that field alone."""
    auth = {"authorization": f"Bearer {KEY}"}
    url = f"{sim.openai_base_url}/responses"
    for asked, stated in (({}, True), ({"store": False}, False), ({"store": True}, True)):
        body = {"model": MODEL, "input": QUESTION, **asked}
        assert httpx2.post(url, json=body, headers=auth).json()["store"] is stated


def test_a_setting_object_given_in_part_is_stated_whole(sim: Simulator) -> None:
    """``text: {"verbosity": "low"}`` was stated back as given, its ``format`` missing
    (``response.text.format`` None), and a structured output's ``text`` had no
    ``verbosity``, where the API states the defaults of the rest."""
    c = openai.OpenAI(api_key=KEY, base_url=sim.openai_base_url, max_retries=0)
    low = c.responses.create(model=MODEL, input=QUESTION, text={"verbosity": "low"})
    assert low.text is not None and low.text.format is not None
    assert (low.text.format.type, low.text.verbosity) == ("text", "low")
    schema = {"type": "json_schema", "name": "w", "schema": {"type": "object"}}
    shaped = c.responses.create(model=MODEL, input=QUESTION, text={"format": schema})
    assert shaped.text is not None and shaped.text.format is not None
    assert (shaped.text.format.type, shaped.text.verbosity) == ("json_schema", "medium")


def test_a_remote_mcp_tool_is_stated_back_without_its_credentials(sim: Simulator) -> None:
    """The answer stated an ``mcp`` tool back with the ``authorization`` and ``headers``
    it was given, a token the recording then refused as a secret in the answer, where the
    API states it with ``headers`` null and no ``authorization``."""
    given = {"headers": {"Authorization": "Bearer t"}, "authorization": "t"}
    tool = {"type": "mcp", "server_label": "dice", "server_url": "https://mcp.example/mcp"}
    body = {"model": MODEL, "input": QUESTION, "tools": [{**tool, **given}]}
    auth = {"authorization": f"Bearer {KEY}"}
    stated = httpx2.post(f"{sim.openai_base_url}/responses", json=body, headers=auth).json()
    assert stated["tools"] == [{**tool, "headers": None}]


def test_a_stored_response_streams_again_after_the_event_asked_for(sim: Simulator) -> None:
    """``responses.stream(response_id=..., starting_after=N)`` got the stored response as
    JSON, of which the SDK read no event: the resumed stream was empty, and so recorded."""
    c = openai.OpenAI(api_key=KEY, base_url=sim.openai_base_url, max_retries=0)
    first = list(c.responses.create(model=MODEL, input="hi", stream=True))
    with c.responses.stream(response_id=first[0].response.id, starting_after=2) as again:
        resumed = list(again)
    assert [(e.type, e.sequence_number) for e in resumed] == [
        (e.type, e.sequence_number) for e in first[3:]
    ]
    answered = first[-1].response.output_text  # type: ignore[union-attr]
    assert again.get_final_response().output_text == answered


def resumed_stream(c: openai.OpenAI) -> list[Any]:
    """Read a background stream's first events, then the rest from where it was left,
    the first stream still open."""
    first = c.responses.create(model=MODEL, input="hi", background=True, stream=True)
    read = [next(iter(first)) for _ in range(3)]
    again = c.responses.retrieve(
        read[0].response.id, stream=True, starting_after=read[-1].sequence_number
    )
    events = [*read, *again]
    first.close()
    return [[e.type, getattr(e, "item_id", None)] for e in events]


def test_a_stream_resumed_while_still_open_replays_with_stable_ids(
    sim: Simulator, tmp_path: Path
) -> None:
    """A stream still read when its response was retrieved from where it was left had not
    yet given its ids their stable forms: the retrieval was stored naming the live id, and
    its replay, asked with the stable id the replayed stream handed out, missed."""
    store = tmp_path / "resumed.jsonl"
    live = resumed_stream(client(store, "record-missing", sim.openai_base_url))
    with block_network():
        replayed = resumed_stream(client(store, "replay", None))
    assert without_ids(replayed) == without_ids(live)


def test_stream_deltas_carry_the_api_s_obfuscation_unless_told_not_to(sim: Simulator) -> None:
    """The API pads each delta of text and of a call's arguments with ``obfuscation``,
    letters and digits, unless ``include_obfuscation`` is false; the simulator's deltas had
    none, so a fixture recorded from it lacked a field every live recording holds."""
    c = openai.OpenAI(api_key=KEY, base_url=sim.openai_base_url, max_retries=0)

    def pads(events: Any) -> list[Any]:
        deltas = [e for e in events if e.type.endswith(".delta")]
        assert deltas
        return [(e.model_extra or {}).get("obfuscation") for e in deltas]

    called = pads(c.responses.create(model=MODEL, input=QUESTION, tools=TOOLS, stream=True))
    said = list(c.responses.create(model=MODEL, input="hi", stream=True))
    for pad in [*called, *pads(said)]:
        assert re.fullmatch(r"[A-Za-z0-9]{1,15}", pad), pad
    unpadded = c.responses.create(
        model=MODEL, input="hi", stream=True, stream_options={"include_obfuscation": False}
    )
    assert set(pads(unpadded)) == {None}
    response_id = said[0].response.id  # type: ignore[union-attr]
    assert pads(c.responses.retrieve(response_id, stream=True)) == pads(said)
    again = c.responses.retrieve(response_id, stream=True, include_obfuscation=False)
    assert set(pads(again)) == {None}


def test_an_answer_names_the_snapshot_a_model_alias_points_at(sim: Simulator) -> None:
    """The API answers a request for ``gpt-4.1`` as ``gpt-4.1-2025-04-14``, in the response
    and each of its stream's lifecycle events; the simulator named the alias asked for."""
    c = openai.OpenAI(api_key=KEY, base_url=sim.openai_base_url, max_retries=0)
    assert c.responses.create(model="gpt-4.1", input="hi").model == "gpt-4.1-2025-04-14"
    events = list(c.responses.create(model="o4-mini", input="hi", stream=True))
    lifecycle = ("response.created", "response.in_progress", "response.completed")
    named = {e.response.model for e in events if e.type in lifecycle}  # type: ignore[union-attr]
    assert named == {"o4-mini-2025-04-16"}
    for asked in ("gpt-4.1-2025-04-14", MODEL):  # a snapshot, a model of its own: as asked
        assert c.responses.create(model=asked, input="hi").model == asked


def test_a_response_not_stored_is_neither_retrieved_nor_continued() -> None:
    """``store: false`` kept the response all the same, so a later turn continuing it
    was answered by the simulator and refused live; then the refusal said the response
    was one replayed from fixtures, to record anew, which refuses it again."""
    with Simulator(behavior="echo") as echo:
        c = openai.OpenAI(api_key=KEY, base_url=echo.openai_base_url, max_retries=0)
        made = c.responses.create(model=MODEL, input=QUESTION, store=False)
        with pytest.raises(openai.NotFoundError, match="Response with id") as raised:
            c.responses.retrieve(made.id)
        assert "made with store=false" in raised.value.message
        with pytest.raises(openai.BadRequestError, match="Previous response with id") as refused:
            c.responses.create(model=MODEL, input="And?", previous_response_id=made.id)
        assert "made with store=false" in refused.value.message
        assert "replayed" not in refused.value.message


def _error(status: int, message: str) -> dict[str, Any]:
    return {"status": status, "body": {"error": {"message": message}}}


def _typed(status: int, message: str, kind: str) -> dict[str, Any]:
    return {"status": status, "body": {"error": {"message": message, "type": kind}}}


def _google(status: int, message: str) -> dict[str, Any]:
    return {"status": status, "body": {"error": {"message": message, "status": "NOT_FOUND"}}}


@pytest.mark.parametrize(
    ("path", "record", "unserved"),
    [
        ("/v1/nowhere", _error(404, "no model x"), True),
        ("/v1/models/x", _typed(404, "The model 'x' does not exist", "invalid_request"), False),
        ("/v1/files/f", _typed(404, "File not found: f", "not_found_error"), False),
        ("/v1/files/f", _typed(404, "Invalid URL (GET /v1/files/f)", "invalid_request"), True),
        ("/v1/files/f", _typed(404, "Not Found", "not_found_error"), True),
        ("/v1/responses", {"status": 404, "text": "404 page not found"}, True),
        ("/v1/responses", _error(404, "Invalid URL (POST /v1/responses)"), True),
        ("/v1/messages", _error(404, "Not Found"), True),
        ("/v1/responses", _error(404, "The model `x` does not exist"), False),
        ("/v1/messages", _error(404, "model: claude-x"), False),
        ("/v1/nowhere", _error(400, "bad"), False),
        ("/v1/conversations/conv_1", _error(405, "Invalid URL (PATCH /v1/conversations/c)"), True),
        ("/v1/nowhere", _error(405, "Method Not Allowed"), False),
        ("/v1beta/models/x", _google(404, "models/x is not found for API version v1beta."), False),
        ("/v1beta/models/x", _google(404, "Not Found"), True),
    ],
)
def test_unserved_route_tells_a_route_from_a_resource(
    path: str, record: dict[str, Any], unserved: bool
) -> None:
    assert unserved_route(path, record) is unserved


# -- the simulator's validation, auth and faults -------------------------------------


def _post(sim: Simulator, body: Any, **headers: str) -> httpx2.Response:
    auth = {"authorization": f"Bearer {KEY}", **headers}
    return httpx2.post(f"{sim.openai_base_url}/responses", json=body, headers=auth)


def _body(input_: Any = "hi", **fields: Any) -> dict[str, Any]:
    return {"model": MODEL, "input": input_, **fields}


STRAY_OUTPUT = {"type": "function_call_output", "call_id": "call_9", "output": "x"}


@pytest.mark.parametrize(
    ("body", "param", "words"),
    [
        ({"input": "hi"}, "model", "Missing required parameter: 'model'"),
        ({"model": MODEL}, "input", "Missing required parameter: 'input'"),
        (_body({"a": 1}), "input", "expected one of a string or array"),
        (_body([{"role": "bot", "content": "x"}]), "input[0].role", "'bot'"),
        (_body([{"type": "image"}]), "input[0].type", "'image'"),
        (_body([{"type": "function_call", "call_id": "c"}]), "input[0].name", "Missing"),
        (_body(max_output_tokens=5), "max_output_tokens", ">= 16"),
        (_body(stream="yes"), "stream", "boolean"),
        (_body(instructions=3), "instructions", "string"),
        (_body(tools=[{"type": "function"}]), "tools[0].name", "Missing"),
        (
            _body([STRAY_OUTPUT]),
            "input",
            "No tool call found for function call output with call_id",
        ),
        (
            _body(previous_response_id="resp_unknown"),
            "previous_response_id",
            "Previous response with id 'resp_unknown' not found",
        ),
    ],
)
def test_simulator_refuses_invalid_requests_in_openai_shape(
    sim: Simulator, body: dict[str, Any], param: str, words: str
) -> None:
    reply = _post(sim, body)
    assert reply.status_code == 400
    error = reply.json()["error"]
    assert error["type"] == "invalid_request_error"
    assert error["param"] == param
    assert words in error["message"]


def test_a_stored_prompt_without_input_is_the_simulator_s_own_refusal(sim: Simulator) -> None:
    """The API takes a stored prompt for the whole input; the simulator, which holds none,
    answered 'Missing required parameter: input', which a recording stored as the API's."""
    reply = _post(sim, {"model": MODEL, "prompt": {"id": "pmpt_1", "variables": {"a": "b"}}})
    assert reply.status_code == 400, reply.text
    assert "holds no stored prompt ('pmpt_1')" in reply.json()["error"]["message"]
    assert simulator_refusal({"body": reply.json()}) is not None  # a recording keeps none


@pytest.mark.parametrize(
    "item",
    [
        {"type": "mcp_approval_response", "approval_request_id": "mcpr_1", "approve": True},
        {"type": "mcp_call", "id": "mcp_1", "server_label": "dice", "name": "roll"},
        {"type": "item_reference", "id": "msg_1"},
    ],
)
def test_an_item_the_api_takes_and_the_simulator_does_not_is_its_own_refusal(
    sim: Simulator, item: dict[str, Any]
) -> None:
    """An MCP approval given back (the Agents SDK's HostedMCPTool) was refused as the API's
    own 'Invalid value ... Supported values are', which a recording stored as the API's."""
    reply = _post(sim, _body([{"role": "user", "content": "roll"}, item]))
    assert reply.status_code == 400, reply.text
    error = reply.json()["error"]
    assert error["message"].startswith(f"input[1].type: the simulator takes no {item['type']!r}")
    assert simulator_refusal({"body": reply.json()}) is not None  # a recording keeps none


def test_simulator_needs_a_bearer_key_and_serves_only_post(sim: Simulator) -> None:
    unauthenticated = httpx2.post(f"{sim.openai_base_url}/responses", json={"model": MODEL})
    assert unauthenticated.status_code == 401
    assert "API key" in unauthenticated.json()["error"]["message"]
    listed = httpx2.get(f"{sim.openai_base_url}/responses", headers={"authorization": "Bearer k"})
    assert listed.status_code == 405


def test_input_tokens_are_counted_as_an_answer_spends_them() -> None:
    """``POST /v1/responses/input_tokens`` (pydantic-ai's ``count_tokens_before_request``)
    was answered 405 (``Invalid URL``), which a recording stored as the API's answer."""
    asked: dict[str, Any] = {"input": QUESTION, "instructions": INSTRUCTIONS, "tools": TOOLS}
    with Simulator(behavior="echo") as echo:
        c = openai.OpenAI(api_key=KEY, base_url=echo.openai_base_url, max_retries=0)
        counted = c.responses.input_tokens.count(model=MODEL, **asked)
        answered = c.responses.create(model=MODEL, **asked)
        later = c.responses.input_tokens.count(input="And?", previous_response_id=answered.id)
        alone = c.responses.input_tokens.count(input="And?")
    assert counted.object == "response.input_tokens"
    assert counted.input_tokens == answered.usage.input_tokens > 0
    assert later.input_tokens > alone.input_tokens  # the conversation it continues counts


def test_previous_response_needs_the_calls_it_offered(sim: Simulator) -> None:
    first = _post(sim, {"model": MODEL, "input": QUESTION, "tools": TOOLS}).json()
    (call,) = [item for item in first["output"] if item["type"] == "function_call"]
    answer = {"type": "function_call_output", "call_id": call["call_id"], "output": "{}"}
    follow = {"model": MODEL, "previous_response_id": first["id"], "input": [answer]}
    assert _post(sim, follow).status_code == 200
    stray = {**answer, "call_id": "call_other"}
    refused = _post(sim, {**follow, "input": [stray]})
    assert refused.status_code == 400
    assert "call_other" in refused.json()["error"]["message"]


def test_an_item_the_continued_response_holds_given_again_is_a_duplicate(sim: Simulator) -> None:
    """An agent giving back the output of the response it continues by
    ``previous_response_id`` (or of the ``conversation`` it names) is refused by the API,
    which holds those items already; the simulator answered it, so such an agent recorded
    green and failed on the API."""
    first = _post(sim, {"model": MODEL, "input": QUESTION, "tools": TOOLS}).json()
    (call,) = [item for item in first["output"] if item["type"] == "function_call"]
    answer = {"type": "function_call_output", "call_id": call["call_id"], "output": "{}"}
    stateless = {"model": MODEL, "tools": TOOLS, "input": [*first["output"], answer]}
    assert _post(sim, stateless).status_code == 200  # the history, with no previous response
    chained = {**stateless, "previous_response_id": first["id"]}
    second = _post(sim, {**chained, "input": [answer]})
    assert second.status_code == 200
    twice = {**stateless, "input": [*first["output"], *first["output"], answer]}
    later = {  # the first response's call, two responses on
        "model": MODEL,
        "tools": TOOLS,
        "previous_response_id": second.json()["id"],
        "input": [call, {"type": "message", "role": "user", "content": "And?"}],
    }
    for request in (twice, chained, later):
        refused = _post(sim, request)
        assert refused.status_code == 400, refused.text
        assert refused.json()["error"] == {
            "message": f"Duplicate item found with id {call['id']}. Remove duplicate items "
            "from your input and try again.",
            "type": "invalid_request_error",
            "param": "input",
            "code": None,
        }


def test_conversations_are_bounded_oldest_first() -> None:
    kept = Conversations(limit=2)
    for n in range(3):
        kept.remember(f"resp_{n}", [Message.user(str(n))])
    assert len(kept) == 2
    assert kept.history("resp_0") is None
    assert kept.history("resp_2") == (Message.user("2"),)


def _stream_events(sim_: Simulator) -> list[Any]:
    with openai.OpenAI(api_key=KEY, base_url=sim_.openai_base_url, max_retries=0) as c:
        return list(c.responses.create(model=MODEL, input=QUESTION, stream=True))


def test_faults_reach_the_responses_endpoint() -> None:
    with (
        Simulator(behavior="echo", faults=["429", "sse-error", "cut-stream"]) as faulty,
        openai.OpenAI(api_key=KEY, base_url=faulty.openai_base_url, max_retries=0) as c,
    ):
        with pytest.raises(openai.RateLimitError):
            c.responses.create(model=MODEL, input=QUESTION)
        events = _stream_events(faulty)
        assert events[-1].type == "error"
        assert "response.completed" not in [e.type for e in events]
        with pytest.raises(openai.APIConnectionError):
            _stream_events(faulty)


def test_drift_changes_plain_and_streamed_responses() -> None:
    with (
        Simulator(behavior="echo", drift="add-field:usage.foo=1,drop-field:tools") as drifted,
        openai.OpenAI(api_key=KEY, base_url=drifted.openai_base_url, max_retries=0) as c,
    ):
        body = c.responses.with_raw_response.create(
            model=MODEL, input=QUESTION
        ).http_response.json()
        assert body["usage"]["foo"] == 1 and "tools" not in body
        (completed,) = [e for e in _stream_events(drifted) if e.type == "response.completed"]
        assert completed.response.model_dump()["usage"]["foo"] == 1


# -- the engine boundary ---------------------------------------------------------------


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_recording_and_replay_models_speak_the_responses_api(
    sim: Simulator, tmp_path: Path
) -> None:
    store = tmp_path / "wire.jsonl"
    tools = [ToolSpec("search_corpus", "Search the corpus.", TOOLS[0]["parameters"])]
    settings: dict[str, Any] = {"model": MODEL, "max_tokens": 64, "system": INSTRUCTIONS}
    with openai.OpenAI(api_key=KEY, base_url=sim.openai_base_url, max_retries=0) as sdk:
        live = OpenAIResponsesModel(sdk, model=MODEL, max_tokens=64)
        recorder = RecordingModel(
            live, store, approve_live=True, interface="openai.responses", source="sim",
            sanitize=STABLE, **settings,
        )  # fmt: skip
        recorded = recorder.complete([Message.user(QUESTION)], tools)
    assert recorded.stop_reason == "tool_use" and recorded.tool_calls[0].name == "search_corpus"
    (fixture,) = FixtureStore.open(store)
    assert fixture.request["instructions"] == INSTRUCTIONS
    assert fixture.request["max_output_tokens"] == 64
    assert fixture.response["id"].startswith("resp_rg_")
    replayer = ReplayModel(store, interface="openai.responses", sanitize=STABLE, **settings)
    with block_network():
        assert replayer.complete([Message.user(QUESTION)], tools) == recorded
        with pytest.raises(FixtureMismatchError):
            replayer.complete([Message.user(QUESTION + " Briefly.")], tools)


def test_a_recording_model_of_another_interface_than_its_live_model_is_refused(
    tmp_path: Path,
) -> None:
    store = tmp_path / "wire.jsonl"
    live = OpenAIResponsesModel(object(), model=MODEL, max_tokens=64)
    with pytest.raises(ValueError) as refused:
        RecordingModel(live, store, approve_live=True, model=MODEL, max_tokens=64)
    assert "interface='anthropic.messages' builds them: pass interface='openai.responses'" in str(
        refused.value
    )
    assert not store.exists()


@given(
    messages=conversations(tool_errors=False),
    tools=st.lists(tool_specs, max_size=3),
    system=systems,
)
def test_request_round_trip(
    messages: list[Message], tools: list[ToolSpec], system: str | None
) -> None:
    request = to_responses_request(messages, tools, model="m", max_tokens=64, system=system)
    assert json.loads(json.dumps(request)) == request
    assert from_responses_request(request) == (messages, tools, system)


@given(response=responses)
def test_response_round_trip(response: ModelResponse) -> None:
    wire = to_responses_response(response, model="m")
    expected = response
    if response.stop_reason not in ("max_tokens", "refusal"):  # said by the output items
        expected = replace(response, stop_reason="tool_use" if response.tool_calls else "end_turn")
    assert from_responses_response(wire) == expected


def test_an_answer_cut_at_its_limit_has_its_message_incomplete_or_none() -> None:
    """As the API gives it: the message cut short is ``incomplete`` too, and an answer
    cut before it said anything has no message (an empty one was given)."""
    cut = to_responses_response(ModelResponse(text="Keep-al", stop_reason="max_tokens"), model="m")
    assert (cut["status"], cut["incomplete_details"]) == (
        "incomplete",
        {"reason": "max_output_tokens"},
    )
    assert [(item["type"], item["status"]) for item in cut["output"]] == [("message", "incomplete")]
    nothing = to_responses_response(ModelResponse(stop_reason="max_tokens"), model="m")
    assert (nothing["status"], nothing["output"]) == ("incomplete", [])
    said = to_responses_response(ModelResponse(text="Hi"), model="m")
    assert [(item["type"], item["status"]) for item in said["output"]] == [("message", "completed")]


def test_interface_is_registered_with_its_version() -> None:
    interface = get_interface("openai.responses")
    assert (interface.name, interface.version) == ("openai.responses", "v1")


def test_request_reads_system_messages_and_skips_reasoning() -> None:
    request = {
        "model": "m",
        "input": [
            {"role": "developer", "content": [{"type": "input_text", "text": "Be brief."}]},
            {"type": "reasoning", "id": "rs_1", "summary": []},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
            {"type": "function_call", "call_id": "call_1", "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "call_1", "output": "ok"},
        ],
    }
    messages, tools, system = from_responses_request(request)
    assert system == "Be brief." and tools == []
    assert messages == [
        Message.user("hi"),
        Message.assistant("", [ToolCall("call_1", "f", {})]),
        Message.tool_result("call_1", "ok"),
    ]


BAD_CALL = {"type": "function_call", "call_id": "c", "name": "f", "arguments": "[1]"}


@pytest.mark.parametrize(
    ("parse", "wire", "path"),
    [
        (from_responses_request, {"model": "m"}, "request.input"),
        (from_responses_request, {"input": [3]}, "request.input[0]"),
        (from_responses_request, {"input": [{"type": "image"}]}, "request.input[0].type"),
        (from_responses_request, {"input": [{"role": "bot"}]}, "request.input[0].role"),
        (from_responses_request, {"input": "x", "instructions": 1}, "request.instructions"),
        (from_responses_response, {"output": [BAD_CALL]}, "response.output[0].arguments"),
        (
            from_responses_response,
            {"output": [], "status": "incomplete", "incomplete_details": {"reason": "x"}},
            "response.incomplete_details.reason",
        ),
        (from_responses_response, {"output": [], "status": "failed"}, "response.status"),
    ],
)
def test_malformed_wire_names_the_field(parse: Callable[[Any], Any], wire: Any, path: str) -> None:
    with pytest.raises(WireFormatError) as caught:
        parse(wire)
    assert caught.value.path == path


# -- sanitizing a Responses stream ------------------------------------------------------

EMAIL = "alice.w@corp-mail.com"


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_an_address_split_across_text_deltas_never_reaches_disk(tmp_path: Path) -> None:
    config = SanitizeConfig(personal_data=("email",))
    store = tmp_path / "echo.jsonl"
    args: dict[str, Any] = {"model": MODEL, "input": f"please write to {EMAIL} today"}

    def ask(c: openai.OpenAI) -> tuple[str, str]:
        with c, c.responses.stream(**args) as stream:
            deltas = "".join(e.delta for e in stream if e.type == "response.output_text.delta")
            return deltas, stream.get_final_response().output_text

    with Simulator(behavior="echo", chunk_size=4) as echo:
        http = httpx2_client(store, "record-missing", approve_live=True, sanitize=config)
        live = ask(openai.OpenAI(api_key=KEY, base_url=echo.openai_base_url, http_client=http))
    assert EMAIL in live[0]
    assert EMAIL.encode() not in store.read_bytes()
    with block_network():
        http = httpx2_client(store, "replay", sanitize=config)
        deltas, final = ask(openai.OpenAI(api_key=KEY, http_client=http))
    assert deltas == final  # the joined deltas carry the same redacted text as the end
    assert EMAIL not in final and re.search(r"user-[0-9a-f]{8}@example\.com today", final)


@pytest.mark.parametrize("streamed", [False, True])
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_trimmed_fixture_still_replays(sim: Simulator, tmp_path: Path, streamed: bool) -> None:
    config = SanitizeConfig(trim={"openai.responses": ("model",)})
    store = tmp_path / "trimmed.jsonl"

    def ask(c: openai.OpenAI) -> str:
        with c:
            if streamed:
                with c.responses.stream(model=MODEL, input=QUESTION) as stream:
                    return stream.get_final_response().output_text
            return c.responses.create(model=MODEL, input=QUESTION).output_text

    http = httpx2_client(store, "record-missing", approve_live=True, sanitize=config)
    live = ask(openai.OpenAI(api_key=KEY, base_url=sim.openai_base_url, http_client=http))
    (fixture,) = FixtureStore.open(store)
    events = fixture.response.get("events") or []
    bodies = [fixture.response.get("body")] if not streamed else [
        json.loads(e["data"])["response"] for e in events if '"response"' in e["data"]
    ]  # fmt: skip
    kept = {"id", "model", "output", "status", "incomplete_details", "usage"}
    assert bodies and all(set(body) == kept for body in bodies)
    with block_network():
        http = httpx2_client(store, "replay", sanitize=config)
        assert ask(openai.OpenAI(api_key=KEY, http_client=http)) == live


# -- drift: recorded requests re-sent to the live API ------------------------------------


@pytest.mark.slow  # a drift check against the simulator
def test_live_drift_re_sends_http_and_wire_fixtures(sim: Simulator, tmp_path: Path) -> None:
    store = tmp_path / "drift.jsonl"
    with client(store, "record-missing", sim.openai_base_url) as recording:
        streamed(recording)
    with openai.OpenAI(api_key=KEY, base_url=sim.openai_base_url, max_retries=0) as sdk:
        live = OpenAIResponsesModel(sdk, model=MODEL, max_tokens=64)
        recorder = RecordingModel(
            live, store, approve_live=True, model=MODEL, max_tokens=64, interface="openai.responses"
        )
        recorder.complete([Message.user(QUESTION)], [])
    with (
        Simulator(behavior=ResearchPolicy(), drift="add-field:usage.foo=1") as drifted,
        contextlib.closing(LiveSender(drifted.url)) as sender,
    ):
        report = drift_live(store, 5, sender, approve_live=True)
        assert {r.path for r in drifted.requests} == {"/v1/responses"}
    assert not report.errors
    (found,) = report.interfaces
    assert found.interface == "openai.responses"
    assert "usage.foo" in found.only_new
    assert "events[response.completed].response.usage.foo" in found.only_new


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_miss_of_a_later_turn_names_that_turn_as_nearest(sim: Simulator, tmp_path: Path) -> None:
    # a string input held no conversation to compare, and every field but it was one hash:
    # the store's first fixture was named nearest, with a field that is not what changed
    store = tmp_path / "turns.jsonl"

    def turns(replaying: openai.OpenAI, second: str) -> None:
        first = replaying.responses.create(model=MODEL, input="What is RAG?")
        replaying.responses.create(model=MODEL, input=second, previous_response_id=first.id)

    with client(store, "record-missing", sim.openai_base_url) as recording:
        turns(recording, "And in one word?")
    with (
        block_network(),
        client(store, "replay", None) as replaying,
        pytest.raises(FixtureMismatchError) as caught,
    ):
        turns(replaying, "And in two words?")
    assert f"at {store}:2 " in str(caught.value)
    assert caught.value.differences == ("body.input: 'And in one word?' != 'And in two words?'",)


def test_a_setting_or_metadata_the_api_refuses_is_refused(sim: Simulator) -> None:
    """A setting of a few words given one the API does not know (``service_tier``,
    ``truncation``, ``verbosity``, the prompt cache's retention, mode and ttl), and a
    ``metadata`` past the SDK's ``Metadata`` (16 pairs, keys of 64 characters, values of
    512 strings) were answered: a recording was green and failed live at its first call.
    ``fast`` was answered as ``default`` (Chat Completions) or ``fast``, where the API
    serves it as ``priority``."""
    c = openai.OpenAI(api_key=KEY, base_url=sim.openai_base_url, max_retries=0)
    said = [{"role": "user", "content": QUESTION}]
    both: dict[str, dict[str, Any]] = {
        "service_tier": {"service_tier": "turbo"},
        "prompt_cache_retention": {"prompt_cache_retention": "1w"},
        "prompt_cache_options.mode": {"prompt_cache_options": {"mode": "none"}},
        "prompt_cache_options.ttl": {"prompt_cache_options": {"ttl": "5m"}},
        "metadata": {"metadata": {f"k{i}": "v" for i in range(17)}},
        "metadata.long": {"metadata": {"k" * 65: "v"}},
        "metadata.k": {"metadata": {"k": "v" * 513}},
        "metadata.n": {"metadata": {"n": 1}},
    }
    responses_only = {
        "truncation": {"truncation": "middle"},
        "text.verbosity": {"text": {"verbosity": "huge"}},
    }
    chat_only = {"verbosity": {"verbosity": "huge"}, "service_tier.": {"service_tier": "ultrafast"}}
    for param, sent in {**both, **responses_only}.items():
        with pytest.raises(openai.BadRequestError) as raised:
            c.responses.create(model=MODEL, input=QUESTION, extra_body=sent)
        assert raised.value.param in (param, "metadata"), raised.value.message
    for param, sent in {**both, **chat_only}.items():
        with pytest.raises(openai.BadRequestError) as raised:
            c.chat.completions.create(model=MODEL, messages=said, extra_body=sent)
        assert raised.value.param in (param, param.rstrip("."), "metadata"), raised.value.message
    fast = c.responses.create(
        model=MODEL, input=QUESTION, service_tier="fast", metadata={"a": "b"}, truncation="auto"
    )
    chat = c.chat.completions.create(model=MODEL, messages=said, service_tier="fast")
    assert (fast.service_tier, fast.metadata, chat.service_tier) == (
        "priority",
        {"a": "b"},
        "priority",
    )


def test_a_format_name_stop_or_identifier_the_api_refuses_is_refused(sim: Simulator) -> None:
    """A JSON schema format without a name or with one the API would not take (``"bad
    name!"``), a ``safety_identifier`` over 128 characters, more than 4 Chat Completions
    ``stop`` sequences and ``top_logprobs`` without ``logprobs`` were answered, where the
    SDK says the API refuses them: a recording was green and failed live."""
    c = openai.OpenAI(api_key=KEY, base_url=sim.openai_base_url, max_retries=0)
    said = [{"role": "user", "content": QUESTION}]
    schema = {"type": "object", "properties": {}, "additionalProperties": False}
    formats = {"name": "bad name!", "schema": schema, "strict": True}
    responses = {
        "text.format.name": {"text": {"format": {"type": "json_schema", **formats}}},
        "safety_identifier": {"safety_identifier": "u" * 129},
    }
    chats = {
        "response_format.json_schema.name": {
            "response_format": {"type": "json_schema", "json_schema": {"schema": schema}}
        },
        "safety_identifier": {"safety_identifier": "u" * 129},
        "stop": {"stop": ["a", "b", "c", "d", "e"]},
        "top_logprobs": {"top_logprobs": 2},
    }
    for param, sent in responses.items():
        with pytest.raises(openai.BadRequestError) as raised:
            c.responses.create(model=MODEL, input=QUESTION, extra_body=sent)
        assert raised.value.param == param, raised.value.message
    for param, sent in chats.items():
        with pytest.raises(openai.BadRequestError) as raised:
            c.chat.completions.create(model=MODEL, messages=said, extra_body=sent)
        assert raised.value.param == param, raised.value.message
    named = {"type": "json_schema", "json_schema": {"name": "answer-1", "schema": schema}}
    taken = c.chat.completions.create(
        model=MODEL,
        messages=said,
        response_format=named,
        stop=["x"] * 4,
        logprobs=True,
        top_logprobs=2,
    )
    assert taken.choices[0].message.content is not None


def test_a_reasoning_model_given_max_tokens_or_stop_is_refused(sim: Simulator) -> None:
    """Chat Completions with ``max_tokens`` for a reasoning model, which the SDK says is
    not compatible with them, and ``stop`` for ``o3`` or ``o4-mini``, which it says they do
    not support, were answered: a recording was green and failed live."""
    c = openai.OpenAI(api_key=KEY, base_url=sim.openai_base_url, max_retries=0)
    said = [{"role": "user", "content": QUESTION}]
    for model, sent in (
        ("o4-mini", {"max_tokens": 64}),
        ("openai/gpt-5", {"max_tokens": 64}),
        ("o3-2025-04-16", {"stop": ["x"]}),
        ("gpt-5-mini", {"stop": ["x"]}),  # as smolagents' CodeAgent sends it: answered
        ("gpt-5.1", {"stop": "Observation:"}),
    ):
        with pytest.raises(openai.BadRequestError, match="Unsupported parameter") as raised:
            c.chat.completions.create(model=model, messages=said, **sent)
        assert raised.value.param == next(iter(sent))
    taken = c.chat.completions.create(model="o4-mini", messages=said, max_completion_tokens=64)
    plain = c.chat.completions.create(model="gpt-4.1", messages=said, max_tokens=64, stop=["x"])
    chat = c.chat.completions.create(model="gpt-5-chat-latest", messages=said, stop=["x"])
    assert taken.choices[0].message.content and plain.choices[0].message.content
    assert chat.choices[0].message.content


@pytest.mark.parametrize(
    ("model", "sent"),
    [
        ("gpt-5-mini", {"logit_bias": {"50256": -100}}),
        ("gpt-5.1", {"prediction": {"type": "content", "content": "x"}}),
        ("o4-mini", {"presence_penalty": 0.5}),
        ("gpt-5-nano", {"frequency_penalty": 0.1}),
        ("gpt-5.2", {"logprobs": True, "reasoning_effort": "low"}),
    ],
)
def test_a_setting_a_reasoning_model_does_not_take_is_refused(
    sim: Simulator, model: str, sent: dict[str, Any]
) -> None:
    """``logit_bias`` and Predicted Outputs for a GPT-5 model, and a penalty or log
    probabilities for a model reasoning, kept from a model that took them (a ChatOpenAI
    given frequency_penalty, a judge asking logprobs), were answered: the API refuses them
    (``Unsupported parameter: 'logprobs' is not supported with this model.``)."""
    c = openai.OpenAI(api_key=KEY, base_url=sim.openai_base_url, max_retries=0)
    said = [{"role": "user", "content": QUESTION}]
    with pytest.raises(openai.BadRequestError) as raised:
        c.chat.completions.create(model=model, messages=said, **sent)
    param = next(iter(sent))
    assert (raised.value.param, raised.value.code) == (param, "unsupported_parameter")
    assert str(raised.value.message).endswith(f"'{param}' is not supported with this model.")


def test_a_reasoning_model_not_reasoning_takes_penalties_and_logprobs(sim: Simulator) -> None:
    c = openai.OpenAI(api_key=KEY, base_url=sim.openai_base_url, max_retries=0)
    said = [{"role": "user", "content": QUESTION}]
    for model, effort in (("gpt-5.1", None), ("gpt-5.2", "none"), ("gpt-4o", None)):
        asked = {} if effort is None else {"reasoning_effort": effort}
        answer = c.chat.completions.create(
            model=model, messages=said, logprobs=True, presence_penalty=0.5, **asked
        )
        assert answer.choices[0].logprobs is not None


def test_stream_options_or_a_completion_window_the_api_refuses_is_refused(sim: Simulator) -> None:
    """A Responses request giving ``stream_options`` without ``stream: true`` (which the
    SDK says to set only then, and Chat Completions was refused), or a ``2h`` completion
    window without ``background: true``, with a stream or another tier, was answered."""
    c = openai.OpenAI(api_key=KEY, base_url=sim.openai_base_url, max_retries=0)
    window = {"background_options": {"completion_window": "2h"}}
    refused = {
        "stream_options": {"stream_options": {"include_obfuscation": False}},
        "background_options.completion_window": window,
        "background_options.completion_window.": {
            **window,
            "background": True,
            "service_tier": "flex",
        },
        "background_options.completion_window..": {
            "background_options": {"completion_window": "1d"}
        },
    }
    for param, sent in refused.items():
        with pytest.raises(openai.BadRequestError) as raised:
            c.responses.create(model=MODEL, input=QUESTION, extra_body=sent)
        assert raised.value.param == param.rstrip("."), raised.value.message
    queued = c.responses.create(model=MODEL, input=QUESTION, background=True, extra_body=window)
    with c.responses.create(
        model=MODEL, input=QUESTION, stream=True, stream_options={"include_obfuscation": False}
    ) as events:
        kinds = [event.type for event in events]
    assert (queued.status, kinds[-1]) == ("queued", "response.completed")


def test_a_reasoning_item_of_a_response_not_stored_given_back_by_id_is_refused(
    sim: Simulator,
) -> None:
    """A reasoning item of a ``store=False`` response given back without its
    ``encrypted_content`` was taken, where the API keeps no such item and answers 404
    ``Items are not persisted when `store` is set to false``: a recording was green and
    failed live. With its encrypted content, or from a stored response, it is taken."""
    c = openai.OpenAI(api_key=KEY, base_url=sim.openai_base_url, max_retries=0)
    asked = [{"role": "user", "content": QUESTION}, {"role": "user", "content": "And?"}]
    kept = {"include": ["reasoning.encrypted_content"]}
    for store, extra, refused in ((False, {}, True), (False, kept, False), (True, {}, False)):
        made = c.responses.create(model="o4-mini", input=QUESTION, store=store, **extra)
        given = [item.model_dump(exclude_none=True) for item in made.output]
        again = [asked[0], *given, asked[1]]
        if refused:
            with pytest.raises(openai.NotFoundError, match="Items are not persisted"):
                c.responses.create(model="o4-mini", input=again, store=False)
        else:
            assert c.responses.create(model="o4-mini", input=again, store=False).output_text


def test_a_forced_call_of_one_of_the_api_s_own_tools_is_the_simulator_s_refusal(
    sim: Simulator,
) -> None:
    """A ``tool_choice`` forcing a web search, a file search or code interpreter (named,
    or ``required`` with no tool of the code's own) was answered with a plain message,
    where the API runs the tool and answers with its call and result: the recording was
    green on an answer the API never gives. It is now the simulator's own refusal, which
    a recording does not keep; left to the model, or beside a function, it is answered."""
    c = openai.OpenAI(api_key=KEY, base_url=sim.openai_base_url, max_retries=0)
    search: Any = {"type": "web_search"}
    for tools, choice in (
        ([search], "required"),
        ([search], search),
        ([{"type": "file_search", "vector_store_ids": ["vs_1"]}], {"type": "file_search"}),
        ([search], {"type": "allowed_tools", "mode": "required", "tools": [search]}),
    ):
        with pytest.raises(openai.BadRequestError, match="runs none of the API's own") as raised:
            c.responses.create(model=MODEL, input=QUESTION, tools=tools, tool_choice=choice)
        assert raised.value.response.json()["replaygate_simulator_refusal"] is True
    assert c.responses.create(model=MODEL, input=QUESTION, tools=[search]).output
    both = c.responses.create(
        model=MODEL, input=QUESTION, tools=[search, *TOOLS], tool_choice="required"
    )
    assert both.output[-1].type == "function_call"


def test_a_message_part_of_the_other_side_is_refused_as_the_api_refuses_it(sim: Simulator) -> None:
    """An assistant turn given back as an input message of ``input_text`` parts (history
    built by hand), or a user turn of ``output_text``, was taken, where the API refuses
    either (``Invalid value: 'input_text'. Supported values are: 'output_text' and
    'refusal'.``): a recording was green and failed live."""
    c = openai.OpenAI(api_key=KEY, base_url=sim.openai_base_url, max_retries=0)
    said: Any = {"role": "assistant", "content": [{"type": "input_text", "text": "Hi."}]}
    asked: Any = {"role": "user", "content": [{"type": "output_text", "text": QUESTION}]}
    for turns, param in (
        ([asked], "input[0].content[0].type"),
        ([said, asked], "input[0].content[0].type"),
    ):
        with pytest.raises(openai.BadRequestError, match="Invalid value") as raised:
            c.responses.create(model=MODEL, input=turns)
        assert raised.value.param == param
    said["content"][0]["type"] = asked["content"][0]["type"] = "output_text"
    asked["content"][0]["type"] = "input_text"
    assert c.responses.create(model=MODEL, input=[asked, said, asked]).output


def test_an_output_format_or_image_detail_the_api_does_not_know_is_refused(
    sim: Simulator,
) -> None:
    """An output format of a type the API does not know (``text.format``,
    ``response_format``: ``{"type": "yaml"}``) and an image ``detail`` not among the SDK's
    ``ImageDetail`` were answered, as plain text and as an image seen: a recording was
    green and failed live."""
    c = openai.OpenAI(api_key=KEY, base_url=sim.openai_base_url, max_retries=0)
    url = "https://example.com/a.png"
    seen: Any = [
        {"role": "user", "content": [{"type": "input_image", "image_url": url, "detail": "ultra"}]}
    ]
    shown: Any = [
        {
            "role": "user",
            "content": [{"type": "image_url", "image_url": {"url": url, "detail": "ultra"}}],
        }
    ]
    yaml: Any = {"type": "yaml"}
    for call, param in (
        (
            lambda: c.responses.create(model=MODEL, input=QUESTION, text={"format": yaml}),
            "text.format.type",
        ),
        (
            lambda: c.chat.completions.create(
                model=MODEL,
                messages=[{"role": "user", "content": QUESTION}],
                response_format=yaml,
            ),
            "response_format.type",
        ),
        (lambda: c.responses.create(model=MODEL, input=seen), "input[0].content[0].detail"),
        (
            lambda: c.chat.completions.create(model=MODEL, messages=shown),
            "messages[0].content[0].image_url.detail",
        ),
    ):
        with pytest.raises(openai.BadRequestError, match="Invalid value") as raised:
            call()
        assert raised.value.param == param
    seen[0]["content"][0]["detail"] = "original"
    assert c.responses.create(model=MODEL, input=seen).output


def test_an_assistant_turn_saying_nothing_is_refused_as_the_api_refuses_it(sim: Simulator) -> None:
    """A Chat Completions assistant turn with no content and no tool calls (a framework
    keeping an empty turn) was taken, where the API refuses it (``Invalid value for
    'content': expected a string, got null.``): a recording was green and failed live."""
    c = openai.OpenAI(api_key=KEY, base_url=sim.openai_base_url, max_retries=0)
    asked = {"role": "user", "content": QUESTION}
    with pytest.raises(openai.BadRequestError, match="expected a string, got null") as raised:
        c.chat.completions.create(model=MODEL, messages=[asked, {"role": "assistant"}, asked])  # type: ignore[list-item]
    assert raised.value.param == "messages.[1].content"
    refused: Any = {"role": "assistant", "content": None, "refusal": "I can't."}
    assert c.chat.completions.create(model=MODEL, messages=[asked, refused, asked]).choices


def test_a_verbosity_a_model_does_not_take_is_refused_as_the_api_refuses_it(
    sim: Simulator,
) -> None:
    """pydantic-ai's ``openai_text_verbosity='low'`` on ``gpt-4o-mini`` was answered, which
    the API refuses (``Unsupported value: 'verbosity' does not support 'low' with this model.
    Supported values are: 'medium'.``): a recording was green and failed live."""
    c = openai.OpenAI(api_key=KEY, base_url=sim.openai_base_url, max_retries=0)
    said = [{"role": "user", "content": QUESTION}]
    for param, call in (
        ("verbosity", lambda m, v: c.chat.completions.create(model=m, messages=said, verbosity=v)),
        (
            "text.verbosity",
            lambda m, v: c.responses.create(model=m, input=QUESTION, text={"verbosity": v}),
        ),
    ):
        with pytest.raises(openai.BadRequestError) as refused:
            call("gpt-4o-mini", "low")
        message = f"Unsupported value: '{param}' does not support 'low' with this model. "
        assert refused.value.body["message"] == message + "Supported values are: 'medium'."
        assert (refused.value.body["param"], refused.value.code) == (param, "unsupported_value")
        assert call("gpt-4o-mini", "medium")  # the one it takes
        assert call("gpt-5-mini", "high")  # a GPT-5 model takes them all


def test_an_o_series_model_given_a_temperature_is_refused_as_the_api_refuses_it(
    sim: Simulator,
) -> None:
    """``temperature=0`` (or a ``top_p``) kept for repeatable answers from a model that took
    it was answered for an o-series model, which the API refuses (``Unsupported value:
    'temperature' does not support 0 with this model. Only the default (1) value is
    supported.``): a recording was green and failed live."""
    c = openai.OpenAI(api_key=KEY, base_url=sim.openai_base_url, max_retries=0)
    said = [{"role": "user", "content": QUESTION}]
    for call in (
        lambda: c.responses.create(model="o4-mini", input=QUESTION, temperature=0),
        lambda: c.chat.completions.create(model="openai/o3-2025-04-16", messages=said, top_p=0.5),
    ):
        with pytest.raises(openai.BadRequestError, match="Only the default \\(1\\) value"):
            call()
    assert c.responses.create(model="o4-mini", input=QUESTION, temperature=1).output
    assert c.chat.completions.create(model="gpt-4.1", messages=said, temperature=0).choices
