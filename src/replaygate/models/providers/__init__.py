"""Converters between the engine contract and each provider's wire shapes (pure functions).

:data:`INTERFACES` names each wire shape (``anthropic.messages``,
``openai.chat.completions``, ``openai.responses``, ``google.generate_content``) with
its version and its four converters, so replay and recording are written once for every provider.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from replaygate.models.providers import anthropic, google_gemini, openai_chat, openai_responses
from replaygate.models.providers._fields import kind_of
from replaygate.models.providers.anthropic import (
    from_anthropic_request,
    from_anthropic_response,
    to_anthropic_request,
    to_anthropic_response,
)
from replaygate.models.providers.google_gemini import (
    from_gemini_request,
    from_gemini_response,
    to_gemini_request,
    to_gemini_response,
)
from replaygate.models.providers.openai_chat import (
    from_openai_request,
    from_openai_response,
    to_openai_request,
    to_openai_response,
)
from replaygate.models.providers.openai_responses import (
    from_responses_request,
    from_responses_response,
    to_responses_request,
    to_responses_response,
)
from replaygate.models.types import Message, ModelResponse, ToolSpec


@dataclass(frozen=True)
class Interface:
    """A wire shape at a version, with its request and response converters."""

    name: str
    version: str
    to_request: Callable[..., dict[str, Any]]
    from_request: Callable[[Mapping[str, Any]], tuple[list[Message], list[ToolSpec], str | None]]
    to_response: Callable[..., dict[str, Any]]
    from_response: Callable[[Mapping[str, Any]], ModelResponse]

    def build_request(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        *,
        model: str,
        max_tokens: int,
        system: str | None,
    ) -> dict[str, Any]:
        """The wire request for a conversation under these settings."""
        return self.to_request(messages, tools, model=model, max_tokens=max_tokens, system=system)

    def render_response(self, response: ModelResponse, *, model: str) -> dict[str, Any]:
        """The wire response body for an engine response."""
        return self.to_response(response, model=model)


ANTHROPIC = Interface(
    anthropic.INTERFACE,
    anthropic.API_VERSION,
    to_anthropic_request,
    from_anthropic_request,
    to_anthropic_response,
    from_anthropic_response,
)
OPENAI_CHAT = Interface(
    openai_chat.INTERFACE,
    "v1",
    to_openai_request,
    from_openai_request,
    to_openai_response,
    from_openai_response,
)
OPENAI_RESPONSES = Interface(
    openai_responses.INTERFACE,
    openai_responses.API_VERSION,
    to_responses_request,
    from_responses_request,
    to_responses_response,
    from_responses_response,
)
GEMINI = Interface(
    google_gemini.INTERFACE,
    google_gemini.API_VERSION,
    to_gemini_request,
    from_gemini_request,
    to_gemini_response,
    from_gemini_response,
)
INTERFACES: dict[str, Interface] = {
    i.name: i for i in (ANTHROPIC, OPENAI_CHAT, OPENAI_RESPONSES, GEMINI)
}
_ALIASES = {"anthropic": ANTHROPIC.name, "openai": OPENAI_CHAT.name, "gemini": GEMINI.name}


def get_interface(name: str) -> Interface:
    """The interface called ``name`` (``anthropic``, ``openai`` and ``gemini`` are accepted as
    short names)."""
    full = _ALIASES.get(name, name)
    if full not in INTERFACES:
        known = ", ".join(sorted(INTERFACES))
        raise ValueError(f"unknown interface {name!r}; known interfaces: {known}")
    return INTERFACES[full]


__all__ = [
    "ANTHROPIC",
    "GEMINI",
    "INTERFACES",
    "OPENAI_CHAT",
    "OPENAI_RESPONSES",
    "Interface",
    "from_anthropic_request",
    "from_anthropic_response",
    "from_gemini_request",
    "from_gemini_response",
    "from_openai_request",
    "from_openai_response",
    "from_responses_request",
    "from_responses_response",
    "get_interface",
    "kind_of",
    "to_anthropic_request",
    "to_anthropic_response",
    "to_gemini_request",
    "to_gemini_response",
    "to_openai_request",
    "to_openai_response",
    "to_responses_request",
    "to_responses_response",
]
