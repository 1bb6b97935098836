"""Stores from the real world: each hostile file is a clear error naming it, never a hang.

A folder where a file is expected, a FIFO, a symlink loop, a device, an unreadable
file, a line over the maximum size, JSON nested 10,000 deep, NaN and Infinity, a meta
value that would name a folder outside the store; a full disk and a read-only folder.
"""

from __future__ import annotations

import errno
import io
import os
import sys
import tracemalloc
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from deadline import finishes
from replaygate import Fixture, FixtureFormatError, FixtureStore, Message, ReplayModel
from replaygate.cli import main
from replaygate.errors import FixtureMismatchError, StoreWriteError
from replaygate.fixtures.fixture import make_meta
from replaygate.fixtures.store import files, record_response
from replaygate.hygiene import verify_segments
from replaygate.hygiene.verify import verify_store
from replaygate.models.replay import RequestSettings
from wire_shapes import EMPTY_ANSWER as RESPONSE

REQUEST = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]}
META = make_meta("anthropic.messages", "2023-06-01", "hand", recorded_at="2025-01-01T00:00:00Z")
GOOD = Fixture.create(REQUEST, [RESPONSE], META)
RUN = ["run", "--agent", "json:dumps", "--model", "m", "--max-tokens", "8"]


def _at(name: str, make: Callable[[Path], object]) -> Callable[[Path], Path]:
    """A maker of the hostile path ``<tmp>/<name>``, made by ``make(path)``."""

    def made(tmp: Path) -> Path:
        make(tmp / name)
        return tmp / name

    return made


def _loop_in_folder(tmp: Path) -> Path:
    folder = tmp / "store"
    folder.mkdir()
    (folder / "a.jsonl").symlink_to(folder / "b.jsonl")
    (folder / "b.jsonl").symlink_to(folder / "a.jsonl")
    return folder


def _dangling_in_folder(tmp: Path) -> Path:
    folder = tmp / "store"
    folder.mkdir()
    (folder / "a.jsonl").write_bytes(GOOD.to_line())
    (folder / "b.jsonl").symlink_to(tmp / "moved.jsonl")
    return folder


def _fifo_in_folder(tmp: Path) -> Path:
    folder = tmp / "store"
    folder.mkdir()
    os.mkfifo(folder / "a.jsonl")
    return folder


HOSTILE: dict[str, Callable[[Path], Path]] = {
    "folder where a file is expected": _at("store.jsonl", Path.mkdir),
    "FIFO": _at("store.jsonl", os.mkfifo),
    "FIFO without a suffix": _at("pipe", os.mkfifo),
    "symlink loop": _at("store.jsonl", lambda path: path.symlink_to(path)),
    "symlink loop in a folder store": _loop_in_folder,
    "FIFO in a folder store": _fifo_in_folder,
    "dangling symlink": _at("store.jsonl", lambda path: path.symlink_to(path.with_name("gone"))),
    "dangling symlink in a folder store": _dangling_in_folder,
    "/dev/zero": lambda _: Path("/dev/zero"),
    "/dev/null": lambda _: Path("/dev/null"),
}


@pytest.mark.parametrize("make", HOSTILE.values(), ids=list(HOSTILE))
def test_a_path_that_is_not_a_regular_file_is_refused_at_once(
    tmp_path: Path, make: Callable[[Path], Path]
) -> None:
    path = make(tmp_path)
    raised = finishes(lambda: FixtureStore.open(path).close(), seconds=2.0)
    assert isinstance(raised, FixtureFormatError), raised
    assert raised.file.startswith(str(path))
    _, problems = verify_store(path)
    assert problems and all(p.refused for p in problems)


@pytest.mark.parametrize("make", HOSTILE.values(), ids=list(HOSTILE))
def test_the_cli_exits_2_on_a_hostile_store_without_a_traceback(
    tmp_path: Path, make: Callable[[Path], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = make(tmp_path)
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    for args in (
        ["verify", str(path)],
        ["show", GOOD.key, "--fixtures", str(path)],
        [*RUN, "--fixtures", str(path), "hi"],
        ["checksum", str(path)],
        ["compact", str(path)],
    ):
        done = runner.invoke(main, args)
        assert done.exit_code == 2, (args, done.output)
        assert isinstance(done.exception, SystemExit), done.exception
        assert str(path) in done.output and "Traceback" not in done.output


UNREAD_JSON: dict[str, Callable[[Path], object]] = {
    "FIFO": os.mkfifo,
    "symlink loop": lambda path: path.symlink_to(path),
    "link to /dev/zero": lambda path: path.symlink_to("/dev/zero"),
}


@pytest.mark.parametrize("make", UNREAD_JSON.values(), ids=list(UNREAD_JSON))
def test_a_one_fixture_file_refused_unread_is_refused_as_a_jsonl_file_is(
    tmp_path: Path, make: Callable[[Path], object], monkeypatch: pytest.MonkeyPatch
) -> None:
    # verify reported such a .json file as damaged content it had read (exit 1, refused
    # false), where the same file named .jsonl is refused unread (exit 2).
    folder = tmp_path / "store" / "anthropic.messages@2023-06-01"
    folder.mkdir(parents=True)
    (folder / f"{GOOD.key}.json").write_bytes(GOOD.to_pretty())
    make(folder / "aaaaaaaaaaaa.json")
    _, problems = verify_store(tmp_path / "store")
    assert [(Path(p.file).name, p.refused) for p in problems] == [("aaaaaaaaaaaa.json", True)]
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(main, ["verify", "store"])
    assert done.exit_code == 2 and isinstance(done.exception, SystemExit), done.output
    assert done.output.startswith("store/anthropic.messages@2023-06-01/aaaaaaaaaaaa.json: ")


def test_show_run_and_checksum_on_a_store_that_is_not_there_say_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Opened, a missing store is an empty one: "no fixture with key" (show) and a miss
    # in a store of 0 fixtures (run) hid the typo.
    monkeypatch.chdir(tmp_path)
    for name in ("nope.jsonl", "nope"):
        for args in (
            ["show", GOOD.key, "--fixtures", name],
            [*RUN, "--fixtures", name, "hi"],
            ["checksum", name],
        ):
            done = CliRunner().invoke(main, args)
            assert done.exit_code == 2 and isinstance(done.exception, SystemExit), done.output
            said = (
                f"Error: no fixtures at {name}: record them first (`replaygate record"
                if args[0] == "run"
                else f"Error: {name}: no such file or folder"
            )
            assert said in done.output
            assert "no fixture with key" not in done.output
    (tmp_path / "loop").symlink_to(tmp_path / "loop")  # click's own check said "does not exist"
    for command in ("checksum", "compact", "verify"):
        done = CliRunner().invoke(main, [command, "loop"])
        assert done.exit_code == 2 and "Error: loop: is a symlink loop" in done.output, done.output


def test_a_store_under_a_file_or_a_symlink_to_nothing_is_named_so_not_sent_to_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # run and a replay's miss said to record it first, and the recording then refused it
    monkeypatch.chdir(tmp_path)
    Path("notes.txt").write_text("my notes\n")
    Path("gone").symlink_to("nowhere")
    for folder, kind in [("notes.txt", "a file"), ("gone", "a symlink to 'nowhere', which")]:
        store = f"{folder}/rc.jsonl"
        done = CliRunner().invoke(main, [*RUN, "--fixtures", store, "hi"])
        assert done.exit_code == 2, done.output
        assert done.output.startswith(
            f"Error: {store}: no fixture store can be there: {folder} is {kind}"
        ), done.output
        with pytest.raises(FixtureMismatchError, match="none can be recorded there") as missed:
            ReplayModel(store, model="m", max_tokens=8).complete([Message.user("hi")], [])
        assert f"{folder} is {kind}" in str(missed.value) and "record it" not in str(missed.value)


def test_a_store_whose_name_no_file_system_holds_is_named_so_not_sent_to_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # run and a replay's miss said to record it first; the recording then failed with
    # "File name too long"
    monkeypatch.chdir(tmp_path)
    most = os.pathconf(tmp_path, "PC_NAME_MAX")
    store = "a" * most + ".jsonl"
    told = f"a name in it is {most + 6:,} bytes long (aaaaaaaaaaaaaaaaaaaaaaaa...), longer"
    done = CliRunner().invoke(main, [*RUN, "--fixtures", store, "hi"])
    assert done.exit_code == 2 and told in done.output, done.output
    assert "record them first" not in done.output
    with pytest.raises(ValueError, match="bytes long") as refused:  # opening it tracebacked
        ReplayModel(store, model="m", max_tokens=8).complete([Message.user("hi")], [])
    assert str(refused.value).startswith(f"store: {store}: {told}")
    done = CliRunner().invoke(main, [*RUN, "--fixtures", "a" * (most - 6) + ".jsonl", "hi"])
    assert "record them first" in done.output  # a name the file system holds


CASSETTE = "interactions: []\nversion: 1\n"


def test_a_store_named_as_a_cassette_is_refused_before_anything_is_read_or_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Opened, a missing cass.yaml became a folder store of that name, and an existing one
    # was read as a .jsonl file ("not JSON" at line 1).
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cass.yaml").write_text(CASSETTE)
    for name in ("cass.yaml", "new.YML"):
        with pytest.raises(FixtureFormatError) as caught:
            FixtureStore.open(name)
        assert caught.value.file == name and caught.value.line == 0
        assert "named as a cassette" in caught.value.reason
        assert "replaygate import-cassettes" in caught.value.reason
    record = ["record", *RUN[1:], "--simulator", "--approve-live"]
    for args in (
        ["show", GOOD.key, "--fixtures", "cass.yaml"],
        [*RUN, "--fixtures", "cass.yaml", "hi"],
        [*record, "--fixtures", "new.yml", "hi"],
    ):
        done = CliRunner().invoke(main, args)
        assert done.exit_code == 2 and isinstance(done.exception, SystemExit), done.output
        assert "is named as a cassette, not a fixture store" in done.output, done.output
    assert sorted(path.name for path in tmp_path.iterdir()) == ["cass.yaml"]
    assert (tmp_path / "cass.yaml").read_text() == CASSETTE


@pytest.mark.parametrize(
    ("make", "what"),
    [
        (HOSTILE["symlink loop"], "is a symlink loop, where a fixture file is expected"),
        (_at("store", lambda path: path.symlink_to(path)), "is a symlink loop"),
        (HOSTILE["dangling symlink"], "is a symlink to"),
    ],
    ids=["symlink loop", "symlink loop without a suffix", "dangling symlink"],
)
def test_patrol_and_drift_name_a_symlink_loop_instead_of_no_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make: Callable[[Path], Path], what: str
) -> None:
    path = make(tmp_path)
    good = tmp_path / "good.jsonl"
    good.write_bytes(GOOD.to_line())
    monkeypatch.chdir(tmp_path)
    for args in (
        ["patrol", str(path)],
        ["drift", str(path), "--against", str(good)],
        ["drift", str(good), "--against", str(path)],
    ):
        done = CliRunner().invoke(main, args)
        assert done.exit_code == 2 and isinstance(done.exception, SystemExit), done.output
        assert f"Error: {path}: {what}" in done.output, (args, done.output)
        assert "no fixture store" not in done.output


def test_an_unreadable_file_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Tests run as root, where chmod 000 does not stop reads: the refusal is mocked.
    path = tmp_path / "store.jsonl"
    path.write_bytes(GOOD.to_line())
    real_open = os.open

    def deny(file: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if Path(file) == path:
            raise PermissionError(errno.EACCES, "Permission denied", str(file))
        return real_open(file, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", deny)
    with pytest.raises(FixtureFormatError, match="Permission denied") as err:
        FixtureStore.open(path)
    assert err.value.file == str(path)
    _, problems = verify_store(path)
    assert [p.refused for p in problems] == [True]


def test_a_folder_of_a_store_that_cannot_be_listed_is_refused_not_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As root nothing is unlistable: the refusal is mocked, as for files above. Skipping
    # the folder would leave its fixtures out of verify, checksum and every lookup.
    store = tmp_path / "fixtures"
    FixtureStore.open(store).put(GOOD)
    (hidden,) = (folder for folder in store.iterdir() if folder.is_dir())
    for name in ("scandir", "listdir"):  # os.walk lists with the first, the store the second
        real = getattr(os, name)

        def deny(path: Any = ".", real: Callable[[Any], Any] = real) -> Any:
            if Path(path) == hidden:
                raise PermissionError(errno.EACCES, "Permission denied", str(path))
            return real(path)

        monkeypatch.setattr(os, name, deny)
    with pytest.raises(FixtureFormatError) as err:
        FixtureStore.open(store)
    assert (err.value.file, err.value.reason) == (
        str(hidden),
        "cannot read this folder: Permission denied",
    )
    _, problems = verify_store(store)
    assert [(p.file, p.refused) for p in problems] == [(str(hidden), True)]
    for args in (["verify", str(store)], ["checksum", str(store)]):
        done = CliRunner().invoke(main, args)
        assert done.exit_code == 2, (args, done.output)
        assert str(hidden) in done.output and "Traceback" not in done.output


def test_a_line_far_over_the_maximum_is_refused_without_being_held_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The maximum is lowered to 1 MiB and the line is 32 MiB (with the shipped maximum of
    32 MiB, a 100 MB line meant reading about 100 MB of zero bytes): four times what the
    store's scan reads at once, and cut by verify into segments of 1 MiB, each looking
    for a line end that never comes."""
    limit = 1 << 20
    for module in (files, verify_segments):
        monkeypatch.setattr(module, "MAX_LINE_BYTES", limit)
    monkeypatch.setattr(verify_segments, "SEGMENT_BYTES", limit)
    size = 32 * limit
    path = tmp_path / "store.jsonl"
    with path.open("wb") as handle:
        handle.write(GOOD.to_line())
        handle.truncate(size)  # sparse: a second line of zero bytes to the end
    assert len(verify_segments.file_segments(str(path))) == 1  # looked for line ends: none
    tracing = tracemalloc.is_tracing()
    if not tracing:
        tracemalloc.start()
    tracemalloc.reset_peak()
    try:
        with pytest.raises(FixtureFormatError, match="longer than the maximum of 1,048,576") as err:
            FixtureStore.open(path)
        _, problems = verify_store(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        if not tracing:
            tracemalloc.stop()
    assert (err.value.file, err.value.line) == (str(path), 2)
    assert [(p.line, p.refused) for p in problems] == [(2, True)]
    assert peak < size * 3 // 4, f"{peak:,} bytes held at once"


@pytest.mark.parametrize("where", ["jsonl", "json"])
def test_the_maximum_line_size_holds_inside_a_chunk_and_for_one_file_fixtures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    monkeypatch.setattr(files, "MAX_LINE_BYTES", 1024)
    big = Fixture.create(REQUEST, [{**RESPONSE, "id": "x" * 2000}], META)
    if where == "jsonl":
        path = tmp_path / "store.jsonl"
        path.write_bytes(GOOD.to_line() + big.to_line() + GOOD.to_line())
        line = 2
    else:
        path = tmp_path / "store"
        path.mkdir()
        (path / "big.json").write_bytes(big.to_pretty())
        line = 0
    with pytest.raises(FixtureFormatError, match="longer than the maximum of 1,024") as err:
        FixtureStore.open(path)
    assert err.value.line == line


@pytest.mark.parametrize(
    "text",
    [
        b'{"key":"%s","request":' + b'{"a":' * 10_000 + b"1" + b"}" * 10_000 + b',"response":{}}',
        b'{"key":"%s","request":{"n":' + b"[" * 10_000 + b"]" * 10_000 + b'},"response":{}}',
        b'{"key":"%s","request":{"max_tokens":NaN},"response":{}}',
        b'{"key":"%s","request":{"max_tokens":Infinity},"response":{}}',
        b'{"key":"%s","request":{"max_tokens":-Infinity},"response":{}}',
        b'{"key":"%s","request":{},"response":{"x":1e999}}',
    ],
    ids=["objects 10,000 deep", "lists 10,000 deep", "NaN", "Infinity", "-Infinity", "1e999"],
)
def test_deep_nesting_and_non_finite_numbers_are_refused_with_file_and_line(
    tmp_path: Path, text: bytes
) -> None:
    path = tmp_path / "store.jsonl"
    path.write_bytes(GOOD.to_line() + text.replace(b"%s", b"k" * 12) + b"\n")
    with pytest.raises(FixtureFormatError) as err:
        FixtureStore.open(path)
    assert (err.value.file, err.value.line) == (str(path), 2)
    _, problems = verify_store(path, require_meta=False)
    assert [p.line for p in problems] == [2]
    done = CliRunner().invoke(main, ["show", GOOD.key, "--fixtures", str(path)])
    assert done.exit_code == 2 and f"{path}:2" in done.output


CAFE_REQUEST = {**REQUEST, "messages": [{"role": "user", "content": "café"}]}
CAFE = Fixture.create(CAFE_REQUEST, [RESPONSE], META)
UTF16 = "not UTF-8 text (it looks like UTF-16: re-save the file as UTF-8)"
LATIN1_AT = CAFE.to_line().decode().encode("latin-1").index(b"\xe9") + 1
DIGITS = GOOD.to_line().replace(b'"max_tokens":8', b'"max_tokens":' + b"9" * 5000)
DIGITS_AT = DIGITS.index(b"9" * 10) + 1
TOO_LARGE = f"number too large to read exactly at column {DIGITS_AT}: " + "9" * 24 + "... (5,000"


@pytest.mark.parametrize(
    ("content", "line", "reason"),
    [
        (CAFE.to_line().decode().encode("utf-16"), 1, UTF16),
        (CAFE.to_line().decode().encode("utf-16-le"), 1, UTF16),
        (CAFE.to_line().decode().strip().encode("utf-16"), 1, UTF16),  # not a partial tail
        (
            GOOD.to_line() + CAFE.to_line().decode().encode("latin-1"),
            2,
            f"not UTF-8 text (byte 0xe9 at column {LATIN1_AT})",
        ),
        (GOOD.to_line() + DIGITS, 2, TOO_LARGE),
        (b"\xef\xbb\xbf" + CAFE.to_line(), 1, "starts with a UTF-8 byte order mark (BOM)"),
    ],
    ids=[
        "UTF-16",
        "UTF-16 without a BOM",
        "UTF-16 without a newline",
        "Latin-1",
        "5,000 digits",
        "UTF-8 with a BOM",
    ],
)
def test_text_that_is_not_utf8_and_a_number_too_large_are_named_as_such(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: bytes, line: int, reason: str
) -> None:
    path = tmp_path / "store.jsonl"
    path.write_bytes(content)
    with pytest.raises(FixtureFormatError) as err:
        FixtureStore.open(path)
    assert (err.value.file, err.value.line) == (str(path), line)
    assert err.value.reason.startswith(reason), err.value.reason
    _, problems = verify_store(path, require_meta=False)
    assert [(p.line, p.reason[: len(reason)]) for p in problems][:1] == [(line, reason)]
    assert all(not p.repairable for p in problems), problems
    monkeypatch.chdir(tmp_path)
    for args in (
        ["verify", str(path)],
        ["show", GOOD.key, "--fixtures", str(path)],
        [*RUN, "--fixtures", str(path), "hi"],
    ):
        done = CliRunner().invoke(main, args)
        assert done.exit_code in (1, 2) and isinstance(done.exception, SystemExit), done.output
        assert f"{path}:{line}: {reason}" in done.output, (args, done.output)
        assert "orjson" not in done.output and "double" not in done.output


def test_a_line_break_typed_into_a_text_is_named_with_where_its_string_opens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A response's text given a line break by hand was 'malformed JSON: unexpected end of
    # data at column N', where nothing said the line ended inside a string.
    line = CAFE.to_line()
    cut = line.index(b"caf") + 2
    monkeypatch.chdir(tmp_path)
    Path("s.jsonl").write_bytes(GOOD.to_line() + line[:cut] + b"\n" + line[cut:])
    opens = line[:cut].decode().rindex('"') + 1
    said = f"s.jsonl:2: the line ends inside the string that opens at column {opens}: a line"
    for args in (["verify", "s.jsonl"], ["show", GOOD.key, "--fixtures", "s.jsonl"]):
        done = CliRunner().invoke(main, args)
        assert done.exit_code in (1, 2) and said in done.output, done.output
    _, problems = verify_store(Path("s.jsonl"), require_meta=False)
    assert [(p.line, p.repairable) for p in problems][:1] == [(2, False)]
    Path("s.jsonl").write_bytes(GOOD.to_line() + line[:cut])  # a last line: a cut append
    _, problems = verify_store(Path("s.jsonl"), require_meta=False)
    assert [(p.line, p.repairable) for p in problems] == [(2, True)]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_a_store_saved_as_utf16_is_one_problem_with_no_crash_advice(
    tmp_path: Path, encoding: str
) -> None:
    path = tmp_path / "store.jsonl"
    text = (GOOD.to_line() + CAFE.to_line()).decode()
    path.write_bytes(text.encode(encoding))
    count, problems = verify_store(path, require_meta=False)
    assert (count, [p.line for p in problems]) == (0, [1])
    assert problems[0].reason.startswith(UTF16)
    path.write_bytes(GOOD.to_line() + CAFE.to_line().decode().encode(encoding))  # appended
    count, problems = verify_store(path, require_meta=False)
    assert (count, [p.line for p in problems]) == (1, [2])
    assert problems[0].reason.startswith(UTF16)
    done = CliRunner().invoke(main, ["verify", str(path)])
    assert done.exit_code == 1 and "NUL" not in done.output, done.output


def test_a_one_fixture_file_that_is_not_utf8_names_the_line_and_column(tmp_path: Path) -> None:
    folder = tmp_path / "store"
    folder.mkdir()
    pretty = CAFE.to_pretty().decode()
    file = folder / "cafe.json"
    file.write_bytes(pretty.encode("latin-1"))
    before = pretty[: pretty.index("é")]
    line, column = before.count("\n") + 1, len(before) - before.rfind("\n")
    with pytest.raises(FixtureFormatError) as err:
        FixtureStore.open(folder)
    assert (err.value.file, err.value.line) == (str(file), 0)
    assert err.value.reason == f"not UTF-8 text (byte 0xe9 at line {line}, column {column})"


@pytest.mark.parametrize(("encoding", "named"), [("utf-16", "UTF-16"), ("utf-32-le", "UTF-32LE")])
def test_a_one_fixture_file_saved_as_utf16_gives_the_commands_that_convert_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, encoding: str, named: str
) -> None:
    # A folder store's .json file saved as UTF-16 was named so without the iconv and mv
    # commands a .jsonl store saved so is given.
    monkeypatch.chdir(tmp_path)
    Path("fold").mkdir()
    Path(f"fold/{CAFE.key}.json").write_bytes(CAFE.to_pretty().decode().encode(encoding))
    done = CliRunner().invoke(main, ["verify", "fold"])
    copy = f"fold/{CAFE.key}.utf8.json"
    said = (
        f"fold/{CAFE.key}.json: not UTF-8 text (it looks like {named[:6]}: re-save the file "
        f"as UTF-8), e.g. `iconv -f {named} -t UTF-8 fold/{CAFE.key}.json > {copy}`, then "
        f"`mv {copy} fold/{CAFE.key}.json`\n"
    )
    assert done.exit_code == 1 and said in done.output, done.output


@pytest.mark.parametrize("field", ["interface", "interface_version"])
@pytest.mark.parametrize("value", ["../../outside", "a/b", "..", ".hidden", "x\x00y", "c:\\x"])
def test_a_meta_value_that_would_name_a_folder_outside_the_store_is_refused(
    tmp_path: Path, field: str, value: str
) -> None:
    folder = tmp_path / "deep" / "store"
    fixture = Fixture.create(REQUEST, [RESPONSE], {**META, field: value})
    store = FixtureStore.open(folder)
    with pytest.raises(FixtureFormatError, match=f"meta.{field}"):
        store.put(fixture)
    assert not tmp_path.joinpath("deep", "outside").exists()
    assert [p.name for p in tmp_path.rglob("*") if p.is_file()] == []
    jsonl = tmp_path / "s.jsonl"
    jsonl.write_bytes(fixture.to_line())
    _, problems = verify_store(jsonl)
    assert any(f"meta.{field}" in p.reason and p.line == 1 for p in problems)


def _store_with_one(tmp_path: Path) -> tuple[FixtureStore, Path, bytes]:
    path = tmp_path / "store.jsonl"
    store = FixtureStore.open(path)
    store.put(GOOD)
    return store, path, path.read_bytes()


def test_a_full_disk_on_append_is_a_clear_error_and_loses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, path, before = _store_with_one(tmp_path)

    def full(fd: int, data: bytes) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", full)
    other = Fixture.create({**REQUEST, "max_tokens": 9}, [RESPONSE], META)
    with pytest.raises(StoreWriteError, match="No space left on device") as err:
        store.put(other)
    assert err.value.file == str(path)
    assert path.read_bytes() == before
    assert FixtureStore.open(path).lookup(REQUEST) == GOOD


def test_a_disk_filling_up_half_way_through_an_append_is_named_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the kernel wrote what fit and the error said only "short write ... 3375 of 5549 bytes"
    store, path, before = _store_with_one(tmp_path)
    real_write, calls = os.write, []

    def fills_up(fd: int, data: bytes) -> int:
        calls.append(len(data))
        if len(calls) == 1:
            return real_write(fd, bytes(data)[:100])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", fills_up)
    other = Fixture.create({**REQUEST, "max_tokens": 9}, [RESPONSE], META)
    with pytest.raises(StoreWriteError, match="cannot write a fixture: No space left on device"):
        store.put(other)
    assert path.read_bytes() == before


def test_a_rewrite_whose_lock_was_removed_while_held_is_refused(tmp_path: Path) -> None:
    # git clean -X removed the ignored lock during a recording: the next writer made a
    # new one and took it at once, and two rewrites of the file ran together, the second
    # keeping nothing of the first
    store, path, before = _store_with_one(tmp_path)
    with store.lock():
        os.unlink(store.lock_path)
        rerecorded = Fixture.create(REQUEST, [{**RESPONSE, "id": "new"}], META)
        with pytest.raises(StoreWriteError, match="removed or replaced while this process held"):
            store.put(rerecorded, replace=True)
    assert path.read_bytes() == before
    assert store.lookup(REQUEST) == GOOD


def test_a_full_disk_on_a_stores_first_write_leaves_no_empty_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "store.jsonl"

    def full(fd: int, data: bytes) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", full)
    with pytest.raises(StoreWriteError, match="No space left on device"):
        FixtureStore.open(path).put(GOOD)
    assert not path.exists()


def test_a_full_disk_on_replace_is_a_clear_error_and_loses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, path, before = _store_with_one(tmp_path)

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(StoreWriteError, match="No space left on device"):
        record_response(store, REQUEST, {**RESPONSE, "id": "new"}, meta=META)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["store.jsonl", "store.jsonl.lock"]
    assert store.lookup(REQUEST) == GOOD


@pytest.mark.parametrize("layout", ["store.jsonl", "store"])
def test_a_read_only_folder_is_a_clear_error_and_loses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: str
) -> None:
    path = tmp_path / layout
    store = FixtureStore.open(path)
    store.put(GOOD)
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    real_open = os.open

    def read_only(file: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT) and str(file).startswith(str(tmp_path)):
            raise PermissionError(errno.EROFS, "Read-only file system", str(file))
        return real_open(file, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", read_only)
    fresh = FixtureStore.open(path)
    other = Fixture.create({**REQUEST, "max_tokens": 9}, [RESPONSE], META)
    with pytest.raises(StoreWriteError, match="Read-only file system"):
        fresh.put(other)
    monkeypatch.undo()
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before
    assert FixtureStore.open(path).lookup(REQUEST) == GOOD


AGENT = """
def ask(model, question):
    from replaygate.models.types import Message

    return model.complete([Message.user(question)], [])
"""


def test_a_damaged_response_in_a_good_store_is_reported_with_file_and_line_when_served(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = RequestSettings(model="m", max_tokens=8)
    good = Fixture.create(settings.build([Message.user("hi")], []), [RESPONSE], META)
    request = settings.build([Message.user("bad")], [])
    damaged = Fixture.create(request, [{"content": 5}], META)
    path = tmp_path / "store.jsonl"
    path.write_bytes(good.to_line() + damaged.to_line())
    model = ReplayModel(FixtureStore.open(path), **asdict(settings))
    assert model.complete([Message.user("hi")], []).stop_reason == "end_turn"
    with pytest.raises(FixtureFormatError) as err:
        model.complete([Message.user("bad")], [])
    assert (err.value.file, err.value.line) == (str(path), 2)
    (tmp_path / "one_call.py").write_text(AGENT, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    args = ["run", "--agent", "one_call:ask", "--model", "m", "--max-tokens", "8"]
    done = CliRunner().invoke(main, [*args, "--fixtures", str(path), "bad"])
    assert done.exit_code == 2 and f"{path}:2" in done.output, done.output


def test_a_store_file_whose_name_is_not_utf8_is_printed_as_on_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Held by Python as a surrogate, the name ended verify with a UnicodeEncodeError on
    # a strict UTF-8 stream (any UTF-8 locale but C.UTF-8; CliRunner's streams are strict).
    folder = tmp_path / "store"
    folder.mkdir()
    name = os.fsdecode(b"caf\xe9.jsonl")
    (folder / name).write_bytes(GOOD.to_line() + b"{broken\n")
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(main, ["verify", "store"])
    assert done.exit_code == 1 and isinstance(done.exception, SystemExit), done.exception
    assert done.stdout_bytes.startswith(b"store/caf\xe9.jsonl:2: malformed JSON")


def test_an_error_naming_a_store_file_whose_name_is_not_utf8_prints_it_as_on_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The Error: line of every command but verify named it with Python's escape of the
    # byte, "store/caf\udce9.jsonl", a name no file has (stderr writes backslash escapes).
    folder = tmp_path / "store"
    folder.mkdir()
    (folder / os.fsdecode(b"caf\xe9.jsonl")).write_bytes(GOOD.to_line() + b"{broken\n")
    monkeypatch.chdir(tmp_path)
    for args in (
        ["show", GOOD.key, "--fixtures", "store"],
        ["patrol", "store"],
        ["compact", "store"],
        ["drift", "store", "--against", "store"],
    ):
        done = CliRunner().invoke(main, args)
        assert done.exit_code == 2 and isinstance(done.exception, SystemExit), done.exception
        assert b"Error: store/caf\xe9.jsonl:2: malformed JSON" in done.stderr_bytes, args
    # what is not a byte of a name (half of a surrogate pair) stays an escape, no error
    text = os.fsdecode(b"caf\xe9 ") + "\ud800"
    assert text.encode("utf-8", "replaygate.as_on_disk") == b"caf\xe9 \\ud800"


def test_a_utf8_name_is_printed_as_on_disk_to_a_stream_of_an_ascii_locale(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # LC_ALL=C holds ü.jsonl as the surrogates of its bytes, which click's own wrapper of
    # an ASCII stream wrote as "??.jsonl": the output changed with the locale
    from replaygate.cli import _names_as_on_disk

    out = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(out, encoding="ascii", errors="strict"))
    _names_as_on_disk()
    click.echo(os.fsencode("ü.jsonl").decode("ascii", "surrogateescape"))
    sys.stdout.flush()
    assert out.getvalue() == "ü.jsonl\n".encode()


@pytest.mark.parametrize("edit", ["usage", "usage.input_tokens", "usage.output_tokens"])
def test_a_response_whose_token_counts_were_deleted_fails_verify_and_replay(
    tmp_path: Path, edit: str
) -> None:
    # Read as 0, the answer cost nothing: an eval's cost fell and its gate passed.
    settings = RequestSettings(model="m", max_tokens=8)
    response: dict[str, Any] = {**RESPONSE, "usage": dict(RESPONSE["usage"])}
    field, _, count = edit.partition(".")
    (response[field] if count else response).pop(count or field)
    path = tmp_path / "store.jsonl"
    request = settings.build([Message.user("hi")], [])
    path.write_bytes(Fixture.create(request, [response], META).to_line())
    done = CliRunner().invoke(main, ["verify", str(path)])
    assert done.exit_code == 1
    invalid = "response is not a valid anthropic.messages response"
    assert f"{path}:1: {invalid}: response.{edit}: missing: " in done.output
    with pytest.raises(FixtureFormatError, match=f"response.{edit}: missing: the API sends it"):
        ReplayModel(FixtureStore.open(path), **asdict(settings)).complete([Message.user("hi")], [])
