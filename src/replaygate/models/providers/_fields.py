"""Typed field access on wire dicts, with errors that name the field path."""

from __future__ import annotations

from collections.abc import Mapping
from difflib import get_close_matches
from typing import Any, TypeVar

from replaygate.errors import WireFormatError
from replaygate.models.types import ModelResponse, Usage

T = TypeVar("T")


def field_of(obj: Mapping[str, Any], name: str, kind: type[T], path: str) -> T:
    """``obj[name]`` checked to be a ``kind``; a :class:`WireFormatError` naming the path if not."""
    if not isinstance(obj, Mapping):
        raise WireFormatError(path, f"expected an object, got {type(obj).__name__}")
    if name not in obj:
        raise WireFormatError(f"{path}.{name}", "missing field")
    value = obj[name]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise WireFormatError(
            f"{path}.{name}", f"expected {kind.__name__}, got {type(value).__name__}"
        )
    return value


def optional_field(obj: Mapping[str, Any], name: str, kind: type[T], path: str, default: T) -> T:
    """Like :func:`field_of`, but a missing or null field gives ``default``."""
    if isinstance(obj, Mapping) and obj.get(name) is None:
        return default
    return field_of(obj, name, kind, path)


def kind_of(item: Mapping[str, Any], read: tuple[str, ...], path: str) -> str:
    """``item["type"]``, a string; a :class:`WireFormatError` naming the field when it is
    not one of the types ``read`` but a misspelling of one (``tool_usee``, ``Text``): the
    item would be passed over as of a type the engine does not read. Any other type (a
    newer API's) is returned as it is."""
    kind = field_of(item, "type", str, path)
    if kind not in read:
        near = get_close_matches(kind.lower(), read, n=1, cutoff=0.85)
        if near:
            raise WireFormatError(
                f"{path}.type",
                f"unknown type {kind!r} ({near[0]!r} misspelt?): it would be passed over",
            )
    return kind


USAGE_NEEDED = (
    "the API sends it with every answer, and an answer without its token counts (a hand "
    "edit) would replay as a call that cost nothing"
)


def read_usage(
    response: Mapping[str, Any],
    field: str,
    input_name: str,
    output_name: str,
    *,
    output_omitted_at_zero: bool = False,
    billed_as_output: tuple[str, ...] = (),
    billed_as_input: tuple[str, ...] = (),
) -> Usage:
    """The token counts of ``response[field]``; a :class:`WireFormatError` naming a
    count that is missing, not an integer, or negative (a hand edit: it would lower what a
    run is said to cost). ``output_omitted_at_zero``: the API leaves the output count out
    when it is 0 (Gemini, for a prompt it blocked). ``billed_as_output``: counts the API
    gives apart from ``output_name`` but bills as output (Gemini's thinking tokens), added
    to it when present; ``billed_as_input`` likewise for the input (what Gemini's own tools
    gave the model)."""
    path = f"response.{field}"
    if response.get(field) is None:
        raise WireFormatError(path, f"missing: {USAGE_NEEDED}")
    usage = field_of(response, field, dict, "response")
    counts = []
    for name in (input_name, output_name, *billed_as_output, *billed_as_input):
        required = name == input_name or (name == output_name and not output_omitted_at_zero)
        if required and usage.get(name) is None:
            raise WireFormatError(f"{path}.{name}", f"missing: {USAGE_NEEDED}")
        count = optional_field(usage, name, int, path, 0)
        if count < 0:
            raise WireFormatError(f"{path}.{name}", f"a count of tokens, 0 or more, got {count}")
        counts.append(count)
    inputs = len(counts) - len(billed_as_input)
    return Usage(input_tokens=counts[0] + sum(counts[inputs:]), output_tokens=sum(counts[1:inputs]))


def unpaused(response: ModelResponse, interface: str) -> None:
    """``ValueError`` for a ``pause_turn`` answer written as an ``interface`` response: only
    the Anthropic Messages API pauses a turn, and no stop of another API means it."""
    if response.stop_reason == "pause_turn":
        raise ValueError(
            f"stop_reason 'pause_turn' has no {interface} form: only the Anthropic Messages "
            "API (anthropic.messages) pauses a turn, for the caller to send it back; give "
            "this answer another stop_reason, or answer it as anthropic.messages"
        )


def says_refusal(response: ModelResponse) -> bool:
    """Whether ``response`` is a refusal in words, which OpenAI's APIs give as a refusal
    (a message's ``refusal``, a ``refusal`` part) where a refusal without words is their
    content filter's."""
    return response.stop_reason == "refusal" and bool(response.text)
