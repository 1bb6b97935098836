"""The interfaces a request's path serves, told by how the path ends: read by the HTTP
envelope, the sanitizer and the hygiene commands alike."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeGuard

INTERFACES: tuple[tuple[str, str], ...] = (
    ("/v1/messages", "anthropic.messages"),
    ("/chat/completions", "openai.chat.completions"),
    ("/responses", "openai.responses"),
    (":generateContent", "google.generate_content"),
    (":streamGenerateContent", "google.generate_content"),
)
"""Path endings and the interface they serve; any other path is ``http``."""


def interface_of(path: str) -> str:
    """The interface an envelope path serves: ``anthropic.messages``, ... or ``http``."""
    bare = path.split("?", 1)[0].rstrip("/")
    for ending, interface in INTERFACES:
        if bare.endswith(ending):
            return interface
    return "http"


GEMINI = "google.generate_content"
"""The interface of Gemini's ``generateContent`` and ``streamGenerateContent``."""


def array_stream(body: Any, interface: str) -> TypeGuard[list[Any]]:
    """Whether ``body``, a response of ``interface``, is a stream sent as one JSON array of
    its chunks: Gemini's ``:streamGenerateContent`` asked for without ``alt=sse`` (a
    ``curl`` command, a client of another language) answers so, where the SDKs read
    server-sent events."""
    return interface == GEMINI and isinstance(body, list)


def json_rpc(body: Any) -> bool:
    """Whether ``body``, a request's JSON, is a JSON-RPC 2.0 message or a batch of them
    (``{"jsonrpc": "2.0", "method": "tools/call", ...}``): what an MCP client sends its
    server over HTTP (``initialize``, ``tools/list``, ``tools/call``), which no model API
    speaks."""
    items = body if isinstance(body, list) and body else [body]
    return all(isinstance(item, Mapping) and item.get("jsonrpc") == "2.0" for item in items)
