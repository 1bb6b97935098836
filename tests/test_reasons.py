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
    for reason, why in (("\u200b \u200b", "shows nothing"), ("\x1b[8m", "control character")):
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
