"""Hostile sanitize patterns: refused when the configuration is read, naming the key.

A rule runs on every request recorded or replayed. One that can match empty text
would rewrite every gap between characters; one that can backtrack exponentially
would hang the run on a text that almost matches, without a word.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from replaygate.sanitize import RedactionRule, SanitizeConfigError, load_config
from replaygate.sanitize.patterns import pattern_problem
from run_cli import replaygate

# Its tests import the provider SDKs through replaygate (the example agent).

AGENT = "replaygate.examples.research_copilot:copilot"

HANGING = [r"(a+)+$", r"(\w+\s?)+!", r"(x*)*y", r"((ab)+c?)+z", r"(?:(?:\d+)+)-",
           r"(?:[a-z]+|\.)+@corp", r"(?:\w+|-)+$",
           # the inner repeat made optional (?, {0,1}, an empty alternative), and a body
           # that can match empty text: 24 characters of a near miss took 4 to 9 s
           r"(?:(?:\w+)?\s?)+:", r"(?:(?:a+){0,1})+x", r"(?:a+|)+x", r"(?:(?:a+)?b?)+x",
           r"(a?){28}a{28}"]  # fmt: skip
AMBIGUOUS = [r"(a|aa)+$", r"(ab|a|b)+$", r"(?:.|\s)+!", r"(?:\w\w|\d)+x", r"x(?:abc|ab|c)*$",
             r"(?s)x(?:.|\n)+y", r"(?:(?:a|aa)+b)", r"(?:ab|c|a|bc)+$",
             # classes and counted repeats that tile one text two ways: 60 characters
             # of a near miss took 50 s
             r"(?:\d\d|\d\d\d)+x", r"(?:a{2}|aaa)+b", r"(?:[a-z]{2}|[a-z]{3})+@"]  # fmt: skip
"""Alternatives that can match alike, repeated: 26 to 50 characters of a text that almost
matches take seconds each (``(ab|a|b)+$`` on ``ab`` x 24 then ``!``: 6 s)."""
SWALLOWING = [r"(?:.+,)+x", r"(?:.*?,){12}x", r"(?:a\w+)+x"]
"""A repeat that can match the rest of its group, repeated: ``(?:.+,)+x`` on ``a,`` x 24
took 2 s, ``(?:.*,){12}x`` on 40 commas more than a minute."""
EMPTY = [r"(?=a)", r"\b", r"a|", r"(?<=x)", r"^"]
FINE = [
    r"order-[0-9]{6}",
    r"(?:[a-z0-9-]+\.)+example\.com",
    r"(\d{3}-)+\d{4}",
    r"[a-z]+(?:\.[a-z]+)*@corp",
    r"acme_test_[0-9a-f]{32}",
    r"(?:foo|foobar)+",
    r"(?:x|xy)*z",
    r"(?:ab|ba)+",
    r"(\w|\d)+@corp",
    r"(?:a|b){3}",
    r"id:(\d+)(?:,\1)*",  # a back-reference in a repeated group
    r"(?>ab)+x",  # an atomic group
    r"(?:a|ab|bb)+x",  # read one way only, though not from the left
    r"(?:GET|POST|PUT)+ ",
    r"(?:(?:[a-z]+\.)?x)+",  # an optional part holding a repeat and a fixed character
    r"(?:ab?){3}",
    r"(?:[^,]+,)+x",  # a repeated part that stops at the separator
    r"(?:\S+\s)+x",
]


def write(folder: Path, rule: str) -> Path:
    path = folder / "pyproject.toml"
    path.write_text(
        f"[project]\nname = 'x'\n\n[[tool.replaygate.sanitize.rules]]\npattern = '{rule}'\n",
        encoding="utf-8",
    )
    return path


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [(pattern, "only required part is itself repeated") for pattern in HANGING]
    + [(pattern, "alternatives can match the same text") for pattern in AMBIGUOUS]
    + [(pattern, "repeated part can also match the rest") for pattern in SWALLOWING],
)
def test_a_pattern_that_can_backtrack_exponentially_is_refused_on_load(
    tmp_path: Path, pattern: str, reason: str
) -> None:
    with pytest.raises(SanitizeConfigError) as caught:
        load_config(write(tmp_path, pattern))
    message = str(caught.value)
    assert "pyproject.toml:5: tool.replaygate.sanitize.rules[0].pattern: " in message
    assert reason in message and "exponential time" in message and repr(pattern) in message


@pytest.mark.parametrize("pattern", EMPTY)
def test_a_pattern_that_matches_empty_text_anywhere_is_refused(pattern: str) -> None:
    # (?=a) with a replacement it does not match was accepted, and put the replacement
    # before every 'a' of every request: a stored request that changed again at replay.
    with pytest.raises(ValueError, match="matches empty text"):
        RedactionRule(pattern=pattern, replace="X")


@pytest.mark.parametrize("pattern", FINE)
def test_common_patterns_are_accepted(pattern: str) -> None:
    assert pattern_problem(pattern) is None
    RedactionRule(pattern=pattern, replace="[redacted]")


def test_a_literal_with_regex_characters_is_taken_literally() -> None:
    rule = RedactionRule(literal="(a+)+$", replace="[x]")
    assert rule.apply("cost (a+)+$ here") == "cost [x] here"


def test_a_known_safe_pattern_that_can_hang_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text(
        "[tool.replaygate.sanitize]\nknown_safe_patterns = ['(k+)+_test']\n", encoding="utf-8"
    )
    with pytest.raises(SanitizeConfigError, match=r"known_safe_patterns\[0\]: .*exponential"):
        load_config(path)


@pytest.mark.slow
def test_record_stops_on_a_hanging_pattern_before_any_call(tmp_path: Path) -> None:
    write(tmp_path, r"(\w+\s?)+!")
    start = time.monotonic()
    done = replaygate(
        "record", "--agent", AGENT, "--fixtures", "a.jsonl", "--approve-live", "--simulator",
        "a question with many many words in it and no mark at the end", cwd=tmp_path,
    )  # fmt: skip
    assert time.monotonic() - start < 60  # the pattern on this text would take ages
    assert done.returncode == 2, done.stderr
    assert "tool.replaygate.sanitize.rules[0].pattern: " in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "a.jsonl").exists()
