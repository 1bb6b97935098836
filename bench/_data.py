"""Deterministic generators of realistic fixtures for the benchmarks.

Each conversation is a ResearchCopilot-like exchange in the Anthropic Messages shape:
a system prompt, two tools with JSON schemas, a question, a search call and its
result, a fetch call and its result. A fixture line (``Fixture.to_line``) is about 2 KB.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from replaygate.fixtures.fixture import Fixture
from replaygate.models.providers import to_anthropic_request, to_anthropic_response
from replaygate.models.types import Message, ModelResponse, ToolCall, ToolSpec, Usage

MODEL = "claude-sonnet-4-5"
MAX_TOKENS = 1024
SYSTEM = "You are a careful research assistant. Cite every claim as [doc-id]."

TOOLS = (
    ToolSpec(
        "search_corpus",
        "Search the local corpus of agent-engineering notes; returns ranked hits.",
        {
            "type": "object",
            "properties": {
                "q": {"type": "string", "description": "the search query"},
                "k": {"type": "integer", "minimum": 1, "maximum": 10, "default": 3},
            },
            "required": ["q"],
        },
    ),
    ToolSpec(
        "fetch_doc",
        "Fetch the full text of one document by its id.",
        {
            "type": "object",
            "properties": {"doc_id": {"type": "string", "description": "e.g. doc-rag"}},
            "required": ["doc_id"],
        },
    ),
)

_TEXT = (
    "retrieval augmented generation grounds answers in fetched documents; tool use lets "
    "the model call functions; fixtures record one request and its response; replay "
    "makes tests deterministic; evaluation scores outputs against expectations; a CI "
    "gate fails on a drop; sampling repeats a case; 检索增强生成 先检索再生成"
)
_WORDS = tuple(_TEXT.split(" "))


def _sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(n))


def conversation(i: int) -> list[Message]:
    """The conversation of fixture ``i`` (deterministic in ``i``)."""
    rng = random.Random(i)
    doc = f"doc-{i:06d}"
    question = f"Question {i}: {_sentence(rng, 12)}?"
    hits = ", ".join(
        f'{{"doc_id": "doc-{rng.randrange(10**6):06d}", "snippet": "{_sentence(rng, 8)}"}}'
        for _ in range(3)
    )
    return [
        Message.user(question),
        Message.assistant(
            "Let me search the corpus.",
            [ToolCall(f"toolu_s{i}", "search_corpus", {"q": _sentence(rng, 3), "k": 3})],
        ),
        Message.tool_result(f"toolu_s{i}", f'{{"hits": [{hits}]}}'),
        Message.assistant("", [ToolCall(f"toolu_f{i}", "fetch_doc", {"doc_id": doc})]),
        Message.tool_result(
            f"toolu_f{i}", f'{{"doc_id": "{doc}", "text": "{_sentence(rng, 16)}"}}'
        ),
    ]


def request(i: int) -> dict[str, Any]:
    """The Anthropic request of fixture ``i``."""
    return to_anthropic_request(
        conversation(i), TOOLS, model=MODEL, max_tokens=MAX_TOKENS, system=SYSTEM
    )


def response(i: int) -> dict[str, Any]:
    """The Anthropic response of fixture ``i``: an answer citing its document."""
    rng = random.Random(-i - 1)
    answer = ModelResponse(
        text=f"{_sentence(rng, 12)} [doc-{i:06d}].",
        stop_reason="end_turn",
        usage=Usage(input_tokens=600 + i % 100, output_tokens=40 + i % 30),
    )
    return to_anthropic_response(answer, model=MODEL, message_id=f"msg_{i:08d}")


def fixture(i: int) -> Fixture:
    """Fixture ``i`` as recording writes it: a meta block like a recorded one, sealed."""
    meta = {
        "interface": "anthropic.messages",
        "recorded_at": "2025-01-01T00:00:00Z",
        "source": "scripted",
    }
    return Fixture.create(request(i), [response(i)], meta).sealed()


def write_jsonl(path: Path, n: int) -> int:
    """Write a JSONL store of fixtures ``0..n-1`` at ``path``; returns its size in bytes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        for i in range(n):
            handle.write(fixture(i).to_line())
    return path.stat().st_size
