"""A warning about a live send points at the application's line that made the call, past
the SDK, the HTTP client and replaygate's own frames: ``LiveSendFailedWarning`` of a send
that failed before any answer was shown at a line of replaygate's httpx seam
(``seams/httpx_send.py``), whatever the SDK."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx2
import pytest

from replaygate.errors import LiveSendFailedWarning
from replaygate.http import intercept
from sdks import anthropic


def _refused(request: httpx2.Request) -> httpx2.Response:
    raise httpx2.ConnectError("refused")


def _line_of(text: str) -> int:
    """The number of the line of this module holding ``text``."""
    lines = Path(__file__).read_text(encoding="utf-8").splitlines()
    return next(number for number, line in enumerate(lines, 1) if text in line)


def _shown_here(caught: pytest.WarningsRecorder, text: str) -> None:
    (warning,) = [w for w in caught if issubclass(w.category, LiveSendFailedWarning)]
    assert (Path(warning.filename), warning.lineno) == (Path(__file__), _line_of(text))


def test_a_send_through_the_sdk_that_failed_is_warned_of_at_the_call(tmp_path: Path) -> None:
    http = httpx2.Client(transport=httpx2.MockTransport(_refused))
    client = anthropic.Anthropic(api_key="k", http_client=http, max_retries=0)
    ask = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]}
    with (
        intercept(tmp_path / "s.jsonl", "record-missing", approve_live=True),
        pytest.warns(LiveSendFailedWarning) as caught,
        pytest.raises(anthropic.APIConnectionError),
    ):
        client.messages.create(**ask)  # the call
    _shown_here(caught, "messages.create(**ask)  # the call")


def test_an_async_send_that_failed_is_warned_of_at_the_call(tmp_path: Path) -> None:
    async def ask() -> None:
        transport = httpx2.MockTransport(_refused)
        async with httpx2.AsyncClient(transport=transport) as client:
            await client.get("https://example.test/answer")  # the async call

    with (
        intercept(tmp_path / "s.jsonl", "record-missing", approve_live=True),
        pytest.warns(LiveSendFailedWarning) as caught,
        pytest.raises(httpx2.ConnectError),
    ):
        asyncio.run(ask())
    _shown_here(caught, "await client.get(")
