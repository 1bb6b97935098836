"""The simulator's request handling, independent of sockets.

:class:`SimApp` turns one HTTP request (method, path, headers, body) into a
:class:`~replaygate.sim.replies.Reply`: route, draw a fault, authenticate, validate,
ask the behaviour, draw the thought a request asks for (:mod:`~replaygate.sim.thinking`),
render the provider's wire shape, stream it if asked, drift it.
A request the API refuses for its headers (Anthropic's missing or unknown
``anthropic-version``) is refused once the caller is authenticated, as the API refuses it.
A 429, 500 or 529 fault answers before the behaviour is asked; ``slow``,
``cut-stream`` and ``sse-error`` change how its answer is delivered. A behaviour that
raises an SDK's status error (a fake's scripted ``RateLimitError``) gets that fault's
answer, as the API gives it, not marked. A behaviour that cannot answer (a script run
out, a value it cannot make, another exception) gets an error marked as the
simulator's own (:func:`~replaygate.sim.replies.refusal`), which a recording does not
keep. It is not thread-safe; the server calls it from its one
event loop.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from replaygate import exact_json
from replaygate.errors import ReplaygateError, ScriptExhaustedError, WireFormatError
from replaygate.http.routes import SIMULATOR_REQUEST_ID
from replaygate.models.types import Message, ModelResponse, ToolSpec, Usage
from replaygate.sim import thinking
from replaygate.sim.arguments import UnmadeValue, forced_call
from replaygate.sim.behaviors import Behavior, made_calls
from replaygate.sim.draws import Draws, request_digest
from replaygate.sim.drift import DriftInjection, DriftPlan
from replaygate.sim.endpoints import Endpoint, ResourceEndpoint, Sent, Stream, caller, endpoints
from replaygate.sim.faults import (
    FaultKind,
    FaultPlan,
    StatusFault,
    announced_retry,
    status_fault,
    status_of,
)
from replaygate.sim.platforms import platform_endpoints
from replaygate.sim.replies import (
    RawBody,
    Reply,
    json_reply,
    raw_reply,
    refusal,
    scripted_error,
    status_error,
    stream_reply,
)
from replaygate.sim.streaming import DEFAULT_CHUNK
from replaygate.sim.tokens import calls_size, input_tokens, tokens
from replaygate.sim.validation import OWN_WORDING, Invalid, mcp_call_unmade

log = logging.getLogger(__name__)


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
    output = len(response.text) + calls_size(response.tool_calls)
    usage = Usage(input_tokens=input_tokens(messages, tools, system), output_tokens=tokens(output))
    return ModelResponse(response.text, response.tool_calls, response.stop_reason, usage)


def stopped_at(
    response: ModelResponse, sequences: Sequence[str]
) -> tuple[ModelResponse, str | None]:
    """``response`` stopped at the first of ``sequences`` its text holds, as the APIs stop
    an answer there (its text before it, no tool call after it, ``stop_reason``
    ``stop_sequence``; the usage a behaviour gave kept), and the sequence it stopped at;
    else itself and None."""
    found = [(response.text.find(s), s) for s in sequences if s in response.text]
    if not found:
        return response, None
    at, sequence = min(found)
    return ModelResponse(response.text[:at], (), "stop_sequence", response.usage), sequence


def cut_at(response: ModelResponse, limit: int | None) -> ModelResponse:
    """``response`` cut at ``limit`` output tokens, as the APIs cut an answer (its text to
    the characters of that many tokens, ``stop_reason`` ``max_tokens``), when its text
    alone is longer; an answer calling tools is left whole, but for a limit of 0 (a
    thought spent them all), which leaves nothing of any answer."""
    if limit is None:
        return response
    if limit > 0 and (response.tool_calls or tokens(len(response.text)) <= limit):
        return response
    usage = Usage(input_tokens=response.usage.input_tokens, output_tokens=limit)
    return ModelResponse(response.text[: limit * 4], (), "max_tokens", usage)


def within(
    thought: str, answers: list[ModelResponse], limit: int | None
) -> tuple[str, list[ModelResponse]]:
    """``thought`` and ``answers`` within ``limit`` output tokens each, as the APIs count
    a thought: its tokens are spent first (a thought longer than the limit is cut to
    it), and each answer is cut to what is left (:func:`cut_at`): nothing when the
    thought spent them all."""
    if not thought or limit is None:
        return thought, answers
    thought = thought[: limit * 4]
    left = max(0, limit - tokens(len(thought)))
    return thought, [cut_at(answer, left) for answer in answers]


def _not_json(raw: bytes, err: orjson.JSONDecodeError) -> str:
    """Why a request body could not be read as JSON."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as bad:
        return f"The request body is not valid UTF-8 (at byte {bad.start}: {bad.reason})."
    return f"The request body is not valid JSON: {err}"


MAX_DEPTH = 128
"""The deepest the simulator reads arrays and objects nested in a request body: deeper, its
own JSON (which stops at 255 levels) and Python's recursion fail."""


def _deeper_than(raw: bytes, body: Any, limit: int) -> bool:
    """Whether ``body``, parsed from ``raw``, nests arrays and objects more than ``limit``
    levels deep (never, and not walked, when ``raw`` opens no more than that many)."""
    if raw.count(b"{") + raw.count(b"[") <= limit:
        return False
    stack: list[tuple[Any, int]] = [(body, 1)]
    while stack:
        value, depth = stack.pop()
        children = value.values() if isinstance(value, dict) else value
        if isinstance(value, (dict, list)):
            if depth > limit:
                return True
            stack.extend((child, depth + 1) for child in children)
    return False


def _encoding_problem(headers: Mapping[str, str], raw: bytes) -> Invalid | None:
    """Why the simulator cannot read a body sent compressed (``Content-Encoding: gzip``),
    which it would otherwise call not UTF-8 or not JSON: its own refusal. None for a body
    sent as it is."""
    encoding = headers.get("content-encoding", "").strip().lower()
    if not raw or encoding in ("", "identity"):
        return None
    message = f"The request body is sent with Content-Encoding: {encoding}, and the simulator"
    return Invalid(
        f"{message} reads only a body sent as it is, with no Content-Encoding.", own=True
    )


def _read(raw: bytes) -> Any:
    """The JSON value of a request body, or the :class:`Invalid` saying why it is none: not
    JSON, or nested deeper than :data:`MAX_DEPTH` (the simulator's own refusal)."""
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError as err:
        return Invalid(_not_json(raw, err))
    if _deeper_than(raw, body, MAX_DEPTH):
        message = f"The request body nests arrays and objects over {MAX_DEPTH} levels deep"
        return Invalid(f"{message}, deeper than the simulator reads.", own=True)
    return body


def _answered(response: Mapping[str, Any], endpoint: Endpoint) -> Mapping[str, Any] | None:
    """The JSON object a recorded success of ``endpoint`` answered with: its body, or
    what its stream holds (:meth:`Endpoint.streamed_answer`), if any."""
    body, events = response.get("body"), response.get("events")
    if isinstance(body, Mapping):
        return body
    return endpoint.streamed_answer(events) if isinstance(events, list) else None


def _route(path: str) -> tuple[str, str]:
    """The route (without a trailing slash) and the query of a request target."""
    route, _, query = path.partition("?")
    return route.rstrip("/"), query


class SimApp:
    """Answers requests with a behaviour, faults and drift; counts the answers (ids)."""

    def __init__(
        self,
        behavior: Behavior,
        *,
        seed: int = 0,
        faults: FaultPlan | None = None,
        drift: DriftPlan | None = None,
        chunk_size: int = DEFAULT_CHUNK,
        batch_polls: int = 0,
    ) -> None:
        self.behavior = behavior
        self.seed = seed
        self.faults = faults if faults is not None else FaultPlan()
        self.drift = DriftInjection(drift or DriftPlan())
        self.chunk_size = chunk_size
        self.endpoints = (*endpoints(seed, batch_polls), *platform_endpoints())
        self._drawer = self.faults.drawer(seed)
        self._answers = Draws()
        self._requests = Draws()

    def _request_id(self, method: str, route: str, body: bytes) -> str:
        """The id of a request, ``req_sim_<n>_<12 hex digits>``: n counts the requests of
        this method, route and JSON body (in any spelling), the digits come from the seed
        and the request, so a request gets the same id in any order of the others."""
        digest = request_digest(method.encode(), route, body)
        return f"{SIMULATOR_REQUEST_ID}{self._requests.counted(digest).tag(self.seed)}"

    def _endpoint(
        self, route: str, headers: Mapping[str, str] | None = None, query: str = ""
    ) -> Endpoint | None:
        """The endpoint serving ``route`` the request is meant for
        (:meth:`Endpoint.called_by`), else the first serving it (which refuses the
        caller's credentials), unless that one serves none but its own API's callers
        (:attr:`Endpoint.others_unserved`); without ``headers`` (a replayed answer
        learned), the first serving it."""
        serving = self._serving(route)
        meant = (e for e in serving if e.called_by(headers or {}, query))
        chosen = next(meant, serving[0] if serving else None)
        if chosen is not None and chosen.others_unserved and headers is not None:
            return chosen if chosen.called_by(headers, query) else None
        return chosen

    def handle(self, method: str, path: str, headers: Mapping[str, str], body: bytes) -> Reply:
        """The reply to one request; ``headers`` has lower-case names."""
        route, query = _route(path)
        request_id = self._request_id(method, route, body)
        endpoint = self._endpoint(route, headers, query)
        if endpoint is None:
            guess = caller(headers, query)
            message = None if guess != "openai" else f"Invalid URL ({method} {route})"
            reply = status_error(guess, 404, request_id, message=message)
            return dataclasses.replace(reply, unserved=True)
        provider = endpoint.provider
        if method not in endpoint.methods:
            message = None if provider != "openai" else f"Invalid URL ({method} {route})"
            reply = status_error(provider, 405, request_id, message=message)
            return dataclasses.replace(reply, unserved=True)
        fault = self._drawer.next(route, body)
        if not endpoint.authenticated(headers, query):
            return endpoint.error(401, request_id)
        problem = endpoint.header_problem(headers) or endpoint.query_problem(route, query)
        problem = problem or _encoding_problem(headers, body)
        if problem is not None:
            return endpoint.refused(problem, request_id)
        if isinstance(endpoint, ResourceEndpoint):
            forwarded = headers.get("x-forwarded-host")
            origin = f"https://{forwarded}" if forwarded else f"http://{headers.get('host', '')}"
            ask = functools.partial(self._asked, request_id)
            sent = Sent(origin, headers.get("content-type", ""), body, ask, headers)
            reply = self._resource(endpoint, method, route, query, fault, sent, request_id)
        else:
            reply = self._answer(endpoint, route, query, fault, body, request_id, headers)
        if fault == "slow":
            return dataclasses.replace(reply, delay=self.faults.slow_delay)
        return reply

    def learn(self, method: str, path: str, body: Any, response: Any) -> None:
        """Take ``response`` (as a fixture records it), replayed to ``method`` on ``path``
        with the JSON ``body`` by a recording, as answered here (:meth:`Endpoint.learn`):
        the request takes its request id and its fault, as one sent here does, whatever
        it was answered (a 429 a fault drew too), so the requests a grown recording sends
        meet the faults a recording of all of them at once meets."""
        sent = b"" if body is None else exact_json.dumps(body)
        route, _ = _route(path)
        self._request_id(method, route, sent)
        endpoint = self._endpoint(route)
        if endpoint is None or method not in endpoint.methods:
            return
        self._drawer.next(route, sent)
        if not isinstance(response, Mapping) or response.get("status") != 200:
            return
        self._count(endpoint, route, body)  # a stream counts, read to its end or not
        answer = _answered(response, endpoint)
        if answer is not None:  # each API sharing the route (/v1/files) takes its own
            for serving in self._serving(route):
                if serving.route == endpoint.route:
                    serving.learn(method, route, body, answer)

    def _serving(self, route: str) -> list[Endpoint]:
        """The endpoints serving ``route``, of one API or of several sharing it."""
        return [e for e in self.endpoints if e.serves(route)]

    def _count(self, endpoint: Endpoint, route: str, body: Any) -> None:
        """Count a replayed answer to ``body`` as one given here: the next answer to the
        same conversation is drawn (and numbered) as it is in a recording that sent the
        replayed turn too, so a recording of the samples a store is missing draws new
        answers, the ones a recording of every sample in one go would draw."""
        if isinstance(endpoint, ResourceEndpoint) or endpoint.counts_tokens:
            return
        request = endpoint.request(route, body)
        if endpoint.validate(request) is not None:
            return
        try:
            messages, tools, _ = endpoint.read(request)
        except WireFormatError:
            return
        replayed = getattr(self.behavior, "replayed", None)
        if callable(replayed):
            offered = endpoint.offered(request, tools)
            for _ in range(endpoint.choices(request)):
                replayed(messages, offered)
        self._answers.next(messages, tools)

    def too_large(self, method: str, path: str, headers: Mapping[str, str]) -> Reply:
        """The provider's 413 for a request whose body is over
        :data:`~replaygate.sim.replies.MAX_BODY` bytes (left unread)."""
        route, query = _route(path)
        endpoint = self._endpoint(route, headers, query)
        request_id = self._request_id(method, route, b"")
        if endpoint is None:
            return status_error(caller(headers, query), 413, request_id)
        return endpoint.error(413, request_id)

    def _fault_reply(
        self, endpoint: Endpoint, fault: FaultKind | None, request_id: str
    ) -> Reply | None:
        """The error status a drawn fault answers with, or None for a fault the answer
        itself carries (or none)."""
        if fault == "429" or fault == "500" or fault == "529":
            return self._status_reply(endpoint, fault, request_id)
        return None

    def _status_reply(
        self, endpoint: Endpoint, fault: StatusFault, request_id: str, retry: float | None = None
    ) -> Reply:
        """The provider's error answer for ``fault`` (429 and 529 with the retry timing:
        ``retry`` seconds, else the fault plan's)."""
        if fault == "500":
            retry = None
        elif retry is None:
            retry = self.faults.retry_after
        return endpoint.error(int(fault), request_id, retry_after=retry)

    def _failed(self, endpoint: Endpoint, err: Exception, request_id: str) -> Reply:
        """The answer to a behaviour that raised ``err``: the fault an SDK's status error
        stands for (a scripted 429), the API's answer to another status error of 400 to
        599 (a scripted ``BadRequestError``: :func:`scripted_error`), else a 500 marked as
        the simulator's own."""
        fault = status_fault(err)
        if fault is not None:
            return self._status_reply(endpoint, fault, request_id, announced_retry(err))
        message = f"simulator behaviour failed: {err}"
        status = status_of(err)
        if status is not None and 400 <= status <= 599:
            said = getattr(err, "message", None)
            text = said if isinstance(said, str) else str(err)
            body = getattr(err, "body", getattr(err, "details", None))  # anthropic's; google's
            return scripted_error(endpoint.provider, status, request_id, text, body)
        if status is not None:  # a scripted error: the message says all it knows
            message += (
                f" (an error of status {status}, which no API answers with: the simulator "
                f"answers a raised status error of 400 to 599 with that status)"
            )
        elif not isinstance(err, ReplaygateError):  # nor does a fake's own error
            log.exception("simulator behaviour failed")
        return refusal(endpoint.error(500, request_id, message=message))

    def _resource(
        self,
        endpoint: ResourceEndpoint,
        method: str,
        route: str,
        query: str,
        fault: FaultKind | None,
        sent: Sent,
        request_id: str,
    ) -> Reply:
        """The answer of a resource to a request (:class:`Sent`)."""
        provider = endpoint.provider
        failed = self._fault_reply(endpoint, fault, request_id)
        if failed is not None:
            return failed
        stream = Stream(self.chunk_size, self.drift.apply, fault)
        events = endpoint.resumed(method, route, query, stream)
        if events is not None:
            return stream_reply(events, provider=provider, request_id=request_id)
        body = _read(sent.raw) if sent.raw.strip() and not endpoint.reads_raw else None
        if isinstance(body, Invalid):
            return endpoint.refused(body, request_id)
        answered = endpoint.answer_sent(method, route, query, body, sent)
        if isinstance(answered, Invalid):
            return endpoint.refused(answered, request_id)
        if isinstance(answered[1], RawBody):
            return raw_reply(*answered, provider=provider, request_id=request_id)
        return json_reply(*answered, provider=provider, request_id=request_id)

    def _asked(self, request_id: str, endpoint: Endpoint, body: Any) -> tuple[int, Any] | Invalid:
        """``endpoint``'s answer to the JSON ``body`` (one request of a batch), made as one
        sent to it alone is made, without a fault; the simulator's own refusal, if it is
        one."""
        if isinstance(endpoint, ResourceEndpoint):  # embeddings
            return endpoint.answer("POST", endpoint.route, "", body)
        sent = orjson.dumps(body)
        reply = self._answer(endpoint, endpoint.route, "", None, sent, request_id, {})
        if reply.events is not None:
            return Invalid(
                "A request of a batch asks for a stream (stream: true), which "
                "a batch's answers do not give",
                own=True,
            )
        answered = orjson.loads(reply.body)
        if reply.refused:
            return Invalid(str(answered.get("error", {}).get("message")), own=True)
        return reply.status, answered

    def _answer(
        self,
        endpoint: Endpoint,
        route: str,
        query: str,
        fault: FaultKind | None,
        raw: bytes,
        request_id: str,
        headers: Mapping[str, str],
    ) -> Reply:
        failed = self._fault_reply(endpoint, fault, request_id)
        if failed is not None:
            return failed
        body = _read(raw)
        if isinstance(body, Invalid):
            return endpoint.refused(body, request_id)
        request = endpoint.request(route, body)
        problem = endpoint.validate(request) or endpoint.beta_problem(headers, request)
        if problem is not None:
            return endpoint.refused(problem, request_id)
        try:
            conversation = endpoint.read(request)
        except WireFormatError as err:  # in the simulator's words, which a recording drops
            path = err.path.removeprefix("request.")  # as the API names a parameter
            said = Invalid(f"{path}: {err.reason} {OWN_WORDING}", path, own=True)
            return endpoint.refused(said, request_id)
        if endpoint.counts_tokens:
            return endpoint.answered(endpoint.counted(input_tokens(*conversation)), request_id)
        answers: list[ModelResponse] = []
        limit = endpoint.output_limit(request)
        offered = endpoint.offered(request, conversation[1])
        one_call, forced = endpoint.one_call(request), endpoint.forced(request)
        schema = endpoint.json_schema(request)
        draw = self._answers.peek(conversation[0], conversation[1])
        sequence: str | None = None  # the stop sequence the first answer stopped at
        for choice in range(endpoint.choices(request)):
            try:
                answer = self.behavior.respond(conversation[0], offered)
                called = [call.name for call in answer.tool_calls]
                defined = [tool.name for tool in conversation[1]]
                unmade = mcp_call_unmade(request.body, called, defined)
                unmade = unmade or endpoint.unmade_call(request, called)
                if unmade is not None:
                    return refusal(endpoint.refused(unmade, request_id))
                if forced:
                    call_id = f"call_sim_{draw.tag(self.seed, 'forced', choice)}"
                    answer = forced_call(answer, offered, conversation[0], call_id)
                answer = made_calls(answer, endpoint.call_prefix)
                if schema is not None:
                    answer = endpoint.in_format(request, answer, schema)
            except ScriptExhaustedError as err:
                return refusal(endpoint.error(500, request_id, message=str(err)))
            except UnmadeValue as err:
                problem = Invalid(f"The simulator makes no answer of {err}")
                return refusal(endpoint.refused(problem, request_id))
            except Exception as err:
                return self._failed(endpoint, err, request_id)
            if one_call and len(answer.tool_calls) > 1:
                answer = dataclasses.replace(answer, tool_calls=answer.tool_calls[:1])
            answer, stopped = stopped_at(answer, endpoint.stop_sequences(request))
            sequence = stopped if choice == 0 else sequence
            answers.append(cut_at(estimate_usage(answer, *conversation), limit))
        self._answers.take(draw)
        sentences = endpoint.thinking(request)
        thought = thinking.thought(self.seed, draw, conversation[0], sentences) if sentences else ""
        thought, answers = within(thought, answers, limit)
        response, more = answers[0], answers[1:]
        try:
            tag = draw.tag(self.seed, response)
            wire = endpoint.render(request, conversation, response, tag, thought)
            if sequence is not None and response.stop_reason == "stop_sequence":
                wire = endpoint.stopped_by(wire, sequence)
            if more:
                wire = endpoint.with_choices(request, wire, more)
        except ValueError as err:  # an answer this API cannot give (pause_turn but Anthropic's)
            return refusal(
                endpoint.refused(Invalid(f"The simulator cannot answer: {err}"), request_id)
            )
        if not request.stream:
            return endpoint.answered(self.drift.apply(wire), request_id)
        stream = Stream(self.chunk_size, self.drift.apply, fault)
        events = endpoint.events(request, wire, stream)
        cut = len(events) // 2 if fault == "cut-stream" else None
        return endpoint.streamed(query, events, request_id, cut)
