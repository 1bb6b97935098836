"""Where an error is: ``file:line``, one line however the file is named."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from replaygate.cli import main
from replaygate.errors import FixtureFormatError, FixtureMismatchError, located, missed_again


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


@pytest.mark.parametrize(
    ("text", "args"),
    [
        ('{"format": "x"}', ["gate", "--results", "NAME", "--baseline", "NAME"]),
        (
            '{"format": "replaygate.eval.baseline", "version": 9}',
            ["gate", "--results", "NAME", "--baseline", "NAME"],
        ),
        ('{"format": "x", "x": "\\ud800"}', ["gate", "--results", "NAME", "--baseline", "NAME"]),
    ],
    ids=["neither document", "baseline version", "lone surrogate"],
)
def test_a_document_error_names_a_file_named_with_a_newline_on_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, args: list[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    name = "r\nesults.json"
    (tmp_path / name).write_text(text)
    done = CliRunner().invoke(main, [name if a == "NAME" else a for a in args])
    assert done.exit_code == 2, done.output
    assert "Error: 'r\\nesults.json': " in done.output and done.output.count("\n") == 1


def test_a_toml_error_names_a_file_named_with_a_newline_on_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "a\nb"
    folder.mkdir()
    (folder / "pyproject.toml").write_text("[tool.replaygate\n")
    monkeypatch.chdir(folder)
    done = CliRunner().invoke(main, ["ci", "plan", "--changed", "x.py"])
    assert done.exit_code == 2 and done.output.count("\n") == 1, done.output
    assert "a\\nb/pyproject.toml':1: not valid TOML" in done.output


def test_a_request_run_out_of_answers_by_a_retry_after_another_missed_names_that_miss() -> None:
    # a LangGraph node (RetryPolicy(retry_on=Exception)) sends A, answered, then B, changed:
    # the retry sends A once more than recorded, and the test failed with 'recorded 1 time
    # and sent 3 times', advising to re-record or repeat_last=True, the change named last
    changed = FixtureMismatchError(
        "no fixture", key="bbbb", differences=("body.messages[0].content: 'a' != 'b'",)
    )
    more = FixtureMismatchError("recorded 1 time and sent 2", key="aaaa", kind="sent-more")
    note = missed_again(more, [changed])
    assert note is not None
    assert "after another request missed (key bbbb, which differs from its nearest " in note
    assert "recorded request in body.messages[0].content)" in note
    again = FixtureMismatchError("recorded 1 time and sent 3", key="aaaa", kind="sent-more")
    assert missed_again(again, [changed, more]) == note
    # a request sent more often with no changed one before it (a retry of itself) is told so
    alone = missed_again(again, [more])
    assert alone is not None and alone.startswith("replaygate: this request missed 2 times")
    assert missed_again(more, []) is None
