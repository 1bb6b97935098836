"""The engine contract: the one boundary between an agent loop and its model.

An agent speaks to a model only through :class:`Model`. Whatever sits behind it (a
scripted fake, a rule stub, a recorded fixture, a live SDK client) returns the same
:class:`ModelResponse`, so the loop cannot tell which one it is talking to.

Stop reasons use one vocabulary for every provider: ``end_turn``, ``tool_use``,
``max_tokens``, ``stop_sequence``, ``refusal`` and ``pause_turn`` (the Anthropic Messages
API paused a long turn of its server tools: the turn is not over, and the caller sends
the conversation back, this response included, for it to go on).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, cast, get_args, runtime_checkable

from replaygate.errors import CanonicalFormError
from replaygate.fixtures.fingerprint import canonical_json, not_a_string_key

__all__ = [
    "STOP_REASONS",
    "Call",
    "Message",
    "Model",
    "ModelResponse",
    "Role",
    "StopReason",
    "ToolCall",
    "ToolSpec",
    "Usage",
    "as_stop_reason",
    "check_conversation",
]

Role = Literal["user", "assistant", "tool"]
StopReason = Literal["end_turn", "tool_use", "max_tokens", "stop_sequence", "refusal", "pause_turn"]
STOP_REASONS: tuple[str, ...] = get_args(StopReason)


ROLES: tuple[str, ...] = ("user", "assistant", "tool")


def as_stop_reason(value: object) -> StopReason | None:
    """``value`` as a :data:`StopReason`, or None when it is not one of :data:`STOP_REASONS`."""
    return cast(StopReason, value) if value in STOP_REASONS else None


def _wrong(owner: str, field_name: str, expected: str, value: object) -> TypeError:
    return TypeError(f"{owner}.{field_name}: expected {expected}, got {type(value).__name__}")


def _text(owner: str, field_name: str, value: object) -> None:
    if not isinstance(value, str):
        raise _wrong(owner, field_name, "text (str)", value)


def _tool_calls(owner: str, value: object) -> tuple[ToolCall, ...]:
    """``value`` (a tuple or list of :class:`ToolCall`) as a tuple."""
    if not isinstance(value, list | tuple):
        raise _wrong(owner, "tool_calls", "a tuple of ToolCall", value)
    for i, call in enumerate(value):
        if not isinstance(call, ToolCall):
            raise _wrong(owner, f"tool_calls[{i}]", "a ToolCall", call)
    return tuple(value)


@dataclass(frozen=True)
class ToolCall:
    """A request from the model to run one tool with JSON arguments (a value JSON cannot
    hold, a set or NaN, is refused naming its path: no API could send it)."""

    id: str
    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _text("ToolCall", "id", self.id)
        _text("ToolCall", "name", self.name)
        if not isinstance(self.arguments, Mapping):
            hint = (
                " (JSON text? parse it first: json.loads)"
                if isinstance(self.arguments, str)
                else ""
            )
            raise _wrong(
                "ToolCall", "arguments", f"a mapping of the arguments{hint}", self.arguments
            )
        try:
            canonical_json(self.arguments)
            _refuse_odd_key(self.arguments)
        except CanonicalFormError as err:
            where = f"arguments.{err.path}" if err.path else "arguments"
            raise TypeError(
                f"ToolCall.{where} of call {self.id!r} ({self.name}): {err.reason}; tool "
                "arguments are a JSON object"
            ) from None


def _refuse_odd_key(value: object) -> None:
    """:class:`CanonicalFormError` naming the first object in ``value`` with a key that is
    no string: the canonical form writes ``{1: 'a'}`` as ``{"1": "a"}``, so a tool would
    be given an int key by a fake and a string one by its recording."""
    stack: list[tuple[str, object]] = [("", value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, Mapping):
            for key, inner in item.items():
                if not isinstance(key, str):
                    raise CanonicalFormError(where, not_a_string_key(key))
                stack.append((f"{where}.{key}" if where else key, inner))
        elif isinstance(item, list | tuple):
            stack.extend((f"{where}[{i}]", inner) for i, inner in enumerate(item))


@dataclass(frozen=True)
class ToolSpec:
    """A tool the model may call: its name, what it does, and the JSON schema of its input."""

    name: str
    description: str
    input_schema: Mapping[str, Any] = field(
        default_factory=lambda: {"type": "object", "properties": {}}
    )

    def __post_init__(self) -> None:
        _text("ToolSpec", "name", self.name)
        _text("ToolSpec", "description", self.description)
        if not isinstance(self.input_schema, Mapping):
            raise _wrong("ToolSpec", "input_schema", "a JSON schema (a mapping)", self.input_schema)


@dataclass(frozen=True)
class Message:
    """One turn of a conversation.

    ``user`` and ``assistant`` turns carry text in ``content``; an ``assistant`` turn may
    also carry ``tool_calls``. A ``tool`` turn carries the result of one tool call in
    ``content``, names the call it answers in ``tool_call_id`` and sets ``is_error``
    when the tool failed.
    """

    role: Role
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    is_error: bool = False

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"Message.role: expected one of {', '.join(ROLES)}, got {self.role!r}")
        _text("Message", "content", self.content)
        if self.tool_calls:
            object.__setattr__(self, "tool_calls", _tool_calls("Message", self.tool_calls))
            if self.role != "assistant":  # every wire shape would drop them
                raise ValueError(
                    f"Message.tool_calls: only an assistant message calls tools, not a "
                    f"{self.role} message"
                )
        if type(self.is_error) is not bool:  # "no" was sent as is_error: true
            raise _wrong("Message", "is_error", "True or False", self.is_error)
        if self.tool_call_id is not None:
            _text("Message", "tool_call_id", self.tool_call_id)
        elif self.role == "tool":
            raise ValueError(
                "Message.tool_call_id: a tool message names the call it answers "
                "(Message.tool_result(call_id, content))"
            )

    @staticmethod
    def user(text: str) -> Message:
        """A user turn holding ``text``."""
        return Message(role="user", content=text)

    @staticmethod
    def assistant(text: str = "", tool_calls: Sequence[ToolCall] = ()) -> Message:
        """An assistant turn with text and/or tool calls."""
        return Message(role="assistant", content=text, tool_calls=tuple(tool_calls))

    @staticmethod
    def tool_result(call_id: str, content: str, *, is_error: bool = False) -> Message:
        """The result of tool call ``call_id``."""
        return Message(role="tool", content=content, tool_call_id=call_id, is_error=is_error)


@dataclass(frozen=True)
class Usage:
    """Tokens billed for one model call."""

    input_tokens: int = 0
    output_tokens: int = 0

    def __post_init__(self) -> None:
        for name in ("input_tokens", "output_tokens"):
            count = getattr(self, name)
            if type(count) is not int:  # no API counts True
                raise _wrong("Usage", name, "a count of tokens (int)", count)
            if count < 0:  # it would lower what a run is said to cost
                raise ValueError(f"Usage.{name}: a count of tokens, 0 or more, got {count}")


@dataclass(frozen=True)
class ModelResponse:
    """What a model returned for one call, independent of the wire format."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    stop_reason: StopReason = "end_turn"
    usage: Usage = field(default_factory=Usage)

    def __post_init__(self) -> None:
        _text("ModelResponse", "text", self.text)
        if self.tool_calls:
            object.__setattr__(self, "tool_calls", _tool_calls("ModelResponse", self.tool_calls))
        if self.stop_reason not in STOP_REASONS:
            raise ValueError(
                f"ModelResponse.stop_reason: expected one of {', '.join(STOP_REASONS)}, "
                f"got {self.stop_reason!r}"
            )
        if not isinstance(self.usage, Usage):
            raise _wrong("ModelResponse", "usage", "a Usage", self.usage)

    def as_message(self) -> Message:
        """The assistant turn this response adds to the conversation."""
        return Message.assistant(self.text, self.tool_calls)


def check_conversation(messages: object, tools: object) -> None:
    """``TypeError`` naming the first item of ``messages`` that is not a :class:`Message`,
    or of ``tools`` that is not a :class:`ToolSpec` (a provider's wire dicts, a string):
    what every model checks before it answers, so a fake refuses what a recording would."""
    _each(messages, Message, "messages", "Message.user('...')")
    _each(tools, ToolSpec, "tools", "ToolSpec(name, description, input_schema)")


def _each(items: object, kind: type, name: str, example: str) -> None:
    if not isinstance(items, Sequence) or isinstance(items, str | bytes):
        raise TypeError(f"{name}: expected a list of {kind.__name__}, got {type(items).__name__}")
    for i, item in enumerate(items):
        if not isinstance(item, kind):
            raise TypeError(
                f"{name}[{i}]: expected a {kind.__name__} (e.g. {example}), got "
                f"{type(item).__name__}"
            )


@runtime_checkable
class Model(Protocol):
    """Anything that answers a conversation: the only thing an agent loop depends on."""

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        """Return the model's next turn for ``messages`` with ``tools`` available."""
        ...


def check_model(value: object, name: str) -> None:
    """A ``TypeError`` naming ``name`` when ``value`` is no :class:`Model` (it has no
    ``complete`` to call), before it is first asked to answer."""
    if not callable(getattr(value, "complete", None)):
        raise TypeError(
            f"{name} must be a model (an object with complete(messages, tools)), got {value!r}"
        )


Call = tuple[tuple[Message, ...], tuple[ToolSpec, ...]]
"""One conversation a model was asked to complete: its messages and tools (kept by the
fakes and by the replay and recording models in ``calls``, for tests to inspect)."""
