"""A recording's model call answered by vcrpy from the test's cassette is refused.

A test moving from pytest-recording may keep its ``vcr`` mark; vcrpy patches the HTTP
transports a recording sends through live, and answers a request its cassette holds,
matched by method and URL, not by the body. Real vcrpy, real HTTP on loopback.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import httpx2
import pytest

from replaygate.errors import CassetteAnsweredError, LiveSendFailedWarning
from replaygate.fixtures.store import FixtureStore
from replaygate.http import Exchange, httpx2_client
from replaygate.pytest_plugin.cassettes import CassettePlays
from replaygate.sim import Simulator
from sdks import anthropic, vcr

CASSETTE = """\
interactions:
- request:
    body: '{{"max_tokens":8,"messages":[{{"role":"user","content":"old"}}],"model":"m"}}'
    headers: {{}}
    method: POST
    uri: {url}/v1/messages
  response:
    body: {{string: '{answer}'}}
    headers: {{Content-Type: [application/json]}}
    status: {{code: 200, message: OK}}
- request:
    body: null
    headers: {{}}
    method: GET
    uri: {url}/forecast
  response:
    body: {{string: '{{"sky": "clear"}}'}}
    headers: {{Content-Type: [application/json]}}
    status: {{code: 200, message: OK}}
version: 1
"""
OLD_ANSWER = (
    '{"id": "msg_old", "type": "message", "role": "assistant", "model": "m", '
    '"content": [{"type": "text", "text": "echo: old"}], "stop_reason": "end_turn", '
    '"stop_sequence": null, "usage": {"input_tokens": 1, "output_tokens": 2}}'
)


def test_a_model_call_the_cassette_answers_is_refused_and_nothing_of_it_is_stored(
    tmp_path: Path,
) -> None:
    store = tmp_path / "t.jsonl"
    cassette_file = tmp_path / "cassette.yaml"
    with Simulator(behavior="echo") as sim:
        cassette_file.write_text(CASSETTE.format(url=sim.url, answer=OLD_ANSWER))
        with vcr.use_cassette(str(cassette_file), record_mode="none") as cassette:
            exchange = Exchange(store, mode="record-missing", approve_live=True)
            exchange.live_guard = CassettePlays(SimpleNamespace(funcargs={"vcr": cassette}))  # type: ignore[arg-type]
            http = httpx2_client(exchange, transport=httpx2.HTTPTransport())
            # another API's call the cassette answers is stored with the model's, as
            # docs/migrating.md says: the replay needs the cassette no more
            assert http.get(f"{sim.url}/forecast").json() == {"sky": "clear"}
            client = anthropic.Anthropic(
                api_key="k", base_url=sim.url, http_client=http, max_retries=0
            )
            with pytest.raises(CassetteAnsweredError) as refused:
                client.messages.create(  # the prompt changed; vcrpy matches method and URL
                    model="m", max_tokens=8, messages=[{"role": "user", "content": "new"}]
                )
        assert sim.requests == []  # the model was never asked
    assert str(refused.value).startswith(
        f"recording stopped: POST /v1/messages was answered by vcrpy from the test's "
        f"cassette {cassette_file}, not by the model"
    )
    assert [f.request["path"] for f in FixtureStore.open(store)] == ["/forecast"]
    assert exchange.raised == [refused.value]  # a caught refusal still fails the test


def test_a_model_call_vcrpy_recorded_in_this_run_and_played_again_is_told_so(
    tmp_path: Path,
) -> None:
    """In vcrpy's ``new_episodes`` a model call sent live is recorded into the cassette as
    well, and the test's next model call, to the same URL, is answered with it: the refusal
    said the cassette held an answer recorded earlier, to delete, where this run wrote it
    (each recording in that mode would write it again)."""
    cassette_file = tmp_path / "cassette.yaml"
    with Simulator(behavior="echo") as sim:
        forecast_only = CASSETTE.format(url=sim.url, answer=OLD_ANSWER).split("- request:")
        cassette_file.write_text(forecast_only[0] + "- request:" + forecast_only[2])
        with vcr.use_cassette(str(cassette_file), record_mode="new_episodes") as cassette:
            exchange = Exchange(tmp_path / "t.jsonl", mode="record-missing", approve_live=True)
            exchange.live_guard = CassettePlays(SimpleNamespace(funcargs={"vcr": cassette}))  # type: ignore[arg-type]
            http = httpx2_client(exchange, transport=httpx2.HTTPTransport())
            client = anthropic.Anthropic(
                api_key="k", base_url=sim.url, http_client=http, max_retries=0
            )
            client.messages.create(
                model="m", max_tokens=8, messages=[{"role": "user", "content": "first"}]
            )
            with pytest.raises(CassetteAnsweredError) as refused:
                client.messages.create(
                    model="m", max_tokens=8, messages=[{"role": "user", "content": "second"}]
                )
            http.close()
        assert len(sim.requests) == 1  # the second question never reached the model
    assert refused.value.recorded_now == "new_episodes"
    told = str(refused.value)
    assert "vcrpy recorded an earlier model call of this test into the cassette in this run" in told
    assert "delete the model calls vcrpy wrote into the cassette" in told
    assert "an answer recorded earlier, perhaps to another prompt" not in told


def test_a_model_call_vcrpy_refuses_is_told_as_vcrpy_s_refusal(tmp_path: Path) -> None:
    """A model call the cassette lacks, in vcrpy's record mode ``none`` (pytest-recording's
    default), is refused by vcrpy before it reaches the model: the warning told to record
    it again once the live API answers, where the API never saw it."""
    cassette_file = tmp_path / "cassette.yaml"
    with Simulator(behavior="echo") as sim:
        cassette_file.write_text(CASSETTE.format(url="https://api.example.test", answer="{}"))
        with vcr.use_cassette(str(cassette_file), record_mode="none") as cassette:
            exchange = Exchange(tmp_path / "t.jsonl", mode="record-missing", approve_live=True)
            exchange.live_guard = CassettePlays(SimpleNamespace(funcargs={"vcr": cassette}))  # type: ignore[arg-type]
            http = httpx2_client(exchange, transport=httpx2.HTTPTransport())
            client = anthropic.Anthropic(
                api_key="k", base_url=sim.url, http_client=http, max_retries=0
            )
            with (
                pytest.warns(LiveSendFailedWarning) as warned,
                pytest.raises(anthropic.APIConnectionError),
            ):
                client.messages.create(
                    model="m", max_tokens=8, messages=[{"role": "user", "content": "hi"}]
                )
            http.close()
        assert sim.requests == []
    (told,) = [str(w.message) for w in warned if w.category is LiveSendFailedWarning]
    assert "The API did not fail: vcrpy refused the request" in told
    assert "@pytest.mark.vcr(ignore_localhost=True)" in told
    assert "once the live API answers" not in told
