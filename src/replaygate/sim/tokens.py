"""The simulator's rough token counts: 4 characters a token, of the conversation only (not
of its wire format), so every API and a stream report the same."""

from __future__ import annotations

from collections.abc import Sequence

import orjson

from replaygate import exact_json
from replaygate.models.types import Message, ToolCall, ToolSpec


def tokens(chars: int) -> int:
    """The tokens of ``chars`` characters (at least 1)."""
    return max(1, (chars + 3) // 4)


def calls_size(calls: Sequence[ToolCall]) -> int:
    """The characters of tool calls: their names and arguments as JSON."""
    return sum(len(c.name) + len(exact_json.dumps(dict(c.arguments))) for c in calls)


def input_tokens(messages: Sequence[Message], tools: Sequence[ToolSpec], system: str | None) -> int:
    """The rough token count of a conversation, as an answer's usage reports it and
    ``count_tokens`` answers it."""
    size = len(system or "") + sum(len(m.content) + calls_size(m.tool_calls) for m in messages)
    size += sum(
        len(t.name) + len(t.description) + len(orjson.dumps(dict(t.input_schema))) for t in tools
    )
    return tokens(size)
