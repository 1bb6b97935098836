"""Google Gemini ``generateContent`` (``POST /v1beta/models/{model}:generateContent``)
<-> the engine contract.

A request holds the conversation as ``contents``: ``user`` and ``model`` turns of
``parts`` (``text``, ``functionCall`` ``{id, name, args}``, ``functionResponse``
``{id, name, response}``), the system prompt as ``systemInstruction``, tools as
``functionDeclarations`` and the output limit as ``generationConfig.maxOutputTokens``
(a request may spell every field name in snake_case too: :func:`camel_case_request`).
The model is named by the path, not the body: the engine's wire request carries it
as ``model`` so that it is part of the fixture key (:func:`wire_body` is the body
sent). A tool result is ``{"output": text}`` (``{"error": text}`` when it failed; read
from ``result`` too, where google-genai's automatic function calling puts it); a call the
API sent without an ``id`` is known by its function name, and a result without one
answers the first call of its name in the turn before.

A response lists ``candidates`` (the first is read), each with a ``content`` and a
``finishReason``; ``usageMetadata`` counts the tokens.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from replaygate.errors import WireFormatError
from replaygate.models.providers._fields import field_of, optional_field, read_usage, unpaused
from replaygate.models.providers._turns import ResultTurns
from replaygate.models.types import Message, ModelResponse, StopReason, ToolCall, ToolSpec, Usage

INTERFACE = "google.generate_content"
API_VERSION = "v1beta"

_FINISH_TO_STOP: dict[str, StopReason] = {
    "FINISH_REASON_UNSPECIFIED": "end_turn",  # the enum's zero value: as if none were sent
    "STOP": "end_turn",
    "MAX_TOKENS": "max_tokens",
    "CONTINUATION": "max_tokens",  # the per-request token limit, more to come
    **dict.fromkeys(
        (
            # blocked by a policy
            "SAFETY", "RECITATION", "LANGUAGE", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII",
            "IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION", "ESCALATION",
            "PUP_LIMITED_DISABLED", "MODEL_ARMOR",
            # ended without an answer the loop can use
            "OTHER", "IMAGE_OTHER", "NO_IMAGE", "MALFORMED_FUNCTION_CALL",
            "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS", "MISSING_THOUGHT_SIGNATURE",
            "MALFORMED_RESPONSE",
        ),
        "refusal",
    ),
}  # fmt: skip
"""Every ``finishReason`` of the API (``google.genai.types.FinishReason``), as the engine
reads it."""
_STOP_TO_FINISH = {"max_tokens": "MAX_TOKENS", "refusal": "SAFETY"}


def _call_part(call: ToolCall) -> dict[str, Any]:
    function: dict[str, Any] = {"name": call.name, "args": dict(call.arguments)}
    if call.id != call.name:
        function["id"] = call.id
    return {"functionCall": function}


def _result_part(message: Message, names: Mapping[str, str]) -> dict[str, Any]:
    call_id = message.tool_call_id or ""
    name = names.get(call_id, call_id)
    function: dict[str, Any] = {
        "name": name,
        "response": {"error" if message.is_error else "output": message.content},
    }
    if call_id != name:
        function["id"] = call_id
    return {"functionResponse": function}


def _contents(messages: Sequence[Message]) -> list[dict[str, Any]]:
    names: dict[str, str] = {}
    contents = ResultTurns("parts")
    for message in messages:
        if message.role == "assistant":
            parts = [{"text": message.content}] if message.content or not message.tool_calls else []
            parts.extend(_call_part(call) for call in message.tool_calls)
            names.update((call.id, call.name) for call in message.tool_calls)
            contents.add({"role": "model", "parts": parts})
        elif message.role == "user":
            contents.add({"role": "user", "parts": [{"text": message.content}]})
        else:
            contents.add_result(_result_part(message, names))
    return contents.turns


def to_gemini_request(
    messages: Sequence[Message],
    tools: Sequence[ToolSpec],
    *,
    model: str,
    max_tokens: int,
    system: str | None = None,
) -> dict[str, Any]:
    """The engine's wire request for this conversation: the body, plus ``model``."""
    request: dict[str, Any] = {
        "model": model,
        "contents": _contents(messages),
        "generationConfig": {"maxOutputTokens": max_tokens},
    }
    if system is not None:
        request["systemInstruction"] = {"parts": [{"text": system}]}
    if tools:
        request["tools"] = [{"functionDeclarations": [_declaration(t) for t in tools]}]
    return request


def takes_no_arguments(schema: Mapping[str, Any]) -> bool:
    """Whether ``schema`` is an object of no properties (``{"type": "object",
    "properties": {}}``), which the API refuses as a declaration's ``parameters``."""
    return str(schema.get("type", "")).upper() == "OBJECT" and schema.get("properties") == {}


def _declaration(tool: ToolSpec) -> dict[str, Any]:
    """A function declaration of ``tool``: with no ``parameters`` for a tool taking no
    arguments (:func:`takes_no_arguments`), as google-genai declares a function of none."""
    declared: dict[str, Any] = {"name": tool.name, "description": tool.description}
    if not takes_no_arguments(tool.input_schema):
        declared["parameters"] = dict(tool.input_schema)
    return declared


def wire_body(request: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The model and the HTTP body of an engine wire request."""
    body = dict(request)
    model = body.pop("model", None)
    if not isinstance(model, str) or not model:
        raise WireFormatError("request.model", "missing field (the model of the path)")
    return model, body


def _parts(content: Any, path: str) -> list[Any]:
    return optional_field(content, "parts", list, path, [])


def _text(parts: list[Any], path: str) -> str:
    texts = []
    for i, part in enumerate(parts):
        if not isinstance(part, Mapping):
            raise WireFormatError(f"{path}[{i}]", f"expected an object, got {type(part).__name__}")
        if "text" in part and not part.get("thought"):
            texts.append(field_of(part, "text", str, f"{path}[{i}]"))
    return "".join(texts)


def _calls(parts: list[Any], path: str) -> tuple[ToolCall, ...]:
    calls = []
    for i, part in enumerate(parts):
        if isinstance(part, Mapping) and "functionCall" in part:
            where = f"{path}[{i}].functionCall"
            call = field_of(part, "functionCall", dict, f"{path}[{i}]")
            name = field_of(call, "name", str, where)
            calls.append(
                ToolCall(
                    id=optional_field(call, "id", str, where, name),
                    name=name,
                    arguments=dict(optional_field(call, "args", dict, where, {})),
                )
            )
    return tuple(calls)


_OUTPUTS = ("output", "result")
"""Where a function response holds the tool's output: the API's documented ``output``, and
``result``, where google-genai's automatic function calling puts what a function returned."""


def _result(part: Mapping[str, Any], where: str, unanswered: dict[str, list[str]]) -> Message:
    """The tool result a ``functionResponse`` part holds. One without an ``id`` (as
    google-genai's automatic function calling sends it) answers the first call of its name
    that ``unanswered`` (the ids of the calls of the turn before, by name) still holds,
    as the API pairs them."""
    result = field_of(part, "functionResponse", dict, where)
    where = f"{where}.functionResponse"
    name = field_of(result, "name", str, where)
    response = optional_field(result, "response", dict, where, {})
    failed = "error" in response
    key = "error" if failed else next((k for k in _OUTPUTS if k in response), None)
    value = response if key is None else response[key]
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    waiting = unanswered.get(name, [])
    call_id = optional_field(result, "id", str, where, None)
    if call_id is None:
        call_id = waiting.pop(0) if waiting else name
    elif call_id in waiting:
        waiting.remove(call_id)
    return Message.tool_result(call_id, text, is_error=failed)


def _user_turn(parts: list[Any], path: str, unanswered: dict[str, list[str]]) -> list[Message]:
    out = [
        _result(part, f"{path}[{i}]", unanswered)
        for i, part in enumerate(parts)
        if isinstance(part, Mapping) and "functionResponse" in part
    ]
    text = _text(parts, path)
    if text or not out:
        out.append(Message.user(text))
    return out


_SCHEMA_FIELDS = ("parameters", "parametersJsonSchema")
"""Where a function declaration holds its input schema (an OpenAPI subset, or JSON Schema)."""

_CAMEL_CASE = {
    "system_instruction": "systemInstruction",
    "generation_config": "generationConfig",
    "max_output_tokens": "maxOutputTokens",
    "candidate_count": "candidateCount",
    "response_mime_type": "responseMimeType",
    "response_schema": "responseSchema",
    "response_json_schema": "responseJsonSchema",
    "safety_settings": "safetySettings",
    "tool_config": "toolConfig",
    "function_calling_config": "functionCallingConfig",
    "allowed_function_names": "allowedFunctionNames",
    "function_declarations": "functionDeclarations",
    "parameters_json_schema": "parametersJsonSchema",
    "function_call": "functionCall",
    "function_response": "functionResponse",
    "inline_data": "inlineData",
    "file_data": "fileData",
    "mime_type": "mimeType",
    "file_uri": "fileUri",
    "executable_code": "executableCode",
    "code_execution_result": "codeExecutionResult",
    "generate_content_request": "generateContentRequest",
    "cached_content": "cachedContent",
    "response_modalities": "responseModalities",
    "presence_penalty": "presencePenalty",
    "frequency_penalty": "frequencyPenalty",
    "thought_signature": "thoughtSignature",
    "thinking_config": "thinkingConfig",
    "thinking_budget": "thinkingBudget",
    "include_thoughts": "includeThoughts",
    "thinking_level": "thinkingLevel",
}
"""Request field names in snake_case -> in camelCase: the API accepts both spellings, and
LiteLLM (like other proto-JSON writers) sends snake_case."""
_OPAQUE = frozenset(
    {
        "args",
        "response",
        "parameters",
        "parametersJsonSchema",
        "responseSchema",
        "responseJsonSchema",
    }
)
"""Fields whose value is the caller's data (arguments, results, schemas): never renamed."""


def camel_case_request(body: Any) -> Any:
    """``body`` with every snake_case field name of :data:`_CAMEL_CASE` spelled in
    camelCase, outside the caller's data (:data:`_OPAQUE`)."""
    if isinstance(body, list):
        return [camel_case_request(item) for item in body]
    if not isinstance(body, Mapping):
        return body
    renamed = {_CAMEL_CASE.get(name, name): value for name, value in body.items()}
    return {
        name: value if name in _OPAQUE else camel_case_request(value)
        for name, value in renamed.items()
    }


_SCHEMA_CAMEL_CASE = {
    "any_of": "anyOf",
    "min_items": "minItems",
    "max_items": "maxItems",
    "min_length": "minLength",
    "max_length": "maxLength",
    "min_properties": "minProperties",
    "max_properties": "maxProperties",
    "property_ordering": "propertyOrdering",
}
"""The keywords of the API's own ``Schema`` (``responseSchema``, a declaration's
``parameters``) in snake_case -> in camelCase: the API reads either, and google-genai
sends snake_case (a pydantic ``Field(min_length=2)`` of a list as ``min_items``)."""


def camel_case_schema(schema: Any) -> Any:
    """An API ``Schema`` with its keywords of :data:`_SCHEMA_CAMEL_CASE` in camelCase, in
    it and in the schemas it holds (``properties``, ``items``, ``anyOf``); the names of its
    properties and its values (``enum``, ``example``, ``default``) are kept."""
    if not isinstance(schema, Mapping):
        return schema
    out = {_SCHEMA_CAMEL_CASE.get(name, name): value for name, value in schema.items()}
    if isinstance(out.get("properties"), Mapping):
        out["properties"] = {k: camel_case_schema(v) for k, v in out["properties"].items()}
    if "items" in out:
        out["items"] = camel_case_schema(out["items"])
    if isinstance(out.get("anyOf"), list):
        out["anyOf"] = [camel_case_schema(part) for part in out["anyOf"]]
    return out


def _schema(declared: Mapping[str, Any], path: str) -> dict[str, Any]:
    for name in _SCHEMA_FIELDS:
        if declared.get(name) is not None:
            schema = dict(field_of(declared, name, dict, path))
            return camel_case_schema(schema) if name == "parameters" else schema
    return {}


def from_gemini_request(
    request: Mapping[str, Any],
) -> tuple[list[Message], list[ToolSpec], str | None]:
    """The conversation, tools and system prompt held by a ``generateContent`` body
    (its field names in camelCase or snake_case)."""
    request = camel_case_request(request)
    messages: list[Message] = []
    unanswered: dict[str, list[str]] = {}  # the ids of the last turn's calls, by name
    for i, content in enumerate(field_of(request, "contents", list, "request")):
        where = f"request.contents[{i}]"
        role = optional_field(content, "role", str, where, "user")
        parts = _parts(content, where)
        if role == "model":
            calls = _calls(parts, f"{where}.parts")
            unanswered = {}
            for call in calls:
                unanswered.setdefault(call.name, []).append(call.id)
            messages.append(Message.assistant(_text(parts, f"{where}.parts"), calls))
        elif role in ("user", "function", "tool"):
            messages.extend(_user_turn(parts, f"{where}.parts", unanswered))
        else:
            raise WireFormatError(f"{where}.role", f"unknown role {role!r}")
    tools = []
    for i, tool in enumerate(optional_field(request, "tools", list, "request", [])):
        where = f"request.tools[{i}]"
        for j, declared in enumerate(optional_field(tool, "functionDeclarations", list, where, [])):
            at = f"{where}.functionDeclarations[{j}]"
            tools.append(
                ToolSpec(
                    name=field_of(declared, "name", str, at),
                    description=optional_field(declared, "description", str, at, ""),
                    input_schema=_schema(declared, at),
                )
            )
    system = None
    if request.get("systemInstruction") is not None:
        instruction = field_of(request, "systemInstruction", dict, "request")
        system = _text(
            _parts(instruction, "request.systemInstruction"), "request.systemInstruction.parts"
        )
    return messages, tools, system


def gemini_usage(usage: Usage) -> dict[str, Any]:
    """The ``usageMetadata`` of a response."""
    return {
        "promptTokenCount": usage.input_tokens,
        "candidatesTokenCount": usage.output_tokens,
        "totalTokenCount": usage.input_tokens + usage.output_tokens,
    }


def to_gemini_response(
    response: ModelResponse, *, model: str, response_id: str = "replaygate"
) -> dict[str, Any]:
    """The ``generateContent`` response body for ``response``: an empty answer's content
    has no parts, as the API gives it (an empty text part sent back is refused)."""
    unpaused(response, INTERFACE)
    parts: list[dict[str, Any]] = [{"text": response.text}] if response.text else []
    parts.extend(_call_part(call) for call in response.tool_calls)
    content: dict[str, Any] = {"role": "model", "parts": parts} if parts else {"role": "model"}
    return {
        "candidates": [
            {
                "content": content,
                "finishReason": _STOP_TO_FINISH.get(response.stop_reason, "STOP"),
                "index": 0,
            }
        ],
        "usageMetadata": gemini_usage(response.usage),
        "modelVersion": model,
        "responseId": response_id,
    }


def from_gemini_response(response: Mapping[str, Any]) -> ModelResponse:
    """The engine's view of a ``generateContent`` response body (its first candidate)."""
    candidates = optional_field(response, "candidates", list, "response", [])
    counted = read_usage(
        response,
        "usageMetadata",
        "promptTokenCount",
        "candidatesTokenCount",
        output_omitted_at_zero=True,
        billed_as_output=("thoughtsTokenCount",),  # a thinking model's, billed as output
        billed_as_input=("toolUsePromptTokenCount",),  # what Google Search gave it, as input
    )
    if not candidates:
        feedback = optional_field(response, "promptFeedback", dict, "response", {})
        if feedback.get("blockReason"):
            return ModelResponse(stop_reason="refusal", usage=counted)
        raise WireFormatError("response.candidates", "empty, and no promptFeedback.blockReason")
    where = "response.candidates[0]"
    content = optional_field(candidates[0], "content", dict, where, {})
    parts = _parts(content, f"{where}.content")
    calls = _calls(parts, f"{where}.content.parts")
    finish = optional_field(candidates[0], "finishReason", str, where, "STOP")
    if finish not in _FINISH_TO_STOP:
        raise WireFormatError(f"{where}.finishReason", f"unknown value {finish!r}")
    stop = _FINISH_TO_STOP[finish]
    return ModelResponse(
        text=_text(parts, f"{where}.content.parts"),
        tool_calls=calls,
        stop_reason="tool_use" if calls and stop == "end_turn" else stop,
        usage=counted,
    )
