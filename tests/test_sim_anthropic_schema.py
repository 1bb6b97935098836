"""Anthropic's structured outputs take a schema only with every object closed
(``additionalProperties: false``) and without the constraints they do not support
(``minimum``, ``minLength``, ``maxItems``, a ``minItems`` above 1, ...): the API refuses
any other with a 400, for a JSON output (``output_config.format``, the older
``output_format``) and a strict tool's ``input_schema``. The simulator answered them, so
a recording that passed against it failed on its first live request."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, Field

from replaygate.sim import Simulator
from replaygate.sim.strict_schema import anthropic_strict_schema
from replaygate.sim.validation import OWN_WORDING
from schema_edits import edited
from sdks import anthropic

CLOSED: dict[str, Any] = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "format": "date", "pattern": "^[A-Z]"},
        "stops": {"type": "array", "items": {"$ref": "#/$defs/Stop"}, "minItems": 1},
        "kind": {"anyOf": [{"type": "null"}, {"enum": ["a", "b"]}]},
    },
    "required": ["city"],
    "additionalProperties": False,
    "$defs": {
        "Stop": {
            "type": "object",
            "properties": {"minimum": {"type": "integer"}},  # a property's name, no keyword
            "additionalProperties": False,
        }
    },
}


def _json_output(schema: Any) -> dict[str, Any]:
    return {"output_config": {"format": {"type": "json_schema", "schema": schema}}}


@pytest.mark.parametrize(
    ("path", "key", "value", "said"),
    [
        ((), "additionalProperties", None, "output_config.format.schema: an object schema must"),
        (("$defs", "Stop"), "additionalProperties", True,
         "output_config.format.schema.$defs.Stop: an object schema must"),
        (("properties", "city"), "minLength", 2,
         "output_config.format.schema.properties.city: 'minLength' is not supported"),
        (("properties", "stops"), "minItems", 2,
         "output_config.format.schema.properties.stops: 'minItems' is supported only with a "
         "value of 0 or 1"),
        (("properties", "stops"), "uniqueItems", True,
         "output_config.format.schema.properties.stops: 'uniqueItems' is not supported"),
        (("$defs", "Stop"), "multipleOf", 3,
         "output_config.format.schema.$defs.Stop: 'multipleOf' is not supported"),
    ],
)  # fmt: skip
def test_a_json_output_s_schema_breaking_a_rule_is_refused_where_it_breaks_it(
    path: tuple[str, ...], key: str, value: Any, said: str
) -> None:
    refused = anthropic_strict_schema(_json_output(edited(CLOSED, path, key, value)))
    assert refused is not None and refused.status == 400
    assert refused.message.startswith(said) and refused.message.endswith(OWN_WORDING)
    assert refused.param == "output_config.format.schema"


def test_the_older_output_format_and_a_strict_tool_are_held_to_the_same_rules() -> None:
    open_schema = edited(CLOSED, (), "additionalProperties", None)
    older = anthropic_strict_schema(
        {"output_format": {"type": "json_schema", "schema": open_schema}}
    )
    assert older is not None and older.message.startswith("output_format.schema: an object")
    tool = {"name": "plan", "input_schema": edited(CLOSED, ("properties", "city"), "maxLength", 9)}
    strict = anthropic_strict_schema(
        {"tools": [{"name": "other", "input_schema": {}}, {**tool, "strict": True}]}
    )
    assert strict is not None
    assert strict.message.startswith("tools.1.input_schema.properties.city: 'maxLength' is not")
    assert anthropic_strict_schema({"tools": [tool]}) is None  # a tool not strict takes any schema


def test_a_schema_keeping_the_rules_is_taken() -> None:
    assert anthropic_strict_schema(_json_output(CLOSED)) is None
    assert anthropic_strict_schema({"output_config": {"effort": "low"}}) is None
    assert anthropic_strict_schema({"output_config": {"format": {"type": "text"}}}) is None


class Trip(BaseModel):
    city: str = Field(min_length=2)
    days: int = Field(ge=1)
    tags: list[str] = Field(min_length=2)
    counts: dict[str, int]


def test_the_sdk_gets_a_400_and_its_own_transformed_schema_is_answered(sim: Simulator) -> None:
    client = anthropic.Anthropic(api_key="k", base_url=sim.url, max_retries=0)
    asked = {"model": "claude-sim", "max_tokens": 256}
    messages = [{"role": "user", "content": "Plan a trip"}]
    with pytest.raises(anthropic.BadRequestError) as refused:
        client.messages.create(**asked, messages=messages, **_json_output(Trip.model_json_schema()))
    assert refused.value.status_code == 400
    assert "output_config.format.schema: an object schema must set 'additionalProperties'" in str(
        refused.value
    )
    # messages.parse sends the model's schema closed, its constraints moved into the text
    parsed = client.messages.parse(**asked, messages=messages, output_format=Trip)
    assert parsed.parsed_output.days >= 1 and len(parsed.parsed_output.tags) >= 2
