"""The models routes (``GET /v1/models``, ``/v1/models/{id}``, Gemini's
``/v1beta/models``), which an application calls at start-up to check its key or offer a
model picker: the simulator answered them 404, so such an application could neither run
against it nor be recorded from it.

The three APIs share ``/v1/models``: the simulator answers each caller as its
credentials' API does."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from unittest.mock import ANY

import orjson
import pytest

from replaygate.evals.prices import shipped_prices
from replaygate.http import intercept
from replaygate.http.routes import SIMULATOR_REFUSAL
from replaygate.sim import Simulator
from replaygate.sim.app import SimApp
from replaygate.sim.behaviors import EchoBehavior
from replaygate.sim.catalogue import (
    ANTHROPIC_MODELS,
    ANTHROPIC_SNAPSHOTS,
    GEMINI_MODELS,
    OPENAI_MODELS,
)
from sdks import anthropic, genai, openai

ANTHROPIC = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
OPENAI = {"authorization": "Bearer k"}
GOOGLE = {"x-goog-api-key": "k"}


def started(base_url: str | None) -> tuple[list[str], str, str]:
    """What an application asks at start-up: Anthropic's models two at a time (two
    pages), OpenAI's model, Gemini's model."""
    claude = anthropic.Anthropic(api_key="test", base_url=base_url, max_retries=0)
    gpt = openai.OpenAI(api_key="test", base_url=base_url and f"{base_url}/v1", max_retries=0)
    options = genai.types.HttpOptions(base_url=base_url) if base_url else None
    with genai.Client(api_key="k", http_options=options) as gemini:
        shown = gemini.models.get(model="gemini-2.5-flash").display_name
    listed = [model.id for model in claude.models.list(limit=2)]
    return listed, gpt.models.retrieve("gpt-4o").owned_by, str(shown)


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_models_record_from_the_simulator_and_replay(tmp_path: Path) -> None:
    store = tmp_path / "fixtures.jsonl"
    with (
        Simulator(behavior="echo") as sim,
        intercept(store, "record-missing", approve_live=True, source="sim"),
    ):
        recorded = started(sim.url)
    assert recorded == (
        ["claude-sonnet-4-6", "claude-haiku-4-5", "claude-opus-4-1"],
        "system",
        "Gemini 2.5 Flash",
    )
    with intercept(store) as exchange:
        assert started(None) == recorded
    assert exchange.replays == 4


def ask(path: str, headers: dict[str, str]) -> tuple[int, Any]:
    reply = SimApp(EchoBehavior()).handle("GET", path, headers, b"")
    return reply.status, orjson.loads(reply.body)


@pytest.mark.parametrize(
    ("query", "ids", "more"),
    [
        ("limit=2", ["claude-sonnet-4-6", "claude-haiku-4-5"], True),
        ("limit=2&after_id=claude-haiku-4-5", ["claude-opus-4-1"], False),
        ("limit=1&before_id=claude-opus-4-1", ["claude-haiku-4-5"], True),
        ("lifecycle[]=retired", ["claude-sonnet-4-5"], False),
        (
            "lifecycle[]=active&lifecycle[]=retired&limit=2&after_id=claude-haiku-4-5",
            ["claude-sonnet-4-5", "claude-opus-4-1"],
            False,
        ),
    ],
)
def test_anthropic_pages(query: str, ids: list[str], more: bool) -> None:
    status, page = ask(f"/v1/models?{query}", ANTHROPIC)
    assert status == 200
    assert [model["id"] for model in page["data"]] == ids
    assert page["has_more"] is more
    assert (page["first_id"], page["last_id"]) == ((ids[0], ids[-1]) if ids else (None, None))


def test_gemini_pages_with_a_token() -> None:
    status, first = ask("/v1beta/models?pageSize=2", GOOGLE)
    assert status == 200 and len(first["models"]) == 2
    token = first["nextPageToken"]
    status, rest = ask(f"/v1beta/models?pageSize=2&pageToken={token}", GOOGLE)
    names = [m["name"] for m in rest["models"]]
    assert names == ["models/gemini-2.5-flash-lite", "models/gemini-embedding-001"]
    assert rest["models"][1]["supportedGenerationMethods"][0] == "embedContent"
    assert "nextPageToken" not in rest


@pytest.mark.parametrize(
    ("path", "headers", "status", "error"),
    [
        ("/v1/models/claude-nope", ANTHROPIC, 404, {"message": "model: claude-nope"}),
        ("/v1/models/gpt-nope", OPENAI, 404, {"code": "model_not_found", "param": "model"}),
        (
            "/v1beta/models/gemini-nope",
            GOOGLE,
            404,
            {
                "status": "NOT_FOUND",
                "message": "models/gemini-nope is not found for API version v1beta.",
            },
        ),
        ("/v1/models?limit=0", ANTHROPIC, 400, {"type": "invalid_request_error"}),
        ("/v1/models", {"anthropic-version": "2023-06-01"}, 401, {"type": "authentication_error"}),
        ("/v1/models", {}, 401, {"type": "authentication_error"}),
        ("/v1beta/models", OPENAI, 403, {"status": "PERMISSION_DENIED"}),
    ],
)
def test_models_refusals(path: str, headers: dict[str, str], status: int, error: Any) -> None:
    got_status, body = ask(path, headers)
    assert got_status == status
    assert error.items() <= body["error"].items()


def test_a_cursor_not_listed_is_the_simulators_own_refusal() -> None:
    status, body = ask("/v1/models?after_id=claude-nope", ANTHROPIC)
    assert status == 400 and "claude-nope" in body["error"]["message"]
    assert body[SIMULATOR_REFUSAL] is True


def test_the_models_listed_are_those_of_the_shipped_price_table() -> None:
    # the catalogue says so: a model added to the table and not listed drifted apart
    listed = [m[0] for m in (*ANTHROPIC_MODELS, *OPENAI_MODELS, *GEMINI_MODELS)]
    assert sorted(listed) == sorted(shipped_prices().models)


def test_a_retired_model_is_listed_only_when_asked_for_and_still_described() -> None:
    # claude-sonnet-4-5, retired on 2026-11-30, was listed as active: an application
    # offering a model picker recorded from the simulator a model whose calls fail live
    status, page = ask("/v1/models", ANTHROPIC)
    assert status == 200 and "claude-sonnet-4-5" not in [m["id"] for m in page["data"]]
    status, body = ask("/v1/models/claude-sonnet-4-5-20250929", ANTHROPIC)
    assert status == 200
    assert (body["lifecycle"], body["retires_at"]) == ("retired", "2026-11-30T00:00:00Z")
    status, body = ask("/v1/models/claude-sonnet-4-6", ANTHROPIC)
    assert (body["lifecycle"], body["max_tokens"], body["max_input_tokens"]) == (
        "active",
        128000,
        1000000,
    )


def test_a_model_is_described_by_its_dated_snapshot_too() -> None:
    # an application pinning claude-sonnet-4-5-20250929 checked it at start-up and got the
    # 404 of a model that does not exist, recorded as the API's answer
    status, body = ask("/v1/models/claude-sonnet-4-5-20250929", ANTHROPIC)
    assert status == 200
    assert (body["id"], body["display_name"]) == ("claude-sonnet-4-5-20250929", "Claude Sonnet 4.5")
    assert ask("/v1/models/claude-sonnet-4-5-20250930", ANTHROPIC)[0] == 404  # no snapshot
    assert set(ANTHROPIC_SNAPSHOTS.values()) <= {m.id for m in ANTHROPIC_MODELS}


@pytest.mark.parametrize(
    ("model", "served", "most"),
    [
        ("claude-haiku-4-5", "claude-haiku-4-5-20251001", 64000),
        ("claude-sonnet-4-6", "claude-sonnet-4-6", 128000),
        ("claude-opus-4-1-20250805", "claude-opus-4-1-20250805", 32000),
    ],
)
def test_max_tokens_over_the_model_s_most_is_refused_as_the_api_refuses_it(
    sim: Simulator, model: str, served: str, most: int
) -> None:
    # a recording asking for more than the model may write passed here and failed live
    claude = anthropic.Anthropic(api_key="k", base_url=sim.url, max_retries=0)
    asked = {"model": model, "messages": [{"role": "user", "content": "hi"}]}
    with (
        pytest.raises(anthropic.BadRequestError) as refused,
        claude.messages.stream(max_tokens=most + 1, **asked) as stream,
    ):
        stream.get_final_message()
    expected = f"max_tokens: {most + 1} > {most}, which is the maximum allowed number of "
    assert f"{expected}output tokens for {served}" in str(refused.value)
    with claude.messages.stream(max_tokens=most, **asked) as stream:
        assert stream.get_final_message().content
    unlisted = claude.messages.create(max_tokens=21000, **{**asked, "model": "claude-sim-1"})
    assert unlisted.content  # a model the simulator does not list has no known most


@pytest.mark.parametrize("model", ["claude-sonnet-4-6", "claude-haiku-4-5-20251001"])
def test_temperature_beside_top_p_is_refused_as_the_api_refuses_it(
    sim: Simulator, model: str
) -> None:
    # pydantic-ai's ModelSettings(temperature=0.2, top_p=0.9) on claude-sonnet-4-6 was
    # recorded here and failed live: the model takes one of them at most
    claude = anthropic.Anthropic(api_key="k", base_url=sim.url, max_retries=0)
    asked = {"model": model, "max_tokens": 16, "messages": [{"role": "user", "content": "hi"}]}
    with pytest.raises(anthropic.BadRequestError) as refused:
        claude.messages.create(**asked, extra_body={"temperature": 0.2, "top_p": 0.9})
    message = (
        "`temperature` and `top_p` cannot both be specified for this model. Please use only one."
    )
    assert refused.value.body["error"] == {"type": "invalid_request_error", "message": message}
    for one in ({"temperature": 0.2}, {"top_p": 0.9}):
        assert claude.messages.create(**asked, extra_body=one).content
    unlisted = {**asked, "model": "claude-sim-1"}  # a model the simulator does not list
    assert claude.messages.create(**unlisted, extra_body={"temperature": 0.2, "top_p": 0.9})


@pytest.mark.parametrize("model", ["claude-haiku-4-5", "claude-opus-4-1-20250805"])
def test_an_effort_of_a_model_that_takes_none_is_refused_as_the_api_refuses_it(
    sim: Simulator, model: str
) -> None:
    # pydantic-ai's AnthropicModelSettings(anthropic_effort="low") on claude-haiku-4-5 was
    # recorded here and failed live: effort is Claude Sonnet 4.6's (and Opus 4.5's), not theirs
    claude = anthropic.Anthropic(api_key="k", base_url=sim.url, max_retries=0)
    asked = {"max_tokens": 16, "messages": [{"role": "user", "content": "hi"}]}
    effort = {"output_config": {"effort": "low"}}
    with pytest.raises(anthropic.BadRequestError) as refused:
        claude.messages.create(model=model, **asked, extra_body=effort)
    message = "This model does not support the effort parameter."
    assert refused.value.body["error"] == {"type": "invalid_request_error", "message": message}
    assert claude.messages.create(model=model, **asked).content
    for taking in ("claude-sonnet-4-6", "claude-sim-1"):  # one that takes it, one unlisted
        assert claude.messages.create(model=taking, **asked, extra_body=effort).content


@pytest.mark.parametrize("model", ["claude-sonnet-4-5", "claude-sonnet-4-5-20250929"])
def test_a_retired_model_is_refused_as_the_api_refuses_it(sim: Simulator, model: str) -> None:
    # a recording naming claude-sonnet-4-5 after its retirement passed here and failed live
    claude = anthropic.Anthropic(api_key="k", base_url=sim.url, max_retries=0)
    asked = {"model": model, "max_tokens": 16, "messages": [{"role": "user", "content": "hi"}]}
    with pytest.raises(anthropic.NotFoundError) as refused:
        claude.messages.create(**asked)
    error = {"type": "not_found_error", "message": f"model: {model}"}
    assert refused.value.body == {"type": "error", "error": error, "request_id": ANY}
    with pytest.raises(anthropic.NotFoundError), claude.messages.stream(**asked) as stream:
        stream.get_final_message()
    with pytest.raises(anthropic.NotFoundError) as counted:  # a count names the model too
        claude.messages.count_tokens(model=model, messages=asked["messages"])
    assert counted.value.body == {"type": "error", "error": error, "request_id": ANY}
    assert claude.models.retrieve(model).id == model  # still described, as retired


def test_an_old_retired_model_the_simulator_does_not_list_is_refused_too(sim: Simulator) -> None:
    # smolagents' LiteLLMModel() names claude-3-5-sonnet-20240620 by default: recorded from
    # the simulator, it passed, and failed live with the API's 404
    claude = anthropic.Anthropic(api_key="k", base_url=sim.url, max_retries=0)
    asked = {"max_tokens": 16, "messages": [{"role": "user", "content": "hi"}]}
    for model in ("claude-3-5-sonnet-20240620", "claude-3-opus-20240229", "claude-2.1"):
        with pytest.raises(anthropic.NotFoundError) as refused:
            claude.messages.create(**{**asked, "model": model})
        assert str(refused.value).startswith(f"404 model: {model} (request_id: ")
    assert claude.messages.create(**{**asked, "model": "claude-3-haiku-20240307"}).content


@pytest.mark.parametrize("field", ["max_completion_tokens", "max_tokens"])
@pytest.mark.parametrize("model", ["gpt-4o-mini", "gpt-4o-2024-08-06"])
def test_completion_tokens_over_the_model_s_most_are_refused_as_the_api_refuses_them(
    sim: Simulator, field: str, model: str
) -> None:
    gpt = openai.OpenAI(api_key="k", base_url=sim.openai_base_url, max_retries=0)
    asked = {"model": model, "messages": [{"role": "user", "content": "hi"}]}
    with pytest.raises(openai.BadRequestError) as refused:
        gpt.chat.completions.create(**asked, **{field: 16385})
    assert (refused.value.param, refused.value.code) == (field, "invalid_value")
    assert f"{field} is too large: 16385. This model supports at most 16384" in str(refused.value)
    assert gpt.chat.completions.create(**asked, **{field: 16384}).choices


@pytest.mark.parametrize("model", ["gemini-1.5-flash", "gemini-1.5-pro-002", "gemini-pro"])
def test_a_retired_gemini_model_is_not_found_as_the_api_answers(model: str) -> None:
    # Gemini 1.0 and 1.5 were retired: an old sample's model recorded from the simulator
    # passed, and failed against the API with a 404
    with (
        Simulator(behavior="echo") as sim,
        genai.Client(api_key="k", http_options={"base_url": sim.url}) as client,
    ):
        for call in (client.models.generate_content, client.models.count_tokens):
            with pytest.raises(genai.errors.ClientError) as caught:
                call(model=model, contents="hi")
            assert (caught.value.code, caught.value.status) == (404, "NOT_FOUND")
            assert f"models/{model} is not found for API version" in str(caught.value)
        current = client.models.generate_content(model="gemini-pro-latest", contents="hi")
        assert current.text == "echo: hi"


def test_gpt_5_models_are_listed_priced_and_their_output_limit_checked(sim: Simulator) -> None:
    # an application checking its gpt-5-mini at start-up (models.retrieve) recorded the
    # API's 404 from the simulator, and recording gpt-5-mini live under pytest's default
    # spending cap stopped with "no price for model 'gpt-5-mini'"
    gpt = openai.OpenAI(api_key="k", base_url=sim.openai_base_url, max_retries=0)
    assert {"gpt-5", "gpt-5-mini"} <= {model.id for model in gpt.models.list()}
    assert gpt.models.retrieve("gpt-5-mini").created == 1754425777
    assert shipped_prices().cost("gpt-5-mini", 1_000_000, 1_000_000) == 2.25
    asked = {"model": "gpt-5-mini", "messages": [{"role": "user", "content": "hi"}]}
    with pytest.raises(openai.BadRequestError, match="supports at most 128000"):
        gpt.chat.completions.create(**asked, max_completion_tokens=128001)
