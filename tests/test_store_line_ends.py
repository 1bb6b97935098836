"""Only a last line that really stops short is an interrupted append, and only that is repaired.

A last line that fails to parse somewhere else (a typo, with no newline after it) is an
ordinary malformed line; a file whose lines end in a lone carriage return is refused as
such. Neither is offered to ``verify --repair``, which leaves them byte for byte.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from replaygate import FixtureFormatError, FixtureStore
from replaygate.errors import BOM_REASON
from replaygate.fixtures.store import PartialTailError, repair_partial_tail
from replaygate.fixtures.store.compact import compact
from replaygate.fixtures.store.jsonl import read_line
from replaygate.fixtures.store.writing import append_line
from run_cli import replaygate
from test_store import fixture, open_error

STORE = b"".join(fixture(n).to_line() for n in range(3))
LAST = fixture(2).to_line().rstrip(b"\n")
TYPO = LAST.replace(b'"request":{', b'"request":{x', 1)


def repair_keeps(path: Path) -> str:
    """``verify --repair`` on ``path``: it exits 1 and leaves the file as it was."""
    before = path.read_bytes()
    done = replaygate("verify", "--repair", str(path))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "removed a partial tail" not in done.stdout
    assert path.read_bytes() == before
    assert not list(path.parent.glob("*.bak*"))
    return done.stdout


def test_every_cut_of_a_line_is_a_partial_tail() -> None:
    line = fixture(0, "é 😀 ünïcode").to_line().rstrip(b"\n")
    for cut in range(1, len(line)):
        with pytest.raises(PartialTailError):
            read_line(line[:cut], "s.jsonl", 1, complete=False)


def test_a_last_line_with_a_typo_and_no_newline_is_malformed_not_partial(tmp_path: Path) -> None:
    path = tmp_path / "typo.jsonl"
    path.write_bytes(STORE[: -len(LAST) - 1] + TYPO)
    err = open_error(path)
    assert not isinstance(err, PartialTailError)
    assert err.line == 3 and err.reason.startswith("malformed JSON: ")
    assert f"column {TYPO.index(b'x') + 1}" in err.reason
    assert repair_partial_tail(path) is None
    out = repair_keeps(path)
    assert f"{path}:3: malformed JSON" in out and "truncated" not in out


def test_an_append_after_a_typo_names_the_typo(tmp_path: Path) -> None:
    path = tmp_path / "typo.jsonl"
    path.write_bytes(fixture(0).to_line() + TYPO)
    with pytest.raises(FixtureFormatError) as caught:
        append_line(path, fixture(1).to_line())
    assert not isinstance(caught.value, PartialTailError)
    assert caught.value.line == 2 and "malformed JSON" in caught.value.reason
    assert path.read_bytes() == fixture(0).to_line() + TYPO


@pytest.mark.parametrize("count", [-1, 1], ids=["CR only", "one lone CR"])
def test_lone_carriage_returns_are_refused_as_such(tmp_path: Path, count: int) -> None:
    path = tmp_path / "cr.jsonl"
    path.write_bytes(STORE.replace(b"\n", b"\r", count))
    err = open_error(path)
    assert not isinstance(err, PartialTailError)
    assert err.line == 1 and "lone carriage return" in err.reason
    assert "tr '\\r' '\\n'" in err.reason
    assert repair_partial_tail(path) is None
    assert "lone carriage return" in repair_keeps(path)


def test_crlf_line_ends_are_read(tmp_path: Path) -> None:
    path = tmp_path / "crlf.jsonl"
    path.write_bytes(STORE.replace(b"\n", b"\r\n")[:-2])
    assert len(FixtureStore.open(path)) == 3


def line_ends(path: Path) -> set[bytes]:
    """The line ends of ``path``'s lines."""
    return {b"\r\n" if line.endswith(b"\r\n") else line[-1:] for line in path.open("rb")}


def test_writes_into_a_crlf_checkout_end_their_lines_in_crlf(tmp_path: Path) -> None:
    # git's core.autocrlf checks a store out with CRLF line ends: an append, a re-record
    # and compact each wrote an LF line among them, a file of mixed line ends.
    path = tmp_path / "crlf.jsonl"
    path.write_bytes(STORE.replace(b"\n", b"\r\n"))
    store = FixtureStore.open(path)
    store.put(fixture(3))
    store.put(fixture(0, "answered again"), replace=True)
    with store.lock():
        store.add_sample(store.find(fixture(1).request)[0], 1, fixture(1, "two").responses[0])
    assert line_ends(path) == {b"\r\n"}
    assert [done.sample_lines for done in compact(path)] == [1]
    assert line_ends(path) == {b"\r\n"}
    again = FixtureStore.open(path)
    assert again.get(fixture(0).key)[0][1].responses == fixture(0, "answered again").responses
    assert len(again) == 4


def test_a_one_fixture_file_of_a_crlf_checkout_is_written_again_in_crlf(tmp_path: Path) -> None:
    # a re-record or a sample of a folder store's fixture wrote its .json file in LF
    store = FixtureStore.open(tmp_path)
    store.put(fixture(0))
    (file,) = tmp_path.rglob("*.json")
    file.write_bytes(file.read_bytes().replace(b"\n", b"\r\n"))
    store = FixtureStore.open(tmp_path)
    store.put(fixture(0, "answered again"), replace=True)
    with store.lock():
        store.add_sample(store.find(fixture(0).request)[0], 1, fixture(0, "two").responses[0])
    assert line_ends(file) == {b"\r\n"}
    assert FixtureStore.open(tmp_path).get(fixture(0).key)[0][1].responses == (
        fixture(0, "answered again").responses[0],
        fixture(0, "two").responses[0],
    )


def test_a_cut_utf8_character_at_the_end_is_still_a_partial_tail(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    line = fixture(1, "😀").to_line()
    path.write_bytes(fixture(0).to_line() + line[: line.index("😀".encode()) + 2])
    assert isinstance(open_error(path), PartialTailError)
    assert repair_partial_tail(path) is not None
    assert path.read_bytes() == fixture(0).to_line()


ZEROS = b"\0" * 512
"""What a crash can leave at a file's end: its size grown, its data never written."""


@pytest.mark.parametrize(
    "tail", [ZEROS, LAST[:100] + ZEROS], ids=["NUL bytes", "a cut line, then NUL bytes"]
)
def test_a_zero_filled_end_is_a_partial_tail_and_repaired(tmp_path: Path, tail: bytes) -> None:
    path = tmp_path / "s.jsonl"
    good = STORE[: -len(LAST) - 1]
    path.write_bytes(good + tail)
    assert isinstance(open_error(path), PartialTailError)
    with pytest.raises(PartialTailError):
        append_line(path, fixture(5).to_line())  # nothing is appended after it
    done = replaygate("verify", "--repair", str(path))  # its meta is incomplete: exit 1
    assert f"removed a partial tail of {len(tail)} bytes" in done.stdout, done.stdout
    assert "NUL" not in done.stdout and "truncated" not in done.stdout
    assert path.read_bytes() == good
    assert path.with_name("s.jsonl.bak").read_bytes() == good + tail


def test_nul_bytes_inside_the_file_are_named_not_taken_for_utf16(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    first = fixture(0).to_line()
    path.write_bytes(first + ZEROS + b"\n" + LAST[:300] + ZEROS + b"\n" + fixture(1).to_line())
    out = repair_keeps(path)
    tail = "to the end, where a crash leaves data that was never written: delete them"
    assert f"{path}:2: NUL bytes from column 1 {tail}" in out
    assert f"{path}:3: NUL bytes from column 301 {tail}" in out
    assert "UTF-16" not in out


@pytest.mark.parametrize(
    "data",
    [ZEROS + fixture(0).to_line(), b"SQLite format 3\0\x10\0\x01\x01" + bytes(96)],
    ids=["NUL bytes before a line", "a binary file"],
)
def test_nul_bytes_on_both_sides_of_each_byte_are_not_taken_for_utf16(
    tmp_path: Path, data: bytes
) -> None:
    # UTF-16 text holds its NULs in every other byte; `iconv -f UTF-16LE` was advised
    # for the zeros a crash leaves before the next append, and for a database file.
    path = tmp_path / "s.jsonl"
    path.write_bytes(data)
    err = open_error(path)
    assert err.line == 1 and "UTF-16" not in err.reason and "iconv" not in err.reason


def test_a_utf16_file_ending_in_a_newline_is_not_repaired(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(STORE.decode().encode("utf-16-le"))  # its last line: one NUL byte
    assert "UTF-16" in repair_keeps(path)


@pytest.mark.parametrize(
    ("encoding", "named"),
    [("utf-16", "UTF-16"), ("utf-16-le", "UTF-16LE"), ("utf-16-be", "UTF-16BE")],
)
def test_a_utf16_file_with_crlf_line_ends_is_one_utf16_problem(
    tmp_path: Path, encoding: str, named: str
) -> None:
    # Windows PowerShell's Out-File: its CR and the NUL after each newline byte were taken
    # for lone CR line ends (`tr` advised) and for a crash's NUL bytes.
    path = tmp_path / "s.jsonl"
    path.write_bytes(STORE.decode().replace("\n", "\r\n").encode(encoding))
    new = path.with_name("s.utf8.jsonl")
    convert = f"iconv -f {named} -t UTF-8 {path} > {new}`, then `mv {new} {path}`"
    err = open_error(path)
    assert err.line == 1 and "it looks like UTF-16" in err.reason and convert in err.reason
    done = replaygate("verify", str(path))
    assert done.stdout.splitlines() == [
        f"{path}:1: {err.reason}",
        "0 fixture(s) checked, 1 problem(s)",
    ]
    assert "carriage return" not in done.stdout and "NUL" not in done.stdout


def test_lines_appended_in_utf16_are_named_at_the_first(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(STORE + b'{"key": "x"}\r\n'.decode().encode("utf-16-le"))
    done = replaygate("verify", str(path))
    assert done.returncode == 1
    assert f"{path}:4: not UTF-8 text (it looks like UTF-16" in done.stdout
    assert "lines from here on were added in UTF-16" in done.stdout
    assert done.stdout.count("UTF-16") == 2 and "NUL" not in done.stdout


def test_a_bom_in_the_middle_of_a_file_is_named_with_its_line_to_delete(tmp_path: Path) -> None:
    # "re-save the file as UTF-8 without it" kept the U+FEFF: the file starts with none.
    path = tmp_path / "s.jsonl"
    path.write_bytes(STORE + b"\xef\xbb\xbf" + fixture(3).to_line())
    err = open_error(path)
    assert err.line == 4 and "in the middle of the file" in err.reason
    assert f"sed -i '4s/^\\xef\\xbb\\xbf//' {path}" in err.reason
    assert "re-save the file" not in err.reason
    start = tmp_path / "t.jsonl"
    start.write_bytes(b"\xef\xbb\xbf" + STORE)
    assert open_error(start).reason == BOM_REASON  # not also "a fixture cut short"


def test_two_fixtures_joined_on_one_line_are_named_with_the_column(tmp_path: Path) -> None:
    # A store without a final newline concatenated with another.
    path = tmp_path / "s.jsonl"
    first = fixture(0).to_line().rstrip(b"\n")
    path.write_bytes(first + fixture(1).to_line())
    err = open_error(path)
    assert err.line == 1
    assert err.reason == (
        f"two fixtures on one line: a newline is missing at column {len(first) + 1} (a file "
        "without a newline at its end joined to another): put one there"
    )
    path.write_bytes(first + b' "x"\n')  # something else after a fixture: malformed JSON
    assert open_error(path).reason.startswith("malformed JSON: ")


def test_a_comma_after_a_fixture_is_named_with_its_column(tmp_path: Path) -> None:
    # It was "malformed JSON: unexpected content after document": a line edited as an item
    # of a JSON array.
    path = tmp_path / "s.jsonl"
    first = fixture(0).to_line().rstrip(b"\n")
    path.write_bytes(first + b" ,\n" + fixture(1).to_line())
    err = open_error(path)
    assert err.line == 1
    assert err.reason == (
        f"a comma after the fixture, at column {len(first) + 2}: a .jsonl line holds one "
        "fixture and nothing after it (JSON Lines puts no comma between lines, as a JSON "
        "array does between items): delete it"
    )
