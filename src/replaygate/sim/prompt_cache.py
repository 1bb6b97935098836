"""The Messages API's prompt cache, as far as the simulator speaks of it.

The simulator keeps no cache: what it would read from one hangs on the order requests
arrive in, and a seeded recording must not. So it answers as the API answers a request
that caches nothing, with the cache's counts in its usage at 0 (code summing
``usage.cache_read_input_tokens`` gets a number, as live, not None), and refuses what
the API refuses of ``cache_control``: more than :data:`MAX_BREAKPOINTS` blocks marked.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from replaygate.sim.validation import Invalid

MAX_BREAKPOINTS = 4
"""The most blocks of one request the API takes ``cache_control`` on."""


def uncached_usage(usage: Mapping[str, Any]) -> dict[str, Any]:
    """``usage`` (input and output tokens) with the fields the API adds to it, those of a
    request that read nothing from the cache and wrote nothing to it."""
    return {
        "input_tokens": usage["input_tokens"],
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
        "output_tokens": usage["output_tokens"],
        "service_tier": "standard",
    }


def _marked(body: Mapping[str, Any]) -> Iterator[Any]:
    """The blocks of ``body`` that may carry ``cache_control``: its tools, its system
    blocks, its messages' content blocks and the blocks of a tool result's content."""
    for name in ("tools", "system"):
        items = body.get(name)
        if isinstance(items, list):
            yield from items
    messages = body.get("messages")
    for message in messages if isinstance(messages, list) else []:
        content = message.get("content") if isinstance(message, Mapping) else None
        for block in content if isinstance(content, list) else []:
            yield block
            inner = block.get("content") if isinstance(block, Mapping) else None
            if isinstance(inner, list):
                yield from inner


def too_many_breakpoints(body: Mapping[str, Any]) -> Invalid | None:
    """The API's refusal of a request marking more than :data:`MAX_BREAKPOINTS` blocks
    with ``cache_control``, or None."""
    found = sum(
        1
        for block in _marked(body)
        if isinstance(block, Mapping) and block.get("cache_control") is not None
    )
    if found <= MAX_BREAKPOINTS:
        return None
    return Invalid(
        f"A maximum of {MAX_BREAKPOINTS} blocks with cache_control may be provided. Found {found}."
    )
