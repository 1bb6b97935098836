"""Request pieces in the providers' wire shapes, shared by the SDK-level tests."""

from __future__ import annotations

from typing import Any

QUESTION: list[dict[str, Any]] = [
    {"role": "user", "content": "Tell me about keep-alive connections, briefly."}
]
SEARCH_SCHEMA: dict[str, Any] = {"type": "object", "properties": {"q": {"type": "string"}}}
ANTHROPIC_TOOL: dict[str, Any] = {
    "name": "search_corpus",
    "description": "Search the corpus.",
    "input_schema": SEARCH_SCHEMA,
}
OPENAI_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "search_corpus",
        "description": "Search the corpus.",
        "parameters": SEARCH_SCHEMA,
    },
}


def chat_tool_call_turn(call_id: str, name: str) -> dict[str, Any]:
    """A Chat Completions assistant message calling the function ``name`` (no arguments)."""
    return {
        "role": "assistant",
        "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}
        ],
    }


EMPTY_ANSWER: dict[str, Any] = {
    "type": "message",
    "role": "assistant",
    "content": [],
    "stop_reason": "end_turn",
    "usage": {"input_tokens": 1, "output_tokens": 1},
}
"""A Messages API answer of no content, with the token counts every answer carries."""


def text_answer(text: str) -> dict[str, Any]:
    """A Messages API answer whose one block is the text ``text``."""
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
