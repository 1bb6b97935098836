"""``replaygate diff`` tells a response recorded again (its ``meta.recorded_at`` changed
with it) from one edited by hand: both are an ALARM, but the advice to a fixture just
re-recorded was to re-record it, as if it had been edited."""

from __future__ import annotations

from typing import Any

from replaygate.cli.review_json import review_json
from replaygate.fixtures.fixture import Fixture, make_meta
from replaygate.hygiene.review import review
from replaygate.hygiene.review_report import render_markdown, render_text
from replaygate.hygiene.snapshot import Side

THEN = {
    **make_meta("anthropic.messages", "2023-06-01", "live"),
    "recorded_at": "2026-11-30T05:28:36Z",
}
NOW = {**THEN, "recorded_at": "2026-12-07T09:00:00Z"}


def fixture(question: str, answer: str, meta: dict[str, Any]) -> bytes:
    request = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": question}]}
    response: dict[str, Any] = {"type": "message", "content": [{"type": "text", "text": answer}]}
    return Fixture.create(request, [response], meta).to_line()


def side(label: str, data: bytes) -> Side:
    return Side(label, {"rc.jsonl": label + str(hash(data))}, lambda paths: {"rc.jsonl": data})


def test_a_response_recorded_again_is_told_from_one_edited_by_hand() -> None:
    base = fixture("one", "a", THEN) + fixture("two", "b", THEN)
    head = fixture("one", "a2", NOW) + fixture("two", "b by hand", THEN)
    result = review(side("HEAD", base), side("working tree", head), "rc.jsonl")
    assert [a.recorded_again for a in result.response_alarms] == [True, False]
    text = render_text(result, None)
    assert ": response changed, request unchanged, recorded again\n" in text
    assert "rc.jsonl:2  key " in text and ": response changed, request unchanged\n" in text
    assert "a hand edit or a silent model change. Re-record it" in text
    assert "recorded again, the same request got another answer" in text
    markdown = render_markdown(result, None)
    assert "| **ALARM**: response changed, request unchanged, recorded again |" in markdown
    alarms = review_json(result, None)["alarms"]
    assert [a["recorded_again"] for a in alarms] == [True, False]
    only_again = review(
        side("HEAD", base),
        side("working tree", head[: head.index(b"\n") + 1] + fixture("two", "b", THEN)),
        "rc.jsonl",
    )
    assert "Re-record it" not in render_text(only_again, None)
