"""Log probabilities: asked for (Chat Completions' ``logprobs: true``, the Responses API's
``include`` of ``message.output_text.logprobs``; ``top_logprobs: K``), the API answers
each token of the text with its log probability, and streams them a token a chunk; the
simulator answered ``logprobs: null``, so code reading ``choice.logprobs.content`` failed
with AttributeError while recording from it and not against the API."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from replaygate.sim import Simulator
from sdks import openai

ASK = [{"role": "user", "content": "héllo wörld"}]


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    with Simulator(behavior="echo") as sim:
        yield openai.OpenAI(api_key="test", base_url=sim.openai_base_url, max_retries=0)


def test_each_choice_scores_the_tokens_that_spell_it(client: Any) -> None:
    reply = client.chat.completions.create(
        model="gpt-4o", messages=ASK, logprobs=True, top_logprobs=3, n=2
    )
    for choice in reply.choices:
        tokens = choice.logprobs.content
        assert "".join(t.token for t in tokens) == choice.message.content
        assert all(t.logprob <= 0 and bytes(t.bytes) == t.token.encode() for t in tokens)
        first = tokens[0].top_logprobs
        assert len(first) == 3 and first[0].token == tokens[0].token
        assert [a.logprob for a in first] == sorted((a.logprob for a in first), reverse=True)
    unasked = client.chat.completions.create(model="gpt-4o", messages=ASK, logprobs=False)
    assert unasked.choices[0].logprobs is None


def test_a_stream_carries_them_a_token_a_chunk(client: Any) -> None:
    with client.chat.completions.stream(model="gpt-4o", messages=ASK, logprobs=True) as stream:
        deltas = [e.content for e in stream if e.type == "logprobs.content.delta"]
        final = stream.get_final_completion().choices[0]
    assert [len(d) for d in deltas] == [1] * len(final.logprobs.content)
    assert "".join(t.token for t in final.logprobs.content) == final.message.content
    assert final.logprobs.content[0].top_logprobs == []


def test_the_responses_api_scores_its_text_when_included(client: Any) -> None:
    """Its ``include`` of ``message.output_text.logprobs`` was answered ``logprobs: []``."""
    include = ["message.output_text.logprobs"]
    part = (
        client.responses.create(model="gpt-4o", input="héllo", include=include, top_logprobs=2)
        .output[0]
        .content[0]
    )
    assert "".join(t.token for t in part.logprobs) == part.text
    assert [len(t.top_logprobs) for t in part.logprobs] == [2] * len(part.logprobs)
    with client.responses.stream(model="gpt-4o", input="héllo", include=include) as stream:
        deltas = [e for e in stream if e.type == "response.output_text.delta"]
        final = stream.get_final_response().output[0].content[0]
    assert [[t.token for t in d.logprobs] for d in deltas] == [[t.token] for t in final.logprobs]
    unasked = client.responses.create(model="gpt-4o", input="héllo")
    assert unasked.output[0].content[0].logprobs == []


def test_more_than_twenty_alternatives_are_refused_as_the_api_refuses_them(client: Any) -> None:
    """``top_logprobs=25`` was answered with 25 alternatives a token, where the API's 400
    stops the first live request."""
    said = "Invalid 'top_logprobs': integer above maximum value. Expected a value <= 20"
    with pytest.raises(openai.BadRequestError, match=said) as chat:
        client.chat.completions.create(model="gpt-4o", messages=ASK, logprobs=True, top_logprobs=21)
    with pytest.raises(openai.BadRequestError, match=said) as responses:
        client.responses.create(model="gpt-4o", input="héllo", top_logprobs=21)
    assert chat.value.param == responses.value.param == "top_logprobs"
    reply = client.chat.completions.create(
        model="gpt-4o", messages=ASK, logprobs=True, top_logprobs=20
    )
    assert len(reply.choices[0].logprobs.content[0].top_logprobs) == 20


@pytest.mark.parametrize(
    ("model", "reasoning"),
    [("gpt-5-mini", None), ("o4-mini", None), ("gpt-5.2", {"effort": "low"})],
)
def test_a_reasoning_model_asked_for_logprobs_is_refused_as_the_api_refuses_it(
    client: Any, model: str, reasoning: dict[str, str] | None
) -> None:
    """``include=["message.output_text.logprobs"]`` was answered with log probabilities for
    a reasoning model, which the API refuses (``logprobs are not supported with reasoning
    models.``): a recording was green and failed live."""
    include = ["message.output_text.logprobs"]
    asked: dict[str, Any] = {} if reasoning is None else {"reasoning": reasoning}
    with pytest.raises(openai.BadRequestError) as refused:
        client.responses.create(model=model, input="héllo", include=include, **asked)
    assert refused.value.body == {
        "message": "logprobs are not supported with reasoning models.",
        "type": "invalid_request_error",
        "param": "include",
        "code": "unsupported_parameter",
    }
    unreasoned = client.responses.create(
        model="gpt-5.2", input="héllo", include=include, reasoning={"effort": "none"}
    )
    assert unreasoned.output[-1].content[0].logprobs
