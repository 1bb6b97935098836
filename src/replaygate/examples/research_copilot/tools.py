"""The agent's tools, ``search_corpus`` and ``fetch_doc``, and the registry that runs them.

A tool call never raises into the agent loop for a problem the model caused: an
unknown tool, missing, extra or wrongly typed arguments and an unknown doc id all
come back as a :class:`ToolResult` with ``is_error=True`` and a message naming the
tool and the problem, so the model can read it and recover. Results are JSON
written with ``json.dumps(obj, ensure_ascii=False)``: the same bytes on every machine.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from replaygate.examples.research_copilot.corpus import Corpus, default_corpus
from replaygate.models.types import ToolCall, ToolSpec
from replaygate.sim.research_policy import FETCH_TOOL, SEARCH_TOOL

_JSON_TYPES: Mapping[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
}

_TYPE_NAMES: tuple[tuple[type, str], ...] = (
    (type(None), "null"),
    (bool, "boolean"),
    (int, "integer"),
    (float, "number"),
    (str, "string"),
    (list, "array"),
    (dict, "object"),
)
"""The JSON type name of a value, by its Python type (``bool`` before ``int``)."""


class ToolError(Exception):
    """Raised by a tool handler for a problem the model should read and fix."""


@dataclass(frozen=True)
class ToolResult:
    """What a tool call produced: its text, and whether it is an error."""

    content: str
    is_error: bool = False


ToolHandler = Callable[[Mapping[str, Any]], str]
"""A tool implementation: validated arguments in, result text out; may raise ToolError."""


@dataclass(frozen=True)
class Tool:
    """A tool the model may call: its spec and the function that runs it."""

    spec: ToolSpec
    handler: ToolHandler


def _type_name(value: Any) -> str:
    for kind, name in _TYPE_NAMES:
        if isinstance(value, kind):
            return name
    return type(value).__name__


def _matches(value: Any, json_type: str) -> bool:
    if isinstance(value, bool) and json_type != "boolean":
        return False
    return isinstance(value, _JSON_TYPES.get(json_type, (object,)))


def _value_problem(name: str, value: Any, schema: Mapping[str, Any]) -> str | None:
    json_type = schema.get("type")
    if isinstance(json_type, str) and not _matches(value, json_type):
        return f"argument {name!r} must be {json_type}, got {_type_name(value)} {value!r}"
    minimum = schema.get("minimum")
    if minimum is not None and isinstance(value, int | float) and value < minimum:
        return f"argument {name!r} must be >= {minimum}, got {value!r}"
    maximum = schema.get("maximum")
    if maximum is not None and isinstance(value, int | float) and value > maximum:
        return f"argument {name!r} must be <= {maximum}, got {value!r}"
    min_length = schema.get("minLength")
    if min_length is not None and isinstance(value, str) and len(value) < min_length:
        return f"argument {name!r} must have at least {min_length} character(s), got {value!r}"
    return None


def argument_problems(schema: Mapping[str, Any], arguments: Any) -> list[str]:
    """What is wrong with ``arguments`` under an object ``schema``; empty when valid.

    Checks ``required``, ``additionalProperties: false`` and, per property, ``type``,
    ``minimum``, ``maximum`` and ``minLength``: the subset the tools here use.
    """
    if not isinstance(arguments, Mapping):
        return [f"arguments must be a JSON object, got {_type_name(arguments)}"]
    properties: Mapping[str, Any] = schema.get("properties", {})
    problems = [
        f"missing required argument {name!r}"
        for name in schema.get("required", ())
        if name not in arguments
    ]
    if schema.get("additionalProperties") is False:
        problems.extend(
            f"unexpected argument {name!r}"
            for name in sorted(str(key) for key in arguments)
            if name not in properties
        )
    for name, prop in properties.items():
        if name in arguments:
            problem = _value_problem(name, arguments[name], prop)
            if problem is not None:
                problems.append(problem)
    return problems


def _signature(spec: ToolSpec) -> str:
    properties: Mapping[str, Any] = spec.input_schema.get("properties", {})
    required = set(spec.input_schema.get("required", ()))
    parts = [
        f"{name}: {prop.get('type', 'any')}{'' if name in required else ' (optional)'}"
        for name, prop in properties.items()
    ]
    return f"{spec.name}({', '.join(parts)})"


class ToolRegistry:
    """The tools offered to the model, and the one place where calls are executed."""

    def __init__(self, tools: Iterable[Tool]) -> None:
        by_name: dict[str, Tool] = {}
        for tool in tools:
            if tool.spec.name in by_name:
                raise ValueError(f"duplicate tool name {tool.spec.name!r}")
            by_name[tool.spec.name] = tool
        self._tools: Mapping[str, Tool] = by_name

    @property
    def specs(self) -> tuple[ToolSpec, ...]:
        """The specs sent to the model, in registration order."""
        return tuple(tool.spec for tool in self._tools.values())

    @property
    def names(self) -> tuple[str, ...]:
        """The tool names, in registration order."""
        return tuple(self._tools)

    def execute(self, call: ToolCall) -> ToolResult:
        """Run ``call`` and return its result; a problem the model caused is an error result.

        Exceptions other than :class:`ToolError` are bugs in a handler and propagate.
        """
        tool = self._tools.get(call.name)
        if tool is None:
            available = ", ".join(self._tools) or "none"
            return ToolResult(
                f"unknown tool {call.name!r}; available tools: {available}", is_error=True
            )
        problems = argument_problems(tool.spec.input_schema, call.arguments)
        if problems:
            return ToolResult(
                f"{call.name}: {'; '.join(problems)}. Expected {_signature(tool.spec)}.",
                is_error=True,
            )
        try:
            return ToolResult(tool.handler(call.arguments))
        except ToolError as exc:
            return ToolResult(f"{call.name}: {exc}", is_error=True)


def to_json(value: Any) -> str:
    """Serialize a tool result the one way this package does: ``ensure_ascii=False``."""
    return json.dumps(value, ensure_ascii=False)


SEARCH_SPEC = ToolSpec(
    name=SEARCH_TOOL,
    description=(
        "Search the local corpus of agent-engineering notes. Returns up to k hits, "
        "best first, each with doc_id, title and a short snippet."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "q": {"type": "string", "minLength": 1, "description": "The search query."},
            "k": {
                "type": "integer",
                "minimum": 1,
                "maximum": 10,
                "description": "How many hits to return (default 3).",
            },
        },
        "required": ["q"],
        "additionalProperties": False,
    },
)
"""The spec of ``search_corpus(q, k=3)``."""

FETCH_SPEC = ToolSpec(
    name=FETCH_TOOL,
    description="Fetch one document of the corpus by its doc_id, with its full text.",
    input_schema={
        "type": "object",
        "properties": {
            "doc_id": {
                "type": "string",
                "minLength": 1,
                "description": "A doc_id returned by search_corpus, such as doc-rag.",
            },
        },
        "required": ["doc_id"],
        "additionalProperties": False,
    },
)
"""The spec of ``fetch_doc(doc_id)``."""


def _search(corpus: Corpus) -> ToolHandler:
    def search_corpus(arguments: Mapping[str, Any]) -> str:
        hits = corpus.search(arguments["q"], arguments.get("k", 3))
        return to_json(
            {
                "hits": [
                    {
                        "doc_id": hit.document.doc_id,
                        "title": hit.document.title,
                        "snippet": hit.document.snippet(),
                    }
                    for hit in hits
                ]
            }
        )

    return search_corpus


def _fetch(corpus: Corpus) -> ToolHandler:
    def fetch_doc(arguments: Mapping[str, Any]) -> str:
        doc_id = arguments["doc_id"]
        doc = corpus.get(doc_id)
        if doc is None:
            raise ToolError(f"unknown doc_id {doc_id!r}; use {SEARCH_TOOL} to find valid doc ids")
        return to_json({"doc_id": doc.doc_id, "title": doc.title, "text": doc.text})

    return fetch_doc


def build_registry(corpus: Corpus | None = None) -> ToolRegistry:
    """The ResearchCopilot tools, ``search_corpus`` then ``fetch_doc``, over ``corpus``.

    Without ``corpus``, the packaged one.
    """
    source = default_corpus() if corpus is None else corpus
    return ToolRegistry([Tool(SEARCH_SPEC, _search(source)), Tool(FETCH_SPEC, _fetch(source))])
