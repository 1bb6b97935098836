"""Reading replaygate's JSON documents: a file an editor saved oddly is named as such."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType

import pytest
from click.testing import CliRunner

from counted_outputs import run_output
from replaygate.assertions.kinds import Outcome
from replaygate.cli import main
from replaygate.evals import CaseResult, EvalResults
from replaygate.evals.scorers import CaseCounts
from replaygate.jsondoc import check_document, read_json, syntax_error
from replaygate.sampling import SampledResult, SampleResult
from replaygate.strict_json import DuplicateKeyError, loads, plain_loads

BOM = b"\xef\xbb\xbf"
TRAILING_COMMA = b'{"format": "x",}'


def test_a_trailing_comma_is_named_where_it_is_not_at_the_brace_after_it(tmp_path: Path) -> None:
    # a baseline edited by hand: "Expecting property name enclosed in double quotes at line
    # 3, column 1" named the line of the brace, not the one holding the comma
    path = tmp_path / "baseline.json"
    path.write_bytes(b'{"metrics": {\n  "success": 1.0,\n  "steps": 3.4,\n}}\n')
    with pytest.raises(ValueError, match="line 3, column 15") as raised:
        read_json(path, "baseline", ValueError)
    if sys.version_info < (3, 13):  # 3.13's reader names the comma itself
        assert str(raised.value).endswith(
            "at line 4, column 1: a comma after the last item, at line 3, column 15, where "
            "JSON allows none before '}': delete it"
        )
    with pytest.raises(json.JSONDecodeError) as listed:
        json.loads("[1, 2,\n]")
    assert "column 6" in syntax_error(listed.value, line=False)


def python_reason(text: bytes) -> str:
    """Why and where Python's reader refuses ``text``, in its words, which 3.13 changed
    for some ("Illegal trailing comma before end of object" was "Expecting property
    name enclosed in double quotes", a column further)."""
    try:
        json.loads(text)
    except json.JSONDecodeError as err:
        return f"{err.msg} at line {err.lineno}, column {err.colno}"
    raise AssertionError(f"{text!r} is JSON")


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (
            BOM + b'{"format": "x", "version": 1}',
            "starts with a UTF-8 byte order mark (BOM), which JSON does not allow (an editor "
            "saving as 'UTF-8 with BOM' writes one): re-save the file as UTF-8 without it",
        ),
        (
            '{"format": "x"}'.encode("utf-16"),
            "not UTF-8 text (it looks like UTF-16: re-save the file as UTF-8), "
            "e.g. `iconv -f UTF-16 -t UTF-8 {path} > {new}`, then `mv {new} {path}`",
        ),
        (  # no byte order mark: read as UTF-8, it was "not JSON: Expecting value"
            '{"format": "x"}'.encode("utf-16-be"),
            "not UTF-8 text (it looks like UTF-16: re-save the file as UTF-8), "
            "e.g. `iconv -f UTF-16BE -t UTF-8 {path} > {new}`, then `mv {new} {path}`",
        ),
        (  # it was "(invalid continuation byte at byte 28)"
            '{"format": "x",\n "note": "café"}'.encode("latin-1"),
            "not UTF-8 text (byte 0xe9 at line 2, column 14)",
        ),
        (b" \n", "the file is empty, where results should be"),
        (  # cut off by a full disk or a killed writer
            b'{"format": "x",\n "cases": [{"id": "rag',
            "not JSON: Unterminated string starting at line 2, column 19: the file ends "
            "before its JSON does: it was cut short",
        ),
        (  # an artifact download that stopped between two values
            b'{"format": "x",\n "cases": [{"id": "rag"}, ',
            "not JSON: Expecting value at line 2, column 27: the file ends before its JSON "
            "does: it was cut short (a copy, download or write that stopped)",
        ),
        (  # `replaygate eval --json >> results.json` run twice
            b'{"format": "x"}\n{"format": "x"}\n',
            "not JSON: Extra data at line 2, column 1: a whole JSON document ends there and "
            "more follows, as when output is appended (`>>`)",
        ),
        (TRAILING_COMMA, f"not JSON: {python_reason(TRAILING_COMMA)}"),
        (  # a baseline two branches updated: it was "not JSON: Expecting value at line 2"
            b'{\n<<<<<<< HEAD\n  "success": 0.9\n=======\n  "success": 0.8\n>>>>>>> b\n}\n',
            "not JSON: a git merge conflict marker at line 2: the file was merged with a "
            "conflict left unresolved",
        ),
    ],
    ids=[
        "UTF-8 with a BOM",
        "UTF-16",
        "UTF-16 without a BOM",
        "Latin-1",
        "empty",
        "cut off in a string",
        "cut off between values",
        "two documents",
        "a trailing comma",
        "a merge conflict",
    ],
)
def test_a_json_file_an_editor_saved_oddly_is_named_with_how_to_fix_it(
    tmp_path: Path, content: bytes, reason: str
) -> None:
    path = tmp_path / "results.json"
    path.write_bytes(content)
    with pytest.raises(ValueError) as caught:
        read_json(path, "results", ValueError)
    new = path.with_name("results.utf8.json")
    assert str(caught.value).startswith(f"{path}: {reason.format(path=path, new=new)}")


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("NaN", "metrics.success: NaN is not a number JSON can hold at line 3, column 14"),
        ("1e999", "metrics.success: 1e999 is beyond the range of a number at line 3, column 14"),
    ],
)
def test_a_loose_number_edited_into_a_document_is_named_with_its_line(
    tmp_path: Path, value: str, reason: str
) -> None:
    # a results file of hundreds of lines was refused naming no line of the value, then
    # no field: a NaN a tool wrote for a metric is named as the checks name one
    path = tmp_path / "results.json"
    path.write_text('{"note": "NaN",\n "metrics": {\n  "success": ' + value + "}}", "utf-8")
    with pytest.raises(ValueError) as caught:
        read_json(path, "results", ValueError)
    assert str(caught.value) == f"{path}: not JSON this reader accepts: {reason}"


def _one_case_results(path: Path) -> Path:
    """A results file of one case whose one sample passed."""
    output = run_output("a", cited=["doc-a"])
    sample = SampleResult(0, (Outcome("cites", "gate", True, "", None, "set"),), output)
    counts = CaseCounts(samples=1, passed=True, runs=1, scored=True, cited=1, correct=1, expected=1)
    case = CaseResult(SampledResult("a", 1, 1, (sample,)), counts, ("t",))
    return EvalResults((case,), {"time": "2026-11-30T00:00:00Z", "mode": "replay"}).write(path)


def _commands(bom: str, good: str) -> list[list[str]]:
    """Each command that reads a JSON document, given ``bom`` where it reads one."""
    return [
        ["gate", "--results", bom, "--baseline", good],
        ["gate", "--results", good, "--baseline", bom],
        ["history", "merge", bom, "--history", "history.sqlite"],
        ["baseline", "update", "--results", bom, "--baseline", good, "--reason", "new model"],
        ["report", "--results", bom, "--baseline", good, "--history", "history.sqlite"],
    ]


def test_every_command_reading_a_json_document_names_a_byte_order_mark_and_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("pyproject.toml").write_text("[tool.replaygate]\n", encoding="utf-8")
    good = _one_case_results(tmp_path / "good.json")
    bom = tmp_path / "bom.json"
    bom.write_bytes(BOM + good.read_bytes())
    runner = CliRunner()
    for args in _commands(str(bom), str(good)):
        result = runner.invoke(main, args)
        assert result.exit_code == 2, (args, result.output)
        assert f"{bom}: starts with a UTF-8 byte order mark (BOM)" in result.output, args
        assert "Traceback" not in result.output
    assert bom.read_bytes().startswith(BOM)


def test_a_document_named_with_a_newline_is_named_on_one_line(tmp_path: Path) -> None:
    path = tmp_path / "results\n.json"
    path.write_bytes(BOM + b"{}")
    with pytest.raises(ValueError) as caught:
        read_json(path, "results", ValueError)
    assert str(caught.value).startswith(f"{str(path)!r}: starts with a UTF-8 byte order mark")
    with pytest.raises(ValueError) as caught:
        check_document({}, str(path), format="f", version=1, what="a file", error=ValueError)
    assert str(caught.value) == f"{str(path)!r}: not a file (format 'f')"


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ('{"a": 1, "a": 2}', "a"),
        ('{"a": [{"b": 1}, {"c": {"d": 1, "d": 1}}], "e": {"f": 1, "f": 2}}', "a[1].c.d"),
        ('[{"x": 1, "y": 2, "x": 3}]', "[0].x"),
    ],
)
def test_a_key_named_twice_is_named_by_its_path_in_one_pass(text: str, path: str) -> None:
    with pytest.raises(DuplicateKeyError) as caught:
        loads(text)
    assert caught.value.path == path
    assert str(caught.value) == f"duplicate key {path}: an object names it twice; keep one"
    assert loads(text, unique_keys=False) == json.loads(text)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("NaN", "NaN is not a number JSON can hold"),
        ("[-Infinity]", "-Infinity is not a number JSON can hold"),
        ('{"a": 1e999}', "1e999 is beyond the range of a number"),
        ("1" * 5000, "an integer of 5,000 digits (at most 4,300 are read)"),
    ],
)
def test_loose_numbers_are_refused_only_when_strict(text: str, reason: str) -> None:
    with pytest.raises(ValueError) as caught:
        loads(text)
    assert str(caught.value) == reason
    if len(text) < 5000:
        assert json.dumps(loads(text, strict_numbers=False)) == json.dumps(json.loads(text))


def stack_depth() -> int:
    """How many frames the caller's stack holds (``len(inspect.stack())`` without reading
    every frame's source lines)."""
    frame: FrameType | None = sys._getframe(1)
    depth = 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1
    return depth


@pytest.mark.parametrize("read", [loads, plain_loads], ids=["loads", "plain_loads"])
@pytest.mark.parametrize(
    "text", ["[" * 100_000, '{"a": ' * 2_000 + "1" + "}" * 2_000, b"[" * 1_025 + b"]" * 1_025]
)
def test_a_text_nested_past_the_limit_is_refused_before_it_is_parsed(
    read: Callable[[str | bytes], object], text: str | bytes
) -> None:
    # json.loads would recurse to Python's limit, where a garbage collection fails the
    # finalizers of unrelated objects; so the refusal must come with the stack still shallow
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(stack_depth() + 60)
    try:
        with pytest.raises(RecursionError, match=r"^nested more than 1,024 levels deep$"):
            read(text)
    finally:
        sys.setrecursionlimit(limit)


def test_a_text_holding_more_brackets_than_the_limit_is_read() -> None:
    wide = json.dumps([[i, {"n": [i]}] for i in range(3_000)])
    assert plain_loads(wide) == loads(wide) == json.loads(wide)
    assert plain_loads(wide.encode()) == json.loads(wide)


def test_a_loose_number_deep_in_a_document_is_named_by_its_path(tmp_path: Path) -> None:
    # a shard whose sample a tool wrote Infinity into was named by line and column alone
    path = tmp_path / "shard-1.json"
    doc = '{"cases": [{"case": "a", "x": {}}, {"sample_results": [{}, {"o": {"c": ["d", %s]}}]}]}'
    path.write_text(doc % "-Infinity", "utf-8")
    named = r"accepts: cases\[1\]\.sample_results\[1\]\.o\.c\[1\]: -Infinity is not"
    with pytest.raises(ValueError, match=named):
        read_json(path, "results", ValueError)
