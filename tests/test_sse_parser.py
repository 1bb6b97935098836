"""The incremental event-stream parser: events as they complete, the unterminated last one,
and bytes that are not UTF-8 text, refused alike wherever they stand."""

from __future__ import annotations

import pytest

from replaygate.errors import WireFormatError
from replaygate.http.sse import SSEEvent, SSEParser

BAD = b"data: \xff\n"  # no UTF-8 text holds this byte


def test_events_come_as_they_complete_and_the_tail_is_kept_unterminated() -> None:
    parser = SSEParser()
    assert list(parser.feed(b"event: a\r\ndata: 1\r\n\r\n: a comment\n\ndata: 2")) == [
        SSEEvent("1", "a")
    ]
    assert parser.pending == b"data: 2"
    assert parser.tail() == SSEEvent("2", terminated=False)


@pytest.mark.parametrize("end", [b"\n", b""], ids=["terminated", "unterminated"])
def test_an_event_that_is_not_utf8_is_named_by_its_index(end: bytes) -> None:
    parser = SSEParser()
    with pytest.raises(WireFormatError) as caught:
        list(parser.feed(b"data: 0\n\n: a comment\n\ndata: 1\n\n" + BAD + end))
        parser.tail()
    assert str(caught.value) == "stream event 2: not UTF-8 text (invalid start byte)"
