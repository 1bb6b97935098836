"""Live models over the official SDKs: the real thing that recording wraps.

Each implements :class:`~replaygate.models.types.Model` and
:class:`~replaygate.models.replay.WireModel`: ``complete_wire`` sends a wire request as it
is and returns the response body exactly as the API sent it, so a recording stores
the real API dict.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from replaygate import exact_json
from replaygate.errors import LiveAPIError
from replaygate.jsondoc import shown
from replaygate.models.providers.google_gemini import API_VERSION as GEMINI_VERSION
from replaygate.models.providers.google_gemini import wire_body
from replaygate.models.replay import RequestSettings
from replaygate.models.types import Message, ModelResponse, ToolSpec

__all__ = [
    "LIVE_MODELS",
    "AnthropicModel",
    "GeminiModel",
    "OpenAIModel",
    "OpenAIResponsesModel",
]

ANTHROPIC_CREDENTIALS = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")
"""Where the ``anthropic`` SDK finds a credential: an API key (sent as ``x-api-key``) or
a bearer token (``Authorization: Bearer``)."""
ANTHROPIC_CREDENTIAL_NAMES = " or ".join(ANTHROPIC_CREDENTIALS)
"""The credentials of :data:`ANTHROPIC_CREDENTIALS`, for a message that needs one."""


def anthropic_credential_set() -> bool:
    """Whether the environment holds a credential the ``anthropic`` SDK reads."""
    return any(os.environ.get(name) for name in ANTHROPIC_CREDENTIALS)


def json_body(response: Any) -> dict[str, Any]:
    """The JSON object an SDK's raw HTTP ``response`` holds; else a
    :class:`~replaygate.errors.LiveAPIError` naming the request, the status, the content
    type and the start of the body (a proxy's login page answered 200, say)."""
    try:
        body = exact_json.loads(response.content)
    except ValueError:  # orjson's JSONDecodeError is one
        body = None
    if isinstance(body, dict):
        return body
    request = response.request
    raise LiveAPIError(
        not_json_object(
            request.method,
            str(request.url),
            response.status_code,
            response.headers.get("content-type"),
            response.content,
        )
    )


def not_json_object(
    method: str, url: str, status: int | None, content_type: str | None, body: bytes
) -> str:
    """What an answer that is not a JSON object is said to be: the request, the status
    (where the SDK tells it), the content type and the start of the body (``POST
    .../v1/messages answered 200 text/html, not a JSON object: '<html>proxy login</html>'``)."""
    kind = content_type or "with no content type"
    start = body[:200].decode("utf-8", errors="replace")
    answered = kind if status is None else f"{status} {kind}"
    return f"{method} {url} answered {answered}, not a JSON object: {shown(start)}"


def unserved_model(status: int | None, said: str, model: str) -> str | None:
    """What the API's 404 naming ``model`` (``model: claude-sonnet-4-5``) means: it serves
    no model of that id, one retired since it was recorded or a misspelled one; None for
    any other answer."""
    if status != 404 or not model or f"model: {model}" not in said:
        return None
    return f"the API serves no model {model!r}: a retired model, or a misspelled id"


class _SDKModel:
    interface = ""
    path = ""
    """Where ``complete_wire`` sends a request, from the client's base URL."""

    def __init__(
        self, client: Any, *, model: str, max_tokens: int, system: str | None = None
    ) -> None:
        self.client = client
        self.settings = RequestSettings(model, max_tokens, system, self.interface)

    def _create(self, request: dict[str, Any]) -> Any:
        raise NotImplementedError

    simulated = False
    """Whether the last answer came from replaygate's simulator (a ``replaygate sim serve``
    the client's base URL names), told by its request id: it is recorded as ``sim``. The
    client's one base URL answers every call, so calls of several threads set it alike."""

    def complete_wire(self, request: dict[str, Any]) -> dict[str, Any]:
        """The API's response body for ``request``, as sent over the wire."""
        from replaygate.http.routes import simulator_answered  # a recording's import

        answer = self._create(request).http_response
        headers = {name.lower(): value for name, value in answer.headers.items()}
        self.simulated = simulator_answered({"headers": headers})
        return json_body(answer)

    def replayed(self, request: dict[str, Any], response: Any) -> None:
        """Tell the server this model calls, when it is one in this process that learns
        of replayed answers (the simulator, :mod:`replaygate.http.learners`), that a
        recording answered ``request`` with the recorded ``response`` instead of sending
        it: it takes the answer as its own, as it does for an HTTP recording."""
        sent = self._sent(request)
        if sent is None:
            return
        from replaygate.http.learners import learner_at  # a recording's import, not replay's

        url = urlsplit(sent[0])
        learner = learner_at(url.hostname, url.port)
        if learner is not None:
            learner(
                {"method": "POST", "path": url.path, "body": sent[1]},
                {"status": 200, "body": response},
            )

    def _sent(self, request: dict[str, Any]) -> tuple[str, Any] | None:
        """The URL ``complete_wire`` sends ``request`` to and the body it sends, if known."""
        if not self.path:
            return None
        return f"{str(self.client.base_url).rstrip('/')}/{self.path}", request

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelResponse:
        """Send the conversation to the live API."""
        request = self.settings.build(messages, tools)
        return self.settings.wire.from_response(self.complete_wire(request))


class AnthropicModel(_SDKModel):
    """The live Anthropic Messages API through ``anthropic.Anthropic`` (``messages.create``)."""

    interface = "anthropic.messages"
    path = "v1/messages"

    def _create(self, request: dict[str, Any]) -> Any:
        return self.client.messages.with_raw_response.create(**request)


class OpenAIModel(_SDKModel):
    """The live OpenAI Chat Completions API through ``openai.OpenAI``."""

    interface = "openai.chat.completions"
    path = "chat/completions"

    def _create(self, request: dict[str, Any]) -> Any:
        return self.client.chat.completions.with_raw_response.create(**request)


class OpenAIResponsesModel(_SDKModel):
    """The live OpenAI Responses API through ``openai.OpenAI`` (``responses.create``)."""

    interface = "openai.responses"
    path = "responses"

    def _create(self, request: dict[str, Any]) -> Any:
        return self.client.responses.with_raw_response.create(**request)


class GeminiModel(_SDKModel):
    """The live Gemini ``generateContent`` API through ``google.genai.Client``.

    The SDK has no raw call that takes a wire body, so the request goes through its API
    client (``client._api_client.request``), at the interface's version (``v1beta``).
    """

    interface = "google.generate_content"

    def complete_wire(self, request: dict[str, Any]) -> dict[str, Any]:
        """The API's response body for ``request`` (the engine's wire form, with ``model``)."""
        model, body = wire_body(request)
        path = f"models/{model}:generateContent"
        options = {"api_version": GEMINI_VERSION}
        answer = self.client._api_client.request("post", path, body, options)
        text = (answer.body or "").encode("utf-8")
        try:
            parsed = exact_json.loads(text)
        except ValueError:  # orjson's JSONDecodeError is one
            parsed = None
        if isinstance(parsed, dict):
            return parsed
        # a proxy's login page answered 200, say; the SDK raised any error status
        headers = {name.lower(): value for name, value in (answer.headers or {}).items()}
        url = f"{self._base_url()}/{GEMINI_VERSION}/{path}"
        raise LiveAPIError(not_json_object("POST", url, None, headers.get("content-type"), text))

    def _base_url(self) -> str:
        """The client's base URL, without a trailing ``/``."""
        return str(self.client._api_client._http_options.base_url).rstrip("/")

    def _sent(self, request: dict[str, Any]) -> tuple[str, Any] | None:
        model, body = wire_body(request)
        return f"{self._base_url()}/{GEMINI_VERSION}/models/{model}:generateContent", body


LIVE_MODELS: dict[str, type[_SDKModel]] = {
    kind.interface: kind
    for kind in (AnthropicModel, OpenAIModel, OpenAIResponsesModel, GeminiModel)
}
"""The live model of each interface, by interface name."""
