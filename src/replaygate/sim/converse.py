"""Amazon Bedrock's Converse API (``POST /model/<id>/converse`` and ``/converse-stream``)
read as the Messages API and written back in its own shapes (pure functions).

A Converse request (``messages`` of content blocks keyed by their kind, ``system``,
``inferenceConfig``, ``toolConfig``, ``outputConfig``, ``additionalModelRequestFields``) is
the Messages request :func:`messages_request` makes of it; the Messages API's answer is the Converse
answer :func:`converse_response` makes of it (``output.message``, ``stopReason``,
``usage``, ``metrics``), and :func:`converse_events` the events of its stream
(``messageStart``, ``contentBlockStart`` for a tool call, ``contentBlockDelta``,
``contentBlockStop``, ``messageStop``, ``metadata``), as botocore's service model of
``bedrock-runtime`` names them.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from replaygate.http.sse import SSEEvent
from replaygate.sim.streaming import Patch, split_pieces, unpatched
from replaygate.sim.validation import OWN_WORDING, Invalid

DEFAULT_MAX_TOKENS = 4096
"""The ``max_tokens`` of a Converse request that gives no ``inferenceConfig.maxTokens``."""

UNKNOWN_MODEL = "The provided model identifier is invalid."
"""Bedrock's ``ValidationException`` for a model id it does not know."""
_MODEL_ID = re.compile(
    r"(?:[a-z]{2,7}(?:-[a-z]{2,4})?\.)?(?P<provider>[a-z][a-z0-9]*)\.[A-Za-z0-9._:-]+"
    r"|arn:aws[a-z-]*:bedrock:.+"
)
"""A Bedrock model id, its provider's name first (``anthropic.claude-...``, an inference
profile's ``us.anthropic...``, ``us-gov.``), or ARN; a bare name (``claude-sonnet-4-6``,
``claude-3.5-sonnet``) is none."""

_START = (
    "A conversation must start with a user message. Try again with a conversation that "
    "starts with a user message."
)
_ALTERNATE = (
    "A conversation must alternate between user and assistant roles. Make sure the "
    "conversation alternates between user and assistant roles and try again."
)
_STOP_REASONS = {"refusal": "content_filtered"}
"""The Converse ``stopReason`` of a Messages ``stop_reason`` named otherwise."""
_TEXT_FORMATS = {"txt", "md", "csv", "html"}
_IMAGE_FORMATS = ("gif", "jpeg", "png", "webp")
ECHOED = ("performanceConfig", "serviceTier")
"""The fields of a request its answer (and its stream's ``metadata``) repeats: the
performance and the tier it was served with, those asked for."""
_TIERS = ("priority", "default", "flex", "reserved")
_LATENCIES = ("standard", "optimized")
"""The latencies a ``performanceConfig`` asks for."""


def model_problem(model: str) -> Invalid | None:
    """Bedrock's refusal of a model id that is none of its own (:data:`UNKNOWN_MODEL`)."""
    return None if _MODEL_ID.fullmatch(model) else Invalid(UNKNOWN_MODEL)


def model_provider(model: str) -> str | None:
    """The provider a Bedrock model id names (``anthropic``, ``amazon``, ``meta``), or None
    (an ARN, or no id of Bedrock's)."""
    found = _MODEL_ID.fullmatch(model)
    return None if found is None else found.group("provider")


def _constraint(path: str, what: str) -> Invalid:
    """Bedrock's validation error of the field at ``path`` (its words)."""
    return Invalid(
        f"1 validation error detected: Value at '{path}' failed to satisfy constraint: {what}"
    )


@dataclass(frozen=True)
class Asked:
    """The Messages request a Converse request stands for (no ``model``), the betas its
    ``additionalModelRequestFields`` name, and why Bedrock refuses it (None: it does not)."""

    body: dict[str, Any]
    betas: tuple[str, ...] = ()
    problem: Invalid | None = None
    echoed: Mapping[str, Any] = field(default_factory=dict)
    """The fields its answer repeats (:data:`ECHOED`)."""


class _Refused(Exception):
    """A Converse request Bedrock refuses, raised while reading it."""

    def __init__(self, problem: Invalid) -> None:
        super().__init__(problem.message)
        self.problem = problem


def _cached(blocks: list[Any]) -> list[Any]:
    """Content blocks with each ``cachePoint`` made the ``cache_control`` of the block
    before it, as Bedrock gives Claude a cache point."""
    out: list[Any] = []
    for block in blocks:
        if isinstance(block, Mapping) and "cachePoint" in block:
            if out and isinstance(out[-1], dict):
                out[-1] = {**out[-1], "cache_control": {"type": "ephemeral"}}
            continue
        out.append(block)
    return out


def _source(block: Mapping[str, Any], path: str) -> str:
    """The base64 ``source.bytes`` of an image or document block; one in S3
    (``s3Location``), which Bedrock reads and the simulator cannot, its own refusal."""
    source = block.get("source")
    if isinstance(source, Mapping) and "s3Location" in source:
        said = f"The simulator reads no file in S3 ({path}.source.s3Location): send its bytes"
        raise _Refused(Invalid(said, own=True))
    data = source.get("bytes") if isinstance(source, Mapping) else None
    if not isinstance(data, str):
        raise _Refused(_constraint(f"{path}.source.bytes", "Member must not be null"))
    return data


def _tool_result_content(given: Any, path: str) -> list[dict[str, Any]]:
    """The Messages content of a ``toolResult``'s ``content``: a text, a JSON document as
    its text, an image, a document; a video, which Bedrock takes, the simulator's own
    refusal."""
    out: list[dict[str, Any]] = []
    listed = [] if given is None else _shaped(given, list, f"{path}.content", "a list")
    for k, item in enumerate(listed):
        where = f"{path}.content.{k + 1}.member"
        if isinstance(item, Mapping) and isinstance(item.get("text"), str):
            out.append({"type": "text", "text": item["text"]})
        elif isinstance(item, Mapping) and "json" in item:
            out.append({"type": "text", "text": json.dumps(item["json"], ensure_ascii=False)})
        elif isinstance(item, Mapping) and isinstance(item.get("image"), Mapping):
            out.append(_image(item["image"], f"{where}.image"))
        elif isinstance(item, Mapping) and isinstance(item.get("document"), Mapping):
            out.append(_document(item["document"], f"{where}.document"))
        elif isinstance(item, Mapping) and "video" in item:
            said = f"The simulator reads no video of a tool's result ({where})"
            raise _Refused(Invalid(said, own=True))
        else:
            what = "Member must have one of text, json, image, document, video set"
            raise _Refused(_constraint(where, what))
    return out


def _image(image: Mapping[str, Any], path: str) -> dict[str, Any]:
    """The Messages image block of a Converse ``image`` (its ``format`` and bytes), a
    format Bedrock reads no image of refused in its words."""
    if image.get("format") not in _IMAGE_FORMATS:
        what = f"Member must satisfy enum value set: [{', '.join(_IMAGE_FORMATS)}]"
        raise _Refused(_constraint(f"{path}.format", what))
    media = f"image/{image['format']}"
    return {
        "type": "image",
        "source": {"type": "base64", "media_type": media, "data": _source(image, path)},
    }


def _document(document: Mapping[str, Any], path: str) -> dict[str, Any]:
    """The Messages document block of a Converse ``document``: a PDF's bytes, a text's
    text, its source's ``text`` or ``content`` (its chunks); a document without a name
    refused, and one asking for citations, which Converse answers in blocks of its own,
    the simulator's refusal."""
    if not isinstance(document.get("name"), str):
        raise _Refused(_constraint(f"{path}.name", "Member must not be null"))
    if document.get("citations") is not None:
        said = f"The simulator answers no citations of Converse ({path}.citations)"
        raise _Refused(Invalid(said, own=True))
    given = document.get("source")
    given = given if isinstance(given, Mapping) else {}
    if isinstance(given.get("text"), str):
        source = {"type": "text", "media_type": "text/plain", "data": given["text"]}
        return {"type": "document", "source": source}
    if isinstance(given.get("content"), list):
        chunks = [c.get("text") if isinstance(c, Mapping) else None for c in given["content"]]
        if not all(isinstance(c, str) for c in chunks):
            what = "Member must have text set"
            raise _Refused(_constraint(f"{path}.source.content", what))
        content = [{"type": "text", "text": c} for c in chunks]
        return {"type": "document", "source": {"type": "content", "content": content}}
    data, kind = _source(document, path), document.get("format")
    if kind == "pdf":
        source = {"type": "base64", "media_type": "application/pdf", "data": data}
    elif kind in _TEXT_FORMATS:
        try:
            text = base64.b64decode(data, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            raise _Refused(_constraint(f"{path}.source.bytes", "Member must be base64")) from None
        source = {"type": "text", "media_type": "text/plain", "data": text}
    else:
        raise _Refused(Invalid(f"The simulator reads no document of format {kind!r}", own=True))
    return {"type": "document", "source": source}


def _block(block: Any, path: str) -> dict[str, Any]:
    """The Messages content block of a Converse one, its cache point's ``cache_control``
    (:func:`_cached`) kept."""
    if not isinstance(block, Mapping):
        raise _Refused(_constraint(path, "Member must not be null"))
    read = _read_block(block, path)
    return (
        read if "cache_control" not in block else {**read, "cache_control": block["cache_control"]}
    )


def _unwrapped(reasoning: Mapping[str, Any], path: str) -> str:
    """Claude's ``data`` of a redacted thought, which Converse carries base64-wrapped as
    ``redactedContent`` (a blob)."""
    try:
        return base64.b64decode(reasoning["redactedContent"], validate=True).decode("ascii")
    except (TypeError, ValueError):
        raise _Refused(_constraint(path, "Member must be base64")) from None


def _guarded_text(block: Mapping[str, Any]) -> str | None:
    """The text of a ``guardContent`` block (``{"guardContent": {"text": {"text": ...}}}``),
    or None."""
    guard = block.get("guardContent")
    said = guard.get("text") if isinstance(guard, Mapping) else None
    text = said.get("text") if isinstance(said, Mapping) else None
    return text if isinstance(text, str) else None


def _read_block(block: Mapping[str, Any], path: str) -> dict[str, Any]:
    """The Messages content block of a Converse one (a mapping); a ``guardContent``'s text
    (what a guardrail checks: LiteLLM's last user turn under ``guardrailConfig``) is the
    model's text, the guardrail itself not applied."""
    guarded = _guarded_text(block)
    if guarded is not None:
        return {"type": "text", "text": guarded}
    if "text" in block:
        if not isinstance(block["text"], str):
            raise _Refused(_constraint(f"{path}.text", "Member must be a string"))
        return {"type": "text", "text": block["text"]}
    use = block.get("toolUse")
    if isinstance(use, Mapping):
        return {
            "type": "tool_use",
            "id": use.get("toolUseId"),
            "name": use.get("name"),
            "input": use.get("input"),
        }
    result = block.get("toolResult")
    if isinstance(result, Mapping):
        return {
            "type": "tool_result",
            "tool_use_id": result.get("toolUseId"),
            "content": _tool_result_content(result.get("content"), f"{path}.toolResult"),
            **({"is_error": True} if result.get("status") == "error" else {}),
        }
    reasoning = block.get("reasoningContent")
    if isinstance(reasoning, Mapping):
        if "redactedContent" in reasoning:
            where = f"{path}.reasoningContent.redactedContent"
            return {"type": "redacted_thinking", "data": _unwrapped(reasoning, where)}
        said = reasoning.get("reasoningText")
        said = said if isinstance(said, Mapping) else {}
        return {
            "type": "thinking",
            "thinking": said.get("text"),
            "signature": said.get("signature", ""),
        }
    if isinstance(block.get("image"), Mapping):
        return _image(block["image"], f"{path}.image")
    if isinstance(block.get("document"), Mapping):
        return _document(block["document"], f"{path}.document")
    kinds = ", ".join(sorted(str(k) for k in block)) or "none"
    said = f"The simulator reads no content block of {kinds} ({path})"
    raise _Refused(Invalid(said, own=True))


def _messages(given: Any) -> list[dict[str, Any]]:
    """The Messages API's messages of Converse's, refused as Bedrock refuses a
    conversation that does not start with the user or alternate."""
    if not isinstance(given, list) or not given:
        raise _Refused(Invalid(_START))
    out: list[dict[str, Any]] = []
    for i, message in enumerate(given):
        role = message.get("role") if isinstance(message, Mapping) else None
        if i == 0 and role != "user":
            raise _Refused(Invalid(_START))
        if role not in ("user", "assistant"):
            where = f"messages.{i + 1}.member.role"
            raise _Refused(
                _constraint(where, "Member must satisfy enum value set: [user, assistant]")
            )
        if out and out[-1]["role"] == role:
            raise _Refused(Invalid(_ALTERNATE))
        content = message.get("content")
        if not isinstance(content, list):
            raise _Refused(
                _constraint(f"messages.{i + 1}.member.content", "Member must not be null")
            )
        blocks = [
            _block(b, f"messages.{i + 1}.member.content.{j + 1}.member")
            for j, b in enumerate(_cached(content))
        ]
        out.append({"role": role, "content": blocks})
    return out


def _tools(config: Mapping[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The Messages ``tools`` and ``tool_choice`` of a ``toolConfig``."""
    tools: list[dict[str, Any]] = []
    listed = _shaped(config.get("tools"), list, "toolConfig.tools", "a list")
    for k, tool in enumerate(_cached(listed)):
        spec = tool.get("toolSpec") if isinstance(tool, Mapping) else None
        if isinstance(tool, Mapping) and "systemTool" in tool:
            said = f"The simulator serves no system tool (toolConfig.tools.{k + 1})"
            raise _Refused(Invalid(said, own=True))
        if not isinstance(spec, Mapping):
            where = f"toolConfig.tools.{k + 1}.member.toolSpec"
            raise _Refused(_constraint(where, "Member must not be null"))
        schema = spec.get("inputSchema")
        shown = schema.get("json") if isinstance(schema, Mapping) else None
        named = {"name": spec.get("name"), "input_schema": shown}
        if spec.get("description") is not None:
            named["description"] = spec["description"]
        if "cache_control" in tool:
            named["cache_control"] = tool["cache_control"]
        tools.append(named)
    return tools, _tool_choice(config.get("toolChoice"))


def _tool_choice(choice: Any) -> dict[str, Any] | None:
    """The Messages ``tool_choice`` of a ``toolConfig``'s ``toolChoice`` (None: it gives
    none), refused as Bedrock refuses one that is no object of ``auto``, ``any`` or
    ``tool``, such as the Chat Completions API's ``"auto"``."""
    if choice is None:
        return None
    if not isinstance(choice, Mapping) or not {"auto", "any", "tool"} & set(choice):
        what = "Member must have one of auto, any, tool set"
        raise _Refused(_constraint("toolConfig.toolChoice", what))
    if "tool" in choice:
        named_tool = choice["tool"]
        name = named_tool.get("name") if isinstance(named_tool, Mapping) else None
        return {"type": "tool", "name": name}
    return {"type": "any" if "any" in choice else "auto"}


def _inference(config: Any) -> dict[str, Any]:
    """The Messages fields of an ``inferenceConfig``."""
    config = {} if config is None else _shaped(config, Mapping, "inferenceConfig", "an object")
    most = config.get("maxTokens", DEFAULT_MAX_TOKENS)
    if type(most) is not int or most >= 2**31:  # a float, a text, a number beyond int32
        shown = json.dumps(most, ensure_ascii=False)
        said = f"inferenceConfig.maxTokens: {shown} is no integer Bedrock reads {OWN_WORDING}"
        raise _Refused(Invalid(said, own=True))
    if most < 1:
        what = "Member must have value greater than or equal to 1"
        raise _Refused(_constraint("inferenceConfig.maxTokens", what))
    fields: dict[str, Any] = {"max_tokens": most}
    for given, name in (("temperature", "temperature"), ("topP", "top_p")):
        if config.get(given) is not None:
            fields[name] = config[given]
    if config.get("stopSequences"):
        fields["stop_sequences"] = config["stopSequences"]
    return fields


def _output_config(given: Any) -> dict[str, Any]:
    """The Messages ``output_config`` of an ``outputConfig``: its ``textFormat``'s JSON
    schema (a JSON text in Converse, an object in the Messages API) and its ``effort``."""
    if given is None:
        return {}
    given = _shaped(given, Mapping, "outputConfig", "an object")
    config: dict[str, Any] = {}
    if isinstance(given.get("effort"), str):
        config["effort"] = given["effort"]
    shaped = given.get("textFormat")
    structure = shaped.get("structure") if isinstance(shaped, Mapping) else None
    defined = structure.get("jsonSchema") if isinstance(structure, Mapping) else None
    if isinstance(defined, Mapping):
        where = "outputConfig.textFormat.structure.jsonSchema.schema"
        try:
            schema = json.loads(defined.get("schema") or "")
        except (TypeError, json.JSONDecodeError):
            schema = None
        if not isinstance(schema, dict):
            raise _Refused(_constraint(where, "Member must be a JSON schema object"))
        config["format"] = {"type": "json_schema", "schema": schema}
    return config


def _system_block(block: Mapping[str, Any]) -> dict[str, Any]:
    """The Messages system block of a Converse one: its text (or its ``guardContent``'s),
    and its cache point's."""
    cached = {"cache_control": block["cache_control"]} if "cache_control" in block else {}
    text = _guarded_text(block)
    return {"type": "text", "text": block.get("text") if text is None else text, **cached}


def _shaped(given: Any, kind: type, path: str, word: str) -> Any:
    """``given`` (a field at ``path``), refused as Bedrock refuses a value of another shape
    than ``kind`` (``word``), such as a Messages API ``system`` text sent to Converse."""
    if not isinstance(given, kind):
        raise _Refused(_constraint(path, f"Member must be {word}"))
    return given


def _merged(plain: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    """``plain`` with the fields of ``extra`` (``additionalModelRequestFields``), an object
    both give (a tool choice's ``disable_parallel_tool_use`` beside ``toolConfig``'s
    choice, an ``output_config``'s ``effort`` beside ``outputConfig``'s schema) merged,
    the request's own fields first."""
    merged = {**extra, **plain}
    for name, given in extra.items():
        if isinstance(given, Mapping) and isinstance(plain.get(name), Mapping):
            merged[name] = {**given, **plain[name]}
    return merged


def _echoed(body: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of :data:`ECHOED` ``body`` gives, a ``serviceTier`` of no tier and a
    ``performanceConfig`` of no latency Bedrock has refused."""
    echoed = {
        name: _shaped(body[name], Mapping, name, "an object") for name in ECHOED if name in body
    }
    for path, given, kinds in (
        ("serviceTier.type", echoed.get("serviceTier", {}).get("type", "default"), _TIERS),
        (
            "performanceConfig.latency",
            echoed.get("performanceConfig", {}).get("latency", "standard"),
            _LATENCIES,
        ),
    ):
        if given not in kinds:
            what = f"Member must satisfy enum value set: [{', '.join(kinds)}]"
            raise _Refused(_constraint(path, what))
    return echoed


def _extra(given: Any) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The fields of an ``additionalModelRequestFields`` (a JSON object) but its
    ``anthropic_beta``, and the betas that names (a list of strings), either of another
    shape refused as Bedrock refuses it rather than dropped."""
    if given is None:
        return {}, ()
    extra = dict(_shaped(given, Mapping, "additionalModelRequestFields", "an object"))
    named = extra.pop("anthropic_beta", [])
    where = "additionalModelRequestFields.anthropic_beta"
    if not isinstance(named, list) or not all(isinstance(b, str) for b in named):
        raise _Refused(_constraint(where, "Member must be a list of strings"))
    return extra, tuple(named)


_NO_TOOL_CONFIG = (
    "The toolConfig field must be defined when using toolUse and toolResult content blocks."
)
"""Bedrock's ``ValidationException`` for a conversation holding tool calls or results sent
without ``toolConfig`` (as an agent's last turn, asked for a summary without tools, is)."""


def _uses_tools(messages: Any) -> bool:
    """Whether Converse ``messages`` (already read, so a list of objects) hold a ``toolUse``
    or ``toolResult`` block."""
    return any(
        isinstance(block, Mapping) and ("toolUse" in block or "toolResult" in block)
        for message in messages
        if isinstance(message, Mapping) and isinstance(message.get("content"), list)
        for block in message["content"]
    )


def messages_request(body: Any) -> Asked:
    """The Messages request a Converse request ``body`` stands for (see :class:`Asked`):
    ``additionalModelRequestFields`` (``thinking``, ``top_k``, ...) go into it as Bedrock
    passes them to Claude (:func:`_merged`)."""
    if not isinstance(body, Mapping):
        return Asked({}, problem=Invalid(_START))
    try:
        extra, betas = _extra(body.get("additionalModelRequestFields"))
    except _Refused as refused:
        return Asked({}, problem=refused.problem)
    try:
        plain: dict[str, Any] = {"messages": _messages(body.get("messages"))}
        plain.update(_inference(body.get("inferenceConfig")))
        system = body.get("system")
        if system is not None and _shaped(system, list, "system", "a list"):
            for k, block in enumerate(system):
                _shaped(block, Mapping, f"system.{k + 1}.member", "an object")
            plain["system"] = [_system_block(b) for b in _cached(system)]
        output = _output_config(body.get("outputConfig"))
        if output:
            plain["output_config"] = output
        config = body.get("toolConfig")
        if config is not None:
            plain["tools"], chosen = _tools(_shaped(config, Mapping, "toolConfig", "an object"))
            if chosen is not None:
                plain["tool_choice"] = chosen
        elif _uses_tools(body.get("messages")):
            raise _Refused(Invalid(_NO_TOOL_CONFIG))
        echoed = _echoed(body)
    except _Refused as refused:
        return Asked({}, betas, refused.problem)
    return Asked(_merged(plain, extra), betas, echoed=echoed)


def _block_out(block: Mapping[str, Any]) -> dict[str, Any]:
    """The Converse content block of a Messages one."""
    kind = block.get("type")
    if kind == "tool_use":
        use = {"toolUseId": block["id"], "name": block["name"], "input": block.get("input", {})}
        return {"toolUse": use}
    if kind == "thinking":
        said = {"text": block.get("thinking", ""), "signature": block.get("signature", "")}
        return {"reasoningContent": {"reasoningText": said}}
    if kind == "redacted_thinking":
        wrapped = base64.b64encode(str(block.get("data", "")).encode()).decode("ascii")
        return {"reasoningContent": {"redactedContent": wrapped}}
    return {"text": block.get("text", "")}


def _usage(usage: Mapping[str, Any]) -> dict[str, int]:
    """Converse's ``usage`` of the Messages API's (cache reads and writes apart)."""
    counts = {
        "inputTokens": int(usage.get("input_tokens") or 0),
        "outputTokens": int(usage.get("output_tokens") or 0),
        "cacheReadInputTokens": int(usage.get("cache_read_input_tokens") or 0),
        "cacheWriteInputTokens": int(usage.get("cache_creation_input_tokens") or 0),
    }
    kept = {name: n for name, n in counts.items() if n or not name.startswith("cache")}
    return {**kept, "totalTokens": sum(counts.values())}


def converse_response(wire: Mapping[str, Any]) -> dict[str, Any]:
    """The Converse answer of a Messages API answer ``wire``; a stop reason Converse has
    no word for (``pause_turn``) is a :class:`ValueError`."""
    stop = str(wire.get("stop_reason"))
    if stop == "pause_turn":
        raise ValueError("Bedrock's Converse API has no stop reason pause_turn")
    usage = _usage(wire.get("usage") or {})
    content = [_block_out(b) for b in wire.get("content") or [] if isinstance(b, Mapping)]
    return {
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": _STOP_REASONS.get(stop, stop),
        "usage": usage,
        "metrics": {"latencyMs": 100 + 10 * usage["outputTokens"]},
    }


def stopped_by(answer: dict[str, Any], sequence: str) -> dict[str, Any]:
    """A Converse ``answer`` naming the stop sequence it stopped at, as Bedrock passes on
    Claude's ``stop_sequence``."""
    return {**answer, "additionalModelResponseFields": {"stop_sequence": sequence}}


def _event(name: str, data: Mapping[str, Any]) -> SSEEvent:
    return SSEEvent(data=orjson.dumps(data).decode("utf-8"), event=name)


def _deltas(block: Mapping[str, Any], size: int) -> list[dict[str, Any]]:
    """The ``delta``s of one Converse content block."""
    if "toolUse" in block:
        said = json.dumps(block["toolUse"].get("input", {}), ensure_ascii=False)
        return [{"toolUse": {"input": p}} for p in split_pieces(said, size)]
    reasoning = block.get("reasoningContent")
    if isinstance(reasoning, Mapping):
        if "redactedContent" in reasoning:
            return [{"reasoningContent": {"redactedContent": reasoning["redactedContent"]}}]
        thought = reasoning.get("reasoningText") or {}
        pieces = split_pieces(str(thought.get("text", "")), size)
        deltas = [{"reasoningContent": {"text": p}} for p in pieces]
        return [*deltas, {"reasoningContent": {"signature": str(thought.get("signature", ""))}}]
    return [{"text": p} for p in split_pieces(str(block.get("text", "")), size)]


def converse_events(
    answer: Mapping[str, Any], chunk_size: int, patch: Patch = unpatched
) -> list[SSEEvent]:
    """The ConverseStream events of a Converse ``answer`` (:func:`converse_response`),
    each named by its type, texts and a tool call's input in pieces of ``chunk_size``;
    ``patch`` transforms the ``metadata`` event, which carries the answer's ``usage`` and
    ``metrics`` (drift injection)."""
    events = [_event("messageStart", {"role": "assistant"})]
    for index, block in enumerate(answer["output"]["message"]["content"]):
        use = block.get("toolUse")
        if isinstance(use, Mapping):
            start = {"toolUse": {"toolUseId": use["toolUseId"], "name": use["name"]}}
            events.append(_event("contentBlockStart", {"start": start, "contentBlockIndex": index}))
        events.extend(
            _event("contentBlockDelta", {"delta": d, "contentBlockIndex": index})
            for d in _deltas(block, chunk_size)
        )
        events.append(_event("contentBlockStop", {"contentBlockIndex": index}))
    stop: dict[str, Any] = {"stopReason": answer["stopReason"]}
    if "additionalModelResponseFields" in answer:
        stop["additionalModelResponseFields"] = answer["additionalModelResponseFields"]
    events.append(_event("messageStop", stop))
    metadata = {"usage": answer["usage"], "metrics": answer["metrics"]}
    metadata.update((name, answer[name]) for name in ECHOED if name in answer)
    events.append(_event("metadata", patch(metadata)))
    return events
