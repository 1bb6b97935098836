"""Telling a server's "no such route" 404 from an API error about a resource.

A model API answers 404 for a resource it does not have (a model, a previous
response), with its error object naming it; such an answer is worth recording. A
404 for the route itself (a path the server does not serve: an older server, a
proxy, a wrong base URL) is not a model reply, and a recording must not keep it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from replaygate.http.envelope import is_model_api

ROUTE_PREFIX = "Invalid URL"
"""How OpenAI's error message begins for a route it does not serve (``Invalid URL
(POST /v1/x)``); Anthropic's says ``Not Found`` and nothing else."""


def _error_message(body: Any) -> str | None:
    """The ``error.message`` of a JSON error body, or None when the body is not one."""
    error = body.get("error") if isinstance(body, Mapping) else None
    message = error.get("message") if isinstance(error, Mapping) else None
    return message if isinstance(message, str) else None


def unserved_route(path: str, record: Mapping[str, Any]) -> bool:
    """Whether ``record`` (a recorded HTTP response to ``path``) is a 404 for the route.

    It is when the path is no model API's (an interface's, or one such as OpenAI's
    Conversations API, whose 404 for a conversation it does not hold is an API error),
    when the body is not an API error object, or when that error's message is a
    provider's unknown-route wording.
    """
    if record.get("status") != 404:
        return False
    if not is_model_api(path):
        return True
    message = _error_message(record.get("body"))
    return message is None or message.startswith(ROUTE_PREFIX) or message == "Not Found"
