"""The field readers every file format here shares: where a problem is, said safely."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from replaygate.evals.config import load_config
from replaygate.evals.errors import ConfigError
from replaygate.examples.research_copilot import DataFormatError
from replaygate.examples.research_copilot._jsonl import records
from replaygate.jsonfields import FieldError, count, each, lone_surrogate, time_field


def test_a_key_a_terminal_would_act_on_is_shown_escaped_in_the_field_path() -> None:
    # printed as it was, it set the terminal's title and began a line of its own
    cases = {"cases": {"a\x1b]0;PWNED\x07\ngate: PASS": {"samples": "bad"}, "fine": {}}}
    with pytest.raises(FieldError) as caught:
        each(cases, "cases", lambda _, item: count(item, "samples", 0), key="case id")
    assert caught.value.field == "cases.'a\\x1b]0;PWNED\\x07\\ngate: PASS'.samples"
    assert "\x1b" not in caught.value.field and "\n" not in caught.value.field


@pytest.mark.parametrize("when", ["0001-01-01T00:00:00+01:00", "9999-12-31T23:00:00-02:00"])
def test_a_time_that_names_no_time_in_utc_is_refused(when: str) -> None:
    # read, it ended every report in an OverflowError
    with pytest.raises(FieldError, match="has no UTC equivalent"):
        time_field({"at": when}, "at")
    assert time_field({"at": "0001-01-01T01:00:00+01:00"}, "at")


def test_a_line_separator_inside_a_string_does_not_shift_line_numbers(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text(
        '[project]\nname = "x"\ndescription = "one\u2028two\u0085three"\n'
        "[tool.replaygate]\nmax_cost = -1\n",
        encoding="utf-8",
    )
    with pytest.raises(ConfigError, match=r"pyproject\.toml:5: tool\.replaygate\.max_cost"):
        load_config(path)
    lines: list[Any] = ['{"q": "one\u2028two"}', "", "[]"]
    with pytest.raises(DataFormatError) as caught:
        list(records("cases.jsonl", "\n".join(lines)))
    assert caught.value.line == 3


DEEP: Any = "ok"
for _ in range(300):  # deeper than orjson writes
    DEEP = [DEEP]


@pytest.mark.parametrize(
    ("document", "found"),
    [
        ({"runs": [{"id": "a", "n": 1, "x": 1.5, "t": True, "z": None}]}, None),
        ({"runs": [{"id": "a"}, {"id": "\ud800"}]}, "runs[1].id: holds \\ud800"),
        ({"runs": [{"\udc80": 1}]}, "runs[0]: a key holds \\udc80"),
        ({"output": "\ud800", "id": "a"}, None),  # a value of skip is not looked at
        ({"output": "\ud800", "id": "\udfff"}, "id: holds \\udfff"),
        ({"big": 10**30, "id": "a"}, None),  # an integer orjson cannot write
        ({"big": 10**30, "id": "\ud800"}, "id: holds \\ud800"),
        ({"deep": DEEP}, None),
        ({"deep": [DEEP, "\ud800"]}, "deep[1]: holds \\ud800"),
    ],
)
def test_half_a_surrogate_pair_is_named_by_its_field_wherever_it_is(
    document: Any, found: str | None
) -> None:
    # a document holding none is passed at once; one orjson refuses is walked
    reason = lone_surrogate(document, skip=frozenset({"output"}))
    assert (reason.split(",")[0] if reason else None) == found
