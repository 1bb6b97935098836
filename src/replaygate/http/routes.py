"""Telling the answers a recording must not keep from a model API's answers.

A model API answers 404 for a resource it does not have (a model, a previous
response), with its error object naming it; such an answer is worth recording. A
404 for the route itself (a path the server does not serve: an older server, a
proxy, a wrong base URL) is not a model reply, and a recording must not keep it.

Nor is an error replaygate's simulator makes of its own accord, marked
:data:`SIMULATOR_REFUSAL` in its body (a ``script:`` behaviour run out of lines, a
behaviour that raised, a value it cannot make): that is a problem of the recording
run, which a fixture would replay long after it was fixed. The faults the simulator
is asked to play (429, 500, 529) are answers like a real server's, and are kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from replaygate.http.envelope import is_model_api

ROUTE_PREFIX = "Invalid URL"
"""How OpenAI's error message begins for a route it does not serve (``Invalid URL
(POST /v1/x)``); Anthropic's says ``Not Found`` and nothing else."""

SIMULATOR_REFUSAL = "replaygate_simulator_refusal"
"""The field (``true``) of an error body with which replaygate's simulator marks an
error of its own, not a model's answer."""


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


def simulator_refusal(record: Mapping[str, Any]) -> str | None:
    """The simulator's message when ``record`` (a recorded HTTP response) is an error the
    simulator made of its own accord (:data:`SIMULATOR_REFUSAL`), else None."""
    body = record.get("body")
    if not isinstance(body, Mapping) or body.get(SIMULATOR_REFUSAL) is not True:
        return None
    return _error_message(body) or "the simulator gave no message"
