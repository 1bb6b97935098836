"""The HTTP request envelope: what of an HTTP request a fixture is matched on.

An envelope is a JSON object::

    {"method": "POST", "path": "/v1/messages", "headers": {...}, "body": {...}}

- ``path`` is decoded, except the escapes of ``/``, ``?``, ``#``, ``%`` and of bytes that
  are not UTF-8 (:func:`decoded_path`); it keeps the query string, its parameters
  sorted (``/v1/messages?beta=true``; a percent-escaped byte that is not UTF-8 kept as
  itself),
  except Google's API key sent as ``?key=`` (:func:`key_is_credential`), which is never
  part of it; elsewhere ``key`` is a parameter like any other;
- ``headers`` holds only the headers that change the meaning of a request:
  :data:`MEANINGFUL_HEADERS` (``anthropic-version``, ``anthropic-beta``,
  ``openai-beta``, and Bedrock's :data:`BEDROCK_HEADERS`), each value the UTF-8 text of
  its bytes as sent (bytes that are not UTF-8 are refused: :func:`read_headers`). Auth
  (``x-api-key``, ``authorization``, ``api-key``, ``x-goog-api-key``, cookies),
  ``x-stainless-*`` (retry count, OS, runtime), ``user-agent``, ``content-length``,
  ``accept-encoding`` and ``idempotency-key`` are never part of it, so they are never
  written to disk and never break a match;
- ``body`` is the parsed JSON body (``null`` when empty; integers kept exact, however
  large: :mod:`~replaygate.exact_json`; a body sent with a ``content-encoding`` is
  decoded first: :func:`~replaygate.http.codings.decoded_body`), less the credentials it
  gives the MCP servers a model API calls itself (:func:`without_mcp_credentials`), which,
  like auth headers, are never written and never break a match; a body that is not JSON is
  kept as ``"text"`` instead (or ``"base64"`` when it is not UTF-8; a multipart body with
  its boundary replaced by :data:`MULTIPART_BOUNDARY`), so a JSON string
  and a text body never share a fingerprint;
- ``host`` (``host`` or ``host:port``) is added only when host matching is asked for:
  by default a proxy or a base URL change does not invalidate fixtures.

The fixture key is :func:`replaygate.fixtures.fingerprint.fixture_key` of the envelope. A
recorded fixture's ``meta.interface_version`` is :func:`interface_version_of` its
envelope: the ``anthropic-version`` header for the Anthropic API, the path's version
segment (``v1``) otherwise.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable
from typing import Any, Protocol
from urllib.parse import parse_qsl, unquote_to_bytes, urlencode

import orjson

from replaygate import exact_json, strict_json
from replaygate.errors import UnstorableValueError, WireFormatError, not_utf8_text
from replaygate.http.base_path import api_route
from replaygate.http.codings import decoded_body
from replaygate.interfaces import interface_of
from replaygate.sanitize.secret_entropy import auth_like

BEDROCK_HEADERS: frozenset[str] = frozenset(
    {
        "x-amzn-bedrock-guardrailidentifier",
        "x-amzn-bedrock-guardrailversion",
        "x-amzn-bedrock-trace",
        "x-amzn-bedrock-service-tier",
        "x-amzn-bedrock-performanceconfig-latency",
    }
)
"""The headers in which Amazon Bedrock's ``invoke`` (boto3's ``invoke_model`` and its
stream) takes the guardrail applied, its trace, the service tier and the latency, which
Converse takes in its body: another guardrail is another request."""
MEANINGFUL_HEADERS: frozenset[str] = (
    frozenset({"anthropic-version", "anthropic-beta", "openai-beta"}) | BEDROCK_HEADERS
)

MODEL_API_ENDINGS: tuple[str, ...] = (
    "/v1/messages/count_tokens",
    "/v1/responses/compact",
    "/v1/embeddings",
    "/v1/moderations",
    ":countTokens",
)
"""Path endings of a model API that serve no interface of their own (they record as
``http``) and that the simulator answers: a token count before a send (Anthropic's,
Gemini's), a compaction of a Responses conversation, embeddings, moderations."""
BEDROCK_CALL = re.compile(
    r"/model/[^/]+/(?:invoke|invoke-with-response-stream|converse|converse-stream|count-tokens)"
    r"(?=\?|$)"
)
"""Amazon Bedrock's model call (``/model/<id>/invoke``, ``converse`` and their streams, and
``count-tokens``, the input's token count), in a path with its query or without."""
VERTEX_CALL = re.compile(r"/publishers/[^/]+/models/[^/]+:(?:rawPredict|streamRawPredict)(?=\?|$)")
"""Vertex AI's ``rawPredict`` of a publisher's model (``anthropic.AnthropicVertex``'s), in
a path with its query or without."""
CLOUD_MODEL_CALLS = (BEDROCK_CALL, VERTEX_CALL)
"""The model calls of a cloud's API that serve no interface of their own (they record as
``http``), which the simulator answers at their own paths
(:mod:`replaygate.sim.platforms`)."""
MODEL_API_TREES: tuple[str, ...] = ("/v1/conversations", "/v1/responses", "/v1/messages/batches")
"""Paths of a model API below which the paths serve no interface of their own (they
record as ``http``) and that the simulator answers: OpenAI's Conversations API
(``/v1/conversations/{id}/items``, ...), the Responses API's stored responses
(``/v1/responses/{id}``, retrieved or deleted) and Anthropic's Message Batches
(``/v1/messages/batches/{id}/results``, ...). OpenAI's Files and Batch APIs, which the
simulator answers too, are not: other services serve ``/v1/files``; they are an API call
on OpenAI's host only."""


class URLLike(Protocol):
    """The parts of an ``httpx``/``httpx2`` URL the envelope reads."""

    @property
    def scheme(self) -> str: ...

    @property
    def host(self) -> str: ...

    @property
    def port(self) -> int | None: ...

    @property
    def path(self) -> str: ...

    @property
    def query(self) -> bytes: ...

    @property
    def raw_path(self) -> bytes: ...


class HeadersLike(Protocol):
    """The part of an ``httpx``/``httpx2`` ``Headers`` the envelope reads."""

    @property
    def raw(self) -> list[tuple[bytes, bytes]]: ...

    def multi_items(self) -> list[tuple[str, str]]: ...


class RequestLike(Protocol):
    """The parts of an ``httpx``/``httpx2`` ``Request`` the envelope reads (body already read)."""

    @property
    def method(self) -> str: ...

    @property
    def url(self) -> URLLike: ...

    @property
    def headers(self) -> HeadersLike: ...

    @property
    def content(self) -> bytes: ...


GOOGLE_KEY_PARAM = "key"
"""The query parameter that carries a Google API key (``?key=``), where
:func:`key_is_credential`."""

GOOGLE_API_HOST = re.compile(r"(?:^|\.)googleapis\.com\.?$", re.IGNORECASE)
"""Google's API hosts (``generativelanguage.googleapis.com``, ...)."""

GEMINI_METHOD = re.compile(r"/(?:models|tunedModels)/[^/]+:[A-Za-z]+/?$")
"""A Gemini API call on a model, whatever host serves it (a proxy, the simulator):
``/v1beta/models/gemini-2.0-flash:generateContent``, ``...:countTokens``."""

GEMINI_MODELS = re.compile(r"/v1(?:alpha|beta)?/(?:models|tunedModels)(?:/[^/:]+)?/?$")
"""The Gemini API's list of its models and one model of it (``models.list``,
``models.get``), whatever host serves them: ``/v1beta/models``,
``/v1beta/models/gemini-2.0-flash``."""


PROVIDER_API_HOST = re.compile(
    r"(?:^|\.)(?:api\.openai\.com|api\.anthropic\.com|openai\.azure\.com"
    r"|generativelanguage\.googleapis\.com)\.?$"
    r"|(?:^|[.-])aiplatform\.googleapis\.com\.?$"
    r"|^bedrock-runtime(?:-fips)?\.[a-z0-9-]+\.amazonaws\.com\.?$",
    re.IGNORECASE,
)
"""The hosts of the providers' model APIs (OpenAI, Anthropic, Azure OpenAI, Gemini,
Vertex AI, a region's ``us-central1-aiplatform.googleapis.com`` included, and Amazon
Bedrock's runtime, ``bedrock-runtime.us-east-1.amazonaws.com``): every request
to one is a call of the API (a file upload, a transcription, a batch), never a side
request of a framework. Google's other API hosts (``oauth2.googleapis.com``, storage)
are not: a framework fetching a token there is sent where it is addressed."""


PROVIDER_TELEMETRY = re.compile(r"^/v1/traces/ingest/?$")
"""The paths of a provider's host that call none of its APIs: the OpenAI Agents SDK's
upload of a run's traces (``POST api.openai.com/v1/traces/ingest``), which its exporter
sends from a background thread every few seconds and at exit, a side request like
LangSmith's (:mod:`~replaygate.http.side_request`)."""

OPENAI_MODEL_ENDINGS: tuple[str, ...] = (
    "/v1/audio/transcriptions",
    "/v1/audio/translations",
    "/v1/audio/speech",
    "/v1/images/generations",
    "/v1/images/edits",
    "/v1/images/variations",
    "/v1/moderations",
)
"""OpenAI's model calls beyond text: its audio API (speech to text, its translation, text
to speech), images (made, edited, varied) and moderations, read from the provider's route
on (:func:`~.base_path.api_route`), which OpenAI-compatible servers serve too (a local
Whisper server on loopback, Groq's ``/openai/v1/audio/...``, a gateway's
``/v1/images/generations``): a call of a model API on any host, never a framework's side
request."""


def is_api_call(host: str | None, path: str) -> bool:
    """Whether a request to ``host`` and ``path`` calls a provider's API: a model API's
    path (:func:`is_model_api`), or any path of a provider's host (:data:`PROVIDER_API_HOST`)
    but its telemetry's (:data:`PROVIDER_TELEMETRY`), or an audio, image or moderation call
    on any host (:data:`OPENAI_MODEL_ENDINGS`)."""
    if is_model_api(path) or api_route(path.split("?", 1)[0]).rstrip("/").endswith(
        OPENAI_MODEL_ENDINGS
    ):
        return True
    return bool(host and PROVIDER_API_HOST.search(host)) and not PROVIDER_TELEMETRY.match(path)


def key_is_credential(host: str | None, path: str) -> bool:
    """Whether a ``key`` query parameter of a request to ``host`` and ``path`` is an API
    key: on a Google API host, or on a Gemini model call (:data:`GEMINI_METHOD`) or its
    models' list or one model (:data:`GEMINI_MODELS`). Anywhere else ``key`` is data (a
    key-value store's, a cache's) and is matched like any other parameter; a
    secret-looking value there is refused by the secret scan."""
    return (
        bool(host and GOOGLE_API_HOST.search(host))
        or GEMINI_METHOD.search(path) is not None
        or GEMINI_MODELS.search(path) is not None
    )


def canonical_path(path: str, query: bytes | str, *, host: str | None = None) -> str:
    """``path`` with its query parameters sorted by name, Google's API key left out
    where :func:`key_is_credential` for ``host`` (and no ``?`` when nothing is left).

    The sort is stable: the values of a repeated name keep the order they were sent
    in (``?sort=name&sort=date`` and ``?sort=date&sort=name`` are two requests)."""
    if not query:
        return path
    text = query.decode("utf-8", "surrogateescape") if isinstance(query, bytes) else query
    dropped = GOOGLE_KEY_PARAM if key_is_credential(host, path) else None
    # A byte that is not UTF-8 (``%FF``) is kept as itself, not as U+FFFD: two queries
    # that differ only there are two requests.
    pairs = sorted(
        (
            (name, value)
            for name, value in parse_qsl(
                text, keep_blank_values=True, encoding="utf-8", errors="surrogateescape"
            )
            if name.lower() != dropped
        ),
        key=lambda pair: pair[0],
    )
    if not pairs:
        return path
    return f"{path}?{urlencode(pairs, encoding='utf-8', errors='surrogateescape')}"


_KEPT_ESCAPE = re.compile(r"%(2[fF]|3[fF]|23|25)")
"""Escapes a path keeps: of ``/``, ``?``, ``#`` and ``%``, whose decoded forms mean
something else (``a%2Fb`` is one segment, ``a/b`` two; ``x%3Fy=1`` has no query)."""
_SURROGATE = re.compile("[\udc80-\udcff]")


def _unquoted(segment: str) -> str:
    """``segment`` percent-decoded; a byte that is not UTF-8 stays escaped (``%FF``)."""
    raw = unquote_to_bytes(segment.encode("utf-8", "surrogateescape"))
    text = raw.decode("utf-8", "surrogateescape")
    return _SURROGATE.sub(lambda m: f"%{ord(m.group()) - 0xDC00:02X}", text)


def decoded_path(raw: str) -> str:
    """The path of an envelope from a path as sent (percent-encoded): decoded, except the
    escapes of ``/``, ``?``, ``#`` and ``%`` (kept, in upper case) and of bytes that are
    not UTF-8, so two paths that name different resources never share a form."""
    if "%" not in raw and raw.isascii():  # nothing escaped: the path as sent (most are)
        return raw or "/"
    parts = _KEPT_ESCAPE.split(raw)
    out: list[str] = []
    for i, part in enumerate(parts):
        out.append(_unquoted(part) if i % 2 == 0 else f"%{part.upper()}")
    return "".join(out) or "/"


def path_of(url: URLLike) -> str:
    """The envelope path of ``url``, from its path as sent: :func:`decoded_path`."""
    raw = url.raw_path.split(b"?", 1)[0]
    return decoded_path(raw.decode("utf-8", "surrogateescape"))


def select_headers(
    headers: Iterable[tuple[str, str]], names: frozenset[str], joiner: str
) -> dict[str, str]:
    """The headers named in ``names``, lower-case names, repeated values joined."""
    kept: dict[str, str] = {}
    for name, value in headers:
        lower = name.lower()
        if lower in names:
            kept[lower] = f"{kept[lower]}{joiner}{value}" if lower in kept else value
    return kept


def meaningful_headers(headers: Iterable[tuple[str, str]]) -> dict[str, str]:
    """The headers of :data:`MEANINGFUL_HEADERS` (repeated values joined by a comma)."""
    return select_headers(headers, MEANINGFUL_HEADERS, ",")


_MEANINGFUL_RAW = frozenset(name.encode("ascii") for name in MEANINGFUL_HEADERS)
_MEANINGFUL_FIRST = frozenset(
    ord(c) for name in MEANINGFUL_HEADERS for c in name[0] + name[0].upper()
)
_MEANINGFUL_LENGTHS = frozenset(len(name) for name in MEANINGFUL_HEADERS)


def _kept_text(name: str, raw: bytes) -> str:
    """The text of the kept header ``name``'s value ``raw``; bytes that are not UTF-8 are
    refused (:class:`~replaygate.errors.WireFormatError` naming the header): the envelope
    holds text, and no other text would stand for exactly these bytes."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise WireFormatError(
            f"request.headers.{name}",
            f"{not_utf8_text(err)}; a kept header is stored as text, so this request can be "
            "neither recorded nor matched: send its value as UTF-8",
        ) from None


CONTENT_ENCODING = "content-encoding"
"""The header an envelope keeps for a body labelled with codings it is not in (a text
body labelled ``gzip``): their names, as sent."""
_CODING = CONTENT_ENCODING.encode("ascii")
_LOOKED_AT_LENGTHS = _MEANINGFUL_LENGTHS | {len(_CODING)}
_LOOKED_AT_FIRST = _MEANINGFUL_FIRST | {ord("c"), ord("C")}


def read_headers(headers: Iterable[tuple[bytes, bytes]]) -> tuple[dict[str, str], list[str]]:
    """:func:`meaningful_headers` of raw header bytes (decoding only the kept ones, which
    must be UTF-8: :func:`_kept_text`), and the body's content codings as sent
    (``identity`` left out), in one pass over them."""
    kept: dict[str, str] = {}
    codings: list[str] = []
    for raw_name, raw_value in headers:
        if len(raw_name) not in _LOOKED_AT_LENGTHS or raw_name[0] not in _LOOKED_AT_FIRST:
            continue  # most headers are told apart by their length and first letter
        lower = raw_name.lower()
        if lower in _MEANINGFUL_RAW:
            name = lower.decode("ascii")
            value = _kept_text(name, raw_value)
            kept[name] = f"{kept[name]},{value}" if name in kept else value
        elif lower == _CODING:
            # a coding's name is ASCII: any other byte makes one no decoder knows
            named = raw_value.decode("latin-1").split(",")
            codings.extend(c.strip().lower() for c in named if c.strip())
    return kept, [c for c in codings if c != "identity"]


def body_field(body: bytes, *, unique_keys: bool = False) -> tuple[str, Any]:
    """``("body", <JSON>)``, ``("text", ...)`` or ``("base64", ...)`` for raw body bytes.

    An empty body is ``("body", None)``; a body that is JSON ``null`` is kept as text, so it
    is not taken for an empty one. With ``unique_keys``, JSON whose object names a key twice
    raises :class:`~replaygate.strict_json.DuplicateKeyError`.
    """
    if not body:
        return "body", None
    try:
        value = exact_json.loads(body, unique_keys=unique_keys)
    except orjson.JSONDecodeError:
        pass
    else:
        if value is not None:
            return "body", value
    return raw_body_field(body)


def raw_body_field(body: bytes) -> tuple[str, str]:
    """``("text", ...)`` for UTF-8 body bytes, else ``("base64", ...)``: the bytes as they
    are, whatever they hold."""
    try:
        return "text", body.decode("utf-8")
    except UnicodeDecodeError:
        return "base64", base64.b64encode(body).decode("ascii")


MCP_TOOL_TYPES = frozenset({"mcp"})
"""The Responses API tool types that name an MCP server the API calls itself."""


def _without(entry: dict[str, Any], name: str) -> dict[str, Any]:
    return {k: v for k, v in entry.items() if k != name}


def _is_mcp_tool(tool: Any) -> bool:
    """Whether ``tool`` is a Responses API tool of type ``mcp`` (:data:`MCP_TOOL_TYPES`)."""
    return isinstance(tool, dict) and tool.get("type") in MCP_TOOL_TYPES


def _mcp_tool(tool: Any) -> Any:
    """A Responses API ``mcp`` tool without its ``authorization`` and the auth headers of
    its ``headers`` (:func:`~replaygate.sanitize.secret_entropy.auth_like` names); any
    other tool as it is."""
    if not _is_mcp_tool(tool):
        return tool
    kept = _without(tool, "authorization")
    headers = kept.get("headers")
    if isinstance(headers, dict):
        kept["headers"] = {k: v for k, v in headers.items() if not auth_like(k)}
    return kept


def without_mcp_credentials(body: Any) -> Any:
    """``body`` (a request's parsed JSON) without the credentials it gives the MCP servers
    a model API calls itself: the ``authorization_token`` of each of ``mcp_servers``
    (Anthropic's MCP connector), and the ``authorization`` and auth headers of each tool of
    type ``mcp`` (the Responses API's remote MCP tool). They say nothing of what is asked,
    and the token a replay runs with is not the recording's: as an auth header, such a
    value is neither stored nor matched. Anything else is returned as it is."""
    if not isinstance(body, dict):
        return body
    servers, tools = body.get("mcp_servers"), body.get("tools")
    # most bodies name no MCP server and give no MCP tool: returned as they are, uncopied
    mcp_tools = tools if isinstance(tools, list) and any(map(_is_mcp_tool, tools)) else None
    if not isinstance(servers, list) and mcp_tools is None:
        return body
    out = dict(body)
    if isinstance(servers, list):
        out["mcp_servers"] = [
            _without(s, "authorization_token") if isinstance(s, dict) else s for s in servers
        ]
    if mcp_tools is not None:
        out["tools"] = [_mcp_tool(tool) for tool in mcp_tools]
    return out


def envelope(
    method: str,
    path: str,
    query: bytes | str,
    headers: Iterable[tuple[str, str]] | dict[str, str],
    body: bytes,
    *,
    host: str | None = None,
    sent_to: str | None = None,
) -> dict[str, Any]:
    """The envelope of one HTTP request; ``host`` is included only when given.

    ``headers`` are all the request's headers (name, value), or a dict already
    reduced by :func:`meaningful_headers`. ``sent_to`` is the host the request goes to,
    which tells whether its ``key`` parameter is an API key (:func:`key_is_credential`).
    A JSON body whose object names a key twice is refused
    (:class:`~replaygate.errors.WireFormatError` naming the key): a server reads one of
    its values, the envelope would hold the last, and another body, without the first,
    would match it.
    """
    try:
        field, value = body_field(body, unique_keys=True)
    except strict_json.DuplicateKeyError as err:
        raise WireFormatError(
            f"request.body.{err.path}",
            "an object names this key twice; a server reads one of its values, and the "
            "stored request could not say which, so this request can be neither recorded "
            "nor matched: send the key once",
        ) from None
    except RecursionError:  # nested deeper than orjson writes
        raise _too_deep(body) from None
    env: dict[str, Any] = {
        "method": method.upper(),
        "path": canonical_path(path, query, host=sent_to),
        "headers": headers if isinstance(headers, dict) else meaningful_headers(headers),
        field: without_mcp_credentials(value) if field == "body" else value,
    }
    if host is not None:
        env["host"] = host
    return env


BODY_FIELDS = ("body", "text", "base64")
"""The field an envelope holds its body in: JSON, else UTF-8 text, else base64
(:func:`body_field`)."""
_ENVELOPE_FIELDS = frozenset({"method", "path", "headers", "host", *BODY_FIELDS})


def envelope_problems(request: dict[str, Any]) -> list[str]:
    """Why ``request``, a stored HTTP envelope (one with a method and a path), can match
    no request sent, each reason naming its field: a field every envelope holds is missing
    or of another kind, one no envelope holds is there, or the method is not written as
    sent (a fixture written by hand, or edited). Empty for an envelope :func:`envelope`
    could make."""
    problems = []
    method = request.get("method")
    if not isinstance(method, str) or method != method.upper():
        problems.append(f"request.method: {method!r} is not upper case, as every method sent is")
    headers = request.get("headers")
    if not isinstance(headers, dict) or not all(isinstance(v, str) for v in headers.values()):
        got = "missing" if "headers" not in request else f"not an object of texts: {headers!r}"
        problems.append(
            f"request.headers: {got}; every HTTP request's envelope holds the headers it "
            "kept ({} for none)"
        )
    bodies = [name for name in BODY_FIELDS if name in request]
    if len(bodies) != 1:
        got = f"{' and '.join(bodies)} both" if bodies else "no body"
        problems.append(
            f"request: holds {got}; every HTTP request's envelope holds its body in exactly "
            'one of body, text and base64 ("body": null for an empty one)'
        )
    problems.extend(
        f"request.{name}: no HTTP request's envelope holds this field (it holds method, "
        "path, headers, body, text or base64, and host)"
        for name in sorted(set(request) - _ENVELOPE_FIELDS)
    )
    return [f"{reason}, so no request sent can match this fixture" for reason in problems]


def _too_deep(body: bytes) -> UnstorableValueError:
    """The refusal of a JSON request ``body`` nested deeper than a store line holds,
    naming its deepest field as a recording names it: no fixture can hold the request,
    and walking it by recursion would fail on some Pythons and not on others."""
    from replaygate.fixtures.store.writing import unwritable

    where, why = unwritable({"request": {"body": orjson.loads(body)}})
    return UnstorableValueError(where, why, before_send=True)


def host_of(url: URLLike) -> str:
    """``host`` or ``host:port`` of a URL, an IPv6 address in brackets (``[::1]:8080``,
    never the ``::1:8080`` of another address), for host matching."""
    host = f"[{url.host}]" if ":" in url.host else url.host
    return f"{host}:{url.port}" if url.port is not None else host


def origin_of(url: URLLike) -> str:
    """``scheme://host[:port]`` of a URL (no user or password), to name where a request
    went."""
    return f"{url.scheme}://{host_of(url)}"


MULTIPART_BOUNDARY = b"replaygate-boundary"
"""The boundary a multipart body (a file upload) is kept with in its envelope, for the
random one its client drew: the same upload has the same envelope on every run."""

_BOUNDARY = re.compile(rb'^\s*multipart/[^;]*;(?:.*;)?\s*boundary="?([^";\s]+)"?', re.I)


def _boundary(headers: Iterable[tuple[bytes, bytes]]) -> bytes | None:
    """The boundary named by a multipart ``content-type``, or None."""
    for name, value in headers:
        if len(name) == 12 and name.lower() == b"content-type":
            match = _BOUNDARY.match(value)
            return match.group(1) if match else None
    return None


def stable_body(content: bytes, headers: Iterable[tuple[bytes, bytes]]) -> bytes:
    """``content``, or a multipart body with its boundary replaced by
    :data:`MULTIPART_BOUNDARY` (only a multipart body begins with ``--``). A body already
    holding that text (a form value quoting it) is kept as sent: replaced, it could read
    as another body's parts, and be answered with that body's fixture; kept, its random
    boundary makes it miss, loudly."""
    if content[:2] != b"--" or b"--" + MULTIPART_BOUNDARY in content:
        return content
    boundary = _boundary(headers)
    if boundary is None:
        return content
    return content.replace(b"--" + boundary, b"--" + MULTIPART_BOUNDARY)


def request_envelope(request: RequestLike, *, match_host: bool = False) -> dict[str, Any]:
    """The envelope of an ``httpx``/``httpx2`` request whose body has been read (a
    compressed body decoded: :func:`~replaygate.http.codings.decoded_body`; a multipart
    body with a stable
    boundary: :func:`stable_body`)."""
    url = request.url
    raw = request.headers.raw
    kept, codings = read_headers(raw)
    body = request.content
    if codings:
        body, not_in = decoded_body(body, codings)
        if not_in:  # a text body labelled compressed: not the request of it compressed
            kept = {**kept, CONTENT_ENCODING: ", ".join(not_in)}
    return envelope(
        request.method,
        path_of(url),
        url.query,
        kept,
        stable_body(body, raw),
        host=host_of(url) if match_host else None,
        sent_to=url.host,
    )


def is_model_api(path: str) -> bool:
    """Whether ``path`` is a model API's: one an interface serves, one of
    :data:`MODEL_API_ENDINGS`, or one of :data:`MODEL_API_TREES` or below it, read from
    the provider's route on (:func:`~.base_path.api_route`: Azure OpenAI's
    ``/openai/deployments/<name>/embeddings`` is ``/v1/embeddings``); or a cloud's model
    call (:data:`CLOUD_MODEL_CALLS`)."""
    bare = api_route(path.split("?", 1)[0]).rstrip("/")
    if interface_of(bare) != "http" or bare.endswith(MODEL_API_ENDINGS):
        return True
    if any(call.search(bare) for call in CLOUD_MODEL_CALLS):
        return True
    return any(bare.endswith(tree) or f"{tree}/" in bare for tree in MODEL_API_TREES)


_PATH_VERSION = re.compile(r"/(v\d+(?:beta\d*|alpha\d*)?)(?=/|$)")
UNVERSIONED = "unversioned"


def interface_version_of(envelope: dict[str, Any]) -> str:
    """The interface version an envelope speaks.

    ``anthropic-version`` for ``anthropic.messages``; else the first version segment
    of the path (``/v1/chat/completions`` -> ``v1``); else ``unversioned``.
    """
    path = str(envelope.get("path", "")).split("?", 1)[0]
    headers = envelope.get("headers")
    if interface_of(path) == "anthropic.messages" and isinstance(headers, dict):
        version = headers.get("anthropic-version")
        if isinstance(version, str) and version:
            return version
    match = _PATH_VERSION.search(path)
    return match.group(1) if match else UNVERSIONED
