"""Eval case files: the example's shipped cases load; every malformed case names file and line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from replaygate.evals import CaseFormatError, checks_for, load_eval_cases
from replaygate.examples.research_copilot import shipped_eval_cases
from replaygate.jsonl_spread import ONE_A_LINE

GOOD = {
    "id": "rag",
    "question": "What is RAG?",
    "must_contain": ["retrieval"],
    "expected_doc_ids": ["doc-rag"],
    "samples": 5,
    "floor": 4,
}


def write(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_shipped_cases_declare_samples_and_floor() -> None:
    cases = load_eval_cases(shipped_eval_cases())
    assert len(cases) == 8
    assert {(c.samples, c.floor) for c in cases} == {(5, 4)}
    assert cases[0].where == f"{shipped_eval_cases()}:1"
    rag_chinese = next(c for c in cases if c.id == "rag-chinese")
    assert rag_chinese.aliases == {"retrieval-augmented generation": ("检索增强生成",)}


def test_a_full_case_parses_with_input_tags_schema_and_signals(tmp_path: Path) -> None:
    record = {
        "id": "json-answer",
        "input": "Answer in JSON",
        "schema": {"type": "object", "required": ["answer"]},
        "must_contain": ["answer"],
        "samples": 1,
        "floor": 1,
        "tags": ["structure"],
        "signals": ["contains"],
    }
    (case,) = load_eval_cases(write(tmp_path, "", json.dumps(record)))
    assert (case.question, case.tags, case.line) == ("Answer in JSON", ("structure",), 2)
    checks = {c.name: c for c in checks_for(case)}
    assert {n: c.kind for n, c in checks.items()} == {"contains": "signal", "schema": "gate"}
    assert checks["schema"].evaluate({"final": '{"answer": 1}'}).passed
    failed = checks["schema"].evaluate({"final": "not json"})
    assert not failed.passed
    assert "not valid JSON" in failed.message


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            "{not json",
            "invalid JSON: Expecting property name enclosed in double quotes at column 2",
        ),
        ('{"id": "rag', "invalid JSON: Unterminated string starting at column 8"),
        ("[1, 2]", "expected a JSON object, got list"),
        ("[" * 100_000 + "]" * 100_000, "invalid JSON: nested too deeply"),
        ('{"id": ' + "9" * 5000 + "}", "invalid JSON: Exceeds the limit (4300 digits)"),
        (json.dumps({**GOOD, "colour": "red"}), "unknown field(s) colour"),
        (json.dumps({k: v for k, v in GOOD.items() if k != "question"}), "exactly one of"),
        (json.dumps({**GOOD, "input": "x"}), "exactly one of 'question' and 'input'"),
        (json.dumps({k: v for k, v in GOOD.items() if k != "floor"}), "missing field(s) floor"),
        (json.dumps({**GOOD, "samples": "5"}), "'samples' must be an integer"),
        (json.dumps({**GOOD, "floor": True}), "'floor' must be an integer"),
        (json.dumps({**GOOD, "floor": 6}), "floor must be between 1 and n=5, got 6"),
        (json.dumps({**GOOD, "samples": 0, "floor": 0}), "'samples' must be an integer from 1"),
        (json.dumps({**GOOD, "samples": 5.7}), "field 'samples' must be an integer, got 5.7"),
        (json.dumps({**GOOD, "floor": 0.8}), "got 0.8; the floor counts samples, not a rate"),
        (
            '{"id": "x", "question": "q", "must_contain": ["a"], "floor": 1, "samples": 1%s}'
            % ("0" * 400),
            "field 'samples' must be an integer from 1 to 10,000, got an integer of 401 digits",
        ),
        (json.dumps({**GOOD, "samples": 10_001}), "from 1 to 10,000, got 10001"),
        (json.dumps({**GOOD, "id": ""}), "'id' must be a non-empty string"),
        (json.dumps({**GOOD, "id": "a\x1b[2Jb"}), "'id' must hold no control character"),
        (json.dumps({**GOOD, "id": "two\nlines"}), "'id' must hold no control character"),
        (json.dumps({**GOOD, "id": "rag\u2028FAIL x"}), "'id' holds U+2028 LINE SEPARATOR"),
        (json.dumps({**GOOD, "id": "a\u2029b"}), "'id' holds U+2029 PARAGRAPH SEPARATOR"),
        # a careless rename: 'expenses ' printed as the baseline's 'expenses', missing and new
        (json.dumps({**GOOD, "id": "expenses "}), "'id' has spaces at its start or end"),
        (json.dumps({**GOOD, "id": "\u00a0expenses"}), "'id' has spaces at its start or end"),
        (json.dumps({**GOOD, "question": "What is \ud800?"}), r"holds \ud800, half of a"),
        (json.dumps({**GOOD, "must_contain": ["\udfff"]}), "half of a surrogate pair"),
        (json.dumps({**GOOD, "must_contain": "retrieval"}), "'must_contain' must be a list"),
        (json.dumps({**GOOD, "expected_doc_ids": [1]}), "'expected_doc_ids' must be a list"),
        (json.dumps({**GOOD, "aliases": {"other": ["x"]}}), "'other' is not in must_contain"),
        (json.dumps({**GOOD, "aliases": {"retrieval": "x"}}), "must map to a list"),
        (json.dumps({**GOOD, "aliases": ["x"]}), "'aliases' must be an object"),
        (json.dumps({**GOOD, "schema": {"type": 12}}), "not a valid JSON Schema"),
        (json.dumps({**GOOD, "schema": []}), "'schema' must be a JSON Schema object"),
        (json.dumps({**GOOD, "signals": ["judge"]}), "unknown expectation 'judge'"),
        (json.dumps({**GOOD, "cost": "no"}), "field 'cost' must be true or false, got 'no'"),
        (
            json.dumps({"id": "x", "question": "q", "samples": 1, "floor": 1}),
            "no expectations",
        ),
    ],
)
def test_a_bad_case_is_reported_with_file_and_line(tmp_path: Path, line: str, message: str) -> None:
    path = write(tmp_path, json.dumps(GOOD), "", line)
    with pytest.raises(CaseFormatError) as caught:
        load_eval_cases(path)
    assert str(caught.value).startswith(f"{path}:3: ")
    assert message in str(caught.value)
    assert (caught.value.file, caught.value.line) == (str(path), 3)


WRAPPED = """{"id": "rag-chinese", "question": "什么是 RAG？",
 "must_contain": ["retrieval-augmented generation", "context"],
 "aliases": {"retrieval-augmented generation": ["检索增强生成"]},
 "expected_doc_ids": ["doc-rag"], "samples": 5, "floor": 4, "tags": ["rag", "i18n"]}"""
"""The example case of docs/evals.md, wrapped there to be read."""


SPREAD = "(pretty JSON, as an editor formats it), where a .jsonl file holds one case per line: "
ARRAY = ", where a .jsonl file holds one case per line, not an array: "


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (WRAPPED, f"a case spread over lines 2 to 5 {SPREAD}put each back on one"),
        (json.dumps(GOOD, indent=2), f"a case spread over lines 2 to 13 {SPREAD}"),
        (f"[{json.dumps(GOOD)}, {json.dumps(GOOD)}]", f"a JSON array of 2 cases on line 2{ARRAY}"),
        (json.dumps([GOOD], indent=1), f"a JSON array of 1 case spread over lines 2 to 15{ARRAY}"),
    ],
)
def test_a_case_spread_over_lines_or_an_array_of_cases_is_named_so(
    tmp_path: Path, text: str, said: str
) -> None:
    """As a fixture store names a fixture pasted as pretty JSON, with the command to fix it."""
    path = write(tmp_path, json.dumps({**GOOD, "id": "first"}), text)
    with pytest.raises(CaseFormatError) as caught:
        load_eval_cases(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:2: {said}"), message
    fixed = tmp_path / "cases.fixed.jsonl"
    one_a_line = f"e.g. `{ONE_A_LINE} {path} > {fixed}`, then `mv {fixed} {path}`"
    assert message.endswith(one_a_line), message


def test_a_duplicate_id_names_both_lines(tmp_path: Path) -> None:
    path = write(tmp_path, json.dumps(GOOD), json.dumps(GOOD))
    with pytest.raises(CaseFormatError, match=r":2: duplicate case id 'rag' \(first at line 1\)"):
        load_eval_cases(path)


def test_ids_differing_only_in_unicode_form_are_refused_with_their_escapes(
    tmp_path: Path,
) -> None:
    ids = ("rag", "RAG", "caf\u00e9", "cafe\u0301")  # case tells ids apart; Unicode form does not
    path = write(tmp_path, *(json.dumps({**GOOD, "id": i}) for i in ids))
    with pytest.raises(CaseFormatError) as caught:
        load_eval_cases(path)
    assert ":4: case id 'cafe\u0301' differs from the id of line 3 only in its Unicode form " in (
        str(caught.value)
    )
    assert "(cafe\\u0301, NFD; line 3: caf\\u00e9, NFC)" in str(caught.value)


@pytest.mark.parametrize("hidden", ["\u200b", "\u200f", "\u2060", "\ufeff", "\u00ad"])
def test_ids_differing_only_in_characters_of_no_width_are_refused(
    tmp_path: Path, hidden: str
) -> None:
    # "rag" U+200B "basics" beside "ragbasics": two verdict lines of one id to the eye
    path = write(
        tmp_path, *(json.dumps({**GOOD, "id": i}) for i in ("ragbasics", f"rag{hidden}basics"))
    )
    with pytest.raises(CaseFormatError) as caught:
        load_eval_cases(path)
    escape = f"\\u{ord(hidden):04x}"
    assert str(caught.value).startswith(
        f"{path}:2: case id {f'rag{hidden}basics'!r} differs from the id of line 1 only in "
        f"characters drawn as nothing (rag{escape}basics, NFC; line 1: ragbasics, NFC)"
    )


def test_an_empty_missing_or_binary_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(CaseFormatError, match="no cases"):
        load_eval_cases(write(tmp_path, "", "  "))
    with pytest.raises(CaseFormatError, match="cannot read cases"):
        load_eval_cases(tmp_path / "missing.jsonl")
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b"\xff\xfe")
    with pytest.raises(CaseFormatError, match="not UTF-8"):
        load_eval_cases(binary)


def deep_schema(levels: int) -> dict[str, object]:
    schema: dict[str, object] = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "array", "items": schema}
    return schema


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            json.dumps(GOOD)[:-1] + ', "question": "Something else?"}',
            "duplicate key question: an object names it twice; keep one",
        ),
        (
            json.dumps({**GOOD, "schema": {"type": "object"}})[:-2] + ', "type": "array"}}',
            "duplicate key schema.type: an object names it twice; keep one",
        ),
        (
            json.dumps({**GOOD, "schema": deep_schema(150)}),
            "schema: nested too deeply to be checked",
        ),
        (
            json.dumps({**GOOD, "schema": {"$schema": 5, "type": "object"}}),
            "schema.$schema: $schema names a draft by its URI, a string, not int",
        ),
    ],
    ids=["key twice", "schema key twice", "schema 150 deep", "$schema not a URI"],
)
def test_a_key_named_twice_or_a_schema_too_deep_is_named_at_its_line(
    tmp_path: Path, line: str, message: str
) -> None:
    # The last of two keys was taken silently; the deep schema ended in a RecursionError.
    path = write(tmp_path, json.dumps(GOOD | {"id": "first"}), line)
    with pytest.raises(CaseFormatError, match=f"^{re.escape(str(path))}:2: {re.escape(message)}$"):
        load_eval_cases(path)


@pytest.mark.parametrize(
    ("encoding", "line", "reason"),
    [
        ("latin-1", 3, "not UTF-8 text (byte 0xe9 at column 30)"),
        (
            "utf-16",
            1,
            "not UTF-8 text (it looks like UTF-16: re-save the file as UTF-8), "
            "e.g. `iconv -f UTF-16 -t UTF-8 {path} > {new}`, then `mv {new} {path}`",
        ),
    ],
)
def test_a_cases_file_not_in_utf8_names_the_line_and_byte(
    tmp_path: Path, encoding: str, line: int, reason: str
) -> None:
    lines = [GOOD | {"id": f"c{i}", "question": "Café?" if i == 2 else "Tea?"} for i in range(4)]
    text = "\n".join(json.dumps(case, ensure_ascii=False) for case in lines)
    path = tmp_path / "cases.jsonl"
    path.write_bytes(text.encode(encoding))
    with pytest.raises(CaseFormatError) as caught:
        load_eval_cases(path)
    new = path.with_name("cases.utf8.jsonl")
    assert str(caught.value) == f"{path}:{line}: {reason.format(path=path, new=new)}"
    assert caught.value.line == line


@pytest.mark.parametrize("tail", [b"\x00\n", b"\x00" * 4096], ids=["one", "a block"])
def test_a_line_of_nul_bytes_is_named_as_a_crash_leaves_it(tmp_path: Path, tail: bytes) -> None:
    # one NUL was blamed on UTF-16 lines added by PowerShell; a block was bare invalid JSON
    path = tmp_path / "cases.jsonl"
    path.write_bytes(json.dumps(GOOD).encode() + b"\n" + tail)
    count = tail.count(b"\x00")
    with pytest.raises(CaseFormatError) as caught:
        load_eval_cases(path)
    assert str(caught.value) == (
        f"{path}:2: a line of {count:,} NUL byte(s) and nothing else, where a crash leaves "
        "data that was never written: delete it"
    )


@pytest.mark.parametrize("doc_id", ["faq#3", "KB 12", "policy@v2", "_draft"])
def test_an_expected_doc_id_no_answer_can_cite_is_refused(tmp_path: Path, doc_id: str) -> None:
    # an answer citing [faq#3] extracted no citation: every sample failed, recall 0
    case = {"id": "c", "question": "q", "expected_doc_ids": ["kb:leave", doc_id]}
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps({**case, "samples": 1, "floor": 1}) + "\n", encoding="utf-8")
    with pytest.raises(CaseFormatError, match=f":1: expected_doc_ids: '{doc_id}' cannot be cited"):
        load_eval_cases(path)


def test_expected_doc_ids_of_the_citation_grammar_are_taken(tmp_path: Path) -> None:
    ids = ["kb:leave", "notes/rag.md", "api-v1.2", "1", "ｄｏｃ-ｒａｇ"]  # full-width: NFKC
    path = tmp_path / "cases.jsonl"
    case = {"id": "c", "question": "q", "expected_doc_ids": ids, "samples": 1, "floor": 1}
    path.write_text(json.dumps(case, ensure_ascii=False) + "\n", encoding="utf-8")
    assert load_eval_cases(path)[0].expected_doc_ids == tuple(ids)
