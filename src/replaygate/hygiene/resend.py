"""Re-sending recorded requests to the live API through the official SDKs.

A wire fixture (the request is the API body) goes through the live model of its
``meta.interface`` (:data:`~replaygate.models.live.LIVE_MODELS`: Anthropic Messages,
OpenAI Chat Completions or Responses, Gemini). An HTTP fixture's envelope body is
posted to the envelope path with the SDK of that path (Gemini's with its API key
header), the base path a client sent it after taken off (a gateway's
``/openai/v1/chat/completions`` goes to the provider's ``/v1/chat/completions``, as the
simulator routes it); a route of Azure OpenAI's goes as it was sent to the resource
``AZURE_OPENAI_ENDPOINT`` names, as ``openai.AzureOpenAI`` reads it, never to OpenAI's API,
and a Gemini call of Vertex AI's express mode to Vertex AI, never to the Gemini API.
The answer is kept in the recorded form (status, headers, body or events), so both sides
compare alike. Callers must hold an explicit approval for live calls (law 3): this module
only sends.

With a :class:`~replaygate.sanitize.Sanitizer`, each live answer goes through the
same response pipeline as a recording (a configured trim drops the same fields), so
fields trimmed on purpose are not reported as drift.
"""

from __future__ import annotations

import importlib
import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from replaygate import exact_json
from replaygate.base_url import refused_base_url, shown_url
from replaygate.errors import LiveAPIError
from replaygate.extras import require
from replaygate.fixtures.fixture import Fixture, is_envelope
from replaygate.http.base_path import api_route, azure_route
from replaygate.hygiene import bedrock_resend
from replaygate.hygiene.bedrock_resend import is_bedrock_call
from replaygate.hygiene.errors import HygieneError
from replaygate.hygiene.fieldset import interface_of_fixture
from replaygate.interfaces import interface_of
from replaygate.models.live import (
    ANTHROPIC_CREDENTIAL_NAMES,
    ANTHROPIC_CREDENTIALS,
    anthropic_credential_set,
)

if TYPE_CHECKING:
    from replaygate.sanitize import Sanitizer

ANTHROPIC = "anthropic"
OPENAI = "openai"
GOOGLE = "google"
PROVIDER_OF: dict[str, str] = {
    "anthropic.messages": ANTHROPIC,
    "openai.chat.completions": OPENAI,
    "openai.responses": OPENAI,
    "google.generate_content": GOOGLE,
}
"""The provider (and so the SDK client and its settings) of each interface re-sent."""
SENDABLE = tuple(PROVIDER_OF)
PLACEHOLDER_KEY = "replaygate-drift"
_ENV = {
    ANTHROPIC: (("ANTHROPIC_API_KEY",), "ANTHROPIC_BASE_URL", "https://api.anthropic.com"),
    OPENAI: (("OPENAI_API_KEY",), "OPENAI_BASE_URL", "https://api.openai.com/v1"),
    GOOGLE: (
        ("GOOGLE_API_KEY", "GEMINI_API_KEY"),
        "GOOGLE_GEMINI_BASE_URL",
        "https://generativelanguage.googleapis.com",
    ),
}
"""Each provider's API key variables, in the order its SDK reads them (google-genai takes
``GOOGLE_API_KEY`` over ``GEMINI_API_KEY``), base URL variable and default URL."""
VERTEX = "vertex"
VERTEX_URL_ENV = "GOOGLE_VERTEX_BASE_URL"
VERTEX_URL = "https://aiplatform.googleapis.com"
"""The variable google-genai reads a Vertex AI client's base URL from, and the URL of
Vertex AI's express mode (an API key, no project), where a request recorded from it goes."""
_VERTEX_GEMINI = re.compile(
    r"/v1(?:beta1)?/(projects/[^/]+/locations/[^/]+/)?publishers/google/models/[^/:?]+:"
)
"""Gemini's calls on Vertex AI: a project's (sent with an access token) or, in express
mode, the publisher's alone (sent with an API key)."""
AZURE = "azure"
BEDROCK = "bedrock"
AZURE_ENDPOINT = "AZURE_OPENAI_ENDPOINT"
AZURE_KEY = "AZURE_OPENAI_API_KEY"
AZURE_TOKEN = "AZURE_OPENAI_AD_TOKEN"
"""The variables ``openai.AzureOpenAI`` reads its resource's URL, key and Entra ID token from."""


SESSION_STATE = ("previous_response_id", "conversation")
"""Request fields of the Responses API that name what the server kept of the recording
session: a re-send names a response or conversation the server no longer holds."""


def _session_state(interface: str, body: dict[str, Any]) -> tuple[str, Any] | None:
    """The field of ``body`` naming what the server kept of the recording session, with
    its value: a Responses API's ``previous_response_id`` or ``conversation``, a Messages
    API thread continued (``thread: {"type": "continue", "previous_message_id": ...}``,
    as the anthropic SDK's tool runner sends each turn after its first)."""
    if interface == "openai.responses":
        for name in SESSION_STATE:
            if body.get(name):
                return name, body[name]
    thread = body.get("thread")
    if interface != "anthropic.messages" or not isinstance(thread, dict):
        return None
    if thread.get("type") == "continue":
        return "thread's previous_message_id", thread.get("previous_message_id")
    return None


def unsendable(fixture: Fixture) -> str | None:
    """Why ``fixture`` cannot be re-sent, or None when it can."""
    interface = interface_of_fixture(fixture)
    body: Any = fixture.request
    if is_envelope(fixture.request):
        interface = interface_of(str(fixture.request["path"]))
        body = fixture.request.get("body")
        if interface not in SENDABLE and not is_bedrock_call(str(fixture.request["path"])):
            return (
                f"path {fixture.request['path']} is not re-sent: drift re-sends only the "
                f"requests of {', '.join(SENDABLE)} and Amazon Bedrock's model calls"
            )
        if not isinstance(body, dict):
            return "the request body is not JSON"
    elif interface not in SENDABLE:
        return f"interface {interface!r} cannot be re-sent (meta.interface names none known)"
    state = _session_state(interface, body)
    if state is not None:
        name, value = state
        return (
            f"its {name} {value!r} names what the server kept of the recording "
            "session, which no server holds now: a later turn is not re-sent (the "
            "turns that start a conversation are)"
        )
    return None


def _credential(name: str) -> str | None:
    """The API key or token the environment variable ``name`` holds (None: unset or
    empty), refused with a :class:`HygieneError` naming the variable, never its value,
    where no header can carry it: a line break or a space copied with the key (an env
    file's), which the HTTP client refused with an error quoting the key whole."""
    value = os.environ.get(name)
    if not value:
        return None
    if not value.strip():
        raise HygieneError(f"{name} holds only whitespace: set it to the key")
    if not (value.isascii() and value.isprintable()) or any(c.isspace() for c in value):
        raise HygieneError(
            f"{name} holds whitespace, a line break or a character no HTTP header carries "
            "(copied with the key from a file?): set it to the key alone"
        )
    return value


def _join(base: str, path: str) -> str:
    """``path`` (a provider's route, ``/v1/...``) after ``base``, a ``/v1`` both end and
    start with taken once."""
    base = base.rstrip("/")
    if base.endswith("/v1") and (path == "/v1" or path.startswith("/v1/")):
        base = base[:-3]
    return base + path


def _json_record(response: Any, data: bytes) -> dict[str, Any]:
    """The recorded form of a live answer ``response`` whose whole body is ``data``, which
    must be a JSON object (a proxy's login page is a :class:`LiveAPIError`)."""
    from replaygate.http.recorded import plain_response
    from replaygate.models.live import not_json_object

    record = plain_response(response.status_code, list(response.headers.multi_items()), data)
    if not isinstance(record.get("body"), dict):
        raise LiveAPIError(
            not_json_object(
                response.request.method,
                str(response.request.url),
                response.status_code,
                response.headers.get("content-type"),
                data,
            )
        )
    return record


def _response_class(client: Any) -> Any:
    """The ``Response`` class of the HTTP library the SDK ``client`` sends with, which it
    returns as it is: httpx2's for anthropic 2 and openai 3, httpx's for the releases
    before them (``anthropic<1``, which a framework may need beside replaygate)."""
    from replaygate.http.bindings import library_of

    library = library_of(type(client._client))  # the SDK's own subclass of the library's
    if library is not None:
        return importlib.import_module(library).Response
    return require("httpx2", "httpx2", "re-sending HTTP fixtures").Response


@dataclass
class LiveSender:
    """Sends recorded requests; ``base_url`` (when given) replaces every provider's URL."""

    base_url: str | None = None
    max_retries: int = 0
    """Each request is sent once: a 429 or 5xx is reported, never retried (law 7)."""
    sanitizer: Sanitizer | None = None
    _clients: dict[str, Any] = field(default_factory=dict)
    _targets: dict[str, str] = field(default_factory=dict)

    def url_of(self, interface: str) -> str:
        """The base URL requests of ``interface`` go to (kept for :attr:`target`)."""
        provider = PROVIDER_OF[interface]
        _, url_env, default = _ENV[provider]
        if self.base_url:
            return self.base_url if provider != OPENAI else _join(self.base_url, "/v1")
        fix = f"set it to the server's URL, or unset it to re-send to {default}"
        return self._from_env(provider, url_env, default, fix)

    def _from_env(self, target: str, name: str, default: str, fix: str) -> str:
        """The URL the environment variable ``name`` gives, else ``default``, kept for
        :attr:`target` under ``target``; one no model API can be reached at is refused
        saying ``fix``, where the SDK would end in a traceback, or each send fail."""
        url = os.environ.get(name)
        refused = refused_base_url(name, url) if url else None
        if refused is not None:
            raise HygieneError(f"{refused}: {fix}")
        self._targets[target] = f"{shown_url(url)} (from {name})" if url else default
        return url or default

    @property
    def target(self) -> str:
        """Where the requests went: ``base_url``, else each provider's URL, naming the
        environment variable that set it; a gateway's credentials in a URL masked (the
        report reaches CI logs and files)."""
        if self.base_url:
            return shown_url(self.base_url)
        return ", ".join(self._targets[p] for p in sorted(self._targets)) or "the live API"

    def key(self, provider: str) -> str:
        """The API key of ``provider`` (a placeholder for a ``base_url`` server); for
        Anthropic, an empty one where the environment holds only a bearer token
        (``ANTHROPIC_AUTH_TOKEN``), which the SDK sends itself."""
        key_envs, _, _ = _ENV[provider]
        key = next((k for k in map(_credential, key_envs) if k), None)
        key = key or (PLACEHOLDER_KEY if self.base_url else None)
        if key:
            return key
        if provider == ANTHROPIC and anthropic_credential_set():
            for name in ANTHROPIC_CREDENTIALS:  # the SDK sends it: checked here all the same
                _credential(name)
            return ""
        named = ANTHROPIC_CREDENTIAL_NAMES if provider == ANTHROPIC else " or ".join(key_envs)
        raise HygieneError(
            f"{named} is not set: drift re-sends recorded requests to the live "
            "API (or give --base-url for another server)"
        )

    def client(self, interface: str) -> Any:
        """The SDK client of ``interface``'s provider, made once; a
        :class:`~replaygate.errors.MissingExtraError` naming the extra to install where its
        SDK is not (a store LiteLLM recorded holds Anthropic's requests, sent with no SDK)."""
        provider = PROVIDER_OF[interface]
        if provider not in self._clients:
            key, url, retries = self.key(provider), self.url_of(interface), self.max_retries
            if provider == ANTHROPIC:
                anthropic = require("anthropic", "anthropic", "re-sending Anthropic fixtures")
                made: Any = anthropic.Anthropic(
                    api_key=key or None, base_url=url, max_retries=retries
                )
            elif provider == OPENAI:
                openai = require("openai", "openai", "re-sending OpenAI fixtures")
                made = openai.OpenAI(api_key=key, base_url=url, max_retries=retries)
            else:
                genai = require("google.genai", "gemini", "re-sending Gemini fixtures")
                made = genai.Client(api_key=key, http_options={"base_url": url})
            self._clients[provider] = made
        return self._clients[provider]

    def send(self, fixture: Fixture) -> Any:
        """The live response to ``fixture``'s request, in the fixture's (sanitized) form."""
        interface = interface_of_fixture(fixture)
        if is_envelope(fixture.request):
            record = self._send_envelope(fixture.request)
            if self.sanitizer is None:
                return record
            return self.sanitizer.recorded(record, key=fixture.key, interface=interface)
        from replaygate.models.live import LIVE_MODELS

        request = fixture.request
        limit = request.get("max_tokens") or request.get("max_output_tokens") or 1
        model = LIVE_MODELS[interface](
            self.client(interface), model=str(request.get("model", "")), max_tokens=int(limit)
        )
        body = model.complete_wire(request)
        if self.sanitizer is None:
            return body
        return self.sanitizer.response(body, key=fixture.key, interface=interface)

    def _send_envelope(self, envelope: dict[str, Any]) -> dict[str, Any]:
        from replaygate.http.recorded import stream_response
        from replaygate.http.sse import parse_events

        sent_path = str(envelope["path"])
        if is_bedrock_call(sent_path):
            return self._send_bedrock(envelope)
        path = api_route(sent_path)
        interface = interface_of(path)
        body = envelope["body"]
        headers = dict(envelope.get("headers") or {})
        host = envelope.get("host")
        google = PROVIDER_OF[interface] == GOOGLE
        stream = (
            ":streamGenerateContent" in path
            if google
            else isinstance(body, dict) and body.get("stream") is True
        )
        if azure_route(host if isinstance(host, str) else None, sent_path):
            url, credential = self.azure_target(sent_path)
            response = self._http().post(url, json=body, headers={**headers, **credential})
        elif google and _VERTEX_GEMINI.match(sent_path):
            url = self.vertex_target(sent_path)
            headers["x-goog-api-key"] = self.key(GOOGLE)
            response = self._http().post(url, json=body, headers=headers)
        elif google:
            headers["x-goog-api-key"] = self.key(GOOGLE)
            url = _join(self.url_of(interface), path)
            response = self._http().post(url, json=body, headers=headers)
        else:
            client = self.client(interface)
            response = client.post(
                _join(self.url_of(interface), path),
                cast_to=_response_class(client),
                body=body,
                options={"headers": headers},
                stream=stream,
                stream_cls=None,
            )
        data = response.read()
        received = list(response.headers.multi_items())
        if stream and response.headers.get("content-type", "").startswith("text/event-stream"):
            events = parse_events(data + b"\n\n")
            return stream_response(response.status_code, received, events, "complete")
        return _json_record(response, data)

    def _send_bedrock(self, envelope: dict[str, Any]) -> dict[str, Any]:
        """The live answer to a recorded Amazon Bedrock call (:mod:`.bedrock_resend`), an
        AWS event stream read into its events."""
        from replaygate.http.aws_events import AWSEventParser, answers_aws_stream
        from replaygate.http.recorded import stream_response

        path = bedrock_resend.sent_path(str(envelope["path"]))
        body = exact_json.dumps(envelope.get("body"))
        headers = {"content-type": "application/json", **dict(envelope.get("headers") or {})}
        at = "us-east-1" if self.base_url else self._bedrock_region(envelope)
        if self.base_url:
            url = self.base_url.rstrip("/") + path
        else:
            host = f"https://bedrock-runtime.{at}.amazonaws.com"
            fix = "set it to the Bedrock endpoint's URL, or unset it"
            name = next((n for n in bedrock_resend.ENDPOINT_ENVS if os.environ.get(n)), None)
            base = self._from_env(BEDROCK, name, host, fix) if name else host
            self._targets.setdefault(BEDROCK, base)
            url = base.rstrip("/") + path
        bearer = _credential(bedrock_resend.BEARER_ENV)
        if bearer:
            headers["Authorization"] = f"Bearer {bearer}"
        else:
            placeholder = self.base_url is not None
            headers = bedrock_resend.signed(url, body, headers, at, placeholder=placeholder)
        response = self._http().post(url, content=body, headers=headers)
        data = response.read()
        received = list(response.headers.multi_items())
        if answers_aws_stream(received):
            parser = AWSEventParser()
            events = [*parser.feed(data)]
            parser.tail()
            return stream_response(response.status_code, received, events, "complete")
        return _json_record(response, data)

    def _bedrock_region(self, envelope: dict[str, Any]) -> str:
        """The region a recorded Bedrock call goes to: its host's, else the configured one."""
        return bedrock_resend.region(envelope.get("host"), bedrock_resend.configured_region())

    def _http(self) -> Any:
        """A plain HTTP client, made once, for the routes no SDK client here sends to
        (Gemini's, whose key goes in a header; Azure OpenAI's): httpx2's, else httpx's (an
        install with httpx alone), else a :class:`~replaygate.errors.MissingExtraError`
        naming the extra to install."""
        if "http" not in self._clients:
            library: Any
            try:
                import httpx2 as library
            except ModuleNotFoundError as err:
                if err.name != "httpx2":
                    raise
                library = require("httpx", "httpx", "re-sending Gemini or Azure OpenAI fixtures")
            self._clients["http"] = library.Client(timeout=120)
        return self._clients["http"]

    def vertex_target(self, path: str) -> str:
        """The URL a Gemini call recorded from Vertex AI (``path``, its query kept) is
        re-sent to, as it was sent: ``base_url`` (a simulator serves Vertex AI's routes),
        else Vertex AI's express mode (``GOOGLE_VERTEX_BASE_URL``, as google-genai reads it,
        or ``https://aiplatform.googleapis.com``), never the Gemini API, which serves no such
        path. A project's call is refused: it is sent with an access token, which drift
        does not fetch."""
        if self.base_url:
            return self.base_url.rstrip("/") + path
        match = _VERTEX_GEMINI.match(path)
        if match is not None and match.group(1):
            raise HygieneError(
                f"{path.partition('?')[0]} was recorded from Vertex AI with a project, which "
                "takes an access token that drift does not fetch: check it against the "
                "simulator (--simulator) or a server of yours (--base-url)"
            )
        fix = "set it to Vertex AI's URL, or unset it"
        return self._from_env(VERTEX, VERTEX_URL_ENV, VERTEX_URL, fix).rstrip("/") + path

    def azure_target(self, path: str) -> tuple[str, dict[str, str]]:
        """The URL an Azure OpenAI route ``path`` (its query kept) is re-sent to, and the
        credential header it carries: ``base_url`` (a simulator serves Azure's routes as
        Azure names them), else the resource of ``AZURE_OPENAI_ENDPOINT`` with the key of
        ``AZURE_OPENAI_API_KEY`` or the token of ``AZURE_OPENAI_AD_TOKEN``. Its deployment
        answers as Azure does (its model, its content filter's fields), which OpenAI's API,
        given the deployment's name as a model, does not."""
        key, token = _credential(AZURE_KEY), _credential(AZURE_TOKEN)
        if self.base_url:
            return self.base_url.rstrip("/") + path, {"api-key": key or PLACEHOLDER_KEY}
        if not os.environ.get(AZURE_ENDPOINT):
            raise HygieneError(
                f"{AZURE_ENDPOINT} is not set: a request recorded from an Azure OpenAI "
                "deployment is re-sent to that resource (https://RESOURCE.openai.azure.com), "
                "not to OpenAI's API (or give --base-url for another server)"
            )
        fix = "set it to the Azure OpenAI resource's URL"
        endpoint = self._from_env(AZURE, AZURE_ENDPOINT, "", fix)
        if key:
            credential = {"api-key": key}
        elif token:
            credential = {"Authorization": f"Bearer {token}"}
        else:
            raise HygieneError(
                f"{AZURE_KEY} (or {AZURE_TOKEN}) is not set: drift re-sends a request "
                f"recorded from an Azure OpenAI deployment to the resource {AZURE_ENDPOINT} "
                "names, with its key"
            )
        return endpoint.rstrip("/") + path, credential

    def close(self) -> None:
        """Close the SDK clients."""
        for client in self._clients.values():
            client.close()
        self._clients.clear()
