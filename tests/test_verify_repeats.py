"""``replaygate verify`` on a store whose fixtures repeat most of their lines (the same
conversation asked other questions): what it knows from an earlier line never hides a
problem of a later one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from replaygate.fixtures.fingerprint import fixture_key
from replaygate.fixtures.fixture import Fixture, make_meta
from replaygate.hygiene.verify import verify_store
from test_secret_corpus import FAMILIES

META = make_meta("anthropic.messages", "2023-06-01", "sim")
TOOLS = [
    {"name": "search", "description": "Search the notes.", "input_schema": {"type": "object"}},
    {"name": "fetch", "description": "Fetch one note.", "input_schema": {"type": "object"}},
]


def request(question: str, turn: int) -> dict[str, Any]:
    return {
        "model": "claude-x",
        "max_tokens": 64,
        "system": "Answer from the notes.",
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": question}]},
            {"role": "assistant", "content": [{"type": "text", "text": f"Looking ({turn})."}]},
            {"role": "user", "content": [{"type": "text", "text": "Go on."}]},
        ],
        "tools": TOOLS,
    }


def response(text: str) -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-x",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 5, "output_tokens": 5},
    }


def line(question: str, turn: int, answer: str = "An answer.") -> bytes:
    req = request(question, turn)
    return Fixture(fixture_key(req), req, (response(answer),), META).to_line()


def test_repeated_tails_never_hide_a_problem(tmp_path: Path) -> None:
    secret = FAMILIES["GitHub classic"]
    lines = [line(f"Question {i}?", i % 3) for i in range(40)]
    edited = request("Question 7?", 7 % 3)
    edited["messages"][0]["content"][0]["text"] = "Question 7, edited?"
    lines[7] = Fixture(
        fixture_key(request("Question 7?", 1)), edited, (response("An answer."),), META
    ).to_line()
    lines[11] = line(f"Question 11 with {secret}?", 11 % 3)
    lines[23] = line("Question 23?", 23 % 3, answer=f"Use {secret}.")
    sneaky = request("Question 31?", 31 % 3)
    sneaky["messages"][1]["content"].append(secret)  # a string after two objects
    lines[31] = Fixture(fixture_key(sneaky), sneaky, (response("An answer."),), META).to_line()
    store = tmp_path / "store.jsonl"
    store.write_bytes(b"".join(lines))
    for _ in range(2):  # the second time, every clean tail is known
        count, problems = verify_store(store)
        assert count == 40
        found = [(problem.line, problem.reason) for problem in problems]
        assert [number for number, _ in found] == [8, 12, 24, 32]
        assert "does not match its request" in found[0][1]
        assert "GitHub token at request.messages[0].content[0].text" in found[1][1]
        assert "GitHub token at response.content[0].text" in found[2][1]
        assert "GitHub token at request.messages[1].content[1]" in found[3][1]


def test_each_recording_time_is_checked_though_metas_differ_in_it_alone(tmp_path: Path) -> None:
    times = ["2025-01-01T00:00:00Z", "yesterday", "2025-02-01T00:00:00Z", "", "2025-03-01"]
    lines = []
    for i, when in enumerate(times):
        req = request(f"Question {i}?", 0)
        meta = {**META, "recorded_at": when}
        lines.append(Fixture(fixture_key(req), req, (response("An answer."),), meta).to_line())
    store = tmp_path / "store.jsonl"
    store.write_bytes(b"".join(lines))
    _, problems = verify_store(store)
    assert [(problem.line, problem.reason) for problem in problems] == [
        (2, "meta.recorded_at 'yesterday' is not an ISO 8601 time"),
        (4, "meta.recorded_at must be a non-empty string, got ''"),
    ]
