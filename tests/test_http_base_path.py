"""Recording from the simulator, a client whose base URL has a path of its own (an API
gateway's prefix, Azure OpenAI's deployment) is sent to the simulator's route, its
base path taken off, and recorded as it sent the request, base path included. The
client's own steps see the request as addressed: Azure OpenAI's keeps its ``api-key``,
which it drops from a request to another host."""

from __future__ import annotations

from pathlib import Path

import httpx2
import pytest

from replaygate.errors import UnservedRouteError
from replaygate.fixtures.store import FixtureStore
from replaygate.http import block_network, intercept
from replaygate.http.adapter import ToOrigin
from replaygate.http.base_path import api_route, moved_route
from replaygate.sim import Simulator
from sdks import anthropic, openai


@pytest.mark.parametrize(
    ("sent", "route"),
    [
        ("/openai/v1/chat/completions", "/v1/chat/completions"),
        ("/anthropic/v1/messages", "/v1/messages"),
        ("/v2/team/openai/v1/responses", "/v1/responses"),
        ("/gw/v1beta/models/g:generateContent?alt=sse", "/v1beta/models/g:generateContent?alt=sse"),
        ("/openai/deployments/my-deploy/chat/completions", "/v1/chat/completions"),
        (
            "/openai/responses?api-version=2025-03-01-preview",
            "/v1/responses?api-version=2025-03-01-preview",
        ),
        ("/openai/v1/responses", "/v1/responses"),
        ("/v1/conversations/conv_1/items", "/v1/conversations/conv_1/items"),
        ("/page", "/page"),
        ("/v1/openai/chat/completions", "/v1/chat/completions"),  # DeepInfra
        ("/v3/openai/chat/completions", "/v1/chat/completions"),  # Novita
        ("/beta/chat/completions", "/v1/chat/completions"),  # DeepSeek's beta
        ("/chat/completions", "/v1/chat/completions"),  # Perplexity, DeepSeek
        ("/v1beta/openai/responses", "/v1/responses"),  # Gemini's OpenAI compatibility
    ],
)
def test_the_route_of_a_path_after_a_base_path(sent: str, route: str) -> None:
    assert api_route(sent) == route


def _ask_all(gateway: str) -> list[str]:
    gpt = openai.OpenAI(api_key="k", base_url=f"{gateway}/openai/v1", max_retries=0)
    claude = anthropic.Anthropic(api_key="k", base_url=f"{gateway}/anthropic", max_retries=0)
    azure = openai.AzureOpenAI(
        azure_endpoint="https://res.openai.azure.com",
        api_version="2024-10-21",
        api_key="k",
        max_retries=0,
    )
    chat = [{"role": "user", "content": "hi"}]
    return [
        str(gpt.chat.completions.create(model="g", messages=chat).choices[0].message.content),
        str(azure.chat.completions.create(model="dep", messages=chat).choices[0].message.content),
        azure.responses.create(model="dep", input="hi").output_text,  # outside a deployment
        claude.messages.create(model="m", max_tokens=8, messages=chat).content[0].text,
    ]


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_clients_with_a_base_path_record_from_the_simulator_as_sent(tmp_path: Path) -> None:
    store = tmp_path / "gw.jsonl"
    with (
        Simulator(behavior="echo") as sim,
        intercept(store, "record-missing", approve_live=True) as exchange,
    ):
        exchange.live_origin = sim.url
        assert _ask_all("https://gw.example.com") == ["echo: hi"] * 4
    paths = [fixture.request["path"] for fixture in FixtureStore.open(store)]
    assert paths == [
        "/openai/v1/chat/completions",
        "/openai/deployments/dep/chat/completions?api-version=2024-10-21",
        "/openai/responses?api-version=2024-10-21",
        "/anthropic/v1/messages",
    ]
    with intercept(store):
        assert _ask_all("https://gw.example.com") == ["echo: hi"] * 4


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_azure_routes_reach_the_simulator_at_azure_s_paths(tmp_path: Path) -> None:
    """LangChain's ``AzureChatOpenAI`` given no ``model`` sends ``"model": null`` to a
    deployment, which Azure reads from the path: moved to OpenAI's ``/v1`` route, the
    simulator refused it (``you must provide a model parameter``) and nothing recorded."""
    assert moved_route("res.openai.azure.com", "/openai/responses?api-version=v") == (
        "/openai/responses?api-version=v"
    )
    assert moved_route("gw.example.com", "/openai/v1/chat/completions") == "/v1/chat/completions"
    azure_v1 = "/openai/v1/chat/completions"  # Azure's v1 API, Azure's answers
    assert moved_route("res.openai.azure.com", azure_v1) == azure_v1
    assert moved_route("res.openai.azure.com", "/openai/v1/files") == "/v1/files"
    azure = openai.AzureOpenAI(
        azure_endpoint="https://res.openai.azure.com",
        azure_deployment="dep",
        api_version="2024-10-21",
        api_key="k",
    )
    chat = [{"role": "user", "content": "hi"}]
    with (
        Simulator(behavior="echo") as sim,
        intercept(tmp_path / "az.jsonl", "record-missing", approve_live=True) as exchange,
    ):
        exchange.live_origin = sim.url
        reply = azure.with_options(max_retries=0).chat.completions.create(model=None, messages=chat)
    assert reply.choices[0].message.content == "echo: hi"
    assert reply.model == "dep"


COMPATIBLE = (
    "https://api.deepinfra.com/v1/openai",
    "https://api.deepseek.com",
    "https://api.perplexity.ai",
)


def _ask_compatible() -> list[str | None]:
    chat = [{"role": "user", "content": "hi"}]
    answers = []
    for base in COMPATIBLE:
        with openai.OpenAI(api_key="k", base_url=base, max_retries=0) as client:
            reply = client.chat.completions.create(model="m", messages=chat)
        answers.append(reply.choices[0].message.content)
    return answers


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_openai_compatible_providers_record_from_the_simulator_as_sent(tmp_path: Path) -> None:
    """A base URL with no ``/v1`` of OpenAI's (DeepInfra's ``/v1/openai``, none at all)
    was sent to the simulator as it was (``/v1/openai/chat/completions``,
    ``/chat/completions``), which it does not serve: ``UnservedRouteError``."""
    store = tmp_path / "compatible.jsonl"
    with (
        Simulator(behavior="echo") as sim,
        intercept(store, "record-missing", approve_live=True, live_origin=sim.url),
    ):
        assert _ask_compatible() == ["echo: hi"] * 3
    paths = [fixture.request["path"] for fixture in FixtureStore.open(store)]
    assert paths == ["/v1/openai/chat/completions", "/chat/completions"]  # two ask alike
    with intercept(store):
        assert _ask_compatible() == ["echo: hi"] * 3


def test_a_factory_client_s_base_path_is_taken_off_on_its_way_to_the_origin() -> None:
    seen: list[str] = []

    def answer(request: httpx2.Request) -> httpx2.Response:
        seen.append(str(request.url))
        return httpx2.Response(200, json={})

    moving = ToOrigin(httpx2.MockTransport(answer), "http://127.0.0.1:4010")
    moving.handle_request(httpx2.Request("POST", "https://gw.example.com/anthropic/v1/messages"))
    assert seen == ["http://127.0.0.1:4010/v1/messages"]


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_request_a_client_s_hook_readdresses_is_moved_as_readdressed(tmp_path: Path) -> None:
    def sign(request: httpx2.Request) -> None:
        request.url = request.url.copy_add_param("sig", "1")

    body = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]}
    headers = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
    with (
        Simulator(behavior="echo") as sim,
        block_network(),
        intercept(tmp_path / "s.jsonl", "record-missing", approve_live=True) as exchange,
        httpx2.Client(event_hooks={"request": [sign]}) as client,
    ):
        exchange.live_origin = origin = sim.url
        sent = client.post("https://api.anthropic.com/v1/messages", json=body, headers=headers)
    assert sent.json()["content"][0]["text"] == "echo: hi"
    assert str(sent.request.url) == f"{origin}/v1/messages?sig=1"


def test_a_base_path_on_the_provider_s_own_host_is_not_taken_off(tmp_path: Path) -> None:
    """``ANTHROPIC_BASE_URL=https://api.anthropic.com/v1`` sends ``/v1/v1/messages``, which
    the API answers with a 404: taken off on its way to the simulator, it was recorded
    green and failed live. It reaches the simulator as sent, and the recording stops
    naming the base URL."""
    assert moved_route("api.anthropic.com", "/v1/v1/messages") == "/v1/v1/messages"
    assert moved_route("gw.example.com", "/anthropic/v1/messages") == "/v1/messages"
    gemini = "generativelanguage.googleapis.com"  # its OpenAI compatibility has a base path
    assert moved_route(gemini, "/v1beta/openai/chat/completions") == "/v1/chat/completions"
    store = tmp_path / "doubled.jsonl"
    claude = anthropic.Anthropic(api_key="k", base_url="https://api.anthropic.com/v1")
    twice = pytest.raises(UnservedRouteError, match="holds the API version twice")
    with (
        Simulator(behavior="echo") as sim,
        intercept(store, "record-missing", approve_live=True, live_origin=sim.url),
        twice,
    ):
        claude.messages.create(model="m", max_tokens=8, messages=[{"role": "user", "content": "x"}])
    assert not store.exists() or not FixtureStore.open(store)
