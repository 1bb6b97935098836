"""A JSON Schema's validator is made once, for ``assert_structure`` as for the simulator.

Making one checks the schema against its draft's metaschema and walks its references:
``assert_structure`` made it again for every payload a sampled case checked, where the
simulator kept it. Both now take it from one cache, keyed by the schema's canonical form.
"""

from __future__ import annotations

import uuid
from typing import Any

import jsonschema
import pytest

from replaygate.assertions import assert_structure
from replaygate.json_schema import InvalidSchema, cached_validator
from replaygate.sim.checked import validator as sim_validator


def _schema() -> dict[str, Any]:
    """A schema no other test made a validator of."""
    return {
        "type": "object",
        "description": f"answer {uuid.uuid4()}",
        "required": ["answer"],
        "properties": {"answer": {"type": "string"}, "big": {"maximum": 2**70}},
    }


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The schemas checked against the 2020-12 metaschema from now on."""
    checked: list[Any] = []
    kind = jsonschema.Draft202012Validator
    original = kind.check_schema

    def check_schema(schema: Any, *args: Any, **kwargs: Any) -> None:
        checked.append(schema)
        original(schema, *args, **kwargs)

    monkeypatch.setattr(kind, "check_schema", staticmethod(check_schema))
    return checked


def test_assert_structure_makes_a_schemas_validator_once(monkeypatch: pytest.MonkeyPatch) -> None:
    checked = _counting(monkeypatch)
    schema = _schema()
    reordered = dict(reversed(list(schema.items())))  # the same schema, its keys in another order
    for given in (schema, reordered, schema):
        assert assert_structure({"answer": "yes"}, given) == {"answer": "yes"}
    with pytest.raises(AssertionError, match=r"\$\.answer: 1 is not of type 'string'"):
        assert_structure({"answer": 1}, schema)
    assert len(checked) == 1


def test_the_simulator_and_assertions_share_one_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    checked = _counting(monkeypatch)
    schema = _schema()
    made = sim_validator(schema)
    assert made is not None and made is cached_validator(dict(schema), formats=False)
    schema["required"].append("more")  # the validator kept its own copy
    assert made.schema["required"] == ["answer"]
    assert len(checked) == 1


def test_an_unusable_schema_is_refused_each_time_it_is_asked_for() -> None:
    schema = {"type": "object", "description": str(uuid.uuid4()), "required": "answer"}
    for _ in range(2):
        with pytest.raises(InvalidSchema, match=r"at \$\.required: 'answer' is not of type"):
            cached_validator(schema)
    assert sim_validator(schema) is None
