"""Structured Outputs: a schema given with ``strict: true`` (a ``json_schema`` format, a
function tool's parameters) whose objects do not all say ``additionalProperties: false``
and list every property in ``required`` is refused by the API with a 400 naming the
schema and where in it; the simulator answered it, so a recording that passed against it
failed on its first live request."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel

from replaygate.sim import Simulator
from replaygate.sim.strict_schema import chat_strict_schema, responses_strict_schema
from schema_edits import edited
from sdks import openai

GOOD = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "stops": {"type": "array", "items": {"$ref": "#/$defs/Stop"}},
    },
    "required": ["city", "stops"],
    "additionalProperties": False,
    "$defs": {
        "Stop": {
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "required": ["name"],
            "additionalProperties": False,
        }
    },
}
OPEN = "'additionalProperties' is required to be supplied and to be false."


@pytest.mark.parametrize(
    ("path", "key", "value", "said"),
    [
        ((), "additionalProperties", None, f"In context=(), {OPEN}"),
        (("$defs", "Stop"), "additionalProperties", True, f"In context=('$defs', 'Stop'), {OPEN}"),
        (
            (),
            "required",
            ["city"],
            "In context=(), 'required' is required to be supplied and "
            "to be an array including every key in properties. Missing 'stops'.",
        ),
        (  # pydantic's discriminated union
            ("properties", "city"),
            "oneOf",
            [{"type": "string"}, {"type": "integer"}],
            "In context=('properties', 'city'), 'oneOf' is not permitted.",
        ),
    ],
)
def test_a_strict_schema_breaking_a_rule_is_refused_where_it_breaks_it(
    path: tuple[str, ...], key: str, value: Any, said: str
) -> None:
    schema = edited(GOOD, path, key, value)
    chat = {
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "trip", "strict": True, "schema": schema},
        }
    }
    refused = chat_strict_schema(chat)
    assert refused is not None and refused.param == "response_format"
    assert refused.message == f"Invalid schema for response_format 'trip': {said}"
    tool = {"type": "function", "name": "plan", "strict": True, "parameters": schema}
    refused = responses_strict_schema({"tools": [{"type": "function", "name": "x"}, tool]})
    assert refused is not None and refused.param == "tools[1].parameters"
    assert refused.message == f"Invalid schema for function 'plan': {said}"
    assert (
        chat_strict_schema(
            {
                "response_format": {
                    "type": "json_schema",
                    "json_schema": {"name": "trip", "schema": schema},
                }
            }
        )
        is None
    )  # not strict: any schema
    assert responses_strict_schema({"tools": [{**tool, "strict": False}]}) is None


class Tally(BaseModel):
    counts: dict[str, int]


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    with Simulator(behavior="echo") as sim:
        yield openai.OpenAI(api_key="k", base_url=sim.openai_base_url, max_retries=0)


def test_the_sdk_gets_the_api_s_400(client: Any) -> None:
    tool = {
        "type": "function",
        "function": {
            "name": "plan",
            "strict": True,
            "parameters": edited(GOOD, (), "additionalProperties", None),
        },
    }
    with pytest.raises(openai.BadRequestError) as refused:
        client.chat.completions.create(
            model="gpt-4o", messages=[{"role": "user", "content": "Plan"}], tools=[tool]
        )
    assert refused.value.param == "tools[0].function.parameters"
    assert refused.value.code == "invalid_function_parameters"
    assert f"Invalid schema for function 'plan': In context=(), {OPEN}" in str(refused.value)
    with pytest.raises(openai.BadRequestError, match=r"context=\('properties', 'counts'\), 'add"):
        client.chat.completions.parse(  # a dictionary: an object no strict schema can close
            model="gpt-4o", messages=[{"role": "user", "content": "Count"}], response_format=Tally
        )
    text = {"format": {"type": "json_schema", "name": "trip", "strict": True, "schema": GOOD}}
    assert client.responses.create(model="gpt-4o", input="Plan", text=text).output_text


@pytest.mark.parametrize(
    ("schema", "strict", "said"),
    [
        ({"type": "array", "items": {"type": "string"}}, False,
         "schema must be a JSON Schema of 'type: \"object\"', got 'type: \"array\"'."),
        ({"properties": {}, "additionalProperties": False}, False,
         "schema must be a JSON Schema of 'type: \"object\"', got 'type: \"None\"'."),
        ({"type": "object", "properties": {"paths": {"type": "array"}}}, False,
         "In context=('properties', 'paths'), array schema missing items."),
    ],
)  # fmt: skip
def test_a_function_s_parameters_the_api_refuses_are_refused_as_it_refuses_them(
    client: Any, schema: dict[str, Any], strict: bool, said: str
) -> None:
    """A function whose parameters are no object schema (a root ``anyOf``, a schema with
    no ``type``), or hold an array without ``items``, strict or not, were answered, where
    the API refuses them; a strict function's refusal had the code of an output format's,
    ``invalid_json_schema``."""
    asked = {"model": "gpt-4o", "messages": [{"role": "user", "content": "Plan"}]}
    function = {"name": "plan", "strict": strict, "parameters": schema}
    with pytest.raises(openai.BadRequestError) as chat:
        client.chat.completions.create(**asked, tools=[{"type": "function", "function": function}])
    with pytest.raises(openai.BadRequestError) as responses:
        client.responses.create(
            model="gpt-4o", input="Plan", tools=[{"type": "function", **function}]
        )
    for refused, param in (
        (chat, "tools[0].function.parameters"),
        (responses, "tools[0].parameters"),
    ):
        assert refused.value.body == {
            "message": f"Invalid schema for function 'plan': {said}",
            "type": "invalid_request_error",
            "param": param,
            "code": "invalid_function_parameters",
        }
    unstrict = {
        "name": "plan",
        "parameters": {"type": "object", "properties": {"a": {"default": 1}}},
    }
    assert client.chat.completions.create(
        **asked, tools=[{"type": "function", "function": unstrict}]
    )
    assert client.chat.completions.create(
        **asked, tools=[{"type": "function", "function": {"name": "x", "parameters": {}}}]
    )


class Tagged(BaseModel):
    name: str
    tags: list[str] = []


def test_a_strict_schema_holding_a_default_is_answered(client: Any) -> None:
    """The openai SDK's ``parse`` keeps a field's non-null default in the strict schema it
    sends (Instructor's ``Mode.RESPONSES_TOOLS`` too), which the API takes: it was refused
    as ``'default' is not permitted.``, the API's answer of 2024."""
    asked = {"model": "gpt-4o", "messages": [{"role": "user", "content": "Tag"}]}
    parsed = client.chat.completions.parse(**asked, response_format=Tagged)
    assert parsed.choices[0].message.parsed == Tagged(name="echo: Tag")
    schema = edited(GOOD, ("properties", "city"), "default", "Paris")
    function = {"name": "plan", "strict": True, "parameters": schema}
    assert client.responses.create(
        model="gpt-4o", input="Plan", tools=[{"type": "function", **function}]
    ).output


class Boxed(BaseModel):
    name: str
    box: tuple[int, int]


def test_a_tuple_s_array_of_prefix_items_alone_is_answered(client: Any) -> None:
    """pydantic writes a ``tuple[int, int]`` as an array of ``prefixItems`` without
    ``items``, which the API takes, strict or not: it was refused as ``array schema
    missing items.`` (Instructor's tool of a model holding a tuple, the SDK's ``parse``)."""
    asked = {"model": "gpt-4o", "messages": [{"role": "user", "content": "Box"}]}
    parsed = client.chat.completions.parse(**asked, response_format=Boxed)
    assert parsed.choices[0].message.parsed == Boxed(name="echo: Box", box=(0, 0))
    function = {"name": "Boxed", "parameters": Boxed.model_json_schema()}
    tool = {"type": "function", "function": function}
    assert client.chat.completions.create(**asked, tools=[tool], tool_choice="required")
    with pytest.raises(openai.BadRequestError, match="array schema missing items"):
        schema = {"type": "object", "properties": {"box": {"type": "array"}}}
        client.chat.completions.create(
            **asked, tools=[{"type": "function", "function": {"name": "b", "parameters": schema}}]
        )
