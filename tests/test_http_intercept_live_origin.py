"""``intercept(..., live_origin=sim.url)`` records from the simulator what code built
for the real API sends, so it replays with the same clients.

Recorded with its client pointed at the simulator (``base_url=sim.openai_base_url``), a
framework that shapes its requests by host (the Agents SDK adds ``prompt_cache_key``
for ``api.openai.com`` only) sent another request than when replaying with its client
for the real API: every replay missed. With ``live_origin``, the code keeps its own
clients; what it sends to a model API goes to the simulator and is recorded as
addressed, and the block is offline beyond loopback.
"""

from __future__ import annotations

import http.server
import json
from pathlib import Path
from typing import Any

import httpx2
import pytest

from loopback import serving
from replaygate.errors import LiveSendFailedWarning, ReplayErrorCaughtWarning, UnservedRouteError
from replaygate.http import intercept, learners
from replaygate.http.envelope import is_api_call
from replaygate.network import network_blocked
from replaygate.sim import Simulator
from sdks import openai

HI = [{"role": "user", "content": "hi"}]


def user_code() -> Any:
    """Code as written for production: a client for the real API, shaping its request by
    host as a framework does."""
    client = openai.OpenAI(api_key="test", max_retries=0)
    extra = {"prompt_cache_key": "group-1"} if client.base_url.host == "api.openai.com" else {}
    with client:
        reply = client.chat.completions.create(model="gpt-sim-1", messages=HI, extra_body=extra)
    return reply.choices[0].message.content


@pytest.mark.parametrize("given", ["url", "openai_base_url"])
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_code_built_for_the_real_api_records_from_the_simulator_and_replays(
    tmp_path: Path, given: str
) -> None:
    store = tmp_path / "hi.jsonl"
    with Simulator(behavior="echo") as sim:
        origin = getattr(sim, given)
        with intercept(store, "record-missing", approve_live=True, live_origin=origin) as ex:
            assert network_blocked()
            assert user_code() == "echo: hi"
        assert ex.live_origin is None and len(sim.requests) == 1
    assert '"prompt_cache_key":"group-1"' in store.read_text()
    with intercept(store):
        assert user_code() == "echo: hi"


def sources(store: Path) -> list[str]:
    return [json.loads(line)["meta"]["source"] for line in store.read_text().splitlines()]


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_what_the_simulator_answers_is_recorded_as_its_unless_told(tmp_path: Path) -> None:
    """An answer of the simulator the block sends to was labelled ``live``, as if a paid
    model had given it; a ``source`` given still wins."""
    with Simulator(behavior="echo") as sim:
        for name, given in (("sim.jsonl", {}), ("hand.jsonl", {"source": "hand"})):
            with intercept(
                tmp_path / name, "record-missing", approve_live=True, live_origin=sim.url, **given
            ) as exchange:
                user_code()
            assert exchange.session.source == given.get("source")
    assert sources(tmp_path / "sim.jsonl") == ["sim"]
    assert sources(tmp_path / "hand.jsonl") == ["hand"]


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_simulator_of_another_process_is_recorded_as_the_simulator(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ``replaygate sim serve`` given as the origin (or as the client's base URL), a
    simulator this process does not know of, had its answers labelled ``live``."""
    with Simulator(behavior="echo") as sim, monkeypatch.context() as patched:
        patched.setattr(learners, "_learners", {})  # as another process's simulator is
        store = tmp_path / "served.jsonl"
        with intercept(store, "record-missing", approve_live=True, live_origin=sim.url) as ex:
            user_code()
        assert ex.session.source is None and len(sim.requests) == 1
    assert sources(store) == ["sim"]


@pytest.mark.parametrize(
    "origin", ["https://api.openai.com", "http://10.0.0.1:8080", "127.0.0.1:8080", ""]
)
def test_a_live_origin_beyond_loopback_is_refused(tmp_path: Path, origin: str) -> None:
    with (
        pytest.raises(ValueError, match=r"live_origin: expected a loopback URL .*got '"),
        intercept(tmp_path / "x.jsonl", "record-missing", approve_live=True, live_origin=origin),
    ):
        pass
    assert not (tmp_path / "x.jsonl").exists()


class _Origin(http.server.BaseHTTPRequestHandler):
    """A loopback server of the routes the simulator lacks: the model list and speech."""

    def log_message(self, *args: Any) -> None:
        """Keep the test's output quiet."""

    def _answer(self, body: bytes, kind: str) -> None:
        self.send_response(200)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self._answer(b'{"object":"list","data":[{"id":"m1","object":"model"}]}', "application/json")

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["content-length"]))
        self._answer(SPEECH, "audio/mpeg")


SPEECH = bytes(range(256)) * 4


def other_routes() -> tuple[list[str], bytes]:
    """Calls of the real API's host on routes no interface serves."""
    with openai.OpenAI(api_key="test", max_retries=0) as client:
        models = [model.id for model in client.models.list()]
        speech = client.audio.speech.create(model="tts-1", voice="alloy", input="hi").read()
    return models, speech


def test_every_route_of_the_api_host_goes_to_the_live_origin(tmp_path: Path) -> None:
    """``api.openai.com/v1/models`` and ``/v1/audio/speech``, no model API's paths, were
    sent to the real host, which the block refused: a connection error, nothing recorded."""
    store = tmp_path / "routes.jsonl"
    with (
        serving(_Origin) as origin,
        intercept(store, "record-missing", approve_live=True, live_origin=origin),
    ):
        assert other_routes() == (["m1"], SPEECH)
    with intercept(store):
        assert other_routes() == (["m1"], SPEECH)


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_local_model_server_s_answer_is_not_labelled_the_simulator_s(tmp_path: Path) -> None:
    """A loopback server the code sends to as addressed (Ollama, vLLM) while the block
    records from the simulator gave answers labelled ``sim``, so a miss of them said to
    record them from the simulator again."""
    store = tmp_path / "both.jsonl"
    with (
        Simulator(behavior="echo") as sim,
        serving(_Origin) as local,
        intercept(store, "record-missing", approve_live=True, live_origin=sim.url),
        openai.OpenAI(api_key="test", base_url=f"{local}/v1", max_retries=0) as client,
    ):
        assert user_code() == "echo: hi"
        assert client.audio.speech.create(model="tts-1", voice="alloy", input="hi").read() == SPEECH
    assert sorted(sources(store)) == ["live", "sim"]


def test_a_local_model_server_that_is_down_is_named_as_no_simulator(tmp_path: Path) -> None:
    """A client at a loopback server that is not running (Ollama not started) failed with
    a refused connection and a warning to record again once the live API answers, where
    the recording was to come from the simulator."""
    with (
        Simulator(behavior="echo") as sim,
        intercept(tmp_path / "d.jsonl", "record-missing", approve_live=True, live_origin=sim.url),
        openai.OpenAI(api_key="test", base_url="http://127.0.0.1:9/v1", max_retries=0) as client,
        pytest.warns(LiveSendFailedWarning, match=r"sent as addressed, to a loopback server .*not"),
        pytest.raises(openai.APIConnectionError),
    ):
        client.chat.completions.create(model="llama3.1:8b", messages=HI)


@pytest.mark.parametrize(
    ("host", "calls_the_api"),
    [
        ("api.openai.com", True),
        ("my-resource.openai.azure.com", True),
        ("generativelanguage.googleapis.com", True),
        ("us-central1-aiplatform.googleapis.com", True),
        ("bedrock-runtime.us-east-1.amazonaws.com", True),
        ("bedrock-runtime-fips.us-gov-west-1.amazonaws.com", True),
        ("sts.us-east-1.amazonaws.com", False),  # credentials botocore fetches
        ("oauth2.googleapis.com", False),  # a token a framework fetches: sent as addressed
        ("storage.googleapis.com", False),
        ("example.com", False),
    ],
)
def test_only_a_model_api_host_counts_as_a_call_of_the_api(host: str, calls_the_api: bool) -> None:
    assert is_api_call(host, "/v1/files") is calls_the_api


def test_the_agents_sdk_s_trace_upload_is_no_call_of_the_api() -> None:
    # the OpenAI Agents SDK's exporter, uploading spans during a replayed test, missed as
    # a changed model call of api.openai.com, told to record it
    assert not is_api_call("api.openai.com", "/v1/traces/ingest")
    assert is_api_call("api.openai.com", "/v1/traces")  # no path of the SDK's exporter


def test_a_cloud_s_call_the_simulator_lacks_says_how_else_to_record_it(tmp_path: Path) -> None:
    # a cloud's call the simulator lacks (Llama on Vertex AI), sent to it, was told only to
    # be recorded from the live API or left out: not of a loopback server of one's own
    vertex = (
        "https://us-east5-aiplatform.googleapis.com/v1/projects/p/locations/us-east5/"
        "publishers/meta/models/llama-4:rawPredict"
    )
    with (
        Simulator(behavior="echo") as sim,
        intercept(tmp_path / "b.jsonl", "record-missing", approve_live=True, live_origin=sim.url),
        pytest.raises(UnservedRouteError) as caught,
    ):
        httpx2.post(vertex, json={"max_tokens": 8, "messages": HI})
    said = str(caught.value)
    assert "a cloud's call it lacks such as another publisher's model on Vertex AI" in said
    assert "from a loopback server of yours that answers it" in said and "live_origin" in said


def weather_tool(city: str) -> str:
    """An agent's tool calling a web API, whose error becomes its answer to the model, as
    dspy.ReAct and most agents give it."""
    try:
        return httpx2.get(f"https://api.example.com/weather/{city}").text
    except httpx2.HTTPError as err:
        return f"error: {err}"


def test_a_refusal_the_code_caught_while_recording_from_the_simulator_is_told(
    tmp_path: Path,
) -> None:
    """The block refused a tool's call of a web API while recording from the simulator;
    the agent sent the model the tool's error and the block ended green, recording requests
    that carry the refusal, which no replay sends (it misses there instead)."""
    store = tmp_path / "tool.jsonl"
    sim = "http://127.0.0.1:9"  # no model is called: the simulator is never reached
    with (
        pytest.warns(ReplayErrorCaughtWarning, match="lookup of 'api.example.com' refused"),
        intercept(store, "record-missing", approve_live=True, live_origin=sim),
    ):
        assert weather_tool("Paris").startswith("error: lookup of 'api.example.com' refused")
    with (
        intercept(store, "record-missing", approve_live=True, live_origin=sim),
        pytest.raises(httpx2.ConnectError),  # the block's own code took it: no warning
    ):
        httpx2.get("https://api.example.com/weather/Paris")
