"""A simulator script saved in another encoding is named as the fixture store names it:
UTF-16 with the command that converts it, a byte order mark, the first byte that is not
UTF-8 by its line and column."""

from __future__ import annotations

from pathlib import Path

import pytest

from replaygate.errors import line_encoding_reason
from replaygate.sim import ScriptBehavior, ScriptFormatError

LINES = '{"text": "hi"}\n{"text": "Café"}\n'
UTF16 = "not UTF-8 text (it looks like UTF-16: re-save the file as UTF-8)"
THEN = "{path} > {new}`, then `mv {new} {path}`"


@pytest.mark.parametrize(
    ("data", "line", "reason"),
    [
        (
            LINES.encode("utf-16"),
            1,
            f"{UTF16}, e.g. `iconv -f UTF-16 -t UTF-8 {THEN}",
        ),
        (
            LINES.replace("é", "e").encode("utf-16-be"),
            1,
            f"{UTF16}, e.g. `iconv -f UTF-16BE -t UTF-8 {THEN}",
        ),
        (LINES.encode() + LINES.replace("é", "e").encode("utf-16-le"), 3, f"{UTF16}: lines from"),
        (
            LINES.encode("utf-8-sig"),
            1,
            "starts with a UTF-8 byte order mark (BOM), which JSON does not allow (an editor "
            "saving as 'UTF-8 with BOM' writes one): re-save the file as UTF-8 without it",
        ),
        (LINES.encode() + LINES.encode("utf-8-sig"), 3, "starts with a UTF-8 byte order mark"),
        (LINES.encode("latin-1"), 2, "not UTF-8 text (byte 0xe9 at column 14)"),
    ],
    ids=["utf-16", "utf-16be", "added-utf-16", "bom", "bom-inside", "latin-1"],
)
def test_a_script_in_another_encoding_is_named_with_its_line(
    tmp_path: Path, data: bytes, line: int, reason: str
) -> None:
    # UTF-16 was "not UTF-8 text (invalid start byte at byte 0)", a BOM "invalid JSON"
    path = tmp_path / "script.jsonl"
    path.write_bytes(data)
    with pytest.raises(ScriptFormatError) as caught:
        ScriptBehavior.from_file(path)
    new = path.with_name("script.utf8.jsonl")
    assert str(caught.value).startswith(f"{path}:{line}: {reason.format(path=path, new=new)}")
    assert caught.value.line == line


def test_a_script_with_lone_cr_line_ends_is_refused_as_the_store_refuses_it(
    tmp_path: Path,
) -> None:
    # It was read, where docs/cli.md says lone CR line ends are refused, as the fixture
    # store, eval cases and pyproject.toml refuse them.
    path = tmp_path / "script.jsonl"
    path.write_bytes(LINES.replace("\n", "\r").encode())
    with pytest.raises(ScriptFormatError) as caught:
        ScriptBehavior.from_file(path)
    fixed = path.with_name("script.fixed.jsonl")
    assert str(caught.value) == (
        f"{path}:1: {line_encoding_reason(path.read_bytes(), str(path), 1)}"
    )
    assert "lone carriage return (CR) where a newline (LF) is expected" in str(caught.value)
    assert f"`mv {fixed} {path}`" in str(caught.value)
    path.write_bytes(LINES.replace("\n", "\r\n").encode())  # CRLF is read, as in a store
    assert [r.text for r in ScriptBehavior.from_file(path).responses] == ["hi", "Café"]
