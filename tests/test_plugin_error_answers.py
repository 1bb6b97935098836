"""A replaying test that fails on an error answer its store holds (a 500 the API gave
while the test was recorded) failed with the SDK's bare error, which reads as if the API
had been reached, with nothing of the fixture that answered or how to record it anew."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from replaygate.http import Exchange, httpx2_client
from replaygate.pytest_plugin.recording import _EXCHANGE, _replayed_error_answer
from replaygate.sim import Simulator
from sdks import anthropic

pytestmark = pytest.mark.slow  # each test: records through an SDK from the simulator and replays

ASK = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]}


def test_a_failure_on_a_replayed_error_answer_names_its_fixture(tmp_path: Path) -> None:
    store = tmp_path / "s.jsonl"
    with (
        Simulator(behavior="echo", faults=["500"]) as sim,
        httpx2_client(store, "record-missing", approve_live=True) as http,
        anthropic.Anthropic(api_key="k", base_url=sim.url, http_client=http, max_retries=0) as c,
        pytest.raises(anthropic.InternalServerError),
    ):
        c.messages.create(**ASK)
    exchange = Exchange(store)
    item = SimpleNamespace(stash={_EXCHANGE: exchange})
    with (
        httpx2_client(exchange) as http,
        anthropic.Anthropic(api_key="k", http_client=http, max_retries=0) as client,
        pytest.raises(anthropic.InternalServerError) as raised,
    ):
        client.messages.create(**ASK)
    note = _replayed_error_answer(item, raised.value)  # type: ignore[arg-type]
    assert note is not None
    assert note.startswith(
        f"replaygate: this 500 answer was replayed from {store}:1, as it was recorded: the API "
        "answered so while the test was recorded, and nothing was sent now."
    )
    assert _replayed_error_answer(item, AssertionError("wrong answer")) is None  # type: ignore[arg-type]
