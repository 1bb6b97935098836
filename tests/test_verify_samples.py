"""``verify`` reads sample lines: each is checked at its own line, and must apply to a fixture."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from replaygate import Fixture, Message, ModelResponse
from replaygate.fixtures.fingerprint import digest
from replaygate.fixtures.fixture import make_meta
from replaygate.fixtures.store import SampleLine
from replaygate.fixtures.store.added import answer_digest
from replaygate.hygiene import verify_segments
from replaygate.hygiene.verify import verify_store
from replaygate.models.providers import to_anthropic_request, to_anthropic_response

META = make_meta("anthropic.messages", "2023-06-01", "hand", recorded_at="2025-01-01T00:00:00Z")
AWS = "AKIAIOSFODNN7EXAMPLE"


def request(i: int) -> dict[str, Any]:
    return to_anthropic_request([Message.user(f"question {i}")], [], model="m", max_tokens=8)


def answer(text: str) -> dict[str, Any]:
    return to_anthropic_response(ModelResponse(text=text), model="m")


def fixture(i: int) -> bytes:
    return Fixture.create(request(i), [answer(f"answer {i}")], META).to_line()


def sample(
    i: int, index: int, response: Any, meta: dict[str, Any] | None = META, over: Any = None
) -> bytes:
    return SampleLine(digest(request(i)), index, response, meta, over).to_line()


def report(path: Path, jobs: int = 1) -> list[str]:
    return [str(problem) for problem in verify_store(path, jobs=jobs)[1]]


def test_sample_lines_that_apply_to_a_fixture_above_pass(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(
        fixture(0) + fixture(1) + sample(1, 1, answer("b")) + sample(0, 2, answer("c"), None)
    )
    assert verify_store(path) == (2, [])


def test_each_sample_line_problem_names_its_own_line(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    lines = [
        sample(0, 1, answer("too early")),  # 1: above its fixture
        fixture(0),
        sample(0, 1, {"content": "not a message"}),  # 3: does not replay
        sample(0, 2, answer(f"key {AWS}")),  # 4: a secret
        sample(0, 3, answer("b"), {**META, "source": "nowhere"}),  # 5: bad meta
        sample(7, 1, answer("b")),  # 6: its request is recorded nowhere
        fixture(1),
    ]
    path.write_bytes(b"".join(lines))
    found = report(path)
    assert len(found) == 5, found
    assert found[0].startswith(f"{path}:1: sample line for key {digest(request(0))[:12]}")
    assert "no fixture of that request above it" in found[0]
    assert "or by a merge that kept this sample line of a fixture another branch" in found[0]
    assert found[1].startswith(f"{path}:3: response is not a valid anthropic.messages response")
    assert found[2] == f"{path}:4: AWS access key id at response.content[0].text"
    assert found[3].startswith(f"{path}:5: meta.source 'nowhere' is not one of")
    assert found[4].startswith(f"{path}:6: sample line for key {digest(request(7))[:12]}")


def test_a_sample_line_applies_only_within_its_file(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_bytes(fixture(0))
    (tmp_path / "b.jsonl").write_bytes(sample(0, 1, answer("b")))
    found = report(tmp_path)
    assert len(found) == 1 and found[0].startswith(f"{tmp_path / 'b.jsonl'}:1: sample line")


@pytest.mark.slow  # starts worker processes
def test_sample_lines_far_below_their_fixture_read_the_same_in_parallel(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(verify_segments, "SEGMENT_BYTES", 4096)
    path = tmp_path / "s.jsonl"
    lines = [fixture(i) for i in range(120)]
    empty = answer_digest(None)
    lines += [sample(i, 1, answer(f"sample {i}"), over=empty) for i in range(0, 120, 7)]
    lines.append(sample(3, 1, {"content": "not a message"}))
    lines.append(sample(500, 1, answer("b")))
    lines.append(sample(7, 1, answer("another branch's"), over=empty))
    path.write_bytes(b"".join(lines))
    one_pass = report(path)
    where = [text.split(": ")[0] for text in one_pass]
    assert where == [f"{path}:139", f"{path}:140", f"{path}:141"], one_pass
    assert "(given at line 122)" in one_pass[2]
    assert report(path, jobs=2) == one_pass


@pytest.mark.parametrize("damage", [b"\xef\xbb\xbf", b"\x00", b"\xe9"])
def test_a_sample_line_below_a_damaged_line_is_not_called_an_orphan_to_delete(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, damage: bytes
) -> None:
    # Its fixture's line, damaged by a byte order mark, a NUL or a Latin-1 byte, could not
    # be read: verify said a line was removed by hand and to delete
    # this one, which holds a recorded answer the repaired fixture would have lost.
    monkeypatch.setattr(verify_segments, "SEGMENT_BYTES", 512)  # the sample in a later segment
    path = tmp_path / "s.jsonl"
    path.write_bytes(damage + fixture(0) + fixture(1) + sample(0, 1, answer("b")))
    found = report(path)
    assert len(found) == 2 and found[1].startswith(f"{path}:3: sample line for key"), found
    assert "line 1 above it is damaged (see its problem) and may be that fixture" in found[-1]
    # so for a fixture whose request was edited after recording (its key no longer its own)
    edited = orjson.loads(fixture(0))
    edited["request"]["max_tokens"] = 9
    path.write_bytes(fixture(1) + orjson.dumps(edited) + b"\n" + sample(0, 1, answer("b")))
    assert "line 2 above it is damaged (see its problem)" in report(path)[-1]
    # a sample line above the damage, or an orphan below a bad sample line, says as before
    path.write_bytes(fixture(1) + sample(0, 1, answer("b")) + damage + fixture(0))
    assert next(p for p in report(path) if ":2: " in p).endswith("or delete this line")
    path.write_bytes(fixture(1) + sample(1, 1, {"content": "x"}) + sample(7, 1, answer("b")))
    assert report(path)[-1].endswith("or delete this line")


def test_a_malformed_sample_line_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    bad = orjson.dumps({"key": "abc", "sample": 1, "response": {}}) + b"\n"
    path.write_bytes(fixture(0) + bad)
    found = report(path)
    assert len(found) == 1 and found[0].startswith(f"{path}:2: sample line: field 'key'")


def test_a_fixture_line_copied_below_its_sample_lines_is_reported_as_the_store_refuses_it(
    tmp_path: Path,
) -> None:
    # The copy lacks the sample the line above it gained: opening the store refuses it,
    # and verify passed it (it compared the lines' own responses only).
    path = tmp_path / "s.jsonl"
    path.write_bytes(fixture(0) + sample(0, 1, answer("b")) + fixture(1) + fixture(0))
    assert report(path) == [
        f"{path}:4: key {Fixture.create(request(0), [], META).key}: the same request is "
        f"recorded twice with different responses (also at {path}:1); keep one of them"
    ]
    # a copy holding the samples, or one above the sample lines, is read by the store
    # (verify called the first a conflict)
    folded = Fixture.create(request(0), [answer("answer 0"), answer("b")], META).to_line()
    path.write_bytes(fixture(0) + sample(0, 1, answer("b")) + folded)
    assert verify_store(path) == (2, [])
    path.write_bytes(fixture(0) + fixture(0) + sample(0, 1, answer("b")))
    assert verify_store(path) == (2, [])


def test_a_sample_line_whose_response_is_null_is_reported(tmp_path: Path) -> None:
    # It hid sample 0: replay said the sample was never recorded, and verify passed it.
    path = tmp_path / "s.jsonl"
    path.write_bytes(fixture(0) + sample(0, 0, None))
    assert report(path) == [
        f"{path}:2: response is null: a sample line records a response, so this one only "
        "hides the sample it names (a hand edit?); delete the line, or re-record the sample"
    ]


def test_a_sample_two_branches_recorded_with_other_answers_is_reported_naming_both_lines(
    tmp_path: Path,
) -> None:
    """Two branches each recorded sample 1 over its empty place; a union merge kept both."""
    path = tmp_path / "s.jsonl"
    empty = answer_digest(None)
    ours, theirs = (
        sample(0, 1, answer("ours"), over=empty),
        sample(0, 1, answer("theirs"), over=empty),
    )
    path.write_bytes(
        fixture(0) + fixture(1) + ours + sample(1, 1, answer("b"), over=empty) + theirs
    )
    found = report(path)
    assert found == [
        f"{path}:5: sample line for key {digest(request(0))[:12]}: sample 1 holds another answer "
        "above it (given at line 3) than the one this line was recorded over (field 'over'): two "
        "branches each recorded this sample, and a merge (merge=union) kept both lines; delete "
        "the line of the answer not wanted, or record the sample again"
    ]
    assert report(path, jobs=2) == found


@pytest.mark.parametrize("second", ["ours", "again"])
def test_sample_lines_each_recorded_over_the_answer_above_or_copying_it_pass(
    tmp_path: Path, second: str
) -> None:
    path = tmp_path / "s.jsonl"
    ours = answer("ours")
    over = answer_digest(ours) if second == "again" else answer_digest(None)
    recorded = answer(second)
    lines = [
        fixture(0),
        sample(0, 1, ours, over=answer_digest(None)),
        sample(0, 1, recorded, over=over),
    ]
    path.write_bytes(b"".join(lines))
    assert verify_store(path) == (1, [])


def test_a_sample_line_recorded_over_another_first_answer_is_reported_at_the_fixture(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(fixture(0) + sample(0, 0, answer("b"), over=answer_digest(answer("other"))))
    found = report(path)
    assert len(found) == 1 and found[0].startswith(f"{path}:2: sample line for key"), found
    assert "sample 0 holds another answer above it (given at line 1)" in found[0]


def test_a_sample_line_below_several_damaged_lines_names_the_nearest(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # It named the first damaged line of the file, thousands of lines above its own
    # fixture's, the line just above it that a BOM damaged.
    monkeypatch.setattr(verify_segments, "SEGMENT_BYTES", 512)
    path = tmp_path / "s.jsonl"
    bom = b"\xef\xbb\xbf"
    lines = [b"\x00" + fixture(0), fixture(1), fixture(2), bom + fixture(3)]
    path.write_bytes(b"".join([*lines, sample(3, 1, answer("b"))]))
    found = report(path)
    assert found[-1].startswith(f"{path}:5: sample line for key"), found
    assert "line 4 above it is damaged (see its problem)" in found[-1]
    assert report(path, jobs=2) == found
