"""A request that forces a tool call (Anthropic's ``tool_choice`` ``any`` or a named
``tool``, OpenAI's ``required`` or a named function, Gemini's ``ANY``) is answered with a
call, as the real APIs answer it, whatever the behaviour said: echo's text answer was
passed on, so Instructor's, pydantic-ai's and LangChain's structured outputs (a forced
output tool) failed to record from the echo simulator (retried, then refused). The call's
arguments are made from the tool's JSON schema: what it requires, ``$ref``s resolved,
the first of an ``enum`` or ``anyOf``, strings echoing the question."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest

from replaygate.sim import Simulator
from replaygate.sim.arguments import schema_example

CITY = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "population": {"type": "integer", "minimum": 1},
        "country": {"$ref": "#/$defs/Country"},
        "size": {"enum": ["small", "large"]},
        "nickname": {"anyOf": [{"type": "null"}, {"type": "string"}]},
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1},
        "capital": {"type": "boolean"},
        "area": {"type": "number"},
    },
    "required": ["name", "population", "country", "size", "nickname", "tags", "capital", "area"],
    "$defs": {
        "Country": {
            "type": "object",
            "properties": {"code": {"type": "string", "const": "FR"}},
            "required": ["code"],
        }
    },
}

STRICT_CITY = {
    **CITY,
    "additionalProperties": False,
    "$defs": {"Country": {**CITY["$defs"]["Country"], "additionalProperties": False}},
}
"""CITY as a schema asked for with ``strict: true`` must be: every object closed."""

ANTHROPIC_CITY = {
    **STRICT_CITY,
    "properties": {
        **CITY["properties"],
        "population": {"type": "integer", "description": "{minimum: 1}"},
    },
}
"""CITY as the anthropic SDK sends it (``transform_schema``): every object closed, and the
``minimum`` Anthropic's structured outputs refuse moved into the field's description."""


def test_arguments_are_made_from_the_schema() -> None:
    assert schema_example(CITY, "hi") == {
        "name": "hi",
        "population": 1,
        "country": {"code": "FR"},
        "size": "small",
        "nickname": None,
        "tags": ["hi"],
        "capital": False,
        "area": 0.0,
    }
    assert schema_example({"type": "object"}, "hi") == {}
    looping = {"$ref": "#/$defs/A", "$defs": {"A": {"$ref": "#/$defs/A"}}}
    assert schema_example(looping, "hi") is None


def _anthropic(sim: Simulator, choice: Any) -> Any:
    body = {
        "model": "m",
        "max_tokens": 256,
        "messages": [{"role": "user", "content": "Paris"}],
        "tools": [{"name": "City", "input_schema": CITY}],
        "tool_choice": choice,
    }
    headers = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
    reply = httpx2.post(f"{sim.url}/v1/messages", json=body, headers=headers).json()
    block = reply["content"][0]
    return reply["stop_reason"], block.get("input", block.get("text"))


def _chat(sim: Simulator, choice: Any) -> Any:
    body = {
        "model": "g",
        "messages": [{"role": "user", "content": "Paris"}],
        "tools": [{"type": "function", "function": {"name": "City", "parameters": CITY}}],
        "tool_choice": choice,
    }
    headers = {"authorization": "Bearer k"}
    reply = httpx2.post(f"{sim.openai_base_url}/chat/completions", json=body, headers=headers)
    choice_ = reply.json()["choices"][0]
    calls = choice_["message"].get("tool_calls")
    said = json.loads(calls[0]["function"]["arguments"]) if calls else choice_["message"]["content"]
    return choice_["finish_reason"], said


def _responses(sim: Simulator, choice: Any) -> Any:
    body = {
        "model": "g",
        "input": "Paris",
        "tools": [{"type": "function", "name": "City", "parameters": CITY}],
        "tool_choice": choice,
    }
    headers = {"authorization": "Bearer k"}
    item = httpx2.post(f"{sim.openai_base_url}/responses", json=body, headers=headers).json()
    first = item["output"][0]
    if first["type"] == "function_call":
        return "function_call", json.loads(first["arguments"])
    return "message", first["content"][0]["text"]


@pytest.mark.parametrize(
    ("ask", "forced", "auto", "called"),
    [
        (_anthropic, {"type": "tool", "name": "City"}, {"type": "auto"}, "tool_use"),
        (_anthropic, {"type": "any"}, {"type": "auto"}, "tool_use"),
        (_chat, "required", "auto", "tool_calls"),
        (_chat, {"type": "function", "function": {"name": "City"}}, "auto", "tool_calls"),
        (_responses, "required", "auto", "function_call"),
    ],
)
def test_a_forced_tool_is_called_even_by_echo(
    sim: Simulator, ask: Any, forced: Any, auto: Any, called: str
) -> None:
    stop, arguments = ask(sim, forced)
    assert stop == called
    assert arguments["name"] == "echo: Paris" and arguments["country"] == {"code": "FR"}
    stop, text = ask(sim, auto)
    assert text == "echo: Paris"


def _formatted(sim: Simulator, api: str) -> Any:
    """The text answering a request that asks for JSON of :data:`CITY`'s schema."""
    if api == "anthropic":
        body: dict[str, Any] = {
            "model": "m",
            "max_tokens": 256,
            "messages": [{"role": "user", "content": "Paris"}],
            "output_config": {"format": {"type": "json_schema", "schema": ANTHROPIC_CITY}},
        }
        headers = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
        return httpx2.post(f"{sim.url}/v1/messages", json=body, headers=headers).json()["content"][
            0
        ]["text"]
    headers = {"authorization": "Bearer k"}
    if api == "chat":
        body = {
            "model": "g",
            "messages": [{"role": "user", "content": "Paris"}],
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "City", "schema": STRICT_CITY, "strict": True},
            },
        }
        reply = httpx2.post(f"{sim.openai_base_url}/chat/completions", json=body, headers=headers)
        return reply.json()["choices"][0]["message"]["content"]
    body = {
        "model": "g",
        "input": "Paris",
        "text": {"format": {"type": "json_schema", "name": "City", "schema": CITY}},
    }
    reply = httpx2.post(f"{sim.openai_base_url}/responses", json=body, headers=headers)
    return reply.json()["output"][0]["content"][0]["text"]


@pytest.mark.parametrize("api", ["anthropic", "chat", "responses"])
def test_a_json_schema_asked_for_is_answered_in_json_even_by_echo(sim: Simulator, api: str) -> None:
    """LangChain's ``with_structured_output`` on ChatOpenAI (``json_schema`` by default),
    pydantic-ai's ``NativeOutput``: the APIs answer JSON of the schema; echo's text was
    passed on and failed to parse."""
    answer = json.loads(_formatted(sim, api))
    assert answer["name"] == "echo: Paris" and answer["size"] == "small"


def test_a_call_forced_again_in_a_conversation_has_an_id_of_its_own(sim: Simulator) -> None:
    """Instructor asks again after a validation error, the forced call and its error in
    the history: the second call's id is not the first's."""
    tools = [{"type": "function", "function": {"name": "City", "parameters": CITY}}]
    headers = {"authorization": "Bearer k"}
    url = f"{sim.openai_base_url}/chat/completions"
    asked: list[dict[str, Any]] = [{"role": "user", "content": "Paris"}]
    body = {"model": "g", "messages": asked, "tools": tools, "tool_choice": "required"}
    first = httpx2.post(url, json=body, headers=headers).json()["choices"][0]["message"]
    (call,) = first["tool_calls"]
    asked += [
        {"role": "assistant", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": call["id"], "content": "population: too small"},
        {"role": "user", "content": "Fix it."},
    ]
    second = httpx2.post(url, json=body, headers=headers)
    assert second.status_code == 200, second.text
    (again,) = second.json()["choices"][0]["message"]["tool_calls"]
    assert again["id"] != call["id"]


@pytest.mark.parametrize("field", ["responseJsonSchema", "responseSchema", "response_schema"])
def test_gemini_answers_json_of_the_schema_it_is_given(sim: Simulator, field: str) -> None:
    """Gemini's JSON Schema (``responseJsonSchema``), or its OpenAPI subset whose types are
    upper case (``responseSchema``, as LiteLLM writes it in snake case)."""
    schema: dict[str, Any] = {
        "type": "OBJECT" if field != "responseJsonSchema" else "object",
        "properties": {"name": {"type": "STRING"}, "rank": {"type": "INTEGER"}},
        "required": ["name", "rank"],
    }
    config = {"responseMimeType": "application/json", field: schema}
    body: dict[str, Any] = {"contents": [{"role": "user", "parts": [{"text": "Paris"}]}]}
    body["generation_config" if field == "response_schema" else "generationConfig"] = config
    path = f"{sim.url}/v1beta/models/gemini-sim:generateContent"
    reply = httpx2.post(path, json=body, headers={"x-goog-api-key": "k"}).json()
    text = reply["candidates"][0]["content"]["parts"][0]["text"]
    assert json.loads(text) == {"name": "echo: Paris", "rank": 0}


def test_gemini_s_schema_keywords_in_snake_case_are_followed(sim: Simulator) -> None:
    """google-genai sends its Schema's keywords in snake_case (an ADK agent's
    ``output_schema`` with ``Field(min_length=2)`` on a list as ``min_items``), which the
    API reads as their camelCase: ``tags: []`` was answered, and the agent's validation
    failed; a property's name stays as it is."""
    text = {"type": "STRING", "min_length": 12}
    schema = {
        "type": "OBJECT",
        "properties": {
            "tags": {"type": "ARRAY", "items": text, "min_items": 2},
            "min_items": {"any_of": [{"type": "INTEGER", "minimum": 3}, text]},
        },
        "property_ordering": ["tags", "min_items"],
        "required": ["tags", "min_items"],
    }
    config = {"responseMimeType": "application/json", "responseSchema": schema}
    ask = [{"role": "user", "parts": [{"text": "Paris"}]}]
    body: dict[str, Any] = {"contents": ask, "generationConfig": config}
    path = f"{sim.url}/v1beta/models/gemini-sim:generateContent"
    reply = httpx2.post(path, json=body, headers={"x-goog-api-key": "k"}).json()
    text = reply["candidates"][0]["content"]["parts"][0]["text"]
    assert json.loads(text) == {"tags": ["echo: Parisx", "echo: Parisx"], "min_items": 3}
    declared = {"name": "tag", "parameters": schema}  # a forced call's arguments alike
    body = {**body, "generationConfig": {}, "tools": [{"functionDeclarations": [declared]}]}
    body["toolConfig"] = {"functionCallingConfig": {"mode": "ANY"}}
    reply = httpx2.post(path, json=body, headers={"x-goog-api-key": "k"}).json()
    (part,) = reply["candidates"][0]["content"]["parts"]
    assert part["functionCall"]["args"] == json.loads(text)


@pytest.mark.parametrize("given", ["oops", [1]])
def test_a_json_schema_field_of_the_wrong_kind_is_answered_not_dropped(
    sim: Simulator, given: Any
) -> None:
    # it raised outside the simulator's error handling: the connection closed unanswered
    body = {
        "model": "g",
        "messages": [{"role": "user", "content": "hello"}],
        "response_format": {"type": "json_schema", "json_schema": given},
    }
    headers = {"authorization": "Bearer k"}
    reply = httpx2.post(f"{sim.openai_base_url}/chat/completions", json=body, headers=headers)
    assert reply.status_code == 200
    assert reply.json()["choices"][0]["message"]["content"] == "echo: hello"


def test_arguments_keep_within_the_schema_s_bounds() -> None:
    import jsonschema

    schema = {
        "type": "object",
        "properties": {
            "code": {"type": "string", "maxLength": 3},
            "name": {"type": "string", "minLength": 20},
            "email": {"type": "string", "format": "email"},
            "n": {"type": "integer", "minimum": 0.5},
            "k": {"type": "integer", "multipleOf": 7, "minimum": 8},
            "x": {"type": "number", "maximum": -2},
        },
    }
    made = schema_example(schema, "hello world")
    jsonschema.validate(made, schema, format_checker=jsonschema.FormatChecker())
    assert made["k"] == 14 and made["n"] == 1


def test_nested_min_items_make_an_answer_of_bounded_size() -> None:
    # 1,000 x 1,000 x 1,000 strings took the server's one thread for seconds and 126 MB
    level: dict[str, Any] = {"type": "string"}
    for _ in range(3):
        level = {"type": "array", "minItems": 1000, "items": level}
    assert len(json.dumps(schema_example(level, "x"))) < 200_000
