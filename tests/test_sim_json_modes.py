"""JSON mode without a schema: Chat Completions' ``response_format`` ``json_object``, the
Responses API's ``text.format`` ``json_object`` and Gemini's ``responseMimeType``
``application/json`` are answered with a JSON object, as the APIs answer them, the
behaviour's text in its ``answer`` field. The simulator passed echo's plain text on, and a
user's ``json.loads`` of the answer failed."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest

from replaygate.sim import Simulator
from replaygate.sim.json_word import CHAT_MESSAGE, RESPONSES_MESSAGE
from sdks import genai, openai

ASK = "Give me JSON about Paris"


@dataclass
class Clients:
    """The SDK clients of one simulator (a Gemini client costs a TLS context to make)."""

    openai: Any
    gemini: Any


def _clients(sim: Simulator) -> Clients:
    gemini_options = genai.types.HttpOptions(base_url=sim.url)
    return Clients(
        openai.OpenAI(api_key="k", base_url=sim.openai_base_url, max_retries=0),
        genai.Client(api_key="k", http_options=gemini_options),
    )


@pytest.fixture(scope="module")
def clients(sim: Simulator) -> Clients:
    return _clients(sim)


def _chat(clients: Clients, ask_text: str = ASK, **options: Any) -> str:
    messages = [{"role": "user", "content": ask_text}]
    create = clients.openai.chat.completions.create
    if options.pop("stream", False):
        chunks = create(model="g", messages=messages, stream=True, **options)
        return "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    return create(model="g", messages=messages, **options).choices[0].message.content or ""


def _responses(clients: Clients, ask_text: str = ASK, **options: Any) -> str:
    return clients.openai.responses.create(model="g", input=ask_text, **options).output_text


def _gemini(clients: Clients, **options: Any) -> str:
    config = genai.types.GenerateContentConfig(**options)
    reply = clients.gemini.models.generate_content(model="gemini-sim", contents=ASK, config=config)
    return reply.text or ""


@pytest.mark.parametrize(
    ("ask", "options"),
    [
        (_chat, {"response_format": {"type": "json_object"}}),
        (_chat, {"response_format": {"type": "json_object"}, "stream": True}),
        (_responses, {"text": {"format": {"type": "json_object"}}}),
        (_gemini, {"response_mime_type": "application/json"}),
    ],
    ids=["chat", "chat-stream", "responses", "gemini"],
)
def test_json_mode_is_answered_with_a_json_object_holding_the_answer(
    clients: Clients, ask: Any, options: dict[str, Any]
) -> None:
    assert json.loads(ask(clients, **options)) == {"answer": f"echo: {ASK}"}


@pytest.mark.parametrize(
    ("ask", "options"),
    [
        (_chat, {"response_format": {"type": "text"}}),
        (_responses, {"text": {"format": {"type": "text"}}}),
        (_gemini, {"response_mime_type": "text/plain"}),
    ],
    ids=["chat", "responses", "gemini"],
)
def test_text_asked_for_stays_text(clients: Clients, ask: Any, options: dict[str, Any]) -> None:
    assert ask(clients, **options) == f"echo: {ASK}"


def test_a_json_object_answer_is_the_same_from_another_simulator_of_the_seed() -> None:
    """The research agent's model draws its answers from the seed: two simulators of one
    seed answer the same JSON, byte for byte."""
    answers = []
    for _ in range(2):
        with Simulator(behavior="research-copilot", seed=7) as running:
            answers.append(_chat(_clients(running), response_format={"type": "json_object"}))
    assert answers[0] == answers[1]
    assert isinstance(json.loads(answers[0]), dict)


@pytest.mark.parametrize(
    ("ask", "options", "message", "param"),
    [
        (_chat, {"response_format": {"type": "json_object"}}, CHAT_MESSAGE, "messages"),
        (
            _responses,
            {"text": {"format": {"type": "json_object"}}, "instructions": "Reply in JSON."},
            RESPONSES_MESSAGE,
            "text.format",
        ),
    ],
    ids=["chat", "responses"],
)
def test_json_mode_without_the_word_json_is_refused_as_the_api_refuses_it(
    clients: Clients, ask: Any, options: dict[str, Any], message: str, param: str
) -> None:
    """The API answers JSON mode only where the conversation says "json" (the Responses
    API's instructions alone do not count): an application that forgets it fails against
    the simulator, as it would live, not after its fixtures were recorded."""
    with pytest.raises(openai.BadRequestError) as refused:
        ask(clients, ask_text="Tell me about Paris", **options)
    assert refused.value.status_code == 400
    assert refused.value.body == {
        "message": message,
        "type": "invalid_request_error",
        "param": param,
        "code": None,
    }


def test_the_word_json_counts_in_any_case_and_in_a_system_message(clients: Clients) -> None:
    create = clients.openai.chat.completions.create
    messages = [
        {"role": "system", "content": "You answer in Json."},
        {"role": "user", "content": [{"type": "text", "text": "Tell me about Paris"}]},
    ]
    reply = create(model="g", messages=messages, response_format={"type": "json_object"})
    assert json.loads(reply.choices[0].message.content or "") == {
        "answer": "echo: Tell me about Paris"
    }
