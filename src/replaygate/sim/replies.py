"""What the simulator sends back: a :class:`Reply`, and each provider's error bodies."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Literal

import orjson

from replaygate import exact_json
from replaygate.http.routes import SIMULATOR_REFUSAL
from replaygate.http.sse import SSEEvent
from replaygate.sim.validation import Invalid

Provider = Literal["anthropic", "openai", "google"]
Headers = tuple[tuple[str, str], ...]

JSON_TYPE = "application/json"
MAX_BODY = 32 * 1024 * 1024
"""The largest request body the simulator reads, in bytes (the Messages API's limit)."""
SSE_TYPE = "text/event-stream; charset=utf-8"


@dataclass(frozen=True)
class Reply:
    """One HTTP response, before it is put on the wire.

    A streamed reply has ``events``; ``cut_after`` (a number of events) closes the
    connection abruptly after sending that many, without ending the body. ``delay``
    is a pause, in seconds, before anything is sent. ``refused`` marks an error the
    simulator made of its own accord (:func:`refusal`), no answer of the API's;
    ``unserved`` its 404 or 405 for a route it does not serve, which no recording keeps.
    """

    status: int
    headers: Headers
    body: bytes = b""
    events: tuple[SSEEvent | ArrayPiece, ...] | None = None
    cut_after: int | None = None
    delay: float = 0.0
    refused: bool = False
    unserved: bool = False


def request_id_header(provider: Provider) -> str:
    """The name of the header that carries the request id."""
    return "request-id" if provider == "anthropic" else "x-request-id"


def json_reply(
    status: int, body: Any, *, provider: Provider, request_id: str, extra: Headers = ()
) -> Reply:
    """A JSON reply with the provider's headers."""
    headers = (
        ("content-type", JSON_TYPE),
        (request_id_header(provider), request_id),
        *extra,
    )
    return Reply(status=status, headers=headers, body=exact_json.dumps(body))


@dataclass(frozen=True)
class RawBody:
    """A body sent as it is made, not as JSON (a batch's results, JSON lines)."""

    data: bytes
    content_type: str


def raw_reply(status: int, body: RawBody, *, provider: Provider, request_id: str) -> Reply:
    """A reply of ``body`` as it is, with its content type and the provider's request id."""
    headers = (("content-type", body.content_type), (request_id_header(provider), request_id))
    return Reply(status=status, headers=headers, body=body.data)


def stream_reply(
    events: list[SSEEvent], *, provider: Provider, request_id: str, cut_after: int | None = None
) -> Reply:
    """A ``text/event-stream`` reply with the provider's headers."""
    headers = (
        ("content-type", SSE_TYPE),
        ("cache-control", "no-cache"),
        (request_id_header(provider), request_id),
    )
    return Reply(status=200, headers=headers, events=tuple(events), cut_after=cut_after)


@dataclass(frozen=True)
class ArrayPiece:
    """One element of a stream sent as a JSON array, with the bracket or the separator
    before it and, for the last, the closing bracket (as Gemini streams without
    ``alt=sse``)."""

    data: str
    first: bool
    last: bool

    def encode(self) -> bytes:
        """The piece as it goes on the wire."""
        opened = "[" if self.first else ",\r\n"
        return f"{opened}{self.data}{']' if self.last else ''}".encode()


def array_reply(
    events: list[SSEEvent], *, provider: Provider, request_id: str, cut_after: int | None = None
) -> Reply:
    """A stream sent as a JSON array of its events' data, a piece at a time, as Gemini
    streams a request without ``alt=sse`` (``application/json``)."""
    last = len(events) - 1
    pieces = tuple(ArrayPiece(e.data, i == 0, i == last) for i, e in enumerate(events))
    headers = (("content-type", JSON_TYPE), (request_id_header(provider), request_id))
    return Reply(status=200, headers=headers, events=pieces, cut_after=cut_after)


def anthropic_error(error_type: str, message: str, request_id: str) -> dict[str, Any]:
    """The Messages API error body."""
    return {
        "type": "error",
        "error": {"type": error_type, "message": message},
        "request_id": request_id,
    }


def openai_error(
    message: str,
    error_type: str = "invalid_request_error",
    param: str | None = None,
    code: str | None = None,
) -> dict[str, Any]:
    """The Chat Completions error body."""
    return {"error": {"message": message, "type": error_type, "param": param, "code": code}}


def retry_after_headers(seconds: float) -> Headers:
    """``retry-after`` in whole seconds, plus ``retry-after-ms`` when that is not exact."""
    whole = math.ceil(seconds)
    headers: Headers = (("retry-after", str(whole)),)
    if whole != seconds:
        headers += (("retry-after-ms", str(round(seconds * 1000))),)
    return headers


_ANTHROPIC_STATUS: dict[int, tuple[str, str]] = {
    401: ("authentication_error", "x-api-key header is required"),
    404: ("not_found_error", "Not Found"),
    405: ("invalid_request_error", "Method Not Allowed"),
    413: ("request_too_large", "Request exceeds the maximum allowed number of bytes."),
    429: (
        "rate_limit_error",
        "Number of requests has exceeded your rate limit. Please retry later.",
    ),
    500: ("api_error", "Internal server error"),
    529: ("overloaded_error", "Overloaded"),
}

_OPENAI_STATUS: dict[int, tuple[str, str, str | None]] = {
    401: (
        "invalid_request_error",
        "You didn't provide an API key. You need to provide your API key in an "
        "Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
        None,
    ),
    413: (
        "invalid_request_error",
        f"The request body is larger than the {MAX_BODY} bytes allowed.",
        "request_too_large",
    ),
    429: (
        "requests",
        "Rate limit reached for requests. Please try again in 1s.",
        "rate_limit_exceeded",
    ),
    500: (
        "server_error",
        "The server had an error while processing your request. Sorry about that!",
        None,
    ),
    503: ("server_error", "The server is overloaded or not ready yet.", None),
}


_GOOGLE_STATUS: dict[int, tuple[int, str, str]] = {
    401: (
        403,
        "PERMISSION_DENIED",
        "Method doesn't allow unregistered callers (callers without established identity). "
        "Please use API Key or other form of API consumer identity to call this API.",
    ),
    404: (404, "NOT_FOUND", "Not Found"),
    405: (404, "NOT_FOUND", "Not Found"),
    413: (400, "INVALID_ARGUMENT", f"Request payload size exceeds the limit: {MAX_BODY} bytes."),
    429: (
        429,
        "RESOURCE_EXHAUSTED",
        "Resource has been exhausted (e.g. check quota).",
    ),
    500: (
        500,
        "INTERNAL",
        "An internal error has occurred. Please retry or report in "
        "https://developers.generativeai.google/guide/troubleshooting",
    ),
    529: (503, "UNAVAILABLE", "The model is overloaded. Please try again later."),
}


def google_error(code: int, status: str, message: str) -> dict[str, Any]:
    """The Gemini API error body."""
    return {"error": {"code": code, "message": message, "status": status}}


def status_error(
    provider: Provider,
    status: int,
    request_id: str,
    *,
    message: str | None = None,
    retry_after: float | None = None,
) -> Reply:
    """The provider's error reply for ``status`` (529 becomes 503 for OpenAI and Google,
    401 is Google's 403)."""
    extra = retry_after_headers(retry_after) if retry_after is not None else ()
    if provider == "google":
        sent, name, text = _GOOGLE_STATUS[status]
        body = google_error(sent, name, message or text)
        return json_reply(sent, body, provider=provider, request_id=request_id, extra=extra)
    if provider == "anthropic":
        error_type, default = _ANTHROPIC_STATUS[status]
        body = anthropic_error(error_type, message or default, request_id)
        return json_reply(status, body, provider=provider, request_id=request_id, extra=extra)
    if status == 529:
        status = 503
    if status in (404, 405):
        body = openai_error(message or "Invalid URL")
    else:
        error_type, default, code = _OPENAI_STATUS[status]
        body = openai_error(message or default, error_type, None, code)
    return json_reply(status, body, provider=provider, request_id=request_id, extra=extra)


_ANTHROPIC_ERROR_TYPES: dict[int, str] = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    504: "timeout_error",
    529: "overloaded_error",
}
_GOOGLE_STATUS_NAMES: dict[int, str] = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    409: "ABORTED",
    429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED",
    501: "NOT_IMPLEMENTED",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


def scripted_error(
    provider: Provider, status: int, request_id: str, message: str, body: Any = None
) -> Reply:
    """The answer to an SDK's status error of ``status`` (400 to 599) a behaviour raised,
    as the API answers it: the error object ``body`` the error carries (what the test
    wrote the API answers), else the provider's error body for the status holding
    ``message``."""
    if not (isinstance(body, dict) and isinstance(body.get("error"), dict)):
        body = _error_body(provider, status, message, request_id)
    try:
        return json_reply(status, body, provider=provider, request_id=request_id)
    except TypeError:  # a body of values no JSON holds: the provider's own
        body = _error_body(provider, status, message, request_id)
        return json_reply(status, body, provider=provider, request_id=request_id)


def _error_body(provider: Provider, status: int, message: str, request_id: str) -> Any:
    """The provider's error body for ``status``, holding ``message``."""
    server = status >= 500
    if provider == "anthropic":
        other = "api_error" if server else "invalid_request_error"
        kind = _ANTHROPIC_ERROR_TYPES.get(status, other)
        return anthropic_error(kind, message, request_id)
    if provider == "google":
        name = _GOOGLE_STATUS_NAMES.get(status, "INTERNAL" if server else "FAILED_PRECONDITION")
        return google_error(status, name, message)
    return openai_error(message, "server_error" if server else "invalid_request_error")


def refusal(reply: Reply) -> Reply:
    """``reply``, an error the simulator makes of its own accord (a script run out, a
    behaviour that raised, a value it cannot make), marked so: its body holds
    :data:`~replaygate.http.routes.SIMULATOR_REFUSAL`, which a recording refuses to keep,
    and ``x-should-retry: false`` tells the SDKs that asking again changes nothing."""
    body = {**orjson.loads(reply.body), SIMULATOR_REFUSAL: True}
    headers = (*reply.headers, ("x-should-retry", "false"))
    return dataclasses.replace(reply, headers=headers, body=orjson.dumps(body), refused=True)


def invalid_reply(provider: Provider, problem: Invalid, request_id: str) -> Reply:
    """The provider's reply (400, or the status the problem names) for a request that failed
    validation; marked as the simulator's own (:func:`refusal`) where the problem is one
    (``problem.own``), which a recording does not keep."""
    if provider == "anthropic":
        kind = "not_found_error" if problem.status == 404 else "invalid_request_error"
        body = anthropic_error(kind, problem.message, request_id)
        if problem.code is not None:
            body["error"]["details"] = {"error_code": problem.code}
    elif provider == "google":
        name = "NOT_FOUND" if problem.status == 404 else "INVALID_ARGUMENT"
        body = google_error(problem.status, name, problem.message)
    else:
        body = openai_error(problem.message, "invalid_request_error", problem.param, problem.code)
    reply = json_reply(problem.status, body, provider=provider, request_id=request_id)
    return refusal(reply) if problem.own else reply
