"""Anthropic's Message Batches API (``/v1/messages/batches``): requests of the Messages
API sent together, answered by the behaviour, their results fetched as JSONL.

Routes: ``POST /v1/messages/batches`` (``requests``: up to :data:`MOST_REQUESTS`, each a
``custom_id`` and the ``params`` of a Messages request), ``GET`` (a page, newest first:
``limit`` 1 to 1000, default 20, ``after_id``, ``before_id``), ``GET`` and ``DELETE
/v1/messages/batches/{id}``, ``POST .../{id}/cancel`` and ``GET .../{id}/results``. A batch
is made ``in_progress``; the first retrieval after its ``polls`` (0 by default: the
first) finds it ``ended`` (its requests answered when it was made, or ``canceled`` when a
cancel came first, which makes it ``canceling``), each retrieval before finding it still
``in_progress``, with a ``results_url`` at the origin the request was sent to (the API's,
``https://`` and ``X-Forwarded-Host``, for one moved here). An id the
server does not hold is a 404. The most recent :data:`KEPT_CONVERSATIONS` are kept.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import parse_qs

import orjson

from replaygate.sim.anthropic_lists import anthropic_page, page_body
from replaygate.sim.bounded import KEPT_CONVERSATIONS, Bounded
from replaygate.sim.conversations import created_at
from replaygate.sim.draws import Draws, digest_of
from replaygate.sim.replies import RawBody
from replaygate.sim.validation import OWN_WORDING, Invalid

Answer = tuple[int, Any]
"""An HTTP status and its body (JSON, or :class:`~replaygate.sim.replies.RawBody`)."""

Ask = Callable[[Any], "Answer | Invalid"]
"""The Messages API's answer (a status and its JSON body) to the ``params`` of one
request of a batch, or the simulator's own refusal of it."""

MOST_REQUESTS = 100_000
"""The most requests one batch may hold, as the API allows."""

MOST_POLLS = 1000
"""The most retrievals a batch may be kept in progress for (``batch_polls``)."""


def batch_polls_problem(value: object) -> str | None:
    """Why ``value`` is no ``batch_polls`` of the simulator (how many retrievals of a batch
    find it still in progress before one finds it ended): an integer from 0 to
    :data:`MOST_POLLS`; None when it is one."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MOST_POLLS:
        return None
    return (
        "batch_polls: expected how many polls find a batch still in progress, "
        f"0 to {MOST_POLLS} (0: the first poll finds it ended), got {value!r}"
    )


_STATUSES = ("in_progress", "canceling", "ended")
"""The ``processing_status`` of a batch."""

_CUSTOM_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_ROUTE = "/v1/messages/batches"


def rfc3339(seconds: int) -> str:
    """The RFC 3339 time ``seconds`` after the epoch, as the API writes its times."""
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _refused(message: str, status: int = 400) -> Invalid:
    return Invalid(message, status=status)


@dataclass
class _Batch:
    """A batch the server holds: the object, its requests, its result lines once
    answered (None for one learned from a replayed answer, answered when asked), and how
    many retrievals found it in progress."""

    batch: dict[str, Any]
    requests: list[Mapping[str, Any]]
    results: list[dict[str, Any]] | None = None
    polled: int = 0


def _requests_problem(body: Any) -> Invalid | None:
    """Why the API refuses a batch's ``requests``: none, not a list or too many, one not an
    object, without a ``custom_id`` of 1 to 64 letters, digits, ``_`` and ``-`` or without
    ``params`` (each named missing, or of another type), a ``custom_id`` given twice."""
    requests = body.get("requests") if isinstance(body, Mapping) else None
    if requests is None:
        return _refused("requests: Field required")
    if not isinstance(requests, list):
        return _refused("requests: Input should be a valid list")
    if not 1 <= len(requests) <= MOST_REQUESTS:
        return _refused(f"requests: a batch holds 1 to {MOST_REQUESTS} requests {OWN_WORDING}")
    seen: set[str] = set()
    for i, request in enumerate(requests):
        if not isinstance(request, Mapping):
            return _refused(f"requests.{i}: Input should be a valid dictionary")
        for name, kind, word in (("custom_id", str, "string"), ("params", Mapping, "dictionary")):
            if request.get(name) is None:
                return _refused(f"requests.{i}.{name}: Field required")
            if not isinstance(request[name], kind):
                return _refused(f"requests.{i}.{name}: Input should be a valid {word}")
        custom_id = request["custom_id"]
        if _CUSTOM_ID.fullmatch(custom_id) is None:
            return _refused(
                f"requests.{i}.custom_id: String should match pattern '^[a-zA-Z0-9_-]{{1,64}}$'"
            )
        if custom_id in seen:
            return _refused(f"requests.{i}.custom_id: '{custom_id}' is given twice {OWN_WORDING}")
        seen.add(custom_id)
    return None


def _named(index: int, request: Mapping[str, Any]) -> str:
    """Which request of a batch ``request`` is, for a refusal of it: ``requests.2.params
    (custom_id 'q2')``."""
    return f"requests.{index}.params (custom_id {request.get('custom_id')!r})"


def _result(answered: Answer) -> dict[str, Any]:
    """A request's result from the Messages API's answer to it: ``succeeded`` with the
    message, else ``errored`` with the error (its request id left out)."""
    status, body = answered
    if status == 200:
        return {"type": "succeeded", "message": body}
    return {"type": "errored", "error": {"type": "error", "error": body.get("error")}}


class MessageBatches:
    """Batch id -> the batch. A batch's id, ``msgbatch_sim_<n>_<digits>``, counts the
    batches made of the same requests and comes from the seed, whatever else the
    simulator served. ``polls`` retrievals of a batch find it still in progress before
    one finds it ended."""

    def __init__(self, limit: int = KEPT_CONVERSATIONS, seed: int = 0, polls: int = 0) -> None:
        self._kept: Bounded[_Batch] = Bounded(limit)
        self.seed = seed
        self.polls = polls
        self._made = Draws()

    def _new_id(self, requests: list[Any]) -> str:
        digest = digest_of(requests)
        while True:  # one held may be learned from a replayed answer
            batch_id = f"msgbatch_sim_{self._made.counted(digest).tag(self.seed)}"
            if batch_id not in self._kept:
                return batch_id

    def _create(self, body: Mapping[str, Any], ask: Ask) -> Answer | Invalid:
        problem = _requests_problem(body)
        if problem is not None:
            return problem
        requests: list[Mapping[str, Any]] = list(body["requests"])
        results = []
        for i, request in enumerate(requests):
            answered = ask(request["params"])
            if isinstance(answered, Invalid):
                return answered.within(_named(i, request))
            results.append({"custom_id": request["custom_id"], "result": _result(answered)})
        made, batch_id = created_at(0), self._new_id(requests)
        batch = {
            "id": batch_id,
            "type": "message_batch",
            "processing_status": "in_progress",
            "request_counts": _counts(len(requests)),
            "ended_at": None,
            "created_at": rfc3339(made),
            "expires_at": rfc3339(made + int(timedelta(days=1).total_seconds())),
            "archived_at": None,
            "cancel_initiated_at": None,
            "results_url": None,
        }
        self._kept.put(batch_id, _Batch(batch, requests, results))
        return 200, batch

    @staticmethod
    def _answered(held: _Batch, ask: Ask) -> Invalid | None:
        """Answer the requests of ``held``, a batch learned from a replayed answer, unless
        they are; None once they are, else the simulator's own refusal of one."""
        if held.results is not None:
            return None
        results = []
        for i, request in enumerate(held.requests):
            answered = ask(request.get("params"))
            if isinstance(answered, Invalid):
                return answered.within(_named(i, request))
            results.append({"custom_id": request.get("custom_id"), "result": _result(answered)})
        held.results = results
        return None

    def _ended(self, held: _Batch, at: str, ask: Ask) -> Invalid | None:
        """End ``held`` (a retrieval's first sight of it done): its results answered if
        they are not yet (learned), every one ``canceled`` if a cancel came first."""
        batch = held.batch
        unanswered = self._answered(held, ask)
        if unanswered is not None:
            return unanswered
        assert held.results is not None  # answered
        if batch["processing_status"] == "canceling":
            held.results = [{**r, "result": {"type": "canceled"}} for r in held.results]
        kinds = [r["result"]["type"] for r in held.results]
        batch["request_counts"] = {
            **_counts(0),
            **{k: kinds.count(k) for k in ("succeeded", "errored", "canceled")},
        }
        batch["processing_status"] = "ended"
        batch["ended_at"] = rfc3339(created_at(1))
        batch["results_url"] = f"{at}{_ROUTE}/{batch['id']}/results"
        return None

    def answer(
        self, method: str, route: str, query: str, body: Any, origin: str, ask: Ask
    ) -> Answer | Invalid:
        """The status and body answering ``method`` on ``route`` (under
        ``/v1/messages/batches``), ``origin`` the one the request was sent to
        (``http://127.0.0.1:8765``)."""
        parts = [p for p in route.removeprefix(_ROUTE).split("/") if p]
        if not parts:
            if method == "POST":
                return self._create(body if isinstance(body, Mapping) else {}, ask)
            return (
                self._listed(parse_qs(query))
                if method == "GET"
                else _refused("Method Not Allowed", 405)
            )
        held = self._kept.get(parts[0])
        if held is None or len(parts) > 2:
            return _refused(f"No message batch with id '{parts[0]}'.", 404)
        batch = held.batch
        action = parts[1] if len(parts) == 2 else ""
        if action == "cancel" and method == "POST":
            if batch["processing_status"] == "in_progress":
                batch["processing_status"] = "canceling"
                batch["cancel_initiated_at"] = rfc3339(created_at(1))
            return 200, batch
        if action == "results" and method == "GET":
            if batch["processing_status"] != "ended":
                return _refused(
                    f"Message batch '{parts[0]}' has not ended: it has no results yet.", 404
                )
            unanswered = self._answered(held, ask)
            if unanswered is not None:
                return unanswered
            assert held.results is not None  # answered
            lines = b"".join(orjson.dumps(r) + b"\n" for r in held.results)
            return 200, RawBody(lines, "application/binary")
        if action or method not in ("GET", "DELETE"):
            return _refused("Method Not Allowed", 405)
        if method == "DELETE":
            if batch["processing_status"] != "ended":
                message = "Message Batches can only be deleted once they've finished processing."
                return _refused(message)
            del self._kept[parts[0]]
            return 200, {"id": parts[0], "type": "message_batch_deleted"}
        if batch["processing_status"] == "in_progress" and held.polled < self.polls:
            held.polled += 1
        elif batch["processing_status"] != "ended":
            ended = self._ended(held, origin, ask)
            if ended is not None:
                return ended
        return 200, batch

    def _listed(self, query: Mapping[str, list[str]]) -> Answer | Invalid:
        newest = [held.batch for held in reversed(self._kept.values())]
        paged = anthropic_page(newest, self._kept.place, query)
        if isinstance(paged, Invalid):
            return paged
        page, more = paged
        return 200, page_body(page, has_more=more)

    def learn(self, method: str, route: str, body: Any, answer: Mapping[str, Any]) -> None:
        """Take ``answer``, replayed to ``method`` on ``route`` with ``body`` from a fixture,
        as given here: the batch it made (answered when it is next retrieved), as it was
        last retrieved, or deleted."""
        parts = [p for p in route.removeprefix(_ROUTE).split("/") if p]
        batch_id, kind = answer.get("id"), answer.get("type")
        if not isinstance(batch_id, str) or kind not in ("message_batch", "message_batch_deleted"):
            return
        if kind == "message_batch" and answer.get("processing_status") not in _STATUSES:
            return  # no batch of the API's (a fixture written by hand): none to hold
        if not parts and method == "POST" and isinstance(body, Mapping):
            requests = [r for r in body.get("requests") or () if isinstance(r, Mapping)]
            self._made.counted(digest_of(list(body.get("requests") or ())))
            self._kept.put(batch_id, _Batch(dict(answer), requests))
        elif batch_id in self._kept and method == "DELETE":
            del self._kept[batch_id]
        elif batch_id in self._kept:
            held = self._kept[batch_id]
            held.batch.update(answer)
            if method == "GET" and answer.get("processing_status") == "in_progress":
                held.polled += 1  # a poll that found it in progress


def _counts(processing: int) -> dict[str, int]:
    return {"processing": processing, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
