"""The simulator's request handling, independent of sockets.

:class:`SimApp` turns one HTTP request (method, path, headers, body) into a
:class:`~replaygate.sim.replies.Reply`: route, draw a fault, authenticate, validate,
ask the behaviour, render the provider's wire shape, stream it if asked, drift it.
A 429, 500 or 529 fault answers before the behaviour is asked; ``slow``,
``cut-stream`` and ``sse-error`` change how its answer is delivered. It is not
thread-safe; the server calls it from its one event loop.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from replaygate.errors import ScriptExhaustedError, WireFormatError
from replaygate.http.sse import SSEEvent
from replaygate.models.providers.anthropic import from_anthropic_request, to_anthropic_response
from replaygate.models.providers.openai_chat import from_openai_request, to_openai_response
from replaygate.models.types import Message, ModelResponse, ToolCall, ToolSpec, Usage
from replaygate.sim.behaviors import Behavior
from replaygate.sim.drift import DriftPlan
from replaygate.sim.faults import FaultKind, FaultPlan
from replaygate.sim.replies import (
    Provider,
    Reply,
    anthropic_error,
    json_reply,
    openai_error,
    status_error,
    stream_reply,
)
from replaygate.sim.streaming import (
    DEFAULT_CHUNK,
    anthropic_error_event,
    anthropic_events,
    openai_chunks,
)
from replaygate.sim.validation import (
    Invalid,
    anthropic_authenticated,
    openai_authenticated,
    validate_anthropic,
    validate_openai,
)

log = logging.getLogger(__name__)

ROUTES: dict[str, Provider] = {
    "/v1/messages": "anthropic",
    "/v1/chat/completions": "openai",
}


def _tokens(chars: int) -> int:
    return max(1, (chars + 3) // 4)


def _calls_size(calls: Sequence[ToolCall]) -> int:
    return sum(len(c.name) + len(orjson.dumps(dict(c.arguments))) for c in calls)


def estimate_usage(
    response: ModelResponse,
    messages: Sequence[Message],
    tools: Sequence[ToolSpec],
    system: str | None,
) -> ModelResponse:
    """``response`` with rough token counts (4 characters a token) when it carries none.

    The counts depend on the conversation only, not on its wire format or on
    ``stream``, so a streamed answer reports the same usage as a plain one.
    """
    if response.usage != Usage():
        return response
    size = len(system or "") + sum(len(m.content) + _calls_size(m.tool_calls) for m in messages)
    size += sum(
        len(t.name) + len(t.description) + len(orjson.dumps(dict(t.input_schema))) for t in tools
    )
    output = len(response.text) + _calls_size(response.tool_calls)
    usage = Usage(input_tokens=_tokens(size), output_tokens=_tokens(output))
    return ModelResponse(response.text, response.tool_calls, response.stop_reason, usage)


def _guess_provider(headers: Mapping[str, str]) -> Provider:
    if "x-api-key" in headers or "anthropic-version" in headers:
        return "anthropic"
    return "openai" if "authorization" in headers else "anthropic"


class SimApp:
    """Answers requests with a behaviour, faults and drift; keeps the id counters."""

    def __init__(
        self,
        behavior: Behavior,
        *,
        seed: int = 0,
        faults: FaultPlan | None = None,
        drift: DriftPlan | None = None,
        chunk_size: int = DEFAULT_CHUNK,
    ) -> None:
        self.behavior = behavior
        self.faults = faults or FaultPlan()
        self.drift = drift or DriftPlan()
        self.chunk_size = chunk_size
        self._drawer = self.faults.drawer(seed)
        self._requests = 0
        self._responses: dict[Provider, int] = {"anthropic": 0, "openai": 0}

    def _request_id(self) -> str:
        self._requests += 1
        return f"req_sim_{self._requests:04d}"

    def _response_id(self, provider: Provider) -> str:
        self._responses[provider] += 1
        number = self._responses[provider]
        return f"msg_sim_{number:04d}" if provider == "anthropic" else f"chatcmpl-sim-{number:04d}"

    def handle(self, method: str, path: str, headers: Mapping[str, str], body: bytes) -> Reply:
        """The reply to one request; ``headers`` has lower-case names."""
        request_id = self._request_id()
        route = path.split("?", 1)[0].rstrip("/")
        provider = ROUTES.get(route)
        if provider is None:
            guess = _guess_provider(headers)
            message = None if guess == "anthropic" else f"Invalid URL ({method} {route})"
            return status_error(guess, 404, request_id, message=message)
        if method != "POST":
            message = None if provider == "anthropic" else f"Invalid URL ({method} {route})"
            return status_error(provider, 405, request_id, message=message)
        fault = self._drawer.next()
        authenticated = (
            anthropic_authenticated(headers)
            if provider == "anthropic"
            else openai_authenticated(headers)
        )
        if not authenticated:
            return status_error(provider, 401, request_id)
        reply = self._answer(provider, fault, body, request_id)
        if fault == "slow":
            return dataclasses.replace(reply, delay=self.faults.slow_delay)
        return reply

    def _answer(
        self, provider: Provider, fault: FaultKind | None, raw: bytes, request_id: str
    ) -> Reply:
        if fault in ("429", "529"):
            retry = self.faults.retry_after
            return status_error(provider, int(fault), request_id, retry_after=retry)
        if fault == "500":
            return status_error(provider, 500, request_id)
        try:
            body = orjson.loads(raw)
        except orjson.JSONDecodeError as err:
            return self._invalid(
                provider, Invalid(f"The request body is not valid JSON: {err}"), request_id
            )
        validate = validate_anthropic if provider == "anthropic" else validate_openai
        problem = validate(body)
        if problem is not None:
            return self._invalid(provider, problem, request_id)
        try:
            if provider == "anthropic":
                messages, tools, system = from_anthropic_request(body)
            else:
                messages, tools, system = from_openai_request(body)
        except WireFormatError as err:
            return self._invalid(provider, Invalid(str(err), err.path), request_id)
        try:
            response = self.behavior.respond(messages, tools)
        except ScriptExhaustedError as err:
            return status_error(provider, 500, request_id, message=str(err))
        except Exception as err:
            log.exception("simulator behaviour failed")
            message = f"simulator behaviour failed: {type(err).__name__}: {err}"
            return status_error(provider, 500, request_id, message=message)
        response = estimate_usage(response, messages, tools, system)
        return self._rendered(provider, body, response, fault, request_id)

    def _invalid(self, provider: Provider, problem: Invalid, request_id: str) -> Reply:
        if provider == "anthropic":
            body = anthropic_error("invalid_request_error", problem.message, request_id)
        else:
            body = openai_error(
                problem.message, "invalid_request_error", problem.param, problem.code
            )
        return json_reply(400, body, provider=provider, request_id=request_id)

    def _rendered(
        self,
        provider: Provider,
        body: dict[str, Any],
        response: ModelResponse,
        fault: FaultKind | None,
        request_id: str,
    ) -> Reply:
        """``response`` in the provider's shape: one JSON body, or a stream if asked."""
        wire = self._render(provider, body, response)
        if not body.get("stream"):
            return json_reply(200, self.drift.apply(wire), provider=provider, request_id=request_id)
        events = self._events(provider, body, wire, fault)
        cut = len(events) // 2 if fault == "cut-stream" else None
        return stream_reply(events, provider=provider, request_id=request_id, cut_after=cut)

    def _render(
        self, provider: Provider, body: dict[str, Any], response: ModelResponse
    ) -> dict[str, Any]:
        response_id = self._response_id(provider)
        if provider == "anthropic":
            return to_anthropic_response(response, model=body["model"], message_id=response_id)
        return to_openai_response(response, model=body["model"], completion_id=response_id)

    def _events(
        self,
        provider: Provider,
        body: dict[str, Any],
        wire: dict[str, Any],
        fault: FaultKind | None,
    ) -> list[SSEEvent]:
        if provider == "openai":
            options = body.get("stream_options") or {}
            return openai_chunks(
                wire,
                include_usage=bool(options.get("include_usage")),
                chunk_size=self.chunk_size,
                patch=self.drift.apply,
            )
        events = anthropic_events(wire, chunk_size=self.chunk_size, patch=self.drift.apply)
        if fault == "sse-error":
            events = [*events[:2], anthropic_error_event("overloaded_error", "Overloaded")]
        return events
