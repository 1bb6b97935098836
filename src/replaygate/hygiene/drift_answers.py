"""Which recorded answer a live drift check compares, and how much of the live answer.

A request is re-sent once, so its one live answer is compared with one recorded answer:
the first that is an answer, not an error. An HTTP status >= 400 is an error, and so
is a stream that carries an ``error`` event (Anthropic's ``overloaded_error`` mid-way,
a Responses ``error`` or ``response.failed``, a Chat Completions chunk of an
``error``): a request recorded through an SDK's retries (529, then 200) is compared
by its 200; one that holds only errors is not compared. ``drift --against`` leaves the
error answers of both fixture sets out the same way.

A recorded stream that did not end ``complete`` (the client stopped reading, or the
connection broke) holds only the events read: the live stream is compared up to as
many events, of the kinds the recording reached, so the events nobody read are no
drift.
"""

from __future__ import annotations

from typing import Any

from replaygate.fixtures.fixture import Fixture, is_envelope
from replaygate.hygiene.fieldset import Shape, response_shape
from replaygate.stream_answers import event_objects

_ERROR_EVENTS = frozenset({"error", "response.failed"})


def _error_event(events: list[Any]) -> str | None:
    """The kind of the first error an event stream carries, or None."""
    for name, data in event_objects(events):
        error = data.get("error")
        if name in _ERROR_EVENTS or error:
            detail = error.get("type") or error.get("code") if isinstance(error, dict) else None
            return str(detail or name or "error")
    return None


def error_answer(request: dict[str, Any], response: Any) -> str | None:
    """Why the recorded ``response`` is an error rather than an answer, or None."""
    if not is_envelope(request) or not isinstance(response, dict):
        return None
    status = response.get("status")
    if isinstance(status, int) and status >= 400:
        return f"an error response (status {status})"
    events = response.get("events")
    if isinstance(events, list):
        kind = _error_event(events)
        if kind is not None:
            return f"an error event ({kind})"
    return None


def compared_answer(fixture: Fixture) -> Any:
    """The recorded answer a live answer is compared with: the first that is no error;
    None when every recorded answer is an error (or none was recorded)."""
    for response in fixture.responses:
        if response is not None and error_answer(fixture.request, response) is None:
            return response
    return None


def no_answer(fixture: Fixture) -> str:
    """Why ``fixture`` holds no answer to compare (:func:`compared_answer` is None)."""
    errors = [
        error_answer(fixture.request, response)
        for response in fixture.responses
        if response is not None
    ]
    if not errors:
        return "no recorded response"
    return "recorded only error answers: " + ", ".join(dict.fromkeys(str(e) for e in errors))


def live_shape(recorded: Any, live: Any, *, envelope: bool) -> Shape:
    """The field set of the ``live`` answer, with its types, as compared with
    ``recorded``: all of it, or, when ``recorded`` is a stream that did not end
    ``complete``, its first as many events as ``recorded`` holds, of the kinds
    ``recorded`` reached."""
    partial = (
        envelope
        and isinstance(recorded, dict)
        and isinstance(recorded.get("events"), list)
        and recorded.get("stream_end", "complete") != "complete"
        and isinstance(live, dict)
        and isinstance(live.get("events"), list)
    )
    if not partial:
        return response_shape(live, envelope=envelope)
    reached = recorded["events"]
    kinds = {event.get("event") for event in reached if isinstance(event, dict)}
    read = [e for e in live["events"][: len(reached)] if e.get("event") in kinds]
    return response_shape({**live, "events": read}, envelope=True)
