"""OpenAI Chat Completions (``POST /v1/chat/completions``) <-> the engine contract.

Tools are ``{"type": "function", "function": {name, description, parameters}}``; tool
calls carry their arguments as a JSON string; tool results are ``role: tool``
messages. Chat Completions has no error flag on a tool result, so ``is_error`` does
not survive a round trip through this format.

The deprecated ``functions`` (``{name, description, parameters}``) are read as tools, an
assistant's ``function_call`` as a call whose id is its function's name, and a ``role:
function`` message as that call's result, paired by the name it carries: the legacy
shape has no call ids.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from replaygate.errors import WireFormatError
from replaygate.models.providers._fields import (
    field_of,
    optional_field,
    read_usage,
    says_refusal,
    unpaused,
)
from replaygate.models.types import Message, ModelResponse, StopReason, ToolCall, ToolSpec
from replaygate.strict_json import plain_loads

INTERFACE = "openai.chat.completions"

_FINISH_TO_STOP: dict[str, StopReason] = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
}
_STOP_TO_FINISH: dict[str, str] = {
    "end_turn": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "stop_sequence": "stop",
    "refusal": "content_filter",
}


def encode_arguments(arguments: Mapping[str, Any]) -> str:
    """Tool-call arguments as the compact JSON string the API carries."""
    return json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))


def parse_arguments(raw: str, path: str) -> dict[str, Any]:
    """Tool-call arguments from their JSON string (an empty string is no arguments)."""
    try:
        arguments = plain_loads(raw) if raw else {}
    except json.JSONDecodeError as err:
        raise WireFormatError(path, f"not JSON: {err}") from None
    except ValueError as err:  # an integer past the digits Python reads
        raise WireFormatError(path, f"not JSON this reader takes: {err}") from None
    except RecursionError:
        raise WireFormatError(path, "nested too deeply to be read") from None
    if not isinstance(arguments, dict):
        raise WireFormatError(path, "not a JSON object")
    return arguments


def _wire_tool_calls(calls: Sequence[ToolCall]) -> list[dict[str, Any]]:
    return [
        {
            "id": c.id,
            "type": "function",
            "function": {"name": c.name, "arguments": encode_arguments(c.arguments)},
        }
        for c in calls
    ]


def _wire_message(message: Message) -> dict[str, Any]:
    if message.role == "user":
        return {"role": "user", "content": message.content}
    if message.role == "tool":
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content}
    # null only beside tool calls: an assistant turn of neither is refused by the API
    content = (message.content or None) if message.tool_calls else message.content
    wire: dict[str, Any] = {"role": "assistant", "content": content}
    if message.tool_calls:
        wire["tool_calls"] = _wire_tool_calls(message.tool_calls)
    return wire


def to_openai_request(
    messages: Sequence[Message],
    tools: Sequence[ToolSpec],
    *,
    model: str,
    max_tokens: int,
    system: str | None = None,
) -> dict[str, Any]:
    """The Chat Completions request body for this conversation."""
    wire = [{"role": "system", "content": system}] if system is not None else []
    wire.extend(_wire_message(m) for m in messages)
    request: dict[str, Any] = {
        "model": model,
        "max_completion_tokens": max_tokens,
        "messages": wire,
    }
    if tools:
        request["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": dict(t.input_schema),
                },
            }
            for t in tools
        ]
    return request


def _content_text(content: Any, path: str) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise WireFormatError(path, f"expected a string or a list, got {type(content).__name__}")
    return "".join(
        field_of(part, "text", str, f"{path}[{i}]")
        for i, part in enumerate(content)
        if isinstance(part, Mapping) and part.get("type") == "text"
    )


def _parse_tool_calls(calls: list[Any], path: str) -> tuple[ToolCall, ...]:
    parsed = []
    for i, call in enumerate(calls):
        where = f"{path}[{i}]"
        function = field_of(call, "function", dict, where)
        raw = field_of(function, "arguments", str, f"{where}.function")
        parsed.append(
            ToolCall(
                id=field_of(call, "id", str, where),
                name=field_of(function, "name", str, f"{where}.function"),
                arguments=parse_arguments(raw, f"{where}.function.arguments"),
            )
        )
    return tuple(parsed)


def _function_call(message: Mapping[str, Any], where: str) -> tuple[ToolCall, ...]:
    """The deprecated ``function_call`` of an assistant ``message``, as a call whose id is
    its function's name (the legacy shape has no id); none when it holds none."""
    function = optional_field(message, "function_call", dict, where, {})
    if not function:
        return ()
    where = f"{where}.function_call"
    name = field_of(function, "name", str, where)
    raw = optional_field(function, "arguments", str, where, "")
    return (ToolCall(id=name, name=name, arguments=parse_arguments(raw, f"{where}.arguments")),)


def _parse_message(item: Any, where: str) -> Message | None:
    role = field_of(item, "role", str, where)
    if role in ("system", "developer"):
        return None
    if role == "user":
        return Message.user(_content_text(item.get("content"), f"{where}.content"))
    if role == "tool":
        return Message.tool_result(
            field_of(item, "tool_call_id", str, where),
            _content_text(item.get("content"), f"{where}.content"),
        )
    if role == "function":  # the deprecated result of a function_call, paired by name
        return Message.tool_result(
            field_of(item, "name", str, where),
            _content_text(item.get("content"), f"{where}.content"),
        )
    if role == "assistant":
        calls = optional_field(item, "tool_calls", list, where, [])
        return Message.assistant(
            _content_text(item.get("content"), f"{where}.content"),
            _parse_tool_calls(calls, f"{where}.tool_calls") + _function_call(item, where),
        )
    raise WireFormatError(f"{where}.role", f"unknown role {role!r}")


def from_openai_request(
    request: Mapping[str, Any],
) -> tuple[list[Message], list[ToolSpec], str | None]:
    """The conversation, tools and system prompt held by a Chat Completions request."""
    system: str | None = None
    messages: list[Message] = []
    for i, item in enumerate(field_of(request, "messages", list, "request")):
        where = f"request.messages[{i}]"
        parsed = _parse_message(item, where)
        if parsed is None:
            system = _content_text(item.get("content"), f"{where}.content")
        else:
            messages.append(parsed)
    tools = [
        _function_spec(function, f"request.functions[{i}]")
        for i, function in enumerate(optional_field(request, "functions", list, "request", []))
    ]
    for i, tool in enumerate(optional_field(request, "tools", list, "request", [])):
        if optional_field(tool, "type", str, f"request.tools[{i}]", "function") != "function":
            continue  # a custom tool (free-form input) is not read, as in the Responses API
        function = field_of(tool, "function", dict, f"request.tools[{i}]")
        tools.append(_function_spec(function, f"request.tools[{i}].function"))
    return messages, tools, system


def _function_spec(function: Any, where: str) -> ToolSpec:
    """The tool a function definition (``{name, description, parameters}``) describes."""
    if not isinstance(function, Mapping):
        raise WireFormatError(where, f"expected an object, got {type(function).__name__}")
    return ToolSpec(
        name=field_of(function, "name", str, where),
        description=optional_field(function, "description", str, where, ""),
        input_schema=optional_field(function, "parameters", dict, where, {}),
    )


def as_function_call(completion: dict[str, Any]) -> dict[str, Any]:
    """``completion`` (a response body) as the API answers a request of the deprecated
    ``functions``: each choice's first tool call is its message's ``function_call``
    (``{name, arguments}``, the legacy shape holds one call and no id), finished
    ``function_call``; a choice calling nothing is left as it is."""
    for choice in completion.get("choices") or []:
        message = choice.get("message") or {}
        calls = message.pop("tool_calls", None)
        if calls:
            message["function_call"] = dict(calls[0]["function"])
            choice["finish_reason"] = "function_call"
    return completion


def to_openai_response(
    response: ModelResponse, *, model: str, completion_id: str = "chatcmpl-replaygate"
) -> dict[str, Any]:
    """The Chat Completions response body for ``response``; an answer cut at its token
    limit before it said anything has empty content, and a refusal in words is the
    message's ``refusal`` (finished ``stop``), as the API gives them; a refusal without
    words is the content filter's (``content_filter``)."""
    unpaused(response, INTERFACE)
    cut = response.stop_reason == "max_tokens" and not response.tool_calls
    refused = says_refusal(response)
    message: dict[str, Any] = {
        "role": "assistant",
        "content": None if refused else response.text or ("" if cut else None),
        "refusal": response.text if refused else None,
    }
    if response.tool_calls:
        message["tool_calls"] = _wire_tool_calls(response.tool_calls)
    usage = response.usage
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "stop" if refused else _STOP_TO_FINISH[response.stop_reason],
                "logprobs": None,
            }
        ],
        "usage": {
            "prompt_tokens": usage.input_tokens,
            "completion_tokens": usage.output_tokens,
            "total_tokens": usage.input_tokens + usage.output_tokens,
        },
    }


def from_openai_response(response: Mapping[str, Any]) -> ModelResponse:
    """The engine's view of a Chat Completions response body (its first choice); a message
    holding a ``refusal`` (finished ``stop``, as the API sends it) stops for ``refusal``,
    its text the refusal's where the message has no content."""
    choices = field_of(response, "choices", list, "response")
    if not choices:
        raise WireFormatError("response.choices", "empty")
    message = field_of(choices[0], "message", dict, "response.choices[0]")
    finish = optional_field(choices[0], "finish_reason", str, "response.choices[0]", "stop")
    if finish not in _FINISH_TO_STOP:
        raise WireFormatError("response.choices[0].finish_reason", f"unknown value {finish!r}")
    where = "response.choices[0].message"
    refused = optional_field(message, "refusal", str, where, "")
    calls = optional_field(message, "tool_calls", list, where, [])
    return ModelResponse(
        text=_content_text(message.get("content"), f"{where}.content") or refused,
        tool_calls=_parse_tool_calls(calls, f"{where}.tool_calls") + _function_call(message, where),
        stop_reason="refusal" if refused else _FINISH_TO_STOP[finish],
        usage=read_usage(response, "usage", "prompt_tokens", "completion_tokens"),
    )
