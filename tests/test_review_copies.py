"""``replaygate diff`` names a line that repeats a fixture above it (a ``merge=union`` of
two branches that recorded the same request) as a copy, not as a fixture added."""

from __future__ import annotations

from typing import Any

from replaygate.fixtures.fixture import Fixture, make_meta
from replaygate.hygiene.review import review
from replaygate.hygiene.review_report import render_text
from replaygate.hygiene.snapshot import Side

META = make_meta("anthropic.messages", "2023-06-01", "hand")


def fixture(question: str, answer: str = "a") -> Fixture:
    request = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": question}]}
    response: dict[str, Any] = {"type": "message", "content": [{"type": "text", "text": answer}]}
    return Fixture.create(request, [response], META)


def side(label: str, data: bytes) -> Side:
    return Side(label, {"rc.jsonl": label + str(hash(data))}, lambda paths: {"rc.jsonl": data})


def test_a_repeated_line_is_a_copy_and_a_new_request_is_added() -> None:
    one, two = fixture("one").to_line(), fixture("two").to_line()
    base = side("HEAD", one + two)
    head = side("working tree", one + two + one + fixture("three").to_line() + two)
    result = review(base, head, "rc.jsonl")
    assert [str(e) for e in result.added] == ["rc.jsonl:4"]
    assert [(str(c.new), str(c.old)) for c in result.copied] == [
        ("rc.jsonl:3", "rc.jsonl:1"),
        ("rc.jsonl:5", "rc.jsonl:2"),
    ]
    text = render_text(result, None)
    key = fixture("one").key[:12]
    assert f"copy     rc.jsonl:3  key {key}: a copy of rc.jsonl:1 (same request and" in text
    assert "added    rc.jsonl:3" not in text and "added    rc.jsonl:4" in text
    assert "1 added, " in text and "2 copied (a line repeated)" in text


def test_a_new_request_recorded_twice_is_added_once_then_copied() -> None:
    one = fixture("one").to_line()
    result = review(side("HEAD", one), side("working tree", one + one + one), "rc.jsonl")
    assert not result.added
    assert [(str(c.new), str(c.old)) for c in result.copied] == [
        ("rc.jsonl:2", "rc.jsonl:1"),
        ("rc.jsonl:3", "rc.jsonl:1"),
    ]
    fresh = fixture("new").to_line()
    result = review(side("HEAD", one), side("working tree", one + fresh + fresh), "rc.jsonl")
    assert [str(e) for e in result.added] == ["rc.jsonl:2"]
    assert [(str(c.new), str(c.old)) for c in result.copied] == [("rc.jsonl:3", "rc.jsonl:2")]


def test_a_repeated_request_with_other_answers_is_no_copy() -> None:
    one = fixture("one").to_line()
    other = fixture("one", answer="b").to_line()
    result = review(side("HEAD", one), side("working tree", one + other), "rc.jsonl")
    assert not result.copied and not result.added  # an alarm: test_git_workflow_pass.py
    assert [(str(a.new), str(a.old)) for a in result.twice_alarms] == [("rc.jsonl:2", "rc.jsonl:1")]
