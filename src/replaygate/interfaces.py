"""The interfaces a request's path serves, told by how the path ends: read by the HTTP
envelope, the sanitizer and the hygiene commands alike."""

from __future__ import annotations

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
