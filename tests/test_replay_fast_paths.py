"""The shortcuts of the replay path agree with the plain rules they stand in for.

Each property draws inputs near the edge of a shortcut (header names of a kept name's
length, seals one character off, event data with line breaks) and compares the fast
answer with the rule written out plainly here: a shortcut that accepted what the rule
refuses, or answered otherwise, fails.
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from replaygate.errors import WireFormatError
from replaygate.fixtures.fingerprint import SEAL_LENGTH
from replaygate.fixtures.fixture import is_seal
from replaygate.http.envelope import MEANINGFUL_HEADERS, read_headers
from replaygate.http.recorded import replay_headers, replayed, retryable
from replaygate.http.sse import event_text

KEPT = sorted(MEANINGFUL_HEADERS)


def _recased(name: str, flips: list[bool]) -> str:
    return "".join(c.upper() if flip else c for c, flip in zip(name, flips, strict=False))


@st.composite
def header_names(draw: st.DrawFn) -> str:
    """A kept header in any letter case, a name one letter off one, or any other name."""
    kept = draw(st.sampled_from(KEPT))
    recased = _recased(kept, draw(st.lists(st.booleans(), min_size=len(kept))))
    i = draw(st.integers(0, len(kept) - 1))
    off = recased[:i] + draw(st.sampled_from("-axAX0")) + recased[i + 1 :]
    other = draw(st.text("abo-ABO", max_size=18))
    return draw(st.sampled_from([recased, off, other]))


@given(st.lists(st.tuples(header_names(), st.text("v1,-", max_size=4)), max_size=6))
def test_raw_headers_keep_exactly_the_names_that_lower_to_a_kept_one(
    headers: list[tuple[str, str]],
) -> None:
    expected: dict[str, str] = {}
    for name, value in headers:
        lower = name.lower()
        if lower in MEANINGFUL_HEADERS:
            expected[lower] = f"{expected[lower]},{value}" if lower in expected else value
    raw = [(name.encode(), value.encode()) for name, value in headers]
    assert read_headers(raw) == (expected, [])


_SEAL_RULE = re.compile(f"[0-9a-f]{{{SEAL_LENGTH}}}")


@given(
    st.one_of(
        st.text(
            "0123456789abcdefABCDEF g\u0661", min_size=SEAL_LENGTH - 1, max_size=SEAL_LENGTH + 1
        ),
        st.text("0123456789abcdef", min_size=SEAL_LENGTH, max_size=SEAL_LENGTH),
        st.integers(),
        st.none(),
    )
)
def test_a_seal_is_exactly_thirty_two_lower_case_hex_digits(value: Any) -> None:
    assert is_seal(value) == (isinstance(value, str) and _SEAL_RULE.fullmatch(value) is not None)


@given(st.text('ab\n:{}"é', max_size=12), st.none() | st.text("a_bé", min_size=1, max_size=6))
def test_an_event_is_written_one_data_line_per_line(data: str, name: str | None) -> None:
    lines = "".join(f"data: {line}\n" for line in data.split("\n"))
    assert event_text(data, name) == ("" if name is None else f"event: {name}\n") + lines + "\n"


@given(
    st.sampled_from([200, 201, 400, 404, 408, 409, 429, 500, 503, 529]),
    st.dictionaries(
        st.sampled_from(["Content-Type", "request-id", "Retry-After", "retry-after-ms", "x-a"]),
        st.text("0123", min_size=1, max_size=3),
        max_size=4,
    ),
)
def test_a_replayed_retry_waits_a_millisecond(status: int, headers: dict[str, str]) -> None:
    out = replay_headers(headers, status)
    lowered = {k.lower(): v for k, v in headers.items()}
    timed = retryable(status) or "retry-after" in lowered or "retry-after-ms" in lowered
    if not timed:
        assert out == list(lowered.items())
        return
    expected = [(k, v) for k, v in lowered.items() if k not in ("retry-after", "retry-after-ms")]
    assert out == [*expected, ("retry-after", "0"), ("retry-after-ms", "1")]


def test_a_replayed_server_error_says_retry_after_zero_though_none_was_recorded() -> None:
    """OpenAI's and Anthropic's 500s carry no ``retry-after``; a client that reads that
    header alone (DSPy) waited its own backoff, 1, 2 and 4 seconds, before each retry."""
    out = dict(replay_headers({"content-type": "application/json"}, 500))
    assert out["retry-after"] == "0"
    assert out["retry-after-ms"] == "1"


def test_a_replayed_answer_is_a_value_with_its_body_in_one_chunk() -> None:
    answer = replayed({"status": 200, "headers": {"content-type": "application/json"}, "body": {}})
    assert answer.body == b"{}"
    assert answer.headers == (("content-type", "application/json"), ("content-length", "2"))
    assert answer._replace(chunks=(b"a", b"b")).body == b"ab"


_FIELD_VALUES = st.one_of(
    st.text("ab\n\r:", max_size=4), st.none(), st.booleans(), st.integers(0, 2), st.just([])
)
_EVENTS = st.lists(
    st.one_of(
        st.fixed_dictionaries({"event": st.text("ab\r\n", max_size=2), "data": st.text("a{\n")}),
        st.fixed_dictionaries({"data": st.text("ab{}:\n")}),
        st.dictionaries(st.sampled_from(["event", "data", "unterminated", "id"]), _FIELD_VALUES),
        st.text("ab", max_size=2),
        st.none(),
    ),
    max_size=5,
)


def _stream_rule(events: list[Any]) -> bytes | str:
    """The wire text of recorded events written out plainly, or the field path refused."""
    text = []
    for i, event in enumerate(events):
        if not isinstance(event, dict) or "data" not in event:
            return f"response.events[{i}]"
        data, name, flag = event["data"], event.get("event"), event.get("unterminated")
        if not isinstance(data, str) or "\r" in data:  # a carriage return ends a line
            return f"response.events[{i}].data"
        if name is not None and (not isinstance(name, str) or "\n" in name or "\r" in name):
            return f"response.events[{i}].event"
        if flag is not None and (flag is not True or i != len(events) - 1):
            return f"response.events[{i}].unterminated"
        text.append(event_text(data, name, flag is None))
    return "".join(text).encode()


@given(_EVENTS)
def test_a_replayed_stream_is_its_events_wire_text_or_names_the_bad_one(
    events: list[Any],
) -> None:
    record = {"status": 200, "headers": {"content-type": "text/event-stream"}, "events": events}
    expected = _stream_rule(events)
    try:
        body = replayed(record).body
    except WireFormatError as err:
        assert err.path == expected
    else:
        assert body == expected
