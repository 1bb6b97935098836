"""The engine contract: frozen data, the constructors, and the Model protocol."""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Sequence

import pytest

from replaygate import Message, Model, ModelResponse, ToolCall, ToolSpec, Usage
from replaygate.models.types import ROLES, STOP_REASONS, Role, StopReason


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


@pytest.mark.parametrize(
    ("make", "error", "named"),
    [
        (lambda: ToolCall("t1", "search", '{"q": "RAG"}'), TypeError, "ToolCall.arguments"),
        (lambda: ToolCall("t1", "search", ["RAG"]), TypeError, "a mapping of the arguments, got"),
        (lambda: ToolCall(1, "search"), TypeError, "ToolCall.id: expected text (str), got int"),
        (lambda: ToolSpec("t", "d", [1]), TypeError, "ToolSpec.input_schema"),
        (lambda: ToolSpec("t", None), TypeError, "ToolSpec.description"),
        (lambda: Message(role="system", content="x"), ValueError, "Message.role: expected one"),
        (lambda: Message.user(None), TypeError, "Message.content: expected text"),
        (lambda: Message.assistant("", ["call"]), TypeError, "Message.tool_calls[0]"),
        (lambda: Message.tool_result(7, "ok"), TypeError, "Message.tool_call_id"),
        (lambda: Usage("3", 2), TypeError, "Usage.input_tokens: expected a count of tokens"),
        (lambda: Usage(1, 2.5), TypeError, "Usage.output_tokens"),
        (lambda: Usage(True, 2), TypeError, "Usage.input_tokens: expected a count of tokens"),
        (lambda: Usage(1, -5), ValueError, "Usage.output_tokens: a count of tokens, 0 or more"),
        (lambda: Message("tool", "x", tool_call_id="t", is_error="no"), TypeError, "is_error"),
        (lambda: ModelResponse(stop_reason="stop"), ValueError, "ModelResponse.stop_reason"),
        (lambda: ModelResponse(text=None), TypeError, "ModelResponse.text"),
        (lambda: ModelResponse(usage={"input_tokens": 1}), TypeError, "ModelResponse.usage"),
    ],
)
def test_a_value_of_the_wrong_kind_is_refused_naming_its_field(
    make: typing.Callable[[], object], error: type[Exception], named: str
) -> None:
    # each was taken as it came, to fail later far from where it was made (arguments
    # given as OpenAI's JSON text ended in "dictionary update sequence element #0 ...")
    with pytest.raises(error) as caught:
        make()
    assert named in str(caught.value)


def test_tool_calls_given_as_a_list_are_kept_as_a_tuple() -> None:
    call = ToolCall("t1", "search", {"q": "RAG"})
    message = Message.assistant("", [call])
    response = ModelResponse(tool_calls=[call], stop_reason="tool_use")  # type: ignore[arg-type]
    assert type(response.tool_calls) is tuple and response.tool_calls == (call,)
    assert message == Message.assistant("", (call,))


def test_roles_match_the_literal_type() -> None:
    assert set(ROLES) == set(typing.get_args(Role))
