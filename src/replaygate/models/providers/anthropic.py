"""Anthropic Messages API (``POST /v1/messages``) <-> the engine contract.

Requests carry tools as ``{name, description, input_schema}`` (tools the server runs,
``{"type": "web_search_20250305", ...}``, are left out: the engine cannot call them);
an assistant turn's
tool calls become ``tool_use`` blocks; consecutive tool results become one ``user``
message of ``tool_result`` blocks, as the API requires.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from replaygate.errors import WireFormatError
from replaygate.models.providers._fields import field_of, kind_of, optional_field, read_usage
from replaygate.models.providers._turns import ResultTurns
from replaygate.models.types import (
    Message,
    ModelResponse,
    StopReason,
    ToolCall,
    ToolSpec,
    as_stop_reason,
)

INTERFACE = "anthropic.messages"
API_VERSION = "2023-06-01"
API_VERSIONS = ("2023-01-01", API_VERSION, "2026-10-21")
"""The ``anthropic-version`` values the Messages API takes; it refuses any other (a
missing one too) with a 400 before reading the request."""


def _assistant_blocks(message: Message) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if message.content:
        blocks.append({"type": "text", "text": message.content})
    blocks.extend(
        {"type": "tool_use", "id": c.id, "name": c.name, "input": dict(c.arguments)}
        for c in message.tool_calls
    )
    return blocks


def _tool_result_block(message: Message) -> dict[str, Any]:
    block: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": message.tool_call_id,
        "content": message.content,
    }
    if message.is_error:
        block["is_error"] = True
    return block


def _wire_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    wire = ResultTurns("content")
    for message in messages:
        if message.role == "user":
            wire.add({"role": "user", "content": [{"type": "text", "text": message.content}]})
        elif message.role == "assistant":
            wire.add({"role": "assistant", "content": _assistant_blocks(message)})
        else:
            wire.add_result(_tool_result_block(message))
    return wire.turns


def to_anthropic_request(
    messages: Sequence[Message],
    tools: Sequence[ToolSpec],
    *,
    model: str,
    max_tokens: int,
    system: str | None = None,
) -> dict[str, Any]:
    """The Messages API request body for this conversation."""
    request: dict[str, Any] = {
        "model": model,
        "max_tokens": max_tokens,
        "messages": _wire_messages(messages),
    }
    if system is not None:
        request["system"] = system
    if tools:
        request["tools"] = [
            {"name": t.name, "description": t.description, "input_schema": dict(t.input_schema)}
            for t in tools
        ]
    return request


def _text_of(content: Any, path: str) -> str:
    """Text of a ``content`` that is a string or a list of text blocks."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise WireFormatError(path, f"expected a string or a list, got {type(content).__name__}")
    parts = []
    for i, block in enumerate(content):
        if field_of(block, "type", str, f"{path}[{i}]") == "text":
            parts.append(field_of(block, "text", str, f"{path}[{i}]"))
    return "".join(parts)


def _parse_user(content: Any, path: str) -> list[Message]:
    if isinstance(content, str):
        return [Message.user(content)]
    if not isinstance(content, list):
        raise WireFormatError(path, f"expected a string or a list, got {type(content).__name__}")
    out: list[Message] = []
    texts: list[str] = []
    for i, block in enumerate(content):
        where = f"{path}[{i}]"
        kind = field_of(block, "type", str, where)
        if kind == "tool_result":
            out.append(
                Message.tool_result(
                    field_of(block, "tool_use_id", str, where),
                    _text_of(block.get("content", ""), f"{where}.content"),
                    is_error=bool(block.get("is_error", False)),
                )
            )
        elif kind == "text":
            texts.append(field_of(block, "text", str, where))
    if texts:
        out.append(Message.user("".join(texts)))
    return out


def _tool_calls(blocks: list[Any], path: str) -> tuple[ToolCall, ...]:
    calls = []
    for i, block in enumerate(blocks):
        where = f"{path}[{i}]"
        if field_of(block, "type", str, where) == "tool_use":
            calls.append(
                ToolCall(
                    id=field_of(block, "id", str, where),
                    name=field_of(block, "name", str, where),
                    arguments=dict(field_of(block, "input", dict, where)),
                )
            )
    return tuple(calls)


def from_anthropic_request(
    request: Mapping[str, Any],
) -> tuple[list[Message], list[ToolSpec], str | None]:
    """The conversation, tools and system prompt held by a Messages API request."""
    messages: list[Message] = []
    for i, item in enumerate(field_of(request, "messages", list, "request")):
        where = f"request.messages[{i}]"
        role = field_of(item, "role", str, where)
        content = item.get("content")
        if role == "user":
            messages.extend(_parse_user(content, f"{where}.content"))
        elif role == "assistant":
            if isinstance(content, str):
                messages.append(Message.assistant(content))
            else:
                blocks = field_of(item, "content", list, where)
                messages.append(
                    Message.assistant(
                        _text_of(blocks, f"{where}.content"),
                        _tool_calls(blocks, f"{where}.content"),
                    )
                )
        else:
            raise WireFormatError(f"{where}.role", f"unknown role {role!r}")
    tools = [
        ToolSpec(
            name=field_of(t, "name", str, f"request.tools[{i}]"),
            description=optional_field(t, "description", str, f"request.tools[{i}]", ""),
            input_schema=field_of(t, "input_schema", dict, f"request.tools[{i}]"),
        )
        for i, t in enumerate(optional_field(request, "tools", list, "request", []))
        if not isinstance(t, dict) or not server_tool(t)
    ]
    system = request.get("system")
    if system is not None and not isinstance(system, str):
        system = _text_of(system, "request.system")
    return messages, tools, system


def server_tool(tool: Mapping[str, Any]) -> bool:
    """Whether a Messages API tool is one the server runs (``web_search_20250305``,
    ``code_execution_...``: any ``type`` but ``custom``), which takes no ``input_schema``
    and is no tool of the model's caller."""
    kind = tool.get("type")
    return isinstance(kind, str) and kind != "custom"


def to_anthropic_response(
    response: ModelResponse, *, model: str, message_id: str = "msg_replaygate"
) -> dict[str, Any]:
    """The Messages API response body for ``response``."""
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": _assistant_blocks(response.as_message()),
        "stop_reason": response.stop_reason,
        "stop_sequence": None,
        "usage": {
            "input_tokens": response.usage.input_tokens,
            "output_tokens": response.usage.output_tokens,
        },
    }


ANTHROPIC_STOPS: dict[str, StopReason] = {
    "model_context_window_exceeded": "max_tokens",  # cut where the context window filled
}
"""The Messages API's stop reasons outside the engine's vocabulary, and what they read as."""


def _stop_reason(value: str, path: str) -> StopReason:
    if value in ANTHROPIC_STOPS:
        return ANTHROPIC_STOPS[value]
    reason = as_stop_reason(value)
    if reason is None:
        raise WireFormatError(path, f"unknown stop_reason {value!r}")
    return reason


READ_BLOCKS = ("text", "tool_use")
"""The types of a response's content blocks the engine reads (others are passed over)."""


def from_anthropic_response(response: Mapping[str, Any]) -> ModelResponse:
    """The engine's view of a Messages API response body; one that is no ``message`` (an
    error's body, stored as an answer by a hand edit), or a block whose type misspells
    one the engine reads, is refused (it would replay as an answer without it)."""
    blocks = field_of(response, "content", list, "response")  # refuses a non-object first
    kind = response.get("type", "message")
    if kind != "message":  # an error's body, or a hand edit: no answer the API gave
        raise WireFormatError("response.type", f"expected 'message', got {kind!r}")
    for i, block in enumerate(blocks):
        kind_of(block, READ_BLOCKS, f"response.content[{i}]")
    stop = optional_field(response, "stop_reason", str, "response", "end_turn")
    return ModelResponse(
        text=_text_of(blocks, "response.content"),
        tool_calls=_tool_calls(blocks, "response.content"),
        stop_reason=_stop_reason(stop, "response.stop_reason"),
        usage=read_usage(response, "usage", "input_tokens", "output_tokens"),
    )
