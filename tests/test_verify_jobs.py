"""``verify`` in segments and in worker processes: the same report as one pass, line for line."""

from __future__ import annotations

import io
import itertools
import os
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner

from replaygate import Fixture, Message, ModelResponse
from replaygate.cli import main, verify_cmd
from replaygate.fixtures.fingerprint import digest
from replaygate.fixtures.fixture import make_meta
from replaygate.fixtures.store import SampleLine
from replaygate.hygiene import verify_segments
from replaygate.hygiene.verify import verify_store
from replaygate.hygiene.verify_segments import REPLACED, Segment, file_segments, segment_lines
from replaygate.models.providers import to_anthropic_request, to_anthropic_response

AWS = "AKIAIOSFODNN7EXAMPLE"
META = make_meta("anthropic.messages", "2023-06-01", "hand", recorded_at="2025-01-01T00:00:00Z")


def fixture(i: int, answer: str = "a", meta: dict[str, Any] | None = META) -> Fixture:
    request = to_anthropic_request([Message.user(f"question {i}")], [], model="m", max_tokens=8)
    response = to_anthropic_response(ModelResponse(text=answer), model="m")
    return Fixture.create(request, [response], meta)


def line(i: int) -> bytes:
    return fixture(i).to_line()


def planted(path: Path) -> dict[int, str]:
    """A store of 400 lines with a problem at known lines: {line: what the report says}."""
    lines = [line(i) for i in range(400)]
    expected = {
        7: "malformed JSON",
        90: "does not match its request",
        150: "recorded twice with different responses (also at",
        233: "AWS access key id at response.content[0].text",
        301: "meta is missing",
        400: "truncated last line",
    }
    lines[6] = b'{"key": oops\n'
    edited = fixture(89)
    lines[89] = Fixture(edited.key, {**edited.request, "max_tokens": 9}, edited.responses, META)
    lines[89] = lines[89].to_line()
    lines[149] = fixture(20, answer="another answer").to_line()
    lines[232] = fixture(232, answer=f"the key is {AWS}").to_line()
    lines[300] = fixture(300, meta=None).to_line()
    lines[399] = lines[399][:40]
    path.write_bytes(b"".join(lines))
    return expected


def report(path: Path, jobs: int) -> tuple[int, list[str]]:
    count, problems = verify_store(path, jobs=jobs)
    return count, [str(problem) for problem in problems]


@pytest.fixture
def small_segments(monkeypatch: pytest.MonkeyPatch) -> None:
    """Segments of about 4 KiB: a small store is cut in dozens of them."""
    monkeypatch.setattr(verify_segments, "SEGMENT_BYTES", 4096)


def test_segments_cut_a_file_at_line_ends_and_cover_it(
    small_segments: None, tmp_path: Path
) -> None:
    path = tmp_path / "store.jsonl"
    planted(path)
    segments = file_segments(str(path))
    assert len(segments) > 20
    data = path.read_bytes()
    assert segments[0].start == 0 and segments[-1].end is None
    for before, after in itertools.pairwise(segments):
        assert before.end == after.start and data[after.start - 1 : after.start] == b"\n"
    read = [raw for segment in segments for _, raw in segment_lines(segment)]
    assert b"".join(read) == data
    assert len(read) == 400


@pytest.mark.slow  # starts worker processes
def test_a_segmented_report_is_the_one_pass_report(small_segments: None, tmp_path: Path) -> None:
    path = tmp_path / "store.jsonl"
    expected = planted(path)
    one_pass = report(path, 1)
    assert one_pass[0] == 398  # 400 lines, one malformed, one cut short
    found = {int(text.split(":")[1]): text for text in one_pass[1]}
    assert sorted(found) == sorted(expected)
    for number, words in expected.items():
        assert words in found[number], found[number]
    assert f"also at {path}:21" in found[150]
    assert report(path, 2) == one_pass


def test_a_file_refused_midway_keeps_what_was_read_before(
    small_segments: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / "store.jsonl"
    lines = [line(i) for i in range(200)]
    lines[3] = b'{"key": oops\n'
    lines[120] = b'{"key": "' + b"x" * 2000 + b'"}\n'
    path.write_bytes(b"".join(lines))
    monkeypatch.setattr(verify_segments, "MAX_LINE_BYTES", 1500)
    count, problems = verify_store(path)
    assert count == 119
    assert [(p.line, p.refused) for p in problems] == [(4, False), (121, True)]
    assert "longer than the maximum" in problems[1].reason


@pytest.mark.slow  # starts worker processes
def test_the_command_reports_the_same_with_any_jobs(small_segments: None, tmp_path: Path) -> None:
    path = tmp_path / "store.jsonl"
    planted(path)
    runs = [CliRunner().invoke(main, ["verify", "--jobs", jobs, str(path)]) for jobs in "12"]
    assert runs[0].exit_code == runs[1].exit_code == 1
    assert runs[0].output == runs[1].output
    assert runs[0].output.endswith("398 fixture(s) checked, 6 problem(s)\n")


def test_a_segment_reads_only_its_own_lines(tmp_path: Path) -> None:
    path = tmp_path / "store.jsonl"
    path.write_bytes(b"a\nbb\nccc\n")
    assert list(segment_lines(Segment(str(path), 2, 5))) == [(1, b"bb\n")]
    assert list(segment_lines(Segment(str(path), 5))) == [(1, b"ccc\n")]


@pytest.mark.slow  # starts worker processes
def test_a_worker_that_dies_is_one_clear_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def broken(*args: Any, **kwargs: Any) -> None:
        raise BrokenProcessPool("gone")

    monkeypatch.setattr(verify_cmd, "verify_store", broken)
    path = tmp_path / "store.jsonl"
    path.write_bytes(line(0))
    result = CliRunner().invoke(main, ["verify", "--jobs", "2", str(path)])
    assert result.exit_code == 2
    assert "a verify worker process ended before its work was done" in result.output


def test_a_null_response_is_filled_by_a_sample_line_segments_later(
    small_segments: None, tmp_path: Path
) -> None:
    def nulled(i: int) -> bytes:
        return Fixture(fixture(i).key, fixture(i).request, (None,), META).to_line()

    lines = [line(i) for i in range(300)]
    lines[4], lines[199] = nulled(4), nulled(199)
    filled = SampleLine(digest(fixture(4).request), 0, fixture(4).response, META).to_line()
    path = tmp_path / "store.jsonl"
    path.write_bytes(b"".join([*lines, filled]))
    assert len(file_segments(str(path))) > 5
    count, problems = report(path, 1)
    assert count == 300
    assert [text.split(": ", 1)[0] for text in problems] == [f"{path}:200"]
    assert "no response recorded" in problems[0]


def test_a_file_replaced_between_its_segments_is_refused_not_reported_damaged(
    small_segments: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # compact renaming the file compacted over it while verify read it: the segments cut
    # from the old file were read from the new one, at offsets that are no line ends
    # there, and sound fixtures were reported as malformed JSON and recorded twice
    path = tmp_path / "store.jsonl"
    path.write_bytes(b"".join(line(i) for i in range(200)))
    other = tmp_path / "other.jsonl"
    other.write_bytes(b"".join(fixture(i, answer="b" * (i % 7)).to_line() for i in range(200)))
    cut = verify_segments.file_segments

    def cut_then_replaced(name: str) -> list[Segment]:
        segments = cut(name)
        other.replace(path)
        return segments

    monkeypatch.setattr("replaygate.hygiene.verify.file_segments", cut_then_replaced)
    count, problems = verify_store(path)
    assert count == 0
    assert [(p.file, p.line, p.refused) for p in problems] == [(str(path), 0, True)]
    assert "was replaced or cut shorter while verify read it" in problems[0].reason
    assert "run verify again" in problems[0].reason


def _cut_while_read(monkeypatch: pytest.MonkeyPatch, path: Path, size: int) -> None:
    """Make verify read ``path`` in blocks of 1 KiB, and cut it to ``size`` bytes (as
    ``truncate -s`` does) as soon as its first block was read: the file is cut shorter
    while verify reads it, at a known point of the read."""
    cut: list[int] = []

    class Blocks(io.FileIO):
        def readinto(self, buffer: Any) -> int | None:
            read = super().readinto(buffer)
            if not cut:
                os.truncate(path, size)
                cut.append(size)
            return read

    def fdopen(fd: int, mode: str, buffering: int) -> io.BufferedReader:
        return io.BufferedReader(Blocks(fd, mode), 1024)

    monkeypatch.setattr(verify_segments, "os", SimpleNamespace(**{**vars(os), "fdopen": fdopen}))


@pytest.mark.parametrize(
    ("segment_bytes", "kept_lines", "and_bytes"),
    [(4096, 0, 0), (4096, 3, 100), (None, 0, 0), (None, 3, 100), (None, 4, 0)],
    ids=[
        "segments, cut to nothing",
        "segments, cut in a line",
        "one segment, cut to nothing",
        "one segment, cut in a line",
        "one segment, cut at a line end",
    ],
)
def test_a_file_cut_shorter_while_read_is_refused_not_reported_damaged(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    segment_bytes: int | None,
    kept_lines: int,
    and_bytes: int,
) -> None:
    # `truncate -s` run on a store while verify read it: the line the read was left with
    # was reported as a truncated last line to repair, at a line the file no longer had
    # (one for each segment read across the cut); a file read in one segment cut at a line
    # end passed, though the rest of it was never checked
    path = tmp_path / "store.jsonl"
    lines = [line(i) for i in range(40)]
    path.write_bytes(b"".join(lines))
    if segment_bytes is not None:
        monkeypatch.setattr(verify_segments, "SEGMENT_BYTES", segment_bytes)
    assert (len(file_segments(str(path))) > 1) == (segment_bytes is not None)
    _cut_while_read(monkeypatch, path, sum(map(len, lines[:kept_lines])) + and_bytes)
    result = CliRunner().invoke(main, ["verify", "--jobs", "1", str(path)])
    assert result.exit_code == 2, result.output
    assert result.output.splitlines()[:-1] == [f"{path}: {REPLACED}"]
    assert "--repair" not in result.output


def test_jobs_from_a_current_folder_removed_check_the_store_here(
    small_segments: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # was "Error: the current folder no longer exists" for a store named by its absolute
    # path, which --jobs 1 checked: a worker process cannot start without one
    from replaygate.hygiene import verify_jobs

    path = tmp_path / "store.jsonl"
    expected = planted(path)
    monkeypatch.setattr(verify_jobs, "PARALLEL_SEGMENTS", 1)
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    count, problems = report(path, jobs=4)
    assert count == 398 and len(problems) == len(expected)
