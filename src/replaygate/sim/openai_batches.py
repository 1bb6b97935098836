"""OpenAI's Files and Batch APIs (``/v1/files``, ``/v1/batches``): a JSONL file of requests
uploaded, a batch made of it, answered by the behaviour, its output fetched as a file.

Files: ``POST /v1/files`` (a multipart form: ``file``, ``purpose``, ``expires_after``),
``GET /v1/files`` (newest first, or oldest with ``order`` ``asc``: ``limit`` 1 to
:data:`MOST_FILES_LISTED`, the default, ``after``, ``purpose``), ``GET`` and ``DELETE
/v1/files/{id}``, ``GET /v1/files/{id}/content`` (the bytes as uploaded or made). Batches:
``POST /v1/batches`` (``input_file_id``, ``endpoint`` of :data:`BATCH_ENDPOINTS`,
``completion_window`` ``24h``, ``metadata``, ``output_expires_after``), ``GET /v1/batches``
(newest first: ``limit`` 1 to 100, default 20, ``after``), ``GET /v1/batches/{id}``, ``POST
/v1/batches/{id}/cancel``. A batch is made ``validating``; the first retrieval after its
``polls`` (0 by default: the first) finds it ``completed`` (each retrieval before finding
it ``in_progress``), its answers (status 200) in the file ``output_file_id`` names and the
others in ``error_file_id``'s, or ``cancelled`` when a cancel (``cancelling``) came first.
An id the server does not hold is a 404. The most recent :data:`KEPT_CONVERSATIONS` of each
are kept.
"""

from __future__ import annotations

import codecs
import contextlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from email import errors
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any, NamedTuple
from urllib.parse import parse_qs

import orjson

from replaygate.digits import integer
from replaygate.sim.bounded import KEPT_CONVERSATIONS, Bounded
from replaygate.sim.conversations import created_at, not_served
from replaygate.sim.draws import Draws, digest_of
from replaygate.sim.openai_lists import openai_page
from replaygate.sim.replies import RawBody, openai_error
from replaygate.sim.validation import (
    OWN_WORDING,
    Invalid,
    openai_metadata_problem,
    openai_type_problem,
)

Answer = tuple[int, Any]
"""An HTTP status and its body (JSON, or :class:`~replaygate.sim.replies.RawBody`)."""

AskAt = Callable[[str, Any], "Answer | Invalid"]
"""The answer (a status and its JSON body) of the API at a path (``/v1/responses``) to a
JSON request body, or the simulator's own refusal of it."""

BATCH_ENDPOINTS = ("/v1/responses", "/v1/chat/completions", "/v1/embeddings", "/v1/moderations")
"""The endpoints of a batch the simulator answers (the API takes others too: the
simulator's own refusal)."""

MOST_BATCH_REQUESTS = 50_000
"""The most requests one batch's input file may hold."""

API_BATCH_ENDPOINTS = (
    *BATCH_ENDPOINTS,
    "/v1/completions",
    "/v1/images/generations",
    "/v1/images/edits",
)
"""The endpoints of a batch the API takes (``/v1/videos`` no longer, since the Videos API
shut down on 2026-09-24): another is its 400 naming ``endpoint``."""

PURPOSES = ("assistants", "batch", "fine-tune", "vision", "user_data", "evals")
"""The purposes a file is uploaded for, as the API takes them."""

EXPIRES_AFTER = (3600, 30 * 24 * 60 * 60)
"""The fewest and most seconds after its upload a file may be asked to expire."""

BATCH_FILES_EXPIRE = 30 * 24 * 60 * 60
"""How many seconds after its upload a ``batch`` file expires, unless asked otherwise."""

MOST_FILES_LISTED = 10_000
"""The most files one page of ``GET /v1/files`` holds, and how many it holds by default."""


def _error(status: int, message: str, param: str | None = None) -> Answer:
    return status, openai_error(message, param=param)


def _not_allowed(method: str, route: str) -> Answer:
    """The API's answer to a method its route does not take."""
    return _error(405, f"Invalid URL ({method} {route})")


def _own(message: str) -> Invalid:
    return Invalid(message, own=True)


def _held_here(named: str) -> str:
    """Why the simulator does not hold ``named``, when it is an id of its own (a file or a
    batch a replay answered with, which it did not make)."""
    return not_served("files and batches") if "_sim_" in named or "-sim_" in named else ""


class Field(NamedTuple):
    """A field of a multipart form: its file name (None for a plain field), its bytes, and
    the type its part names (None for none)."""

    filename: str | None
    data: bytes
    content_type: str | None = None


_BROKEN_FORM = {
    errors.NoBoundaryInMultipartDefect: "its Content-Type names no boundary",
    errors.StartBoundaryNotFoundDefect: "no part begins with the boundary its Content-Type names",
    errors.CloseBoundaryNotFoundDefect: "it ends before its closing boundary (cut short?)",
}
"""The defects of a multipart body that leave its fields unknown, and what each says."""


def form(content_type: str, raw: bytes) -> dict[str, Field] | Invalid | None:
    """The fields of a ``multipart/form-data`` body by name; None for a body of another
    type; the simulator's own refusal of a body not empty whose parts cannot all be read
    (no boundary, none found, or cut short), which the API refuses with its own words."""
    if not content_type.lower().startswith("multipart/form-data"):
        return None
    head = f"Content-Type: {content_type}\r\n\r\n".encode("latin-1")
    message = BytesParser(policy=HTTP).parsebytes(head + raw)
    said = [_BROKEN_FORM[type(d)] for d in message.defects if type(d) in _BROKEN_FORM]
    if said and raw.strip():
        return _own(f"The multipart/form-data body is broken: {said[0]} {OWN_WORDING}")
    fields: dict[str, Field] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True)
        typed = part.get("content-type")
        if isinstance(name, str) and isinstance(payload, bytes):
            fields[name] = Field(part.get_filename(), payload, str(typed) if typed else None)
    return fields


def _expires_in(fields: Mapping[str, Field], purpose: str) -> int | Invalid | None:
    """How many seconds after its upload a file expires: as its form's ``expires_after``
    asks (:func:`_expiry`), else :data:`BATCH_FILES_EXPIRE` for a ``batch`` file and never
    (None) for another."""
    asked = {k: fields.get(f"expires_after[{k}]") for k in ("anchor", "seconds")}
    if not any(asked.values()):
        return BATCH_FILES_EXPIRE if purpose == "batch" else None
    said = {k: f.data.decode("utf-8", "replace") for k, f in asked.items() if f is not None}
    return _expiry(said, "expires_after")


def _expiry(asked: Mapping[str, Any], where: str) -> int | Invalid:
    """The seconds after it is made that a file expires as ``asked`` (``{"anchor":
    "created_at", "seconds": ...}`` within :data:`EXPIRES_AFTER`, the seconds a number or
    a form's digits); the API's 400 naming the part of ``where`` missing or out of range."""
    for key in ("anchor", "seconds"):
        if key not in asked:
            return Invalid(f"Missing required parameter: '{where}.{key}'.", f"{where}.{key}")
    if asked["anchor"] != "created_at":
        message = f"Invalid value for '{where}.anchor': expected 'created_at'."
        return Invalid(f"{message} {OWN_WORDING}", f"{where}.anchor")
    low, high = EXPIRES_AFTER
    seconds = asked["seconds"]
    with contextlib.suppress(ValueError):
        seconds = integer(seconds) if isinstance(seconds, str) else seconds
    if isinstance(seconds, bool) or not isinstance(seconds, int) or not low <= seconds <= high:
        message = f"Invalid '{where}.seconds': expected an integer from {low} to {high}."
        return Invalid(f"{message} {OWN_WORDING}", f"{where}.seconds")
    return seconds


@dataclass
class _File:
    """A file the server holds: its object, and its bytes (None for one learned from a
    replayed answer, which holds none)."""

    meta: dict[str, Any]
    data: bytes | None


def _unheld(what: str, named: str) -> Invalid:
    """The simulator's own refusal to read ``what`` of ``named``, a file or batch it holds
    only as a replay answered with it (not its bytes, not its requests)."""
    return _own(
        f"The simulator holds {named} only as a replayed answer gave it, without {what}: "
        "record the batch job anew from its upload (record mode rerecord)"
    )


class Files:
    """File id -> the file. An id, ``file-sim_<n>_<digits>``, counts the files of the same
    name, purpose and bytes, and comes from the seed."""

    def __init__(self, limit: int = KEPT_CONVERSATIONS, seed: int = 0) -> None:
        self._kept: Bounded[_File] = Bounded(limit)
        self.seed = seed
        self._made = Draws()

    def add(
        self, filename: str, purpose: str, data: bytes, expires_in: int | None = None
    ) -> dict[str, Any]:
        """Keep ``data`` as a new file, expiring ``expires_in`` seconds after it is made
        (None: never); its object."""
        digest = digest_of(filename, purpose, data.decode("latin-1"))
        while True:  # one held may be learned from a replayed answer
            file_id = f"file-sim_{self._made.counted(digest).tag(self.seed)}"
            if file_id not in self._kept:
                break
        meta = {
            "id": file_id,
            "object": "file",
            "bytes": len(data),
            "created_at": created_at(0),
            "filename": filename,
            "purpose": purpose,
            "status": "processed",
            "expires_at": None if expires_in is None else created_at(0) + expires_in,
            "status_details": None,
        }
        self._kept.put(file_id, _File(meta, data))
        return meta

    def get(self, file_id: str) -> _File | None:
        return self._kept.get(file_id)

    def answer(self, method: str, route: str, query: str, fields: Any) -> Answer | Invalid:
        """The status and body answering ``method`` on ``route`` (under ``/v1/files``),
        ``fields`` the form of an upload (:func:`form`)."""
        parts = [p for p in route.removeprefix("/v1/files").split("/") if p]
        if not parts:
            if method == "GET":
                return self._listed(parse_qs(query))
            return self._uploaded(fields) if method == "POST" else _not_allowed(method, route)
        held = self._kept.get(parts[0])
        if held is None or len(parts) > 2 or parts[1:] not in ([], ["content"]):
            return _error(404, f"No such File object: {parts[0]}{_held_here(parts[0])}", "id")
        if method == "POST" or (parts[1:] == ["content"] and method != "GET"):
            return _not_allowed(method, route)
        if parts[1:] == ["content"]:
            if held.data is None:
                return _unheld("its bytes", parts[0])
            return 200, RawBody(held.data, "application/octet-stream")
        if method == "DELETE":
            del self._kept[parts[0]]
            return 200, {"id": parts[0], "object": "file", "deleted": True}
        return 200, held.meta

    def _listed(self, query: Mapping[str, list[str]]) -> Answer:
        """The page of files ``query`` asks for: of its ``purpose`` alone when it names one."""
        purpose = (query.get("purpose") or [""])[-1]
        held = [f.meta for f in self._kept.values()]
        held = [meta for meta in held if not purpose or meta.get("purpose") == purpose]
        most = MOST_FILES_LISTED
        return openai_page(
            held, query, ordered=True, most=most, default=most, place=self._kept.place
        )

    def _uploaded(self, fields: Any) -> Answer | Invalid:
        if isinstance(fields, Invalid):
            return fields
        if not isinstance(fields, dict):
            message = f"Expected a multipart/form-data body with 'file' and 'purpose' {OWN_WORDING}"
            return _error(400, message)
        for name in ("file", "purpose"):
            if name not in fields:
                return _error(400, f"Missing required parameter: '{name}'.", name)
        purpose = fields["purpose"].data.decode("utf-8", "replace")
        if purpose not in PURPOSES:
            listed = ", ".join(repr(p) for p in PURPOSES)
            return _error(400, f"Invalid value for 'purpose': expected one of {listed}.", "purpose")
        expires_in = _expires_in(fields, purpose)
        if isinstance(expires_in, Invalid):
            return expires_in
        filename, data, _ = fields["file"]
        return 200, self.add(filename or "upload", purpose, data, expires_in)

    def learn(self, method: str, route: str, answer: Mapping[str, Any]) -> None:
        """Take ``answer``, replayed to ``method`` on ``route`` from a fixture, as given here:
        a file uploaded (held without its bytes, which the answer does not hold), one
        deleted."""
        file_id = answer.get("id")
        if not isinstance(file_id, str) or answer.get("object") != "file":
            return
        if method == "DELETE":
            if file_id in self._kept:
                del self._kept[file_id]
        elif file_id not in self._kept:
            self.hold(dict(answer))

    def hold(self, meta: dict[str, Any]) -> None:
        """Hold the file ``meta`` describes, a replayed answer named, without its bytes."""
        self._kept.put(str(meta["id"]), _File(meta, None))


_BOMS = (codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
"""The byte order marks a file saved by a text editor may begin with."""


def _requests_of(data: bytes, endpoint: str) -> list[dict[str, Any]] | Invalid:
    """The requests of an input file, one JSON object a line, each with a ``custom_id``
    of its own, ``method`` ``POST``, ``url`` the batch's ``endpoint`` and a ``body``; else
    the simulator's own refusal, naming the line (the API fails the batch instead)."""
    requests: list[dict[str, Any]] = []
    seen: dict[str, int] = {}  # custom_id -> its line
    for number, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            request = orjson.loads(line)
        except orjson.JSONDecodeError:
            why = " (it begins with a byte order mark)" if line.startswith(_BOMS) else ""
            return _own(f"line {number} of the input file is not JSON{why} {OWN_WORDING}")
        if not isinstance(request, dict):
            return _own(f"line {number} of the input file is not a JSON object {OWN_WORDING}")
        custom_id = request.get("custom_id")
        if not isinstance(custom_id, str):
            return _own(f"line {number}: a custom_id, a string, is required {OWN_WORDING}")
        if custom_id in seen:
            said = f"line {number}: custom_id {custom_id!r} is line {seen[custom_id]}'s too"
            return _own(f"{said}: each request's is its own {OWN_WORDING}")
        if request.get("url") != endpoint or request.get("method") != "POST":
            said = f"line {number}: method POST and url {endpoint!r}, the batch's, are required"
            return _own(f"{said} {OWN_WORDING}")
        if not isinstance(request.get("body"), dict):
            return _own(f"line {number}: a JSON object body is required {OWN_WORDING}")
        model, first = request["body"].get("model"), requests[0]["body"] if requests else None
        if first is not None and model != first.get("model"):
            said = f"line {number}: model {model!r}, where line 1's is {first.get('model')!r}"
            return _own(f"{said}: an input file's requests name one model {OWN_WORDING}")
        seen[custom_id] = number
        requests.append(request)
    if not requests:
        return _own(f"the input file holds no request {OWN_WORDING}")
    if len(requests) > MOST_BATCH_REQUESTS:
        said = f"the input file holds {len(requests)} requests, over {MOST_BATCH_REQUESTS}"
        return _own(f"{said} {OWN_WORDING}")
    return requests


def _usage(answers: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """A batch's ``usage``: the tokens of its requests' answers (Chat Completions',
    Responses' or Embeddings' ``usage``), summed."""

    def summed(*path: str) -> int:
        total = 0
        for answer in answers:
            value: Any = answer.get("usage")
            for key in path:
                value = value.get(key) if isinstance(value, Mapping) else None
            total += value if isinstance(value, int) else 0
        return total

    made = summed("output_tokens") + summed("completion_tokens")
    return {
        "input_tokens": summed("input_tokens") + summed("prompt_tokens"),
        "input_tokens_details": {
            "cached_tokens": summed("input_tokens_details", "cached_tokens")
            + summed("prompt_tokens_details", "cached_tokens")
        },
        "output_tokens": made,
        "output_tokens_details": {
            "reasoning_tokens": summed("output_tokens_details", "reasoning_tokens")
            + summed("completion_tokens_details", "reasoning_tokens")
        },
        "total_tokens": summed("total_tokens"),
    }


def _line(tag: str, number: int, custom_id: str, answered: Answer) -> bytes:
    status, body = answered
    response = {"status_code": status, "request_id": f"req_sim_{tag}_{number}", "body": body}
    made = {"id": f"batch_req_sim_{tag}_{number}", "custom_id": custom_id, "response": response}
    return orjson.dumps({**made, "error": None}) + b"\n"


@dataclass
class _Batch:
    """A batch the server holds: its object and requests (None for one learned from a
    replayed answer), and how many retrievals found it in progress."""

    batch: dict[str, Any]
    requests: list[dict[str, Any]] | None
    polled: int = 0
    output_expires: int | None = None
    """How many seconds after it is made its output and error files expire (None: never)."""


class Batches:
    """Batch id -> the batch. An id, ``batch_sim_<n>_<digits>``, counts the batches of the
    same input file and endpoint, and comes from the seed. ``polls`` retrievals of a batch
    find it ``in_progress`` before one finds it ended."""

    def __init__(
        self, files: Files, limit: int = KEPT_CONVERSATIONS, seed: int = 0, polls: int = 0
    ) -> None:
        self.files = files
        self._kept: Bounded[_Batch] = Bounded(limit)
        self.seed = seed
        self.polls = polls
        self._made = Draws()

    def answer(
        self, method: str, route: str, query: str, body: Any, ask: AskAt
    ) -> Answer | Invalid:
        """The status and body answering ``method`` on ``route`` (under ``/v1/batches``)."""
        parts = [p for p in route.removeprefix("/v1/batches").split("/") if p]
        if not parts:
            if method == "GET":
                made = [kept.batch for kept in self._kept.values()]
                return openai_page(made, parse_qs(query), ordered=False, place=self._kept.place)
            return self._create(body if isinstance(body, Mapping) else {})
        held = self._kept.get(parts[0])
        if held is None or parts[1:] not in ([], ["cancel"]):
            return _error(404, f"No batch found with id '{parts[0]}'.{_held_here(parts[0])}")
        batch = held.batch
        if method != ("POST" if parts[1:] else "GET"):
            return _not_allowed(method, route)
        if parts[1:] == ["cancel"]:
            if batch["status"] in ("validating", "in_progress"):
                batch.update(status="cancelling", cancelling_at=created_at(1))
            elif batch["status"] != "cancelling":
                return _error(400, f"Cannot cancel a batch with status '{batch['status']}'.")
            return 200, batch
        if batch["status"] in ("validating", "in_progress") and held.polled < self.polls:
            held.polled += 1
            batch.update(status="in_progress", in_progress_at=created_at(1))
        elif batch["status"] in ("validating", "in_progress", "cancelling"):
            ended = self._ended(held, ask)
            if ended is not None:
                return ended
        return 200, batch

    def _create(self, body: Mapping[str, Any]) -> Answer | Invalid:
        for name in ("input_file_id", "endpoint", "completion_window"):
            if body.get(name) is None:
                return _error(400, f"Missing required parameter: '{name}'.", name)
            wrong = openai_type_problem(body, name, str, "a string")
            if wrong is not None:
                return wrong
        problem = openai_metadata_problem(body)
        problem = problem or openai_type_problem(body, "output_expires_after", dict, "an object")
        if problem is not None:
            return problem
        asked = body.get("output_expires_after")
        output_expires = None if asked is None else _expiry(asked, "output_expires_after")
        if isinstance(output_expires, Invalid):
            return output_expires
        endpoint, window = body["endpoint"], body["completion_window"]
        if window != "24h":
            message = f"Invalid value: '{window}'. Supported values are: '24h'."
            return _error(400, message, "completion_window")
        if endpoint not in API_BATCH_ENDPOINTS:
            listed = ", ".join(f"'{e}'" for e in API_BATCH_ENDPOINTS)
            message = f"Invalid value: '{endpoint}'. Supported values are: {listed}."
            return _error(400, f"{message} {OWN_WORDING}", "endpoint")
        if endpoint not in BATCH_ENDPOINTS:
            return _own(f"The simulator answers batches of {', '.join(BATCH_ENDPOINTS)} only")
        held = self.files.get(body["input_file_id"])
        if held is None:
            named = body["input_file_id"]
            return _error(404, f"No such File object: {named}{_held_here(named)}", "input_file_id")
        purpose = held.meta.get("purpose")
        if purpose != "batch":
            named = body["input_file_id"]
            message = f"File {named} was uploaded for purpose {purpose!r}: a batch's is 'batch'."
            return _error(400, f"{message} {OWN_WORDING}", "input_file_id")
        if held.data is None:
            return _unheld("its bytes", body["input_file_id"])
        requests = _requests_of(held.data, endpoint)
        if isinstance(requests, Invalid):
            return requests
        digest = digest_of(body["input_file_id"], endpoint)
        batch_id = f"batch_sim_{self._made.counted(digest).tag(self.seed)}"
        metadata = body.get("metadata")  # an object or null, as checked
        batch = {
            "id": batch_id,
            "object": "batch",
            "endpoint": endpoint,
            "errors": None,
            "input_file_id": body["input_file_id"],
            "completion_window": window,
            "status": "validating",
            "output_file_id": None,
            "error_file_id": None,
            "created_at": created_at(0),
            "in_progress_at": None,
            "expires_at": created_at(0) + 24 * 60 * 60,
            "finalizing_at": None,
            "completed_at": None,
            "failed_at": None,
            "expired_at": None,
            "cancelling_at": None,
            "cancelled_at": None,
            "request_counts": {"total": len(requests), "completed": 0, "failed": 0},
            "metadata": metadata,
            "model": requests[0]["body"].get("model"),
            "usage": _usage([]),
        }
        self._kept.put(batch_id, _Batch(batch, requests, output_expires=output_expires))
        return 200, batch

    def _ended(self, held: _Batch, ask: AskAt) -> Invalid | None:
        """End ``held``: each request answered, the answers in an output file and the
        errors in an error file (``completed``); none answered if a cancel came first
        (``cancelled``)."""
        batch = held.batch
        if batch["status"] == "cancelling":
            batch.update(status="cancelled", cancelled_at=created_at(2))
            return None
        if held.requests is None:
            return _unheld("the requests of its input file", batch["id"])
        tag = batch["id"].removeprefix("batch_sim_")
        output, errors, answers = b"", b"", []
        for number, request in enumerate(held.requests, start=1):
            answered = ask(batch["endpoint"], request["body"])
            if isinstance(answered, Invalid):
                named = f"line {number} of the input file (custom_id {request['custom_id']!r})"
                return answered.within(named)
            if answered[0] == 200:
                answers.append(answered[1])
            line = _line(tag, number, request["custom_id"], answered)
            output, errors = (
                (output + line, errors) if answered[0] == 200 else (output, errors + line)
            )
        made = {
            kind: self.files.add(
                f"{batch['id']}_{kind}.jsonl", "batch_output", data, held.output_expires
            )
            for kind, data in (("output", output), ("error", errors))
            if data
        }
        output_file, error_file = made.get("output"), made.get("error")
        failed = errors.count(b"\n")
        batch.update(
            status="completed",
            in_progress_at=created_at(1),
            finalizing_at=created_at(2),
            completed_at=created_at(2),
            output_file_id=output_file["id"] if output_file else None,
            error_file_id=error_file["id"] if error_file else None,
            usage=_usage(answers),
            request_counts={
                "total": len(held.requests),
                "completed": len(held.requests) - failed,
                "failed": failed,
            },
        )
        return None

    def learn(self, method: str, route: str, answer: Mapping[str, Any]) -> None:
        """Take ``answer``, replayed to ``method`` on ``route`` from a fixture, as given here:
        the batch it made or showed (held without its requests, which a replay does not
        give), and the files it names (without their bytes)."""
        batch_id = answer.get("id")
        if not isinstance(batch_id, str) or answer.get("object") != "batch":
            return
        if not isinstance(answer.get("status"), str) or not isinstance(answer.get("endpoint"), str):
            return  # no batch of the API's (a fixture written by hand): none to hold
        held = self._kept.get(batch_id)
        if held is None:
            self._kept.put(batch_id, _Batch(dict(answer), None))
            if not route.removeprefix("/v1/batches").strip("/"):
                self._made.counted(digest_of(answer.get("input_file_id"), answer.get("endpoint")))
        else:
            held.batch.update(answer)
            if answer.get("status") == "in_progress":
                held.polled += 1  # a poll that found it in progress
        for named in ("output_file_id", "error_file_id"):
            file_id = answer.get(named)
            if isinstance(file_id, str) and self.files.get(file_id) is None:
                self.files.hold({"id": file_id, "object": "file", "purpose": "batch_output"})
