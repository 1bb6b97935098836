"""The request fields OpenAI's Chat Completions and Responses API take, and their refusal
of any other.

The API answers a field it does not know with a 400 ``unknown_parameter`` naming it
(``Unknown parameter: 'reasoning_efort'.``), and a Chat Completions field sent to the
Responses API, where it is named otherwise, with ``unsupported_parameter`` naming the
field to send instead (``messages`` is ``input`` there). A recording from a server that
took such a field would fail on its first live request. Only requests for OpenAI's own
models are checked (``gpt-4o``, ``o4-mini``, ``gpt-5-mini``, a fine-tune of one): an
OpenAI-compatible server reached through the same route (a local model, DeepSeek, a
gateway naming ``openai/gpt-4o``, an Azure deployment) takes fields of its own.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from replaygate.sim.validation import Invalid

_SHARED = frozenset(
    {
        "metadata",
        "model",
        "moderation",
        "parallel_tool_calls",
        "prompt_cache_key",
        "prompt_cache_options",
        "prompt_cache_retention",
        "safety_identifier",
        "service_tier",
        "store",
        "stream",
        "stream_options",
        "temperature",
        "tool_choice",
        "tools",
        "top_logprobs",
        "top_p",
        "user",
    }
)

CHAT_PARAMS = _SHARED | {
    "audio",
    "frequency_penalty",
    "function_call",
    "functions",
    "logit_bias",
    "logprobs",
    "max_completion_tokens",
    "max_tokens",
    "messages",
    "modalities",
    "n",
    "prediction",
    "presence_penalty",
    "reasoning_effort",
    "response_format",
    "seed",
    "stop",
    "verbosity",
    "web_search_options",
}
"""The fields of a Chat Completions request (the openai SDK's ``CompletionCreateParams``)."""

RESPONSES_PARAMS = _SHARED | {
    "access_programs",
    "background",
    "background_options",
    "context_management",
    "conversation",
    "frequency_penalty",
    "image",
    "include",
    "input",
    "instructions",
    "max_output_tokens",
    "max_tool_calls",
    "presence_penalty",
    "previous_response_id",
    "prompt",
    "reasoning",
    "text",
    "truncation",
}
"""The fields of a Responses API request (the openai SDK's ``ResponseCreateParams``, and
the penalties the API takes too)."""

MOVED_IN_RESPONSES = {
    "messages": "input",
    "reasoning_effort": "reasoning.effort",
    "response_format": "text.format",
    "max_completion_tokens": "max_output_tokens",
    "max_tokens": "max_output_tokens",
}
"""Chat Completions fields the Responses API names otherwise: what to send instead."""

NESTED_PARAMS: dict[str, dict[str, frozenset[str]]] = {
    "chat": {"stream_options": frozenset({"include_usage", "include_obfuscation"})},
    "responses": {
        "stream_options": frozenset({"include_obfuscation"}),
        "text": frozenset({"format", "verbosity"}),
        "reasoning": frozenset({"context", "effort", "generate_summary", "mode", "summary"}),
    },
}
"""The fields of each API's objects checked as strictly as the request's own (the
Responses API reports usage in its ``response.completed`` event, and takes no
``stream_options.include_usage``)."""

_OPENAI_MODEL = re.compile(r"(?:ft:)?(?:gpt-|chatgpt-|o[1-9])")
"""OpenAI's model names (a provider prefix, ``openai/``, is another server's naming)."""

_RESPONSES_REFERENCE = "https://platform.openai.com/docs/api-reference/responses/create"


def _unknown(param: str) -> Invalid:
    return Invalid(f"Unknown parameter: '{param}'.", param, "unknown_parameter")


def unknown_param(body: Mapping[str, Any], api: str) -> Invalid | None:
    """The API's refusal of the first field of ``body`` (a request to ``api``, ``chat`` or
    ``responses``) that it does not take, for one of OpenAI's models; else None."""
    if not _OPENAI_MODEL.match(str(body.get("model"))):
        return None
    known = CHAT_PARAMS if api == "chat" else RESPONSES_PARAMS
    for name in body:
        if name in known:
            continue
        instead = MOVED_IN_RESPONSES.get(name) if api == "responses" else None
        if instead is not None:
            return Invalid(
                f"Unsupported parameter: '{name}'. In the Responses API, this parameter has "
                f"moved to '{instead}'. Try again with the new parameter. See the API "
                f"documentation for more information: {_RESPONSES_REFERENCE}.",
                None,
                "unsupported_parameter",
            )
        return _unknown(name)
    for field, taken in NESTED_PARAMS[api].items():
        given = body.get(field)
        for name in given if isinstance(given, Mapping) else ():
            if name not in taken:
                return _unknown(f"{field}.{name}")
    return None
