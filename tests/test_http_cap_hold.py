"""A live send holds its spending-cap bound until its answer is charged: a send the
simulator refused of its own accord holds it no more and counts nothing, so answers
never recorded do not use the cap up; a provider's answer not stored (it held a secret,
its body was left unread) was billed, and is charged. A session keeps nothing per request
once every send of it ended."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

import pytest

from replaygate.errors import (
    ResponseLeftOpenWarning,
    SecretInFixtureError,
    SimulatorRefusalError,
    TelemetryRefusedError,
)
from replaygate.evals.prices import shipped_prices
from replaygate.fixtures.spending import SpendingCap
from replaygate.fixtures.store import FixtureStore
from replaygate.http import Exchange, httpx2_client, intercept
from replaygate.sim import Simulator
from sdks import anthropic

MODEL = "claude-haiku-4-5"  # priced in the shipped table
AWS = "AKIAIOSFODNN7SECRETX"


def _ask(exchange: Exchange, base_url: str, text: str) -> None:
    http = httpx2_client(exchange)
    with anthropic.Anthropic(
        api_key="k", base_url=base_url, http_client=http, max_retries=0
    ) as client:
        client.messages.create(
            model=MODEL, max_tokens=16, messages=[{"role": "user", "content": text}]
        )


@pytest.mark.parametrize(
    ("answers", "refused", "charged"),
    [
        ('{"text": "only one"}\n', SimulatorRefusalError, 1),  # the second: script run out
        (f'{{"text": "fine"}}\n{{"text": "the key is {AWS}"}}\n', SecretInFixtureError, 2),
    ],
    ids=["simulator-refusal", "secret-in-answer"],
)
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_send_answered_but_not_stored_holds_no_bound(
    tmp_path: Path, answers: str, refused: type[Exception], charged: int
) -> None:
    script = tmp_path / "script.jsonl"
    script.write_text(answers)
    cap = SpendingCap(1.0, shipped_prices())
    store = tmp_path / "f.jsonl"
    exchange = Exchange(store, mode="record-missing", approve_live=True, cap=cap)
    with Simulator(behavior=f"script:{script}") as sim:
        _ask(exchange, sim.url, "first")
        with pytest.raises(refused):
            _ask(exchange, sim.url, "second")
    assert (cap.reserved, cap.calls) == (0, charged)  # a simulator's refusal is not billed
    assert len(FixtureStore.open(store)) == 1


def test_an_answer_left_unread_is_charged_its_bound(tmp_path: Path) -> None:
    cap = SpendingCap(1.0, shipped_prices())
    asked = {"model": MODEL, "max_tokens": 16, "messages": [{"role": "user", "content": "hi"}]}
    with (
        Simulator(behavior="echo") as sim,
        anthropic.Anthropic(api_key="k", base_url=sim.url, max_retries=0) as client,
        ExitStack() as held,
    ):
        with (
            pytest.warns(ResponseLeftOpenWarning),
            intercept(tmp_path / "f.jsonl", "record-missing", approve_live=True, cap=cap),
        ):  # the response is held past the block, its body unread: the call was billed
            held.enter_context(client.messages.with_streaming_response.create(**asked))
        assert (cap.reserved, cap.calls) == (0, 1)
    bound = SpendingCap(1.0, shipped_prices())
    bound.reserve(asked)
    assert cap.spent == pytest.approx(bound.reserved)


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_session_keeps_nothing_per_request_once_its_sends_ended(tmp_path: Path) -> None:
    exchange = Exchange(tmp_path / "f.jsonl", mode="record-missing", approve_live=True)
    with Simulator(behavior="echo") as sim:
        for text in ("a", "b", "a", "c"):
            _ask(exchange, sim.url, text)
    assert exchange.recorded == 4
    assert exchange._ended == {}


def test_a_capped_recording_of_telemetry_says_how_to_stop_it(tmp_path: Path) -> None:
    # the Agents SDK's trace upload during a live recording was refused as a call naming no
    # model, told only to record without a cap or leave it out, not that tracing sends it;
    # it is refused as a tracing service's upload, before the cap is asked
    cap = SpendingCap(1.0, shipped_prices())
    with (
        httpx2_client(tmp_path / "f.jsonl", "record-missing", approve_live=True, cap=cap) as http,
        pytest.raises(TelemetryRefusedError) as refused,
    ):
        http.post("https://api.openai.com/v1/traces/ingest", json={"data": []})
    assert "OPENAI_AGENTS_DISABLE_TRACING=1" in str(refused.value)
    assert cap.reserved == 0
