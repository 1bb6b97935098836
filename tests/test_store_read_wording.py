"""Messages about a store name what they find as its other messages do: a stored key
holding a control character is escaped (as ``meta.source`` is), ``compact`` words a
symlink to nothing as ``verify`` does, ``--refs`` says what stands where a folder is
expected, and ``verify`` names a file whose name looks meant for the store (a space
after ``.jsonl``, ``.ndjson``) that no store reads."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from replaygate import Fixture, FixtureStore, Message, ModelResponse
from replaygate.fixtures.fixture import make_meta
from replaygate.hygiene.review import review
from replaygate.hygiene.review_report import render_markdown, render_text
from replaygate.hygiene.snapshot import Side
from replaygate.models.providers import to_anthropic_request, to_anthropic_response
from run_cli import replaygate

META = make_meta("anthropic.messages", "2023-06-01", "hand", recorded_at="2025-01-01T00:00:00Z")
DANGLING = "is a symlink to 'nowhere.jsonl', which does not exist, where a fixture file is expected"


def fixture(question: str) -> Fixture:
    request = to_anthropic_request([Message.user(question)], [], model="m", max_tokens=8)
    response = to_anthropic_response(ModelResponse(text="a"), model="m")
    return Fixture.create(request, [response], META)


def with_key(found: Fixture, key: str) -> bytes:
    """The line of ``found`` with its stored key replaced by ``key`` (a hand edit)."""
    edited = found.to_json()
    edited["key"] = key
    return orjson.dumps(edited) + b"\n"


@pytest.mark.parametrize("added", ["\x00", "\u202eX", "\x1b[2J"])
def test_verify_escapes_a_stored_key_holding_a_control_character(
    tmp_path: Path, added: str
) -> None:
    found = fixture("one")
    (tmp_path / "rc.jsonl").write_bytes(with_key(found, found.key + added))
    done = replaygate("verify", "rc.jsonl", cwd=tmp_path)
    assert done.returncode == 1
    shown = repr(found.key + added)
    assert done.stdout.startswith(
        f"rc.jsonl:1: key {shown} does not match its request (expected {found.key}); "
    )
    assert added not in done.stdout


@pytest.mark.parametrize("added", [" ", "\u00a0", "g"])
def test_a_stored_key_with_a_space_or_a_letter_no_key_holds_is_quoted(
    tmp_path: Path, added: str
) -> None:
    # "key fb2202a78099  does not match its request (expected fb2202a78099)": the space an
    # edit left at its end could not be seen, and the two keys read alike
    found = fixture("one")
    (tmp_path / "rc.jsonl").write_bytes(with_key(found, found.key + added))
    done = replaygate("verify", "rc.jsonl", cwd=tmp_path)
    assert done.stdout.startswith(
        f"rc.jsonl:1: key {found.key + added!r} does not match its request (expected {found.key}); "
    )


def test_a_request_recorded_twice_under_a_key_holding_a_control_character_is_escaped(
    tmp_path: Path,
) -> None:
    found = fixture("one")
    other = Fixture.create(
        found.request, [to_anthropic_response(ModelResponse(text="b"), model="m")], META
    )
    edited = found.key + "\x00"
    (tmp_path / "rc.jsonl").write_bytes(found.to_line() + with_key(other, edited))
    verified = replaygate("verify", "rc.jsonl", cwd=tmp_path)
    assert f"request of key {edited!r} recorded twice" in verified.stdout
    shown = replaygate("show", found.key, "--fixtures", "rc.jsonl", cwd=tmp_path)
    assert f"key {edited!r}: the same request is recorded twice" in shown.stderr
    assert "\x00" not in verified.stdout + shown.stderr


def side(label: str, data: bytes) -> Side:
    return Side(label, {"rc.jsonl": label + str(hash(data))}, lambda paths: {"rc.jsonl": data})


def test_diff_escapes_a_stored_key_holding_a_control_character() -> None:
    found = fixture("one")
    edited = found.key + "\x00"
    result = review(
        side("HEAD", found.to_line()), side("working tree", with_key(found, edited)), "rc.jsonl"
    )
    text, markdown = render_text(result), render_markdown(result)
    assert f"key {edited!r} does not match its request (expected {found.key})" in text
    assert f"| `{edited!r}` | expected `{found.key}` |" in markdown
    assert "\x00" not in text + markdown


@pytest.mark.parametrize("check", [False, True])
def test_compact_words_a_symlink_to_nothing_in_a_folder_store_as_verify_does(
    tmp_path: Path, check: bool
) -> None:
    store = tmp_path / "sp"
    store.mkdir()
    (store / "a.jsonl").write_bytes(fixture("one").to_line())
    (store / "dangling.jsonl").symlink_to("nowhere.jsonl")
    verified = replaygate("verify", "sp", cwd=tmp_path)
    assert f"sp/dangling.jsonl: {DANGLING}" in verified.stdout
    done = replaygate("compact", *(["--check"] if check else []), "sp", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == f"Error: sp/dangling.jsonl: {DANGLING}\n"


def _device(refs: Path) -> str:
    return os.devnull


def _file(refs: Path) -> str:
    refs.write_text("print('not a folder')\n")
    return refs.name


def _fifo(refs: Path) -> str:
    os.mkfifo(refs)
    return refs.name


def _dangling(refs: Path) -> str:
    refs.symlink_to("nowhere")
    return refs.name


REFS = {
    "a device": (_device, "is a device, where a folder is expected"),
    "a file": (_file, "is a file, where a folder is expected"),
    "a FIFO": (_fifo, "is a FIFO, where a folder is expected"),
    "a symlink to nothing": (
        _dangling,
        "is a symlink to 'nowhere', which does not exist, where a folder is expected",
    ),
}
"""What ``--refs`` may name instead of a folder: how to make it at a path (the name to
give), and what is said of it."""


@pytest.mark.parametrize("command", [("patrol",), ("prune", "--unused")])
@pytest.mark.parametrize("kind", sorted(REFS))
def test_refs_says_what_stands_where_a_folder_is_expected(
    tmp_path: Path, command: tuple[str, ...], kind: str
) -> None:
    make, reason = REFS[kind]
    named = make(tmp_path / "refs")
    (tmp_path / "rc.jsonl").write_bytes(fixture("one").to_line())
    done = replaygate(*command, "rc.jsonl", "--refs", named, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == f"Error: --refs {named}: {reason}\n"


def test_refs_naming_nothing_says_so(tmp_path: Path) -> None:
    (tmp_path / "rc.jsonl").write_bytes(fixture("one").to_line())
    done = replaygate("patrol", "rc.jsonl", "--refs", "src", cwd=tmp_path)
    assert done.stderr == "Error: --refs src: no such directory\n"


def test_verify_names_a_file_named_as_meant_for_the_store_that_none_reads(
    tmp_path: Path,
) -> None:
    root = tmp_path / "fx"
    with FixtureStore.open(root) as store:
        store.put(fixture("stored"))
    for name in ("rc.jsonl ", "rc.ndjson", "more.NDJSON", "x.jsonlines"):
        (root / name).write_bytes(fixture(name).to_line())
    for name in ("README.md", ".gitkeep", "notes.txt", "data.csv"):
        (root / name).write_text("not fixtures\n")
    done = replaygate("verify", "fx", cwd=tmp_path)
    assert done.returncode == 1
    unread = "which no store reads (fixture files end in .json or .jsonl, lower case)"
    assert done.stdout.splitlines() == [
        f"fx/more.NDJSON: named .NDJSON, {unread}: rename it to more.jsonl, or move it out",
        f"fx/rc.jsonl : named 'rc.jsonl ', {unread}: rename it to rc.jsonl, or move it out",
        f"fx/rc.ndjson: named .ndjson, {unread}: rename it to rc.jsonl, or move it out",
        f"fx/x.jsonlines: named .jsonlines, {unread}: rename it to x.jsonl, or move it out",
        "1 fixture(s) checked, 4 problem(s)",
    ]


def test_a_fixture_file_with_a_space_after_its_name_in_an_interface_folder_is_named(
    tmp_path: Path,
) -> None:
    root = tmp_path / "fx"
    with FixtureStore.open(root) as store:
        placed = store.put(fixture("one")).file
        store.put(fixture("two"))  # a store file is left: a folder of none is refused
    spaced = placed.with_name(placed.name + " ")
    placed.rename(spaced)
    done = replaygate("verify", "fx", cwd=tmp_path)
    assert done.stdout.splitlines()[0].endswith(
        f": named {spaced.name!r}, which no store reads (fixture files end in .json or "
        f".jsonl, lower case): rename it to {placed.name}, or move it out"
    )


def test_a_json_file_of_white_space_alone_is_named_empty(tmp_path: Path) -> None:
    # It was "a line of white space that JSON does not allow (a form feed or a vertical
    # tab)", for a file an editor emptied and saved with its newline.
    with FixtureStore.open(tmp_path / "fx") as store:
        store.put(fixture("one"))
    (tmp_path / "fx" / "notes.json").write_bytes(b"\n")
    done = replaygate("verify", "fx", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stdout.startswith(
        "fx/notes.json: an empty file (white space alone), where a .json file holds one "
        "fixture: restore the fixture it held, or delete it\n"
    )


def test_an_empty_fixture_file_is_a_truncated_one_and_repair_moves_it_aside(
    tmp_path: Path,
) -> None:
    # It was "malformed JSON: Input is a zero-length, empty document at column 1", and
    # verify --repair left it there.
    with FixtureStore.open(tmp_path / "fx") as store:
        kept = store.put(fixture("one")).file
        emptied = store.put(fixture("two")).file
    emptied.write_bytes(b"")
    name = emptied.relative_to(tmp_path)
    done = replaygate("verify", "fx", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stdout.startswith(f"{name}: truncated fixture file (its write was interrupted")
    repaired = replaygate("verify", "--repair", "fx", cwd=tmp_path)
    assert repaired.returncode == 0, repaired.stdout
    assert not emptied.exists() and emptied.with_name(emptied.name + ".bak").read_bytes() == b""
    assert kept.exists()
