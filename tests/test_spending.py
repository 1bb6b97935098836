"""A spending cap on every approval: the call that could pass it is not sent, nothing is lost."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import httpx2
import pytest
from hypothesis import given
from hypothesis import strategies as st

from replaygate import RecordingModel
from replaygate.errors import SpendingCapError
from replaygate.evals.prices import Price, PriceTable, shipped_prices
from replaygate.fixtures.spending import (
    CHARS_PER_TOKEN,
    CLI_RAISE_WITH,
    SpendingCap,
    costs_nothing,
    usage_of,
)
from replaygate.fixtures.store import FixtureStore
from replaygate.http.envelope import request_envelope
from replaygate.http.exchange import LOOPBACK_CAP
from replaygate.models.live import AnthropicModel
from replaygate.models.types import Message
from replaygate.sim import Simulator
from sdks import anthropic

MODEL = "claude-haiku-4-5"  # $1 / $5 per million tokens in the shipped table


def _recorder(sim: Simulator, store: Path, cap: SpendingCap, model: str = MODEL) -> RecordingModel:
    client = anthropic.Anthropic(api_key="k", base_url=sim.url, max_retries=0)
    live = AnthropicModel(client, model=model, max_tokens=16)
    return RecordingModel(live, store, approve_live=True, model=model, max_tokens=16, cap=cap)


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_recording_stops_before_the_call_that_could_pass_the_cap(
    sim: Simulator, tmp_path: Path
) -> None:
    # A call may cost up to about $0.00013 (16 output tokens x $5 / 1M, and its input
    # estimated high); the echo simulator's answers cost about a sixth of that: a few
    # calls are recorded before the one that could pass the cap.
    cap = SpendingCap(0.00025, shipped_prices())
    recorder = _recorder(sim, tmp_path / "f.jsonl", cap)
    sent_before = len(sim.requests)
    recorder.complete([Message.user("first")], [])
    recorder.complete([Message.user("second")], [])
    with pytest.raises(SpendingCapError) as refused:
        for i in range(200):
            recorder.complete([Message.user(f"call {i}")], [])
    message = str(refused.value)
    assert "spending cap reached" in message and "was not sent" in message
    assert f"spent on {cap.calls} recorded call" in message and "kept" in message
    sent = len(sim.requests) - sent_before
    assert sent == cap.calls == len(FixtureStore.open(tmp_path / "f.jsonl")) >= 2
    assert 0 < cap.spent <= cap.limit


def test_the_message_says_how_the_cap_is_raised_as_its_maker_says(
    sim: Simulator, tmp_path: Path
) -> None:
    plain = SpendingCap(0.0, shipped_prices())
    told = SpendingCap(0.0, shipped_prices(), raise_with="cap= of the recorder")
    for cap, how in ((plain, CLI_RAISE_WITH), (told, "cap= of the recorder")):
        with pytest.raises(SpendingCapError) as refused:
            _recorder(sim, tmp_path / "f.jsonl", cap).complete([Message.user("hi")], [])
        assert str(refused.value).endswith(f"Raise the cap ({how}) to record the rest.")
    assert CLI_RAISE_WITH == "--max-cost, or max_cost in [tool.replaygate]"


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_recorded_call_replays_without_spending(sim: Simulator, tmp_path: Path) -> None:
    store = tmp_path / "f.jsonl"
    _recorder(sim, store, SpendingCap(1.0, shipped_prices())).complete([Message.user("hi")], [])
    cap = SpendingCap(0.0, shipped_prices())  # nothing left to spend
    again = _recorder(sim, store, cap)
    assert again.complete([Message.user("hi")], []).text  # record-missing replays it
    with pytest.raises(SpendingCapError):
        again.complete([Message.user("something new")], [])
    assert cap.calls == 0 and cap.spent == 0


def test_a_model_without_a_price_cannot_be_recorded_under_a_cap(
    sim: Simulator, tmp_path: Path
) -> None:
    sent_before = len(sim.requests)
    recorder = _recorder(sim, tmp_path / "f.jsonl", SpendingCap(5.0, shipped_prices()), "mystery")
    with pytest.raises(SpendingCapError, match=r"no price for model 'mystery'.*prices") as err:
        recorder.complete([Message.user("hi")], [])
    assert len(sim.requests) == sent_before
    # the entry to add names the model: filled in, it is a price for it
    entry = str(err.value).split("[tool.replaygate.prices] (", 1)[1].split(", per", 1)[0]
    assert tomllib.loads(entry.replace("...", "1.0")) == {"mystery": {"input": 1.0, "output": 1.0}}


USAGES: dict[str, tuple[Any, tuple[int, int] | None]] = {
    "anthropic": ({"usage": {"input_tokens": 12, "output_tokens": 7}}, (12, 7)),
    "openai chat": ({"usage": {"prompt_tokens": 5, "completion_tokens": 3}}, (5, 3)),
    "gemini": ({"usageMetadata": {"promptTokenCount": 4, "candidatesTokenCount": 9}}, (4, 9)),
    "gemini thinking": (
        {"usageMetadata": {"promptTokenCount": 4, "candidatesTokenCount": 9,
                           "thoughtsTokenCount": 80}},
        (4, 89),
    ),
    "gemini grounded in Google Search": (  # what the search gave it is billed as input
        {"usageMetadata": {"promptTokenCount": 4, "candidatesTokenCount": 9,
                           "toolUsePromptTokenCount": 3000}},
        (3004, 9),
    ),
    "recorded HTTP": ({"status": 200, "body": {"usage": {"input_tokens": 2}}}, (2, 0)),
    "anthropic stream": (
        {
            "status": 200,
            "events": [
                {"event": "message_start",
                 "data": '{"message": {"usage": {"input_tokens": 30, "output_tokens": 1}}}'},
                {"event": "message_delta", "data": '{"usage": {"output_tokens": 44}}'},
            ],
        },
        (30, 44),
    ),
    "anthropic prompt cache": (  # input_tokens leaves the cache's tokens out
        {"usage": {"input_tokens": 12, "cache_creation_input_tokens": 2048,
                   "cache_read_input_tokens": 4096, "output_tokens": 7,
                   "cache_creation": {"ephemeral_5m_input_tokens": 2048}}},
        (2982, 7),  # 12 + 2048 written at 1.25 times the input price + 4096 read at 0.1
    ),
    "anthropic prompt cache, an hour's write": (
        {"usage": {"input_tokens": 5, "cache_creation_input_tokens": 1000, "output_tokens": 1,
                   "cache_creation": {"ephemeral_5m_input_tokens": 200,
                                      "ephemeral_1h_input_tokens": 800}}},
        (1855, 1),  # 5 + 200 x 1.25 + 800 x 2: counted at 1x, the spend was understated
    ),
    "anthropic prompt cache, a write of no lifetime": (  # at the higher price, 2x
        {"usage": {"input_tokens": 5, "cache_creation_input_tokens": 100, "output_tokens": 1}},
        (205, 1),
    ),
    "anthropic stream, prompt cache": (
        {
            "status": 200,
            "events": [
                {"event": "message_start",
                 "data": '{"message": {"usage": {"input_tokens": 3, "output_tokens": 1,'
                         ' "cache_read_input_tokens": 9000}}}'},
                {"event": "message_delta",
                 "data": '{"usage": {"output_tokens": 44, "cache_read_input_tokens": 9000}}'},
            ],
        },
        (903, 44),
    ),
    "anthropic stream, a cache write broken down by its message_start only": (
        {
            "status": 200,
            "events": [
                {"event": "message_start",
                 "data": '{"message": {"usage": {"input_tokens": 3, "output_tokens": 1,'
                         ' "cache_creation_input_tokens": 800,'
                         ' "cache_creation": {"ephemeral_5m_input_tokens": 800}}}}'},
                {"event": "message_delta",
                 "data": '{"usage": {"input_tokens": 3, "output_tokens": 9,'
                         ' "cache_creation_input_tokens": 800}}'},
            ],
        },
        (1003, 9),  # at 1.25, not at the 2 of a write of no lifetime
    ),
    "bedrock converse, prompt cache": (  # was none: every call charged at its bound
        {"status": 200, "body": {"usage": {"inputTokens": 3, "outputTokens": 7,
                                           "cacheReadInputTokens": 9000, "totalTokens": 9010}}},
        (903, 7),
    ),
    "bedrock converse stream": (
        {"status": 200, "events": [{"event": "metadata", "data": '{"usage": {"inputTokens": 5,'
                                    ' "outputTokens": 9, "totalTokens": 14}}'}]},
        (5, 9),
    ),
    "no usage": ({"status": 200, "body": {"content": []}}, None),
}  # fmt: skip


@pytest.mark.parametrize("name", USAGES)
def test_usage_is_read_from_every_shape(name: str) -> None:
    response, expected = USAGES[name]
    assert usage_of(response) == expected


def test_a_request_asking_for_a_cache_is_bounded_at_the_price_of_its_writes() -> None:
    """A cache write bills up to twice the input price: its input was bounded at once."""
    cap = SpendingCap(5.0, PriceTable({"m": Price(1.0, 0.0)}, "USD", "t"))
    block = {"type": "text", "text": "x" * 398}
    body = {"model": "m", "max_tokens": 1, "messages": [{"role": "user", "content": [block]}]}
    cap.reserve(body)
    plain, cap.reserved = cap.reserved, 0.0
    cap.reserve({**body, "cache_control": {"type": "ephemeral", "ttl": "1h"}})
    assert cap.reserved >= 2 * plain


def test_the_largest_output_limit_a_request_gives_bounds_it() -> None:
    """Given max_tokens=1 and max_completion_tokens=4000, the cap bounded one output token
    of a call the API answers with up to 4000."""
    cap = SpendingCap(5.0, PriceTable({"m": Price(0.0, 1.0)}, "USD", "t"))
    cap.reserve({"model": "m", "max_tokens": 1, "max_completion_tokens": 4000, "messages": []})
    assert cap.reserved == 4000 / 1_000_000


def test_a_converse_request_s_max_tokens_bounds_it() -> None:
    """Bedrock's Converse API gives its limit in inferenceConfig.maxTokens: a call asking for
    64 tokens was bounded at 8192."""
    cap = SpendingCap(5.0, PriceTable({"m": Price(0.0, 1.0)}, "USD", "t"))
    cap.reserve({"model": "m", "inferenceConfig": {"maxTokens": 64}, "messages": []})
    assert cap.reserved == 64 / 1_000_000


@pytest.mark.parametrize(
    "path",
    [
        "/v1/messages/count_tokens",
        "/v1/messages/count_tokens?beta=true",
        "/v1/responses/input_tokens",
        "/v1beta/models/gemini-2.5-pro:countTokens",
    ],
)
def test_a_token_count_is_free_whatever_its_model(path: str) -> None:
    """A count answers no usage: it was charged its bound (8192 output tokens of Opus,
    0.61 USD), and a few counts before each request stopped a recording that spent nothing."""
    cap = SpendingCap(0.01, PriceTable({"m": Price(15.0, 75.0)}, "USD", "t"))
    for model in ("m", "unpriced"):
        request = {"method": "POST", "path": path, "body": {"model": model, "messages": []}}
        cap.reserve(request)
        assert cap.charge(request, {"status": 200, "body": {"input_tokens": 65}}) == 0.0
        cap.reserve(request)
        cap.release(request)
    assert (cap.spent, cap.reserved, cap.calls) == (0.0, 0.0, 2)


def test_openai_s_moderation_is_free_and_another_server_s_is_priced() -> None:
    """OpenAI's moderation is free: its models' missing price stopped its recording."""
    cap = SpendingCap(0.01, PriceTable({"mistral-moderation-latest": Price(0.1, 0.1)}, "USD", "t"))
    for model in ("omni-moderation-latest", "text-moderation-stable", None):
        body = {"input": "hi"} if model is None else {"input": "hi", "model": model}
        assert costs_nothing({"method": "POST", "path": "/v1/moderations", "body": body})
    mistral = {"model": "mistral-moderation-latest", "input": "hi"}
    billed = {"method": "POST", "path": "/v1/moderations", "body": mistral}
    assert not costs_nothing(billed)
    cap.reserve(billed)
    assert cap.reserved > 0


@pytest.mark.parametrize(
    ("path", "model"),
    [
        ("/model/us.anthropic.claude-opus-4-1-v1:0/invoke", "us.anthropic.claude-opus-4-1-v1:0"),
        ("/model/anthropic.claude-haiku-4-5-v1:0/invoke-with-response-stream",
         "anthropic.claude-haiku-4-5-v1:0"),
        ("/openai/deployments/gpt-4o-prod/chat/completions?api-version=2024-10-21", "gpt-4o-prod"),
        ("/v1/projects/p/locations/r/publishers/anthropic/models/claude-x@2025:rawPredict",
         "claude-x@2025"),
    ],
)  # fmt: skip
def test_the_model_a_path_names_is_priced(path: str, model: str) -> None:
    """Bedrock's and Azure's bodies name no model: the cap asked a price for
    '<no model named>'."""
    cap = SpendingCap(5.0, PriceTable({model: Price(3.0, 15.0)}, "USD", "t"))
    cap.reserve({"method": "POST", "path": path, "body": {"max_tokens": 64, "messages": []}})
    assert cap.reserved > 0


def test_a_call_by_get_or_delete_is_free_and_a_post_naming_no_model_says_so() -> None:
    """A live recording of client.models.list() under the default cap failed: 'no price
    for model '<no model named>' ... Add it to [tool.replaygate.prices]'."""
    cap = SpendingCap(5.0, shipped_prices())
    for method in ("GET", "DELETE"):
        cap.reserve({"method": method, "path": "/v1/models?limit=5", "body": None})
        assert cap.charge({"method": method, "path": "/v1/files/file_1", "body": None}, {}) == 0
    with pytest.raises(SpendingCapError) as refused:  # an OpenAI batch: its file holds them
        cap.reserve({"method": "POST", "path": "/v1/batches", "body": {"input_file_id": "f"}})
    assert str(refused.value).startswith(
        "POST /v1/batches names no model (in its body, its form or its path)"
    )
    assert "<no model named>" not in str(refused.value)


def test_a_message_batch_is_bounded_by_its_requests_at_their_models_prices() -> None:
    """client.messages.batches.create(...) under a cap was refused: 'POST
    /v1/messages/batches names no model', though each of its requests names one."""
    cap = SpendingCap(0.01, PriceTable({"a": Price(0.0, 1.0), "b": Price(0.0, 2.0)}, "USD", "t"))
    asked = [{"role": "user", "content": "hi"}]
    requests = [
        {"custom_id": name, "params": {"model": name, "max_tokens": 1000, "messages": asked}}
        for name in ("a", "b")
    ]
    request = {"method": "POST", "path": "/v1/messages/batches", "body": {"requests": requests}}
    cap.reserve(request)
    assert cap.reserved == pytest.approx(3000 / 1_000_000)  # 1000 tokens of a, 1000 of b
    assert cap.charge(request, {"status": 200, "body": {"id": "msgbatch_1"}}) == cap.spent > 0
    many = {**request, "body": {"requests": requests * 2000}}
    with pytest.raises(SpendingCapError, match=r"the next call to 'a, b' could cost up to 6\.0"):
        cap.reserve(many)


@pytest.mark.parametrize(
    "path",
    [
        "/v1/files",
        "/upload/v1beta/files?uploadType=multipart",
        "/v1/uploads",
        "/v1/uploads/upload_1/parts",
        "/v1/uploads/upload_1/complete",
    ],
)
def test_a_file_s_upload_is_free(path: str) -> None:
    """A live recording under pytest's default cap of client.beta.files.upload(...) or
    client.files.create(...) failed: 'POST /v1/files names no model', so an agent reading
    a document could be recorded with no cap only, its model calls unbounded too."""
    cap = SpendingCap(5.0, shipped_prices())
    request = {"method": "POST", "path": path, "body": {"base64": "AAAA"}}
    cap.reserve(request)
    assert cap.charge(request, {"status": 200, "body": {"id": "file_1"}}) == 0
    assert (cap.spent, cap.reserved, cap.calls) == (0, 0, 1)
    with pytest.raises(SpendingCapError, match="names no model"):  # not any path's end
        cap.reserve({**request, "path": path.split("?")[0] + "x"})


@pytest.mark.parametrize(
    "path",
    ["/v1/responses/resp_1/cancel", "/v1/batches/batch_1/cancel", "/v1/messages/batches/b/cancel"],
)
def test_a_cancellation_is_free(path: str) -> None:
    """A live recording under pytest's default cap of client.responses.cancel(id), after a
    background response, failed: 'POST /v1/responses/resp_1/cancel names no model'."""
    cap = SpendingCap(5.0, shipped_prices())
    request = {"method": "POST", "path": path, "body": None}
    cap.reserve(request)
    assert cap.charge(request, {"status": 200, "body": {"status": "cancelled"}}) == 0
    assert (cap.spent, cap.reserved, cap.calls) == (0, 0, 1)


@pytest.mark.parametrize(
    "body",
    [
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "now"}},
        [{"jsonrpc": "2.0", "method": "notifications/initialized"}],
    ],
)
def test_an_mcp_server_s_call_is_free(body: Any) -> None:
    """A live recording under pytest's default cap of an agent whose tools are an MCP
    server's, over HTTP, failed at its first tool: 'POST /mcp names no model'."""
    cap = SpendingCap(5.0, shipped_prices())
    request = {"method": "POST", "path": "/mcp", "body": body}
    cap.reserve(request)
    assert cap.charge(request, {"status": 200, "body": {"jsonrpc": "2.0", "id": 3}}) == 0
    assert (cap.spent, cap.reserved, cap.calls) == (0, 0, 1)
    with pytest.raises(SpendingCapError, match="POST /mcp names no model"):
        cap.reserve({**request, "body": {"jsonrpc": "1.0", "method": "tools/call"}})


@pytest.mark.parametrize("audio", [b"RIFF\xff\xfe\x00WAVE", b"plain words"])
def test_the_model_an_upload_s_form_names_is_the_one_priced(audio: bytes) -> None:
    """Recording client.audio.transcriptions.create live under the default cap failed:
    'POST /v1/audio/transcriptions names no model (in its body or its path)', though its
    form names it."""
    sent = httpx2.Request(
        "POST",
        "https://api.openai.com/v1/audio/transcriptions",
        data={"model": "whisper-1"},
        files={"file": ("clip.wav", audio, "audio/wav")},
    )
    sent.read()
    request = request_envelope(sent)
    with pytest.raises(SpendingCapError, match=r"^no price for model 'whisper-1' in "):
        SpendingCap(5.0, shipped_prices()).reserve(request)
    cap = SpendingCap(5.0, PriceTable({"whisper-1": Price(1.0, 1.0)}, "USD", "t"))
    cap.reserve(request)
    assert cap.reserved > 0


@pytest.mark.parametrize(
    ("model", "per_million"),
    [("text-embedding-3-small", 0.02), ("text-embedding-3-large", 0.13),
     ("text-embedding-ada-002", 0.10)],
)  # fmt: skip
def test_openai_s_embeddings_are_priced_by_the_shipped_table(
    model: str, per_million: float
) -> None:
    """Recording client.embeddings.create live under the default cap failed every test:
    'no price for model 'text-embedding-3-small' ... Add it to [tool.replaygate.prices]'."""
    cap = SpendingCap(5.0, shipped_prices())
    request = {"method": "POST", "path": "/v1/embeddings", "body": {"model": model, "input": "x"}}
    cap.reserve(request)
    answer = {"status": 200, "body": {"usage": {"prompt_tokens": 1000, "total_tokens": 1000}}}
    assert cap.charge(request, answer) == pytest.approx(1000 * per_million / 1_000_000)


def test_a_response_without_usage_is_charged_its_bound() -> None:
    cap = SpendingCap(1.0, PriceTable({"m": Price(1.0, 1.0)}, "USD", "t"))
    request = {"model": "m", "max_tokens": 100, "messages": []}
    assert cap.charge(request, {"content": []}) > 100 / 1_000_000


@pytest.mark.parametrize("status", [429, 500, 529, 400])
def test_an_error_the_api_answered_costs_nothing(status: int) -> None:
    """Three 429 and 500 answers retried by the openai SDK were each charged the bound of
    a whole call (0.0303 of a 0.05 cap spent on one answer of 3 tokens): the APIs bill no
    error, and a recording meeting rate limits was stopped by the cap having spent
    nothing."""
    cap = SpendingCap(1.0, PriceTable({"m": Price(1.0, 1.0)}, "USD", "t"))
    request = {"method": "POST", "path": "/v1/x", "body": {"model": "m", "max_tokens": 100}}
    error = {"status": status, "body": {"error": {"type": "rate_limit_error"}}}
    assert cap.charge(request, error) == 0.0 and cap.calls == 1
    assert cap.charge(request, {"status": 200, "body": {"content": []}}) > 100 / 1_000_000


@given(
    calls=st.lists(
        st.tuples(
            st.integers(1, 4000), st.integers(0, 4000), st.integers(0, 3000), st.integers(1, 8)
        ),
        min_size=1,
        max_size=30,
    ),
    limit=st.floats(0.0, 0.2),
)
def test_what_is_spent_never_passes_the_cap(
    calls: list[tuple[int, int, int, int]], limit: float
) -> None:
    """Whatever the calls cost, within what they may cost (each of ``n`` answers up to
    ``max_tokens``), the total stays under the cap."""
    cap = SpendingCap(limit, PriceTable({"m": Price(3.0, 15.0)}, "USD", "t"))
    for max_tokens, output, prompt_chars, n in calls:
        request = {"model": "m", "max_tokens": max_tokens, "n": n, "prompt": "x" * prompt_chars}
        try:
            cap.reserve(request)
        except SpendingCapError:
            continue
        used = {"prompt_tokens": prompt_chars // CHARS_PER_TOKEN}
        used["completion_tokens"] = min(output, max_tokens) * n
        cap.charge(request, {"usage": used})
        assert cap.spent <= limit


@pytest.mark.parametrize(
    "asks",
    [
        {"n": 8},  # Chat Completions, each choice up to max_tokens
        {"best_of": 8, "n": 2},  # the Completions API bills every candidate it generates
        {"generationConfig": {"candidateCount": 8, "maxOutputTokens": 100}},  # Gemini
        {"generation_config": {"candidate_count": 8}},
    ],
)
def test_a_call_asking_for_several_answers_is_bounded_for_each(asks: dict[str, Any]) -> None:
    """n=8 and max_tokens=100 was bounded at 100 output tokens: a first call under a cap
    of 0.005 on gpt-4o was sent and spent 0.0089 (800 completion tokens)."""
    cap = SpendingCap(0.005, PriceTable({"m": Price(0.0, 10.0)}, "USD", "t"))
    body = {"model": "m", "max_tokens": 100}
    with pytest.raises(SpendingCapError, match=r"by 100 tokens for each of its 8 answers\)"):
        cap.reserve({"method": "POST", "path": "/v1/x", "body": {**body, **asks}})
    cap.reserve({"method": "POST", "path": "/v1/x", "body": body})  # one answer: 0.001


def test_the_default_cap_is_read_from_the_project(tmp_path: Path) -> None:
    from replaygate.evals.config import load_config
    from replaygate.evals.errors import ConfigError

    path = tmp_path / "pyproject.toml"
    path.write_text("[tool.replaygate]\nmax_cost = 2.5\n")
    assert load_config(path).max_cost == 2.5
    path.write_text("[tool.replaygate]\nmax_cost = -1\n")
    with pytest.raises(ConfigError, match=r"pyproject.toml:2: tool.replaygate.max_cost: must be"):
        load_config(path)


@pytest.mark.parametrize("given_to", ["Exchange", "httpx2_client"])
@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_the_http_layer_stops_at_the_cap_through_the_sdk(
    sim: Simulator, tmp_path: Path, given_to: str
) -> None:
    from replaygate.http import Exchange, httpx2_client

    cap = SpendingCap(0.00025, shipped_prices())  # a few calls, as in the test above
    store = tmp_path / "http.jsonl"
    if given_to == "Exchange":
        http = httpx2_client(Exchange(store, mode="record-missing", approve_live=True, cap=cap))
    else:  # the client factory takes it as the transports and intercept() do
        http = httpx2_client(store, "record-missing", approve_live=True, cap=cap)
    sent_before = len(sim.requests)
    with (
        anthropic.Anthropic(
            api_key="k", base_url=sim.url, http_client=http, max_retries=3
        ) as client,
        pytest.raises(SpendingCapError, match="spending cap reached"),
    ):
        for i in range(200):
            client.messages.create(
                model=MODEL, max_tokens=16, messages=[{"role": "user", "content": f"call {i}"}]
            )
    assert len(sim.requests) - sent_before == cap.calls == len(FixtureStore.open(store)) >= 2
    assert cap.spent <= cap.limit


def test_a_cap_refusing_a_call_to_a_loopback_server_says_it_may_be_recorded_uncapped(
    sim: Simulator, tmp_path: Path
) -> None:
    # a client whose base URL names a `replaygate sim serve` (LlamaIndex's api_base) asking
    # for a model the table lacks was told only to add its price, for a call costing nothing
    from replaygate.http import httpx2_client

    http = httpx2_client(
        tmp_path / "s.jsonl",
        "record-missing",
        approve_live=True,
        cap=SpendingCap(5.0, shipped_prices()),
    )
    with (
        anthropic.Anthropic(api_key="k", base_url=sim.url, http_client=http) as client,
        pytest.raises(SpendingCapError, match=r"^no price for model 'mystery'") as err,
    ):
        client.messages.create(
            model="mystery", max_tokens=8, messages=[{"role": "user", "content": "hi"}]
        )
    assert str(err.value).endswith("\n" + LOOPBACK_CAP.format(host="127.0.0.1"))


@pytest.mark.slow
def test_the_record_command_stops_at_its_cap_and_keeps_what_it_recorded(tmp_path: Path) -> None:
    from run_cli import replaygate

    agent = ["--agent", "replaygate.examples.research_copilot:copilot"]
    store = tmp_path / "rc.jsonl"
    questions = ["What is RAG?", "What is replay?", "What is a fixture?", "Why sample?"]
    done = replaygate(
        "record", *agent, "--fixtures", str(store), "--approve-live", "--simulator",
        "--max-cost", "0.02", *questions, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 2, done.stdout + done.stderr
    assert "spending cap reached" in done.stderr and "Traceback" not in done.stderr
    kept = len(FixtureStore.open(store))
    assert kept >= 1
    ok = replaygate(
        "record", *agent, "--fixtures", str(store), "--approve-live", "--simulator",
        "--max-cost", "5", *questions, cwd=tmp_path,
    )  # fmt: skip
    assert ok.returncode == 0, ok.stderr
    assert "USD spent on" in ok.stdout and len(FixtureStore.open(store)) > kept


@pytest.mark.slow  # the eval runner's whole flow
def test_eval_recording_stops_at_its_cap(tmp_path: Path) -> None:
    from replaygate.examples.research_copilot import shipped_eval_cases
    from run_cli import replaygate

    done = replaygate(
        "eval", "--agent", "replaygate.examples.research_copilot:copilot",
        "--cases", str(shipped_eval_cases()), "--fixtures", str(tmp_path / "e.jsonl"),
        "--record-mode", "record-missing", "--approve-live", "--simulator",
        "--max-cost", "0.03", "--no-history", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 2, done.stdout + done.stderr
    assert "spending cap reached" in done.stderr and "Traceback" not in done.stderr
    assert len(FixtureStore.open(tmp_path / "e.jsonl")) >= 1


def test_calls_in_flight_at_once_hold_their_bounds() -> None:
    cap = SpendingCap(0.0025, PriceTable({"m": Price(1.0, 1.0)}, "USD", "t"))
    request = {"model": "m", "max_tokens": 1000, "messages": []}  # a bound of about $0.001
    cap.reserve(request)
    cap.reserve(request)
    with pytest.raises(SpendingCapError):
        cap.reserve(request)  # two in flight, nothing charged yet: a third could pass
    cap.release(request)
    cap.reserve(request)  # a failed call gives its bound back
    cap.charge(request, {"usage": {"input_tokens": 1, "output_tokens": 1}})
    cap.charge(request, {"usage": {"input_tokens": 1, "output_tokens": 1}})
    assert cap.reserved == 0 and cap.spent < 0.0001


@pytest.mark.parametrize("command", ["record", "eval"])
@pytest.mark.parametrize("amount", ["nan", "-0.5"])
def test_a_cap_that_is_no_amount_is_a_usage_error(command: str, amount: str) -> None:
    # NaN passed every comparison: the cap capped nothing ("0.0044 of nan USD spent")
    from click.testing import CliRunner

    from replaygate.cli import main

    done = CliRunner().invoke(main, [command, "--max-cost", amount, "--simulator"])
    assert done.exit_code == 2
    assert f"Invalid value for '--max-cost': {float(amount)!r} is not an amount" in done.output
    with pytest.raises(ValueError, match=r"spending cap: .* is not an amount"):
        SpendingCap(float(amount), shipped_prices())


def test_a_call_bounded_past_the_whole_cap_says_how_it_was_bounded() -> None:
    """An image of 700 KB in base64 bounded an Opus call at 7 USD: 'spending cap reached'
    with nothing spent, and no word of why the bound was so high."""
    cap = SpendingCap(0.01, PriceTable({"m": Price(15.0, 75.0)}, "USD", "t"))
    image = {"type": "base64", "media_type": "image/png", "data": "A" * 9_000}
    body = {"model": "m", "max_tokens": 64, "messages": [{"role": "user", "content": [image]}]}
    with pytest.raises(SpendingCapError) as refused:
        cap.reserve({"method": "POST", "path": "/v1/messages", "body": body})
    message = str(refused.value)
    assert "the next call to 'm' could cost up to 0.0732 (more than the whole cap: " in message
    assert "its input is bounded by its 9,123 characters, 2 a token, base64 data" in message
    assert "and its output by 64 tokens) and was not sent." in message


def test_a_gemini_embedding_is_priced_by_the_shipped_table() -> None:
    """google-genai's embed_content recorded live under pytest's default cap stopped with
    'no price for model 'gemini-embedding-001''."""
    cap = SpendingCap(5.0, shipped_prices())
    path = "/v1beta/models/gemini-embedding-001:batchEmbedContents"
    one = {"model": "models/gemini-embedding-001", "content": {"parts": [{"text": "hello"}]}}
    request = {"method": "POST", "path": path, "body": {"requests": [one]}}
    cap.reserve(request)
    assert 0 < cap.charge(request, {"status": 200, "body": {"embeddings": []}}) < 1e-4


def test_an_inference_profile_s_arn_is_the_model_priced() -> None:
    """A Converse call of an application inference profile (LiteLLM's
    bedrock/arn:aws:bedrock:...) was priced as the model 'arn', and the user told to add
    a price for "arn"."""
    arn = "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc"
    cap = SpendingCap(5.0, PriceTable({arn: Price(0.0, 1.0)}, "USD", "t"))
    body = {"inferenceConfig": {"maxTokens": 64}, "messages": []}
    path = "/model/arn:aws:bedrock:us-east-1:123456789012:application-inference-profile%2Fabc"
    cap.reserve({"method": "POST", "path": f"{path}/converse", "body": body})
    assert cap.reserved == 64 / 1_000_000
