"""A replayed async send is a point where its task's due cancellation is delivered, as a
live send is. A send made under a deadline already passed (``asyncio.timeout(0)``, an
agent's time budget spent) was cancelled while recording, so nothing of it was stored and
the code went on to its fallback; on replay it was answered at once (no await of the
replay path let the cancellation in), took the answer of the next identical send, and the
replay missed that one as 'sent 2 times', whatever was recorded again."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx
import httpx2
import pytest

from replaygate.http import httpx2_async_client, httpx2_client, intercept
from sdks import aiohttp

URL = "https://api.example.test/v1/messages"
BODY = {"model": "m", "messages": [{"role": "user", "content": "deep"}]}


def recorded(tmp_path: Path) -> Path:
    """A store holding the one answer to :data:`BODY`, recorded in process."""
    store = tmp_path / "s.jsonl"
    live = httpx2.MockTransport(lambda request: httpx2.Response(200, json={"text": "deep"}))
    with httpx2_client(store, "record-missing", approve_live=True, transport=live) as client:
        client.post(URL, json=BODY)
    return store


async def factory(store: Path) -> object:
    async with httpx2_async_client(store) as client:
        return await sent_past_deadline(lambda: client.post(URL, json=BODY))


async def intercepted_httpx(store: Path) -> object:
    with intercept(store):
        async with httpx.AsyncClient() as client:
            return await sent_past_deadline(lambda: client.post(URL, json=BODY))


async def intercepted_aiohttp(store: Path) -> object:
    async def post(session: aiohttp.ClientSession) -> object:
        async with session.post(URL, json=BODY) as response:
            return await response.json()

    with intercept(store):
        async with aiohttp.ClientSession() as session:
            return await sent_past_deadline(lambda: post(session))


async def sent_past_deadline(send: Callable[[], Awaitable[object]]) -> object:
    """``send()`` under a deadline already passed (cancelled, as live), then again (the
    recorded answer, which the cancelled send did not take)."""
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0):
            await send()
    return await send()


@pytest.mark.parametrize("seam", [factory, intercepted_httpx, intercepted_aiohttp])
def test_a_replayed_send_past_its_deadline_is_cancelled_and_takes_no_answer(
    tmp_path: Path, seam: Callable[[Path], Awaitable[object]]
) -> None:
    answer = asyncio.run(seam(recorded(tmp_path)))
    if isinstance(answer, httpx2.Response | httpx.Response):
        answer = answer.json()
    assert answer == {"text": "deep"}
