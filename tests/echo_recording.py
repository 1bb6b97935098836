"""Anthropic messages recorded into a store through the SDK, from an echo simulator:
the fixtures a test of replay needs before it runs."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from replaygate.http import httpx2_client
from replaygate.sim import Simulator
from sdks import anthropic


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
