"""Google Gemini through the real ``google-genai`` SDK over loopback HTTP.

The SDK is handed replaygate's ``httpx2`` clients (``HttpOptions(httpx_client=...,
httpx_async_client=...)``; given an async client it does not use aiohttp). Every
interaction is recorded from the in-process simulator, then replayed offline with
the network blocked and the SDK pointed at the real API host. Also: the API key is
never stored, the loud miss, sanitized ids and usage, the simulator's validation,
auth, faults and drift, and the engine converters.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import re
import shutil
import ssl
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

import httpx2
import pytest
from hypothesis import given
from hypothesis import strategies as st

from replaygate.errors import FixtureMismatchError, UnservedRouteError, WireFormatError
from replaygate.fixtures.store import FixtureStore
from replaygate.http import block_network, httpx2_async_client, httpx2_client
from replaygate.http.envelope import interface_of, interface_version_of
from replaygate.hygiene.drift import drift_live
from replaygate.hygiene.resend import LiveSender
from replaygate.models.live import GeminiModel
from replaygate.models.providers.google_gemini import (
    camel_case_request,
    camel_case_schema,
    from_gemini_request,
    from_gemini_response,
    takes_no_arguments,
    to_gemini_request,
    to_gemini_response,
)
from replaygate.models.replay import RecordingModel, ReplayModel
from replaygate.models.types import Message, ModelResponse, ToolCall, ToolSpec
from replaygate.sanitize import SanitizeConfig, Sanitizer
from replaygate.sim import Simulator
from replaygate.sim.research_policy import ResearchPolicy
from sdks import genai
from test_providers import conversations, responses, systems, tool_specs

# Through the google-genai SDK over the simulator: end to end.
pytestmark = pytest.mark.slow

KEY = "AIzaSyTestKeyForTheSimulator0123456789"
MODEL = "gemini-sim-1"
REAL_API = "https://generativelanguage.googleapis.com"
QUESTION = "What is RAG?"
SYSTEM = "Answer in one sentence and cite the document."
STABLE = SanitizeConfig(ids=True, times=True)


def tools() -> list[Any]:
    """The agent's two tools, as the SDK's types."""
    return [
        genai.types.Tool(
            function_declarations=[
                genai.types.FunctionDeclaration(
                    name="search_corpus",
                    description="Search the corpus.",
                    parameters_json_schema={
                        "type": "object",
                        "properties": {"q": {"type": "string"}},
                    },
                ),
                genai.types.FunctionDeclaration(
                    name="fetch_doc",
                    description="Fetch one document.",
                    parameters_json_schema={
                        "type": "object",
                        "properties": {"doc_id": {"type": "string"}},
                    },
                ),
            ]
        )
    ]


TOOL_OUTPUTS = {
    "search_corpus": {"hits": [{"doc_id": "doc-rag", "title": "RAG"}]},
    "fetch_doc": {
        "doc_id": "doc-rag",
        "text": "Retrieval-augmented generation grounds answers in fetched documents.",
    },
}
Result = dict[str, Any]
T = TypeVar("T")


def dump(response: Any) -> Any:
    """A response as data, without the HTTP headers the SDK keeps beside it (a replay
    serves only the headers a fixture keeps)."""
    return response.model_dump(mode="json", exclude={"sdk_http_response"})


@pytest.fixture(scope="module", autouse=True)
def one_tls_context() -> Iterator[None]:
    """The module's ``genai.Client`` objects share one default TLS context.

    Each client builds one for its websockets (reading the whole CA bundle: about 35 ms
    of CPU, 44 clients here) even when it is handed its HTTP clients; no test here opens
    a TLS connection (tests/shared_tls.py does the same for the other SDKs)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ssl, "create_default_context", functools.cache(ssl.create_default_context))
        yield


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    """The research agent's model, without randomness: the same answers in any test order."""
    with Simulator(behavior=ResearchPolicy()) as server:
        yield server


def _made(
    store: Path, mode: str, base_url: str
) -> tuple[genai.Client, httpx2.Client, httpx2.AsyncClient]:
    """A Gemini client recording to (or replaying from) ``store``, and its two HTTP clients
    (the SDK leaves HTTP clients it was given for their owner to close)."""
    approve = mode != "replay"
    options: dict[str, Any] = {"approve_live": approve, "sanitize": STABLE}
    options["source"] = "sim" if approve else None
    http = httpx2_client(store, mode, **options)
    aio = httpx2_async_client(store, mode, **options)
    http_options = genai.types.HttpOptions(
        base_url=base_url, httpx_client=http, httpx_async_client=aio
    )
    return genai.Client(api_key=KEY, http_options=http_options), http, aio


@contextlib.contextmanager
def client(store: Path, mode: str, base_url: str = REAL_API) -> Iterator[genai.Client]:
    """A Gemini client recording to (or replaying from) ``store``, for sync calls; its HTTP
    clients are closed when the block ends (the async one, never used, in a loop of its own)."""
    made, http, aio = _made(store, mode, base_url)
    try:
        with http:
            yield made
    finally:
        asyncio.run(aio.aclose())


@contextlib.asynccontextmanager
async def async_client(
    store: Path, mode: str, base_url: str = REAL_API
) -> AsyncIterator[genai.Client]:
    """As :func:`client`, for async calls: the async HTTP client is closed in their loop."""
    made, http, aio = _made(store, mode, base_url)
    with http:
        async with aio:
            yield made


def through(interact: Callable[[genai.Client], T], store: Path, mode: str, base_url: str) -> T:
    """What ``interact`` returns with a :func:`client` of ``store``, closed after it."""
    with client(store, mode, base_url) as made:
        return interact(made)


def _config(**extra: Any) -> genai.types.GenerateContentConfig:
    settings: dict[str, Any] = {"system_instruction": SYSTEM, "max_output_tokens": 200}
    return genai.types.GenerateContentConfig(**{**settings, **extra})


# -- interactions ------------------------------------------------------------------------


def plain(c: genai.Client) -> Result:
    response = c.models.generate_content(model=MODEL, contents=QUESTION, config=_config())
    return {"final": dump(response), "text": response.text}


def streamed(c: genai.Client) -> Result:
    chunks = list(
        c.models.generate_content_stream(model=MODEL, contents=QUESTION, config=_config())
    )
    return {"chunks": [dump(ch) for ch in chunks],
            "text": "".join(ch.text or "" for ch in chunks)}  # fmt: skip


def tool_loop(c: genai.Client) -> Result:
    """Answer every function call until the model answers in text."""
    contents: list[Any] = [
        genai.types.Content(role="user", parts=[genai.types.Part(text=QUESTION)])
    ]
    turns = []
    while True:
        response = c.models.generate_content(
            model=MODEL, contents=contents, config=_config(tools=tools())
        )
        turns.append(dump(response))
        calls = response.function_calls or []
        if not calls:
            return {"turns": turns, "text": response.text}
        contents.append(response.candidates[0].content)  # type: ignore[index]
        answers = [
            genai.types.Part(
                function_response=genai.types.FunctionResponse(
                    id=call.id, name=call.name, response={"output": TOOL_OUTPUTS[str(call.name)]}
                )
            )
            for call in calls
        ]
        contents.append(genai.types.Content(role="user", parts=answers))


INTERACTIONS: dict[str, Callable[[genai.Client], Result]] = {
    "plain": plain,
    "stream": streamed,
    "tools": tool_loop,
}
_ID = re.compile(r"\b(toolu_|simGemini|rg_)[A-Za-z0-9_]+")


def without_ids(value: Any) -> Any:
    """``value`` with response and call ids blanked (live while recording, stable on replay)."""
    return json.loads(_ID.sub("<id>", json.dumps(value)))


@pytest.fixture(scope="module")
def recorded(
    sim: Simulator, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, tuple[Path, Result]]:
    """Each of :data:`INTERACTIONS` recorded once from the simulator for the module's tests:
    the store it was recorded to, and what it gave live."""
    folder = tmp_path_factory.mktemp("recorded")
    made = {}
    for name, interact in INTERACTIONS.items():
        store = folder / f"{name}.jsonl"
        made[name] = (store, through(interact, store, "record-missing", sim.url))
    return made


def copied(recorded: dict[str, tuple[Path, Result]], name: str, tmp_path: Path) -> Path:
    """A copy of the store ``name`` was recorded to, for one test's own use."""
    return Path(shutil.copy(recorded[name][0], tmp_path / "g.jsonl"))


@pytest.mark.parametrize("name", INTERACTIONS)
def test_record_then_replay_offline(
    recorded: dict[str, tuple[Path, Result]], tmp_path: Path, name: str
) -> None:
    store = copied(recorded, name, tmp_path)
    live = recorded[name][1]
    with block_network():
        replayed = through(INTERACTIONS[name], store, "replay", REAL_API)
        assert through(INTERACTIONS[name], store, "replay", REAL_API) == replayed
    assert without_ids(replayed) == without_ids(live)
    assert live["text"]
    for fixture in FixtureStore.open(store):
        assert fixture.meta is not None
        assert fixture.meta["interface"] == "google.generate_content"
        assert fixture.meta["interface_version"] == "v1"  # the SDK's default API version
        assert fixture.request["headers"] == {}


def test_streamed_and_plain_give_the_same_text(recorded: dict[str, tuple[Path, Result]]) -> None:
    assert recorded["plain"][1]["text"] == recorded["stream"][1]["text"]


def test_tool_round_trip_is_stored_with_stable_ids(
    recorded: dict[str, tuple[Path, Result]],
) -> None:
    store, live = recorded["tools"]
    assert "[doc-rag]" in live["text"] and len(live["turns"]) == 3
    fixtures = list(FixtureStore.open(store))
    for fixture in fixtures:
        assert fixture.response["body"]["responseId"].startswith("rg_")
    follow_up = fixtures[1].request["body"]["contents"]
    call = follow_up[1]["parts"][0]["functionCall"]
    answer = follow_up[2]["parts"][0]["functionResponse"]
    assert call["id"] == answer["id"] and call["id"].startswith("toolu_rg_")


def test_async_client_records_and_replays(sim: Simulator, tmp_path: Path) -> None:
    store = tmp_path / "g.jsonl"

    async def interact(mode: str, base_url: str) -> Result:
        async with async_client(store, mode, base_url) as c:
            answer = await c.aio.models.generate_content(model=MODEL, contents=QUESTION)
            stream = await c.aio.models.generate_content_stream(model=MODEL, contents=QUESTION)
            chunks = [chunk.text async for chunk in stream]
        return {"plain": dump(answer), "chunks": chunks}

    live = asyncio.run(interact("record-missing", sim.url))
    with block_network():
        replayed = asyncio.run(interact("replay", REAL_API))
    assert without_ids(replayed) == without_ids(live)
    assert (
        "".join(replayed["chunks"])
        == replayed["plain"]["candidates"][0]["content"]["parts"][0]["text"]
    )


@pytest.mark.parametrize(
    ("contents", "config", "path"),
    [
        ("What is RAG exactly?", {}, "body.contents[0].parts[0].text"),
        (QUESTION, {"max_output_tokens": 201}, "body.generationConfig.maxOutputTokens"),
    ],
)
def test_a_changed_request_is_a_miss_with_a_diff(
    recorded: dict[str, tuple[Path, Result]],
    tmp_path: Path,
    contents: str,
    config: dict[str, Any],
    path: str,
) -> None:
    store = copied(recorded, "plain", tmp_path)
    with (
        block_network(),
        client(store, "replay") as replaying,
        pytest.raises(FixtureMismatchError) as caught,
    ):
        replaying.models.generate_content(model=MODEL, contents=contents, config=_config(**config))
    assert any(line.startswith(path) for line in caught.value.differences)


def test_another_model_is_a_miss_naming_the_path(
    recorded: dict[str, tuple[Path, Result]], tmp_path: Path
) -> None:
    store = copied(recorded, "plain", tmp_path)
    with (
        block_network(),
        client(store, "replay") as replaying,
        pytest.raises(FixtureMismatchError) as caught,
    ):
        replaying.models.generate_content(model="gemini-other", contents=QUESTION, config=_config())
    assert any(line.startswith("path:") for line in caught.value.differences)


def test_a_stream_asked_for_without_alt_sse_is_a_json_array(sim: Simulator) -> None:
    """The API streams a request without ``alt=sse`` (a client of another language, curl)
    as a JSON array of its chunks; with it, as server-sent events."""
    body = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
    route = f"{sim.url}/v1beta/models/{MODEL}:streamGenerateContent"
    headers = {"x-goog-api-key": KEY}
    with httpx2.Client() as http:
        array = http.post(route, json=body, headers=headers)
        events = http.post(f"{route}?alt=sse", json=body, headers=headers)
    assert array.headers["content-type"] == "application/json"
    chunks = array.json()
    assert chunks[-1]["candidates"][0]["finishReason"] == "STOP"
    assert events.headers["content-type"].startswith("text/event-stream")
    data = [line[6:] for line in events.text.splitlines() if line.startswith("data: ")]
    assert len(data) == len(chunks)


# -- the API key is never stored ---------------------------------------------------------


def test_the_api_key_is_never_stored_in_a_header_or_the_query(
    sim: Simulator, recorded: dict[str, tuple[Path, Result]], tmp_path: Path
) -> None:
    store = copied(recorded, "plain", tmp_path)  # recorded with the x-goog-api-key header
    body = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
    url = f"{sim.url}/v1beta/models/{MODEL}:streamGenerateContent?key={KEY}&alt=sse"
    with httpx2_client(store, "record-missing", approve_live=True) as http:
        assert http.post(url, json=body).status_code == 200
    assert KEY not in store.read_text()
    paths = {f.request["path"] for f in FixtureStore.open(store)}
    assert f"/v1beta/models/{MODEL}:streamGenerateContent?alt=sse" in paths
    # replayed without the key: it is not part of the match
    with block_network(), httpx2_client(store, "replay") as replay:
        again = replay.post(
            f"{REAL_API}/v1beta/models/{MODEL}:streamGenerateContent?alt=sse", json=body
        )
        assert "echo" in again.text or "RAG" in again.text or again.status_code == 200


def test_envelope_paths_name_the_interface_and_version() -> None:
    stream = f"/v1beta/models/{MODEL}:streamGenerateContent?alt=sse"
    plain_path = f"/v1/models/{MODEL}:generateContent"
    assert interface_of(stream) == interface_of(plain_path) == "google.generate_content"
    assert interface_version_of({"path": stream, "headers": {}}) == "v1beta"
    assert interface_version_of({"path": plain_path, "headers": {}}) == "v1"


# -- sanitizing ---------------------------------------------------------------------------


def test_response_id_create_time_and_usage_metadata_are_sanitized() -> None:
    details = [{"modality": "TEXT", "tokenCount": 7}]
    response = {
        "candidates": [{"content": {"role": "model", "parts": [{"text": "hi"}]}, "index": 0}],
        "usageMetadata": {"promptTokenCount": 7, "promptTokensDetails": details},
        "responseId": "Zx3kaPqLCdGr1MkPy6aWsAU",
        "createTime": "2026-12-01T09:00:00.123456Z",
    }
    config = SanitizeConfig(ids=True, times=True, normalize_usage=True)
    stored = Sanitizer(config).response(
        response, key="abc123def456", interface="google.generate_content"
    )
    assert stored["responseId"] == "rg_abc123def456_1"
    assert stored["createTime"] == "1970-01-01T00:00:00Z"
    assert stored["usageMetadata"] == {
        "promptTokenCount": 0,
        "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 0}],
    }
    again = Sanitizer(config).response(
        stored, key="abc123def456", interface="google.generate_content"
    )
    assert again == stored  # a stable id is never rewritten


def test_an_address_split_across_chunks_never_reaches_disk(tmp_path: Path) -> None:
    email = "alice.w@corp-mail.com"
    config = SanitizeConfig(personal_data=("email",))
    store = tmp_path / "g.jsonl"
    with (
        Simulator(behavior="echo", chunk_size=4) as echo,
        httpx2_client(store, "record-missing", approve_live=True, sanitize=config) as http,
    ):
        c = genai.Client(
            api_key=KEY, http_options=genai.types.HttpOptions(base_url=echo.url, httpx_client=http)
        )
        chunks = list(c.models.generate_content_stream(model=MODEL, contents=f"mail {email} now"))
    assert email in "".join(ch.text or "" for ch in chunks) and len(chunks) > 3
    assert email.encode() not in store.read_bytes()
    with block_network(), httpx2_client(store, "replay", sanitize=config) as http:
        c = genai.Client(
            api_key=KEY, http_options=genai.types.HttpOptions(base_url=REAL_API, httpx_client=http)
        )
        text = "".join(
            ch.text or ""
            for ch in c.models.generate_content_stream(model=MODEL, contents=f"mail {email} now")
        )
    assert email not in text and re.search(r"user-[0-9a-f]{8}@example\.com now", text)


def test_a_trimmed_fixture_still_replays(sim: Simulator, tmp_path: Path) -> None:
    config = SanitizeConfig(trim={"google.generate_content": ()})
    store = tmp_path / "g.jsonl"
    with httpx2_client(store, "record-missing", approve_live=True, sanitize=config) as http:
        c = genai.Client(
            api_key=KEY, http_options=genai.types.HttpOptions(base_url=sim.url, httpx_client=http)
        )
        live = c.models.generate_content_stream(model=MODEL, contents=QUESTION)
        live_text = "".join(ch.text or "" for ch in live)
    (fixture,) = FixtureStore.open(store)
    for event in fixture.response["events"]:
        assert set(json.loads(event["data"])) == {"candidates", "usageMetadata"}
    with block_network(), httpx2_client(store, "replay", sanitize=config) as http:
        c = genai.Client(
            api_key=KEY, http_options=genai.types.HttpOptions(base_url=REAL_API, httpx_client=http)
        )
        assert (
            "".join(
                ch.text or ""
                for ch in c.models.generate_content_stream(model=MODEL, contents=QUESTION)
            )
            == live_text
        )


# -- a route the server does not serve ----------------------------------------------------


def test_an_unserved_route_is_refused_and_nothing_is_written(
    sim: Simulator, tmp_path: Path
) -> None:
    store = tmp_path / "g.jsonl"
    with (
        client(store, "record-missing", f"{sim.url}/nowhere") as wrong,
        pytest.raises(
            UnservedRouteError, match=r"POST /nowhere/v1/models/.*:generateContent .*404"
        ),
    ):
        wrong.models.generate_content(model=MODEL, contents=QUESTION)
    assert not store.exists() or not FixtureStore.open(store)


# -- the simulator ------------------------------------------------------------------------


def _post(sim: Simulator, body: Any, *, stream: bool = False, **headers: str) -> httpx2.Response:
    method = "streamGenerateContent?alt=sse" if stream else "generateContent"
    sent = {"x-goog-api-key": KEY, **headers}
    return httpx2.post(f"{sim.url}/v1beta/models/{MODEL}:{method}", json=body, headers=sent)


HI = [{"role": "user", "parts": [{"text": "hi"}]}]


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({}, "contents is not specified"),
        ({"contents": []}, "contents is not specified"),
        ({"contents": {"role": "user"}}, "'contents': expected a list"),
        ({"contents": [{"role": "bot", "parts": [{"text": "x"}]}]}, "valid role: user, model"),
        ({"contents": [{"parts": []}]}, "contents[0].parts: contents.parts must not be empty"),
        ({"contents": [{"parts": [{"nothing": 1}]}]}, "parts[0].data: required oneof"),
        ({"contents": HI, "generationConfig": {"maxOutputTokens": 0}}, "must be positive"),
        ({"contents": HI, "generation_config": {"max_output_tokens": 0}}, "must be positive"),
        ({"contents": HI, "tools": [{"functionDeclarations": [{}]}]}, "Name cannot be empty"),
        ({"contents": HI, "tools": [{"function_declarations": [{}]}]}, "Name cannot be empty"),
        ([1], "Expected an object"),
    ],
)  # fmt: skip
def test_simulator_refuses_invalid_requests_in_google_shape(
    sim: Simulator, body: Any, words: str
) -> None:
    reply = _post(sim, body)
    assert reply.status_code == 400
    error = reply.json()["error"]
    assert (error["code"], error["status"]) == (400, "INVALID_ARGUMENT")
    assert words in error["message"]


def test_simulator_reads_snake_case_field_names_as_the_api_does(sim: Simulator) -> None:
    """LiteLLM's ``gemini/`` provider spells every field in snake_case: the same request."""
    search = {
        "name": "search_corpus",
        "description": "Search the corpus.",
        "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
    }
    camel = {
        "contents": [{"role": "user", "parts": [{"text": QUESTION}]}],
        "systemInstruction": {"parts": [{"text": SYSTEM}]},
        "generationConfig": {"maxOutputTokens": 200},
        "tools": [{"functionDeclarations": [search]}],
    }
    snake = {
        "contents": camel["contents"],
        "system_instruction": camel["systemInstruction"],
        "generation_config": {"max_output_tokens": 200},
        "tools": [{"function_declarations": [search]}],
    }
    answers = [_post(sim, body).json() for body in (camel, snake)]
    for answer in answers:
        del answer["responseId"]  # counts the answers to one conversation
    assert answers[0] == answers[1]
    assert answers[1]["candidates"][0]["content"]["parts"][0]["functionCall"]["name"] == (
        "search_corpus"
    )
    read = from_gemini_request(snake)
    assert read == from_gemini_request(camel)
    assert (read[1][0].name, read[2]) == ("search_corpus", SYSTEM)
    call = {"function_call": {"name": "f", "args": {"mime_type": "caller's own key"}}}
    assert camel_case_request(call) == {
        "functionCall": {"name": "f", "args": call["function_call"]["args"]}
    }


def test_simulator_takes_the_key_from_the_header_or_the_query(sim: Simulator) -> None:
    missing = httpx2.post(f"{sim.url}/v1beta/models/{MODEL}:generateContent", json={"contents": HI})
    assert missing.status_code == 403
    assert missing.json()["error"]["status"] == "PERMISSION_DENIED"
    by_query = httpx2.post(
        f"{sim.url}/v1beta/models/{MODEL}:generateContent?key={KEY}", json={"contents": HI}
    )
    assert by_query.status_code == 200
    assert by_query.json()["modelVersion"] == MODEL
    with (
        genai.Client(api_key=KEY, http_options={"base_url": sim.url}) as unserved,
        pytest.raises(genai.errors.ClientError) as caught,
    ):
        unserved.models.get(model=MODEL)
    assert (caught.value.code, caught.value.status) == (404, "NOT_FOUND")


def test_faults_reach_the_gemini_endpoint() -> None:
    with (
        Simulator(behavior="echo", faults=["429", "500", "sse-error", "cut-stream"]) as faulty,
        genai.Client(api_key=KEY, http_options={"base_url": faulty.url}) as c,
    ):
        with pytest.raises(genai.errors.ClientError) as limited:
            c.models.generate_content(model=MODEL, contents=QUESTION)
        assert (limited.value.code, limited.value.status) == (429, "RESOURCE_EXHAUSTED")
        with pytest.raises(genai.errors.ServerError):
            c.models.generate_content(model=MODEL, contents=QUESTION)
        with pytest.raises(genai.errors.ServerError):
            list(c.models.generate_content_stream(model=MODEL, contents=QUESTION))
        with pytest.raises(httpx2.RemoteProtocolError):
            list(c.models.generate_content_stream(model=MODEL, contents="a longer question " * 5))


def test_drift_changes_plain_and_streamed_responses() -> None:
    with Simulator(
        behavior="echo", drift="add-field:usageMetadata.foo=1,drop-field:modelVersion"
    ) as drifted:
        plain_body = _post(drifted, {"contents": HI}).json()
        assert plain_body["usageMetadata"]["foo"] == 1 and "modelVersion" not in plain_body
        streamed = _post(drifted, {"contents": HI}, stream=True).text
        chunks = [
            json.loads(line[6:]) for line in streamed.splitlines() if line.startswith("data: ")
        ]
        assert chunks and all(c["usageMetadata"]["foo"] == 1 for c in chunks)


# -- the engine boundary --------------------------------------------------------------------


def test_recording_and_replay_models_speak_gemini(sim: Simulator, tmp_path: Path) -> None:
    store = tmp_path / "wire.jsonl"
    tools = [ToolSpec("search_corpus", "Search the corpus.", {"type": "object"})]
    settings: dict[str, Any] = {"model": MODEL, "max_tokens": 64, "system": SYSTEM}
    with genai.Client(api_key=KEY, http_options={"base_url": sim.url}) as sdk:
        live = GeminiModel(sdk, model=MODEL, max_tokens=64)
        recorder = RecordingModel(
            live, store, approve_live=True, interface="gemini", source="sim", sanitize=STABLE,
            **settings,
        )  # fmt: skip
        recorded = recorder.complete([Message.user(QUESTION)], tools)
    assert recorded.stop_reason == "tool_use" and recorded.tool_calls[0].name == "search_corpus"
    assert sim.requests[-1].path == f"/v1beta/models/{MODEL}:generateContent"
    (fixture,) = FixtureStore.open(store)
    assert fixture.request["model"] == MODEL
    assert fixture.request["systemInstruction"] == {"parts": [{"text": SYSTEM}]}
    assert fixture.meta is not None and fixture.meta["interface_version"] == "v1beta"
    replayer = ReplayModel(store, interface="google.generate_content", sanitize=STABLE, **settings)
    with block_network():
        assert replayer.complete([Message.user(QUESTION)], tools) == recorded
        with pytest.raises(FixtureMismatchError):
            ReplayModel(
                store, interface="gemini", sanitize=STABLE, **{**settings, "model": "gemini-other"}
            ).complete([Message.user(QUESTION)], tools)


@given(
    messages=conversations(tool_errors=True),
    tools=st.lists(tool_specs, max_size=3),
    system=systems,
)
def test_request_round_trip(
    messages: list[Message], tools: list[ToolSpec], system: str | None
) -> None:
    """A declaration's parameters are read as the API reads them: a keyword of its own
    schema in snake_case (``any_of``, which a drawn schema may hold) is its camelCase one."""
    request = to_gemini_request(messages, tools, model="m", max_tokens=64, system=system)
    assert json.loads(json.dumps(request)) == request
    read = [  # a tool of no arguments is declared without parameters, as the API takes it
        replace(tool, input_schema={} if takes_no_arguments(s) else camel_case_schema(s))
        for tool, s in ((tool, tool.input_schema) for tool in tools)
    ]
    assert from_gemini_request(request) == (messages, read, system)


@given(response=responses)
def test_response_round_trip(response: ModelResponse) -> None:
    wire = to_gemini_response(response, model="m")
    expected = response
    if response.stop_reason not in ("max_tokens", "refusal"):  # said by the function calls
        expected = replace(response, stop_reason="tool_use" if response.tool_calls else "end_turn")
    assert from_gemini_response(wire) == expected


def test_a_call_without_an_id_is_known_by_its_name() -> None:
    request = {
        "contents": [
            {"role": "user", "parts": [{"text": "hi"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {"a": 1}}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {"n": 2}}}]},
        ]
    }
    messages, _, _ = from_gemini_request(request)
    assert messages[1:] == [
        Message.assistant("", [ToolCall("f", "f", {"a": 1})]),
        Message.tool_result("f", '{"n": 2}'),
    ]
    again = to_gemini_request(messages, [], model="m", max_tokens=8)["contents"]
    assert again[1] == request["contents"][1]  # no id is made up
    assert again[2]["parts"] == [
        {"functionResponse": {"name": "f", "response": {"output": '{"n": 2}'}}}
    ]


def test_a_response_without_an_id_answers_the_call_of_its_name_it_follows() -> None:
    # as google-genai's automatic function calling answers calls the API gave ids:
    # without its id and the function's return under "result"
    searched = {"name": "search_corpus", "args": {"q": "RAG"}}
    request = {
        "contents": [
            {"role": "user", "parts": [{"text": "hi"}]},
            {"role": "model", "parts": [{"functionCall": {**searched, "id": "c1"}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "search_corpus",
                                                             "response": {"result": [1]}}}]},
        ]
    }  # fmt: skip
    messages, _, _ = from_gemini_request(request)
    assert messages[-1] == Message.tool_result("c1", "[1]")


def test_automatic_function_calling_completes_against_the_simulator(sim: Simulator) -> None:
    # the simulator's research agent took the results for no call's and searched until
    # the SDK's limit of 10 calls, answering nothing
    def search_corpus(q: str) -> dict[str, Any]:
        """Search the corpus."""
        return TOOL_OUTPUTS["search_corpus"]

    def fetch_doc(doc_id: str) -> dict[str, Any]:
        """Fetch one document."""
        return TOOL_OUTPUTS["fetch_doc"]

    options = genai.types.HttpOptions(base_url=sim.url)
    with genai.Client(api_key=KEY, http_options=options) as made:
        config = genai.types.GenerateContentConfig(tools=[search_corpus, fetch_doc])
        answer = made.chats.create(model=MODEL, config=config).send_message(QUESTION)
    assert answer.text is not None and answer.text.endswith("[doc-rag].")


def test_a_blocked_prompt_is_a_refusal() -> None:
    blocked = {
        "promptFeedback": {"blockReason": "SAFETY"},
        "usageMetadata": {"promptTokenCount": 3},
    }
    assert from_gemini_response(blocked).stop_reason == "refusal"


COUNTED = {"usageMetadata": {"promptTokenCount": 3}}


@pytest.mark.parametrize(
    ("parse", "wire", "path"),
    [
        (from_gemini_request, {"model": "m"}, "request.contents"),
        (from_gemini_request, {"contents": [{"role": "bot"}]}, "request.contents[0].role"),
        (from_gemini_request, {"contents": [{"parts": [3]}]}, "request.contents[0].parts[0]"),
        (
            from_gemini_request,
            {"contents": [], "tools": [{"functionDeclarations": [{}]}]},
            "request.tools[0].functionDeclarations[0].name",
        ),
        (from_gemini_response, {"candidates": [], **COUNTED}, "response.candidates"),
        (
            from_gemini_response,
            {"candidates": [{"finishReason": "ODD"}], **COUNTED},
            "response.candidates[0].finishReason",
        ),
        (
            from_gemini_response,
            {"candidates": [{"content": {"parts": [{"functionCall": {}}]}}], **COUNTED},
            "response.candidates[0].content.parts[0].functionCall.name",
        ),
    ],
)
def test_malformed_wire_names_the_field(parse: Callable[[Any], Any], wire: Any, path: str) -> None:
    with pytest.raises(WireFormatError) as caught:
        parse(wire)
    assert caught.value.path == path


# -- drift: recorded requests re-sent to the live API --------------------------------------


def test_live_drift_re_sends_http_and_wire_fixtures(
    sim: Simulator, recorded: dict[str, tuple[Path, Result]], tmp_path: Path
) -> None:
    store = tmp_path / "drift.jsonl"  # the plain and the streamed recording, one after the other
    store.write_bytes(b"".join(recorded[name][0].read_bytes() for name in ("plain", "stream")))
    with genai.Client(api_key=KEY, http_options={"base_url": sim.url}) as sdk:
        live = GeminiModel(sdk, model=MODEL, max_tokens=64)
        recorder = RecordingModel(
            live, store, approve_live=True, model=MODEL, max_tokens=64, interface="gemini"
        )
        recorder.complete([Message.user(QUESTION)], [])
    with (
        Simulator(behavior=ResearchPolicy(), drift="add-field:usageMetadata.foo=1") as drifted,
        contextlib.closing(LiveSender(drifted.url)) as sender,
    ):
        report = drift_live(store, 5, sender, approve_live=True)
        paths = {r.path for r in drifted.requests}
        assert all(r.headers["x-goog-api-key"] for r in drifted.requests)
    assert paths == {
        f"/v1/models/{MODEL}:generateContent",
        f"/v1/models/{MODEL}:streamGenerateContent?alt=sse",
        f"/v1beta/models/{MODEL}:generateContent",
    }
    assert not report.errors
    (found,) = report.interfaces
    assert found.interface == "google.generate_content"
    assert "usageMetadata.foo" in found.only_new


def test_a_v1alpha_client_records_from_the_simulator_and_replays(
    sim: Simulator, tmp_path: Path
) -> None:
    # google-genai's HttpOptions(api_version="v1alpha"), its preview features: the
    # simulator served v1 and v1beta alone, so its recording stopped with UnservedRouteError
    alpha = genai.types.HttpOptions(api_version="v1alpha")
    store = tmp_path / "alpha.jsonl"

    def ask(made: genai.Client) -> tuple[str | None, int | None]:
        answer = made.models.generate_content(
            model="gemini-2.5-flash", contents=QUESTION, config=_config(http_options=alpha)
        )
        counted = made.models.count_tokens(
            model="gemini-2.5-flash",
            contents=QUESTION,
            config=genai.types.CountTokensConfig(http_options=alpha),
        )
        return answer.text, counted.total_tokens

    live = through(ask, store, "record-missing", sim.url)
    assert live[0] and live[1]
    assert through(ask, store, "replay", REAL_API) == live
    paths = [json.loads(line)["request"]["path"] for line in store.read_text().splitlines()]
    assert paths == [
        "/v1alpha/models/gemini-2.5-flash:generateContent",
        "/v1alpha/models/gemini-2.5-flash:countTokens",
    ]
