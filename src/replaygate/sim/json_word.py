"""OpenAI's rule for JSON mode without a schema: the conversation must say "json".

The API refuses a ``json_object`` format (Chat Completions' ``response_format``, the
Responses API's ``text.format``) with a 400 unless the word "json", in any case, stands
in the conversation: in a message of Chat Completions (the system's included), in an
input item of the Responses API (its ``instructions`` alone do not count). A Responses
request that continues a conversation (``previous_response_id``, ``conversation``) is
not checked: the word may stand in an earlier turn the server holds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from replaygate.sim.validation import Invalid

CHAT_MESSAGE = (
    "'messages' must contain the word 'json' in some form, to use 'response_format' of type "
    "'json_object'."
)
RESPONSES_MESSAGE = (
    "Response input messages must contain the word 'json' in some form to use 'text.format' "
    "of type 'json_object'."
)


def chat_json_word(body: Mapping[str, Any]) -> Invalid | None:
    """The refusal of a Chat Completions request in JSON mode whose messages never say "json"."""
    given = body.get("response_format")
    if not _json_object(given) or _says_json(body.get("messages")):
        return None
    return Invalid(CHAT_MESSAGE, "messages")


def responses_json_word(body: Mapping[str, Any]) -> Invalid | None:
    """The refusal of a Responses API request in JSON mode whose input never says "json"."""
    text = body.get("text")
    given = text.get("format") if isinstance(text, Mapping) else None
    continued = body.get("previous_response_id") or body.get("conversation") is not None
    if not _json_object(given) or continued:
        return None
    return None if _says_json(body.get("input")) else Invalid(RESPONSES_MESSAGE, "text.format")


def _json_object(given: Any) -> bool:
    return isinstance(given, Mapping) and given.get("type") == "json_object"


def _says_json(value: Any) -> bool:
    """Whether any text in ``value`` (a JSON value) holds the word "json", in any case."""
    if isinstance(value, str):
        return "json" in value.casefold()
    if isinstance(value, Mapping):
        return any(map(_says_json, value.values()))
    if isinstance(value, list):
        return any(map(_says_json, value))
    return False
