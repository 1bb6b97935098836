"""Where an error is: ``file:line``, one line however the file is named."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from replaygate.cli import main
from replaygate.errors import FixtureFormatError, located


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("store/bad\nname.jsonl", "'store/bad\\nname.jsonl'"),
        ("a\tb.jsonl", "'a\\tb.jsonl'"),
        ("red\x1b[31m.jsonl", "'red\\x1b[31m.jsonl'"),
        ("para\u2029graph.jsonl", "'para\\u2029graph.jsonl'"),
        ("evil\u202elnosj.txt", "'evil\\u202elnosj.txt'"),
    ],
    ids=["newline", "tab", "escape sequence", "paragraph separator", "right-to-left override"],
)
def test_a_file_name_holding_a_control_character_is_shown_escaped(name: str, shown: str) -> None:
    assert located(name, 3) == f"{shown}:3"
    assert located(name, 0) == shown
    assert str(FixtureFormatError(name, 1, "bad")) == f"{shown}:1: bad"


@pytest.mark.parametrize(
    "name", ["tests/fixtures/rag.jsonl", "café et thé.jsonl", "back\\slash 'quoted'.jsonl"]
)
def test_an_ordinary_file_name_is_shown_as_it_is(name: str) -> None:
    assert located(name, 7) == f"{name}:7"
    assert located(name, 0) == name


def test_verify_reports_a_store_named_with_a_newline_on_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("store").mkdir()
    Path("store/bad\nname.jsonl").write_text("not json\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["verify", "store"])
    assert result.exit_code == 1, result.output
    problem, summary = result.output.splitlines()
    assert problem.startswith("'store/bad\\nname.jsonl':1: malformed JSON")
    assert summary == "0 fixture(s) checked, 1 problem(s)"
