"""The cloud platforms' routes to the models: Azure OpenAI, Anthropic and Gemini on Vertex
AI, and Anthropic on Amazon Bedrock, each answered by the plain route's endpoint.

- Azure OpenAI: ``/openai/deployments/<name>/chat/completions`` (and ``/openai/v1/...``)
  is Chat Completions, ``/openai/responses`` the Responses API, a deployment's
  ``embeddings`` OpenAI's embeddings, called with ``api-key``
  or an Entra ID token (``Authorization: Bearer``); a refused key and a rate limit are
  answered in Azure's ``{"error": {"code": "401", "message": ...}}``.
- Vertex AI: ``/v1/projects/<p>/locations/<r>/publishers/anthropic/models/<model>:rawPredict``
  (``:streamRawPredict`` for a stream, server-sent events; ``.../models/count-tokens:rawPredict``
  its token count, the model in the body) is the Messages API, the model
  in the path and ``anthropic_version: "vertex-2023-10-16"`` in the body in place of
  ``model``; called with an access token (``Authorization: Bearer``), a refused one and a
  quota answered in Google's error shape, a refused request in Anthropic's. Gemini's
  ``.../publishers/google/models/<model>:generateContent`` (its stream, its
  ``:countTokens``) is the Gemini API's route of that model, called with the same token.
- Amazon Bedrock: ``/model/<id>/invoke`` and ``/invoke-with-response-stream`` are the
  Messages API, the model in the path, ``anthropic_version: "bedrock-2023-05-31"`` in the
  body in place of ``model`` and ``stream``; signed (SigV4) or with a Bedrock API key
  (``Authorization``), its errors ``{"message": ...}`` named by ``x-amzn-ErrorType``, its
  stream an AWS event stream (:mod:`replaygate.http.aws_events`, which frames a replay
  too) of ``chunk`` messages carrying the Messages stream events. Its Converse API
  (``/model/<id>/converse`` and ``/converse-stream``) is the Messages API too, read from
  and written in Converse's shapes (:mod:`replaygate.sim.converse`); a model id that is
  none of Bedrock's is refused on both (``The provided model identifier is invalid.``).
  ``/model/<id>/count-tokens`` counts the input of the Converse request or the ``invoke``
  body its ``input`` holds (``{"inputTokens": N}``).

A request is checked as the plain route checks it, once its platform's own fields are
taken out: what the plain route names ``model`` the platform's path names.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qs, quote, unquote

import orjson

from replaygate import exact_json
from replaygate.http.aws_events import CHUNK, CONTENT_TYPE, stream_bytes
from replaygate.http.sse import SSEEvent
from replaygate.models.providers.anthropic import API_VERSIONS
from replaygate.models.types import ModelResponse
from replaygate.sim.conversations import created_at
from replaygate.sim.converse import (
    converse_events,
    converse_response,
    messages_request,
    model_problem,
    model_provider,
)
from replaygate.sim.converse import stopped_by as converse_stopped_by
from replaygate.sim.endpoints import (
    AnthropicCountTokens,
    AnthropicMessages,
    Conversation,
    Endpoint,
    GeminiCountTokens,
    GeminiGenerateContent,
    OpenAIChat,
    OpenAIEmbeddings,
    OpenAIResponses,
    SimRequest,
    Stream,
)
from replaygate.sim.replies import (
    JSON_TYPE,
    Provider,
    Reply,
    google_error,
    json_reply,
    refusal,
    retry_after_headers,
)
from replaygate.sim.validation import OWN_WORDING, Invalid

VERTEX_VERSION = "vertex-2023-10-16"
"""The ``anthropic_version`` a Vertex AI request's body carries (or, sent by the SDK since
it sends the Messages API's, one of :data:`API_VERSIONS`)."""
BEDROCK_VERSION = "bedrock-2023-05-31"
"""The ``anthropic_version`` an Amazon Bedrock request's body carries (or one of
:data:`API_VERSIONS`)."""

_VERTEX_ROUTE = re.compile(
    r"/v1(?:beta1)?/projects/[^/]+/locations/[^/]+/publishers/anthropic/models/"
    r"([^/:]+):(rawPredict|streamRawPredict)"
)
_VERTEX_GEMINI_ROUTE = re.compile(
    r"/v1(?:beta1)?/(?:projects/[^/]+/locations/[^/]+/)?publishers/google/models/"
    r"([^/:]+):(generateContent|streamGenerateContent|countTokens)"
)
"""Gemini's calls on Vertex AI, and its token count: a project's and location's, or, in
express mode (an API key, no project), the publisher's alone."""
_COUNT_TOKENS = "countTokens"
"""The method of a Gemini token count, at Vertex AI's paths as at the Gemini API's."""
_VERTEX_COUNT = "count-tokens"
"""The model segment of Vertex AI's token count, whose model is the body's."""
_BEDROCK_ROUTE = re.compile(r"/model/([^/]+)/(invoke|invoke-with-response-stream)")
_CONVERSE_ROUTE = re.compile(r"/model/([^/]+)/(converse|converse-stream)")
_COUNT_ROUTE = re.compile(r"/model/([^/]+)/(count-tokens)")

_AZURE_DEPLOYMENT = re.compile(r"/openai/deployments/([^/]+)/")
"""A deployment's path, its name the model it answers with."""
_AZURE_NOT_FOUND = "Resource not found"
"""Azure OpenAI's answer to a path it does not serve, and to one without ``api-version``."""
_AZURE_DENIED = (
    "Access denied due to invalid subscription key or wrong API endpoint. Make sure to "
    "provide a valid key for an active subscription and use a correct regional API "
    "endpoint for your resource."
)


class _AccessErrors(Endpoint):
    """An endpoint answering a refused credential (401) and a rate limit or quota (429) in
    its platform's own body (:meth:`access_error`), other errors as the plain route does."""

    access_provider: Provider = "openai"
    """Whose reply headers the platform's own errors carry."""

    def access_error(self, status: int, retry_after: float | None) -> dict[str, Any]:
        """The platform's body of its 401 or 429."""
        raise NotImplementedError

    def error(
        self,
        status: int,
        request_id: str,
        *,
        message: str | None = None,
        retry_after: float | None = None,
    ) -> Reply:
        if status not in (401, 429) or message is not None:
            return super().error(status, request_id, message=message, retry_after=retry_after)
        body = self.access_error(status, retry_after)
        extra = retry_after_headers(retry_after) if retry_after is not None else ()
        return json_reply(
            status, body, provider=self.access_provider, request_id=request_id, extra=extra
        )


class _Azure(_AccessErrors):
    """An OpenAI endpoint at Azure OpenAI's paths (:attr:`routes`), answering a refused key
    (401) and a rate limit (429) in Azure's own body, other errors in OpenAI's; it takes
    fields of Azure's own (``data_sources``), so an unknown one is not refused."""

    routes: re.Pattern[str]
    checks_params = False

    def serves(self, route: str) -> bool:
        return self.routes.fullmatch(route) is not None

    def request(self, route: str, body: Any) -> SimRequest:
        """The plain route's, a deployment's name taken as the ``model`` a body leaves out
        or sends as null (LangChain's ``AzureChatOpenAI`` given no ``model``): Azure reads
        the model from a deployment's path, as its ``v1`` API does not."""
        deployment = _AZURE_DEPLOYMENT.match(route)
        if deployment is not None and isinstance(body, dict) and body.get("model") is None:
            body = {**body, "model": unquote(deployment.group(1))}
        return super().request(route, body)

    def access_error(self, status: int, retry_after: float | None) -> dict[str, Any]:
        seconds = 1 if retry_after is None else max(1, round(retry_after))
        limited = f"Rate limit is exceeded. Try again in {seconds} seconds."
        said = _AZURE_DENIED if status == 401 else limited
        return {"error": {"code": str(status), "message": said}}

    def query_problem(self, route: str, query: str) -> Invalid | None:
        """Azure's 404 for a request without ``api-version``, which every path but those of
        its ``v1`` API (``/openai/v1/...``) requires."""
        if route.startswith("/openai/v1/") or parse_qs(query).get("api-version"):
            return None
        return Invalid(_AZURE_NOT_FOUND, status=404)

    def refused(self, problem: Invalid, request_id: str) -> Reply:
        if problem.message != _AZURE_NOT_FOUND:
            return super().refused(problem, request_id)
        body = {"error": {"code": "404", "message": _AZURE_NOT_FOUND}}
        return json_reply(404, body, provider="openai", request_id=request_id)


_SAFE = {"filtered": False, "severity": "safe"}
AZURE_CONTENT_FILTER: dict[str, Any] = {
    name: _SAFE for name in ("hate", "self_harm", "sexual", "violence")
}
"""What Azure's default content filter says of an answer it let through."""
AZURE_PROMPT_FILTER: list[dict[str, Any]] = [
    {
        "prompt_index": 0,
        "content_filter_results": {
            **AZURE_CONTENT_FILTER,
            "jailbreak": {"filtered": False, "detected": False},
        },
    }
]
"""What Azure's default content filter says of a prompt it let through."""


def _filtered(wire: dict[str, Any]) -> dict[str, Any]:
    """A Chat Completions answer as Azure gives it: its prompt's filter results, and each
    choice's."""
    choices = [{**c, "content_filter_results": AZURE_CONTENT_FILTER} for c in wire["choices"]]
    return {**wire, "choices": choices, "prompt_filter_results": AZURE_PROMPT_FILTER}


class AzureChat(_Azure, OpenAIChat):
    """Azure OpenAI's Chat Completions: a deployment's, or its ``v1`` API's, with the
    results of Azure's content filter: ``prompt_filter_results`` and each choice's
    ``content_filter_results``; a stream begins with a chunk of no choices holding the
    prompt's (code reading ``chunk.choices[0]`` of each chunk fails on it, as live)."""

    routes = re.compile(r"/openai/(?:deployments/[^/]+|v1)/chat/completions")

    def render(
        self,
        request: SimRequest,
        conversation: Conversation,
        response: ModelResponse,
        tag: str,
        thought: str,
    ) -> dict[str, Any]:
        return _filtered(super().render(request, conversation, response, tag, thought))

    def with_choices(
        self, request: SimRequest, wire: dict[str, Any], more: Sequence[ModelResponse]
    ) -> dict[str, Any]:
        return _filtered(super().with_choices(request, wire, more))

    def events(self, request: SimRequest, wire: dict[str, Any], stream: Stream) -> list[SSEEvent]:
        first = {"choices": [], "created": 0, "id": "", "model": "", "object": ""}
        first["prompt_filter_results"] = AZURE_PROMPT_FILTER
        return [SSEEvent(orjson.dumps(first).decode()), *super().events(request, wire, stream)]


class AzureResponses(_Azure, OpenAIResponses):
    """Azure OpenAI's Responses API (``/openai/responses``, ``/openai/v1/responses``)."""

    routes = re.compile(r"/openai(?:/v1)?/responses")


class AzureEmbeddings(_Azure, OpenAIEmbeddings):
    """Azure OpenAI's embeddings: a deployment's, or its ``v1`` API's."""

    routes = re.compile(r"/openai/(?:deployments/[^/]+|v1)/embeddings")


Worded = tuple[str, str]
"""A field of a platform's body and what is wrong with it: ``missing``, ``wrong`` (not the
platform's ``anthropic_version``) or ``extra`` (a field its path carries)."""


def _platform_request(
    body: Any, version: str, model: str | None, stream: bool, named: tuple[str, ...]
) -> tuple[Any, Worded | None]:
    """The plain Messages request of a platform's ``body``: ``model`` from the path (the
    body's where None), its
    ``anthropic_version`` and ``anthropic_beta`` taken out, ``stream`` as the route asks
    (where ``named`` holds it); and why the platform refuses the body: its
    ``anthropic_version`` missing, or neither ``version`` nor a version of the Messages
    API (which the SDK sends there since it named one of its own), or a field of
    ``named`` given."""
    if not isinstance(body, dict):
        return body, None
    given = body.get("anthropic_version")
    kept = ("anthropic_version", "anthropic_beta", *named)
    plain = {k: v for k, v in body.items() if k not in kept}
    if model is not None:
        plain = {"model": model, **plain}
    if "stream" in named and stream:
        plain["stream"] = True
    extra = next((name for name in named if name in body), None)
    if given is None:
        return plain, ("anthropic_version", "missing")
    if given != version and given not in API_VERSIONS:
        return plain, ("anthropic_version", "wrong")
    return plain, None if extra is None else (extra, "extra")


def _bearer(headers: Mapping[str, str]) -> bool:
    """Whether the request carries an ``Authorization`` of a scheme and a credential."""
    scheme, _, token = headers.get("authorization", "").partition(" ")
    return bool(scheme.strip()) and bool(token.strip())


_VERTEX_DENIED = (
    "Request had invalid authentication credentials. Expected OAuth 2 access token, login "
    "cookie or other valid authentication credential. See "
    "https://developers.google.com/identity/sign-in/web/devconsole-project."
)
_VERTEX_QUOTA = (
    "Resource exhausted. Please try again later. Please refer to "
    "https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429 for more details."
)


def _vertex_words(field: str, what: str) -> Invalid:
    """Vertex AI's refusal of a body's ``field`` (:data:`Worded`), in the Messages API's
    words."""
    if what == "missing":
        return Invalid(f"{field}: Field required", field)
    if what == "wrong":
        return Invalid(f"{field}: Input should be '{VERTEX_VERSION}'", field)
    return Invalid(f"{field}: Extra inputs are not permitted", field)


class _Vertex(_AccessErrors):
    """An endpoint at Vertex AI's paths, called with an access token (``Authorization:
    Bearer``), answering a refused token (401) and a quota (429) in Google's error shape,
    other errors as the model's API does (Vertex AI passes them on)."""

    def authenticated(self, headers: Mapping[str, str], query: str) -> bool:
        return _bearer(headers)

    access_provider: Provider = "google"

    def access_error(self, status: int, retry_after: float | None) -> dict[str, Any]:
        denied = status == 401
        name = "UNAUTHENTICATED" if denied else "RESOURCE_EXHAUSTED"
        return google_error(status, name, _VERTEX_DENIED if denied else _VERTEX_QUOTA)


class VertexMessages(_Vertex, AnthropicMessages):
    """Anthropic's Messages API on Vertex AI (``:rawPredict``, ``:streamRawPredict``)."""

    def serves(self, route: str) -> bool:
        match = _VERTEX_ROUTE.fullmatch(route)
        return match is not None and (match.group(1) == _VERTEX_COUNT) == self.counts_tokens

    def request(self, route: str, body: Any) -> SimRequest:
        match = _VERTEX_ROUTE.fullmatch(route)
        assert match is not None  # only asked of a route it serves
        model = None if self.counts_tokens else unquote(match.group(1))
        named = () if model is None else ("model",)
        plain, wrong = _platform_request(body, VERTEX_VERSION, model, False, named)
        routed = super().request(route, plain)
        problem = None if wrong is None else _vertex_words(*wrong)
        return SimRequest(routed.body, routed.model, routed.stream, problem or routed.problem)

    def header_problem(self, headers: Mapping[str, str]) -> Invalid | None:
        return None  # the version is the body's


_VERTEX_NO_MODEL = (
    "Publisher Model `{name}` was not found or your project does not have access to it. "
    "Please ensure you are using a valid model version. For more information, see: "
    "https://cloud.google.com/vertex-ai/generative-ai/docs/learn/model-versions"
)
"""Vertex AI's 404 for a publisher model it does not serve (``name`` the route's)."""


class VertexGemini(_Vertex, GeminiGenerateContent):
    """Gemini on Vertex AI (google-genai's ``Client(vertexai=True)``):
    ``.../publishers/google/models/<model>:generateContent`` and
    ``:streamGenerateContent`` (its ``:countTokens``, :class:`VertexGeminiCountTokens`),
    answered as the Gemini API's route of that model."""

    def serves(self, route: str) -> bool:
        match = _VERTEX_GEMINI_ROUTE.fullmatch(route)
        return match is not None and (match.group(2) == _COUNT_TOKENS) == self.counts_tokens

    def authenticated(self, headers: Mapping[str, str], query: str) -> bool:
        """An access token, or the API key of Vertex AI's express mode
        (``Client(vertexai=True, api_key=...)``, ``x-goog-api-key``)."""
        return _bearer(headers) or GeminiGenerateContent.authenticated(self, headers, query)

    def request(self, route: str, body: Any) -> SimRequest:
        """The Gemini API's request of the route's model, a model it does not serve (a
        retired one, an embedding model) refused in Vertex AI's words, naming the
        publisher model of the route, where the Gemini API names its ``v1beta``."""
        match = _VERTEX_GEMINI_ROUTE.fullmatch(route)
        assert match is not None  # only asked of a route it serves
        model, method = match.groups()
        asked = super().request(f"/v1beta/models/{model}:{method}", body)
        if asked.problem is None or asked.problem.status != 404:
            return asked
        name = route.split("/", 2)[2].rpartition(":")[0]
        said = Invalid(_VERTEX_NO_MODEL.format(name=name), status=404)
        return replace(asked, problem=said)

    def render(
        self,
        request: SimRequest,
        conversation: Conversation,
        response: ModelResponse,
        tag: str,
        thought: str,
    ) -> dict[str, Any]:
        """The Gemini API's answer with what Vertex AI's adds: its ``createTime`` (a later
        turn's later) and the ``trafficType`` of its ``usageMetadata``."""
        wire = super().render(request, conversation, response, tag, thought)
        turns = request.body.get("contents") if isinstance(request.body, Mapping) else None
        made = created_at(len(turns) if isinstance(turns, list) else 0)
        wire["createTime"] = datetime.fromtimestamp(made, UTC).strftime(_VERTEX_TIME)
        wire["usageMetadata"]["trafficType"] = "ON_DEMAND"
        return wire


_VERTEX_TIME = "%Y-%m-%dT%H:%M:%S.%fZ"
"""How Vertex AI writes a ``createTime``: RFC 3339, in microseconds, UTC."""


class VertexGeminiCountTokens(VertexGemini, GeminiCountTokens):
    """Gemini's token count on Vertex AI (``.../publishers/google/models/<model>:countTokens``,
    google-genai's ``models.count_tokens`` of a ``Client(vertexai=True)``), answered as the
    Gemini API's ``countTokens`` of the route's model."""


class VertexCountTokens(VertexMessages, AnthropicCountTokens):
    """Anthropic's token count on Vertex AI (``.../models/count-tokens:rawPredict``), the
    model named in the body."""


_BEDROCK_ERRORS: dict[int, tuple[int, str, str]] = {
    400: (400, "ValidationException", ""),
    401: (403, "MissingAuthenticationTokenException", "Missing Authentication Token"),
    404: (404, "ResourceNotFoundException", "Not Found"),
    405: (404, "ResourceNotFoundException", "Not Found"),
    413: (400, "ValidationException", "Input is too long for requested model."),
    429: (429, "ThrottlingException", "Too many requests, please wait before trying again."),
    500: (
        500,
        "InternalServerException",
        "The system encountered an unexpected error during processing. Try your request again.",
    ),
    529: (503, "ServiceUnavailableException", "Bedrock is unable to process your request."),
}
"""Amazon Bedrock's status, error type and message answering a status of the plain API."""


def _bedrock_words(field: str, what: str) -> Invalid:
    """Amazon Bedrock's refusal of a body's ``field`` (:data:`Worded`): a malformed input."""
    if what == "missing":
        said = f"#: required key [{field}] not found"
    elif what == "wrong":
        said = f"#/{field}: {BEDROCK_VERSION} was expected"
    else:
        said = f"#: extraneous key [{field}] is not permitted"
    return Invalid(f"Malformed input request: {said}, please reformat your input and try again.")


_STREAM_ERROR = "modelStreamErrorException"
"""The exception Bedrock sends on a stream the model failed in (Anthropic's ``error``
event)."""


class AWSChunk(SSEEvent):
    """A message of an AWS event stream: a ``chunk`` carrying an event's ``data``, a
    Converse event, or the exception ``event`` names, framed as Bedrock sends it."""

    def encode(self) -> bytes:
        return stream_bytes([{"event": self.event or CHUNK, "data": self.data}])


class _Bedrock(AnthropicMessages):
    """An Anthropic model on Amazon Bedrock at a route of :attr:`route_pattern`, the model
    its path's: signed (SigV4) or with a Bedrock API key, refused in Bedrock's shapes
    (``{"message": ...}``, its type in ``x-amzn-ErrorType``), streamed as an AWS event
    stream; a model id that is none of Bedrock's refused as Bedrock refuses it."""

    route_pattern: re.Pattern[str]

    def serves(self, route: str) -> bool:
        return self.route_pattern.fullmatch(route) is not None

    def routed(self, route: str) -> tuple[str, str]:
        """The model and the method the path of a route it serves names."""
        match = self.route_pattern.fullmatch(route)
        assert match is not None  # only asked of a route it serves
        return unquote(match.group(1)), match.group(2)

    def beta_problem(self, headers: Mapping[str, str], request: SimRequest) -> Invalid | None:
        """The plain route's, the betas the body names (``anthropic_beta``, where the SDK
        puts those of the ``anthropic-beta`` header) taken as the header's."""
        if request.betas:
            headers = {**headers, "anthropic-beta": ",".join(request.betas)}
        return super().beta_problem(headers, request)

    def authenticated(self, headers: Mapping[str, str], query: str) -> bool:
        return _bearer(headers)

    def header_problem(self, headers: Mapping[str, str]) -> Invalid | None:
        return None  # the version is the body's

    def error(
        self,
        status: int,
        request_id: str,
        *,
        message: str | None = None,
        retry_after: float | None = None,
    ) -> Reply:
        sent, kind, text = _BEDROCK_ERRORS.get(status, (status, "InternalServerException", ""))
        return _bedrock_reply(sent, kind, message or text, request_id, retry_after)

    def refused(self, problem: Invalid, request_id: str) -> Reply:
        kind = "ResourceNotFoundException" if problem.status == 404 else "ValidationException"
        reply = _bedrock_reply(problem.status, kind, problem.message, request_id, None)
        return refusal(reply) if problem.own else reply

    def answered(self, wire: dict[str, Any], request_id: str) -> Reply:
        headers = (("content-type", JSON_TYPE), *_bedrock_ids(request_id), *self.metrics(wire))
        return Reply(status=200, headers=headers, body=exact_json.dumps(wire))

    def metrics(self, wire: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
        """The headers of an answer ``wire`` beside its body (none but Claude's on
        ``invoke``: :func:`_invocation_headers`)."""
        return ()

    def streamed(
        self, query: str, events: list[SSEEvent], request_id: str, cut_after: int | None
    ) -> Reply:
        headers = (("content-type", CONTENT_TYPE), *_bedrock_ids(request_id))
        return Reply(status=200, headers=headers, events=tuple(events), cut_after=cut_after)


def _stream_error(said: str) -> SSEEvent:
    """Bedrock's exception on a stream the model failed in (Anthropic's ``error`` event)."""
    payload = {"message": said, "originalStatusCode": 529, "originalMessage": said}
    return AWSChunk(orjson.dumps(payload).decode(), _STREAM_ERROR)


def _unserved_model(model: str) -> Invalid | None:
    """The simulator's own refusal of ``invoke`` for another provider's model (Amazon's
    Titan embeddings, Nova, Llama), whose body is that model's own, no Messages request:
    a refusal in Bedrock's words would be recorded as Bedrock's answer to it."""
    provider = model_provider(model)
    if provider in (None, "anthropic"):
        return None
    said = (
        f"The simulator serves Bedrock's invoke routes for Anthropic's models only, not "
        f"{model}: call it through the Converse API (/converse), or record it from Bedrock"
    )
    return Invalid(said, own=True)


class BedrockMessages(_Bedrock):
    """Anthropic's Messages API on Amazon Bedrock (``invoke``, ``invoke-with-response-stream``)."""

    route_pattern = _BEDROCK_ROUTE
    call_prefix = "toolu_bdrk_"  # Claude's ids on Bedrock: toolu_bdrk_..., msg_bdrk_...

    def render(
        self,
        request: SimRequest,
        conversation: Conversation,
        response: ModelResponse,
        tag: str,
        thought: str,
    ) -> dict[str, Any]:
        wire = super().render(request, conversation, response, tag, thought)
        return {**wire, "id": "msg_bdrk_" + str(wire["id"]).removeprefix("msg_")}

    def metrics(self, wire: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
        return _invocation_headers(_invocation_metrics(wire))

    def request(self, route: str, body: Any) -> SimRequest:
        model, method = self.routed(route)
        streams = method == "invoke-with-response-stream"
        named = ("model", "stream")
        plain, wrong = _platform_request(body, BEDROCK_VERSION, model, streams, named)
        routed = super().request(route, plain)
        problem = model_problem(model) or _unserved_model(model)
        problem = problem or (None if wrong is None else _bedrock_words(*wrong))
        given = body.get("anthropic_beta") if isinstance(body, dict) else None
        betas = tuple(b for b in given if isinstance(b, str)) if isinstance(given, list) else ()
        return SimRequest(routed.body, model, streams, problem or routed.problem, betas)

    def events(self, request: SimRequest, wire: dict[str, Any], stream: Stream) -> list[SSEEvent]:
        events = super().events(request, wire, stream)
        framed: list[SSEEvent] = []
        for event in events:
            if event.event == "error":  # an error on the stream: Bedrock's exception
                framed.append(_stream_error(orjson.loads(event.data)["error"]["message"]))
            elif event.event == "message_stop":
                framed.append(AWSChunk(_with_metrics(event.data, wire), CHUNK))
            else:
                framed.append(AWSChunk(event.data, CHUNK))
        return framed


INVOCATION_METRICS = "amazon-bedrock-invocationMetrics"
"""The field Bedrock adds to a stream's ``message_stop`` event: the call's token counts and
latencies (LiteLLM reads its usage there)."""


def _invocation_metrics(wire: Mapping[str, Any]) -> dict[str, int]:
    """Bedrock's token counts and latencies of Claude's answer ``wire``."""
    usage = wire.get("usage") or {}
    output = int(usage.get("output_tokens") or 0)
    return {
        "inputTokenCount": int(usage.get("input_tokens") or 0),
        "outputTokenCount": output,
        "invocationLatency": 100 + 10 * output,
        "firstByteLatency": 100,
    }


def _invocation_headers(metrics: Mapping[str, int]) -> tuple[tuple[str, str], ...]:
    """The headers Bedrock gives an ``invoke`` answer its :func:`_invocation_metrics` in
    (botocore hands them over in ``ResponseMetadata.HTTPHeaders``)."""
    return (
        ("x-amzn-bedrock-input-token-count", str(metrics["inputTokenCount"])),
        ("x-amzn-bedrock-output-token-count", str(metrics["outputTokenCount"])),
        ("x-amzn-bedrock-invocation-latency", str(metrics["invocationLatency"])),
    )


def _with_metrics(data: str, wire: Mapping[str, Any]) -> str:
    """A ``message_stop`` event's ``data`` with Bedrock's :data:`INVOCATION_METRICS` of the
    answer ``wire``, as every stream of ``invoke-with-response-stream`` ends."""
    metrics = _invocation_metrics(wire)
    return orjson.dumps({**orjson.loads(data), INVOCATION_METRICS: metrics}).decode()


class BedrockConverse(_Bedrock):
    """Bedrock's Converse API (``converse``, ``converse-stream``), of any of Bedrock's
    models: the Messages request its body stands for
    (:func:`~replaygate.sim.converse.messages_request`) answered as the Messages API
    answers it, in Converse's shapes, its stream of Converse's events
    (:func:`~replaygate.sim.converse.converse_events`)."""

    route_pattern = _CONVERSE_ROUTE
    call_prefix = "tooluse_"  # Converse's tool call ids, where the Messages API's are toolu_

    def request(self, route: str, body: Any) -> SimRequest:
        model, method = self.routed(route)
        asked = messages_request(body)
        routed = super().request(route, {"model": model, **asked.body})
        problem = model_problem(model) or asked.problem or _in_own_words(routed.problem)
        streams = method == "converse-stream"
        return SimRequest(routed.body, model, streams, problem, asked.betas, asked.echoed)

    def validate(self, request: SimRequest) -> Invalid | None:
        return request.problem or _in_own_words(super().validate(request))

    def beta_problem(self, headers: Mapping[str, str], request: SimRequest) -> Invalid | None:
        return _in_own_words(super().beta_problem(headers, request))

    def render(
        self,
        request: SimRequest,
        conversation: Conversation,
        response: ModelResponse,
        tag: str,
        thought: str,
    ) -> dict[str, Any]:
        wire = super().render(request, conversation, response, tag, thought)
        return {**converse_response(wire), **request.echoed}

    def stopped_by(self, wire: dict[str, Any], sequence: str) -> dict[str, Any]:
        return converse_stopped_by(wire, sequence)

    def events(self, request: SimRequest, wire: dict[str, Any], stream: Stream) -> list[SSEEvent]:
        events = converse_events(wire, stream.chunk_size, stream.patch)
        framed: list[SSEEvent] = [AWSChunk(e.data, e.event) for e in events]
        if stream.fault == "sse-error":
            framed = [*framed[:2], _stream_error("Overloaded")]
        return framed


_COUNT_INPUT = (
    "input: expected an object of one member, converse (a Converse request's messages, "
    "system, toolConfig, additionalModelRequestFields) or invokeModel (an invoke body's "
    "JSON object, base64 in its body)"
)


class BedrockCountTokens(_Bedrock):
    """Bedrock's token count (``/model/<id>/count-tokens``, boto3's ``count_tokens``, which
    Strands' and pydantic-ai's Bedrock models call): the input tokens of the Converse
    request (:class:`BedrockConverse`) or of the ``invoke`` body (:class:`BedrockMessages`)
    its ``input`` holds, estimated as an answer's, checked as that call checks it."""

    route_pattern = _COUNT_ROUTE
    counts_tokens = True

    def __init__(self) -> None:
        super().__init__()
        self._converse, self._invoke = BedrockConverse(), BedrockMessages()

    def counted(self, tokens: int) -> dict[str, Any]:
        return {"inputTokens": tokens}

    def request(self, route: str, body: Any) -> SimRequest:
        """The request of the call counted, its refusal (:meth:`validate`) found here."""
        model, _ = self.routed(route)
        given = body.get("input") if isinstance(body, Mapping) else None
        if not isinstance(given, Mapping):
            given = {}
        kind = next(iter(given), None) if len(given) == 1 else None
        called = f"/model/{quote(model, safe='')}"
        if kind == "converse":
            endpoint: _Bedrock = self._converse
            asked = endpoint.request(f"{called}/converse", given["converse"])
        elif kind == "invokeModel" and (invoked := _invoke_body(given["invokeModel"])):
            endpoint = self._invoke
            asked = endpoint.request(f"{called}/invoke", invoked)
        else:
            return SimRequest({}, model, False, Invalid(f"{_COUNT_INPUT} {OWN_WORDING}", own=True))
        return replace(asked, problem=_uncounted(model) or endpoint.validate(asked))

    def validate(self, request: SimRequest) -> Invalid | None:
        return request.problem


def _uncounted(model: str) -> Invalid | None:
    """The simulator's own refusal of a count for another provider's model (Amazon's Nova,
    Meta's Llama), which Bedrock's CountTokens does not count for every model: an answer
    recorded from the simulator would fail live."""
    provider = model_provider(model)
    if provider in (None, "anthropic"):
        return None
    said = (
        f"The simulator counts the tokens of Anthropic's models only, not {model}, whose "
        "count Bedrock may refuse: record it from Bedrock"
    )
    return Invalid(said, own=True)


def _invoke_body(given: Any) -> dict[str, Any] | None:
    """The JSON object of the ``invoke`` body a count's ``invokeModel`` carries base64 in
    its ``body``, or None."""
    carried = given.get("body") if isinstance(given, Mapping) else None
    if not isinstance(carried, str):
        return None
    try:
        body = orjson.loads(base64.b64decode(carried, validate=True))
    except (TypeError, ValueError, orjson.JSONDecodeError):
        return None
    return body if isinstance(body, dict) else None


def _in_own_words(problem: Invalid | None) -> Invalid | None:
    """The refusal of the Messages request a Converse request stands for as the simulator's
    own (:attr:`Invalid.own`): its words are the Messages API's, naming the fields of a
    request the code never sent (``system.0.text.text``), which Bedrock's refusal of the
    Converse request does not say, and which a recording must not keep as Bedrock's."""
    if problem is None or problem.own:
        return problem
    said = f"{problem.message}, in the Messages request the Converse request stands for"
    said = f"{said} {OWN_WORDING}"
    return replace(problem, message=said, own=True)


def _bedrock_ids(request_id: str) -> tuple[tuple[str, str], ...]:
    """The request id headers of a Bedrock answer: Bedrock's ``x-amzn-requestid``, and the
    ``request-id`` by which a recording knows an answer of the simulator's in any process
    (:func:`~replaygate.http.routes.simulator_answered`)."""
    return (("x-amzn-requestid", request_id), ("request-id", request_id))


def _bedrock_reply(
    status: int, kind: str, message: str, request_id: str, retry: float | None
) -> Reply:
    """Amazon Bedrock's error reply: ``{"message": ...}``, its type in ``x-amzn-ErrorType``."""
    headers = (
        ("content-type", "application/json"),
        *_bedrock_ids(request_id),
        ("x-amzn-errortype", f"{kind}:http://internal.amazon.com/coral/com.amazon.bedrock/"),
        *(retry_after_headers(retry) if retry is not None else ()),
    )
    return Reply(status=status, headers=headers, body=orjson.dumps({"message": message}))


def platform_endpoints() -> tuple[Endpoint, ...]:
    """A fresh set of the platforms' endpoints."""
    return (
        AzureChat(),
        AzureResponses(),
        AzureEmbeddings(),
        VertexMessages(),
        VertexCountTokens(),
        VertexGemini(),
        VertexGeminiCountTokens(),
        BedrockMessages(),
        BedrockConverse(),
        BedrockCountTokens(),
    )
