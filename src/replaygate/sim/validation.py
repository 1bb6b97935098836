"""Request validation as the real APIs do it, for the fields the simulator serves.

Each check returns ``None`` for a valid request or an :class:`Invalid` naming the
problem; the server wraps it in the provider's error body.
"""

from __future__ import annotations

import base64
import datetime
import json
import math
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import parse_qsl

import orjson

from replaygate.models.providers.anthropic import API_VERSIONS, server_tool
from replaygate.models.providers.google_gemini import takes_no_arguments
from replaygate.sim.logprobs import RESPONSES_INCLUDE
from replaygate.sim.thinking import (
    EFFORTS,
    ENCRYPTED_REASONING,
    MIN_BUDGET,
    SUMMARIES,
    efforts_taken,
    fixed_sampling,
    fixed_verbosity,
    reasoning_model,
    signed,
    unsealed,
)


@dataclass(frozen=True)
class Invalid:
    """Why a request was refused: a message, the offending parameter and an error code."""

    message: str
    param: str | None = None
    code: str | None = None
    status: int = 400
    """The HTTP status of the refusal (400, or 404 for a resource the request names that
    the server does not hold)."""
    own: bool = False
    """Whether the refusal is the simulator's own, no answer of the API's (a request the API
    may take but the simulator cannot answer as it would): sent marked as such
    (:func:`~replaygate.sim.replies.refusal`), which a recording does not keep."""

    def within(self, where: str) -> Invalid:
        """This refusal of a request inside another (one of a batch's), its message naming
        ``where`` first, so that the one refused among many is found."""
        return replace(self, message=f"{where}: {self.message}")


OWN_WORDING = "(the simulator's wording: the API refuses it with its own)"
"""Said after a refusal whose words are the simulator's (:attr:`Invalid.own`)."""

_RESULTS_WITHOUT_USE = (
    "messages.{i}.content: unexpected `tool_use_id` found in `tool_result` blocks: {ids}. "
    "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
)
_USES_WITHOUT_RESULT = (
    "messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: "
    "{ids}. Each `tool_use` block must have a corresponding `tool_result` block in the next "
    "message."
)
_RESULTS_NOT_FIRST = (
    "messages.{i}: Did not find {n} `tool_result` block(s) at the beginning of this message. "
    "Messages following `tool_use` blocks must begin with a matching number of `tool_result` "
    "blocks."
)


def anthropic_authenticated(headers: Mapping[str, str]) -> bool:
    """Whether the request carries an ``x-api-key`` (or a bearer token)."""
    if headers.get("x-api-key", "").strip():
        return True
    scheme, _, token = headers.get("authorization", "").partition(" ")
    return scheme.lower() == "bearer" and bool(token.strip())


_DATED = re.compile(r"\d{4}-\d{2}-\d{2}")


def anthropic_version_problem(headers: Mapping[str, str]) -> Invalid | None:
    """Why the Messages API would refuse the request's ``anthropic-version`` header, as it
    refuses it: missing (``anthropic-version: header is required``) or naming no version
    of :data:`~replaygate.models.providers.anthropic.API_VERSIONS` (``anthropic-version:
    "x" is not a valid version``). A date none of them names is the simulator's own
    refusal: the API may have published that version since."""
    version = headers.get("anthropic-version", "").strip()
    if not version:
        return Invalid("anthropic-version: header is required")
    if version in API_VERSIONS:
        return None
    shown = orjson.dumps(version).decode()
    if _DATED.fullmatch(version):
        known = ", ".join(API_VERSIONS)
        return Invalid(
            f"anthropic-version: {shown} is no version the simulator knows (it knows "
            f"{known}); the API refuses a version it does not know as not a valid version: "
            f"send one it knows (the SDKs send theirs)",
            own=True,
        )
    return Invalid(f"anthropic-version: {shown} is not a valid version")


def openai_authenticated(headers: Mapping[str, str]) -> bool:
    """Whether the request carries ``Authorization: Bearer <key>``, Azure OpenAI's
    ``api-key: <key>``, or a gateway's ``Authorization: Basic <user:password>`` (what
    httpx sends in place of the key for a base URL holding ``user:password@``)."""
    scheme, _, token = headers.get("authorization", "").partition(" ")
    signed = scheme.lower() in ("bearer", "basic") and bool(token.strip())
    return signed or bool(headers.get("api-key", "").strip())


def _anthropic_block_ids(message: Any, kind: str, id_field: str) -> list[str]:
    content = message["content"]
    if not isinstance(content, list):
        return []
    return [
        str(b.get(id_field)) for b in content if isinstance(b, Mapping) and b.get("type") == kind
    ]


def _tool_uses(message: Any) -> list[str]:
    return _anthropic_block_ids(message, "tool_use", "id")


def _tool_results(message: Any) -> list[str]:
    return _anthropic_block_ids(message, "tool_result", "tool_use_id")


_Fields = dict[str, tuple[type | tuple[type, ...], str]]
"""Fields, each with its type and how the API's errors name that type."""
_TEXT = (str, "a valid string")
_OBJECT = (Mapping, "a valid dictionary")
_ANTHROPIC_BLOCKS: dict[str, _Fields] = {
    "text": {"text": _TEXT},
    "image": {"source": _OBJECT},
    "document": {"source": _OBJECT},
    "search_result": {"source": _TEXT, "title": _TEXT, "content": (list, "a valid list")},
    "tool_use": {"id": _TEXT, "name": _TEXT, "input": _OBJECT},
    "tool_result": {"tool_use_id": _TEXT},
    "thinking": {"thinking": _TEXT, "signature": _TEXT},
    "redacted_thinking": {"data": _TEXT},
    "server_tool_use": {"id": _TEXT, "name": _TEXT, "input": _OBJECT},
    "web_search_tool_result": {"tool_use_id": _TEXT},
    "web_fetch_tool_result": {"tool_use_id": _TEXT},
    "code_execution_tool_result": {"tool_use_id": _TEXT},
    "bash_code_execution_tool_result": {"tool_use_id": _TEXT},
    "text_editor_code_execution_tool_result": {"tool_use_id": _TEXT},
    "tool_search_tool_result": {"tool_use_id": _TEXT},
    "mcp_tool_use": {"id": _TEXT, "name": _TEXT, "input": _OBJECT},
    "mcp_tool_result": {"tool_use_id": _TEXT},
    "container_upload": {"file_id": _TEXT},
    "compaction": {},
    "fallback": {"from": _OBJECT, "to": _OBJECT},
    "advisor_tool_result": {"tool_use_id": _TEXT},
    "tool_addition": {"tool": _OBJECT},
    "tool_removal": {"tool": _OBJECT},
}
"""The content block kinds of the Messages API, each with its required fields."""
_BASE64: _Fields = {"media_type": _TEXT, "data": _TEXT}
_IMAGE_SOURCES: dict[str, _Fields] = {
    "base64": _BASE64,
    "url": {"url": _TEXT},
    "file": {"file_id": _TEXT},
}
_SOURCES: dict[str, dict[str, _Fields]] = {
    "image": _IMAGE_SOURCES,
    "document": {
        **_IMAGE_SOURCES,
        "text": _BASE64,
        "content": {"content": ((str, list), "a valid string or list")},
    },
}
"""The source kinds of an image and of a document, each with its required fields."""


def _anthropic_tagged(value: Any, where: str, kinds: Mapping[str, _Fields]) -> Invalid | None:
    """The Messages API's error for ``value``, an object tagged by its ``type`` as one of
    ``kinds``, when it is not one or lacks a field its kind requires."""
    if not isinstance(value, Mapping) or not isinstance(value.get("type"), str):
        return Invalid(f"{where}: Input should be a valid dictionary or object")
    kind = value["type"]
    fields = kinds.get(kind)
    if fields is None:
        expected = ", ".join(f"'{k}'" for k in kinds)
        return Invalid(
            f"{where}: Input tag '{kind}' found using 'type' does not match any of the "
            f"expected tags: {expected}"
        )
    for name, (kind_of, word) in fields.items():
        if name not in value:
            return Invalid(f"{where}.{kind}.{name}: Field required")
        if not isinstance(value[name], kind_of):
            return Invalid(f"{where}.{kind}.{name}: Input should be {word}")
    return None


IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
"""The media types of an image the Messages API reads."""


def _image_kind(data: bytes) -> str | None:
    """The media type ``data`` begins as (its signature: PNG's, JPEG's, GIF's, WebP's), or
    None for data of none of them."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def _image_data(source: Mapping[str, Any], where: str) -> Invalid | None:
    """The Messages API's error for an image's base64 ``source`` (at ``where``) of a media
    type it does not read (``image/bmp``) or that the image's data is not (a PNG sent as
    ``image/jpeg``), and the simulator's own for data that is no base64, which no image
    decodes from."""
    if source["type"] != "base64":
        return None
    declared = source["media_type"]
    if declared not in IMAGE_TYPES:
        listed = ", ".join(f"'{t}'" for t in IMAGE_TYPES[:-1])
        said = f"Input should be {listed} or '{IMAGE_TYPES[-1]}'"
        return Invalid(f"{where}.base64.media_type: {said}")
    try:
        data = base64.b64decode(source["data"], validate=True)
    except ValueError:
        said = f"{where}.base64.data: the image's data is no base64 {OWN_WORDING}"
        return Invalid(said, own=True)
    actual = _image_kind(data)
    if actual is not None and actual != declared:
        return Invalid(
            f"{where}.base64: The image was specified using the {declared} media type, but "
            f"the image appears to be a {actual} image"
        )
    return None


_PDF_HEADER = b"%PDF-"
"""How a PDF begins: its header, which the format lets come after up to 1024 bytes of
anything else."""


def _pdf_data(source: Mapping[str, Any], where: str) -> Invalid | None:
    """The Messages API's error for a document's base64 PDF ``source`` (of the block at
    ``where``) whose data is no PDF (an HTML error page saved as ``.pdf``): no PDF header
    in its first bytes, or data that is no base64."""
    if source["type"] != "base64" or source["media_type"] != "application/pdf":
        return None
    try:
        data = base64.b64decode(source["data"], validate=True)
    except ValueError:
        data = b""
    if _PDF_HEADER in data[: 1024 + len(_PDF_HEADER)]:
        return None
    return Invalid(f"{where}.pdf.source.base64.data: The PDF specified was not valid.")


_TOOL_ID = re.compile(r"^[a-zA-Z0-9_-]+$")
"""The ids the Messages API takes for a tool call and the result naming it: an id an agent
carried over from another provider (``functions.search:0``, ``call|1``) or left empty is
refused, where the simulator took it and a recording passed that fails live."""
_TOOL_IDS = {"tool_use": "id", "tool_result": "tool_use_id"}


def _anthropic_block(block: Any, where: str) -> Invalid | None:
    problem = _anthropic_tagged(block, where, _ANTHROPIC_BLOCKS)
    if problem is not None:
        return problem
    kind = block["type"]
    if kind in _SOURCES:
        source = f"{where}.{kind}.source"
        return _anthropic_tagged(block["source"], source, _SOURCES[kind]) or (
            _image_data(block["source"], source)
            if kind == "image"
            else _pdf_data(block["source"], where)
        )
    if kind == "text" and not block["text"]:
        return Invalid("messages: text content blocks must be non-empty")
    id_field = _TOOL_IDS.get(kind)
    if id_field is not None and not _TOOL_ID.fullmatch(block[id_field]):
        return Invalid(
            f"{where}.{kind}.{id_field}: String should match pattern '{_TOOL_ID.pattern}'"
        )
    if kind == "tool_result" and "content" in block:
        return _anthropic_content(block["content"], f"{where}.tool_result.content")
    return None


def _blank_text(content: Any) -> bool:
    """Whether a message's ``content`` is text alone, none of it but whitespace (``" "``,
    ``[{"type": "text", "text": "\\n"}]``), which the Messages API refuses; one text block
    of words beside a blank one is taken."""
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    return (
        isinstance(blocks, list)
        and bool(blocks)
        and all(
            isinstance(block, Mapping)
            and block.get("type") == "text"
            and isinstance(block.get("text"), str)
            and block["text"] != ""
            and not block["text"].strip()
            for block in blocks
        )
    )


def _anthropic_content(content: Any, where: str) -> Invalid | None:
    if isinstance(content, str):
        return None
    if not isinstance(content, list):
        return Invalid(f"{where}: Input should be a valid list")
    problems = (_anthropic_block(block, f"{where}.{j}") for j, block in enumerate(content))
    return next((p for p in problems if p is not None), None)


_ANTHROPIC_PARAMS: _Fields = {
    "system": ((str, list), "a valid string or list"),
    "temperature": ((int, float), "a valid number"),
    "top_p": ((int, float), "a valid number"),
    "top_k": (int, "a valid integer"),
    "stop_sequences": (list, "a valid list"),
    "tool_choice": (Mapping, "a valid dictionary or object"),
    "metadata": (Mapping, "a valid dictionary"),
}
"""Optional Messages API parameters, with their type."""


_MESSAGE_FIELDS = frozenset({"role", "content"})
"""The fields of a message of the Messages API: it refuses any other."""

MESSAGES_FIELDS = frozenset(
    {
        *_ANTHROPIC_PARAMS,
        *("model", "max_tokens", "messages", "stream", "tools", "thinking", "output_config"),
        *("cache_control", "container", "diagnostics", "inference_geo", "service_tier"),
        *("speed", "user_profile_id", "workspace_id"),
        # the beta's (sent with an anthropic-beta header; betas itself goes in the header)
        *("billing_policy", "compaction", "context_management", "fallback_credit_token"),
        *("fallbacks", "mcp_servers", "output_format", "thread"),
    }
)
"""The fields of a Messages API request (the anthropic SDK's ``MessageCreateParams`` and
its beta's, with the sampling parameters the API still takes): it refuses any other."""

_CLAUDE = re.compile(r"(?:anthropic\.|[a-z]+\.anthropic\.)?claude-")
"""Anthropic's model names (a cloud platform's ``anthropic.`` prefix included): another
server answering the Messages API's route (a local model, a gateway) takes fields of its own."""


def _unknown_field(body: Mapping[str, Any]) -> str | None:
    """The first field of ``body``, a request for one of Anthropic's models, that the
    Messages API does not take (:data:`MESSAGES_FIELDS`); else None."""
    if not _CLAUDE.match(body["model"]):
        return None
    return next((name for name in body if name not in MESSAGES_FIELDS), None)


def _prefill_ends_in_space(last: Mapping[str, Any]) -> Invalid | None:
    """The Messages API's error for a final assistant message (a prefill of the answer)
    whose text ends in whitespace, which the model's next token could not follow."""
    if last["role"] != "assistant":
        return None
    content = last["content"]
    tail = content[-1] if isinstance(content, list) and content else content
    text = tail.get("text") if isinstance(tail, Mapping) and tail.get("type") == "text" else tail
    if isinstance(text, str) and text and text[-1].isspace():
        return Invalid("messages: final assistant content cannot end with trailing whitespace")
    return None


def validate_anthropic(body: Any, *, counting: bool = False) -> Invalid | None:
    """Check a Messages API request body (``counting``: a ``count_tokens`` body, which
    takes no ``max_tokens``: the API refuses one given it)."""
    if not isinstance(body, Mapping):
        return Invalid("Input should be a valid dictionary or object")
    if not body.get("model"):
        return Invalid("model: Field required")
    if not isinstance(body["model"], str):
        return Invalid("model: Input should be a valid string")
    if counting and "max_tokens" in body:  # a Messages body sent to count as it is
        return Invalid("max_tokens: Extra inputs are not permitted")
    extra = None if counting else _unknown_field(body)
    if extra is not None:  # misspelt, or passed through extra_body (is_litellm)
        return Invalid(f"{extra}: Extra inputs are not permitted", extra)
    problem = None if counting else _max_tokens(body)
    for name, (kind_of, word) in _ANTHROPIC_PARAMS.items():
        if problem is None and body.get(name) is not None and not isinstance(body[name], kind_of):
            problem = Invalid(f"{name}: Input should be {word}")
    if problem is not None:
        return problem
    if "stream" in body and not isinstance(body["stream"], bool):
        return Invalid("stream: Input should be a valid boolean")
    stops = body.get("stop_sequences") or []
    wrong = next((j for j, stop in enumerate(stops) if not isinstance(stop, str)), None)
    if wrong is not None:  # a number, which would stop nothing
        return Invalid(f"stop_sequences.{wrong}: Input should be a valid string")
    problem = _anthropic_sampling(body)
    if problem is not None:
        return problem
    system = body.get("system")
    for j, block in enumerate(system if isinstance(system, list) else []):
        problem = problem or _anthropic_tagged(block, f"system.{j}", {"text": {"text": _TEXT}})
    if problem is not None:
        return problem
    messages = body.get("messages")
    if messages is None:
        return Invalid("messages: Field required")
    if not isinstance(messages, list):
        return Invalid("messages: Input should be a valid list")
    if not messages:
        return Invalid("messages: at least one message is required")
    for i, item in enumerate(messages):
        if not isinstance(item, Mapping):
            return Invalid(f"messages.{i}: Input should be a valid dictionary or object")
        if item.get("role") not in ("user", "assistant"):
            return Invalid(f"messages.{i}.role: Input should be 'user' or 'assistant'")
        if "content" not in item:
            return Invalid(f"messages.{i}.content: Field required")
        extra = next((key for key in item if key not in _MESSAGE_FIELDS), None)
        if extra is not None:  # autogen's name, a history's reasoning_details
            return Invalid(f"messages.{i}.{extra}: Extra inputs are not permitted")
        problem = _anthropic_content(item["content"], f"messages.{i}.content")
        if problem is not None:
            return problem
        if _blank_text(item["content"]) and (item["role"] == "user" or i + 1 < len(messages)):
            # a final assistant message is a prefill, refused for its trailing whitespace
            return Invalid("messages: text content blocks must contain non-whitespace text")
        if not item["content"] and (item["role"] == "user" or i + 1 < len(messages)):
            return Invalid(
                f"messages.{i}: all messages must have non-empty content except for the "
                "optional final assistant message"
            )
    if messages[0]["role"] != "user":
        return Invalid('messages: first message must use the "user" role')
    return (
        (None if counting else _prefill_ends_in_space(messages[-1]))
        or _anthropic_tool_pairs(messages)
        or _anthropic_tools(body.get("tools"))
        or _anthropic_tool_choice(body.get("tool_choice"), body.get("tools"))
        or _thinking_with_forced_tool(body)
        or _anthropic_thinking(body)
        or _thinking_with_sampling(body)
        or _thinking_seals(messages)
        or _thinking_kept(body.get("thinking"), messages)
    )


def _anthropic_sampling(body: Mapping[str, Any]) -> Invalid | None:
    """A refusal of ``temperature`` or ``top_p`` outside 0 to 1, the range the API takes
    them in (a temperature of 1.5, right for OpenAI, is refused live). The API's own
    wording is not known here, so the refusal is the simulator's (a recording keeps none)."""
    for name in ("temperature", "top_p"):
        value = body.get(name)
        if isinstance(value, int | float) and not isinstance(value, bool) and not 0 <= value <= 1:
            return Invalid(
                f"{name}: {value} is outside the range the Messages API takes, 0 to 1 "
                f"{OWN_WORDING}",
                own=True,
            )
    return None


def _max_tokens(body: Mapping[str, Any]) -> Invalid | None:
    max_tokens = body.get("max_tokens")
    if max_tokens is None:
        return Invalid("max_tokens: Field required")
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
        return Invalid("max_tokens: Input should be a valid integer greater than or equal to 1")
    return None


def _unpaired(ids: list[str], partners: list[str], problem: str, i: int) -> Invalid | None:
    """``problem`` for message ``i``, naming the ids without a partner; None if there are none."""
    known = set(partners)
    unpaired = [x for x in ids if x not in known]
    return Invalid(problem.format(i=i, ids=", ".join(unpaired))) if unpaired else None


def _anthropic_tool_pairs(messages: list[Any]) -> Invalid | None:
    for i, item in enumerate(messages):
        offered = (
            _tool_uses(messages[i - 1]) if i and messages[i - 1]["role"] == "assistant" else []
        )
        problem = _unpaired(_tool_results(item), offered, _RESULTS_WITHOUT_USE, i)
        if problem is None and i + 1 < len(messages):
            answered = _tool_results(messages[i + 1])
            problem = _unpaired(_tool_uses(item), answered, _USES_WITHOUT_RESULT, i)
            problem = problem or _results_not_first(_tool_uses(item), messages[i + 1], i + 1)
        if problem is not None:
            return problem
    return None


def _results_not_first(uses: list[str], reply: Any, i: int) -> Invalid | None:
    """The API's error for message ``i``, the reply to ``uses``, when it does not begin with
    as many ``tool_result`` blocks (a text block put before them, as LangChain does with a
    human message sent between the tool call and its result); None if it does."""
    content = reply["content"]
    head = content[: len(uses)] if isinstance(content, list) else []
    kinds = [b.get("type") if isinstance(b, Mapping) else None for b in head]
    if not uses or kinds == ["tool_result"] * len(uses):
        return None
    return Invalid(_RESULTS_NOT_FIRST.format(i=i, n=len(uses)))


_ANTHROPIC_TOOL_NAME = re.compile(r"[a-zA-Z0-9_-]{1,128}")
_TOOLSET = re.compile(r"(?:^|_)toolset(?:_|$)")
"""How the Messages API's toolsets are typed (``mcp_toolset``, the MCP connector's;
``browser_toolset_20260801``): a set of tools, named by what it holds (an MCP server's
``mcp_server_name``), with no ``name`` of its own."""


def _toolset(tool: Any) -> bool:
    """Whether ``tool`` is one of the Messages API's toolsets (:data:`_TOOLSET`)."""
    kind = tool.get("type") if isinstance(tool, Mapping) else None
    return isinstance(kind, str) and _TOOLSET.search(kind) is not None


def _anthropic_tools(tools: Any) -> Invalid | None:
    if tools is None:
        return None
    if not isinstance(tools, list):
        return Invalid("tools: Input should be a valid list")
    for i, tool in enumerate(tools):
        if _toolset(tool):
            if tool["type"] == "mcp_toolset" and not isinstance(tool.get("mcp_server_name"), str):
                return Invalid(f"tools.{i}.mcp_server_name: Field required")
            continue
        if not isinstance(tool, Mapping) or not isinstance(tool.get("name"), str):
            return Invalid(f"tools.{i}.name: Field required")
        if not _ANTHROPIC_TOOL_NAME.fullmatch(tool["name"]):
            return Invalid(
                f"tools.{i}.name: String should match pattern '^{_ANTHROPIC_TOOL_NAME.pattern}$'"
            )
        if "type" in tool and not isinstance(tool["type"], str):
            return Invalid(f"tools.{i}.type: Input should be a valid string")
        if not server_tool(tool) and not isinstance(tool.get("input_schema"), Mapping):
            return Invalid(f"tools.{i}.input_schema: Field required")
    names = [tool["name"] for tool in tools if not _toolset(tool)]
    if len(set(names)) < len(names):
        return Invalid("tools: Tool names must be unique.")
    return None


_ANTHROPIC_TOOL_CHOICES: dict[str, _Fields] = {
    "auto": {},
    "any": {},
    "tool": {"name": _TEXT},
    "none": {},
}
"""The kinds of the Messages API's ``tool_choice``, each with its required fields."""


def _anthropic_tool_choice(choice: Any, tools: Any) -> Invalid | None:
    """The Messages API's error for a ``tool_choice`` of no known kind, or one forcing a
    call (``any``, a named ``tool``) of a tool the request does not define (``tools``
    already checked: a list of tools with names, toolsets aside, or None; beside a toolset,
    whose tools the simulator does not know, a named tool is not looked for)."""
    if choice is None:
        return None
    problem = _anthropic_tagged(choice, "tool_choice", _ANTHROPIC_TOOL_CHOICES)
    if problem is not None:
        return problem
    kind = choice["type"]
    if kind in ("any", "tool") and not tools:
        return Invalid(f"tool_choice.{kind} may only be specified while providing tools")
    named = [tool.get("name") for tool in tools]
    if kind == "tool" and choice["name"] not in named and not any(map(_toolset, tools)):
        return Invalid(f"Tool '{choice['name']}' not found in provided tools")
    return None


def _thinking_with_forced_tool(body: Mapping[str, Any]) -> Invalid | None:
    """The Messages API's error for extended thinking (``thinking.type`` ``enabled``) beside
    a ``tool_choice`` forcing a call (``any``, a named ``tool``); adaptive thinking takes
    one (and does not think)."""
    thinking, choice = body.get("thinking"), body.get("tool_choice")
    if not (isinstance(thinking, Mapping) and thinking.get("type") == "enabled"):
        return None
    if isinstance(choice, Mapping) and choice.get("type") in ("any", "tool"):
        return Invalid("Thinking may not be enabled when tool_choice forces tool use.")
    return None


_THINKING_SAMPLING = (
    "Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/"
    "extended-thinking#important-considerations-when-using-extended-thinking"
)
MIN_THINKING_TOP_P = 0.95
"""The smallest ``top_p`` the Messages API takes beside extended thinking."""


def _thinking_with_sampling(body: Mapping[str, Any]) -> Invalid | None:
    """The Messages API's error for extended thinking (``thinking.type`` ``enabled``)
    beside a ``temperature`` other than 1, a ``top_p`` under :data:`MIN_THINKING_TOP_P`
    or any ``top_k``, which a model that thinks does not take."""
    if not _extended(body.get("thinking")):
        return None
    temperature, top_p = body.get("temperature"), body.get("top_p")
    if temperature is not None and temperature != 1:
        return Invalid(
            f"`temperature` may only be set to 1 when thinking is enabled. {_THINKING_SAMPLING}"
        )
    if isinstance(top_p, int | float) and top_p < MIN_THINKING_TOP_P:
        return Invalid(
            f"`top_p` must be greater than or equal to {MIN_THINKING_TOP_P} or unset when "
            f"thinking is enabled. {_THINKING_SAMPLING}"
        )
    if body.get("top_k") is not None:
        return Invalid(f"`top_k` must be unset when thinking is enabled. {_THINKING_SAMPLING}")
    return None


_THINKING_KINDS: dict[str, _Fields] = {
    "enabled": {"budget_tokens": (int, "a valid integer")},
    "disabled": {},
    "adaptive": {},
    "between_tools": {},
}
"""The kinds of the Messages API's ``thinking``, each with its required fields
(``between_tools``: thinking off, the progress notes a model writes between tool calls
given as thinking blocks, which the simulator's answers have none of)."""
_BUDGET_OVER_MAX = (
    "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our "
    "documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
    "#max-tokens-and-context-window-size"
)
_THINKING_DROPPED = (
    "messages.{i}.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
    "`{found}`. When `thinking` is enabled, a final `assistant` message must start with a "
    "thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). "
    "We recommend you include thinking blocks from previous turns. To avoid this "
    "requirement, disable `thinking`. Please consult our documentation at "
    "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
)


def _extended(thinking: Any) -> bool:
    """Whether a Messages API ``thinking`` asks for extended thinking."""
    return isinstance(thinking, Mapping) and thinking.get("type") == "enabled"


def _anthropic_thinking(body: Mapping[str, Any]) -> Invalid | None:
    """The Messages API's error for a ``thinking`` of no known kind, or a budget under
    :data:`~replaygate.sim.thinking.MIN_BUDGET` (:func:`budget_over_max` checks it against
    ``max_tokens``, which hangs on the betas)."""
    thinking = body.get("thinking")
    if thinking is None:
        return None
    problem = _anthropic_tagged(thinking, "thinking", _THINKING_KINDS)
    if problem is not None or not _extended(thinking):
        return problem
    if thinking["budget_tokens"] < MIN_BUDGET:
        return Invalid(
            f"thinking.enabled.budget_tokens: Input should be greater than or equal to {MIN_BUDGET}"
        )
    return None


INTERLEAVED_BETA = "interleaved-thinking-"
"""How the betas of interleaved thinking are named (``interleaved-thinking-2025-05-14``)."""


def budget_over_max(headers: Mapping[str, str], body: Any) -> Invalid | None:
    """The Messages API's error for an answer asked for with a valid extended thinking
    budget not under ``max_tokens``, unless an ``anthropic-beta`` of
    :data:`INTERLEAVED_BETA` is sent: then the budget is that of the whole turn's
    thoughts, and may pass ``max_tokens``, as the API takes it."""
    if not isinstance(body, Mapping) or not _extended(body.get("thinking")):
        return None
    limit = body.get("max_tokens")  # none in a token count
    if not isinstance(limit, int) or limit > body["thinking"]["budget_tokens"]:
        return None
    betas = headers.get("anthropic-beta", "").split(",")
    if any(beta.strip().startswith(INTERLEAVED_BETA) for beta in betas):
        return None
    return Invalid(_BUDGET_OVER_MAX)


def _thinking_seals(messages: list[Any]) -> Invalid | None:
    """The Messages API's error for a thinking block given back whose ``signature`` the
    simulator did not make for its text, or a redacted one whose ``data`` it did not make."""
    for i, item in enumerate(messages):
        content = item["content"]
        if item["role"] != "assistant" or not isinstance(content, list):
            continue
        for j, block in enumerate(content):
            if block["type"] == "thinking" and not signed(block["thinking"], block["signature"]):
                return Invalid(f"messages.{i}.content.{j}: Invalid `signature` in `thinking` block")
            if block["type"] == "redacted_thinking" and unsealed(block["data"]) is None:
                return Invalid(
                    f"messages.{i}.content.{j}: Invalid `data` in `redacted_thinking` block"
                )
    return None


def _thinking_kept(thinking: Any, messages: list[Any]) -> Invalid | None:
    """The Messages API's error for extended thinking asked for while the tool calls of
    the last assistant turn are answered (the last message holds their results) and that
    turn does not start with its thinking: the API requires it given back. A tool loop
    is one turn, from the assistant message after the user last spoke other than with
    tool results: thinking once at its start, it may call tools again without a thought."""
    last = messages[-1]
    if not _extended(thinking) or last["role"] != "user" or not _tool_results(last):
        return None
    i = len(messages) - 2  # the assistant message whose tool_use blocks they answer (checked)
    while i >= 2 and _tool_results(messages[i - 1]) and messages[i - 2]["role"] == "assistant":
        i -= 2  # an earlier step of the same tool loop
    found = messages[i]["content"][0]["type"]
    if found in ("thinking", "redacted_thinking"):
        return None
    return Invalid(_THINKING_DROPPED.format(i=i, found=found))


def _reasoning_effort(value: Any, param: str, model: Any) -> Invalid | None:
    """OpenAI's error for a reasoning effort (``param``) that is not one it knows, given
    to a ``model`` that does not reason (``gpt-4o``), or one that model does not take
    (``minimal`` for ``gpt-5.1``, ``none`` for ``gpt-5-mini``: :func:`efforts_taken`)."""
    if value is None:
        return None
    if value not in EFFORTS:
        return _invalid_value(value, EFFORTS, param)
    taken = efforts_taken(str(model))
    if taken is None or value in taken:
        return None
    if not taken:
        return _unsupported(param, "")
    return Invalid(
        f"Unsupported value: '{value}' is not supported with the '{model}' model. Supported "
        f"values are: {_listed(taken)}.",
        param,
        "unsupported_value",
    )


_OPENAI_ROLES = ("system", "assistant", "user", "function", "tool", "developer")
_OPENAI_TOOL_TYPES = ("function", "custom")


def validate_openai(body: Any) -> Invalid | None:
    """Check a Chat Completions request body."""
    if not isinstance(body, Mapping):
        return Invalid("The request body must be a JSON object.")
    if body.get("messages") is None:
        return Invalid(
            "Missing required parameter: 'messages'.", "messages", "missing_required_parameter"
        )
    if not body.get("model"):
        return Invalid("you must provide a model parameter")
    problem = _wrong_type(body, "model", str, "a string", "")
    if problem is not None:
        return problem
    messages = body["messages"]
    if not isinstance(messages, list):
        return Invalid(
            f"Invalid type for 'messages': expected an array, but got "
            f"{type(messages).__name__} instead.",
            "messages",
            "invalid_type",
        )
    if not messages:
        return _empty_array("messages")
    stream = body.get("stream")
    if stream is not None and not isinstance(stream, bool):
        return Invalid("Invalid type for 'stream': expected a boolean.", "stream", "invalid_type")
    problem = _stream_options(body)
    problem = problem or _token_limit(body, "max_tokens", 1)
    problem = problem or _token_limit(body, "max_completion_tokens", 1)
    problem = problem or _whole_number(body, "n", 1, MAX_CHOICES)
    problem = problem or _whole_number(body, "top_logprobs", 0, MAX_TOP_LOGPROBS)
    problem = problem or _token_limit(body, "seed", -(2**63))  # a float beyond int64 too
    problem = problem or _sampling(body, _CHAT_SAMPLING)
    problem = problem or _choices(body, CHAT_CHOICES) or openai_metadata_problem(body)
    problem = problem or _too_long(
        body.get("safety_identifier"), "safety_identifier", MAX_SAFETY_IDENTIFIER
    )
    problem = problem or _chat_output_asks(body)
    problem = problem or _chat_reasoning_model(body)
    problem = problem or _fixed_sampling(body, body.get("reasoning_effort"))
    problem = problem or _fixed_verbosity(body, "verbosity", body.get("verbosity"))
    problem = problem or _response_format_parts(body.get("response_format"))
    for i, item in enumerate(messages):
        role = item.get("role") if isinstance(item, Mapping) else None
        if role not in _OPENAI_ROLES:
            return _invalid_value(role, _OPENAI_ROLES, f"messages[{i}].role")
        problem = problem or _wrong_type(item, "tool_calls", list, "an array", f"messages[{i}].")
        if problem is None and item.get("tool_calls") == []:
            problem = _empty_array(f"messages[{i}].tool_calls")
        problem = problem or _chat_content(item, f"messages[{i}]")
        for j, call in enumerate(item.get("tool_calls") or [] if problem is None else []):
            if isinstance(call, Mapping):
                where = f"messages[{i}].tool_calls[{j}].id"
                problem = problem or _too_long(call.get("id"), where, MAX_CHAT_CALL_ID)
    problem = problem or _chat_tools(body.get("tools"))
    problem = problem or _chat_functions(body)
    problem = problem or _chat_tool_choice(body.get("tool_choice"), body.get("tools"))
    problem = problem or _only_with_tools(body, "parallel_tool_calls")
    effort = body.get("reasoning_effort")
    problem = problem or _reasoning_effort(effort, "reasoning_effort", body.get("model"))
    return problem or _openai_tool_pairs(messages)


_CHAT_SAMPLING = {
    "temperature": (0, 2),
    "top_p": (0, 1),
    "frequency_penalty": (-2, 2),
    "presence_penalty": (-2, 2),
}
"""Chat Completions' sampling settings, each with the range the API takes it in."""
_RESPONSES_SAMPLING = {"temperature": (0, 2), "top_p": (0, 1)}
"""The Responses API's sampling settings, each with its range."""


def _sampling(body: Mapping[str, Any], ranges: Mapping[str, tuple[int, int]]) -> Invalid | None:
    """OpenAI's error for a sampling setting of ``body`` given and not a number in its
    range (``temperature`` above 2 is refused live)."""
    for name, (low, high) in ranges.items():
        value = body.get(name)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float):
            return Invalid(
                f"Invalid type for '{name}': expected a decimal, but got {_json_kind(value)} "
                "instead.",
                name,
                "invalid_type",
            )
        problem = _out_of_range(name, value, "decimal", low, high)
        if problem is not None:
            return problem
    return None


_TIERS = ("auto", "default", "flex", "scale", "priority", "fast")
_CACHE_MODES = ("implicit", "explicit")
_RETENTIONS = ("in_memory", "24h")
_VERBOSITIES = ("low", "medium", "high")
_FORMATS = ("text", "json_schema", "json_object")
CHAT_CHOICES: Mapping[str, tuple[str, ...]] = {
    "service_tier": _TIERS,
    "response_format.type": _FORMATS,
    "verbosity": _VERBOSITIES,
    "prompt_cache_retention": _RETENTIONS,
    "prompt_cache_options.mode": _CACHE_MODES,
    "prompt_cache_options.ttl": ("30m",),
}
"""Chat Completions settings the API takes one of a few words for (the SDK's
``Literal``s), each by its path, with those words."""
RESPONSES_CHOICES: Mapping[str, tuple[str, ...]] = {
    "service_tier": (*_TIERS, "ultrafast"),
    "truncation": ("auto", "disabled"),
    "text.format.type": _FORMATS,
    "text.verbosity": _VERBOSITIES,
    "prompt_cache_retention": _RETENTIONS,
    "prompt_cache_options.mode": _CACHE_MODES,
    "prompt_cache_options.ttl": ("30m", "12h"),
    "background_options.completion_window": ("soonest", "2h", "8h"),
}
"""The Responses API's settings of a few words, as :data:`CHAT_CHOICES`."""
MAX_METADATA_PAIRS = 16
"""The most key-value pairs a request's ``metadata`` holds."""
MAX_METADATA_KEY = 64
"""The longest key of a request's ``metadata``."""
MAX_METADATA_VALUE = 512
"""The longest value of a request's ``metadata``."""


def _choices(body: Mapping[str, Any], choices: Mapping[str, Sequence[str]]) -> Invalid | None:
    """OpenAI's error for the first setting of ``choices`` that ``body`` gives (not null)
    as none of its words: ``service_tier='turbo'``, ``text.verbosity='huge'``."""
    for path, words in choices.items():
        *outer, name = path.split(".")
        holder: Any = body
        for part in outer:
            holder = holder.get(part) if isinstance(holder, Mapping) else None
        value = holder.get(name) if isinstance(holder, Mapping) else None
        if value is not None and value not in words:
            return _invalid_value(value, words, path)
    return None


def openai_metadata_problem(body: Mapping[str, Any]) -> Invalid | None:
    """OpenAI's error for a ``metadata`` that is not an object of at most 16 string pairs,
    keys of at most 64 characters and values of at most 512, as the SDK's ``Metadata``
    says the API takes it."""
    problem = _wrong_type(body, "metadata", Mapping, "an object", "")
    metadata = body.get("metadata")
    if problem is not None or not isinstance(metadata, Mapping):
        return problem
    if len(metadata) > MAX_METADATA_PAIRS:
        return Invalid(
            f"Invalid 'metadata': too many properties. Expected an object with at most "
            f"{MAX_METADATA_PAIRS} properties, but got an object with {len(metadata)} "
            "properties instead.",
            "metadata",
            "object_above_max_properties",
        )
    for key, value in metadata.items():
        problem = _wrong_type(metadata, key, str, "a string", "metadata.")
        problem = problem or _too_long(key, "metadata", MAX_METADATA_KEY)
        problem = problem or _too_long(value, f"metadata.{key}", MAX_METADATA_VALUE)
        if problem is not None:
            return problem
    return None


def _too_long(text: Any, param: str, most: int) -> Invalid | None:
    """OpenAI's error for ``text`` of ``param``, when a string, longer than ``most``."""
    return _above_max(text, param, most) if isinstance(text, str) else None


def _too_many(given: Any, param: str, most: int) -> Invalid | None:
    """OpenAI's error for ``given`` of ``param``, when a list, longer than ``most``."""
    return _above_max(given, param, most) if isinstance(given, list) else None


def _above_max(given: str | list[Any], param: str, most: int) -> Invalid | None:
    """OpenAI's error for ``given`` of ``param``, a string or a list, when longer than
    ``most``."""
    if len(given) <= most:
        return None
    named, word = ("a string", "string") if isinstance(given, str) else ("an array", "array")
    return Invalid(
        f"Invalid '{param}': {word} too long. Expected {named} with maximum length {most}, "
        f"but got {named} with length {len(given)} instead.",
        param,
        f"{word}_above_max_length",
    )


MAX_SAFETY_IDENTIFIER = 128
"""The longest ``safety_identifier`` the API takes."""
MAX_STOP_SEQUENCES = 4
"""The most stop sequences Chat Completions takes."""
MAX_CHAT_TOOLS = 128
"""The most tools one Chat Completions request may offer."""
MAX_RESPONSES_CALL_ID = 64
"""The longest ``call_id`` of a function call or its output the Responses API takes."""
MAX_CHAT_CALL_ID = 40
"""The longest tool call id Chat Completions takes back in a conversation: an id another
provider or a gateway made (``portkey-6aa6db90-...``, 44 characters) is refused."""


def _format_name(given: Any, where: str) -> Invalid | None:
    """OpenAI's error for a JSON schema output format (``given``, at ``where``) without a
    ``name``, or with one it would not take (as a function's: letters, digits, ``_`` and
    ``-``, at most 64), which the SDK's ``ResponseFormatJSONSchema`` requires."""
    if not isinstance(given, Mapping):
        return None
    if given.get("name") is None:
        return _missing(f"{where}.name")
    return _function_name(given["name"], f"{where}.name")


_NO_STOP_MODEL = re.compile(r"o3|o4-mini|gpt-5(?![\w.-]*-chat)")
"""The reasoning models that take no ``stop``: ``o3`` and ``o4-mini``, as the SDK says, and
the GPT-5 models (``gpt-5-mini``, ``gpt-5.1``, ``gpt-5.2``: the API's ``Unsupported
parameter: 'stop'``, at any effort), their snapshots; not ``gpt-5-chat-latest``."""


_GPT5_REASONING = re.compile(r"gpt-5(?![\w.-]*-chat)")
"""The GPT-5 models that reason, which take neither ``logit_bias`` nor ``prediction``
(Predicted Outputs), at any effort."""
_WHILE_REASONING = ("presence_penalty", "frequency_penalty")
"""Chat Completions settings a model refuses while it reasons (:func:`fixed_sampling`)."""


def _chat_reasoning_model(body: Mapping[str, Any]) -> Invalid | None:
    """Chat Completions' error for a reasoning model given ``max_tokens`` (which the SDK
    says is not compatible with them: ``max_completion_tokens`` is); for one of
    :data:`_NO_STOP_MODEL`, ``stop``; for one of :data:`_GPT5_REASONING`, ``logit_bias``
    or ``prediction``; and for a model reasoning now, a penalty or ``logprobs: true``."""
    model = str(body.get("model"))
    name = model.rsplit("/", 1)[-1]
    if body.get("max_tokens") is not None and reasoning_model(model):
        return _unsupported("max_tokens", " Use 'max_completion_tokens' instead.")
    if body.get("stop") is not None and _NO_STOP_MODEL.match(name):
        return _unsupported("stop", "")
    for setting in ("logit_bias", "prediction"):
        if body.get(setting) is not None and _GPT5_REASONING.match(name):
            return _unsupported(setting, "")
    if not fixed_sampling(model, body.get("reasoning_effort")):
        return None
    for setting in _WHILE_REASONING:
        if body.get(setting) is not None:
            return _unsupported(setting, "")
    return _unsupported("logprobs", "") if body.get("logprobs") is True else None


def _fixed_sampling(body: Mapping[str, Any], effort: Any) -> Invalid | None:
    """OpenAI's error (Chat Completions and the Responses API) for a model that samples at
    the default temperature only, reasoning at ``effort`` (:func:`fixed_sampling`: an
    o-series model, ``gpt-5-mini``), given a ``temperature`` or ``top_p`` other than 1,
    which it refuses (``temperature=0`` for repeatable answers, kept from a model that
    took it)."""
    if not fixed_sampling(str(body.get("model")), effort):
        return None
    for name in ("temperature", "top_p"):
        value = body.get(name)
        if isinstance(value, int | float) and not isinstance(value, bool) and value != 1:
            return Invalid(
                f"Unsupported value: '{name}' does not support {value} with this model. Only "
                "the default (1) value is supported.",
                name,
                "unsupported_value",
            )
    return None


def _fixed_verbosity(body: Mapping[str, Any], param: str, value: Any) -> Invalid | None:
    """OpenAI's error for a verbosity (``value`` of ``param``: Chat Completions'
    ``verbosity``, the Responses API's ``text.verbosity``) other than ``medium`` given to a
    model that writes at ``medium`` only (:func:`fixed_verbosity`: ``gpt-4o-mini``), as
    pydantic-ai's ``openai_text_verbosity='low'`` sends it."""
    if value in (None, "medium") or not fixed_verbosity(str(body.get("model"))):
        return None
    return Invalid(
        f"Unsupported value: '{param}' does not support '{value}' with this model. Supported "
        "values are: 'medium'.",
        param,
        "unsupported_value",
    )


def _unsupported(param: str, instead: str) -> Invalid:
    """OpenAI's error for ``param``, which the request's model does not take."""
    message = f"Unsupported parameter: '{param}' is not supported with this model.{instead}"
    return Invalid(message, param, "unsupported_parameter")


def _chat_output_asks(body: Mapping[str, Any]) -> Invalid | None:
    """Chat Completions' error for more than 4 stop sequences, and for ``top_logprobs``
    without ``logprobs: true``, which the SDK says it needs."""
    problem = _too_many(body.get("stop"), "stop", MAX_STOP_SEQUENCES)
    if problem is not None:
        return problem
    if body.get("top_logprobs") is not None and body.get("logprobs") is not True:
        return Invalid(
            "Invalid value for 'top_logprobs': 'logprobs' must be set to true when "
            "'top_logprobs' is specified.",
            "top_logprobs",
            "invalid_value",
        )
    return None


def _out_of_range(name: str, value: float, kind: str, low: float, high: float) -> Invalid | None:
    """OpenAI's error for ``value`` of ``name``, an ``integer`` or a ``decimal``, out of the
    range from ``low`` to ``high``, or None."""
    if value < low:
        side, sign, bound, code = "below minimum", ">=", low, "below_min"
    elif value > high:
        side, sign, bound, code = "above maximum", "<=", high, "above_max"
    else:
        return None
    return Invalid(
        f"Invalid '{name}': {kind} {side} value. Expected a value {sign} {bound}, but got "
        f"{value} instead.",
        name,
        f"{kind}_{code}_value",
    )


MAX_CHOICES = 128
"""The most choices (``n``) one Chat Completions request may ask for."""
MAX_TOP_LOGPROBS = 20
"""The most alternatives (``top_logprobs``) the OpenAI APIs give at a token."""


def _whole_number(body: Mapping[str, Any], name: str, low: int, high: int) -> Invalid | None:
    """The API's error for ``body[name]`` given and not a whole number from ``low`` to
    ``high`` (``n`` choices, ``top_logprobs`` alternatives)."""
    value = body.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        return Invalid(f"Invalid type for '{name}': expected an integer.", name, "invalid_type")
    return _out_of_range(name, value, "integer", low, high)


_JSON_KINDS: tuple[tuple[type, str], ...] = (
    (bool, "a boolean"),
    (int, "an integer"),
    (float, "a decimal"),
    (str, "a string"),
    (list, "an array"),
    (dict, "an object"),
)


def _shown(value: Any) -> str:
    """``value`` as OpenAI's errors quote it: a string in single quotes, else as JSON."""
    return f"'{value}'" if isinstance(value, str) else orjson.dumps(value).decode()


def _invalid_value(value: Any, supported: Sequence[str], param: str) -> Invalid:
    """OpenAI's error for ``param`` holding ``value``, not one of ``supported``."""
    message = f"Invalid value: {_shown(value)}. Supported values are: {_listed(supported)}."
    return Invalid(message, param, "invalid_value")


def _listed(supported: Sequence[str]) -> str:
    """``supported`` quoted and listed as OpenAI's errors list values: ``'a', 'b', and 'c'``."""
    *others, last = [f"'{v}'" for v in supported]
    return f"{', '.join(others)}{',' if len(others) > 1 else ''} and {last}" if others else last


def _chat_tools(tools: Any) -> Invalid | None:
    """OpenAI's error for the first tool (when ``tools`` is a list) whose ``type`` is
    missing or not one OpenAI knows, or whose function or its name is missing or a name
    it would not take; or for an empty list (``bind_tools([])``), or one of more than
    :data:`MAX_CHAT_TOOLS` (the tools of many MCP servers), which it refuses too."""
    if tools == []:
        return _empty_array("tools")
    problem = _too_many(tools, "tools", MAX_CHAT_TOOLS)
    if problem is not None:
        return problem
    for i, tool in enumerate(tools if isinstance(tools, list) else []):
        if not isinstance(tool, Mapping):
            continue
        if tool.get("type") is None:
            return _missing(f"tools[{i}].type")
        if tool["type"] not in _OPENAI_TOOL_TYPES:
            return _invalid_value(tool["type"], _OPENAI_TOOL_TYPES, f"tools[{i}].type")
        function = tool.get("function")
        if tool["type"] == "function" and function is None:
            return _missing(f"tools[{i}].function")
        problem = _wrong_type(tool, "function", Mapping, "an object", f"tools[{i}].")
        if problem is not None:
            return problem
        if isinstance(function, Mapping) and function.get("name") is None:
            return _missing(f"tools[{i}].function.name")
        if isinstance(function, Mapping):
            problem = _function_name(function.get("name"), f"tools[{i}].function.name")
            if problem is not None:
                return problem
    return None


_FUNCTION_CALL_MODES = ("none", "auto")
"""The deprecated ``function_call`` modes Chat Completions takes as a string."""


def _chat_functions(body: Mapping[str, Any]) -> Invalid | None:
    """Chat Completions' error for the deprecated ``functions`` (no list, an empty one, a
    function no object, without a name or of a name it would not take; given beside
    ``tools``, or beside a message's ``tool_calls``), for its ``function_call``
    (:func:`_function_call`) and for a ``role: function`` message without its ``name``."""
    functions = body.get("functions")
    problem = _wrong_type(body, "functions", list, "an array", "")
    if problem is not None:
        return problem
    if functions == []:
        return _empty_array("functions")
    for i, function in enumerate(functions or []):
        where = f"functions[{i}]"
        if not isinstance(function, Mapping):
            kind = _json_kind(function)
            message = f"Invalid type for '{where}': expected an object, but got {kind} instead."
            return Invalid(message, where, "invalid_type")
        if function.get("name") is None:
            return _missing(f"{where}.name")
        problem = _function_name(function.get("name"), f"{where}.name")
        if problem is not None:
            return problem
    if functions and body.get("tools"):
        return Invalid(
            "Invalid request: 'functions' and 'tools' cannot both be provided. 'functions' "
            "are deprecated; use the 'tools' parameter instead."
        )
    messages = body.get("messages")
    for i, message in enumerate(messages if isinstance(messages, list) else []):
        unnamed = isinstance(message, Mapping) and not isinstance(message.get("name"), str)
        if unnamed and message.get("role") == "function":
            return Invalid(
                "Missing parameter 'name': messages with role 'function' must have a 'name'.",
                f"messages.[{i}].name",
            )
        if functions and isinstance(message, Mapping) and message.get("tool_calls"):
            return Invalid(
                "Invalid parameter: 'tool_calls' cannot be used when 'functions' are present. "
                "Please use 'tools' instead of 'functions'.",
                f"messages.[{i}].tool_calls",
            )
    return _function_call(body)


def _function_call(body: Mapping[str, Any]) -> Invalid | None:
    """Chat Completions' error for a ``function_call`` given without ``functions``, of no
    known mode, neither a mode nor an object, or naming no function they define."""
    choice, functions = body.get("function_call"), body.get("functions") or []
    if choice is None:
        return None
    if not functions:
        return Invalid(
            "Invalid value for 'function_call': 'function_call' is only allowed when "
            "'functions' are specified.",
            "function_call",
        )
    if isinstance(choice, str):
        known = choice in _FUNCTION_CALL_MODES
        return None if known else _invalid_value(choice, _FUNCTION_CALL_MODES, "function_call")
    problem = _wrong_type(body, "function_call", Mapping, "a string or an object", "")
    if problem is not None or choice.get("name") is None:
        return problem or _missing("function_call.name")
    if choice["name"] not in {f.get("name") for f in functions}:
        return Invalid(
            f"Invalid value for 'function_call': no function named '{choice['name']}' was "
            "specified in the 'functions' parameter.",
            "function_call",
        )
    return None


_TOOL_CHOICE_MODES = ("none", "auto", "required")
"""The tool choices OpenAI's two APIs take as a string."""


def _tool_choice_mode(choice: Any) -> Invalid | None:
    """OpenAI's error for a string ``tool_choice`` that is none of its modes."""
    if isinstance(choice, str) and choice not in _TOOL_CHOICE_MODES:
        return _invalid_value(choice, _TOOL_CHOICE_MODES, "tool_choice")
    return None


def _named(entry: Any, nested: bool) -> str | None:
    """The name of a function or custom tool (or tool choice) ``entry``: nested under its
    kind in Chat Completions (``{"type": "function", "function": {"name": ...}}``), held by
    the entry itself in the Responses API; None for another kind or no name."""
    if not isinstance(entry, Mapping) or entry.get("type") not in _OPENAI_TOOL_TYPES:
        return None
    held = entry.get(entry["type"]) if nested else entry
    name = held.get("name") if isinstance(held, Mapping) else None
    return name if isinstance(name, str) else None


def _chosen_names(choice: Any, nested: bool) -> list[str]:
    """The tool names a ``tool_choice`` forces or allows: a named function or custom
    tool, or the tools of ``allowed_tools`` (under ``allowed_tools`` in Chat Completions,
    in the choice itself in the Responses API)."""
    if not isinstance(choice, Mapping):
        return []
    if choice.get("type") != "allowed_tools":
        name = _named(choice, nested)
        return [] if name is None else [name]
    held = choice.get("allowed_tools") if nested else choice
    listed = held.get("tools") if isinstance(held, Mapping) else None
    names = (_named(tool, nested) for tool in (listed if isinstance(listed, list) else []))
    return [name for name in names if name is not None]


def custom_forced(body: Mapping[str, Any], nested: bool) -> Invalid | None:
    """The simulator's own refusal (the API answers it) of a ``tool_choice`` forcing a call
    of a custom tool, whose input is free-form text no behaviour makes: a custom tool it
    names, or ``required`` (``allowed_tools`` in mode ``required``) leaving only custom
    tools to call. ``nested``: Chat Completions' shape of tools and choices."""
    choice, tools = body.get("tool_choice"), body.get("tools")
    listed = tools if isinstance(tools, list) else []
    customs = [
        tool for tool in listed if isinstance(tool, Mapping) and tool.get("type") == "custom"
    ]
    custom = _defined_names(customs, nested)
    held = choice.get("allowed_tools") if nested and isinstance(choice, Mapping) else choice
    mode = held.get("mode") if isinstance(held, Mapping) else None  # allowed_tools' only
    left = set(_chosen_names(choice, nested)) or _defined_names(listed, nested)
    if isinstance(choice, Mapping) and choice.get("type") == "custom":
        forced = left
    elif choice == "required" or mode == "required":
        forced = left if left <= custom else set()
    else:
        forced = set()
    if not forced & custom:
        return None
    names = ", ".join(repr(name) for name in sorted(forced))
    return Invalid(
        f"The simulator makes no call of a custom tool, which tool_choice forces ({names}): "
        "a custom tool's input is free-form text, which no behaviour makes. Record this "
        "request from the live API.",
        "tool_choice",
        own=True,
    )


def hosted_forced(body: Mapping[str, Any]) -> Invalid | None:
    """The simulator's own refusal (the API answers it) of a Responses ``tool_choice``
    forcing a call of one of the API's own tools (``{"type": "web_search"}``,
    ``file_search``, ``code_interpreter``...), or ``required`` (``allowed_tools`` in mode
    ``required``) leaving none but such tools to call: the API runs the tool itself and
    answers with its call item and result, which the simulator does not make, so a plain
    message would be an answer the API never gives."""
    choice, tools = body.get("tool_choice"), body.get("tools")
    kind = choice.get("type") if isinstance(choice, Mapping) else None
    if kind == "allowed_tools" and isinstance(choice, Mapping):
        left, forced = choice.get("tools"), choice.get("mode") == "required"
    elif isinstance(choice, Mapping):
        left, forced = [choice], kind not in ("function", "custom")
    else:
        left, forced = tools, choice == "required"
    kinds = (
        {str(t.get("type")) for t in left if isinstance(t, Mapping)}
        if isinstance(left, list)
        else set()
    )
    if not forced or not kinds or kinds & {"function", "custom"}:
        return None
    return Invalid(
        f"The simulator runs none of the API's own tools and makes no call of them, which "
        f"tool_choice forces ({', '.join(sorted(kinds))}): the API runs such a tool itself "
        "and answers with its call and result. Record this request from the live API, or "
        "leave the tool choice to the model.",
        "tool_choice",
        own=True,
    )


REMOTE_MCP_TOOLS = frozenset({"mcp", "mcp_toolset"})
"""The tool types by which a request asks the API to call an MCP server's tools itself:
the Responses API's remote MCP tool, and the toolset of Anthropic's MCP connector."""


def remote_mcp(body: Mapping[str, Any]) -> str | None:
    """The parameter by which ``body`` asks the API to call MCP servers itself
    (``mcp_servers``, Anthropic's MCP connector; ``tools[i]``, a tool of a type of
    :data:`REMOTE_MCP_TOOLS`), or None."""
    servers = body.get("mcp_servers")
    if isinstance(servers, list) and servers:
        return "mcp_servers"
    tools = body.get("tools")
    for i, tool in enumerate(tools if isinstance(tools, list) else []):
        if isinstance(tool, Mapping) and tool.get("type") in REMOTE_MCP_TOOLS:
            return f"tools[{i}]"
    return None


def mcp_call_unmade(
    body: Mapping[str, Any], called: Sequence[str], defined: Sequence[str]
) -> Invalid | None:
    """The simulator's own refusal of an answer calling tools (``called``) that no tool of
    the request defines (``defined``), where the request asks the API to call MCP servers
    itself (:func:`remote_mcp`): the API would run such a call on the server and answer
    with its result, which the simulator, running no MCP server, cannot; handed to the
    code as a call of its own tool, it would be one the code has no tool for."""
    where = remote_mcp(body)
    unknown = [name for name in dict.fromkeys(called) if name not in defined]
    if where is None or not unknown:
        return None
    names = ", ".join(repr(name) for name in unknown)
    return Invalid(
        f"The simulator runs no MCP server: the answer its behaviour gives calls {names}, "
        f"which no tool of this request defines, and which the API would call itself on a "
        f"server that {where} names, answering with the call and its result. Record this "
        "request from the live API, or have the code call the MCP server itself (its tools "
        "listed and passed as the request's tools), whose calls a recording records with "
        "the model's.",
        where,
        own=True,
    )


CLIENT_RUN_TOOLS = ("bash_", "text_editor_", "computer_", "memory_")
"""How the Messages API's own tools that the caller runs are typed (``bash_20250124``,
``memory_20250818``): the API calls them with a plain ``tool_use``, in an input schema it
holds; the others of its own (web search, web fetch, code execution) it runs itself."""


def _api_tool(tool: Mapping[str, Any]) -> str:
    """A tool of the API's own as a refusal names it: ``'web_search' (web_search_20250305)``,
    or a toolset, which has no name, by its type."""
    name = tool.get("name")
    return f"{name!r} ({tool['type']})" if isinstance(name, str) else str(tool["type"])


def api_tool_unmade(body: Mapping[str, Any], called: Sequence[str]) -> Invalid | None:
    """The simulator's own refusal of a Messages API answer that would call a tool of the
    API's own, one the request gives by its ``type`` (:func:`server_tool`): a server tool
    its behaviour calls (``called``: the API runs it itself and answers with the call and its
    result, never a plain ``tool_use``), or one the ``tool_choice`` forces (named, one of a
    toolset's, or ``any`` where the request gives no tool of the caller's), which the
    simulator answered in text or with a call of another tool, holding no input schema to
    make the call's input from. Either way a recording would be green on an answer the API
    never gives. A call of one the caller runs (:data:`CLIENT_RUN_TOOLS`, such as a script
    line calling ``memory``) is answered as the API gives it."""
    tools = body.get("tools")
    given = [t for t in tools if isinstance(t, Mapping)] if isinstance(tools, list) else []
    theirs = [t for t in given if server_tool(t)]
    by_name = {t["name"]: t for t in theirs if isinstance(t.get("name"), str)}
    callers = {t.get("name") for t in given if not server_tool(t)}
    runs = [n for n, t in by_name.items() if not str(t["type"]).startswith(CLIENT_RUN_TOOLS)]
    named = [by_name[name] for name in dict.fromkeys(called) if name in runs]
    listed = ", ".join(_api_tool(tool) for tool in named)
    how, where = "the answer its behaviour gives calls", "tools"
    choice = body.get("tool_choice")
    kind = choice.get("type") if isinstance(choice, Mapping) else None
    forced = choice.get("name") if kind == "tool" and isinstance(choice, Mapping) else None
    if not named and isinstance(forced, str) and forced not in callers:
        how, where = "its tool_choice forces a call of", "tool_choice"
        sets = ", ".join(_api_tool(t) for t in theirs if _toolset(t))
        listed = _api_tool(by_name[forced]) if forced in by_name else f"{forced!r} (of {sets})"
    elif not named and kind == "any" and theirs and not callers:
        how, where = "its tool_choice (any) forces a call of one of", "tool_choice"
        listed = ", ".join(_api_tool(tool) for tool in theirs)
    elif not named:
        return None
    return Invalid(
        f"The simulator makes no call of the API's own tools: {how} {listed}, which the API "
        "answers itself (a server tool, such as web search or code execution, with its "
        "server_tool_use block and its result; bash, the text editor, memory or computer use "
        "with a call in the input schema the API holds, which a script line can give; a "
        "toolset's, such as an MCP server's, from the tools it holds). Record this request "
        "from the live API, or give the code a tool of its own (a name, a description and an "
        "input_schema) to call.",
        where,
        own=True,
    )


MCP_CLIENT_BETA = "mcp-client-"
"""How the betas of Anthropic's MCP connector are named (``mcp-client-2025-04-04``)."""


def mcp_beta_missing(headers: Mapping[str, str], body: Any) -> Invalid | None:
    """The simulator's own refusal of a Messages API request giving ``mcp_servers`` (the
    MCP connector) with no ``anthropic-beta`` of :data:`MCP_CLIENT_BETA`, which the API
    takes only with one: answered here, its recording failed live at its first call."""
    if not isinstance(body, Mapping) or "mcp_servers" not in body:
        return None
    betas = headers.get("anthropic-beta", "").split(",")
    if any(beta.strip().startswith(MCP_CLIENT_BETA) for beta in betas):
        return None
    return Invalid(
        "mcp_servers: the Messages API takes the MCP connector only with its beta header "
        f"(anthropic-beta: {MCP_CLIENT_BETA}2025-04-04, or a later {MCP_CLIENT_BETA} beta; "
        "the anthropic SDK sends it given betas=[...]), and refuses it without one: give "
        "the beta, then record.",
        "mcp_servers",
        own=True,
    )


_BETA_NAME = re.compile(rf"[a-z0-9]+(?:-[a-z0-9]+)*-({_DATED.pattern})")
"""How each beta of the Messages API is named: words, then the date it was published
(``interleaved-thinking-2025-05-14``, ``context-1m-2025-08-07``)."""


def _a_date(text: str) -> bool:
    """Whether ``text`` (``YYYY-MM-DD``) is a day of the calendar."""
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def beta_misnamed(headers: Mapping[str, str]) -> Invalid | None:
    """The simulator's own refusal of an ``anthropic-beta`` value named as no beta is
    (:data:`_BETA_NAME`: a date misspelt, ``interleaved-thinking-2025-5-14``, or none),
    which the API refuses as a beta it does not know: answered here, a recording from the
    simulator was green and failed live at its first call. A well-named beta the simulator
    does not know is taken, as the API may have published it since; an empty value (the
    anthropic SDK's ``betas=[]``) names none."""
    for beta in headers.get("anthropic-beta", "").split(","):
        name = beta.strip()
        named = _BETA_NAME.fullmatch(name)
        if not name or (named is not None and _a_date(named.group(1))):
            continue
        shown = orjson.dumps(name).decode()
        return Invalid(
            f"anthropic-beta: {shown} is named as no beta of the Messages API is (words, then "
            "the date it was published: interleaved-thinking-2025-05-14), and the API refuses "
            "a beta it does not know: correct it in betas=[...] or the anthropic-beta header, "
            "then record.",
            own=True,
        )
    return None


def compaction_unmade(body: Mapping[str, Any]) -> Invalid | None:
    """The simulator's own refusal of a Messages request asking for a compaction
    (``compaction``, the anthropic SDK's tool runner's ``compact_before_next_turn()``): the
    API answers it with a ``compaction`` block alone (``stop_reason: "compaction"``), which
    the simulator does not make. Answered as any request, the SDK kept the conversation
    uncompacted and went on, and a recording was green on an answer the API never gives."""
    if body.get("compaction") is None:
        return None
    return Invalid(
        "compaction: the simulator makes no compaction of a Messages conversation (the API "
        'answers with a compaction block alone, stop_reason "compaction", which later '
        "requests send back first): record this request, and those after it, from the live "
        "API, or leave the compaction out of the recording.",
        "compaction",
        own=True,
    )


def audio_asked(body: Mapping[str, Any]) -> Invalid | None:
    """The simulator's own refusal (the API answers it) of a Chat Completions request for
    an answer in audio (``modalities`` holding ``audio``), which no behaviour makes:
    answered in text alone, a recording would keep for it an answer the API never gives."""
    modalities = body.get("modalities")
    if not isinstance(modalities, list) or "audio" not in modalities:
        return None
    return Invalid(
        "The simulator makes no audio, which modalities asks for: a behaviour answers in "
        "text alone. Record this request from the live API, or from a loopback server of "
        "yours that answers it.",
        "modalities",
        own=True,
    )


def _defined_names(tools: Any, nested: bool) -> set[str]:
    listed = tools if isinstance(tools, list) else []
    return {name for name in (_named(tool, nested) for tool in listed) if name is not None}


def _only_with_tools(body: Mapping[str, Any], name: str) -> Invalid | None:
    """Chat Completions' error for ``body[name]`` given (not null) without tools."""
    if body.get(name) is None or body.get("tools"):
        return None
    return Invalid(
        f"Invalid value for '{name}': '{name}' is only allowed when 'tools' are specified.",
        name,
    )


def _response_format_parts(given: Any) -> Invalid | None:
    """Chat Completions' error for a ``response_format`` object without its ``type``, or
    of type ``json_schema`` without its ``json_schema`` (a schema forgotten: it was
    answered in JSON mode) or that one's ``name``."""
    if not isinstance(given, Mapping):
        return None
    if given.get("type") is None:
        return _missing("response_format.type")
    if given["type"] != "json_schema":
        return None
    if given.get("json_schema") is None:
        return _missing("response_format.json_schema")
    return _format_name(given["json_schema"], "response_format.json_schema")


_CHOICE_OBJECTS = ("custom", "allowed_tools")
"""The kinds of a Chat Completions ``tool_choice`` object besides a named function."""


def _chat_tool_choice(choice: Any, tools: Any) -> Invalid | None:
    """Chat Completions' error for a ``tool_choice`` given without tools, of no known
    mode, an object naming no function (one of another ``type`` is read as a function's),
    or naming a function the tools do not define."""
    if choice is None:
        return None
    if not tools:
        return _only_with_tools({"tool_choice": choice}, "tool_choice")
    if isinstance(choice, Mapping) and choice.get("type") not in _CHOICE_OBJECTS:
        function = choice.get("function")
        if not isinstance(function, Mapping):
            return _missing("tool_choice.function")
        if function.get("name") is None:
            return _missing("tool_choice.function.name")
    defined = _defined_names(tools, nested=True)
    for name in _chosen_names(choice, nested=True):
        if name not in defined:
            return Invalid(
                f"Invalid value for 'tool_choice': no function named '{name}' was specified "
                "in the 'tools' parameter.",
                "tool_choice",
            )
    return _tool_choice_mode(choice)


def _responses_tool_choice(choice: Any, tools: Any) -> Invalid | None:
    """The Responses API's error for a ``tool_choice`` of no known mode, a function's or
    custom tool's naming none (Chat Completions' nested ``function`` sent here), or one
    naming a tool (a function, or one ``allowed_tools`` lists) the tools do not define."""
    named_none = isinstance(choice, Mapping) and choice.get("name") is None
    if named_none and choice.get("type") in _OPENAI_TOOL_TYPES:
        return _missing("tool_choice.name")
    named = isinstance(choice, Mapping) and choice.get("type") in _OPENAI_TOOL_TYPES
    defined = _defined_names(tools, nested=False)
    for name in _chosen_names(choice, nested=False):
        if name not in defined:  # the API names the kind of a named choice, not its name
            which = f"{choice['type']}' named '{name}" if named else name
            return Invalid(f"Tool choice '{which}' not found in 'tools' parameter.", "tool_choice")
    return _tool_choice_mode(choice)


_OPENAI_FUNCTION_NAME = re.compile(r"[a-zA-Z0-9_-]+")
MAX_FUNCTION_NAME = 64
"""The longest function name OpenAI's APIs take."""


def _function_name(name: Any, param: str) -> Invalid | None:
    """OpenAI's error for a function ``name`` (when a string) it would not take."""
    problem = _too_long(name, param, MAX_FUNCTION_NAME)
    if problem is not None or not isinstance(name, str) or _OPENAI_FUNCTION_NAME.fullmatch(name):
        return problem
    return Invalid(
        f"Invalid '{param}': string does not match pattern. Expected a string that matches "
        f"the pattern '^{_OPENAI_FUNCTION_NAME.pattern}$'.",
        param,
        "invalid_value",
    )


def _json_kind(value: Any) -> str:
    """What ``value`` is, in the words of OpenAI's errors (``an object``, ``an array``)."""
    return next((word for kind, word in _JSON_KINDS if isinstance(value, kind)), "a value")


def openai_type_problem(
    body: Mapping[str, Any], name: str, kind: type | tuple[type, ...], expected: str
) -> Invalid | None:
    """OpenAI's error for a parameter ``body[name]`` given and not null, yet not a ``kind``
    (``expected`` in the error's words: ``a string``)."""
    return _wrong_type(body, name, kind, expected, "")


def _wrong_type(
    obj: Mapping[str, Any], name: str, kind: type | tuple[type, ...], expected: str, where: str
) -> Invalid | None:
    """OpenAI's error for ``obj[name]`` given and not null, yet not a ``kind``."""
    value = obj.get(name)
    if value is None or isinstance(value, kind):
        return None
    param = f"{where}{name}"
    return Invalid(
        f"Invalid type for '{param}': expected {expected}, but got {_json_kind(value)} instead.",
        param,
        "invalid_type",
    )


def _token_limit(body: Mapping[str, Any], name: str, minimum: int) -> Invalid | None:
    """OpenAI's error for ``body[name]`` given and not an integer of at least ``minimum``."""
    value = body.get(name)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        return Invalid(
            f"Invalid type for '{name}': expected an integer, but got {_json_kind(value)} instead.",
            name,
            "invalid_type",
        )
    return _out_of_range(name, value, "integer", minimum, math.inf)


_STRING = (str, "a string")
_CHAT_PARTS: dict[str, _Fields] = {
    "text": {"text": _STRING},
    "image_url": {"image_url": (Mapping, "an object")},
    "input_audio": {"input_audio": (Mapping, "an object")},
    "file": {"file": (Mapping, "an object")},
    "refusal": {"refusal": _STRING},
}
"""The content part kinds of Chat Completions, each with the field holding its data."""
_RESPONSES_PARTS: dict[str, _Fields] = {
    "input_text": {"text": _STRING},
    "output_text": {"text": _STRING},
    "refusal": {"refusal": _STRING},
    "input_image": {"image_url": _STRING, "file_id": _STRING},
    "input_file": {"file_id": _STRING, "file_data": _STRING, "file_url": _STRING},
}
"""The content part kinds of the Responses API, each with the fields one of which holds
its data."""
_ASSISTANT_PARTS = ("output_text", "refusal")
"""The content part kinds of a Responses assistant message (an answer given back): the
others are an input message's, which the API refuses there, and these in one."""


def _message_parts(role: Any) -> dict[str, _Fields]:
    """The content part kinds the Responses API takes in a message of ``role``."""
    assistant = role == "assistant"
    return {k: v for k, v in _RESPONSES_PARTS.items() if (k in _ASSISTANT_PARTS) == assistant}


def _openai_part(part: Any, at: str, kinds: Mapping[str, _Fields]) -> Invalid | None:
    if not isinstance(part, Mapping):
        return Invalid(
            f"Invalid type for '{at}': expected an object, but got {_json_kind(part)} instead.",
            at,
            "invalid_type",
        )
    kind = part.get("type")
    if kind is None:
        return _missing(f"{at}.type")
    if not isinstance(kind, str) or kind not in kinds:
        return _invalid_value(kind, list(kinds), f"{at}.type")
    fields = kinds[kind]
    if all(part.get(name) is None for name in fields):
        either = " or ".join(f"'{at}.{name}'" for name in fields)
        return Invalid(
            f"Missing required parameter: {either}.",
            f"{at}.{next(iter(fields))}",
            "missing_required_parameter",
        )
    for name, (kind_of, word) in fields.items():
        problem = _wrong_type(part, name, kind_of, word, f"{at}.")
        if problem is not None:
            return problem
    if kind == "image_url" and not isinstance(part["image_url"].get("url"), str):
        return _missing(f"{at}.image_url.url")
    held, where = (part["image_url"], f"{at}.image_url") if kind == "image_url" else (part, at)
    detail = held.get("detail") if kind in ("image_url", "input_image") else None
    if detail is not None and detail not in IMAGE_DETAILS:
        return _invalid_value(detail, IMAGE_DETAILS, f"{where}.detail")
    return None


IMAGE_DETAILS = ("low", "high", "auto", "original")
"""The ``detail`` an image part may ask for (the SDK's ``ImageDetail``)."""


def _chat_content(message: Mapping[str, Any], where: str) -> Invalid | None:
    """OpenAI's error for a message's content missing (from the assistant, unless it calls
    tools, refused or answered in audio), empty or holding a part that is wrong."""
    content = message.get("content")
    if content is None and message.get("role") != "assistant":
        return _missing(f"{where}.content")
    said = ("tool_calls", "function_call", "audio", "refusal")
    if content is None and not any(message.get(name) for name in said):
        return Invalid(  # an assistant turn that says nothing, as the API names its place
            "Invalid value for 'content': expected a string, got null.",
            f"{where.replace('[', '.[')}.content",
        )
    if content == []:
        return _empty_array(f"{where}.content")
    return _openai_parts(content, f"{where}.content", _CHAT_PARTS)


def _empty_array(param: str) -> Invalid:
    return Invalid(
        f"Invalid '{param}': empty array. Expected an array with minimum length 1, "
        "but got an empty array instead.",
        param,
        "empty_array",
    )


def _openai_parts(content: Any, where: str, kinds: Mapping[str, _Fields]) -> Invalid | None:
    """OpenAI's error for the first part of ``content`` (when a list) that is of an unknown
    kind or without its data."""
    parts = content if isinstance(content, list) else []
    problems = (_openai_part(part, f"{where}[{j}]", kinds) for j, part in enumerate(parts))
    return next((p for p in problems if p is not None), None)


def _call_ids(message: Mapping[str, Any]) -> list[str]:
    calls = message.get("tool_calls") or []
    return [str(c.get("id")) for c in calls if isinstance(c, Mapping)]


def _openai_tool_pairs(messages: list[Any]) -> Invalid | None:
    pending: list[str] = []
    answered: set[str] = set()
    open_at = -1
    for i, item in enumerate(messages):
        role = item["role"]
        if role == "tool":
            call_id = item.get("tool_call_id")
            if open_at < 0:
                return Invalid(
                    "Invalid parameter: messages with role 'tool' must be a response to a "
                    "preceeding message with 'tool_calls'.",
                    f"messages.[{i}].role",
                )
            if call_id not in pending:
                return Invalid(
                    f"Invalid parameter: 'tool_call_id' of '{call_id}' not found in "
                    "'tool_calls' of previous message.",
                    f"messages.[{i}].tool_call_id",
                )
            answered.add(str(call_id))
            continue
        if open_at >= 0 and (
            problem := _unanswered_calls(pending, answered, f"messages.[{i}].role")
        ):
            return problem
        pending, answered, open_at = [], set(), -1
        if role == "assistant" and _call_ids(item):
            pending, open_at = _call_ids(item), i
    # A conversation may not end on tool calls left unanswered either (the last of
    # parallel calls dropped by a tool node, or the assistant's calls as its last message):
    # the API names no message then.
    return _unanswered_calls(pending, answered, "messages") if open_at >= 0 else None


def _unanswered_calls(pending: list[str], answered: set[str], param: str) -> Invalid | None:
    """OpenAI's error, naming ``param``, for the ``pending`` tool calls no tool message
    answered; None if each was answered."""
    missing = [c for c in pending if c not in answered]
    if not missing:
        return None
    return Invalid(
        "An assistant message with 'tool_calls' must be followed by tool messages "
        "responding to each 'tool_call_id'. The following tool_call_ids did not "
        f"have response messages: {', '.join(missing)}",
        param,
    )


_RESPONSES_ITEM_TYPES = (
    "message",
    "function_call",
    "function_call_output",
    "reasoning",
    "compaction",
)
_RESPONSES_ROLES = ("assistant", "system", "developer", "user")
API_ITEM_TYPES = frozenset(
    {
        "item_reference",
        "file_search_call",
        "web_search_call",
        "computer_call",
        "computer_call_output",
        "code_interpreter_call",
        "image_generation_call",
        "local_shell_call",
        "local_shell_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "mcp_list_tools",
        "mcp_call",
        "mcp_approval_request",
        "mcp_approval_response",
    }
)
"""Input item types the Responses API takes that the simulator does not (its hosted tools'
calls, a remote MCP server's tool list, calls and approvals, a reference to a stored
item): a request holding one is refused as the simulator's own error, which a recording
does not keep, not as the API's, which would be recorded as an answer the API never
gives."""
INCLUDABLE = (
    "file_search_call.results",
    "web_search_call.results",
    "web_search_call.action.sources",
    "message.input_image.image_url",
    "computer_call_output.output.image_url",
    "code_interpreter_call.outputs",
    ENCRYPTED_REASONING,
    RESPONSES_INCLUDE,
)
"""The entries a Responses request's ``include`` may hold; the API refuses any other (a
misspelt ``reasoning.encrypted_content``), so the simulator does too."""
MIN_OUTPUT_TOKENS = 16
"""The smallest ``max_output_tokens`` the Responses API accepts."""


def _missing(param: str) -> Invalid:
    return Invalid(f"Missing required parameter: '{param}'.", param, "missing_required_parameter")


def _responses_item(item: Any, where: str) -> Invalid | None:
    if not isinstance(item, Mapping):
        return Invalid(f"Invalid type for '{where}': expected an object.", where, "invalid_type")
    kind = item.get("type", "message")
    if kind in API_ITEM_TYPES:
        return Invalid(
            f"{where}.type: the simulator takes no {kind!r} item, which the Responses API "
            f"takes; it takes only {', '.join(_RESPONSES_ITEM_TYPES)} items. Record this "
            "request from the live API, whose answers such items come from.",
            f"{where}.type",
            own=True,
        )
    if kind not in _RESPONSES_ITEM_TYPES:
        return _invalid_value(kind, _RESPONSES_ITEM_TYPES, f"{where}.type")
    if kind == "message" and item.get("role") not in _RESPONSES_ROLES:
        return _invalid_value(item.get("role"), _RESPONSES_ROLES, f"{where}.role")
    needed = {
        "message": ("content",),
        "function_call": ("call_id", "name", "arguments"),
        "function_call_output": ("call_id", "output"),
        "compaction": ("encrypted_content",),
        "reasoning": ("summary",),
    }.get(str(kind), ())
    for name in needed:
        if name not in item:
            return _missing(f"{where}.{name}")
    problem = _reasoning_given(item, where) if kind == "reasoning" else None
    problem = problem or _wrong_type(item, "call_id", str, "a string", f"{where}.")
    problem = problem or _too_long(item.get("call_id"), f"{where}.call_id", MAX_RESPONSES_CALL_ID)
    kinds = _message_parts(item.get("role")) if kind == "message" else _RESPONSES_PARTS
    return problem or _openai_parts(item.get("content"), f"{where}.content", kinds)


def _reasoning_given(item: Mapping[str, Any], where: str) -> Invalid | None:
    """OpenAI's error for a reasoning item given back whose ``summary`` is no array, or
    whose ``encrypted_content`` is no string or not one the simulator sealed."""
    problem = _wrong_type(item, "summary", list, "an array", f"{where}.")
    problem = problem or _wrong_type(item, "encrypted_content", str, "a string", f"{where}.")
    sealed = item.get("encrypted_content")
    if problem is None and sealed is not None and unsealed(sealed) is None:
        return Invalid(
            f"The encrypted content {sealed[:4]}...{sealed[-4:]} could not be verified.",
            code="invalid_encrypted_content",
        )
    return problem


def _responses_tools(tools: Any) -> Invalid | None:
    if tools is None:
        return None
    if not isinstance(tools, list):
        return Invalid("Invalid type for 'tools': expected an array.", "tools", "invalid_type")
    for i, tool in enumerate(tools):
        if not isinstance(tool, Mapping) or not isinstance(tool.get("type"), str):
            return _missing(f"tools[{i}].type")
        if tool["type"] == "function" and not isinstance(tool.get("name"), str):
            return _missing(f"tools[{i}].name")
        problem = _function_name(tool.get("name"), f"tools[{i}].name")
        if problem is not None:
            return problem
    return None


def validate_responses(body: Any) -> Invalid | None:
    """Check a Responses API request body (server-side state is checked by the caller)."""
    if not isinstance(body, Mapping):
        return Invalid("The request body must be a JSON object.")
    if not isinstance(body.get("model"), str) or not body["model"]:
        return _missing("model")
    if "input" not in body:
        return _stored_prompt(body.get("prompt")) or _missing("input")
    items = body["input"]
    if not isinstance(items, str | list):
        return Invalid(
            "Invalid type for 'input': expected one of a string or array of input items, "
            f"but got {type(items).__name__} instead.",
            "input",
            "invalid_type",
        )
    for i, item in enumerate(items if isinstance(items, list) else []):
        problem = _responses_item(item, f"input[{i}]")
        if problem is not None:
            return problem
    for name in ("instructions", "previous_response_id"):
        if body.get(name) is not None and not isinstance(body[name], str):
            return Invalid(f"Invalid type for '{name}': expected a string.", name, "invalid_type")
    for name in ("stream", "background", "store"):
        if body.get(name) is not None and not isinstance(body[name], bool):
            return Invalid(f"Invalid type for '{name}': expected a boolean.", name, "invalid_type")
    problem = _background_stored(body) or _stream_options(body) or _completion_window(body)
    problem = problem or _token_limit(body, "max_output_tokens", MIN_OUTPUT_TOKENS)
    problem = problem or _whole_number(body, "top_logprobs", 0, MAX_TOP_LOGPROBS)
    problem = problem or _sampling(body, _RESPONSES_SAMPLING)
    problem = problem or _choices(body, RESPONSES_CHOICES) or openai_metadata_problem(body)
    reasoning = body.get("reasoning")
    effort = reasoning.get("effort") if isinstance(reasoning, Mapping) else None
    problem = problem or _fixed_sampling(body, effort)
    problem = problem or _too_long(
        body.get("safety_identifier"), "safety_identifier", MAX_SAFETY_IDENTIFIER
    )
    text = body.get("text")
    verbosity = text.get("verbosity") if isinstance(text, Mapping) else None
    problem = problem or _fixed_verbosity(body, "text.verbosity", verbosity)
    given = text.get("format") if isinstance(text, Mapping) else None
    if isinstance(given, Mapping) and given.get("type") is None:
        problem = problem or _missing("text.format.type")
    if isinstance(given, Mapping) and given.get("type") == "json_schema":
        problem = problem or _format_name(given, "text.format")
    problem = problem or _responses_reasoning(body)
    problem = problem or _responses_tools(body.get("tools"))
    return problem or _responses_tool_choice(body.get("tool_choice"), body.get("tools"))


def _stream_options(body: Mapping[str, Any]) -> Invalid | None:
    """OpenAI's error for ``stream_options`` given (not null) without ``stream: true``,
    which the SDK says to set only then, or not an object."""
    if body.get("stream_options") is not None and body.get("stream") is not True:
        return Invalid(
            "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
            "stream_options",
        )
    return _wrong_type(body, "stream_options", Mapping, "an object", "")


def _completion_window(body: Mapping[str, Any]) -> Invalid | None:
    """The Responses API's error for a ``background_options.completion_window`` of ``2h``
    or ``8h`` (discounted background execution) without ``background: true``, or with
    ``stream: true`` or a ``service_tier`` other than the standard one, as the SDK says it
    requires them."""
    options = body.get("background_options")
    window = options.get("completion_window") if isinstance(options, Mapping) else None
    if window not in ("2h", "8h"):
        return None
    tier = body.get("service_tier")
    if (
        body.get("background") is not True
        or body.get("stream") is True
        or tier
        not in (
            None,
            "auto",
            "default",
        )
    ):
        return Invalid(
            f"The '{window}' completion window requires 'background' to be true, Standard "
            "processing (service_tier 'auto' or 'default') and 'stream' false or omitted.",
            "background_options.completion_window",
            "invalid_value",
        )
    return None


def _background_stored(body: Mapping[str, Any]) -> Invalid | None:
    """The Responses API's refusal of a background request with ``store: false``: its
    answer is polled for, and one not stored could never be retrieved."""
    if body.get("background") is True and body.get("store") is False:
        return Invalid(
            "Background mode requires 'store' to be true: a background response is "
            "retrieved by polling, and one not stored cannot be.",
            "store",
            "invalid_value",
        )
    return None


def _stored_prompt(prompt: Any) -> Invalid | None:
    """The simulator's own refusal of a request whose whole input is a stored prompt
    (``prompt``, a template kept on the API's side, which the API takes without
    ``input``): the simulator holds none, so it has nothing to answer."""
    if prompt is None:
        return None
    named = prompt.get("id") if isinstance(prompt, Mapping) else prompt
    return Invalid(
        f"The simulator holds no stored prompt ({named!r}) and this request has no input "
        "of its own, so it has nothing to answer. Record this request from the live API, "
        "or give the prompt's text as instructions and input.",
        "prompt",
        own=True,
    )


def _responses_reasoning(body: Mapping[str, Any]) -> Invalid | None:
    """The Responses API's error for a ``reasoning`` that is not an object, or whose
    effort or summary is not one it knows, and for an ``include`` that is not a list,
    holds an entry it does not know, or asks a reasoning model for log probabilities,
    which it does not give (:func:`fixed_sampling`)."""
    problem = _wrong_type(body, "reasoning", Mapping, "an object", "")
    problem = problem or _wrong_type(body, "include", list, "an array", "")
    include = body.get("include")
    for i, entry in enumerate(include if problem is None and isinstance(include, list) else []):
        if entry not in INCLUDABLE:
            return _invalid_value(entry, INCLUDABLE, f"include[{i}]")
    reasoning = body.get("reasoning")
    effort = reasoning.get("effort") if isinstance(reasoning, Mapping) else None
    logprobs = problem is None and RESPONSES_INCLUDE in (include or ())
    if logprobs and fixed_sampling(str(body.get("model")), effort):
        message = "logprobs are not supported with reasoning models."
        return Invalid(message, "include", "unsupported_parameter")
    if problem is not None or not isinstance(reasoning, Mapping):
        return problem
    summary = reasoning.get("summary")
    if summary is not None and summary not in SUMMARIES:
        return _invalid_value(summary, SUMMARIES, "reasoning.summary")
    return _reasoning_effort(reasoning.get("effort"), "reasoning.effort", body.get("model"))


def item_ids(items: Any) -> set[str]:
    """The ids of the Responses API items of ``items`` (a list) that have one (an output
    item given back, a conversation's item); none of an ``item_reference``, which names
    another item rather than being one."""
    listed = items if isinstance(items, list) else []
    return {
        item["id"]
        for item in listed
        if isinstance(item, Mapping)
        and isinstance(item.get("id"), str)
        and item.get("type") != "item_reference"
    }


def duplicate_items(items: Any, held: Collection[str]) -> Invalid | None:
    """The Responses API's error for an item of the input ``items`` whose ``id`` an item
    before it has, or one of ``held``, the items of the conversation the request continues
    (the previous response's output and what led to it), which the API holds already: an
    agent sending the output of the response it names by ``previous_response_id`` again."""
    seen = set(held)
    for item in items if isinstance(items, list) else ():
        if not isinstance(item, Mapping) or item.get("type") == "item_reference":
            continue
        named = item.get("id")
        if isinstance(named, str) and named in seen:
            return Invalid(
                f"Duplicate item found with id {named}. Remove duplicate items from your "
                "input and try again.",
                "input",
            )
        if isinstance(named, str):
            seen.add(named)
    return None


def unanswered_outputs(items: Any, offered: set[str]) -> Invalid | None:
    """A ``function_call_output`` of ``items`` whose call is neither among ``offered`` (the
    calls of the previous response) nor a ``function_call`` item before it; or a call of
    either that no output answers (a tool node that ran only the first of parallel calls)."""
    calls = sorted(offered)
    answered: set[str] = set()
    for item in items if isinstance(items, list) else []:
        kind = item.get("type")
        if kind == "function_call":
            calls.append(str(item.get("call_id")))
        elif kind == "function_call_output" and item.get("call_id") not in calls:
            return Invalid(
                f"No tool call found for function call output with call_id {item.get('call_id')}.",
                "input",
            )
        elif kind == "function_call_output":
            answered.add(str(item.get("call_id")))
    unanswered = [c for c in calls if c not in answered]
    if unanswered:
        return Invalid(f"No tool output found for function call {unanswered[0]}.", "input")
    return None


def google_authenticated(headers: Mapping[str, str], query: str) -> bool:
    """Whether the request carries an API key: ``x-goog-api-key`` or ``?key=``."""
    if headers.get("x-goog-api-key", "").strip():
        return True
    return any(value.strip() for name, value in parse_qsl(query) if name == "key")


_GEMINI_ROLES = ("user", "model", "function", "tool")
_GEMINI_DATA: dict[str, tuple[str, tuple[str, ...]]] = {
    "text": ("text", ()),
    "functionCall": ("function_call", ("name",)),
    "functionResponse": ("function_response", ("name",)),
    "inlineData": ("inline_data", ("mimeType", "data")),
    "fileData": ("file_data", ("fileUri",)),
    "executableCode": ("executable_code", ()),
    "codeExecutionResult": ("code_execution_result", ()),
}
"""The data a part holds: its field, as errors name it, and the fields it requires (the
code the model ran with the code execution tool, and its result, are sent back in a
conversation's history)."""


def _gemini_contents(contents: Any) -> Invalid | None:
    if not isinstance(contents, list):
        return Invalid(
            "Invalid JSON payload received. Invalid value at 'contents': expected a list."
        )
    if not contents:
        return Invalid("* GenerateContentRequest.contents: contents is not specified")
    for i, content in enumerate(contents):
        where = f"GenerateContentRequest.contents[{i}]"
        if not isinstance(content, Mapping):
            return Invalid(f"Invalid JSON payload received. Invalid value at 'contents[{i}]'.")
        if content.get("role", "user") not in _GEMINI_ROLES:
            return Invalid("Please use a valid role: user, model.")
        parts = content.get("parts")
        if not isinstance(parts, list) or not parts:
            return Invalid(f"* {where}.parts: contents.parts must not be empty.")
        problem = _gemini_parts(parts, where)
        if problem is not None:
            return problem
    return _gemini_turns(contents)


def _gemini_turns(contents: list[Mapping[str, Any]]) -> Invalid | None:
    """Why the API refuses the order of the function calls and answers of ``contents``: a
    turn of calls that opens the conversation, a turn of function responses after no turn
    of calls, or answering another number of calls than that turn made (consecutive
    contents of one side read as one turn)."""
    turns: list[tuple[bool, int, int]] = []  # (the model's, calls, responses)
    for content in contents:
        model = content.get("role") == "model"
        calls, responses = _kinds(content, "functionCall"), _kinds(content, "functionResponse")
        if turns and turns[-1][0] == model:
            _, made, answered = turns.pop()
            calls, responses = calls + made, responses + answered
        turns.append((model, calls, responses))
    for index, (model, calls, responses) in enumerate(turns):
        if model and calls and index == 0:
            return Invalid(
                "Please ensure that function call turn comes immediately after a user turn "
                "or after a function response turn."
            )
        asked = turns[index - 1][1] if index else 0
        if not model and responses and not asked:
            return Invalid(
                "Please ensure that function response turn comes immediately after a "
                "function call turn."
            )
        if not model and responses and responses != asked:
            return Invalid(
                "Please ensure that the number of function response parts is equal to the "
                "number of function call parts of the function call turn."
            )
    return None


def _kinds(content: Mapping[str, Any], kind: str) -> int:
    """How many parts of ``content`` are of ``kind`` (``functionCall``, ...)."""
    parts: list[Any] = content.get("parts") or []
    return len([part for part in parts if isinstance(part, Mapping) and kind in part])


def _gemini_parts(parts: Any, where: str) -> Invalid | None:
    listed = parts if isinstance(parts, list) else []
    problems = (_gemini_part(part, f"{where}.parts[{j}]") for j, part in enumerate(listed))
    return next((p for p in problems if p is not None), None)


def gemini_part_data(part: Any) -> str | None:
    """The field holding a part's data (``text``, ``functionCall``...), or None for a part
    with none: the API reads an empty text (``{"text": ""}``, an empty answer sent back in
    a history) as none, but beside the ``thoughtSignature`` a Gemini 3 stream ends with."""
    if not isinstance(part, Mapping):
        return None
    data = next((k for k in _GEMINI_DATA if part.get(k) is not None), None)
    if data == "text" and part["text"] == "" and not part.get("thoughtSignature"):
        return None
    return data


def no_part_data(where: str) -> Invalid:
    """The API's error for a part at ``where`` holding no data (:func:`gemini_part_data`)."""
    return Invalid(f"* {where}.data: required oneof field 'data' must have one initialized field")


def _gemini_part(part: Any, where: str) -> Invalid | None:
    data = gemini_part_data(part)
    if data is None:
        return no_part_data(where)
    name, required = _GEMINI_DATA[data]
    value = part[data]
    if not isinstance(value, Mapping):
        return None
    missing = next((field for field in required if not value.get(field)), None)
    if missing is None:
        if data != "inlineData":
            return None
        return _gemini_bytes(value, where) or _gemini_mime_type(value["mimeType"])
    return Invalid(f"* {where}.{name}.{_snake(missing)}: {_snake(missing)} cannot be empty.")


def _gemini_bytes(inline: Mapping[str, Any], where: str) -> Invalid | None:
    """The API's error for an ``inlineData`` part at ``where`` whose ``data`` is no base64
    (standard or URL-safe, padded or not, as a proto's bytes are read from JSON; its
    whitespace aside), which no file decodes from."""
    data = inline["data"]
    if isinstance(data, str):
        text = "".join(data.split()).replace("-", "+").replace("_", "/")
        try:
            base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
        except ValueError:
            pass
        else:
            return None
    at = where.removeprefix("GenerateContentRequest.")
    return Invalid(
        f"Invalid JSON payload received. Invalid value at '{at}.inline_data.data' "
        f"(TYPE_BYTES), Base64 decoding failed for {orjson.dumps(data).decode()}"
    )


_GEMINI_IMAGE_TYPES = frozenset(
    ("image/png", "image/jpeg", "image/webp", "image/heic", "image/heif")
)
"""The images the API reads from an ``inlineData`` part (not ``image/jpg``, nor GIF or BMP)."""


def _gemini_mime_type(mime_type: Any) -> Invalid | None:
    """The API's error for an ``inlineData`` part whose ``mimeType`` it reads no file as: a
    word with no ``/`` (``png``) or an image type other than :data:`_GEMINI_IMAGE_TYPES`
    (``image/jpg``, where ``image/jpeg`` is meant)."""
    text = str(mime_type).strip().lower()
    if "/" in text and (not text.startswith("image/") or text in _GEMINI_IMAGE_TYPES):
        return None
    return Invalid(f"Unsupported MIME type: {mime_type}")


def _snake(name: str) -> str:
    return re.sub(r"[A-Z]", lambda upper: "_" + upper[0].lower(), name)


def _gemini_tools(tools: Any) -> Invalid | None:
    if tools is None:
        return None
    if not isinstance(tools, list):
        return Invalid("Invalid JSON payload received. Invalid value at 'tools': expected a list.")
    for i, tool in enumerate(tools):
        if not isinstance(tool, Mapping):
            return Invalid(f"Invalid JSON payload received. Invalid value at 'tools[{i}]'.")
        declared = tool.get("functionDeclarations", tool.get("function_declarations"))
        if declared is not None and not isinstance(declared, list):
            return Invalid(
                "Invalid JSON payload received. Invalid value at "
                f"'tools[{i}].function_declarations': expected a list."
            )
        for j, function in enumerate(declared or []):
            name = function.get("name") if isinstance(function, Mapping) else None
            where = f"* GenerateContentRequest.tools[{i}].function_declarations[{j}].name: "
            if not name:
                return Invalid(f"{where}Name cannot be empty.")
            if not isinstance(name, str) or _GEMINI_FUNCTION_NAME.fullmatch(name) is None:
                return Invalid(f"{where}{_GEMINI_NAME_RULE}")
            at = f"tools[{i}].function_declarations[{j}].parameters"
            parameters = function.get("parameters")
            problem = _gemini_schema_names(parameters, at) or _gemini_empty_object(
                parameters, f"GenerateContentRequest.{at}"
            )
            if problem is not None:
                return problem
    return None


def _gemini_empty_object(schema: Any, where: str) -> Invalid | None:
    """The API's error for an ``OBJECT`` of the API's own ``Schema`` at ``where`` (a
    declaration's ``parameters``, ``responseSchema``), however deep, whose ``properties``
    are given empty (``{"type": "object", "properties": {}}``, an MCP or LangChain tool
    taking no arguments; google-genai sends such a function with no ``parameters``)."""
    if not isinstance(schema, Mapping):
        return None
    if takes_no_arguments(schema):
        return Invalid(f"* {where}.properties: should be non-empty for OBJECT type")
    inner = _gemini_inner(schema, where, lambda _, name: f'properties["{name}"]')
    problems = (_gemini_empty_object(value, at) for value, at in inner)
    return next((problem for problem in problems if problem is not None), None)


def _gemini_schema_names(schema: Any, at: str) -> Invalid | None:
    """The API's error for the JSON Schema keywords (``$schema``, ``$id``, ``$ref``, a
    zod or MCP tool's schema given as it is) in one of its own ``Schema`` at ``at`` (a
    declaration's ``parameters``, ``responseSchema``), which has no field of these names,
    or for a list of types (``["string", "null"]``), where it takes one: JSON Schema goes
    in ``parametersJsonSchema`` or ``responseJsonSchema``."""
    if not isinstance(schema, Mapping):
        return None
    unknown = [name for name in schema if isinstance(name, str) and name.startswith("$")]
    if unknown:
        return Invalid(
            "\n".join(
                f"Invalid JSON payload received. Unknown name \"{name}\" at '{at}': "
                "Cannot find field."
                for name in unknown
            )
        )
    if isinstance(schema.get("type"), list):  # JSON Schema's ["string", "null"]
        return Invalid(
            f"Invalid JSON payload received. Unknown name \"type\" at '{at}': Proto field is "
            "not repeating, cannot start list."
        )
    inner = _gemini_inner(schema, at, lambda k, _: f"properties[{k}].value")
    problems = (_gemini_schema_names(value, where) for value, where in inner)
    return next((problem for problem in problems if problem is not None), None)


def _gemini_inner(
    schema: Mapping[str, Any], at: str, property_at: Callable[[int, str], str]
) -> list[tuple[Any, str]]:
    """The schemas inside ``schema``, one of the API's own at ``at``, with where each is:
    its properties' (the k-th, named ``name``, at ``property_at(k, name)`` below ``at``),
    its items' and its ``any_of`` ways'."""
    properties = schema.get("properties")
    named = properties.items() if isinstance(properties, Mapping) else ()
    inner = [(value, f"{at}.{property_at(k, name)}") for k, (name, value) in enumerate(named)]
    inner.append((schema.get("items"), f"{at}.items"))
    ways = schema.get("anyOf", schema.get("any_of"))
    listed = ways if isinstance(ways, list) else []
    inner += [(way, f"{at}.any_of[{k}]") for k, way in enumerate(listed)]
    return inner


_GEMINI_FUNCTION_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.:-]{0,63}")
_GEMINI_NAME_RULE = (
    "Invalid function name. Must start with a letter or an underscore. Must be a-z, A-Z, "
    "0-9, or contain underscores (_), dots (.), colons (:), or dashes (-), with a maximum "
    "length of 64."
)
_GEMINI_CALLING_MODES = ("MODE_UNSPECIFIED", "AUTO", "ANY", "NONE", "VALIDATED")


def gemini_enum_value(field: str, enum: str, value: Any) -> Invalid:
    """The API's error for ``value`` at ``field``, none of the names of its ``enum``."""
    return Invalid(
        f"Invalid JSON payload received. Invalid value at '{field}' "
        f"(type.googleapis.com/google.ai.generativelanguage.v1beta.{enum}), "
        f"{orjson.dumps(value).decode()}"
    )


def _gemini_tool_config(config: Any) -> Invalid | None:
    """The API's error for a ``functionCallingConfig.mode`` that is none of its enum's."""
    calling = config.get("functionCallingConfig") if isinstance(config, Mapping) else None
    mode = calling.get("mode") if isinstance(calling, Mapping) else None
    if mode is None or mode in _GEMINI_CALLING_MODES:
        return None
    return gemini_enum_value(
        "tool_config.function_calling_config.mode", "FunctionCallingConfig.Mode", mode
    )


_GEMINI_SAFETY_CATEGORIES = (
    "HARM_CATEGORY_HATE_SPEECH",
    "HARM_CATEGORY_SEXUALLY_EXPLICIT",
    "HARM_CATEGORY_DANGEROUS_CONTENT",
    "HARM_CATEGORY_HARASSMENT",
    "HARM_CATEGORY_CIVIC_INTEGRITY",
    "HARM_CATEGORY_JAILBREAK",
)
"""The harm categories a Gemini model takes a safety setting for."""
_GEMINI_HARM_CATEGORIES = (
    "HARM_CATEGORY_UNSPECIFIED",
    "HARM_CATEGORY_DEROGATORY",
    "HARM_CATEGORY_TOXICITY",
    "HARM_CATEGORY_VIOLENCE",
    "HARM_CATEGORY_SEXUAL",
    "HARM_CATEGORY_MEDICAL",
    "HARM_CATEGORY_DANGEROUS",
    *_GEMINI_SAFETY_CATEGORIES,
)
"""The names of the API's ``HarmCategory`` (the older models' too): another name
(Vertex AI's ``HARM_CATEGORY_IMAGE_*``, a typo) is no value of the enum."""
_GEMINI_THRESHOLDS = (
    "HARM_BLOCK_THRESHOLD_UNSPECIFIED",
    "BLOCK_LOW_AND_ABOVE",
    "BLOCK_MEDIUM_AND_ABOVE",
    "BLOCK_ONLY_HIGH",
    "BLOCK_NONE",
    "OFF",
)


def _gemini_safety_settings(settings: Any) -> Invalid | None:
    """The API's error for the first ``safetySettings`` entry it refuses: a category or a
    threshold of no name its enums know, or a category no Gemini model takes."""
    if settings is None:
        return None
    if not isinstance(settings, list):
        return Invalid(
            "Invalid JSON payload received. Invalid value at 'safety_settings': expected a list."
        )
    problems = (_gemini_safety_setting(setting, i) for i, setting in enumerate(settings))
    return next((problem for problem in problems if problem is not None), None)


def _gemini_safety_setting(setting: Any, i: int) -> Invalid | None:
    where = f"safety_settings[{i}]"
    if not isinstance(setting, Mapping):
        return Invalid(f"Invalid JSON payload received. Invalid value at '{where}'.")
    category = setting.get("category", "HARM_CATEGORY_UNSPECIFIED")
    if category not in _GEMINI_HARM_CATEGORIES:
        return gemini_enum_value(f"{where}.category", "HarmCategory", category)
    threshold = setting.get("threshold")
    if threshold is not None and threshold not in _GEMINI_THRESHOLDS:
        return gemini_enum_value(
            f"{where}.threshold", "SafetySetting.HarmBlockThreshold", threshold
        )
    if category in _GEMINI_SAFETY_CATEGORIES:
        return None
    taken = ", ".join(f"HarmCategory.{name}" for name in _GEMINI_SAFETY_CATEGORIES)
    return Invalid(
        f"* GenerateContentRequest.{where}: element predicate failed: $.category in ({taken})"
    )


MAX_CANDIDATES = 8
"""The most candidates (``candidateCount``) one ``generateContent`` request may ask for
(0, the field's zero value, is one)."""


_GEMINI_THINKING_BUDGETS = (
    (re.compile(r"gemini-2\.5-pro"), 32768),
    (re.compile(r"gemini-2\.5-flash"), 24576),
)
"""The largest ``thinkingBudget`` of each thinking model (Flash-Lite's as Flash's)."""
_THINKING_ONLY = re.compile(r"gemini-2\.5-pro")
"""The models that only work thinking: a budget of 0 is refused."""


_BEFORE_GEMINI_3 = re.compile(r"gemini-[12]\.")
"""The models before Gemini 3 (1.x, 2.x): they take no ``thinkingLevel``, and answer
JSON (``responseMimeType: application/json``) only without tools."""


GEMINI_SIGNING = re.compile(r"gemini-3")
"""The models (Gemini 3) whose function calls carry a ``thoughtSignature`` the API wants
back: the first call of each step of the current turn."""
_UNSIGNED = (
    "Function call is missing a thought_signature in functionCall parts. This is required "
    "for tools to work correctly, and missing thought_signature may lead to degraded model "
    "performance. Additional data, function call `default_api:{name}` , position {position}. "
    "Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details."
)


def gemini_signature_missing(model: str, body: Mapping[str, Any]) -> Invalid | None:
    """The API's error for a step of the current turn (the contents after the last user
    turn that is not function responses) whose first function call has no
    ``thoughtSignature``, on a model that signs its calls (:data:`GEMINI_SIGNING`)."""
    contents = body.get("contents")
    if not GEMINI_SIGNING.search(model) or not isinstance(contents, list):
        return None
    turns = [c if isinstance(c, Mapping) else {} for c in contents]
    parts = [[p for p in c.get("parts") or [] if isinstance(p, Mapping)] for c in turns]
    asked = [
        i
        for i, c in enumerate(turns)
        if c.get("role", "user") == "user" and any("functionResponse" not in p for p in parts[i])
    ]
    for i in range(asked[-1] + 1 if asked else 0, len(turns)):
        if turns[i].get("role") != "model" or (i > 0 and turns[i - 1].get("role") == "model"):
            continue  # consecutive contents of one role are one step
        calls = [p for p in parts[i] if "functionCall" in p]
        if calls and not calls[0].get("thoughtSignature"):
            call = calls[0]["functionCall"]
            name = call.get("name") if isinstance(call, Mapping) else None
            return Invalid(_UNSIGNED.format(name=name, position=i + 1))
    return None


_NOT_THINKING = re.compile(r"gemma-|gemini-(?:1\.|2\.0)")
"""The models that do not think (Gemma, Gemini 1.x and 2.0): a thinking budget, even 0,
is refused."""


_THINKING_UNASKED = re.compile(r"gemini-(?:2\.5-(?:pro|flash(?!-lite))|[3-9]|(?:pro|flash)-latest)")
"""The models that think when the request says nothing of it (a dynamic budget): Gemini
2.5 Pro and Flash (not Flash-Lite), Gemini 3 and later."""


def gemini_thinks(model: str, *, asked: bool) -> bool:
    """Whether ``model`` thinks, given no budget of 0: when ``asked`` (a budget, a level,
    or its thoughts asked for) if it can (not Gemma, Gemini 1.x or 2.0, nor a model
    answering in images or speech), else if it thinks unasked."""
    if _NOT_THINKING.search(model) or _MEDIA_MODEL.search(model):
        return False
    return asked or bool(_THINKING_UNASKED.search(model))


def gemini_thinking_config(body: Mapping[str, Any]) -> Mapping[str, Any]:
    """A Gemini request's ``generationConfig.thinkingConfig`` (empty if it gives none)."""
    config = body.get("generationConfig")
    thinking = config.get("thinkingConfig") if isinstance(config, Mapping) else None
    return thinking if isinstance(thinking, Mapping) else {}


def gemini_thinking_refused(model: str, body: Mapping[str, Any]) -> Invalid | None:
    """The API's error for a ``thinkingConfig`` ``model`` does not take: a
    ``thinkingLevel`` beside a ``thinkingBudget``, or asked of a model before Gemini 3; a
    budget asked of a model that does not think, or that is no whole number, 0 for a model
    that only works thinking (Gemini 2.5 Pro), under -1 (the dynamic budget) or over the
    model's largest."""
    thinking = gemini_thinking_config(body)
    budget = thinking.get("thinkingBudget")
    if thinking.get("thinkingLevel") is not None:
        if budget is not None:
            return Invalid("You can only set only one of thinking budget and thinking level.")
        if _BEFORE_GEMINI_3.search(model):
            return Invalid("Thinking level is not supported for this model.")
    if budget is None:
        return None
    if _NOT_THINKING.search(model):
        return Invalid(f"Thinking is not enabled for models/{model}")
    wrong = not_int32(budget, "generation_config.thinking_config.thinking_budget")
    if wrong is not None:
        return wrong
    if budget == 0 and _THINKING_ONLY.search(model):
        return Invalid("Budget 0 is invalid. This model only works in thinking mode.")
    largest = next((most for name, most in _GEMINI_THINKING_BUDGETS if name.search(model)), None)
    if budget < -1 or (largest is not None and budget > largest):
        return Invalid(f"The thinking budget ({budget}) is invalid.")
    return None


_GEMINI_ANSWER_TYPES = frozenset(
    ("text/plain", "application/json", "application/xml", "application/yaml", "text/x.enum")
)
"""The ``responseMimeType`` values the API takes."""


def gemini_output_refused(model: str, body: Mapping[str, Any]) -> Invalid | None:
    """The API's error for an answer format the request cannot have: a ``responseMimeType``
    it does not take, JSON Schema keywords in a ``responseSchema``, a ``responseSchema``
    for a text answer (no ``responseMimeType``, or ``text/plain``), or, before Gemini 3, a
    JSON answer beside function declarations or another tool (Google Search, URL context)."""
    config = body.get("generationConfig")
    if not isinstance(config, Mapping):
        return None
    mime = config.get("responseMimeType") or "text/plain"
    if mime not in _GEMINI_ANSWER_TYPES:
        return Invalid(
            "* GenerateContentRequest.generation_config.response_mime_type: allowed "
            "mimetypes are text/plain, application/json, application/xml, application/yaml "
            "and text/x.enum."
        )
    answer = config.get("responseSchema")
    schema = _gemini_schema_names(answer, "generation_config.response_schema")
    schema = schema or _gemini_empty_object(
        answer, "GenerateContentRequest.generation_config.response_schema"
    )
    if schema is not None:
        return schema
    if config.get("responseSchema") is not None and mime == "text/plain":
        return Invalid("Response_schema with a response mime type 'text/plain' is unsupported")
    json_schema = _gemini_json_schema_refused(config, mime)
    if json_schema is not None:
        return json_schema
    tools = body.get("tools")
    if mime != "application/json" or not isinstance(tools, list) or not tools:
        return None
    if not _BEFORE_GEMINI_3.search(model):
        return None
    declares = any(isinstance(t, Mapping) and t.get("functionDeclarations") for t in tools)
    used = "Function calling" if declares else "Tool use"
    return Invalid(f"{used} with a response mime type: 'application/json' is unsupported")


def _gemini_json_schema_refused(config: Mapping[str, Any], mime: str) -> Invalid | None:
    """The simulator's own refusal of a ``responseJsonSchema`` the API refuses, as
    google-genai's ``GenerateContentConfig`` says ("If set, `response_schema` must be
    omitted, but `response_mime_type` is required"): beside a ``responseSchema``, or with
    no ``responseMimeType`` (a text answer)."""
    if config.get("responseJsonSchema") is None:
        return None
    if config.get("responseSchema") is not None:
        said = "generation_config sets both response_schema and response_json_schema"
    elif mime == "text/plain":
        said = (
            "generation_config.response_json_schema is set for a text answer (no "
            "response_mime_type, or text/plain)"
        )
    else:
        return None
    return Invalid(f"{said}, which the API refuses {OWN_WORDING}", own=True)


_MEDIA_MODEL = re.compile(r"image|tts|audio|live")
"""The models that answer in a modality other than text (``gemini-2.5-flash-image``, a
text-to-speech or native audio model)."""


def gemini_modalities_refused(model: str, body: Mapping[str, Any]) -> Invalid | None:
    """Why ``responseModalities`` asking for more than text is refused: the API's error on
    a text model, the simulator's own on a model that makes images or speech, as it makes
    none."""
    config = body.get("generationConfig")
    asked = config.get("responseModalities") if isinstance(config, Mapping) else None
    if not isinstance(asked, list) or all(str(m).upper() == "TEXT" for m in asked):
        return None
    if _MEDIA_MODEL.search(model):
        return Invalid(
            f"responseModalities: the simulator answers in text alone, not {asked}: record "
            "an image or speech answer from the live API",
            own=True,
        )
    named = ",".join(str(m).lower() for m in asked)
    return Invalid(f"Model does not support the requested response modalities: {named}")


def gemma_refused(model: str, body: Mapping[str, Any]) -> Invalid | None:
    """The API's error for what a Gemma model does not take: a system instruction, JSON
    or an enum as its answer's format, and Gemma 3's function declarations."""
    if not model.startswith("gemma-"):
        return None
    config = body.get("generationConfig")
    mime = config.get("responseMimeType") if isinstance(config, Mapping) else None
    if body.get("systemInstruction") is not None:
        return Invalid(f"Developer instruction is not enabled for models/{model}")
    if model.startswith("gemma-3") and body.get("tools"):
        return Invalid(f"Function calling is not enabled for models/{model}")
    modes = {"application/json": "JSON mode", "text/x.enum": "Enum mode"}
    if mime in modes:
        return Invalid(f"{modes[mime]} is not enabled for models/{model}")
    return None


_NO_PENALTY = re.compile(r"gemini-2\.5-flash")
"""The models that take no ``presencePenalty`` or ``frequencyPenalty`` (2.5 Flash and
Flash-Lite)."""


def gemini_penalty_refused(model: str, body: Mapping[str, Any]) -> Invalid | None:
    """The API's error for a penalty other than 0 asked of a model that takes none
    (:data:`_NO_PENALTY`), as an OpenAI-minded wrapper's ``frequency_penalty=0.3`` is."""
    config = body.get("generationConfig")
    if not isinstance(config, Mapping) or not _NO_PENALTY.search(model):
        return None
    if any(config.get(name) for name in ("presencePenalty", "frequencyPenalty")):
        return Invalid(f"Penalty is not enabled for models/{model}")
    return None


_GEMINI_OUTPUT_LIMITS = (
    (re.compile(r"gemini-(2\.5|3)"), 65536),
    (re.compile(r"gemini-2\.0"), 8192),
)
"""The most tokens a model writes, as ``maxOutputTokens`` may ask (Gemini 2.5 and 3, 2.0)."""


def gemini_output_limit_refused(model: str, body: Mapping[str, Any]) -> Invalid | None:
    """The API's error for a ``maxOutputTokens`` above what the model writes
    (:data:`_GEMINI_OUTPUT_LIMITS`; a model not named there is not checked)."""
    config = body.get("generationConfig")
    asked = config.get("maxOutputTokens") if isinstance(config, Mapping) else None
    most = next((most for name, most in _GEMINI_OUTPUT_LIMITS if name.search(model)), None)
    if not isinstance(asked, int) or most is None or asked <= most:
        return None
    return Invalid(
        f"Unable to submit request because it has a maxOutputTokens value of {asked} but the "
        f"supported range is from 1 (inclusive) to {most + 1} (exclusive). Update the value "
        "and try again."
    )


def gemini_cache_refused(body: Mapping[str, Any]) -> Invalid | None:
    """Why a request reading a ``cachedContent`` is refused: beside a system instruction,
    tools or a tool config, as the API refuses it; else as the simulator's own refusal, as
    it holds no cached contents (it does not serve ``cachedContents``) to read."""
    if body.get("cachedContent") is None:
        return None
    if any(body.get(name) is not None for name in ("systemInstruction", "tools", "toolConfig")):
        return Invalid(
            "CachedContent can not be used with GenerateContent request setting "
            "system_instruction, tools or tool_config.\n\nProposed fix: move those values "
            "to CachedContent from GenerateContent request."
        )
    return Invalid(
        f"cachedContent: the simulator holds no cached content ({body['cachedContent']!r}): "
        "it does not serve cachedContents; record a request reading one from the live API",
        own=True,
    )


_INT32 = range(-(2**31), 2**31)


def not_int32(given: Any, field: str) -> Invalid | None:
    """The Gemini API's error for a request's ``field`` (an ``int32``) given ``given``, a
    value of another type or beyond the ``int32`` range (a number over 2**31 parsed as a
    float); None where it is one or absent."""
    whole = isinstance(given, int) and not isinstance(given, bool)
    if given is None or (whole and given in _INT32):
        return None
    shown = str(given) if whole else json.dumps(given, ensure_ascii=False)
    return Invalid(
        f"Invalid JSON payload received. Invalid value at '{field}' (TYPE_INT32), {shown}"
    )


_INT32_FIELDS = ("maxOutputTokens", "candidateCount", "topK", "seed")
_FLOAT_FIELDS = ("temperature", "topP", "presencePenalty", "frequencyPenalty")


def _not_numbers(config: Mapping[str, Any]) -> Invalid | None:
    """The Gemini API's error for a ``generationConfig`` field given a value of another
    type than its own: an ``int32`` (:func:`not_int32`), or a float given no number (a
    numeric string, which proto's JSON reads, aside)."""
    for name in _INT32_FIELDS:
        wrong = not_int32(config.get(name), f"generation_config.{_snake(name)}")
        if wrong is not None:
            return wrong
    for name in _FLOAT_FIELDS:
        given = config.get(name)
        if given is None or (isinstance(given, int | float) and not isinstance(given, bool)):
            continue
        try:
            float(given)
        except (TypeError, ValueError):
            shown = json.dumps(given, ensure_ascii=False)
            at = f"generation_config.{_snake(name)}"
            return Invalid(
                f"Invalid JSON payload received. Invalid value at '{at}' (TYPE_FLOAT), {shown}"
            )
    return None


_GEMINI_REQUEST_FIELDS = frozenset(
    (
        "model",
        "contents",
        "systemInstruction",
        "tools",
        "toolConfig",
        "safetySettings",
        "generationConfig",
        "cachedContent",
        "serviceTier",
        "store",
        "labels",
        "modelArmorConfig",
        "continuationToken",
    )
)
"""The fields of a ``generateContent`` request (Vertex AI's beside the Gemini API's, as
one route serves both), in camelCase."""
_GEMINI_CONFIG_FIELDS = frozenset(
    (
        "stopSequences",
        "responseMimeType",
        "responseSchema",
        "responseJsonSchema",
        "_responseJsonSchema",
        "responseFormat",
        "responseModalities",
        "candidateCount",
        "maxOutputTokens",
        "temperature",
        "topP",
        "topK",
        "seed",
        "presencePenalty",
        "frequencyPenalty",
        "responseLogprobs",
        "logprobs",
        "enableEnhancedCivicAnswers",
        "speechConfig",
        "thinkingConfig",
        "imageConfig",
        "mediaResolution",
        "audioTimestamp",
        "audioTranscriptionConfig",
        "enableAffectiveDialog",
        "modelSelectionConfig",
        "routingConfig",
        "translationConfig",
        "generationOutputConfig",
    )
)
"""The fields of a request's ``generationConfig`` (google-genai's ``GenerationConfig``),
in camelCase."""


def gemini_unknown(fields: Mapping[str, Any], known: frozenset[str], at: str) -> Invalid | None:
    """The API's error for the names of ``fields`` that are none of ``known`` in either
    spelling (``top_p`` or ``topP``), as its JSON reader refuses them, naming each and
    where (``at``: ``generation_config``, or "" for the request)."""
    unknown = [
        name
        for name in fields
        if name not in known and re.sub(r"_([a-z0-9])", lambda m: m[1].upper(), name) not in known
    ]
    where = f" at '{at}'" if at else ""
    lines = (
        f'Invalid JSON payload received. Unknown name "{name}"{where}: Cannot find field.'
        for name in unknown
    )
    return Invalid("\n".join(lines)) if unknown else None


def validate_gemini(body: Any) -> Invalid | None:
    """Check a Gemini ``generateContent`` request body (the model is in the path)."""
    if not isinstance(body, Mapping):
        return Invalid("Invalid JSON payload received. Expected an object.")
    unknown = gemini_unknown(body, _GEMINI_REQUEST_FIELDS, "")
    if unknown is not None:
        return unknown
    if "contents" not in body:
        return Invalid("* GenerateContentRequest.contents: contents is not specified")
    config = body.get("generationConfig")
    if config is not None and not isinstance(config, Mapping):
        return Invalid(
            "Invalid JSON payload received. Invalid value at 'generation_config': "
            "expected an object."
        )
    unknown = gemini_unknown(config or {}, _GEMINI_CONFIG_FIELDS, "generation_config")
    if unknown is not None:
        return unknown
    limit = (config or {}).get("maxOutputTokens")
    count = (config or {}).get("candidateCount")
    wrong = _not_numbers(config or {})
    if wrong is not None:
        return wrong
    if limit is not None and limit < 1:
        return Invalid(
            "* GenerateContentRequest.generation_config.max_output_tokens: "
            "max_output_tokens must be positive."
        )
    temperature = (config or {}).get("temperature")
    if temperature is not None and not 0 <= float(temperature) <= 2:
        return Invalid(
            "* GenerateContentRequest.generation_config.temperature: "
            "temperature must be in the range [0.0, 2.0]."
        )
    if count is not None and not 0 <= count <= MAX_CANDIDATES:
        return Invalid(
            "* GenerateContentRequest.generation_config.candidate_count: "
            f"candidate_count must be between 1 and {MAX_CANDIDATES}."
        )
    instruction = body.get("systemInstruction")
    if isinstance(instruction, Mapping):
        where = "GenerateContentRequest.system_instruction"
        problem = _gemini_parts(instruction.get("parts"), where)
        if problem is not None:
            return problem
    return (
        _gemini_contents(body["contents"])
        or _gemini_tools(body.get("tools"))
        or _gemini_tool_config(body.get("toolConfig"))
        or _gemini_safety_settings(body.get("safetySettings"))
    )
