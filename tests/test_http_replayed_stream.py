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
    {"event": 7, "data": 42},
    {"event": "utf", "data": "什么是 RAG？ \U0001f600"},
]


def _record(events: list[Any]) -> dict[str, Any]:
    headers = {"content-type": "text/event-stream"}
    return {"status": 200, "headers": headers, "events": events, "stream_end": "complete"}


def test_events_replay_as_their_wire_text() -> None:
    answer = replayed(_record(EVENTS))
    expected = "".join(event_text(str(e["data"]), e.get("event")) for e in EVENTS)
    assert answer.body == expected.encode("utf-8")
    assert answer.streamed and answer.events == len(EVENTS)


@pytest.mark.parametrize("bad", [["data"], [{"event": "x"}], [None]])
def test_an_event_without_data_is_named(bad: list[Any]) -> None:
    with pytest.raises(WireFormatError, match=r"response\.events\[1\]"):
        replayed(_record([{"data": "ok"}, *bad]))
