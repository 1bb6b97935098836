"""Anthropic messages recorded into a store through the SDK, from an echo simulator:
the fixtures a test of replay needs before it runs, and a secret refused beside them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from replaygate.errors import SecretInFixtureError
from replaygate.http import httpx2_client
from replaygate.hygiene.verify import verify_store
from replaygate.sim import Simulator
from sdks import anthropic

ASKING = """
def ask(question):
    client = anthropic.Anthropic(api_key="k", max_retries=0)
    reply = client.messages.create(
        model="m", max_tokens=8, messages=[{"role": "user", "content": question}]
    )
    return reply.content[0].text


def ask_with_fallback(question):
    try:
        return ask(question)
    except Exception:
        return "fallback"
"""
"""The functions of a nested session's test module (which imports anthropic) asking the
echo simulator's recordings, the second catching a miss as code under test does."""


def record_echoes(
    store: Path, contents: Sequence[str], url: str | None = None, *, streamed: bool = False
) -> None:
    """Record one message per item of ``contents`` into ``store`` (each answered
    ``echo: <content>``), from the simulator at ``url``, or from one started here; with
    ``streamed``, each is recorded again as a stream."""
    if url is None:
        with Simulator(behavior="echo") as sim:
            record_echoes(store, contents, sim.url, streamed=streamed)
        return
    with (
        httpx2_client(store, "record-missing", approve_live=True) as http,
        anthropic.Anthropic(api_key="k", base_url=url, http_client=http) as client,
    ):
        for content in contents:
            messages = [{"role": "user", "content": content}]
            client.messages.create(model="m", max_tokens=8, messages=messages)
            if streamed:
                with client.messages.stream(model="m", max_tokens=8, messages=messages) as stream:
                    stream.get_final_message()


def refused_then_stored_by_hand(
    store: Path, secret: dict[str, Any], clean: dict[str, Any], data: Callable[[Any], str]
) -> tuple[str, list[str]]:
    """Send the user message ``secret`` (refused: its text) and then ``clean`` (recorded)
    through the SDK from an echo simulator into ``store``; then put ``secret``'s data
    (``data`` of a message) where ``clean``'s is stored, as a hand edit would: the refusal
    and what verify says of the store after the edit (the store was clean before)."""
    with (
        Simulator(behavior="echo") as sim,
        httpx2_client(store, mode="record-missing", approve_live=True) as http,
        anthropic.Anthropic(api_key="sk-sim", base_url=sim.url, http_client=http) as client,
    ):
        with pytest.raises(SecretInFixtureError) as caught:
            client.messages.create(model="m", max_tokens=16, messages=[secret])
        client.messages.create(model="m", max_tokens=16, messages=[clean])
    assert verify_store(store) == (1, [])
    store.write_text(store.read_text().replace(data(clean), data(secret)))
    return str(caught.value), [str(problem) for problem in verify_store(store)[1]]
