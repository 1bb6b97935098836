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

Nor is a model API's refusal of the credentials sent (:func:`refused_credentials`: a
401, a 403, Gemini's 400 for a key that is not valid): it says the recording ran with
a bad or placeholder key, and a fixture of it would replay the refusal as the model's
answer until it was recorded again.

Nor is a proxy's ``407`` (:func:`proxy_refusal`): the proxy between the client and the
server refused to pass the request on, so no server answered it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from replaygate.http.envelope import BEDROCK_CALL, VERTEX_CALL, is_model_api
from replaygate.interfaces import interface_of

ROUTE_PREFIX = "Invalid URL"
"""How OpenAI's error message begins for a route it does not serve (``Invalid URL
(POST /v1/x)``); Anthropic's says ``Not Found`` and nothing else."""

SIMULATOR_REFUSAL = "replaygate_simulator_refusal"
"""The field (``true``) of an error body with which replaygate's simulator marks an
error of its own, not a model's answer."""

SIMULATOR_REQUEST_ID = "req_sim_"
"""How the request id of each answer of replaygate's simulator begins (its
``request-id`` or ``x-request-id`` header), whichever process it runs in."""


def simulator_answered(record: Mapping[str, Any]) -> bool:
    """Whether ``record`` (a recorded HTTP response) is an answer of replaygate's
    simulator, by its request id (:data:`SIMULATOR_REQUEST_ID`): a client sent to it by its
    base URL, or to a ``replaygate sim serve`` of another process, in a session that does
    not say it records from the simulator."""
    headers = record.get("headers")
    if not isinstance(headers, Mapping):
        return False
    ids = (headers.get(name) for name in ("request-id", "x-request-id"))
    return any(isinstance(i, str) and i.startswith(SIMULATOR_REQUEST_ID) for i in ids)


def _error_field(body: Any, name: str) -> str | None:
    """The ``error.<name>`` text of a JSON error body, or None when it has none."""
    error = body.get("error") if isinstance(body, Mapping) else None
    value = error.get(name) if isinstance(error, Mapping) else None
    return value if isinstance(value, str) else None


def _error_message(body: Any) -> str | None:
    """The ``error.message`` of a JSON error body, or None when the body is not one."""
    return _error_field(body, "message")


def unserved_route(path: str, record: Mapping[str, Any]) -> bool:
    """Whether ``record`` (a recorded HTTP response to ``path``) is a 404 for the route, or
    a model API's 405 (a route it serves for other methods, or a route of a newer API than
    the server's, as the simulator answers one it lacks).

    A 404 is when the body is not an API error object, when that error's message is a
    provider's unknown-route wording (an AWS error's typed in ``x-amzn-errortype``: its
    ``UnknownOperationException``, or ``Not Found``), or when the path is no model API's (an
    interface's, or one such as OpenAI's Conversations API, whose 404 for a conversation
    it does not hold is an API error) and the error is not a provider's typed one (the
    ``error.type`` of OpenAI's ``model_not_found`` for ``/v1/models/{id}``, of
    Anthropic's ``not_found_error`` for a file, Google's ``error.status`` ``NOT_FOUND``
    for Gemini's ``models/{name}``).
    """
    status = record.get("status")
    if status == 405:
        return is_model_api(path)
    if status != 404:
        return False
    body = record.get("body")
    aws = _aws_error(record)
    if aws is not None:  # Amazon Bedrock's (ResourceNotFoundException), typed in its header
        kind, said = aws
        return kind == "UnknownOperationException" or said in (None, "Not Found")
    message = _error_message(body)
    if message is None or message.startswith(ROUTE_PREFIX) or message == "Not Found":
        return True
    return not is_model_api(path) and _error_kind(body) is None


def _aws_error(record: Mapping[str, Any]) -> tuple[str, str | None] | None:
    """The type an AWS error names in ``x-amzn-errortype`` (``ResourceNotFoundException``
    of Bedrock's account without access to a model, of a model past its end of life) and
    its ``message``; None for a response of no such header."""
    headers = record.get("headers")
    named = headers.get("x-amzn-errortype") if isinstance(headers, Mapping) else None
    if not isinstance(named, str) or not named:
        return None
    body = record.get("body")
    said = body.get("message") if isinstance(body, Mapping) else None
    return named.split(":", 1)[0], said if isinstance(said, str) else None


def _error_kind(body: Any) -> str | None:
    """The kind a provider's typed error names: its ``error.type`` (OpenAI's, Anthropic's),
    else its ``error.status`` (Google's ``NOT_FOUND``); None for an untyped error."""
    return _error_field(body, "type") or _error_field(body, "status")


def simulator_refusal(record: Mapping[str, Any]) -> str | None:
    """The simulator's message when ``record`` (a recorded HTTP response) is an error the
    simulator made of its own accord (:data:`SIMULATOR_REFUSAL`), else None: its
    ``error.message``, or the ``message`` of Amazon Bedrock's error shape."""
    body = record.get("body")
    if not isinstance(body, Mapping) or body.get(SIMULATOR_REFUSAL) is not True:
        return None
    plain = body.get("message")
    said = _error_message(body) or (plain if isinstance(plain, str) else None)
    return said or "the simulator gave no message"


PROXY_AUTHENTICATION_REQUIRED = 407
"""The status with which a proxy refuses to pass a request on without its credentials;
no server addressed answers it (RFC 9110, 15.5.8)."""


def proxy_refusal(record: Mapping[str, Any]) -> bool:
    """Whether ``record`` (a recorded HTTP response) is a proxy's refusal to pass the
    request on (:data:`PROXY_AUTHENTICATION_REQUIRED`), whatever the path."""
    return record.get("status") == PROXY_AUTHENTICATION_REQUIRED


REFUSED_CREDENTIALS = frozenset({401, 403})
"""The statuses with which a model API refuses the credentials sent: none (401), or
ones without the permission asked for (403)."""
_LOOKED_AT = REFUSED_CREDENTIALS | {400}
_KEY_VARIABLES = {
    "anthropic": "ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN)",
    "openai": "OPENAI_API_KEY",
    "google": "GEMINI_API_KEY (or GOOGLE_API_KEY)",
}


def credentials_refused(status: object, body: Any) -> int | None:
    """``status``, that of a model API's response with ``body`` (its JSON; only a 400's is
    read), when it refuses the credentials sent (:data:`REFUSED_CREDENTIALS`, or Gemini's
    400 whose error reason is ``API_KEY_INVALID``), else None."""
    if not isinstance(status, int):
        return None
    return (
        status if status in REFUSED_CREDENTIALS or (status == 400 and _invalid_key(body)) else None
    )


def _invalid_key(body: Any) -> bool:
    """Whether a Google API error ``body`` gives ``API_KEY_INVALID`` as its reason."""
    error = body.get("error") if isinstance(body, Mapping) else None
    details = error.get("details") if isinstance(error, Mapping) else None
    return isinstance(details, list) and any(
        isinstance(d, Mapping) and d.get("reason") == "API_KEY_INVALID" for d in details
    )


def refused_credentials(path: str, status: int, body: Any) -> int | None:
    """:func:`credentials_refused` of a response to ``path``, when ``path`` is a model
    API's (another server's 401 may be what a test is about)."""
    return credentials_refused(status, body) if is_model_api(path) else None


def stored_refusal(response: Any, request: Mapping[str, Any], meta: Any) -> int | None:
    """The status of a recorded model API's refusal of the credentials it was recorded with
    (:func:`refused_credentials`), if ``response`` (a stored answer to the envelope
    ``request``, recorded under ``meta``) is one not written by hand (``meta.source:
    "hand"``), else None. Most answers are told by their status alone."""
    status = response.get("status") if type(response) is dict else None
    if type(status) is not int or status not in _LOOKED_AT or by_hand(meta):
        return None
    return refused_credentials(str(request.get("path", "")), status, response.get("body"))


def by_hand(meta: Any) -> bool:
    """Whether a fixture's ``meta`` says it was written by hand (``source: "hand"``): a
    refusal it holds may be what a test is about."""
    return isinstance(meta, Mapping) and meta.get("source") == "hand"


def stored_refusal_reason(status: int, command: str) -> str:
    """Why a stored answer that is the API's ``status`` refusing the credentials must not be
    replayed, and how to record it anew (``command``)."""
    return (
        f"is the API's {status} refusing the credentials it was recorded with (a missing, "
        "placeholder or revoked key), which replay would serve as the model's answer: "
        f"record it anew with a valid key ({command}), or remove it"
    )


def key_variable(interface: str) -> str:
    """Where the key of the model API of ``interface`` (or of a path it serves: ``http``)
    is set, as its SDK reads it."""
    return _KEY_VARIABLES.get(interface.split(".", 1)[0], "the API key the client sends")


_CLOUD_KEYS = (
    (
        BEDROCK_CALL,
        "the AWS credentials the client signs with (AWS_ACCESS_KEY_ID and "
        "AWS_SECRET_ACCESS_KEY, with AWS_SESSION_TOKEN; AWS_PROFILE; or "
        "AWS_BEARER_TOKEN_BEDROCK; or those given to the client: anthropic.AnthropicBedrock's "
        "aws_access_key and aws_secret_key, LiteLLM's aws_access_key_id and "
        "aws_secret_access_key)",
    ),
    (
        VERTEX_CALL,
        "anthropic.AnthropicVertex's access_token (or GOOGLE_APPLICATION_CREDENTIALS, "
        "whose token it fetches)",
    ),
    (
        re.compile(r"/openai/deployments/|[?&]api-version="),
        "AZURE_OPENAI_API_KEY (or the token openai.AzureOpenAI's azure_ad_token_provider gives)",
    ),
)
"""Where the credentials of a cloud's model API are set, by the path of its call (Amazon
Bedrock's, Vertex AI's, Azure OpenAI's: a deployment or an ``api-version``)."""


def key_of(path: str) -> str:
    """Where the key of a call of ``path`` (a model API's) is set: a cloud's credentials
    (:data:`_CLOUD_KEYS`), else :func:`key_variable` of its interface."""
    cloud = next((key for where, key in _CLOUD_KEYS if where.search(path)), None)
    return cloud or key_variable(interface_of(path))


def refusal_note(status: int, interface: str) -> str:
    """What a live call's error of ``status`` (:data:`REFUSED_CREDENTIALS`) adds when it
    was a recording's: why, and where the key is set."""
    return (
        f"nothing was recorded for this request: the live API refused the credentials "
        f"({status}); set {key_variable(interface)} to a valid key and record again"
    )
