"""The live transport of the plugin's client factories when recording from the simulator
(:class:`~replaygate.http.adapter.ToOrigin`): the client is built for the real API, as
when the test replays, so a framework that shapes its requests by host (the Agents SDK
adds ``prompt_cache_key``, ``store`` and ``stream_options`` for the real OpenAI API only)
sends the same requests in both, and every request it sends goes to the simulator, its
path and query kept (the embeddings and compaction the simulator serves too)."""

from __future__ import annotations

import asyncio

import httpx2

from replaygate.http.adapter import ToOrigin

SIM = "http://127.0.0.1:4010"


def _seen() -> tuple[list[tuple[str, str]], httpx2.MockTransport]:
    seen: list[tuple[str, str]] = []

    def answer(request: httpx2.Request) -> httpx2.Response:
        seen.append((str(request.url), request.headers["host"]))
        return httpx2.Response(200, json={})

    return seen, httpx2.MockTransport(answer)


def test_every_path_goes_to_the_origin_with_its_query() -> None:
    seen, live = _seen()
    moving = ToOrigin(live, SIM)
    for url in (
        "https://api.openai.com/v1/responses",
        "https://api.openai.com/v1/embeddings",
        "https://api.openai.com/v1/conversations/conv_1/items?limit=2",
        "https://api.anthropic.com/v1/messages",
    ):
        moving.handle_request(httpx2.Request("POST", url))
    assert seen == [
        (f"{SIM}/v1/responses", "127.0.0.1:4010"),
        (f"{SIM}/v1/embeddings", "127.0.0.1:4010"),
        (f"{SIM}/v1/conversations/conv_1/items?limit=2", "127.0.0.1:4010"),
        (f"{SIM}/v1/messages", "127.0.0.1:4010"),
    ]


def test_a_loopback_host_is_left_where_it_is_and_async_moves_alike() -> None:
    seen, live = _seen()
    moving = ToOrigin(live, SIM)
    moving.handle_request(httpx2.Request("POST", "http://localhost:9000/v1/messages"))

    async def send() -> None:
        await moving.handle_async_request(httpx2.Request("POST", "https://api.openai.com/v1/x"))

    asyncio.run(send())
    assert seen == [
        ("http://localhost:9000/v1/messages", "localhost:9000"),
        (f"{SIM}/v1/x", "127.0.0.1:4010"),
    ]
