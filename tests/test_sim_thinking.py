"""Thinking and reasoning from the simulator, through the real SDKs over loopback HTTP.

The simulator gave no thinking blocks and no reasoning items, so an agent's thinking
round trip (the previous turn's thinking blocks sent back with their signatures, a
Responses reasoning item given back as input) was never exercised by a recording made
from it. Asked for, a thought now comes first, drawn under the seed; what a client must
send back unchanged is sealed and checked, as the APIs check it.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from replaygate.errors import FixtureMismatchError
from replaygate.http import httpx2_client
from replaygate.models.types import Message, ModelResponse, ToolCall, ToolSpec
from replaygate.network import block_network
from replaygate.sim import Simulator
from replaygate.sim.thinking import REDACTING, reasoning_model, sealed, unsealed
from sdks import anthropic, openai

SEED = 11
THINK = {"type": "enabled", "budget_tokens": 1024}
ROOM = 2048
"""A ``max_tokens`` over the budget of :data:`THINK`, as the Messages API requires."""
ASKED = [{"role": "user", "content": "What is RAG?"}]
LOOKUP = {
    "name": "lookup",
    "description": "Look a word up.",
    "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}},
}


class LooksUpThenAnswers:
    """Calls the first tool offered with the user's words, then answers with its result."""

    def respond(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        last = messages[-1]
        if last.role == "tool":
            return ModelResponse(text=f"found: {last.content}")
        if tools:
            call = ToolCall(id="toolu_sim_1", name=tools[0].name, arguments={"q": last.content})
            return ModelResponse(tool_calls=(call,), stop_reason="tool_use")
        return ModelResponse(text=f"echo: {last.content}")


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    with Simulator(behavior=LooksUpThenAnswers(), seed=SEED) as running:
        yield running


def _claude(sim: Simulator) -> Any:
    return anthropic.Anthropic(api_key="k", base_url=sim.url, max_retries=0)


def _openai(sim: Simulator) -> Any:
    return openai.OpenAI(api_key="k", base_url=sim.openai_base_url, max_retries=0)


def _think(client: Any, messages: list[Any], *, stream: bool = False, **more: Any) -> Any:
    """A Messages API answer with extended thinking, plain or through the stream helper."""
    fields = {"model": "claude-sim", "max_tokens": ROOM, "thinking": THINK, **more}
    if not stream:
        return client.messages.create(messages=messages, **fields)
    with client.messages.stream(messages=messages, **fields) as events:
        return events.get_final_message()


def _refusal(raised: Any) -> str:
    assert raised.value.status_code == 400
    assert raised.value.body["error"]["type"] == "invalid_request_error"
    return str(raised.value.body["error"]["message"])


# -- Anthropic ---------------------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_extended_thinking_comes_first_signed_and_is_sent_back(
    sim: Simulator, stream: bool
) -> None:
    first = _think(_claude(sim), ASKED, stream=stream)
    thought, said = first.content
    assert (thought.type, said.type) == ("thinking", "text")
    assert thought.thinking.startswith(("The user asks: ", "The question is: ", "I am asked: "))
    assert "What is RAG?" in thought.thinking
    assert thought.signature and thought.signature not in thought.thinking
    text_tokens = (len(said.text) + 3) // 4
    assert first.usage.output_tokens == text_tokens + (len(thought.thinking) + 3) // 4
    again = [*ASKED, {"role": "assistant", "content": first.content}, _user("And then?")]
    second = _think(_claude(sim), again, stream=stream)
    assert second.content[0].type == "thinking"
    assert second.content[1].text == "echo: And then?"


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def _results(answer: Any) -> dict[str, Any]:
    """The user turn answering every tool call of ``answer``."""
    results = [
        {"type": "tool_result", "tool_use_id": block.id, "content": f"RAG is {block.input['q']}"}
        for block in answer.content
        if block.type == "tool_use"
    ]
    return {"role": "user", "content": results}


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_a_tool_round_trip_keeps_its_thinking_as_the_api_requires(
    sim: Simulator, stream: bool
) -> None:
    client = _claude(sim)
    called = _think(client, ASKED, stream=stream, tools=[LOOKUP])
    assert [block.type for block in called.content] == ["thinking", "tool_use"]
    kept = [*ASKED, {"role": "assistant", "content": called.content}, _results(called)]
    answered = _think(client, kept, stream=stream, tools=[LOOKUP])
    assert answered.content[0].thinking.startswith(("A tool has answered", "The tool's result"))
    assert answered.content[1].text == "found: RAG is What is RAG?"
    dropped = [*ASKED, {"role": "assistant", "content": called.content[1:]}, _results(called)]
    with pytest.raises(anthropic.BadRequestError) as refused:
        _think(client, dropped, stream=stream, tools=[LOOKUP])
    assert _refusal(refused) == (
        "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
        "`tool_use`. When `thinking` is enabled, a final `assistant` message must start with "
        "a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` "
        "blocks). We recommend you include thinking blocks from previous turns. To avoid "
        "this requirement, disable `thinking`. Please consult our documentation at "
        "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
    )
    # without thinking the turn may drop it, as the API allows
    plain = _claude(sim).messages.create(
        model="claude-sim", max_tokens=ROOM, messages=dropped, tools=[LOOKUP]
    )
    assert [block.type for block in plain.content] == ["text"]


@pytest.mark.parametrize(
    ("field", "changed"),
    [("signature", lambda s: s[:-6] + "AAAAA="), ("thinking", lambda s: s + " ")],
    ids=["signature", "thinking text"],
)
def test_a_thinking_block_changed_on_its_way_back_is_refused(
    sim: Simulator, field: str, changed: Any
) -> None:
    first = _think(_claude(sim), ASKED)
    block = first.content[0].model_dump()
    block[field] = changed(block[field])
    messages = [*ASKED, {"role": "assistant", "content": [block]}, _user("More.")]
    with pytest.raises(anthropic.BadRequestError) as refused:
        _think(_claude(sim), messages)
    assert _refusal(refused) == "messages.1.content.0: Invalid `signature` in `thinking` block"


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_the_redacting_trigger_gives_redacted_thinking_that_goes_back(
    sim: Simulator, stream: bool
) -> None:
    asked = [_user(f"{REDACTING} What is RAG?")]
    first = _think(_claude(sim), asked, stream=stream)
    assert [block.type for block in first.content] == ["redacted_thinking", "text"]
    assert "RAG" not in first.content[0].data  # opaque
    again = [*asked, {"role": "assistant", "content": first.content}, _user("More.")]
    assert _think(_claude(sim), again).content[-1].text == "echo: More."
    tampered = {"type": "redacted_thinking", "data": "A" + first.content[0].data[1:]}
    messages = [*asked, {"role": "assistant", "content": [tampered]}, _user("More.")]
    with pytest.raises(anthropic.BadRequestError) as refused:
        _think(_claude(sim), messages)
    assert _refusal(refused) == "messages.1.content.0: Invalid `data` in `redacted_thinking` block"


@pytest.mark.parametrize(
    ("thinking", "max_tokens", "message"),
    [
        (
            {"type": "enabled", "budget_tokens": 1023},
            ROOM,
            "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024",
        ),
        (
            THINK,
            1024,
            "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our "
            "documentation at https://docs.claude.com/en/docs/build-with-claude/"
            "extended-thinking#max-tokens-and-context-window-size",
        ),
        ({"type": "enabled"}, ROOM, "thinking.enabled.budget_tokens: Field required"),
        (
            {"type": "enabled", "budget_tokens": "1024"},
            ROOM,
            "thinking.enabled.budget_tokens: Input should be a valid integer",
        ),
        (
            {"type": "on"},
            ROOM,
            "thinking: Input tag 'on' found using 'type' does not match any of the expected "
            "tags: 'enabled', 'disabled', 'adaptive', 'between_tools'",
        ),
        ("yes", ROOM, "thinking: Input should be a valid dictionary or object"),
    ],
    ids=["budget too small", "budget not under max_tokens", "no budget", "a text budget",
         "unknown kind", "not an object"],
)  # fmt: skip
def test_a_thinking_config_the_api_refuses_is_refused(
    sim: Simulator, thinking: Any, max_tokens: int, message: str
) -> None:
    with pytest.raises(anthropic.BadRequestError) as refused:
        _claude(sim).messages.create(
            model="claude-sim", max_tokens=max_tokens, thinking=thinking, messages=ASKED
        )
    assert _refusal(refused) == message


@pytest.mark.parametrize(
    ("sampling", "refused"),
    [
        ({"temperature": 0}, "`temperature` may only be set to 1 when thinking is enabled."),
        ({"top_p": 0.9}, "`top_p` must be greater than or equal to 0.95 or unset when thinking"),
        ({"top_k": 5}, "`top_k` must be unset when thinking is enabled."),
        ({"temperature": 1, "top_p": 0.95}, None),
    ],
    ids=["temperature", "top_p", "top_k", "taken"],
)
def test_sampling_settings_beside_extended_thinking_are_refused_as_the_api_refuses_them(
    sim: Simulator, sampling: dict[str, Any], refused: str | None
) -> None:
    """temperature=0 for repeatable answers beside extended thinking was answered, so its
    recording passed and failed live on its first request."""
    ask = {"model": "claude-sim", "max_tokens": ROOM, "thinking": THINK, "messages": ASKED}
    if refused is None:
        _claude(sim).messages.create(**ask, extra_body=sampling)
        return
    with pytest.raises(anthropic.BadRequestError) as error:
        _claude(sim).messages.create(**ask, extra_body=sampling)
    assert _refusal(error).startswith(refused)


@pytest.mark.parametrize(
    "thinking", [{"type": "disabled"}, {"type": "adaptive"}, {"type": "between_tools"}, None]
)  # between_tools (the anthropic SDK's BetaThinkingConfigBetweenToolsParam) was refused
def test_no_thought_unless_extended_thinking_is_asked_for(sim: Simulator, thinking: Any) -> None:
    asked = {} if thinking is None else {"thinking": thinking}
    answer = _claude(sim).messages.create(
        model="claude-sim", max_tokens=ROOM, messages=ASKED, **asked
    )
    assert [block.type for block in answer.content] == ["text"]


def test_interleaved_thinking_takes_a_budget_over_max_tokens(sim: Simulator) -> None:
    """With the interleaved thinking beta the budget is the whole turn's, which the API
    lets pass ``max_tokens``: the simulator refused it, and nothing could be recorded."""
    over = {"type": "enabled", "budget_tokens": 4096}
    answer = _claude(sim).beta.messages.create(
        model="claude-sim", max_tokens=ROOM, thinking=over, messages=ASKED,
        tools=[LOOKUP], betas=["interleaved-thinking-2025-05-14"],
    )  # fmt: skip
    assert [block.type for block in answer.content] == ["thinking", "tool_use"]


def test_counting_tokens_takes_thinking_without_max_tokens(sim: Simulator) -> None:
    counted = _claude(sim).messages.count_tokens(model="claude-sim", messages=ASKED, thinking=THINK)
    assert counted.input_tokens > 0
    with pytest.raises(anthropic.BadRequestError):
        _claude(sim).messages.count_tokens(
            model="claude-sim", messages=ASKED, thinking={"type": "enabled", "budget_tokens": 9}
        )


def test_the_same_seed_thinks_the_same_and_another_seed_otherwise() -> None:
    thoughts = []
    for seed, stream in ((SEED, False), (SEED, True), (SEED + 1, False)):
        with Simulator(behavior="echo", seed=seed) as fresh:
            thoughts.append(_think(_claude(fresh), ASKED, stream=stream).content[0])
    assert thoughts[0] == thoughts[1]  # plain or streamed, the same block
    assert thoughts[2].thinking != thoughts[0].thinking
    assert thoughts[2].signature != thoughts[0].signature


# -- OpenAI Responses --------------------------------------------------------------------

ENCRYPTED = ["reasoning.encrypted_content"]


def _reason(client: Any, given: Any, *, stream: bool = False, **more: Any) -> Any:
    fields = {"model": "o3", "input": given, **more}
    if not stream:
        return client.responses.create(**fields)
    with client.responses.stream(**fields) as events:
        return events.get_final_response()


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_a_reasoning_model_reasons_first_and_takes_its_reasoning_back(
    sim: Simulator, stream: bool
) -> None:
    client = _openai(sim)
    asked = {"reasoning": {"effort": "low", "summary": "auto"}, "include": ENCRYPTED}
    first = _reason(client, "What is RAG?", stream=stream, store=False, **asked)
    reasoning, said = first.output
    assert reasoning.type == "reasoning" and reasoning.id.startswith("rs_")
    [summary] = reasoning.summary
    assert summary.type == "summary_text" and "What is RAG?" in summary.text
    assert reasoning.encrypted_content and "RAG" not in reasoning.encrypted_content
    spent = (len(summary.text) + 3) // 4
    assert first.usage.output_tokens_details.reasoning_tokens == spent
    assert first.usage.output_tokens == spent + (len(said.content[0].text) + 3) // 4
    given = [item.model_dump(exclude_none=True, warnings=False) for item in first.output]
    second = _reason(client, [_user("What is RAG?"), *given, _user("And then?")], stream=stream)
    assert second.output_text == "echo: And then?"
    tampered = {**given[0], "encrypted_content": given[0]["encrypted_content"][:-8] + "AAAAAAA="}
    with pytest.raises(openai.BadRequestError) as refused:
        _reason(client, [_user("What is RAG?"), tampered, given[1], _user("And then?")])
    assert refused.value.body["code"] == "invalid_encrypted_content"
    assert refused.value.body["message"].endswith("...AAA= could not be verified.")


def test_the_reasoning_stream_names_its_summary_events(sim: Simulator) -> None:
    client = _openai(sim)
    asked = {"reasoning": {"summary": "detailed"}}
    with client.responses.stream(model="gpt-5", input="What is RAG?", **asked) as events:
        kinds = [event.type for event in events]
    reasoning = kinds[2 : kinds.index("response.output_item.done") + 1]  # the first item's
    assert reasoning[:2] == ["response.output_item.added", "response.reasoning_summary_part.added"]
    assert set(reasoning[2:-3]) == {"response.reasoning_summary_text.delta"}
    assert reasoning[-3:] == [
        "response.reasoning_summary_text.done",
        "response.reasoning_summary_part.done",
        "response.output_item.done",
    ]


@pytest.mark.parametrize(
    ("model", "asked", "reasons"),
    [
        ("gpt-4.1", {}, False),
        ("qwen3-32b", {"reasoning": {"effort": "medium"}}, True),  # another server's model
        ("gpt-5.2", {"reasoning": {"effort": "none"}}, False),  # o3 takes no none
        ("gpt-5-mini", {}, True),
        ("gpt-5.1", {}, False),  # it reasons at none unless told: it reasoned at medium
        ("gpt-5.1", {"reasoning": {"effort": "low"}}, True),
    ],
)
def test_reasoning_comes_with_a_reasoning_model_or_effort(
    sim: Simulator, model: str, asked: dict[str, Any], reasons: bool
) -> None:
    answer = _openai(sim).responses.create(model=model, input="Hi", **asked)
    kinds = [item.type for item in answer.output]
    assert kinds == (["reasoning", "message"] if reasons else ["message"])
    stated = asked.get("reasoning", {}).get("effort") or {"gpt-5-mini": "medium"}.get(model)
    assert answer.reasoning.effort == (stated or ("none" if model == "gpt-5.1" else None))
    assert (answer.usage.output_tokens_details.reasoning_tokens > 0) is reasons
    if reasons:  # no summary, no encrypted content unless asked
        assert answer.output[0].summary == [] and answer.output[0].encrypted_content is None


def test_a_thought_is_spent_within_max_output_tokens(sim: Simulator) -> None:
    answer = _openai(sim).responses.create(model="o3", input="Hi " * 200, max_output_tokens=16)
    assert answer.status == "incomplete"
    assert answer.usage.output_tokens == answer.usage.output_tokens_details.reasoning_tokens == 16


@pytest.mark.parametrize(
    ("asked", "param"),
    [
        ({"reasoning": {"effort": "huge"}}, "reasoning.effort"),
        ({"reasoning": {"summary": "long"}}, "reasoning.summary"),
        ({"reasoning": "high"}, "reasoning"),
        ({"include": "reasoning.encrypted_content"}, "include"),
    ],
)
def test_a_reasoning_request_the_api_refuses_is_refused(
    sim: Simulator, asked: dict[str, Any], param: str
) -> None:
    with pytest.raises(openai.BadRequestError) as refused:
        _openai(sim).responses.create(model="o3", input="Hi", **asked)
    assert refused.value.body["param"] == param
    assert refused.value.body["code"] in ("invalid_value", "invalid_type")


def test_a_reasoning_item_given_back_needs_its_summary(sim: Simulator) -> None:
    with pytest.raises(openai.BadRequestError) as refused:
        _openai(sim).responses.create(
            model="o3", input=[{"type": "reasoning", "id": "rs_1"}, _user("Hi")]
        )
    assert refused.value.body["message"] == "Missing required parameter: 'input[0].summary'."


@pytest.mark.parametrize(
    ("model", "effort", "said", "code"),
    [
        ("gpt-4o", "low", "Unsupported parameter: '{param}' is not supported with this model.",
         "unsupported_parameter"),
        ("openai/gpt-4.1-mini", "high", "Unsupported parameter: '{param}' is not supported "
         "with this model.", "unsupported_parameter"),
        ("gpt-5-chat-latest", "medium", "Unsupported parameter: '{param}' is not supported "
         "with this model.", "unsupported_parameter"),
        ("gpt-5.1", "minimal", "Unsupported value: 'minimal' is not supported with the "
         "'gpt-5.1' model. Supported values are: 'none', 'low', 'medium', and 'high'.",
         "unsupported_value"),
        ("gpt-5-mini-2025-08-07", "none", "Unsupported value: 'none' is not supported with the "
         "'gpt-5-mini-2025-08-07' model. Supported values are: 'minimal', 'low', 'medium', "
         "and 'high'.", "unsupported_value"),
        # pydantic-ai's openai_reasoning_effort="minimal", kept from a GPT-5 model
        ("o4-mini", "minimal", "Unsupported value: 'minimal' is not supported with the "
         "'o4-mini' model. Supported values are: 'low', 'medium', and 'high'.",
         "unsupported_value"),
    ],
)  # fmt: skip
def test_an_effort_the_model_does_not_take_is_refused_as_the_api_refuses_it(
    sim: Simulator, model: str, effort: str, said: str, code: str
) -> None:
    """A reasoning effort given to a model that does not reason (``gpt-4o``), or one its
    model does not take, was answered, with a thought: a recording was green and failed
    live."""
    client = _openai(sim)
    reasoning = {"effort": effort}
    for param, call in (
        ("reasoning.effort", lambda: _reason(client, "Hi", model=model, reasoning=reasoning)),
        ("reasoning_effort", lambda: client.chat.completions.create(
            model=model, messages=[_user("Hi")], reasoning_effort=effort)),
    ):  # fmt: skip
        with pytest.raises(openai.BadRequestError) as refused:
            call()
        assert refused.value.body == {
            "message": said.format(param=param), "type": "invalid_request_error",
            "param": param, "code": code,
        }  # fmt: skip
    summary_only = _reason(client, "Hi", model="gpt-4o", reasoning={"summary": "auto"})
    assert [item.type for item in summary_only.output] == ["message"]


@pytest.mark.parametrize(
    ("model", "effort", "refused"),
    [("gpt-5", None, True), ("gpt-5-nano", "minimal", True), ("gpt-5.1", None, False),
     ("gpt-5.1", "none", False), ("gpt-5.2", "low", True), ("gpt-5-chat-latest", None, False)],
)  # fmt: skip
def test_a_gpt_5_model_reasoning_takes_only_the_default_temperature(
    sim: Simulator, model: str, effort: str | None, refused: bool
) -> None:
    """``temperature`` other than 1 was answered for ``gpt-5`` and ``gpt-5-mini``, which
    the API refuses as it does for the o-series, and for ``gpt-5.1`` and later when told
    to reason."""
    client = _openai(sim)
    chat = {} if effort is None else {"reasoning_effort": effort}
    calls = (
        lambda: client.chat.completions.create(
            model=model, messages=[_user("Hi")], temperature=0.2, **chat),
        lambda: _reason(client, "Hi", model=model, top_p=0.5, reasoning={"effort": effort}),
    )  # fmt: skip
    for call in calls:
        if not refused:
            call()
            continue
        with pytest.raises(openai.BadRequestError, match="Only the default \\(1\\) value"):
            call()


# -- OpenAI Chat Completions -------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "effort", "reasons"),
    [("o4-mini", None, True), ("gpt-4o", None, False), ("qwen3-32b", "high", True),
     ("gpt-5-chat-latest", None, False), ("gpt-5.1", "none", False), ("gpt-5.1", None, False)],
)  # fmt: skip
def test_chat_counts_reasoning_tokens_of_a_reasoning_model(
    sim: Simulator, model: str, effort: str | None, reasons: bool
) -> None:
    asked = {} if effort is None else {"reasoning_effort": effort}
    messages = [_user("Hi")]
    plain = _openai(sim).chat.completions.create(model=model, messages=messages, **asked)
    streamed = _openai(sim).chat.completions.create(
        model=model, messages=messages, stream=True, stream_options={"include_usage": True}, **asked
    )
    for usage in (plain.usage, [chunk.usage for chunk in streamed][-1]):
        details = usage.completion_tokens_details  # given as the API gives it, reasoning or not
        assert details is not None and details.audio_tokens == 0
        assert (details.reasoning_tokens > 0) is reasons
        assert usage.prompt_tokens_details is not None
        assert usage.prompt_tokens_details.cached_tokens == 0
        assert usage.completion_tokens == details.reasoning_tokens + 2  # and "echo: Hi"
        assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens


def test_chat_refuses_an_unknown_reasoning_effort(sim: Simulator) -> None:
    with pytest.raises(openai.BadRequestError) as refused:
        _openai(sim).chat.completions.create(
            model="o3", messages=[_user("Hi")], reasoning_effort="huge"
        )
    assert refused.value.body["param"] == "reasoning_effort"
    assert refused.value.body["message"].startswith("Invalid value: 'huge'. Supported values are:")


def test_only_what_the_simulator_sealed_unseals() -> None:
    made = sealed("I think, therefore.")
    assert unsealed(made) == "I think, therefore."
    cut, foreign = made[:-4], base64.b64encode(b"x" * 64).decode()
    for data in (cut, foreign, "not base64!", "dünn", "", base64.b64encode(b"rg").decode()):
        assert unsealed(data) is None, data


def test_reasoning_models_are_named_as_openai_names_them() -> None:
    named = ["o1", "o3-mini", "o4-mini-2025-04-16", "gpt-5", "gpt-5.1-codex", "openai/o3"]
    assert all(reasoning_model(name) for name in named)
    others = ["gpt-4o", "gpt-4.1-mini", "gpt-5-chat-latest", "omni-moderation-latest", "m"]
    assert not any(reasoning_model(name) for name in others)


# -- recorded from the simulator, replayed offline ---------------------------------------


def _conversations(anthropic_client: Any, openai_client: Any) -> list[Any]:
    """A thinking tool round trip, streamed, and a Responses two-turn giving its
    reasoning back: every thought and answer, as dumped by the SDKs."""
    called = _think(anthropic_client, ASKED, stream=True, tools=[LOOKUP])
    kept = [*ASKED, {"role": "assistant", "content": called.content}, _results(called)]
    answered = _think(anthropic_client, kept, stream=True, tools=[LOOKUP])
    asked = {"reasoning": {"summary": "auto"}, "include": ENCRYPTED, "store": False}
    first = _reason(openai_client, "What is RAG?", **asked)
    given = [item.model_dump(exclude_none=True, warnings=False) for item in first.output]
    second = _reason(openai_client, [_user("What is RAG?"), *given, _user("And then?")], **asked)
    return [m.model_dump() for m in (called, answered, first, second)]


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_thinking_records_from_the_simulator_and_replays_offline(tmp_path: Path) -> None:
    store = tmp_path / "thinking.jsonl"
    with Simulator(behavior=LooksUpThenAnswers(), seed=SEED) as fresh:
        claude = httpx2_client(store, "record-missing", approve_live=True, source="sim")
        gpt = httpx2_client(store, "record-missing", approve_live=True, source="sim")
        recorded = _conversations(
            anthropic.Anthropic(api_key="k", base_url=fresh.url, http_client=claude),
            openai.OpenAI(api_key="k", base_url=fresh.openai_base_url, http_client=gpt),
        )
    assert recorded[0]["content"][0]["type"] == "thinking"
    assert recorded[2]["output"][0]["encrypted_content"]
    with block_network():
        replayed = _conversations(
            anthropic.Anthropic(api_key="k", max_retries=0, http_client=httpx2_client(store)),
            openai.OpenAI(api_key="k", max_retries=0, http_client=httpx2_client(store)),
        )
    assert replayed == recorded


def _reasoned_round_trip(client: Any, *, keep: bool = True) -> None:
    """A reasoning model's tool call and the request answering it, its reasoning item
    given back as input (left out unless ``keep``)."""
    tool = {"type": "function", "name": "lookup", "parameters": LOOKUP["input_schema"]}
    first = _reason(client, [_user("What is RAG?")], tools=[tool])
    given = [item.model_dump(exclude_none=True, warnings=False) for item in first.output]
    reasoning, call = given
    result = {"type": "function_call_output", "call_id": call["call_id"], "output": "found"}
    kept = [reasoning, call] if keep else [call]
    _reason(client, [_user("What is RAG?"), *kept, result], tools=[tool])


@pytest.mark.slow  # records through an SDK from the simulator and replays
def test_a_miss_leaving_out_a_reasoning_item_is_compared_with_the_request_that_had_it(
    tmp_path: Path,
) -> None:
    """Every later input item shifted by the one left out: ranked position by position,
    the nearest was the first request, and the miss said the tool call and its result
    were missing from it, where the one thing changed is the reasoning item."""
    store = tmp_path / "reasoning.jsonl"
    with Simulator(behavior=LooksUpThenAnswers(), seed=SEED) as fresh:
        http = httpx2_client(store, "record-missing", approve_live=True, source="sim")
        _reasoned_round_trip(
            openai.OpenAI(api_key="k", base_url=fresh.openai_base_url, http_client=http)
        )
    replaying = openai.OpenAI(api_key="k", max_retries=0, http_client=httpx2_client(store))
    with block_network(), pytest.raises(FixtureMismatchError) as caught:
        _reasoned_round_trip(replaying, keep=False)
    assert f"{store}:2 (recorded != requested)" in str(caught.value)
    (left_out,) = caught.value.differences
    assert left_out.startswith("body.input[1]: {"), left_out
    assert "'type': 'reasoning'" in left_out and left_out.endswith("!= <missing>"), left_out


def test_each_chat_choice_counts_the_reasoning_it_spent() -> None:
    """n choices of a reasoning model each reason (the same thought): its tokens count n
    times, as each choice's answer does; they were counted once."""
    spent = []
    for n in (1, 3):
        with Simulator(behavior=LooksUpThenAnswers(), seed=SEED) as fresh:  # answer 0 each
            answer = _openai(fresh).chat.completions.create(model="o3", messages=[_user("Hi")], n=n)
        usage = answer.usage
        details = usage.completion_tokens_details
        assert details is not None
        assert usage.completion_tokens == details.reasoning_tokens + 2 * n  # "echo: Hi" each
        spent.append(details.reasoning_tokens)
    assert spent[1] == 3 * spent[0] > 0


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [("summary", "thought", "an array, but got a string"),
     ("encrypted_content", 5, "a string, but got an integer")],
)  # fmt: skip
def test_a_reasoning_item_given_back_of_the_wrong_type_is_refused(
    sim: Simulator, field: str, value: Any, expected: str
) -> None:
    item = {"type": "reasoning", "id": "rs_1", "summary": [], field: value}
    with pytest.raises(openai.BadRequestError) as refused:
        _reason(_openai(sim), [item, _user("Go on.")])
    assert refused.value.body["param"] == f"input[0].{field}"
    assert refused.value.body["code"] == "invalid_type"
    message = f"Invalid type for 'input[0].{field}': expected {expected} instead."
    assert refused.value.body["message"] == message


def test_a_tool_loop_thinks_at_its_start_and_may_call_again_without_a_thought(
    sim: Simulator,
) -> None:
    """A tool loop is one assistant turn: without interleaved thinking the API thinks at
    its start only, and a later call of the loop comes without a thought. A request
    answering that call, the turn's first thinking kept, was refused as if it had been
    dropped; one that drops the first is refused, naming it."""
    client = _claude(sim)
    called = _think(client, ASKED, tools=[LOOKUP])
    call = {"type": "tool_use", "id": "toolu_sim_2", "name": "lookup", "input": {"q": "more"}}
    result = {"type": "tool_result", "tool_use_id": "toolu_sim_2", "content": "RAG is more"}
    again = [{"role": "assistant", "content": [call]}, {"role": "user", "content": [result]}]
    first = {"role": "assistant", "content": called.content}
    answered = _think(client, [*ASKED, first, _results(called), *again], tools=[LOOKUP])
    assert [block.type for block in answered.content] == ["thinking", "text"]
    first = {"role": "assistant", "content": called.content[1:]}
    with pytest.raises(anthropic.BadRequestError) as refused:
        _think(client, [*ASKED, first, _results(called), *again], tools=[LOOKUP])
    assert _refusal(refused).startswith("messages.1.content.0.type: Expected `thinking`")
