"""The marker alone, recorded from the plugin's simulator: the clients the code under
test builds for the real API (no ``base_url``, as frameworks build them) send to the
simulator while recording, and the fixtures replay offline against the real hosts."""

from __future__ import annotations

import pytest

from nested_pytest import sessions_loading
from replaygate.fixtures.store import FixtureStore
from replaygate.models.types import ModelResponse
from replaygate.sim import ScriptBehavior, Simulator
from sdks import aiohttp, anthropic, openai

# Each test runs pytest itself on a project of its own (pytester): end to end.
pytestmark = [pytest.mark.slow, pytest.mark.native_tracebacks]


sessions_find_their_modules = sessions_loading(anthropic, openai, aiohttp, "httpx", "requests")


MARKER_ONLY = """
import asyncio
import os

import aiohttp
import anthropic
import httpx
import openai
import pytest
import requests

pytestmark = pytest.mark.replaygate(fixtures="agent.jsonl")
HEADERS = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
QUESTION = os.environ.get("QUESTION", "hello")


def ask(words):
    return {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": words}]}


def test_sdks_built_for_the_real_api():
    claude = anthropic.Anthropic(api_key="k", max_retries=0)
    reply = claude.messages.create(**ask(QUESTION))
    assert reply.content[0].text == "echo: hello"
    counted = claude.messages.count_tokens(model="m", messages=ask("count")["messages"])
    assert counted.input_tokens == 2

    async def chat():
        gpt = openai.AsyncOpenAI(api_key="k", max_retries=0)
        reply = await gpt.chat.completions.create(
            model="g", messages=[{"role": "user", "content": "async"}]
        )
        return reply.choices[0].message.content

    assert asyncio.run(chat()) == "echo: async"


def test_requests_httpx_and_aiohttp_to_the_real_api():
    url = "https://api.anthropic.com/v1/messages"
    sent = requests.post(url, json=ask("plain"), headers=HEADERS)
    assert sent.json()["content"][0]["text"] == "echo: plain"
    sent = httpx.post(url, json=ask("httpx"), headers=HEADERS)
    assert sent.json()["content"][0]["text"] == "echo: httpx"

    async def post():
        async with aiohttp.ClientSession() as session:
            async with session.post(url, json=ask("aio"), headers=HEADERS) as resp:
                return (await resp.json())["content"][0]["text"]

    assert asyncio.run(post()) == "echo: aio"


def test_a_page_elsewhere_is_left_to_the_network_block():
    with pytest.raises(requests.ConnectionError, match="'example.com' refused"):
        requests.get("https://example.com/v1/page")


def test_a_loopback_server_of_the_test_s_own_is_left_alone():
    own = anthropic.Anthropic(api_key="k", base_url=os.environ["OWN_SERVER"], max_retries=0)
    assert own.messages.create(**ask("own")).content[0].text == "from my own server"
"""


def test_the_marker_alone_records_from_the_simulator_and_replays_offline(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_agent=MARKER_ONLY)
    own = ScriptBehavior([ModelResponse(text="from my own server")])
    with Simulator(behavior=own) as server:
        monkeypatch.setenv("OWN_SERVER", server.url)
        recorded = pytester.runpytest(
            "--replaygate-record-mode=record-missing",
            "--replaygate-approve-live",
            "--replaygate-simulator=echo",
        )
        assert len(server.requests) == 1  # loopback stays where it is addressed
    recorded.assert_outcomes(passed=4)
    store = FixtureStore.open(pytester.path / "tests/fixtures/agent.jsonl")
    assert len(store) == 7
    assert {fixture.meta["source"] for fixture in store if fixture.meta} == {"sim"}

    # replaying offline, the own server gone too: every request is answered from the store
    pytester.runpytest("--replaygate-strict", "-k", "not elsewhere").assert_outcomes(passed=3)
    monkeypatch.setenv("QUESTION", "hello there")
    missed = pytester.runpytest("-k", "real_api")
    missed.assert_outcomes(passed=1, failed=1)
    missed.stdout.fnmatch_lines(["*FixtureMismatchError*", "*'hello' != 'hello there'*"])
