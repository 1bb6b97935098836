"""Recording from the plugin's simulator with ``HTTP_PROXY``/``HTTPS_PROXY`` set: what
is moved to the loopback simulator goes there past the proxy, as ``NO_PROXY`` would
send it, through every intercepted library, and through aiohttp under an httpx client's
transport, as LiteLLM sends (the proxy is a closed loopback port, which any request sent
to it would fail on)."""

from __future__ import annotations

import httpcore  # noqa: F401
import httpcore2  # noqa: F401
import pytest

from loopback import EchoesMessages, serving
from sdks import anthropic, openai

# Each test runs pytest itself on a project of its own (pytester): end to end. httpx and
# httpx2 import their cores as a first client is made: imported here, not by a nested run,
# which drops what it imported as it ends, while the library keeps mapping the errors of
# the classes it met first (a cut body then raised httpcore's error, not httpx's, in a
# later test of the process).
pytestmark = pytest.mark.slow

THROUGH_EVERY_LIBRARY = """
import asyncio
import json

import aiohttp
import httpx
import httpx2
import openai
import pytest
import requests

pytestmark = pytest.mark.replaygate
URL = "https://api.anthropic.com/v1/messages"
HEADERS = {"x-api-key": "k", "anthropic-version": "2023-06-01"}


class AiohttpTransport(httpx2.AsyncBaseTransport):  # as LiteLLM's sends with aiohttp
    async def handle_async_request(self, request):
        async with aiohttp.ClientSession(trust_env=True) as session:
            async with session.post(
                str(request.url), data=await request.aread(), headers=dict(request.headers)
            ) as resp:
                body = await resp.read()
        return httpx2.Response(resp.status, json=json.loads(body))


def ask(words):
    return {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": words}]}


def test_sdk_requests_httpx_and_aiohttp():
    gpt = openai.OpenAI(api_key="k", max_retries=0)
    reply = gpt.chat.completions.create(model="g", messages=[{"role": "user", "content": "sdk"}])
    assert reply.choices[0].message.content == "echo: sdk"
    sent = requests.post(URL, json=ask("rq"), headers=HEADERS)
    assert sent.json()["content"][0]["text"] == "echo: rq"
    with httpx.Client() as client:
        sent = client.post(URL, json=ask("hx"), headers=HEADERS)
    assert sent.json()["content"][0]["text"] == "echo: hx"

    async def post():
        async with aiohttp.ClientSession(trust_env=True) as session:
            async with session.post(URL, json=ask("aio"), headers=HEADERS) as resp:
                return (await resp.json())["content"][0]["text"]

    assert asyncio.run(post()) == "echo: aio"

    async def chat():
        gpt = openai.AsyncOpenAI(api_key="k", max_retries=0)
        reply = await gpt.chat.completions.create(
            model="g", messages=[{"role": "user", "content": "async"}]
        )
        return reply.choices[0].message.content

    assert asyncio.run(chat()) == "echo: async"

    async def through_aiohttp():
        async with httpx2.AsyncClient(transport=AiohttpTransport()) as client:
            sent = await client.post(URL, json=ask("lite"), headers=HEADERS)
        return sent.json()["content"][0]["text"]

    assert asyncio.run(through_aiohttp()) == "echo: lite"
"""


def test_recording_from_the_simulator_goes_past_the_environment_s_proxy(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert anthropic.Anthropic and openai.OpenAI  # loaded here, not again by the nested run
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.setenv(name, "http://127.0.0.1:9")
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    pytester.makepyfile(test_proxied=THROUGH_EVERY_LIBRARY)
    recorded = pytester.runpytest(
        "-p",
        "no:cacheprovider",
        "--replaygate-record-mode=record-missing",
        "--replaygate-approve-live",
        "--replaygate-simulator=echo",
    )
    recorded.assert_outcomes(passed=1)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)


THROUGH_THE_PROXY = """
import asyncio

API = "http://api.example.test"  # reached through the proxy only
ASK = {"model": "claude-sonnet-4-5", "max_tokens": 8}


def test_sync_and_async(anthropic_client, async_anthropic_client):
    client = anthropic_client(api_key="k", base_url=API, max_retries=0)
    reply = client.messages.create(**ASK, messages=[{"role": "user", "content": "sync"}])
    assert reply.content[0].text == "echo: sync"

    async def ask():
        client = async_anthropic_client(api_key="k", base_url=API, max_retries=0)
        return await client.messages.create(**ASK, messages=[{"role": "user", "content": "a"}])

    assert asyncio.run(ask()).content[0].text == "echo: a"
"""


def test_recording_from_the_live_api_goes_through_the_environment_s_proxy(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the client factories' live transport read no proxy: recording behind one failed to
    # connect, where the SDK's own client went through it
    assert anthropic.Anthropic  # loaded here, not again by the nested run
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy", "http_proxy"):
        monkeypatch.delenv(name, raising=False)
    pytester.makepyfile(test_live=THROUGH_THE_PROXY)
    EchoesMessages.targets.clear()
    with serving(EchoesMessages) as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy)
        recorded = pytester.runpytest(
            "-p",
            "no:cacheprovider",
            "--replaygate-record-mode=record-missing",
            "--replaygate-approve-live",
        )
    recorded.assert_outcomes(passed=1)
    assert EchoesMessages.targets == ["http://api.example.test/v1/messages"] * 2
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)
