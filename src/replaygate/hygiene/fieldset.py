"""Field sets of recorded responses: every key path, arrays by the union of their items.

``{"content": [{"type": "text", "text": "hi"}], "usage": {"input_tokens": 3}}`` has the
fields ``content``, ``content[].type``, ``content[].text``, ``usage`` and
``usage.input_tokens``. A streamed HTTP response contributes the fields of each
event's JSON data under ``events[<event name>]``. A key that is no plain name (a dot,
a bracket, a space, a control character) is one step, a JSON string in brackets:
``usage["a.b"]``.

A tool call's arguments are model output, not API shape: the object an Anthropic
``tool_use`` block holds as ``input`` and Gemini's ``functionCall.args`` are opaque
values (``content[].input`` is a field, ``content[].input.q`` is not), so a model that
calls a tool with other arguments is not a change of the API. OpenAI's arguments are a
JSON string, opaque already.

A shape (:func:`response_shape`) is the field set with the JSON types met at each path
(``usage.input_tokens``: ``number``), so that drift sees a value that turned null.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeAlias

import orjson

from replaygate.errors import WireFormatError
from replaygate.fixtures.fixture import Fixture, is_envelope
from replaygate.http.recorded import replayed
from replaygate.interfaces import INTERFACES, interface_of
from replaygate.json_paths import path_step

TOOL_USE_TYPES = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})
"""Anthropic content block types whose ``input`` holds a tool call's arguments."""


def arguments_key(node: dict[Any, Any], name: str | None) -> str | None:
    """The key of ``node`` that holds a tool call's arguments, if ``node`` is a tool call.

    ``name`` is the key ``node`` sits under in its parent (a list's items inherit it):
    ``input`` of an Anthropic tool use block, ``args`` of a Gemini ``functionCall``.
    """
    if node.get("type") in TOOL_USE_TYPES:
        return "input"
    if name == "functionCall":
        return "args"
    return None


_EVENT = re.compile(r"[A-Za-z0-9_.$@:/-]*")
"""An event name shown as it is in its brackets (``events[response.output_text.delta]``);
any other is shown as a JSON string."""


Shape: TypeAlias = "dict[str, set[str]]"
"""Every key path of a value, with the JSON types of the values met at it."""


def json_type(value: Any) -> str:
    """The JSON type of ``value``: null, boolean, number, string, array or object."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list | tuple) else "object"


def _collect(value: Any, prefix: str, name: str | None, found: Shape) -> None:
    if isinstance(value, dict):
        opaque = arguments_key(value, name)
        for key, child in value.items():
            path = path_step(prefix, str(key))
            found.setdefault(path, set()).add(json_type(child))
            if key != opaque:
                _collect(child, path, str(key), found)
    elif isinstance(value, list):
        for item in value:
            _collect(item, f"{prefix}[]", name, found)


def field_paths(value: Any, prefix: str = "") -> set[str]:
    """Every key path in ``value``; a list's items share the path ``prefix[]``.

    A tool call's arguments (:func:`arguments_key`) are one opaque field: their own
    keys are model output, not paths.
    """
    return set(field_shape(value, prefix))


def field_shape(value: Any, prefix: str = "") -> Shape:
    """:func:`field_paths` with the JSON types met at each path."""
    found: Shape = {}
    _collect(value, prefix, None, found)
    return found


def merge_shape(into: Shape, shape: Shape) -> None:
    """Add the paths and types of ``shape`` to ``into``."""
    for path, types in shape.items():
        into.setdefault(path, set()).update(types)


KNOWN_INTERFACES = tuple(name for _, name in INTERFACES)


def base_interface(name: str) -> str:
    """The known interface ``name`` names, a version suffix dropped; else ``name``."""
    for known in KNOWN_INTERFACES:
        if name == known or (name.startswith(known) and not name[len(known)].isalnum()):
            return known
    return name


UNKNOWN = "unknown"
"""The interface of a fixture that names none (no ``meta``) and is no HTTP envelope."""


def interface_of_fixture(fixture: Fixture) -> str:
    """``meta.interface`` (see :func:`base_interface`), else the envelope path's, else unknown."""
    interface = (fixture.meta or {}).get("interface")
    if isinstance(interface, str) and interface:
        return base_interface(interface)
    if is_envelope(fixture.request):
        return interface_of(str(fixture.request["path"]))
    return UNKNOWN


def _event_shape(events: list[Any]) -> Shape:
    found: Shape = {}
    for event in events:
        if not isinstance(event, dict):
            continue
        try:
            data = orjson.loads(str(event.get("data", "")))
        except orjson.JSONDecodeError:
            continue
        name = str(event.get("event") or "")
        shown = name if _EVENT.fullmatch(name) else json.dumps(name)
        merge_shape(found, field_shape(data, f"events[{shown}]"))
    return found


def response_fields(response: Any, *, envelope: bool) -> set[str]:
    """The field set of one recorded response (an HTTP record's body or events)."""
    return set(response_shape(response, envelope=envelope))


def response_shape(response: Any, *, envelope: bool) -> Shape:
    """:func:`response_fields` with the JSON types met at each path."""
    if not envelope:
        return field_shape(response)
    if not isinstance(response, dict):
        return {}
    if isinstance(response.get("events"), list):
        return _event_shape(response["events"])
    return field_shape(response.get("body"))


def not_json_answer(request: dict[str, Any], response: Any) -> str | None:
    """Why the recorded answer ``response`` to the HTTP request ``request`` is not a JSON
    object (a proxy's HTML page, kept as text), said as the live check says it of a live
    answer; None when it is one, is a stream, or is a wire fixture's answer."""
    if not is_envelope(request) or not isinstance(response, dict) or "events" in response:
        return None
    if isinstance(response.get("body"), dict):
        return None
    from replaygate.models.live import not_json_object

    try:
        answer = replayed(response)
    except WireFormatError as err:
        return f"the recorded answer is no HTTP response ({err})"
    url = f"{request.get('host') or ''}{request['path']}"
    content_type = dict(answer.headers).get("content-type")
    return not_json_object(str(request["method"]), url, answer.status, content_type, answer.body)


def fixture_fields(fixture: Fixture) -> set[str]:
    """The union of the field sets of a fixture's recorded responses."""
    envelope = is_envelope(fixture.request)
    found: set[str] = set()
    for response in fixture.responses:
        if response is not None:
            found |= response_fields(response, envelope=envelope)
    return found
