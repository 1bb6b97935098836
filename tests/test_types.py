"""The engine contract: frozen data, the constructors, and the Model protocol."""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Sequence

import pytest

from replaygate import Message, Model, ModelResponse, ToolCall, ToolSpec, Usage
from replaygate.models.types import STOP_REASONS, StopReason


def test_message_constructors() -> None:
    call = ToolCall("c1", "search_corpus", {"q": "RAG"})
    assert Message.user("hi") == Message(role="user", content="hi")
    assert Message.assistant("", [call]) == Message(role="assistant", tool_calls=(call,))
    assert Message.tool_result("c1", "oops", is_error=True) == Message(
        role="tool", content="oops", tool_call_id="c1", is_error=True
    )
    assert Message.tool_result("c1", "ok").is_error is False


def test_response_as_message_is_the_assistant_turn() -> None:
    call = ToolCall("c1", "fetch_doc", {"doc_id": "doc-rag"})
    response = ModelResponse(
        text="t", tool_calls=(call,), stop_reason="tool_use", usage=Usage(1, 2)
    )
    assert response.as_message() == Message.assistant("t", [call])


def test_defaults() -> None:
    assert ModelResponse() == ModelResponse("", (), "end_turn", Usage(0, 0))
    assert ToolSpec("t", "d").input_schema == {"type": "object", "properties": {}}
    assert ToolCall("c", "t").arguments == {}
    # Mutable defaults are not shared between instances.
    assert ToolSpec("a", "d").input_schema is not ToolSpec("b", "d").input_schema


@pytest.mark.parametrize(
    "value",
    [
        Message.user("x"),
        ToolCall("c", "t"),
        ToolSpec("t", "d"),
        Usage(),
        ModelResponse(),
    ],
)
def test_engine_types_are_frozen(value: object) -> None:
    field = dataclasses.fields(value)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(value, field, None)


def test_stop_reasons_match_the_literal_type() -> None:
    assert set(STOP_REASONS) == set(typing.get_args(StopReason))


def test_model_protocol_is_structural() -> None:
    class Echo:
        def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
            return ModelResponse(text=messages[-1].content)

    class NotAModel:
        def answer(self) -> str:
            return ""

    assert isinstance(Echo(), Model)
    assert not isinstance(NotAModel(), Model)
    assert Echo().complete([Message.user("ping")], []).text == "ping"
