"""The observation queue holds any case name and reads back what it wrote."""

from __future__ import annotations

from pathlib import Path

import pytest

from replaygate.assertions.kinds import Outcome
from replaygate.sampling import SampledResult, SampleResult
from replaygate.sampling.queue import Observation, append_observation, read_queue


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85"])
def test_a_case_named_with_a_character_python_takes_for_a_line_break_reads_back(
    tmp_path: Path, separator: str
) -> None:
    # The queue is written with the character as it is (valid JSON), and was read back
    # split at it: "not an observation", so the plugin took the file for something else.
    name = f"test_answer[first{separator}second]"
    outcome = Outcome(f"cites{separator}source", "gate", False, "", None, "set")
    passed = Outcome(f"cites{separator}source", "gate", True, "", None, "set")
    samples = (SampleResult(0, (outcome,)), SampleResult(1, (passed,)))
    entry = Observation.of(SampledResult(name, 2, 2, samples), "2026-11-01T00:00:00Z")
    queue = tmp_path / "observe.jsonl"
    append_observation(queue, entry)
    append_observation(queue, entry)
    assert read_queue(queue) == [entry, entry]


def test_a_damaged_line_is_named_by_its_number_with_crlf_lines(tmp_path: Path) -> None:
    queue = tmp_path / "observe.jsonl"
    queue.write_bytes(b"\r\n{broken\r\n")
    with pytest.raises(ValueError, match=r"observe\.jsonl:2: not an observation"):
        read_queue(queue)


def test_a_line_of_a_form_feed_is_named_not_passed_over(tmp_path: Path) -> None:
    queue = tmp_path / "observe.jsonl"
    queue.write_bytes(b" \t\n\x0c\n")
    with pytest.raises(ValueError, match=r"observe\.jsonl:2: not an observation"):
        read_queue(queue)
