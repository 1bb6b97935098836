"""OpenAI Responses API (``POST /v1/responses``) <-> the engine contract.

A request carries the system prompt as ``instructions`` and the conversation as
``input``: a string, or a list of items. A user or assistant turn is a message item
(``{"role", "content"}``, content a string or a list of ``input_text`` /
``output_text`` parts); an assistant's tool call is a ``function_call`` item (its
``call_id`` is the engine's tool-call id, its ``arguments`` a JSON string); a tool
result is a ``function_call_output`` item. Tools are flat:
``{"type": "function", "name", "description", "parameters"}``.

A response lists its ``output`` items the same way (a ``message`` with
``output_text`` parts, ``function_call`` items); ``status`` ``incomplete`` with
``incomplete_details.reason`` says why it stopped early. ``reasoning`` items (and a
``compaction`` item, which stands for earlier turns the API compacted) are
passed over. The Responses API has no stop reason: a completed response stopped for
a tool call when it holds one, else at the end of its turn. It has no error flag on
a tool result and no stop sequence either, so ``is_error`` and ``stop_sequence`` do
not survive a round trip.
``previous_response_id`` names server-side state: the converters read only what a
request itself holds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from replaygate.errors import WireFormatError
from replaygate.models.providers._fields import (
    field_of,
    kind_of,
    optional_field,
    read_usage,
    says_refusal,
    unpaused,
)
from replaygate.models.providers.openai_chat import encode_arguments, parse_arguments
from replaygate.models.types import Message, ModelResponse, StopReason, ToolCall, ToolSpec, Usage

INTERFACE = "openai.responses"
API_VERSION = "v1"

_INCOMPLETE_TO_STOP: dict[str, StopReason] = {
    "max_output_tokens": "max_tokens",
    "content_filter": "refusal",
}
_STOP_TO_INCOMPLETE = {stop: reason for reason, stop in _INCOMPLETE_TO_STOP.items()}
_SKIPPED_ITEMS = frozenset({"reasoning", "compaction"})
"""Input and output items that carry nothing the engine contract holds."""


def wire_tool(tool: ToolSpec) -> dict[str, Any]:
    """A function tool in the Responses API's flat shape."""
    return {
        "type": "function",
        "name": tool.name,
        "description": tool.description,
        "parameters": dict(tool.input_schema),
    }


def _function_call(call: ToolCall) -> dict[str, Any]:
    return {
        "type": "function_call",
        "call_id": call.id,
        "name": call.name,
        "arguments": encode_arguments(call.arguments),
    }


def _input_items(message: Message) -> list[dict[str, Any]]:
    if message.role == "user":
        return [{"role": "user", "content": message.content}]
    if message.role == "tool":
        return [
            {
                "type": "function_call_output",
                "call_id": message.tool_call_id,
                "output": message.content,
            }
        ]
    keep_text = message.content or not message.tool_calls
    items = [{"role": "assistant", "content": message.content}] if keep_text else []
    items.extend(_function_call(call) for call in message.tool_calls)
    return items


def to_responses_request(
    messages: Sequence[Message],
    tools: Sequence[ToolSpec],
    *,
    model: str,
    max_tokens: int,
    system: str | None = None,
) -> dict[str, Any]:
    """The Responses API request body for this conversation."""
    request: dict[str, Any] = {
        "model": model,
        "max_output_tokens": max_tokens,
        "input": [item for message in messages for item in _input_items(message)],
    }
    if system is not None:
        request["instructions"] = system
    if tools:
        request["tools"] = [wire_tool(t) for t in tools]
    return request


def content_text(content: Any, path: str) -> str:
    """The text of a message's ``content``: a string, or a list of text parts (and of
    ``refusal`` parts, whose text is the model's refusal)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise WireFormatError(path, f"expected a string or a list, got {type(content).__name__}")
    parts = []
    for i, part in enumerate(content):
        kind = field_of(part, "type", str, f"{path}[{i}]")
        if kind in ("input_text", "output_text", "text"):
            parts.append(field_of(part, "text", str, f"{path}[{i}]"))
        elif kind == "refusal":
            parts.append(field_of(part, "refusal", str, f"{path}[{i}]"))
    return "".join(parts)


def parse_call(item: Mapping[str, Any], path: str) -> ToolCall:
    """The tool call of a ``function_call`` item."""
    raw = field_of(item, "arguments", str, path)
    return ToolCall(
        id=field_of(item, "call_id", str, path),
        name=field_of(item, "name", str, path),
        arguments=parse_arguments(raw, f"{path}.arguments"),
    )


def _with_call(messages: list[Message], call: ToolCall) -> None:
    """Add ``call`` to the assistant turn in progress, or start one."""
    last = messages[-1] if messages else None
    if last is not None and last.role == "assistant":
        messages[-1] = Message.assistant(last.content, (*last.tool_calls, call))
    else:
        messages.append(Message.assistant("", (call,)))


def input_messages(value: Any, path: str) -> tuple[list[Message], str | None]:
    """The conversation of an ``input`` (a string or a list of items), and the text of
    its system or developer messages (None when there are none)."""
    if isinstance(value, str):
        return [Message.user(value)], None
    if not isinstance(value, list):
        raise WireFormatError(path, f"expected a string or a list, got {type(value).__name__}")
    messages: list[Message] = []
    system: list[str] = []
    for i, item in enumerate(value):
        where = f"{path}[{i}]"
        if not isinstance(item, Mapping):
            raise WireFormatError(where, f"expected an object, got {type(item).__name__}")
        kind = optional_field(item, "type", str, where, "message")
        if kind == "message":
            role = field_of(item, "role", str, where)
            text = content_text(item.get("content", ""), f"{where}.content")
            if role in ("system", "developer"):
                system.append(text)
            elif role == "user":
                messages.append(Message.user(text))
            elif role == "assistant":
                messages.append(Message.assistant(text))
            else:
                raise WireFormatError(f"{where}.role", f"unknown role {role!r}")
        elif kind == "function_call":
            _with_call(messages, parse_call(item, where))
        elif kind == "function_call_output":
            output = item.get("output")
            messages.append(
                Message.tool_result(
                    field_of(item, "call_id", str, where),
                    content_text(output if output is not None else "", f"{where}.output"),
                )
            )
        elif kind not in _SKIPPED_ITEMS:
            raise WireFormatError(f"{where}.type", f"unsupported input item type {kind!r}")
    return messages, "\n".join(system) if system else None


def request_tools(request: Mapping[str, Any]) -> list[ToolSpec]:
    """The function tools of a Responses API request (other tool types are skipped)."""
    tools = []
    for i, tool in enumerate(optional_field(request, "tools", list, "request", [])):
        where = f"request.tools[{i}]"
        if field_of(tool, "type", str, where) != "function":
            continue
        tools.append(
            ToolSpec(
                name=field_of(tool, "name", str, where),
                description=optional_field(tool, "description", str, where, ""),
                input_schema=optional_field(tool, "parameters", dict, where, {}),
            )
        )
    return tools


def from_responses_request(
    request: Mapping[str, Any],
) -> tuple[list[Message], list[ToolSpec], str | None]:
    """The conversation, tools and system prompt held by a Responses API request.

    The system prompt is ``instructions``, else the system or developer messages of
    ``input``.
    """
    if not isinstance(request, Mapping):
        raise WireFormatError("request", f"expected an object, got {type(request).__name__}")
    if "input" not in request:
        raise WireFormatError("request.input", "missing field")
    messages, input_system = input_messages(request["input"], "request.input")
    if request.get("instructions") is None:
        return messages, request_tools(request), input_system
    return messages, request_tools(request), field_of(request, "instructions", str, "request")


def output_items(response: ModelResponse, *, item_prefix: str) -> list[dict[str, Any]]:
    """The ``output`` items of ``response``; item ids are ``msg_<prefix>`` and
    ``fc_<prefix>_<n>``. An answer cut at ``max_output_tokens`` has its message
    ``incomplete``, and none when nothing of it was said; a refusal in words is a
    ``refusal`` part, and a text part states no ``logprobs`` as ``[]``, as the API gives
    them."""
    items: list[dict[str, Any]] = []
    cut = response.stop_reason == "max_tokens"
    part = (
        {"type": "refusal", "refusal": response.text}
        if says_refusal(response)
        else {"type": "output_text", "text": response.text, "annotations": [], "logprobs": []}
    )
    if response.text or not (response.tool_calls or cut):
        items.append(
            {
                "id": f"msg_{item_prefix}",
                "type": "message",
                "status": "incomplete" if cut else "completed",
                "role": "assistant",
                "content": [part],
            }
        )
    for n, call in enumerate(response.tool_calls, start=1):
        items.append({"id": f"fc_{item_prefix}_{n}", **_function_call(call), "status": "completed"})
    return items


def response_usage(usage: Usage) -> dict[str, Any]:
    """The ``usage`` object of a response."""
    return {
        "input_tokens": usage.input_tokens,
        "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
        "output_tokens": usage.output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": usage.input_tokens + usage.output_tokens,
    }


def to_responses_response(
    response: ModelResponse, *, model: str, response_id: str = "resp_replaygate"
) -> dict[str, Any]:
    """The Responses API response body for ``response``: a refusal in words is completed
    (its ``refusal`` part says it), one without is ``incomplete`` for ``content_filter``."""
    unpaused(response, INTERFACE)
    incomplete = None if says_refusal(response) else _STOP_TO_INCOMPLETE.get(response.stop_reason)
    item_prefix = response_id.removeprefix("resp_")
    return {
        "id": response_id,
        "object": "response",
        "created_at": 0,
        "status": "incomplete" if incomplete else "completed",
        "error": None,
        "incomplete_details": {"reason": incomplete} if incomplete else None,
        "model": model,
        "output": output_items(response, item_prefix=item_prefix),
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": response_usage(response.usage),
    }


def _stop_reason(response: Mapping[str, Any], calls: tuple[ToolCall, ...]) -> StopReason:
    status = optional_field(response, "status", str, "response", "completed")
    if status == "incomplete":
        details = optional_field(response, "incomplete_details", dict, "response", {})
        reason = optional_field(details, "reason", str, "response.incomplete_details", "")
        if reason not in _INCOMPLETE_TO_STOP:
            raise WireFormatError("response.incomplete_details.reason", f"unknown value {reason!r}")
        return _INCOMPLETE_TO_STOP[reason]
    if status != "completed":
        raise WireFormatError("response.status", f"a {status!r} response holds no answer")
    return "tool_use" if calls else "end_turn"


READ_ITEMS = ("message", "function_call")
"""The types of a response's output items the engine reads (others are passed over)."""


def from_responses_response(response: Mapping[str, Any]) -> ModelResponse:
    """The engine's view of a Responses API response body."""
    texts: list[str] = []
    calls: list[ToolCall] = []
    refused = False
    for i, item in enumerate(field_of(response, "output", list, "response")):
        where = f"response.output[{i}]"
        kind = kind_of(item, READ_ITEMS, where)
        if kind == "message":
            content = field_of(item, "content", list, where)
            texts.append(content_text(content, f"{where}.content"))
            refused = refused or any(
                isinstance(part, Mapping) and part.get("type") == "refusal" for part in content
            )
        elif kind == "function_call":
            calls.append(parse_call(item, where))
    stop = _stop_reason(response, tuple(calls))
    return ModelResponse(
        text="".join(texts),
        tool_calls=tuple(calls),
        stop_reason="refusal" if refused else stop,
        usage=read_usage(response, "usage", "input_tokens", "output_tokens"),
    )
