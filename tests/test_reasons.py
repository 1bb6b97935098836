"""A reason law 9 asks for must be text a reviewer can read: one of invisible characters
only, or holding a terminal's control sequence, is refused where a reason is required."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from replaygate.cli import main
from replaygate.cli.gate_cmds import baseline_group
from replaygate.evals import BaselineError, update_baseline
from replaygate.reasons import reason_problem
from test_gate import BASE, repo, write_results  # noqa: F401  (repo: a pytest fixture)

INVISIBLE = {
    "zero-width space": "\u200b",
    "byte order mark and word joiner": "\ufeff\u2060",
    "Hangul filler": "\u3164",
    "braille blank and no-break space": "\u2800\u00a0",
    "combining marks alone": "\u0301\u0308",
    "direction marks": "\u200e\u200f\u202e",
}
CONTROLS = {
    "escape sequence": "\x1b[8mhidden",
    "backspaces": "ok\b\b",
    "NUL": "why\x00",
    "carriage return that rewrites the line": "approved by alice\rREFUSED",
    "carriage return at the end": "fine\r",
}


@pytest.mark.parametrize("reason", INVISIBLE.values(), ids=INVISIBLE.keys())
def test_a_reason_of_invisible_characters_is_refused(reason: str) -> None:
    assert "shows nothing" in (reason_problem(reason) or "")


@pytest.mark.parametrize("reason", CONTROLS.values(), ids=CONTROLS.keys())
def test_a_reason_holding_a_control_character_is_refused(reason: str) -> None:
    assert "control character" in (reason_problem(reason) or "")


BIDI = [*map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2066, 0x206A))]


@pytest.mark.parametrize("char", BIDI, ids=[f"U+{ord(c):04X}" for c in BIDI])
def test_a_reason_holding_a_bidirectional_control_is_refused(char: str) -> None:
    # "approved" after U+202E shows "devorppa": balanced or not, the text a terminal shows
    # is not the text given; the message names the character and where it is.
    for reason in (f"fine {char}approved", f"fine {char}approved\u202c\u2069 ok"):
        problem = reason_problem(reason) or ""
        assert problem.startswith(f"the reason holds U+{ord(char):04X} "), reason
        assert "(at 5)" in problem and "U+200E or U+200F" in problem


@pytest.mark.parametrize("char", ["\u2028", "\u2029"], ids=["U+2028", "U+2029"])
def test_a_reason_holding_a_line_or_paragraph_separator_is_refused(char: str) -> None:
    # "approved\u2028by nobody": a log read line by line showed two reasons, a terminal one
    problem = reason_problem(f"fine {char}approved") or ""
    name = "LINE SEPARATOR" if char == "\u2028" else "PARAGRAPH SEPARATOR"
    assert problem.startswith(f"the reason holds U+{ord(char):04X} {name} (at 5), which "), problem
    assert "a line feed starts a new line" in problem
    assert reason_problem(char) == "the reason is blank: it holds only white space"


@pytest.mark.parametrize(
    "reason",
    [
        "תיקון השאילתה (v2)",
        "إصلاح الاستعلام: 3 من 5",
        "fix for עברית\u200e (Hebrew) users",
        "عربي\u061c 2.0\u200f!",
    ],
    ids=["Hebrew", "Arabic", "LRM", "ALM and RLM"],
)
def test_right_to_left_text_and_its_direction_marks_are_taken(reason: str) -> None:
    assert reason_problem(reason) is None


@pytest.mark.parametrize(
    "reason",
    [
        "new prompt",
        "é",
        "重新录制",
        "👩\u200d💻 fix",
        "line one\nline two\twith a tab\r\n",
        "x\u200b",
        "\u200fإصلاح الاستعلام",
        "🎉",
        "\U0001face",  # an emoji newer than the Unicode data of some Pythons
    ],
)
def test_a_reason_that_shows_something_is_taken(reason: str) -> None:
    assert reason_problem(reason) is None


def test_baseline_update_refuses_an_invisible_reason(repo: Path) -> None:  # noqa: F811
    target = repo / "evals" / "baseline.json"
    with pytest.raises(BaselineError, match=r"shows nothing.*U\+200B.*Nothing was written"):
        update_baseline(target, BASE, reason="\u200b")
    res = write_results(repo / "r.json", BASE)
    refused = {"\u200b \u200b": "shows nothing", "\x1b[8m": "control character"}
    refused["ok \u202eapproved"] = "U+202E RIGHT-TO-LEFT OVERRIDE (at 3)"
    refused["ok\u2028approved"] = "U+2028 LINE SEPARATOR (at 2)"
    for reason, why in refused.items():
        args = ["update", "--results", str(res), "--baseline", str(target), "--reason", reason]
        done = CliRunner().invoke(baseline_group, args)
        assert done.exit_code != 0
        assert f"refusing to update {target}: --reason: the reason" in done.output
        assert why in done.output and "Nothing was written" in done.output
    assert not target.exists()


@pytest.mark.parametrize("reason", ["\u200b", "\x1b[8m"])
def test_diff_refuses_an_invisible_reason_to_allow_a_response_change(reason: str) -> None:
    done = CliRunner().invoke(main, ["diff", "--allow-response-change", "--reason", reason])
    assert done.exit_code == 2
    assert "--reason: the reason" in done.output


def test_diff_refuses_a_reason_holding_a_key_to_allow_a_response_change() -> None:
    # it printed the reason, key included, in the report a pull request shows and the CI
    # log keeps, where baseline update refused the same reason
    key = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    args = ["diff", "--allow-response-change", "--reason", f"rotated {key}"]
    done = CliRunner().invoke(main, args)
    assert done.exit_code == 2
    assert "--reason holds a secret-looking value (GitHub token)" in done.output
    assert key not in done.output


def test_baseline_update_refuses_a_reason_holding_a_key(tmp_path: Path) -> None:
    # the history keeps the reason in a committed file: a key pasted into it is refused,
    # named by its kind, never echoed
    target = tmp_path / "baseline.json"
    key = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    res = write_results(tmp_path / "r.json", BASE)
    args = ["update", "--results", str(res), "--baseline", str(target)]
    done = CliRunner().invoke(baseline_group, [*args, "--reason", f"rotated {key} after a leak"])
    assert done.exit_code != 0
    assert "the reason holds a secret-looking value (GitHub token)" in done.output
    assert "Nothing was written" in done.output and key not in done.output
    assert not target.exists()
    fine = "claude-sonnet-4-5-20250929, tests/test_agent.py::test_cites, 3f2a9c1e4b7d8a6f0e5c2b1a"
    assert update_baseline(target, BASE, reason=fine).history[-1]["reason"] == fine
