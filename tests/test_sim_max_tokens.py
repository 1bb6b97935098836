"""An answer longer than the request's output limit is cut there, as the real APIs cut
it: Anthropic's ``stop_reason: max_tokens``, Chat Completions' ``finish_reason: length``,
a Responses ``status: incomplete`` (``max_output_tokens``), Gemini's ``MAX_TOKENS``, with
the limit as the output tokens. The simulator answered in full, with more output tokens
than the request allowed, so an agent's handling of a cut answer could not be recorded
from it.

A cut answer is given as the APIs give it, through the real SDKs: a Responses message
cut short is ``incomplete`` itself, and a thought that spent the whole limit leaves no
answer at all (a Responses reasoning item alone, where the simulator added an empty
message; Chat Completions' empty content, where it gave none; not even a tool call the
request forced).
"""

from __future__ import annotations

from typing import Any

import httpx2
import pytest

from replaygate.sim import Simulator
from sdks import anthropic, openai

LONG = "Tell me everything about keep-alive connections, at length, please."


def _post(sim: Simulator, path: str, body: dict[str, Any], headers: dict[str, str]) -> Any:
    reply = httpx2.post(f"{sim.url}{path}", json=body, headers=headers)
    assert reply.status_code == 200, reply.text
    return reply.json()


ANTHROPIC = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
OPENAI = {"authorization": "Bearer k"}


def test_anthropic_stops_at_max_tokens(sim: Simulator) -> None:
    body = {"model": "m", "max_tokens": 4, "messages": [{"role": "user", "content": LONG}]}
    cut = _post(sim, "/v1/messages", body, ANTHROPIC)
    assert cut["stop_reason"] == "max_tokens"
    assert cut["usage"]["output_tokens"] == 4
    text = cut["content"][0]["text"]
    assert text and f"echo: {LONG}".startswith(text) and len(text) <= 16
    body["max_tokens"] = 1024
    whole = _post(sim, "/v1/messages", body, ANTHROPIC)
    assert (whole["stop_reason"], whole["content"][0]["text"]) == ("end_turn", f"echo: {LONG}")


def test_chat_completions_finish_with_length(sim: Simulator) -> None:
    for limit in ("max_tokens", "max_completion_tokens"):
        body = {"model": "g", limit: 3, "messages": [{"role": "user", "content": LONG}]}
        choice = _post(sim, "/v1/chat/completions", body, OPENAI)["choices"][0]
        assert choice["finish_reason"] == "length"
        assert len(choice["message"]["content"]) <= 12


def test_a_response_is_incomplete_at_max_output_tokens(sim: Simulator) -> None:
    body = {"model": "g", "max_output_tokens": 16, "input": LONG * 3}
    cut = _post(sim, "/v1/responses", body, OPENAI)
    assert cut["status"] == "incomplete"
    assert cut["incomplete_details"] == {"reason": "max_output_tokens"}
    assert cut["usage"]["output_tokens"] == 16


def test_gemini_finishes_with_max_tokens(sim: Simulator) -> None:
    body = {
        "contents": [{"role": "user", "parts": [{"text": LONG}]}],
        "generationConfig": {"maxOutputTokens": 2},
    }
    path = "/v1beta/models/gemini-sim:generateContent"
    cut = _post(sim, path, body, {"x-goog-api-key": "k"})
    assert cut["candidates"][0]["finishReason"] == "MAX_TOKENS"


def _openai(sim: Simulator) -> Any:
    return openai.OpenAI(api_key="k", base_url=sim.openai_base_url, max_retries=0)


def _streamed_response(sim: Simulator, **fields: Any) -> Any:
    """The response the last event of a Responses stream holds, that event checked to be
    ``response.incomplete``: the SDK's helper gives no final response for it, as it
    finishes only at ``response.completed``."""
    with _openai(sim).responses.stream(**fields) as stream:
        last = list(stream)[-1]
        with pytest.raises(RuntimeError, match=r"Didn't receive a `response\.completed` event"):
            stream.get_final_response()
    assert last.type == "response.incomplete"
    return last.response


def _cut(response: Any) -> Any:
    """``response``, checked to be incomplete at ``max_output_tokens``."""
    assert response.status == "incomplete"
    assert response.incomplete_details.reason == "max_output_tokens"
    assert response.completed_at is None  # the API gives it to a completed response only
    return response


def test_a_response_cut_short_has_its_message_incomplete_too(sim: Simulator) -> None:
    fields: dict[str, Any] = {"model": "g", "max_output_tokens": 16, "input": LONG * 3}
    plain = _openai(sim).responses.create(**fields)
    for cut in (_cut(plain), _cut(_streamed_response(sim, **fields))):
        (message,) = cut.output
        assert (message.type, message.status) == ("message", "incomplete")
        assert f"echo: {LONG}".startswith(message.content[0].text) and cut.output_text
        assert cut.usage.output_tokens == 16
    whole = _openai(sim).responses.create(**{**fields, "max_output_tokens": 1024})
    assert (whole.status, whole.output[0].status) == ("completed", "completed")
    assert whole.completed_at == whole.created_at and whole.incomplete_details is None


LOOKUP = {"type": "function", "name": "lookup", "description": "Look it up.", "parameters": {}}


def test_reasoning_that_spends_the_limit_leaves_its_item_alone(sim: Simulator) -> None:
    """Not an empty message, nor the call ``tool_choice: required`` forces."""
    for tools in ({}, {"tools": [LOOKUP], "tool_choice": "required"}):
        fields = {"model": "o3", "max_output_tokens": 16, "input": LONG * 3, **tools}
        plain = _openai(sim).responses.create(**fields)
        for cut in (_cut(plain), _cut(_streamed_response(sim, **fields))):
            assert [item.type for item in cut.output] == ["reasoning"]
            assert cut.output_text == ""
            usage = cut.usage
            assert usage.output_tokens == usage.output_tokens_details.reasoning_tokens == 16


def test_chat_reasoning_that_spends_the_limit_has_empty_content(sim: Simulator) -> None:
    tool = {"type": "function", "function": {"name": "lookup", "parameters": {}}}
    for tools in ({}, {"tools": [tool], "tool_choice": "required"}):
        fields = {
            "model": "o3",
            "max_completion_tokens": 16,
            "messages": [{"role": "user", "content": LONG}],
            **tools,
        }
        plain = _openai(sim).chat.completions.create(**fields)
        (choice,) = plain.choices
        assert choice.finish_reason == "length"
        assert (choice.message.content, choice.message.tool_calls) == ("", None)
        details = plain.usage.completion_tokens_details
        assert details is not None and details.reasoning_tokens == 16
        chunks = list(_openai(sim).chat.completions.create(**fields, stream=True))
        deltas = [chunk.choices[0].delta for chunk in chunks]
        assert [d.content for d in deltas] == ["", None]  # the role's chunk, then the finish
        assert not any(d.tool_calls for d in deltas)
        assert chunks[-1].choices[0].finish_reason == "length"


def test_claude_cut_after_its_thinking_keeps_the_thinking_first(sim: Simulator) -> None:
    claude = anthropic.Anthropic(api_key="k", base_url=sim.url, max_retries=0)
    fields: dict[str, Any] = {
        "model": "claude-sim",
        "max_tokens": 1100,
        "thinking": {"type": "enabled", "budget_tokens": 1024},
        "messages": [{"role": "user", "content": LONG * 100}],
    }
    plain = claude.messages.create(**fields)
    with claude.messages.stream(**fields) as stream:
        streamed = stream.get_final_message()
    for cut in (plain, streamed):
        assert (cut.stop_reason, cut.usage.output_tokens) == ("max_tokens", 1100)
        assert [block.type for block in cut.content] == ["thinking", "text"]
        assert f"echo: {LONG * 100}".startswith(cut.content[1].text)


GEMINI = {"x-goog-api-key": "AIza-k"}
STOPPED = [{"role": "user", "content": "one STOP two"}]


@pytest.mark.parametrize(
    ("path", "body", "headers", "read", "expected"),
    [
        (
            "/v1/messages",
            {"model": "m", "max_tokens": 64, "stop_sequences": ["two", "STOP"],
             "messages": STOPPED},
            ANTHROPIC,
            lambda a: (a["content"][0]["text"], a["stop_reason"], a["stop_sequence"]),
            ("echo: one ", "stop_sequence", "STOP"),
        ),
        (
            "/v1/chat/completions",
            {"model": "g", "stop": "STOP", "messages": STOPPED},
            OPENAI,
            lambda a: (a["choices"][0]["message"]["content"], a["choices"][0]["finish_reason"]),
            ("echo: one ", "stop"),
        ),
        (
            "/v1beta/models/gemini-2.5-flash:generateContent",
            {"contents": [{"role": "user", "parts": [{"text": "one STOP two"}]}],
             "generationConfig": {"stopSequences": ["STOP"]}},
            GEMINI,
            lambda a: (a["candidates"][0]["content"]["parts"][0]["text"],
                       a["candidates"][0]["finishReason"]),
            ("echo: one ", "STOP"),
        ),
    ],
    ids=["anthropic", "chat", "gemini"],
)  # fmt: skip
def test_an_answer_stops_at_the_first_stop_sequence_it_holds(
    sim: Simulator,
    path: str,
    body: dict[str, Any],
    headers: dict[str, str],
    read: Any,
    expected: tuple[str, ...],
) -> None:
    """The simulator ignored stop sequences: a ReAct agent's "Observation:" came back with
    what follows it, which the API never sends, and the recording stored it."""
    assert read(_post(sim, path, body, headers)) == expected
