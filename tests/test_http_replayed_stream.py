"""A recorded event stream replays as the bytes the server sent: each event as
:func:`~replaygate.http.sse.event_text` writes it, whatever its name and data."""

from __future__ import annotations

from typing import Any

import pytest

from replaygate.errors import WireFormatError
from replaygate.http.recorded import replayed
from replaygate.http.sse import event_text

EVENTS: list[dict[str, Any]] = [
    {"event": "message_start", "data": '{"type":"message_start"}'},
    {"data": "[DONE]"},
    {"event": "", "data": "empty name"},
    {"event": None, "data": "no name"},
    {"event": "multi", "data": "line one\nline two\n"},
    {"data": ""},
    {"event": "utf", "data": "什么是 RAG？ \U0001f600"},
]


def _record(events: list[Any]) -> dict[str, Any]:
    headers = {"content-type": "text/event-stream"}
    return {"status": 200, "headers": headers, "events": events, "stream_end": "complete"}


def test_events_replay_as_their_wire_text() -> None:
    answer = replayed(_record(EVENTS))
    expected = "".join(event_text(e["data"], e.get("event")) for e in EVENTS)
    assert answer.body == expected.encode("utf-8")
    assert answer.streamed and answer.events == len(EVENTS)


@pytest.mark.parametrize("bad", [["data"], [{"event": "x"}], [None]])
def test_an_event_without_data_is_named(bad: list[Any]) -> None:
    with pytest.raises(WireFormatError, match=r"response\.events\[1\]"):
        replayed(_record([{"data": "ok"}, *bad]))


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        ({"event": 7, "data": "x"}, "event"),
        ({"event": "x\nid: 1", "data": "x"}, "event"),
        ({"data": 42}, "data"),
        ({"data": {"type": "ping"}}, "data"),
    ],
)
def test_an_event_no_server_sends_is_named_not_rewritten(bad: dict[str, Any], field: str) -> None:
    """A number is not written as its digits, an object not as Python's repr of it, and a
    name holding a line break does not add a field to the event."""
    with pytest.raises(WireFormatError, match=rf"response\.events\[1\]\.{field}: expected"):
        replayed(_record([{"data": "ok"}, bad]))


@pytest.mark.parametrize(
    "events",
    [
        [{"data": "a", "unterminated": True}, {"data": "b"}],
        [{"data": "a"}, {"data": "b", "unterminated": "yes"}],
    ],
    ids=["not the last", "not true"],
)
def test_only_the_last_event_may_be_unterminated(events: list[dict[str, Any]]) -> None:
    """Replayed, an unterminated event before another runs into it: one event, never sent."""
    with pytest.raises(WireFormatError, match=r"response\.events\[\d\]\.unterminated: only"):
        replayed(_record(events))
    last = replayed(_record([{"data": "a"}, {"data": "b", "unterminated": True}]))
    assert last.body == b"data: a\n\ndata: b\n"


RECORDS = [
    ({"headers": {"content-type": 5}, "body": {}}, "response.headers.content-type"),
    ({"headers": {"request-id": "a\r\nx-evil: 1"}, "body": {}}, "response.headers.request-id"),
    ({"headers": {"request-id": "é"}, "body": {}}, "response.headers.request-id"),
    ({"headers": {}, "text": 5}, "response.text"),
    ({"headers": {}, "base64": "!!not base64!!"}, "response.base64"),
    ({"headers": {}, "events": [], "stream_error": "cut"}, "response.stream_error"),
]


@pytest.mark.parametrize(("record", "field"), RECORDS)
def test_a_response_no_client_could_be_handed_is_named(record: dict[str, Any], field: str) -> None:
    """Not replayed as something else (an empty body for bad base64, a header holding a
    second header), nor failing in the client (a header that is not ASCII)."""
    with pytest.raises(WireFormatError) as caught:
        replayed({"status": 200, **record})
    assert caught.value.path == field
