"""Hostile eval case files: every bad value is an error naming the file, line and field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from replaygate.assertions import assert_structure
from replaygate.cli.eval_cmds import eval_cmd
from replaygate.evals import CaseFormatError, checks_for, load_eval_cases

AGENT = "replaygate.examples.research_copilot:copilot"
GOOD = {"id": "json", "question": "Answer in JSON", "samples": 1, "floor": 1}


def write(tmp_path: Path, schema: Any) -> Path:
    path = tmp_path / "cases.jsonl"
    lines = [json.dumps(dict(GOOD, id="first", must_contain=["a"]))]
    lines.append(json.dumps(dict(GOOD, schema=schema)))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("schema", "where", "ref"),
    [
        ({"$ref": "#/nope"}, "schema.$ref", "#/nope"),
        (
            {"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}},
            "schema.properties.a.$ref",
            "#/$defs/missing",
        ),
        (
            {"anyOf": [{"type": "null"}, {"$ref": "http://example.com/s.json"}]},
            "schema.anyOf[1].$ref",
            "http://example.com/s.json",
        ),
        ({"$ref": "other.json"}, "schema.$ref", "other.json"),
    ],
)
def test_a_schema_ref_that_points_nowhere_is_refused_on_load(
    tmp_path: Path, schema: dict[str, Any], where: str, ref: str
) -> None:
    # It loaded, and every sample of the case ended in a referencing traceback.
    path = write(tmp_path, schema)
    with pytest.raises(CaseFormatError) as caught:
        load_eval_cases(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:2: ")
    assert where in message and repr(ref) in message


def test_a_schema_ref_inside_the_schema_is_accepted(tmp_path: Path) -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/word"}, "b": {"$ref": "#/properties/a"}},
        "$defs": {"word": {"type": "string"}},
    }
    (_, case) = load_eval_cases(write(tmp_path, schema))
    (check,) = checks_for(case)
    assert check.evaluate({"final": '{"a": "x", "b": "y"}'}).passed
    assert not check.evaluate({"final": '{"a": 1}'}).passed


def test_assert_structure_names_a_ref_it_cannot_resolve() -> None:
    with pytest.raises(ValueError, match=r"invalid JSON Schema: cannot resolve \$ref '#/nope'"):
        assert_structure({"a": 1}, {"$ref": "#/nope"})


def test_the_eval_command_stops_on_such_a_case_before_any_call(tmp_path: Path) -> None:
    path = write(tmp_path, {"$ref": "#/nope"})
    args = ["--fixtures", str(tmp_path / "f.jsonl"), "--cases", str(path), "--no-history"]
    result = CliRunner().invoke(eval_cmd, [*args, "--agent", AGENT])
    assert result.exit_code == 2, result.output
    assert f"{path}:2: " in result.output and "'#/nope'" in result.output
    assert "Traceback" not in result.output


def lines_file(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "cases.jsonl"
    path.write_bytes(data)
    return path


def case_line(case_id: str, question: str) -> bytes:
    record = dict(GOOD, id=case_id, question=question, must_contain=["a"])
    return json.dumps(record, ensure_ascii=False).encode("utf-8")


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85"])
def test_a_question_holding_a_character_python_takes_for_a_line_break_loads(
    tmp_path: Path, separator: str
) -> None:
    # JSON allows these unescaped in a string; the file was split at them, and the
    # case refused as "Unterminated string".
    question = f"first{separator}second"
    data = case_line("one", question) + b"\n" + case_line("two", "q") + b"\n"
    one, two = load_eval_cases(lines_file(tmp_path, data))
    assert (one.question, one.line, two.line) == (question, 1, 2)


def test_crlf_lines_load_with_their_numbers(tmp_path: Path) -> None:
    data = case_line("one", "q") + b"\r\n\r\n" + case_line("two", "q") + b"\r\n"
    one, two = load_eval_cases(lines_file(tmp_path, data))
    assert (one.line, two.line) == (1, 3)
    bad = lines_file(tmp_path, case_line("one", "q") + b"\r\n{broken\r\n")
    with pytest.raises(CaseFormatError, match=r"cases\.jsonl:2: invalid JSON"):
        load_eval_cases(bad)


@pytest.mark.parametrize(
    ("encoding", "words"), [("utf-8-sig", "byte order mark"), ("utf-16", "UTF-16")]
)
def test_a_cases_file_saved_with_a_byte_order_mark_says_how_to_save_it(
    tmp_path: Path, encoding: str, words: str
) -> None:
    text = case_line("one", "q").decode("utf-8") + "\n"
    path = lines_file(tmp_path, text.encode(encoding))
    with pytest.raises(CaseFormatError) as caught:
        load_eval_cases(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:") and words in message
    assert "utf-8-sig" not in message  # Python's words, not a user's


@pytest.mark.parametrize("space", ["\x0c", "\x0b", "\u00a0", "\u2028"])
def test_a_line_of_white_space_json_refuses_is_named_not_passed_over(
    tmp_path: Path, space: str
) -> None:
    # str.strip() takes each for white space; JSON does not, nor does the store
    data = case_line("one", "q") + b"\n" + space.encode("utf-8") + b"\n"
    with pytest.raises(CaseFormatError, match=r"cases\.jsonl:2: "):
        load_eval_cases(lines_file(tmp_path, data))
    (one,) = load_eval_cases(lines_file(tmp_path, data.replace(space.encode(), b" \t")))
    assert one.id == "one"  # a line of JSON's own white space is blank


ONE = case_line("one", "Café?").decode("utf-8") + "\n"
TWO = ONE + ONE.replace('"one"', '"two"')
UTF16_FILE = "not UTF-8 text (it looks like UTF-16: re-save the file as UTF-8), e.g. `iconv "
UTF16_ADDED = "not UTF-8 text (it looks like UTF-16: re-save the file as UTF-8): lines from here on"


@pytest.mark.parametrize(
    ("data", "line", "reason"),
    [
        (TWO.replace("\n", "\r").encode(), 1, "lines end in a lone carriage return (CR) where"),
        (TWO.replace("\n", "\r").encode("latin-1"), 1, "lines end in a lone carriage return"),
        (TWO.encode("utf-16"), 1, f"{UTF16_FILE}-f UTF-16 -t UTF-8 "),
        (TWO.replace("é", "e").encode("utf-16-le"), 1, f"{UTF16_FILE}-f UTF-16LE -t UTF-8 "),
        (TWO.replace("é", "e").encode("utf-16-be"), 1, f"{UTF16_FILE}-f UTF-16BE -t UTF-8 "),
        (TWO.encode() + TWO.replace("é", "e").encode("utf-16-le"), 3, UTF16_ADDED),
        (TWO.encode() + TWO.encode("utf-16-le"), 3, UTF16_ADDED),  # é: not UTF-8 at line 4
        (ONE.encode() + TWO.encode("utf-8-sig"), 2, "starts with a UTF-8 byte order mark"),
        (ONE.replace("é", "e").encode() + TWO.encode("latin-1"), 2, "not UTF-8 text (byte 0xe9 "),
    ],
    ids=["cr", "cr-latin-1", "utf-16", "utf-16le", "utf-16be", "added", "added-e", "bom", "latin"],
)
def test_a_cases_file_in_another_encoding_is_named_as_the_store_names_it(
    tmp_path: Path, data: bytes, line: int, reason: str
) -> None:
    # CR line ends were "invalid JSON: Extra data", UTF-16 without a byte order mark
    # "invalid JSON", a UTF-8 byte order mark on line 2 "Expecting value"
    path = lines_file(tmp_path, data)
    with pytest.raises(CaseFormatError) as caught:
        load_eval_cases(path)
    assert str(caught.value).startswith(f"{path}:{line}: {reason}")
    assert caught.value.line == line
    if "iconv" in reason or "CR" in reason:
        new = path.with_name(f"{path.stem}.{'utf8' if 'iconv' in reason else 'fixed'}.jsonl")
        assert str(caught.value).endswith(f" {path} > {new}`, then `mv {new} {path}`")


def test_a_bom_inside_the_cases_file_says_how_to_delete_it(tmp_path: Path) -> None:
    path = lines_file(tmp_path, ONE.encode() + TWO.encode("utf-8-sig"))
    with pytest.raises(CaseFormatError, match=r"in the middle of the file") as caught:
        load_eval_cases(path)
    assert str(caught.value).endswith(f"e.g. `sed -i '2s/^\\xef\\xbb\\xbf//' {path}`")
