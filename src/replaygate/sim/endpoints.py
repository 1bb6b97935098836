"""The APIs the simulator serves, one :class:`Endpoint` each.

An endpoint knows its route, how a caller authenticates, how a request is checked
and read into engine types, and how an answer is rendered as a body and as a stream.
The app (:mod:`replaygate.sim.app`) runs the same steps for every endpoint: fault,
auth, validation, behaviour, rendering, drift.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any
from urllib.parse import parse_qs, parse_qsl, unquote

from replaygate.digits import integer
from replaygate.errors import WireFormatError
from replaygate.http.sse import SSEEvent
from replaygate.models.providers.anthropic import from_anthropic_request, to_anthropic_response
from replaygate.models.providers.google_gemini import (
    camel_case_request,
    camel_case_schema,
    from_gemini_request,
    to_gemini_response,
)
from replaygate.models.providers.openai_chat import (
    as_function_call,
    from_openai_request,
    to_openai_response,
)
from replaygate.models.providers.openai_responses import (
    from_responses_request,
    from_responses_response,
    response_usage,
    to_responses_response,
)
from replaygate.models.types import Message, ModelResponse, ToolSpec, Usage
from replaygate.sim import catalogue, embeddings, logprobs
from replaygate.sim.anthropic_files import UploadedFiles, beta_named
from replaygate.sim.arguments import in_json
from replaygate.sim.bounded import KEPT_CONVERSATIONS, Bounded
from replaygate.sim.citations import citations_with_a_schema, cited, with_citations
from replaygate.sim.conversations import Conversations, created_at, not_served
from replaygate.sim.draws import Draws
from replaygate.sim.faults import FaultKind
from replaygate.sim.gemini_events import gemini_error_event, gemini_events
from replaygate.sim.json_word import chat_json_word, responses_json_word
from replaygate.sim.message_batches import MessageBatches
from replaygate.sim.moderations import Moderations
from replaygate.sim.openai_batches import Batches, Files, form
from replaygate.sim.openai_conversations import ConversationStore, conversation_not_found
from replaygate.sim.openai_params import unknown_param
from replaygate.sim.prompt_cache import cache_control_refused, uncached_usage
from replaygate.sim.replies import (
    Provider,
    Reply,
    array_reply,
    invalid_reply,
    json_reply,
    openai_error,
    status_error,
    stream_reply,
)
from replaygate.sim.responses_events import responses_error_event, responses_events
from replaygate.sim.streaming import (
    Patch,
    anthropic_error_event,
    anthropic_events,
    openai_chunks,
    openai_error_chunk,
)
from replaygate.sim.strict_schema import (
    anthropic_strict_schema,
    chat_strict_schema,
    responses_strict_schema,
)
from replaygate.sim.thinking import (
    ANTHROPIC_SENTENCES,
    ENCRYPTED_REASONING,
    default_effort,
    reasoning_item,
    reasoning_sentences,
    redacting,
    signature,
    thinking_block,
)
from replaygate.sim.tokens import input_tokens, tokens
from replaygate.sim.validation import (
    GEMINI_SIGNING,
    Invalid,
    anthropic_authenticated,
    anthropic_version_problem,
    api_tool_unmade,
    audio_asked,
    beta_misnamed,
    budget_over_max,
    compaction_unmade,
    custom_forced,
    duplicate_items,
    gemini_cache_refused,
    gemini_modalities_refused,
    gemini_output_limit_refused,
    gemini_output_refused,
    gemini_penalty_refused,
    gemini_signature_missing,
    gemini_thinking_config,
    gemini_thinking_refused,
    gemini_thinks,
    gemma_refused,
    google_authenticated,
    hosted_forced,
    item_ids,
    mcp_beta_missing,
    openai_authenticated,
    unanswered_outputs,
    validate_anthropic,
    validate_gemini,
    validate_openai,
    validate_responses,
)
from replaygate.stream_answers import messages_answer, responses_answer, responses_started

Conversation = tuple[list[Message], list[ToolSpec], str | None]

AskModel = Callable[["Endpoint", Any], "tuple[int, Any] | Invalid"]
"""The answer (a status and its JSON body) ``Endpoint`` gives to a JSON request body, as
the app makes it with the behaviour, or the simulator's own refusal of it."""


@dataclass(frozen=True)
class Sent:
    """What a resource may read of a request beyond its route and JSON body: the origin it
    was sent to (a URL it names), its body as sent with its type (an upload), and a way to
    ask the model (``ask``: a batch's requests)."""

    origin: str
    """``http://`` and its ``Host``, or ``https://`` and its ``X-Forwarded-Host`` (the
    API's host it was addressed to, for a request moved here)."""
    content_type: str
    raw: bytes
    ask: AskModel
    headers: Mapping[str, str] = field(default_factory=dict)
    """Its headers, their names in lower case."""


@dataclass(frozen=True)
class SimRequest:
    """A routed request: its JSON body, the model it names, and whether it streams.

    ``body`` is what the endpoint reads: for an Anthropic thread continued, the request
    the thread stands for (the held fields and messages, then the new turn's);
    ``problem`` a refusal found while routing it (a thread the server does not hold).
    """

    body: Any
    model: str
    stream: bool
    problem: Invalid | None = None
    betas: tuple[str, ...] = ()
    """The betas the body names in place of the ``anthropic-beta`` header (Amazon Bedrock's
    ``anthropic_beta``)."""
    echoed: Mapping[str, Any] = field(default_factory=dict)
    """Fields of the request its answer repeats as they were given (Bedrock Converse's
    ``serviceTier`` and ``performanceConfig``)."""


@dataclass(frozen=True)
class Stream:
    """How a stream is made: the piece size, the drift patch, the fault drawn."""

    chunk_size: int
    patch: Patch
    fault: FaultKind | None


class Endpoint(ABC):
    """One API: its route, auth, validation, reading, rendering and streaming."""

    provider: Provider
    route: str
    methods: tuple[str, ...] = ("POST",)
    """The HTTP methods it answers; any other is a 405."""
    counts_tokens = False
    """Whether it answers the conversation's input token count instead of a response."""
    others_unserved = False
    """Whether a request to its route that is not meant for it (:meth:`called_by`) is to
    a route the simulator does not serve, rather than one whose credentials it refuses."""
    call_prefix: str | None = None
    """How the API begins the ids of the tool calls it makes (``toolu_``, ``call_``): the
    ids of those the simulator makes begin so (:func:`~replaygate.sim.behaviors.made_calls`);
    None keeps them as made."""

    def counted(self, tokens: int) -> dict[str, Any]:
        """The answer of a token count (:attr:`counts_tokens`) of ``tokens`` input tokens."""
        return {"input_tokens": tokens}

    def serves(self, route: str) -> bool:
        """Whether ``route`` (a path without its query) is this endpoint's."""
        return route == self.route

    def called_by(self, headers: Mapping[str, str], query: str) -> bool:
        """Whether a request to a route it serves is meant for it: one route the APIs share
        (``/v1/models``) is told apart by the caller's credentials (:func:`caller`)."""
        return True

    def request(self, route: str, body: Any) -> SimRequest:
        """The request this endpoint reads from ``route`` and a parsed JSON ``body``."""
        if not isinstance(body, dict):
            return SimRequest(body, "", False)
        model = body.get("model")
        return SimRequest(body, model if isinstance(model, str) else "", body.get("stream") is True)

    def authenticated(self, headers: Mapping[str, str], query: str) -> bool:
        """Whether the request carries the credentials this API asks for."""
        return openai_authenticated(headers)

    def header_problem(self, headers: Mapping[str, str]) -> Invalid | None:
        """Why the API would refuse the request's headers (a version it does not know),
        checked once the caller is authenticated; None for none."""
        return None

    def query_problem(self, route: str, query: str) -> Invalid | None:
        """Why the API would refuse the request's query (a parameter it requires missing),
        checked once the caller is authenticated; None for none."""
        return None

    def beta_problem(self, headers: Mapping[str, str], request: SimRequest) -> Invalid | None:
        """Why the API would refuse a field of the (valid) request that only a beta its
        headers do not name lets through; None for none."""
        return None

    def unmade_call(self, request: SimRequest, called: Sequence[str]) -> Invalid | None:
        """Why the simulator cannot give the (valid) request the answer its behaviour made,
        calling the tools named ``called`` (a call the API would make otherwise); None for
        none."""
        return None

    def choices(self, request: SimRequest) -> int:
        """How many answers the (valid) request asks for, each a draw of its own."""
        return 1

    def output_limit(self, request: SimRequest) -> int | None:
        """The most output tokens the (valid) request allows, or None for no limit."""
        return None

    def stop_sequences(self, request: SimRequest) -> tuple[str, ...]:
        """The texts at which the (valid) request asks the answer to stop, none by default."""
        return ()

    def stopped_by(self, wire: dict[str, Any], sequence: str) -> dict[str, Any]:
        """``wire`` naming the stop sequence its answer stopped at, where the API names it."""
        return wire

    def offered(self, request: SimRequest, tools: Sequence[ToolSpec]) -> list[ToolSpec]:
        """The tools of ``tools`` the request's tool choice lets the model call."""
        return list(tools)

    def one_call(self, request: SimRequest) -> bool:
        """Whether the request turns parallel tool calls off (one call a turn at most)."""
        return False

    def forced(self, request: SimRequest) -> bool:
        """Whether the request's tool choice forces a tool call (any, or a named one)."""
        return False

    def json_schema(self, request: SimRequest) -> Mapping[str, Any] | None:
        """The JSON schema the request asks the answer's text to follow, or None."""
        return None

    def in_format(
        self, request: SimRequest, answer: ModelResponse, schema: Mapping[str, Any]
    ) -> ModelResponse:
        """``answer`` with its text in the format the request asks for (:meth:`json_schema`):
        JSON of ``schema``."""
        return in_json(answer, schema)

    def thinking(self, request: SimRequest) -> int:
        """How many sentences the (valid) request's answer thinks before it answers (0: it
        does not think)."""
        return 0

    def learn(self, method: str, route: str, body: Any, answer: Mapping[str, Any]) -> None:
        """Take ``answer`` (a success's body), given to ``method`` on ``route`` with
        ``body`` by a recording from a fixture, as answered here: keep what answering it
        would have kept (:mod:`replaygate.http.learners`). Most endpoints keep nothing."""
        return None

    def streamed_answer(self, events: Sequence[Any]) -> Mapping[str, Any] | None:
        """The answer a recorded stream of this endpoint holds, for :meth:`learn`; None
        where nothing is learned from one."""
        return None

    def with_choices(
        self, request: SimRequest, wire: dict[str, Any], more: Sequence[ModelResponse]
    ) -> dict[str, Any]:
        """The rendered body ``wire`` with the answers ``more`` after its own."""
        return wire

    @abstractmethod
    def validate(self, request: SimRequest) -> Invalid | None:
        """``None`` for a valid request, else what is wrong with it."""

    @abstractmethod
    def read(self, request: SimRequest) -> Conversation:
        """The conversation, tools and system prompt of a valid request."""

    @abstractmethod
    def render(
        self,
        request: SimRequest,
        conversation: Conversation,
        response: ModelResponse,
        tag: str,
        thought: str,
    ) -> dict[str, Any]:
        """The response body answering ``request`` with ``response``, after ``thought``
        (the thinking asked for, :meth:`thinking`; empty when none was).

        ``tag`` is the answer's own (:meth:`~replaygate.sim.draws.Draw.tag`): the ids
        are made of it, unique to the answer and the same for the same seed and
        conversation, whenever other requests came.
        """

    @abstractmethod
    def events(self, request: SimRequest, wire: dict[str, Any], stream: Stream) -> list[SSEEvent]:
        """The event stream of the rendered body ``wire``."""

    def streams_an_array(self, query: str) -> bool:
        """Whether a stream asked for with the request's ``query`` goes as a JSON array of
        its events' data, not as server-sent events."""
        return False

    def answered(self, wire: dict[str, Any], request_id: str) -> Reply:
        """The reply of the answer ``wire`` (:meth:`render`), not streamed."""
        return json_reply(200, wire, provider=self.provider, request_id=request_id)

    def streamed(
        self, query: str, events: list[SSEEvent], request_id: str, cut_after: int | None
    ) -> Reply:
        """The reply streaming ``events`` (:meth:`events`): server-sent events, or a JSON
        array where the request's ``query`` asks for one (:meth:`streams_an_array`)."""
        framed = array_reply if self.streams_an_array(query) else stream_reply
        return framed(events, provider=self.provider, request_id=request_id, cut_after=cut_after)

    def error(
        self,
        status: int,
        request_id: str,
        *,
        message: str | None = None,
        retry_after: float | None = None,
    ) -> Reply:
        """The API's error reply of ``status`` (:func:`~replaygate.sim.replies.status_error`);
        a platform serving the API at a route of its own answers with its own shapes."""
        return status_error(
            self.provider, status, request_id, message=message, retry_after=retry_after
        )

    def refused(self, problem: Invalid, request_id: str) -> Reply:
        """The API's reply to a request it refuses for ``problem``
        (:func:`~replaygate.sim.replies.invalid_reply`)."""
        return invalid_reply(self.provider, problem, request_id)


def caller(headers: Mapping[str, str], query: str) -> Provider:
    """The API a request's credentials and headers are for: Google's key
    (``x-goog-api-key``, ``?key=``), Anthropic's (``x-api-key``, ``anthropic-version``),
    else OpenAI's bearer key; Anthropic's without any."""
    if "x-goog-api-key" in headers or any(name == "key" for name, _ in parse_qsl(query)):
        return "google"
    if "x-api-key" in headers or "anthropic-version" in headers:
        return "anthropic"
    return "openai" if "authorization" in headers or "api-key" in headers else "anthropic"


class Threads:
    """The Anthropic conversations the server holds (Threads), by the id of the response
    that ended each: the request fields it holds (all but ``messages``, ``stream`` and
    ``thread``), its messages with the answer, and whether a request continued it yet.
    The most recent :data:`KEPT_CONVERSATIONS` are kept."""

    def __init__(self, limit: int = KEPT_CONVERSATIONS) -> None:
        self._continued: set[str] = set()
        self._held: Bounded[tuple[dict[str, Any], list[Any]]] = Bounded(
            limit, on_forget=self._continued.discard
        )
        self.limit = limit

    def resolve(self, body: dict[str, Any]) -> tuple[dict[str, Any], Invalid | None]:
        """The request ``body`` stands for, and why it is refused if it is."""
        thread = body.get("thread")
        if not isinstance(thread, Mapping) or thread.get("type") == "create":
            return body, _thread_problem(thread)
        if thread.get("type") != "continue":
            return body, _thread_problem(thread)
        previous = thread.get("previous_message_id")
        if not isinstance(previous, str) or not previous:
            return body, Invalid("thread.previous_message_id: Field required")
        held = self._held.get(previous)
        if held is None:
            message = f"No thread found for previous_message_id '{previous}'."
            if previous.startswith("msg_sim_thread_"):
                message += not_served("threads")
            return body, Invalid(message, code="thread_not_found", status=404)
        if previous in self._continued:
            message = (
                f"The response '{previous}' has already been continued. Continue from the "
                "thread's most recent response id."
            )
            return body, Invalid(message, code="thread_already_continued")
        fields, messages = held
        new = body.get("messages")
        whole = {**fields, **body, "messages": [*messages, *(new if isinstance(new, list) else [])]}
        return whole, None

    def hold(self, body: Mapping[str, Any], wire: Mapping[str, Any]) -> None:
        """Keep the conversation of ``body`` (a request that names a thread) and its answer
        ``wire`` under the answer's id."""
        thread = body.get("thread")
        if isinstance(thread, Mapping) and thread.get("type") == "continue":
            self._continued.add(str(thread.get("previous_message_id")))
        fields = {k: v for k, v in body.items() if k not in ("messages", "stream", "thread")}
        answer = {"role": "assistant", "content": wire.get("content") or []}
        self._held.put(str(wire["id"]), (fields, [*body.get("messages", []), answer]))


def _echoed_tool(tool: Any) -> Any:
    """A Responses request's tool as its answer echoes it: an ``mcp`` tool with no
    ``authorization`` and ``headers`` null, as the API answers it (the credentials it was
    given for the MCP server are not sent back); any other tool as it was given."""
    if not isinstance(tool, Mapping) or tool.get("type") != "mcp":
        return tool
    kept = {name: value for name, value in tool.items() if name != "authorization"}
    return {**kept, "headers": None}


def _chosen(
    tools: Sequence[ToolSpec], *, none: bool, name: Any, allowed: Sequence[str] = ()
) -> list[ToolSpec]:
    """``tools`` as a tool choice leaves them: none at all, only the one it names (when the
    request offers it) or those it allows (none when it allows only custom tools, which no
    behaviour is given), or every one."""
    if none:
        return []
    named = [t for t in tools if t.name == name or t.name in allowed]
    return named if named or allowed else list(tools)


def _allowed_tools(choice: Any) -> tuple[str, list[str]]:
    """The mode (``auto`` or ``required``) and tool names of an OpenAI ``allowed_tools``
    tool choice, else ``("", [])``: Chat Completions nests them under ``allowed_tools`` (each tool
    ``{"type": "function", "function": {"name": ...}}``, or ``"custom"``), the Responses API
    holds them in the choice itself (``{"type": "function", "name": ...}``)."""
    if not isinstance(choice, Mapping) or choice.get("type") != "allowed_tools":
        return "", []
    held = choice.get("allowed_tools", choice)
    if not isinstance(held, Mapping):
        return "", []
    names: list[str] = []
    listed = held.get("tools")
    for tool in listed if isinstance(listed, list) else []:
        kind = str(tool.get("type")) if isinstance(tool, Mapping) else ""
        entry = tool.get(kind, tool) if isinstance(tool, Mapping) else None
        name = entry.get("name") if isinstance(entry, Mapping) else None
        if isinstance(name, str):
            names.append(name)
    return str(held.get("mode")), names


JSON_OBJECT: Mapping[str, Any] = {
    "type": "object",
    "properties": {"answer": {"type": "string"}},
    "required": ["answer"],
}
"""The schema of the answer to a request asking for a JSON object without a schema
(``json_object``, Gemini's ``application/json``): the behaviour's text as ``answer``."""


def _schema_of(given: Any, field: str, *, objects: bool = False) -> Mapping[str, Any] | None:
    """The schema (``field``) of a ``{"type": "json_schema", ...}`` format, that of any
    JSON object (:data:`JSON_OBJECT`) for a ``{"type": "json_object"}`` one where the API
    has it (``objects``), or None."""
    if objects and isinstance(given, Mapping) and given.get("type") == "json_object":
        return JSON_OBJECT
    if not isinstance(given, Mapping) or given.get("type") != "json_schema":
        return None
    schema = given.get(field)
    return schema if isinstance(schema, Mapping) else None


def _limit(body: Mapping[str, Any], *names: str) -> int | None:
    """The first of the fields ``names`` ``body`` gives as a whole number, or None."""
    for name in names:
        value = body.get(name)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def _texts(given: Any) -> tuple[str, ...]:
    """The stop sequences a request gives (one text, or a list of them), empty ones left out."""
    given = [given] if isinstance(given, str) else given
    return tuple(t for t in given if isinstance(t, str) and t) if isinstance(given, list) else ()


def _thread_problem(thread: Any) -> Invalid | None:
    if thread is None or (isinstance(thread, Mapping) and thread.get("type") == "create"):
        return None
    if not isinstance(thread, Mapping):
        return Invalid("thread: Input should be a valid dictionary or object")
    return Invalid("thread.type: Input should be 'create' or 'continue'")


class AnthropicMessages(Endpoint):
    """``POST /v1/messages``, with server-held conversations (``thread``); a file a request
    names is one of ``files`` (none are checked without them)."""

    provider: Provider = "anthropic"
    route = "/v1/messages"
    call_prefix = "toolu_"

    def __init__(self, threads: Threads | None = None, files: UploadedFiles | None = None) -> None:
        self.threads = threads or Threads()
        self.files = files

    def files_problem(self, request: SimRequest) -> Invalid | None:
        """Why the API refuses a file the request names (:meth:`UploadedFiles.named_problem`)."""
        return None if self.files is None else self.files.named_problem(request.body)

    def request(self, route: str, body: Any) -> SimRequest:
        if not isinstance(body, dict) or "thread" not in body:
            return super().request(route, body)
        whole, problem = self.threads.resolve(body)
        routed = super().request(route, whole)
        return SimRequest(routed.body, routed.model, routed.stream, problem)

    def authenticated(self, headers: Mapping[str, str], query: str) -> bool:
        return anthropic_authenticated(headers)

    def header_problem(self, headers: Mapping[str, str]) -> Invalid | None:
        return anthropic_version_problem(headers)

    def beta_problem(self, headers: Mapping[str, str], request: SimRequest) -> Invalid | None:
        body = request.body
        problem = beta_misnamed(headers) or mcp_beta_missing(headers, body)
        return problem or budget_over_max(headers, body)

    def unmade_call(self, request: SimRequest, called: Sequence[str]) -> Invalid | None:
        return api_tool_unmade(request.body, called)

    def output_limit(self, request: SimRequest) -> int | None:
        return _limit(request.body, "max_tokens")

    def stop_sequences(self, request: SimRequest) -> tuple[str, ...]:
        return _texts(request.body.get("stop_sequences"))

    def stopped_by(self, wire: dict[str, Any], sequence: str) -> dict[str, Any]:
        return {**wire, "stop_sequence": sequence}

    def offered(self, request: SimRequest, tools: Sequence[ToolSpec]) -> list[ToolSpec]:
        choice = request.body.get("tool_choice")
        kind = choice.get("type") if isinstance(choice, Mapping) else None
        name = choice.get("name") if kind == "tool" and isinstance(choice, Mapping) else None
        return _chosen(tools, none=kind == "none", name=name)

    def one_call(self, request: SimRequest) -> bool:
        choice = request.body.get("tool_choice")
        return isinstance(choice, Mapping) and choice.get("disable_parallel_tool_use") is True

    def forced(self, request: SimRequest) -> bool:
        choice = request.body.get("tool_choice")
        return isinstance(choice, Mapping) and choice.get("type") in ("any", "tool")

    def json_schema(self, request: SimRequest) -> Mapping[str, Any] | None:
        config = request.body.get("output_config")
        given = config.get("format") if isinstance(config, Mapping) else None
        return _schema_of(given or request.body.get("output_format"), "schema")

    def thinking(self, request: SimRequest) -> int:
        thinking = request.body.get("thinking")
        extended = isinstance(thinking, Mapping) and thinking.get("type") == "enabled"
        return ANTHROPIC_SENTENCES if extended else 0

    def validate(self, request: SimRequest) -> Invalid | None:
        return (
            request.problem
            or validate_anthropic(request.body)
            or anthropic_strict_schema(request.body)
            or cache_control_refused(request.body)
            or compaction_unmade(request.body)
            or citations_with_a_schema(request.body, self.json_schema(request))
            or self.files_problem(request)
            or catalogue.anthropic_model_retired(request.model)
            or catalogue.anthropic_output_refused(request.model, request.body)
            or catalogue.anthropic_settings_refused(request.model, request.body)
        )

    def read(self, request: SimRequest) -> Conversation:
        return from_anthropic_request(request.body)

    def streamed_answer(self, events: Sequence[Any]) -> Mapping[str, Any] | None:
        return messages_answer(events)

    def learn(self, method: str, route: str, body: Any, answer: Mapping[str, Any]) -> None:
        if not isinstance(body, dict) or body.get("thread") is None:
            return
        request = self.request(route, body)
        if request.problem is None and isinstance(answer.get("id"), str):
            self.threads.hold(request.body, answer)  # as if served here

    def render(
        self,
        request: SimRequest,
        conversation: Conversation,
        response: ModelResponse,
        tag: str,
        thought: str,
    ) -> dict[str, Any]:
        threaded = isinstance(request.body, dict) and request.body.get("thread") is not None
        message_id = f"msg_sim_thread_{tag}" if threaded else f"msg_sim_{tag}"
        wire = to_anthropic_response(response, model=request.model, message_id=message_id)
        wire["usage"] = uncached_usage(wire["usage"])
        if not response.tool_calls:
            with_citations(wire["content"], cited(request.body))
        if thought:
            block = thinking_block(thought, redacted=redacting(request.body))
            wire["content"] = [block, *wire["content"]]
            wire["usage"]["output_tokens"] += tokens(len(thought))
        if threaded:
            self.threads.hold(request.body, wire)
        return wire

    def events(self, request: SimRequest, wire: dict[str, Any], stream: Stream) -> list[SSEEvent]:
        events = anthropic_events(wire, chunk_size=stream.chunk_size, patch=stream.patch)
        if stream.fault == "sse-error":
            events = [*events[:2], anthropic_error_event("overloaded_error", "Overloaded")]
        return events


class AnthropicCountTokens(AnthropicMessages):
    """``POST /v1/messages/count_tokens``: the conversation's input tokens, estimated as the
    usage of an answer is (``{"input_tokens": N}``); a retired model is the API's 404, as
    for a message."""

    route = "/v1/messages/count_tokens"
    counts_tokens = True

    def request(self, route: str, body: Any) -> SimRequest:
        """The request ``body`` stands for, less the ``max_tokens`` a thread it continues
        holds from the message that made it: a count takes none, and is refused one only
        where its own body gives it."""
        asked = super().request(route, body)
        if not isinstance(body, dict) or "max_tokens" in body or "max_tokens" not in asked.body:
            return asked
        counted = {k: v for k, v in asked.body.items() if k != "max_tokens"}
        return replace(asked, body=counted)

    def validate(self, request: SimRequest) -> Invalid | None:
        return (
            request.problem
            or validate_anthropic(request.body, counting=True)
            or cache_control_refused(request.body)
            or self.files_problem(request)
            or catalogue.anthropic_model_retired(request.model)
        )


class _OpenAIParams:
    """OpenAI's refusal of a request field its API does not take
    (:mod:`replaygate.sim.openai_params`)."""

    checks_params = True
    """Whether the route is OpenAI's own (Azure's takes fields of its own, ``data_sources``)."""

    def unknown_param(self, body: Mapping[str, Any], api: str) -> Invalid | None:
        return unknown_param(body, api) if self.checks_params else None


class _OpenAIToolChoice:
    """What OpenAI's two APIs say alike of the calls a turn may make: ``parallel_tool_calls:
    false`` (one call at most) and a forced call (``required``, a named function, or
    ``allowed_tools`` in mode ``required``: a call of one of the tools it names)."""

    def one_call(self, request: SimRequest) -> bool:
        return request.body.get("parallel_tool_calls") is False

    def forced(self, request: SimRequest) -> bool:
        choice = request.body.get("tool_choice")
        return (
            choice == "required"
            or (isinstance(choice, Mapping) and choice.get("type") == "function")
            or _allowed_tools(choice)[0] == "required"
        )


def _served_tier(asked: Any) -> str:
    """The ``service_tier`` an OpenAI answer names, as the API's does: the tier asked for,
    ``default`` for ``auto`` or none (a client such as LiteLLM's for Groq reads it from
    every answer), and ``priority`` for ``fast``, which the API serves as priority."""
    if asked == "fast":
        return "priority"
    return asked if asked in ("flex", "priority", "scale", "ultrafast") else "default"


def system_fingerprint(model: str) -> str:
    """The ``system_fingerprint`` a Chat Completions answer of ``model`` names, as the API's
    does (``fp_`` and ten hex digits, the backend's configuration): the same for every
    answer of one model."""
    return f"fp_{hashlib.sha256(model.encode('utf-8', 'surrogateescape')).hexdigest()[:10]}"


def _functions(body: Mapping[str, Any]) -> bool:
    """Whether a Chat Completions request offers the deprecated ``functions``: its
    ``function_call`` is then its tool choice, and its answer's call a ``function_call``."""
    return isinstance(body.get("functions"), list)


class OpenAIChat(_OpenAIParams, _OpenAIToolChoice, Endpoint):
    """``POST /v1/chat/completions``; a request of the deprecated ``functions`` is answered
    as the API answers it: at most one call, forced by a ``function_call`` naming one
    (``none`` offers none), given as the message's ``function_call``."""

    provider: Provider = "openai"
    route = "/v1/chat/completions"
    call_prefix = "call_"

    def one_call(self, request: SimRequest) -> bool:
        return _functions(request.body) or super().one_call(request)

    def forced(self, request: SimRequest) -> bool:
        if _functions(request.body):
            return isinstance(request.body.get("function_call"), Mapping)
        return super().forced(request)

    def output_limit(self, request: SimRequest) -> int | None:
        return _limit(request.body, "max_completion_tokens", "max_tokens")

    def stop_sequences(self, request: SimRequest) -> tuple[str, ...]:
        return _texts(request.body.get("stop"))

    def offered(self, request: SimRequest, tools: Sequence[ToolSpec]) -> list[ToolSpec]:
        if _functions(request.body):
            choice = request.body.get("function_call")
            name = choice.get("name") if isinstance(choice, Mapping) else None
            return _chosen(tools, none=choice == "none", name=name)
        choice = request.body.get("tool_choice")
        named = choice.get("function") if isinstance(choice, Mapping) else None
        name = named.get("name") if isinstance(named, Mapping) else None
        allowed = _allowed_tools(choice)[1]
        return _chosen(tools, none=choice == "none", name=name, allowed=allowed)

    def json_schema(self, request: SimRequest) -> Mapping[str, Any] | None:
        given = request.body.get("response_format")
        named = given.get("json_schema") if isinstance(given, Mapping) else None
        if isinstance(given, Mapping) and given.get("type") == "json_schema":
            given = {"type": "json_schema", **(dict(named) if isinstance(named, Mapping) else {})}
        return _schema_of(given, "schema", objects=True)

    def validate(self, request: SimRequest) -> Invalid | None:
        problem = validate_openai(request.body) or self.unknown_param(request.body, "chat")
        problem = problem or custom_forced(request.body, nested=True)
        problem = problem or catalogue.openai_output_refused(request.model, request.body)
        problem = problem or audio_asked(request.body) or chat_json_word(request.body)
        return problem or chat_strict_schema(request.body)

    def read(self, request: SimRequest) -> Conversation:
        return from_openai_request(request.body)

    def render(
        self,
        request: SimRequest,
        conversation: Conversation,
        response: ModelResponse,
        tag: str,
        thought: str,
    ) -> dict[str, Any]:
        completion_id = f"chatcmpl-sim-{tag}"
        answering = catalogue.openai_answering(request.model)
        wire = to_openai_response(response, model=answering, completion_id=completion_id)
        wire["service_tier"] = _served_tier(request.body.get("service_tier"))
        wire["system_fingerprint"] = system_fingerprint(answering)
        # each of the n choices thinks it: its tokens count for each
        spent = tokens(len(thought)) * self.choices(request) if thought else 0
        usage = wire["usage"]
        usage["completion_tokens"] += spent
        usage["total_tokens"] += spent
        # the API details every usage, a model that reasons or not: LangChain's
        # usage_metadata reads its cache_read and reasoning counts from them
        usage["prompt_tokens_details"] = {"audio_tokens": 0, "cached_tokens": 0}
        usage["completion_tokens_details"] = {
            "accepted_prediction_tokens": 0,
            "audio_tokens": 0,
            "reasoning_tokens": spent,
            "rejected_prediction_tokens": 0,
        }
        if _functions(request.body):
            wire = as_function_call(wire)
        return _with_logprobs(request, wire)

    def thinking(self, request: SimRequest) -> int:
        return reasoning_sentences(request.model, request.body.get("reasoning_effort"))

    def choices(self, request: SimRequest) -> int:
        n = request.body.get("n")
        return n if isinstance(n, int) and not isinstance(n, bool) and n > 1 else 1

    def with_choices(
        self, request: SimRequest, wire: dict[str, Any], more: Sequence[ModelResponse]
    ) -> dict[str, Any]:
        others = [to_openai_response(response, model=request.model) for response in more]
        if _functions(request.body):
            others = [as_function_call(other) for other in others]
        counts = ("usage", "prompt_tokens", "completion_tokens", "total_tokens")
        return _with_logprobs(request, _with_more(wire, others, "choices", counts))

    def events(self, request: SimRequest, wire: dict[str, Any], stream: Stream) -> list[SSEEvent]:
        options = request.body.get("stream_options") or {}
        events = openai_chunks(
            wire,
            include_usage=bool(options.get("include_usage")),
            chunk_size=stream.chunk_size,
            patch=stream.patch,
            obfuscate=options.get("include_obfuscation") is not False,
        )
        if stream.fault == "sse-error":
            message = "The server had an error while processing your request."
            events = [*events[:2], openai_error_chunk(message)]
        return events


_UNSET_AS: dict[str, Any] = {
    "instructions": None,
    "max_output_tokens": None,
    "max_tool_calls": None,
    "metadata": {},
    "parallel_tool_calls": True,
    "previous_response_id": None,
    "prompt_cache_key": None,
    "reasoning": {"effort": None, "summary": None},
    "safety_identifier": None,
    "service_tier": "default",
    "store": True,
    "temperature": 1.0,
    "text": {"format": {"type": "text"}, "verbosity": "medium"},
    "tool_choice": "auto",
    "top_logprobs": 0,
    "top_p": 1.0,
    "truncation": "disabled",
    "user": None,
}
"""The request settings a Responses API response states, each with what it says of one
the request left out (or sent as ``null``): the API's default. A request that sets one
gets its value back (``text`` holds the structured output format, which a client
streaming structured output reads back from the response), an object of settings given
in part completed with the defaults of the rest; a reasoning model's effort
left out is ``medium``, and ``service_tier`` is answered with the tier that served it
(:func:`_served_tier`)."""


class OpenAIResponses(_OpenAIParams, _OpenAIToolChoice, Endpoint):
    """``POST /v1/responses``, with ``previous_response_id`` conversations."""

    provider: Provider = "openai"
    route = "/v1/responses"
    call_prefix = "call_"

    def __init__(
        self, conversations: Conversations | None = None, kept: ConversationStore | None = None
    ) -> None:
        self.conversations = conversations or Conversations()
        self.kept = kept or ConversationStore()
        self.stored: Bounded[dict[str, Any]] = Bounded(self.conversations.limit)
        """Served response id -> the response, as ``GET /v1/responses/{id}`` gives it."""
        self.queued: set[str] = set()
        """Background responses answered ``queued`` and neither retrieved nor cancelled."""
        self.unanswered: set[str] = set()
        """Background responses a replay answered ``queued`` (learned), whose answer the
        simulator never made."""
        self.awaited: Bounded[SimRequest] = Bounded(self.conversations.limit)
        """Background response id -> its request, learned ``queued``: a replayed poll that
        gives it done holds its conversation (:meth:`polled`)."""
        self.unstored: Bounded[bool] = Bounded(self.conversations.limit)
        """Served response ids asked not to be stored (``store: false``)."""
        self.items: Bounded[frozenset[str]] = Bounded(self.conversations.limit)
        """Served response id -> the ids of the items of its conversation (its input
        items and output items, and those of the responses before it), which a request
        continuing it may not give again."""

    def _history(self, request: SimRequest) -> Sequence[Message]:
        """The conversation the request continues: that of ``previous_response_id``, or
        the items of the ``conversation`` it names (none without either)."""
        previous = request.body.get("previous_response_id")
        if previous:
            return self.conversations.history(previous) or ()
        named = _conversation_id(request.body)
        if named is None or not self.kept.held(named):
            return ()
        return from_responses_request({"input": self.kept.items(named)})[0]

    def _held_items(self, body: Mapping[str, Any]) -> frozenset[str]:
        """The ids of the items the request ``body`` continues: those of its
        ``previous_response_id`` or of the ``conversation`` it names."""
        previous = body.get("previous_response_id")
        if previous:
            return self.items.get(str(previous)) or frozenset()
        named = _conversation_id(body)
        if named is None or not self.kept.held(named):
            return frozenset()
        return frozenset(item_ids(self.kept.items(named)))

    def output_limit(self, request: SimRequest) -> int | None:
        return _limit(request.body, "max_output_tokens")

    def offered(self, request: SimRequest, tools: Sequence[ToolSpec]) -> list[ToolSpec]:
        choice = request.body.get("tool_choice")
        function = isinstance(choice, Mapping) and choice.get("type") == "function"
        name = choice.get("name") if function and isinstance(choice, Mapping) else None
        allowed = _allowed_tools(choice)[1]
        return _chosen(tools, none=choice == "none", name=name, allowed=allowed)

    def json_schema(self, request: SimRequest) -> Mapping[str, Any] | None:
        text = request.body.get("text")
        given = text.get("format") if isinstance(text, Mapping) else None
        return _schema_of(given, "schema", objects=True)

    def thinking(self, request: SimRequest) -> int:
        reasoning = request.body.get("reasoning")
        effort = reasoning.get("effort") if isinstance(reasoning, Mapping) else None
        return reasoning_sentences(request.model, effort)

    def validate(self, request: SimRequest) -> Invalid | None:
        problem = validate_responses(request.body) or self.unknown_param(request.body, "responses")
        problem = problem or custom_forced(request.body, nested=False)
        problem = problem or hosted_forced(request.body)
        if problem is not None:
            return problem
        named = _conversation_id(request.body)
        if request.body.get("conversation") is not None and named is None:
            return Invalid(
                "Invalid type for 'conversation': expected a string or an object with an 'id'.",
                "conversation",
                "invalid_type",
            )
        previous = request.body.get("previous_response_id")
        if previous and named is not None:  # before either is looked up, as the API checks
            return Invalid(
                "Mutually exclusive parameters: Ensure you are only providing one of: "
                "'previous_response_id' or 'conversation'.",
                None,
                "mutually_exclusive_parameters",
            )
        if named is not None and not self.kept.held(named):
            return Invalid(conversation_not_found(named), "conversation", status=404)
        if previous and self.conversations.history(previous) is None:
            return Invalid(
                f"Previous response with id '{previous}' not found.{self.why_not_held(previous)}",
                "previous_response_id",
                "previous_response_not_found",
            )
        offered = {c.id for m in self._history(request)[-1:] for c in m.tool_calls}
        given = request.body.get("input")
        problem = duplicate_items(given, self._held_items(request.body))
        problem = problem or self._unstored_reasoning(given)
        problem = problem or unanswered_outputs(given, offered)
        return problem or responses_json_word(request.body) or responses_strict_schema(request.body)

    def read(self, request: SimRequest) -> Conversation:
        messages, tools, system = from_responses_request(request.body)
        return [*self._history(request), *messages], tools, system

    def stood_for(self, body: Any) -> Conversation | Invalid:
        """The conversation, tools and system prompt of the request ``body`` (of a call
        answered without the model: a compaction, a token count) stands for, its ``input``
        none by default; or why such a request is refused."""
        if not isinstance(body, Mapping):
            return Invalid("The request body must be a JSON object.")
        request = SimRequest({"input": [], **body}, str(body.get("model") or ""), False)
        problem = self.validate(request)
        if problem is not None:
            return problem
        try:
            return self.read(request)
        except WireFormatError as err:
            path = err.path.removeprefix("request.")
            return Invalid(f"{path}: {err.reason}", path)

    def render(
        self,
        request: SimRequest,
        conversation: Conversation,
        response: ModelResponse,
        tag: str,
        thought: str,
    ) -> dict[str, Any]:
        held = (*conversation[0], response.as_message())
        answering = catalogue.openai_answering(request.model)
        wire = to_responses_response(response, model=answering, response_id=f"resp_sim_{tag}")
        body = request.body
        wire.update(_settings(body, request.model))
        wire["tools"] = [_echoed_tool(tool) for tool in body.get("tools") or []]
        wire["background"] = body.get("background") is True
        wire["created_at"] = created_at(len(conversation[0]))
        wire["completed_at"] = wire["created_at"] if wire["status"] == "completed" else None
        if thought:
            _reasoned(wire, body, thought)
        top = logprobs.asked(body)
        if top is not None:
            wire = logprobs.scored_output(wire, top)
        named = self._hold(body, held, wire)
        if named is not None:
            wire["conversation"] = {"id": named}
        return self._queue(wire) if wire["background"] and not request.stream else wire

    def _queue(self, wire: dict[str, Any]) -> dict[str, Any]:
        """The first answer to a background request: the response ``queued``, without its
        output, as the API gives it before the model runs; the poll that follows
        (``GET /v1/responses/{id}``) gets it done, unless it was cancelled first."""
        if wire["id"] in self.stored:
            self.queued.add(str(wire["id"]))
        return {**wire, "status": "queued", "output": [], "usage": None, "completed_at": None}

    def _hold(
        self, body: Mapping[str, Any], held: Sequence[Message], wire: Mapping[str, Any]
    ) -> str | None:
        """Keep the conversation ``held`` under the id of the response ``wire`` to request
        ``body``, and add the turn to the conversation ``body`` names; that one's id. A
        response asked not to be stored (``store: false``) is not kept: neither retrieved
        nor continued, as the API keeps none."""
        if body.get("store") is not False:
            self.conversations.remember(str(wire["id"]), held)
            self.stored.put(str(wire["id"]), dict(wire))
            ids = item_ids(body.get("input")) | item_ids(wire.get("output"))
            self.items.put(str(wire["id"]), self._held_items(body) | ids)
        else:
            self.unstored.put(str(wire["id"]), True)
        named = _conversation_id(body)
        if named is not None:
            given = body.get("input")
            said = [{"role": "user", "content": given}] if isinstance(given, str) else given
            output = wire.get("output")
            self.kept.add(named, [*(said or []), *(output if isinstance(output, list) else [])])
        return named

    def _unstored_reasoning(self, items: Any) -> Invalid | None:
        """The API's 404 for a reasoning item given back by its id alone (without its
        ``encrypted_content``) from a response made with ``store: false``: the API keeps
        no such item to read it from."""
        for item in items if isinstance(items, list) else []:
            if not isinstance(item, Mapping) or item.get("type") != "reasoning":
                continue
            item_id = item.get("id")
            if item.get("encrypted_content") is not None or not isinstance(item_id, str):
                continue
            if "resp_" + item_id.removeprefix("rs_") in self.unstored:
                return Invalid(
                    f"Item with id '{item_id}' not found. Items are not persisted when "
                    "`store` is set to false. Try again with `store` set to true, or remove "
                    "this item from your input.",
                    "input",
                    status=404,
                )
        return None

    def why_not_held(self, response_id: Any) -> str:
        """Why the simulator holds no response ``response_id`` (to retrieve or continue),
        said after the API's ``not found``: it was served with ``store: false``, which the
        API keeps no more than the simulator, or it is not one served since the simulator
        started; nothing for an id not of the simulator's making."""
        if response_id in self.unstored:
            return (
                " It was made with store=false, which keeps it neither here nor at the API: "
                "send store=true with the request that made it, or give its output items "
                "back as input instead of previous_response_id."
            )
        return not_served("responses") if str(response_id).startswith("resp_sim_") else ""

    def streamed_answer(self, events: Sequence[Any]) -> Mapping[str, Any] | None:
        """The response the stream ended with; of a background one read only in part
        (its reader left it, to stream the rest again from where it stopped), the response
        it started as, still running."""
        whole = responses_answer(events)
        if whole is not None:
            return whole
        started = responses_started(events)
        return started if started is not None and started.get("background") is True else None

    def learn(self, method: str, route: str, body: Any, answer: Mapping[str, Any]) -> None:
        request = self.request(route, body)
        if not isinstance(answer.get("id"), str) or self.validate(request) is not None:
            return  # what it continues is not held here either
        if answer.get("background") is True and answer.get("status") in ("queued", "in_progress"):
            self.stored.put(answer["id"], dict(answer))  # cancelled, or refused when polled
            self.unanswered.add(answer["id"])
            self.awaited.put(answer["id"], request)
            return
        self._learned(request, answer)

    def polled(self, named: str, answer: Mapping[str, Any]) -> None:
        """A replayed poll gave the background response ``named``, learned ``queued``, done
        (``answer``): its conversation is held as if served here, so a request continuing
        it (``previous_response_id``) is answered with it."""
        request = self.awaited.get(named)
        if request is not None and answer.get("status") in ("completed", "incomplete"):
            self._learned(request, answer)

    def _learned(self, request: SimRequest, answer: Mapping[str, Any]) -> None:
        """Hold ``answer``, replayed to ``request``, as if served here."""
        try:
            messages = self.read(request)[0]
            said = from_responses_response(answer)
        except WireFormatError:
            return
        self._hold(request.body, (*messages, said.as_message()), answer)

    def events(self, request: SimRequest, wire: dict[str, Any], stream: Stream) -> list[SSEEvent]:
        options = request.body.get("stream_options") or {}
        events = responses_events(
            wire,
            chunk_size=stream.chunk_size,
            patch=stream.patch,
            obfuscate=options.get("include_obfuscation") is not False,
        )
        if stream.fault == "sse-error":
            events = [*events[:3], responses_error_event(3, "The server had an error.")]
        return events


def _settings(body: Mapping[str, Any], model: str) -> dict[str, Any]:
    """The settings a Responses API response to ``body`` for ``model`` states
    (:data:`_UNSET_AS`)."""
    settings = {name: _stated(body.get(name), default) for name, default in _UNSET_AS.items()}
    settings["service_tier"] = _served_tier(settings["service_tier"])
    if settings["reasoning"].get("effort") is None:
        settings["reasoning"]["effort"] = default_effort(model)
    return settings


def _stated(given: Any, default: Any) -> Any:
    """A setting as a response states it: ``given``, else ``default``; an object of
    settings (``text``, ``reasoning``) given in part is completed with the defaults of
    the rest (``text: {"verbosity": "low"}`` states its format, ``text``)."""
    if given is None:
        return copy.deepcopy(default)
    if isinstance(default, dict) and isinstance(given, Mapping):
        return {**copy.deepcopy(default), **given}
    return given


def _reasoned(wire: dict[str, Any], body: Mapping[str, Any], thought: str) -> None:
    """Put the ``reasoning`` item of ``thought`` first in the Responses API answer
    ``wire`` to the request ``body`` (its summary and encrypted content as asked), and
    count its tokens in the usage."""
    reasoning = body.get("reasoning")
    include = body.get("include")
    item = reasoning_item(
        f"rs_{str(wire['id']).removeprefix('resp_')}",
        thought,
        summary=isinstance(reasoning, Mapping) and reasoning.get("summary") is not None,
        encrypted=isinstance(include, list) and ENCRYPTED_REASONING in include,
    )
    wire["output"] = [item, *wire["output"]]
    spent = tokens(len(thought))
    usage = wire["usage"]
    usage["output_tokens"] += spent
    usage["output_tokens_details"]["reasoning_tokens"] = spent
    usage["total_tokens"] += spent


def _conversation_id(body: Mapping[str, Any]) -> str | None:
    """The id of the conversation a Responses request names (``"conv_..."`` or
    ``{"id": "conv_..."}``), or None."""
    named = body.get("conversation")
    if isinstance(named, Mapping):
        named = named.get("id")
    return named if isinstance(named, str) and named else None


class ResourceEndpoint(Endpoint):
    """An API answered without the model (resources, compaction): :meth:`answer` gives
    the status and body of any request; the model-call steps are not used."""

    @abstractmethod
    def answer(self, method: str, route: str, query: str, body: Any) -> tuple[int, Any] | Invalid:
        """The status and JSON body answering ``method`` on ``route``, or the refusal the
        app answers in the provider's error shape."""

    def resumed(self, method: str, route: str, query: str, stream: Stream) -> list[SSEEvent] | None:
        """The events answering ``method`` on ``route`` as a stream, for a request asking
        for one; None (most resources) to be answered by :meth:`answer`."""
        return None

    reads_raw = False
    """Whether its body is read as sent (a multipart upload, :attr:`Sent.raw`), not as
    JSON."""

    def answer_sent(
        self, method: str, route: str, query: str, body: Any, sent: Sent
    ) -> tuple[int, Any] | Invalid:
        """:meth:`answer`, for a resource that reads more of the request (:class:`Sent`)."""
        return self.answer(method, route, query, body)

    def validate(self, request: SimRequest) -> Invalid | None:
        return None

    def read(self, request: SimRequest) -> Conversation:
        raise NotImplementedError(f"{self.route} answers without the model")

    def render(
        self,
        request: SimRequest,
        conversation: Conversation,
        response: ModelResponse,
        tag: str,
        thought: str,
    ) -> dict[str, Any]:
        raise NotImplementedError(f"{self.route} answers without the model")

    def events(self, request: SimRequest, wire: dict[str, Any], stream: Stream) -> list[SSEEvent]:
        raise NotImplementedError(f"{self.route} answers without the model")


class OpenAIConversations(ResourceEndpoint):
    """``/v1/conversations`` and below (:mod:`replaygate.sim.openai_conversations`):
    resources, not model calls, answered by :meth:`answer`."""

    provider: Provider = "openai"
    route = "/v1/conversations"
    methods = ("GET", "POST", "DELETE")

    def __init__(self, kept: ConversationStore | None = None) -> None:
        self.kept = kept or ConversationStore()

    def serves(self, route: str) -> bool:
        return route == self.route or route.startswith(self.route + "/")

    def answer(self, method: str, route: str, query: str, body: Any) -> tuple[int, Any]:
        return self.kept.answer(method, route, query, body)

    def learn(self, method: str, route: str, body: Any, answer: Mapping[str, Any]) -> None:
        self.kept.learn(method, route, body, answer)


class AnthropicMessageBatches(ResourceEndpoint):
    """``/v1/messages/batches`` and below (:mod:`replaygate.sim.message_batches`): each
    request of a batch answered as ``messages`` answers it."""

    provider: Provider = "anthropic"
    route = "/v1/messages/batches"
    methods = ("GET", "POST", "DELETE")

    def __init__(self, messages: AnthropicMessages, seed: int = 0, polls: int = 0) -> None:
        self.messages = messages
        self.batches = MessageBatches(seed=seed, polls=polls)

    def serves(self, route: str) -> bool:
        return route == self.route or route.startswith(self.route + "/")

    def authenticated(self, headers: Mapping[str, str], query: str) -> bool:
        return anthropic_authenticated(headers)

    def header_problem(self, headers: Mapping[str, str]) -> Invalid | None:
        return anthropic_version_problem(headers)

    def answer(self, method: str, route: str, query: str, body: Any) -> tuple[int, Any] | Invalid:
        return self.answer_sent(method, route, query, body, Sent("", "", b"", _unasked))

    def answer_sent(
        self, method: str, route: str, query: str, body: Any, sent: Sent
    ) -> tuple[int, Any] | Invalid:
        ask = partial(sent.ask, self.messages)
        return self.batches.answer(method, route, query, body, sent.origin, ask)

    def learn(self, method: str, route: str, body: Any, answer: Mapping[str, Any]) -> None:
        self.batches.learn(method, route, body, answer)


def _unasked(endpoint: Endpoint, body: Any) -> Invalid:
    """No answer of the model: the simulator's own refusal (:meth:`ResourceEndpoint.answer`
    called without a way to ask it)."""
    return Invalid(f"{endpoint.route} is answered only through the simulator's app", own=True)


class _OpenAIOnly(ResourceEndpoint):
    """A route and those below it that OpenAI's API serves: a request with another API's
    credentials is to a route the simulator does not serve, or to that API's own endpoint
    of the route (Anthropic's Files API shares ``/v1/files``)."""

    provider: Provider = "openai"
    others_unserved = True

    def serves(self, route: str) -> bool:
        return route == self.route or route.startswith(self.route + "/")

    def called_by(self, headers: Mapping[str, str], query: str) -> bool:
        return caller(headers, query) == "openai"


class AnthropicFiles(ResourceEndpoint):
    """``/v1/files`` and below with Anthropic's credentials
    (:mod:`replaygate.sim.anthropic_files`): uploads, read as multipart forms, answered in
    the beta's shapes to a request naming it."""

    provider: Provider = "anthropic"
    route = "/v1/files"
    methods = ("GET", "POST", "DELETE")
    reads_raw = True
    others_unserved = True

    def __init__(self, files: UploadedFiles) -> None:
        self.files = files

    def serves(self, route: str) -> bool:
        return route == self.route or route.startswith(self.route + "/")

    def called_by(self, headers: Mapping[str, str], query: str) -> bool:
        return caller(headers, query) == "anthropic"

    def authenticated(self, headers: Mapping[str, str], query: str) -> bool:
        return anthropic_authenticated(headers)

    def header_problem(self, headers: Mapping[str, str]) -> Invalid | None:
        return anthropic_version_problem(headers) or beta_misnamed(headers)

    def answer(self, method: str, route: str, query: str, body: Any) -> tuple[int, Any] | Invalid:
        return self.files.answer(method, route, query, None, beta=False)

    def answer_sent(
        self, method: str, route: str, query: str, body: Any, sent: Sent
    ) -> tuple[int, Any] | Invalid:
        fields = form(sent.content_type, sent.raw)
        return self.files.answer(method, route, query, fields, beta=beta_named(sent.headers))

    def learn(self, method: str, route: str, body: Any, answer: Mapping[str, Any]) -> None:
        self.files.learn(method, answer)


class OpenAIFiles(_OpenAIOnly):
    """``/v1/files`` and below (:mod:`replaygate.sim.openai_batches`): uploads, read as
    multipart forms, and the files a batch makes."""

    route = "/v1/files"
    methods = ("GET", "POST", "DELETE")
    reads_raw = True

    def __init__(self, files: Files) -> None:
        self.files = files

    def answer(self, method: str, route: str, query: str, body: Any) -> tuple[int, Any] | Invalid:
        return self.files.answer(method, route, query, None)

    def answer_sent(
        self, method: str, route: str, query: str, body: Any, sent: Sent
    ) -> tuple[int, Any] | Invalid:
        return self.files.answer(method, route, query, form(sent.content_type, sent.raw))

    def learn(self, method: str, route: str, body: Any, answer: Mapping[str, Any]) -> None:
        self.files.learn(method, route, answer)


class OpenAIBatches(_OpenAIOnly):
    """``/v1/batches`` and below (:mod:`replaygate.sim.openai_batches`): each request of a
    batch answered as the endpoint it names answers it."""

    route = "/v1/batches"
    methods = ("GET", "POST")

    def __init__(
        self, files: Files, served: Mapping[str, Endpoint], seed: int = 0, polls: int = 0
    ) -> None:
        self.batches = Batches(files, seed=seed, polls=polls)
        self.served = served

    def answer(self, method: str, route: str, query: str, body: Any) -> tuple[int, Any] | Invalid:
        return self.answer_sent(method, route, query, body, Sent("", "", b"", _unasked))

    def answer_sent(
        self, method: str, route: str, query: str, body: Any, sent: Sent
    ) -> tuple[int, Any] | Invalid:
        def ask(path: str, asked: Any) -> tuple[int, Any] | Invalid:
            return sent.ask(self.served[path], asked)

        return self.batches.answer(method, route, query, body, ask)

    def learn(self, method: str, route: str, body: Any, answer: Mapping[str, Any]) -> None:
        self.batches.learn(method, route, answer)


class OpenAIResponsesCompact(ResourceEndpoint):
    """``POST /v1/responses/compact``: the conversation a Responses request stands for
    (its ``input``, after the ``previous_response_id`` or ``conversation`` it names)
    compacted into its user messages and one ``compaction`` item standing for the rest,
    which a later request gives back as input (the simulator reads it as nothing)."""

    provider: Provider = "openai"
    route = "/v1/responses/compact"

    def __init__(self, responses: OpenAIResponses, seed: int = 0) -> None:
        self.responses = responses
        self.seed = seed
        self._compacted = Draws()
        """The compactions of each conversation: ids count them, and come from the seed
        and the conversation."""

    def learn(self, method: str, route: str, body: Any, answer: Mapping[str, Any]) -> None:
        """Count a compaction a recording replayed as one served here: the next of the
        same conversation is numbered after it, as in a recording that sent it."""
        if route == self.route and answer.get("object") == "response.compaction":
            read = self.responses.stood_for(body)
            if not isinstance(read, Invalid):
                self._compacted.next(read[0], read[1])

    def answer(self, method: str, route: str, query: str, body: Any) -> tuple[int, Any]:
        read = self.responses.stood_for(body)
        if isinstance(read, Invalid):
            return _openai_refusal(read)
        messages, tools, system = read
        tag = self._compacted.next(messages, tools).tag(self.seed, "compaction")
        users = [m for m in messages if m.role == "user"]
        kept = [
            {
                "id": f"msg_sim_compact_{tag}_{i}",
                "type": "message",
                "status": "completed",
                "role": "user",
                "content": [{"type": "input_text", "text": m.content}],
            }
            for i, m in enumerate(users, start=1)
        ]
        digest = f"sim-compaction_{tag}"
        compaction = {"id": f"cmp_sim_{tag}", "type": "compaction", "encrypted_content": digest}
        used = Usage(
            input_tokens=input_tokens(messages, tools, system), output_tokens=tokens(len(digest))
        )
        return 200, {
            "id": f"resp_sim_compact_{tag}",
            "object": "response.compaction",
            "created_at": created_at(len(messages)),
            "output": [*kept, compaction],
            "usage": response_usage(used),
        }


class OpenAIResponsesInputTokens(ResourceEndpoint):
    """``POST /v1/responses/input_tokens``: the input tokens of the Responses request the
    body stands for (its ``input``, after the ``previous_response_id`` or ``conversation``
    it names), estimated as an answer's usage counts them; the model is optional, as the
    API has it."""

    provider: Provider = "openai"
    route = "/v1/responses/input_tokens"

    def __init__(self, responses: OpenAIResponses) -> None:
        self.responses = responses

    def answer(self, method: str, route: str, query: str, body: Any) -> tuple[int, Any]:
        given = {"model": "gpt-4o", **body} if isinstance(body, Mapping) else body
        read = self.responses.stood_for(given)
        if isinstance(read, Invalid):
            return _openai_refusal(read)
        return 200, {"object": "response.input_tokens", "input_tokens": input_tokens(*read)}


def _starting_after(query: Mapping[str, list[str]]) -> int | None:
    """The sequence number ``starting_after`` of a query, -1 (before the first event)
    without one; None for a value that is no integer in the digits 0-9 (``²``, a word)."""
    try:
        return integer((query.get("starting_after") or ["-1"])[-1])
    except ValueError:  # no integer, or more digits than int() reads
        return None


class OpenAIStoredResponses(ResourceEndpoint):
    """``GET`` and ``DELETE /v1/responses/{id}``: a response the simulator served (or
    learned from a recording's replay), retrieved as it was given (a background
    response's poll), streamed again (:meth:`resumed`) or deleted, after which no request
    may continue it; one it does not hold is a 404, as the API answers an unknown id."""

    provider: Provider = "openai"
    route = "/v1/responses"
    methods = ("GET", "DELETE")

    def __init__(self, responses: OpenAIResponses) -> None:
        self.responses = responses

    def serves(self, route: str) -> bool:
        named = route.removeprefix(self.route + "/")
        return named != route and bool(named) and "/" not in named

    def answer(self, method: str, route: str, query: str, body: Any) -> tuple[int, Any] | Invalid:
        named = route.rsplit("/", 1)[1]
        kept = self.responses.stored.get(named)
        if kept is None:
            why = self.responses.why_not_held(named)
            return 404, openai_error(f"Response with id '{named}' not found.{why}")
        if method == "GET" and _starting_after(parse_qs(query)) is None:
            message = "Invalid type for 'starting_after': expected an integer."
            return 400, openai_error(message, param="starting_after")
        if method == "DELETE":
            self.learn(method, route, body, {})
            return 200, {"id": named, "object": "response", "deleted": True}
        if named in self.responses.unanswered:
            return Invalid(
                f"The simulator holds {named} only as a replayed answer gave it, "
                f"{kept['status']}, without its output: record the background request anew "
                "with its polls (record mode rerecord)",
                own=True,
            )
        self.responses.queued.discard(named)
        return 200, kept

    def resumed(self, method: str, route: str, query: str, stream: Stream) -> list[SSEEvent] | None:
        """A response held streamed again (``GET ...?stream=true``, the SDK's
        ``responses.stream(response_id=..., starting_after=N)``): its stream's events after
        sequence number ``starting_after`` (every one without it), as the API streams a
        background response again."""
        asked = parse_qs(query)
        kept = self.responses.stored.get(route.rsplit("/", 1)[1])
        after = _starting_after(asked)
        if method != "GET" or asked.get("stream") != ["true"] or kept is None or after is None:
            return None
        obfuscate = asked.get("include_obfuscation", ["true"])[-1] != "false"
        events = responses_events(
            kept, chunk_size=stream.chunk_size, patch=stream.patch, obfuscate=obfuscate
        )
        return events[max(after, -1) + 1 :]

    def streamed_answer(self, events: Sequence[Any]) -> Mapping[str, Any] | None:
        """The response a stream of it again (``starting_after``) ended with."""
        return responses_answer(events)

    def learn(self, method: str, route: str, body: Any, answer: Mapping[str, Any]) -> None:
        """Forget a response deleted here, or whose deletion a recording replayed; hold a
        background response as a replayed poll gave it (done, its output with it, and its
        conversation, to be continued)."""
        named = route.rsplit("/", 1)[1]
        if method == "DELETE" and named in self.responses.stored:
            del self.responses.stored[named]
            self.responses.conversations.forget(named)
        elif method == "GET" and answer.get("id") == named and named in self.responses.stored:
            self.responses.stored.put(named, dict(answer))
            if answer.get("status") not in ("queued", "in_progress"):
                self.responses.unanswered.discard(named)
                self.responses.queued.discard(named)
                self.responses.polled(named, answer)


class OpenAICancelResponses(ResourceEndpoint):
    """``POST /v1/responses/{id}/cancel``: a background response still queued is
    ``cancelled`` (and retrieved so); one done, or not made in the background, is
    refused as the API refuses it."""

    provider: Provider = "openai"
    route = "/v1/responses"
    methods = ("POST",)

    def __init__(self, responses: OpenAIResponses) -> None:
        self.responses = responses

    def serves(self, route: str) -> bool:
        named, _, action = route.removeprefix(self.route + "/").partition("/")
        return route.startswith(self.route + "/") and bool(named) and action == "cancel"

    def answer(self, method: str, route: str, query: str, body: Any) -> tuple[int, Any]:
        named = route.split("/")[-2]
        kept = self.responses.stored.get(named)
        if kept is None:
            return 404, openai_error(f"Response with id '{named}' not found.")
        if not kept.get("background"):
            message = "Only responses created with background=true can be cancelled."
            return 400, openai_error(message)
        if named in self.responses.queued or named in self.responses.unanswered:
            self.responses.queued.discard(named)
            self.responses.unanswered.discard(named)
            kept = {**kept, "status": "cancelled", "output": [], "usage": None}
            kept["completed_at"] = None
            self.responses.stored.put(named, kept)
        if kept["status"] != "cancelled":
            return 400, openai_error(f"Cannot cancel a {kept['status']} response.")
        return 200, kept


class OpenAIEmbeddings(ResourceEndpoint):
    """``POST /v1/embeddings`` (:mod:`replaygate.sim.embeddings`): vectors made from the
    text alone, without the model's behaviour."""

    provider: Provider = "openai"
    route = "/v1/embeddings"

    def answer(self, method: str, route: str, query: str, body: Any) -> tuple[int, Any]:
        return embeddings.answer(body)


class OpenAIModerations(ResourceEndpoint):
    """``POST /v1/moderations`` (:mod:`replaygate.sim.moderations`): scores made from the
    input alone, without the model's behaviour."""

    provider: Provider = "openai"
    route = "/v1/moderations"

    def __init__(self, seed: int = 0) -> None:
        self.moderations = Moderations(seed=seed)

    def answer(self, method: str, route: str, query: str, body: Any) -> tuple[int, Any] | Invalid:
        return self.moderations.answer(body)

    def learn(self, method: str, route: str, body: Any, answer: Mapping[str, Any]) -> None:
        self.moderations.learn(body)


GEMINI_VERSIONS = ("v1", "v1beta", "v1alpha")
"""The Gemini API's versions, each serving its model calls and models (google-genai's
``HttpOptions(api_version=...)``; ``v1alpha``, its preview features)."""
_GEMINI_VERSION = f"({'|'.join(GEMINI_VERSIONS)})"

_GEMINI_EMBED_ROUTE = re.compile(
    rf"/{_GEMINI_VERSION}/models/([^/:]+):(embedContent|batchEmbedContents)"
)


class GeminiEmbeddings(ResourceEndpoint):
    """Gemini's ``:embedContent`` and ``:batchEmbedContents`` (google-genai's
    ``embed_content``, :func:`replaygate.sim.embeddings.gemini_answer`)."""

    provider: Provider = "google"

    def serves(self, route: str) -> bool:
        return _GEMINI_EMBED_ROUTE.fullmatch(route) is not None

    def authenticated(self, headers: Mapping[str, str], query: str) -> bool:
        return google_authenticated(headers, query)

    def answer(self, method: str, route: str, query: str, body: Any) -> tuple[int, Any] | Invalid:
        match = _GEMINI_EMBED_ROUTE.fullmatch(route)
        assert match is not None  # only asked of a route it serves
        version, model, call = match.groups()
        return embeddings.gemini_answer(model, call, version, body)


_MODELS_ROUTE = re.compile(rf"/{_GEMINI_VERSION}/models(?:/([^/]+))?")


class _Models(ResourceEndpoint):
    """``GET /v1/models`` and ``/v1/models/{id}`` (:mod:`replaygate.sim.catalogue`), a route
    the APIs share: each provider's answers the requests its credentials are for."""

    methods = ("GET",)
    versions: tuple[str, ...] = ("v1",)

    def serves(self, route: str) -> bool:
        match = _MODELS_ROUTE.fullmatch(route)
        return match is not None and match.group(1) in self.versions

    def called_by(self, headers: Mapping[str, str], query: str) -> bool:
        return caller(headers, query) == self.provider

    def answer(self, method: str, route: str, query: str, body: Any) -> tuple[int, Any] | Invalid:
        match = _MODELS_ROUTE.fullmatch(route)
        assert match is not None  # only asked of a route it serves
        version, named = match.groups()
        return self.listed(query) if named is None else self.one(unquote(named), version)

    @abstractmethod
    def listed(self, query: str) -> tuple[int, Any] | Invalid:
        """The list (or the page ``query`` asks for) of the models."""

    @abstractmethod
    def one(self, model_id: str, version: str) -> tuple[int, Any] | Invalid:
        """The model ``model_id``, or the API's 404."""


class AnthropicModels(_Models):
    """Anthropic's Models API: a page at a time, newest first, and one by id."""

    provider: Provider = "anthropic"

    def authenticated(self, headers: Mapping[str, str], query: str) -> bool:
        return anthropic_authenticated(headers)

    def header_problem(self, headers: Mapping[str, str]) -> Invalid | None:
        return anthropic_version_problem(headers)

    def listed(self, query: str) -> tuple[int, Any] | Invalid:
        return catalogue.anthropic_models(query)

    def one(self, model_id: str, version: str) -> tuple[int, Any] | Invalid:
        return catalogue.anthropic_model(model_id)


class OpenAIModels(_Models):
    """OpenAI's Models API: the whole list, and one by id."""

    provider: Provider = "openai"

    def listed(self, query: str) -> tuple[int, Any] | Invalid:
        return catalogue.openai_models()

    def one(self, model_id: str, version: str) -> tuple[int, Any] | Invalid:
        return catalogue.openai_model(model_id)


class GeminiModels(_Models):
    """Gemini's ``models.list`` (a page at a time) and ``models.get``, at each of
    :data:`GEMINI_VERSIONS`."""

    provider: Provider = "google"
    versions = GEMINI_VERSIONS

    def authenticated(self, headers: Mapping[str, str], query: str) -> bool:
        return google_authenticated(headers, query)

    def listed(self, query: str) -> tuple[int, Any] | Invalid:
        return catalogue.gemini_models(query)

    def one(self, model_id: str, version: str) -> tuple[int, Any] | Invalid:
        return catalogue.gemini_model(model_id, version)


def _with_logprobs(request: SimRequest, wire: dict[str, Any]) -> dict[str, Any]:
    """A Chat Completions answer whose choices carry the log probabilities of their tokens,
    when the request asks for them (:func:`replaygate.sim.logprobs.asked`)."""
    top = logprobs.asked(request.body)
    if top is None:
        return wire
    return {**wire, "choices": [logprobs.scored_choice(c, top) for c in wire["choices"]]}


def _with_more(
    wire: dict[str, Any], others: Sequence[dict[str, Any]], items: str, counts: tuple[str, ...]
) -> dict[str, Any]:
    """``wire`` with the first item (choice, candidate) of each of ``others`` after its own,
    numbered on, and its usage counting theirs: ``counts`` names the usage object and its
    input, output and total counts."""
    usage_name, given, made, total = counts
    usage = dict(wire[usage_name])
    listed = list(wire[items])
    for index, other in enumerate(others, start=len(listed)):
        listed.append({**other[items][0], "index": index})
        usage[made] += other[usage_name][made]
    usage[total] = usage[given] + usage[made]
    return {**wire, items: listed, usage_name: usage}


def _openai_refusal(problem: Invalid) -> tuple[int, Any]:
    """The status and OpenAI error body of a refused request."""
    return problem.status, openai_error(problem.message, param=problem.param, code=problem.code)


_GEMINI_ROUTE = re.compile(
    rf"/{_GEMINI_VERSION}/models/([^/:]+):(generateContent|streamGenerateContent)"
)


class GeminiGenerateContent(Endpoint):
    """``POST /v1beta/models/{model}:generateContent`` and ``:streamGenerateContent``."""

    provider: Provider = "google"

    def serves(self, route: str) -> bool:
        return _GEMINI_ROUTE.fullmatch(route) is not None

    def request(self, route: str, body: Any) -> SimRequest:
        match = _GEMINI_ROUTE.fullmatch(route)
        assert match is not None  # only asked of a route it serves
        version, model, method = match.groups()
        problem = catalogue.gemini_method_refused(model, version, method)
        stream = method == "streamGenerateContent"
        return SimRequest(camel_case_request(body), model, stream, problem)

    def authenticated(self, headers: Mapping[str, str], query: str) -> bool:
        return google_authenticated(headers, query)

    def output_limit(self, request: SimRequest) -> int | None:
        config = request.body.get("generationConfig")
        return _limit(config, "maxOutputTokens") if isinstance(config, Mapping) else None

    def stop_sequences(self, request: SimRequest) -> tuple[str, ...]:
        config = request.body.get("generationConfig")
        return _texts(config.get("stopSequences")) if isinstance(config, Mapping) else ()

    def choices(self, request: SimRequest) -> int:
        config = request.body.get("generationConfig")
        count = _limit(config, "candidateCount") if isinstance(config, Mapping) else None
        return max(count or 1, 1)

    def with_choices(
        self, request: SimRequest, wire: dict[str, Any], more: Sequence[ModelResponse]
    ) -> dict[str, Any]:
        others = [to_gemini_response(response, model=request.model) for response in more]
        counts = ("usageMetadata", "promptTokenCount", "candidatesTokenCount", "totalTokenCount")
        return _with_more(wire, others, "candidates", counts)

    def offered(self, request: SimRequest, tools: Sequence[ToolSpec]) -> list[ToolSpec]:
        config = request.body.get("toolConfig")
        calling = config.get("functionCallingConfig") if isinstance(config, Mapping) else None
        if not isinstance(calling, Mapping):
            return list(tools)
        if calling.get("mode") == "NONE":
            return []
        allowed = calling.get("allowedFunctionNames")
        kept = [t for t in tools if isinstance(allowed, list) and t.name in allowed]
        return kept or list(tools)

    def forced(self, request: SimRequest) -> bool:
        config = request.body.get("toolConfig")
        calling = config.get("functionCallingConfig") if isinstance(config, Mapping) else None
        return isinstance(calling, Mapping) and calling.get("mode") == "ANY"

    def json_schema(self, request: SimRequest) -> Mapping[str, Any] | None:
        config = request.body.get("generationConfig")
        if not isinstance(config, Mapping):
            return None
        for name in ("responseJsonSchema", "responseSchema"):
            schema = config.get(name)
            if isinstance(schema, Mapping):
                return camel_case_schema(schema) if name == "responseSchema" else schema
        return JSON_OBJECT if config.get("responseMimeType") == "application/json" else None

    def in_format(
        self, request: SimRequest, answer: ModelResponse, schema: Mapping[str, Any]
    ) -> ModelResponse:
        """As JSON, but an enum's value asked for as ``text/x.enum`` is the bare value
        (``Percussion``), as the API answers it, not a JSON string (``"Percussion"``, the
        answer asked for as ``application/json``)."""
        made = in_json(answer, schema)
        config = request.body.get("generationConfig")
        if not isinstance(config, Mapping) or config.get("responseMimeType") != "text/x.enum":
            return made
        try:
            value = json.loads(made.text)
        except ValueError:
            return made
        return replace(made, text=value) if isinstance(value, str) else made

    def thinking(self, request: SimRequest) -> int:
        """A request thinks unless given a budget of 0 (:func:`gemini_thinks`): asked to
        (a budget, a level, or its thoughts asked for, but by Flash-Lite, which thinks only
        given a budget), or unasked on a model thinking by default (Gemini 2.5 Pro and
        Flash, Gemini 3), as live. The thought is counted in ``thoughtsTokenCount`` and
        spent from ``maxOutputTokens`` whether or not it is shown (:meth:`render`)."""
        thinking = gemini_thinking_config(request.body)
        budget = thinking.get("thinkingBudget")
        shown = thinking.get("includeThoughts") is True and "flash-lite" not in request.model
        asked = budget is not None or thinking.get("thinkingLevel") is not None or shown
        thinks = budget != 0 and gemini_thinks(request.model, asked=asked)
        return ANTHROPIC_SENTENCES if thinks else 0

    def validate(self, request: SimRequest) -> Invalid | None:
        return (
            request.problem
            or validate_gemini(request.body)
            or gemini_thinking_refused(request.model, request.body)
            or gemini_cache_refused(request.body)
            or gemini_output_refused(request.model, request.body)
            or gemini_signature_missing(request.model, request.body)
            or gemini_penalty_refused(request.model, request.body)
            or gemini_output_limit_refused(request.model, request.body)
            or gemini_modalities_refused(request.model, request.body)
            or gemma_refused(request.model, request.body)
        )

    def read(self, request: SimRequest) -> Conversation:
        return from_gemini_request(request.body)

    def render(
        self,
        request: SimRequest,
        conversation: Conversation,
        response: ModelResponse,
        tag: str,
        thought: str,
    ) -> dict[str, Any]:
        response_id = f"simGemini{tag}"
        wire = to_gemini_response(response, model=request.model, response_id=response_id)
        usage = wire["usageMetadata"]  # by modality too, as the API counts the prompt
        usage["promptTokensDetails"] = [
            {"modality": "TEXT", "tokenCount": usage["promptTokenCount"]}
        ]
        content = wire["candidates"][0]["content"]
        calls = [p for p in content.get("parts", []) if "functionCall" in p]
        if calls and GEMINI_SIGNING.search(request.model):  # the step's first call is signed
            calls[0]["thoughtSignature"] = signature(response_id)
        if thought:  # counted as Google reports it; a part of the first candidate if asked
            if gemini_thinking_config(request.body).get("includeThoughts") is True:
                content["parts"] = [{"text": thought, "thought": True}, *content.get("parts", [])]
            usage["thoughtsTokenCount"] = tokens(len(thought))
            usage["totalTokenCount"] += usage["thoughtsTokenCount"]
        return wire

    def streams_an_array(self, query: str) -> bool:
        """Whether the stream goes as the API sends one asked for without ``alt=sse``: a
        JSON array of its chunks."""
        return parse_qs(query).get("alt", ["json"])[-1] != "sse"

    def events(self, request: SimRequest, wire: dict[str, Any], stream: Stream) -> list[SSEEvent]:
        events = gemini_events(wire, chunk_size=stream.chunk_size, patch=stream.patch)
        if stream.fault == "sse-error":
            events = [*events[:1], gemini_error_event(500, "INTERNAL", "An internal error.")]
        return events


_GEMINI_COUNT_ROUTE = re.compile(rf"/{_GEMINI_VERSION}/models/([^/:]+):countTokens")


class GeminiCountTokens(GeminiGenerateContent):
    """``POST /v1beta/models/{model}:countTokens``: the input tokens of its ``contents``, or
    of its ``generateContentRequest`` (which, given, the API reads instead), estimated as
    an answer's ``promptTokenCount`` is."""

    counts_tokens = True

    def serves(self, route: str) -> bool:
        return _GEMINI_COUNT_ROUTE.fullmatch(route) is not None

    def request(self, route: str, body: Any) -> SimRequest:
        match = _GEMINI_COUNT_ROUTE.fullmatch(route)
        assert match is not None  # only asked of a route it serves
        read = camel_case_request(body)
        whole = read.get("generateContentRequest") if isinstance(read, Mapping) else None
        version, model = match.groups()
        retired = catalogue.gemini_retired(model, version, "countTokens")
        return SimRequest(whole if isinstance(whole, Mapping) else read, model, False, retired)

    def validate(self, request: SimRequest) -> Invalid | None:
        """The request's shape alone, and a retired model: what a generation refuses (an
        unsigned call, a thinking budget, a cache beside a system instruction) is counted."""
        return request.problem or validate_gemini(request.body)

    def counted(self, tokens: int) -> dict[str, Any]:
        return {
            "totalTokens": tokens,
            "promptTokensDetails": [{"modality": "TEXT", "tokenCount": tokens}],
        }


def endpoints(seed: int = 0, batch_polls: int = 0) -> tuple[Endpoint, ...]:
    """A fresh set of every endpoint the simulator serves, the ids of what it makes without
    the model (conversations, compactions) from ``seed``; ``batch_polls`` retrievals of a
    batch (either API's) find it in progress before one finds it ended."""
    kept = ConversationStore(seed=seed)
    threads = Threads()  # counted as answered: the same threads
    responses = OpenAIResponses(kept=kept)
    uploaded = UploadedFiles(seed=seed)
    messages = AnthropicMessages(threads, uploaded)
    chat, embedded, files = OpenAIChat(), OpenAIEmbeddings(), Files(seed=seed)
    moderated = OpenAIModerations(seed=seed)
    batched = {e.route: e for e in (chat, responses, embedded, moderated)}
    return (
        messages,
        AnthropicMessageBatches(messages, seed, batch_polls),
        AnthropicCountTokens(threads, uploaded),
        AnthropicFiles(uploaded),
        chat,
        responses,
        OpenAIFiles(files),
        OpenAIBatches(files, batched, seed, batch_polls),
        OpenAIResponsesCompact(responses, seed),
        OpenAIResponsesInputTokens(responses),
        OpenAIStoredResponses(responses),
        OpenAICancelResponses(responses),
        OpenAIConversations(kept),
        embedded,
        moderated,
        GeminiGenerateContent(),
        GeminiCountTokens(),
        GeminiEmbeddings(),
        AnthropicModels(),
        OpenAIModels(),
        GeminiModels(),
    )
