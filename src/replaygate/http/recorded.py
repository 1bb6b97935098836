"""Recorded HTTP responses: what a fixture keeps of a response, and the bytes it replays.

A recorded response is a JSON object::

    {"status": 200, "headers": {...}, "body": {...}}                       # plain
    {"status": 200, "headers": {...}, "events": [...], "stream_end": "complete"}  # SSE

- ``headers`` keeps only :data:`RESPONSE_HEADERS`, the ones the SDKs read
  (content type, request id, retry timing, Anthropic's workspace and organization ids,
  OpenAI's polling interval), a redirect's ``location``, and the ``content-length`` of
  an answer to ``HEAD`` or a 304 (:func:`sized_elsewhere`), replayed as it was where
  any other answer gets its body's length (none for a 1xx or 204). Rate-limit
  counters, cookies, dates and ``content-encoding`` are dropped;
- ``body`` is the decoded body parsed as JSON, when it is labelled JSON
  (``application/json``, ``...+json``: an API's answer, replayed in compact form) or
  its compact form is the body as sent; any other body (not JSON, or a file download
  that happens to be JSON, an indented one or a JSON line and its line end) is kept as
  ``"text"`` or ``"base64"``, replayed byte for byte;
- ``events`` are the server-sent events in order (:meth:`SSEEvent.to_json`, ``data``
  kept as the text sent, ``[DONE]`` included; a last event the server did not end with
  a blank line is ``unterminated``), or the messages of an AWS event stream
  (:mod:`~replaygate.http.aws_events`), and ``stream_end`` says how the stream
  ended: ``complete``; ``cut`` (the connection broke mid-way, ``stream_error`` names
  the transport error the client saw, replayed as the same error after the same
  events); or ``closed`` (the client stopped reading while recording: reading beyond
  that point on replay is an error).

On replay a response the SDKs would retry (408, 409, 429, 5xx) carries
``retry-after-ms: 1`` and ``retry-after: 0`` (a recorded one, or one added where the
server sent none, as OpenAI's and Anthropic's 500s), so a replayed retry waits a
millisecond instead of the recorded delay or the client's backoff: the SDKs read
``retry-after-ms``, DSPy and others ``retry-after`` only; a
recorded ``openai-poll-after-ms`` becomes ``1`` too, and an answer of work not done yet
(its ``status`` ``queued``, ``in_progress``, ...) carries it, recorded or not, so a
replayed poll of the OpenAI SDK does not wait (without the header, as in an answer
written by hand or recorded from a gateway, it waits a second a poll).
"""

from __future__ import annotations

import base64
import binascii
import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, AnyStr, Literal, NamedTuple

from replaygate import exact_json
from replaygate.errors import ReplaygateError, WireFormatError, kind_of
from replaygate.http.aws_events import is_aws_stream, stream_bytes
from replaygate.http.envelope import body_field, raw_body_field, select_headers
from replaygate.http.sse import SSEEvent, event_text
from replaygate.jsondoc import shown, syntax_error
from replaygate.strict_json import plain_loads

if TYPE_CHECKING:
    from replaygate.fixtures.store.index import Location

RESPONSE_HEADERS: frozenset[str] = frozenset(
    {
        "content-type",
        "request-id",
        "x-request-id",
        "retry-after",
        "retry-after-ms",
        "x-should-retry",
        "anthropic-workspace-id",
        "anthropic-organization-id",
        "openai-poll-after-ms",
        "x-amzn-requestid",
        "x-amzn-errortype",
        "x-amzn-bedrock-input-token-count",
        "x-amzn-bedrock-output-token-count",
    }
)
"""Response headers kept in a fixture: those the installed ``anthropic`` and ``openai``
SDKs read from a response (``_workspace_id``, ``APIStatusError.workspace_id``, the
tracing spans' organization and workspace ids, the polling helpers' interval), Amazon
Bedrock's request id (``x-amzn-RequestId``, botocore's ``ResponseMetadata.RequestId``), the
one botocore names an Amazon Bedrock error by (``x-amzn-ErrorType``: its
``ValidationException``, ``ThrottlingException``), and the token counts Bedrock gives an
``invoke`` answer beside its body, which code reads from botocore's
``ResponseMetadata.HTTPHeaders`` (its latency, which changes with every call, is not
kept)."""

REDIRECT_HEADERS: frozenset[str] = RESPONSE_HEADERS | {"location"}
"""Response headers kept in a fixture of a redirect (3xx): ``location`` too, so a client
that follows redirects follows the replayed one as it followed the live one."""

StreamEnd = Literal["complete", "cut", "closed"]
STREAM_ENDS: tuple[str, ...] = ("complete", "cut", "closed")
REPLAYED_RETRY_AFTER_MS = "1"
_POLL_AFTER = "openai-poll-after-ms"


def kept_headers(
    headers: Iterable[tuple[str, str]], status: int = 200, *, head: bool = False
) -> dict[str, str]:
    """The :data:`RESPONSE_HEADERS` of a response (:data:`REDIRECT_HEADERS` of a 3xx
    one), lower-case names, and the ``content-length`` of an answer to ``HEAD`` or a 304,
    which names the length of a body it does not carry (:func:`sized_elsewhere`; not when
    the body was encoded, whose length the client is not handed);
    :class:`WireFormatError` names one that replay could not hand a client
    (:func:`_check_headers`: a value that is not ASCII text), so no fixture holds a
    response that cannot be replayed."""
    names = REDIRECT_HEADERS if 300 <= status < 400 else RESPONSE_HEADERS
    if sized_elsewhere(status, head) and not encoded(headers):
        names = names | {"content-length"}
    kept = select_headers(headers, names, ", ")
    _check_headers(kept)
    return kept


def sized_elsewhere(status: int, head: bool) -> bool:
    """Whether the ``content-length`` of an answer (to ``HEAD`` when ``head``) is that of a
    body it does not carry (RFC 9110, 8.6): any answer to ``HEAD``, and a 304."""
    return head or status == 304


def header_text(value: str | bytes) -> str:
    """A header name or value as text (as bytes, ``httpx``'s ``raw``, read as Latin-1)."""
    return value.decode("latin-1") if isinstance(value, bytes) else value


def encoded(headers: Iterable[tuple[AnyStr, AnyStr]]) -> bool:
    """Whether response ``headers`` say the body was sent encoded (a ``content-encoding``
    other than ``identity``): a client handed it decoded gets no ``content-length``."""
    return any(
        header_text(k).lower() == "content-encoding"
        and header_text(v).strip().lower() not in ("", "identity")
        for k, v in headers
    )


def is_event_stream(headers: Iterable[tuple[str, str]]) -> bool:
    """Whether a response's content type is ``text/event-stream`` or an AWS event stream's
    (:mod:`~replaygate.http.aws_events`)."""
    return any(
        name.lower() == "content-type"
        and (value.lower().startswith("text/event-stream") or is_aws_stream(value))
        for name, value in headers
    )


def plain_response(
    status: int, headers: Iterable[tuple[str, str]], body: bytes, *, head: bool = False
) -> dict[str, Any]:
    """The recorded form of a whole (decoded) response body (of an answer to ``HEAD`` when
    ``head``): parsed as JSON where it is labelled JSON or its compact form is ``body``
    itself, else as it came (see the module docstring), so a file download replays byte
    for byte."""
    kept = kept_headers(headers, status, head=head)
    field, value = body_field(body)
    unlabelled = field == "body" and value is not None and not labelled_json(kept)
    if unlabelled and exact_json.dumps(value) != body:
        field, value = raw_body_field(body)
    return {"status": status, "headers": kept, field: value}


def labelled_json(headers: Mapping[str, str]) -> bool:
    """Whether kept (lower-case) ``headers`` label the body JSON: ``application/json`` or a
    ``...+json`` media type."""
    kind = str(headers.get("content-type", "")).partition(";")[0].strip().lower()
    return kind == "application/json" or kind.endswith("+json")


def stream_response(
    status: int,
    headers: Iterable[tuple[str, str]],
    events: Iterable[SSEEvent],
    end: StreamEnd,
    error: BaseException | None = None,
) -> dict[str, Any]:
    """The recorded form of an event stream that ended with ``end``."""
    record: dict[str, Any] = {
        "status": status,
        "headers": kept_headers(headers, status),
        "events": [event.to_json() for event in events],
        "stream_end": end,
    }
    if error is not None:
        record["stream_error"] = {"type": type(error).__name__, "message": str(error)}
    return record


def retryable(status: int) -> bool:
    """Whether the SDKs retry a response with this status (without ``x-should-retry``)."""
    return status in (408, 409, 429) or status >= 500


def retried_past(responses: Sequence[Any]) -> str | None:
    """What a send past the recorded ``responses`` of a request says when the last of them
    is a status the SDKs retry (:func:`retryable`, a 529 ``overloaded_error``): the client
    retries it more often than it did while recorded; None otherwise."""
    last = responses[-1] if responses else None
    status = last.get("status") if isinstance(last, Mapping) else None
    if not isinstance(status, int) or not retryable(status):
        return None
    return (
        f"replaygate: the last answer recorded for it is a {status}, which the SDKs retry: "
        "the client retried it more often now than when it was recorded (its max_retries "
        "raised since, or the recording made with fewer retries ended on that error). Give "
        "the client the max_retries it was recorded with, or record it again."
    )


READ_ON = "read on (its stream, recorded as closed where the test left it)"
"""What was done with a request whose stream is read on after its session ended."""


class Replayed(NamedTuple):
    """A recorded response ready to be replayed: status, headers and body chunks.

    ``chunks`` is the whole body in one chunk (none when it is empty): a response body,
    or (``streamed`` true) the ``events`` recorded events, handed over at once, as a
    client may read them from one network read. ``end`` and ``error`` (exception class
    name and message) say how a stream ends; ``key`` is the fixture's, ``store`` the
    store holding it and ``at`` its place there, and ``rerecord`` the command that records
    it anew (empty: the generic flags), ``from_simulator`` how to record it from the
    simulator again (empty: it was not recorded from it, or the command names it), for
    error messages; ``raised`` is told a replay error the stream raises (a read past
    where it was closed), so its session fails a run whose code caught it, and ``read_on``
    gives the error of such a read made after its session ended (a pytest test's, whose
    reader a task the test left running is), or None while the session lasts. A named tuple:
    one is made per replayed send, and a tuple is made several times faster than a frozen
    dataclass.
    """

    status: int
    headers: tuple[tuple[str, str], ...]
    chunks: tuple[bytes, ...]
    end: StreamEnd = "complete"
    error: tuple[str, str] | None = None
    key: str = ""
    streamed: bool = False
    events: int = 0
    rerecord: str = ""
    from_simulator: str = ""
    store: str | os.PathLike[str] = ""
    at: Location | None = None
    raised: Callable[[ReplaygateError], None] | None = None
    read_on: Callable[[], ReplaygateError | None] | None = None

    @property
    def body(self) -> bytes:
        """The whole body."""
        return b"".join(self.chunks)

    def by_event(self) -> Replayed:
        """This answer with a stream's events one chunk each, as a server sends them (for
        a reader that sees the chunks: aiohttp's ``iter_chunks``, requests' ``raw``)."""
        if not self.streamed:
            return self
        return self._replace(chunks=_one_per_event(self.body))


def _one_per_event(text: bytes) -> tuple[bytes, ...]:
    """An event stream's text cut after each event's blank line."""
    events = text.split(b"\n\n")
    chunks = [event + b"\n\n" for event in events[:-1]]
    return (*chunks, events[-1]) if events[-1] else tuple(chunks)


def _body_bytes(record: Mapping[str, Any]) -> bytes:
    for field in ("text", "base64"):
        if field in record and type(record[field]) is not str:
            raise WireFormatError(
                f"response.{field}", f"expected a string, got {kind_of(record[field])}"
            )
    if "text" in record:
        return str(record["text"]).encode("utf-8")
    if "base64" in record:
        try:
            return base64.b64decode(record["base64"], validate=True)
        except (binascii.Error, ValueError):
            raise WireFormatError("response.base64", "not base64 text") from None
    body = record.get("body")
    return b"" if body is None else exact_json.dumps(body)


def _one_line(value: Any) -> bool:
    """Whether ``value`` is a string of one line (a line break would start another header,
    or another field of an event)."""
    return type(value) is str and "\n" not in value and "\r" not in value


def _check_headers(headers: Mapping[str, Any]) -> None:
    """:class:`WireFormatError` naming the first recorded header no client could be
    handed: each value must be one line of ASCII text. All values are checked at once
    (one join), as this runs for every replayed call."""
    try:
        joined = "".join(headers.values())
    except TypeError:  # a value that is not a string
        joined = "\n"
    if joined.isascii() and "\n" not in joined and "\r" not in joined:
        return
    name, value = next((k, v) for k, v in headers.items() if not (_one_line(v) and v.isascii()))
    from replaygate.sanitize.secret_mask import masked_texts  # an error's path only

    (quoted,) = masked_texts([value]) if isinstance(value, str) else (value,)
    raise WireFormatError(
        f"response.headers.{name}", f"expected one line of ASCII text, got {shown(quoted)}"
    )


def replay_headers(
    headers: Mapping[str, Any], status: int, *, pending: bool = False
) -> list[tuple[str, str]]:
    """Recorded headers with the retry and polling timing shortened (see the module
    docstring), ``pending`` saying the answer is of work not done yet, which a client may
    poll; :class:`WireFormatError` names one that no client could be handed."""
    _check_headers(headers)
    out = [(k.lower(), v) for k, v in headers.items()]
    if pending or any(k == _POLL_AFTER for k, _ in out):
        out = [(k, v) for k, v in out if k != _POLL_AFTER]
        out.append((_POLL_AFTER, REPLAYED_RETRY_AFTER_MS))
    if retryable(status) or not _RETRY_TIMING.isdisjoint([k for k, _ in out]):
        out = [(k, v) for k, v in out if k not in _RETRY_TIMING]
        out += [("retry-after", "0"), ("retry-after-ms", REPLAYED_RETRY_AFTER_MS)]
    return out


_RETRY_TIMING = frozenset({"retry-after", "retry-after-ms"})
_PENDING = frozenset({"queued", "in_progress", "cancelling", "validating", "finalizing"})
"""The statuses of work not done yet, which the OpenAI SDK's poll helpers ask again for
(a vector store's file, a file batch, a run, a batch)."""


def _pending(body: Any) -> bool:
    """Whether ``body``, a recorded JSON body, is of work not done yet (:data:`_PENDING`)."""
    return type(body) is dict and body.get("status") in _PENDING


def _is_mapping(value: Any) -> bool:
    return type(value) is dict or isinstance(value, Mapping)


def _stream_text(events: list[Any]) -> str:
    """The wire text of recorded ``events`` (:func:`~replaygate.http.sse.event_text` of
    each, joined); :class:`WireFormatError` names an event that is not an object with
    string data and, if named, a name of one line."""
    text = _common_stream_text(events)
    return _checked_stream_text(events) if text is None else text


def _common_stream_text(events: list[Any]) -> str | None:
    """The wire text of a stream as the SDKs' servers send it, written in a few passes
    over its events rather than a check and a call per event (this runs for every
    replayed stream): every event a ``dict`` holding one line of ``data`` and, on every
    event or on none, a one-line ``event`` name, and nothing else (no ``unterminated``).
    None for any other stream, which :func:`_checked_stream_text` writes or refuses."""
    try:
        datas = [event["data"] for event in events]
        names = [event.get("event") for event in events]
        data = "".join(datas)
    except (TypeError, KeyError, AttributeError):
        return None
    named = len(names) - names.count(None)
    if "\n" in data or "\r" in data or sum(map(len, events)) != len(events) + named:
        return None  # a data of several lines, or another field (a name of null included)
    if not named:
        return "".join([f"data: {data}\n\n" for data in datas])
    if named != len(names):
        return None
    try:
        joined = "".join(names)
    except TypeError:
        return None
    if "\n" in joined or "\r" in joined:
        return None
    pairs = zip(names, datas, strict=True)
    return "".join([f"event: {name}\ndata: {data}\n\n" for name, data in pairs])


def _checked_stream_text(events: list[Any]) -> str:
    """:func:`_stream_text` of any stream, each event checked in turn."""
    texts: list[str] = []
    add = texts.append
    for i, event in enumerate(events):
        if not _is_mapping(event) or "data" not in event:
            raise WireFormatError(f"response.events[{i}]", "expected an object with data")
        data, name = event["data"], event.get("event")
        if type(data) is not str:
            raise WireFormatError(
                f"response.events[{i}].data", f"expected a string, got {kind_of(data)}"
            )
        if "\r" in data:  # a line end on the wire: the client would read other data
            raise WireFormatError(
                f"response.events[{i}].data",
                f"holds a carriage return, which ends a line in an event stream: {shown(data)}",
            )
        if name is not None and (type(name) is not str or "\n" in name or "\r" in name):
            raise WireFormatError(
                f"response.events[{i}].event", f"expected a name, got {shown(name)}"
            )
        add(event_text(data, name, _terminated(event, i == len(events) - 1, i)))
    return "".join(texts)


def _terminated(event: Mapping[str, Any], last: bool, i: int) -> bool:
    """Whether event ``i`` ends with its blank line: only the last event of a stream may
    be recorded ``unterminated`` (``true``); another would run into the next event on
    replay, which the server never sent."""
    flag = event.get("unterminated")
    if flag is None:
        return True
    if flag is not True or not last:
        raise WireFormatError(
            f"response.events[{i}].unterminated",
            "only the last event may be unterminated, and only as true",
        )
    return False


_SENT = "as the server sent it"
"""Where a live answer no SDK reads came from."""
_UNREAD = "a cassette recorded by a vcrpy that left streamed bodies unread?"
"""Where a stored success stream of no event likely came from."""


def _check_json_text(
    body: bytes, headers: Iterable[tuple[str, str]], field: str, guess: str
) -> None:
    """Refuse ``body``, the replayed ``text`` or ``base64`` (``field``), or the empty
    ``body``, of a success whose (lower-case) ``headers`` label it JSON
    (``application/json``, ``...+json``), when the SDK's JSON reader cannot read it. A
    body recorded as JSON is kept as ``body``; one kept as ``text`` or ``base64`` under
    that label, or none, is one that an edit broke (a cassette's answer, a quote lost;
    gzip bytes whose ``content-encoding`` a filter took away; a body a filter blanked) or
    that a server sent broken, which no SDK reads (``guess`` says which is likely). It is
    read as the SDKs read it (httpx's ``json.loads`` of the bytes), so a byte-order mark
    before the JSON is accepted."""
    media = next((v for k, v in headers if k == "content-type"), "")
    kind = media.partition(";")[0].strip().lower()
    if kind != "application/json" and not kind.endswith("+json"):
        return
    try:
        plain_loads(body)
    except json.JSONDecodeError as err:
        problem = f"not JSON ({syntax_error(err)})" if body else "empty"
    except RecursionError:
        problem = "nested too deeply for the SDK's JSON reader"
    except ValueError as err:  # bytes in no encoding JSON is read in
        problem = f"not JSON ({err})"
    else:
        return
    raise WireFormatError(
        f"response.{field}",
        f"labelled {kind}, but {problem}, where the SDK of a model API parses a success as "
        f"JSON ({guess})",
    )


def base64_embeddings(body: Any) -> bool:
    """Whether ``body``, a recorded JSON body, is an embeddings answer whose vectors are
    base64 text (``encoding_format: "base64"``, which the openai SDK asks for and decodes):
    its first entry of ``data`` holds its ``embedding`` as a string."""
    if type(body) is not dict:
        return False
    data = body.get("data")
    return (
        type(data) is list
        and bool(data)
        and type(data[0]) is dict
        and type(data[0].get("embedding")) is str
    )


def _check_embeddings(body: Any, guess: str) -> None:
    """Refuse an embeddings answer (:func:`base64_embeddings`) one of whose base64 vectors
    the openai SDK cannot decode as float32 numbers (``base64.b64decode``, then 4 bytes a
    number), where it would fail naming no fixture (``Incorrect padding``, ``buffer size
    must be a multiple of element size``); ``guess`` says where it likely came from."""
    if not base64_embeddings(body):
        return
    for i, entry in enumerate(body["data"]):
        vector = entry.get("embedding") if type(entry) is dict else None
        if type(vector) is not str:
            continue
        try:
            size = len(base64.b64decode(vector))
        except (binascii.Error, ValueError) as err:
            problem = f"not base64 text ({err})"
        else:
            if not size % 4:
                continue
            problem = f"{size} bytes, not a whole number of 4-byte float32 numbers"
        raise WireFormatError(
            f"response.body.data[{i}].embedding",
            f"{problem}, where the openai SDK decodes base64 embeddings as float32 ({guess})",
        )


def _lengthed(
    headers: list[tuple[str, str]], status: int, head: bool, body: bytes
) -> tuple[tuple[str, str], ...]:
    """Replayed ``headers`` with the ``content-length`` HTTP gives the answer (RFC 9110,
    8.6): an answer to ``HEAD`` and a 304 the one recorded (the length of a body they do
    not carry), or none; a 1xx and a 204 none; any other the length of ``body``."""
    if sized_elsewhere(status, head):
        return tuple(headers)
    kept = [(k, v) for k, v in headers if k != "content-length"]  # none but a hand's
    if status >= 200 and status != 204:
        kept.append(("content-length", str(len(body))))
    return tuple(kept)


_BODY_FIELDS = ("body", "text", "base64", "events")


def _bodies(record: Mapping[str, Any]) -> list[str]:
    """The body fields ``record`` holds (a response has one)."""
    return [field for field in _BODY_FIELDS if field in record]


def replayed(
    record: Any,
    *,
    key: str = "",
    rerecord: str | None = None,
    from_simulator: str = "",
    store: str | os.PathLike[str] = "",
    at: Location | None = None,
    model_api: bool = False,
    head: bool = False,
    live: bool = False,
    raised: Callable[[ReplaygateError], None] | None = None,
    read_on: Callable[[], ReplaygateError | None] | None = None,
) -> Replayed:
    """The replay form of a recorded response (to ``HEAD`` when ``head``: see
    :func:`_lengthed`); :class:`WireFormatError` names a bad field.
    ``rerecord`` is the command a stream that cannot be replayed further names, and
    ``from_simulator`` how to record it from the simulator again, said beside it, and
    ``store`` (its path) where the fixture ``key`` is, named by a cut stream's error, and
    ``at`` its place there, named by an event the client cannot read.
    ``model_api`` says the response answers a model API's path, whose SDK parses a
    success labelled JSON: a ``text`` or ``base64`` body that is not JSON, or none where
    the status carries one, is refused (:func:`_check_json_text`), and so is a whole
    success stream with no event, where the SDK would fail on them naming no fixture.
    ``live`` says ``record`` is what a server just sent, not a stored answer an edit or a
    cassette's recorder could have broken; ``raised`` is told a replay error a stream
    raises, and ``read_on`` gives one raised after its session ended (:class:`Replayed`)."""
    if not _is_mapping(record):
        raise WireFormatError("response", "expected an object with status, headers and a body")
    status = record.get("status")
    if not isinstance(status, int) or not 100 <= status <= 599:
        raise WireFormatError("response.status", f"expected an HTTP status, got {status!r}")
    headers = record.get("headers")
    headers = {} if headers is None else headers
    if not _is_mapping(headers):
        raise WireFormatError("response.headers", "expected an object")
    out = replay_headers(headers, status, pending=_pending(record.get("body")))
    # status, headers and one body (and a stream's end): no room for a second body
    held = [] if len(record) <= 3 + ("stream_end" in record) else _bodies(record)
    if len(held) > 1:  # one would be replayed and the others never seen
        raise WireFormatError(
            "response", f"holds {' and '.join(held)}: a response has one body, keep one"
        )
    if "events" not in record:
        body = _body_bytes(record)
        kept_as = "text" if "text" in record else "base64" if "base64" in record else None
        if kept_as is None and not body and status not in (204, 205) and not head:
            kept_as = "body"  # none: an answer that carries one, recorded empty
        if model_api and 200 <= status < 300:
            guess = _SENT if live else "an edit broke it?"
            if kept_as is not None:
                _check_json_text(body, out, kept_as, guess)
            else:
                _check_embeddings(record.get("body"), guess)
        return Replayed(
            status, _lengthed(out, status, head, body), (body,) if body else (), key=key
        )
    events = record["events"]
    if not isinstance(events, list):
        raise WireFormatError("response.events", "expected a list of events")
    end = record.get("stream_end", "complete")
    if end not in STREAM_ENDS:
        raise WireFormatError("response.stream_end", f"expected one of {', '.join(STREAM_ENDS)}")
    if model_api and not events and end == "complete" and 200 <= status < 300:
        raise WireFormatError(
            "response.events",
            "a success stream that holds no event, from which the SDK of a model API reads "
            f"no answer ({_SENT if live else _UNREAD})",
        )
    aws = is_aws_stream(headers.get("content-type"))
    body = stream_bytes(events) if aws else _stream_text(events).encode("utf-8")
    error = record.get("stream_error")
    if error is not None and not (
        _is_mapping(error) and type(error.get("type")) is str and type(error.get("message")) is str
    ):
        raise WireFormatError("response.stream_error", "expected an object with type and message")
    pair = (error["type"], error["message"]) if error is not None else None
    chunks = (body,) if body else ()
    return Replayed(
        status,
        tuple(out),
        chunks,
        end,
        pair,
        key,
        True,
        len(events),
        rerecord or "",
        from_simulator,
        store,
        at,
        raised,
        read_on,
    )
