"""``verify --repair`` on a folder store: what a crash leaves is moved aside, kept as a
backup and named; what a person wrote (a hand edit, a second file of one request) is
reported and left as it is."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from replaygate import FixtureStore
from replaygate.cli import main
from replaygate.fixtures.store.jsonl import TRUNCATED
from test_store_stray_files import fixture

MOVED = (
    "moved aside a truncated fixture file (backup: {backup}); the fixture it held is lost: "
    "re-record it"
)


def verify(*args: str) -> tuple[int, list[str]]:
    result = CliRunner().invoke(main, ["verify", *args])
    return result.exit_code, result.output.splitlines()


def folder_store(root: Path, *questions: str) -> list[Path]:
    """A folder store at ``root`` recorded as a recorder writes it; its fixture files."""
    with FixtureStore.open(root) as store:
        return [store.put(fixture(question)).file for question in questions]


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (dot files too, but the lock) and its bytes."""
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and not path.name.endswith(".lock")
    }


def test_a_store_with_nothing_to_repair_is_left_byte_for_byte(tmp_path: Path) -> None:
    root = tmp_path / "fixtures"
    folder_store(root, "one", "two", "three")
    before = snapshot(root)
    assert verify(str(root), "--repair") == (0, ["3 fixture(s) checked, 0 problem(s)"])
    assert snapshot(root) == before


def cut_short(data: bytes) -> bytes:
    """A fixture file as a crash mid-write leaves it: its first half."""
    return data[: len(data) // 2]


def never_written(data: bytes) -> bytes:
    """A file a crash grew to its size before its data was written: NUL bytes after a part."""
    return data[:40] + b"\0" * (len(data) - 40)


@pytest.mark.parametrize("damage", [cut_short, never_written])
@pytest.mark.parametrize("named", ["store", "file"])
def test_a_truncated_fixture_file_is_moved_aside_and_named(
    tmp_path: Path, damage: Callable[[bytes], bytes], named: str
) -> None:
    root = tmp_path / "fixtures"
    files = folder_store(root, "one", "two", "three")
    whole = snapshot(root)
    crashed = files[1]
    damaged = damage(crashed.read_bytes())
    crashed.write_bytes(damaged)
    code, lines = verify(str(root))
    assert code == 1
    assert lines == [
        f"{crashed}: truncated fixture file (its write was interrupted; the fixture it held is "
        f"lost: re-record it). Run `replaygate verify --repair {crashed}` to move only this "
        "file aside.",
        "2 fixture(s) checked, 1 problem(s)",
    ]
    result = CliRunner().invoke(main, ["verify", str(root), "--json"])
    assert [p["repairable"] for p in json.loads(result.stdout)["problems"]] == [True]

    code, lines = verify(str(root if named == "store" else crashed), "--repair")
    backup = crashed.with_name(crashed.name + ".bak")
    assert code == 0, lines
    left = "2 fixture(s) checked" if named == "store" else "0 fixture(s) checked"
    assert lines == [f"{crashed}: {MOVED.format(backup=backup)}", f"{left}, 0 problem(s)"]
    assert backup.read_bytes() == damaged  # kept as it was
    assert not crashed.exists()
    after = snapshot(root)
    assert after.pop(str(backup.relative_to(root))) == damaged
    assert after == {
        name: data for name, data in whole.items() if name != str(crashed.relative_to(root))
    }
    # the fixture is recorded again beside its backup, and the store verifies clean
    assert folder_store(root, "two") == [crashed]
    assert verify(str(root)) == (0, ["3 fixture(s) checked, 0 problem(s)"])


@pytest.mark.parametrize("layout", ["folder", "jsonl"])
def test_a_temporary_file_of_an_interrupted_write_is_moved_aside(
    tmp_path: Path, layout: str
) -> None:
    if layout == "folder":
        root = tmp_path / "fixtures"
        target = folder_store(root, "one", "two")[0]
    else:
        root = target = tmp_path / "fixtures.jsonl"
        with FixtureStore.open(root) as store:
            store.put(fixture("one"))
    tmp = target.with_name(f".{target.name}.4242.tmp")
    written = target.read_bytes()[:30]
    tmp.write_bytes(written)  # the writer was killed before its rename
    code, lines = verify(str(root), "--repair")
    backup = tmp.with_name(tmp.name + ".bak")
    assert code == 0, lines
    assert lines[0] == (
        f"{tmp}: moved aside a temporary file of an interrupted write (backup: {backup})"
    )
    assert backup.read_bytes() == written and not tmp.exists()


def retyped(file: Path, edit: str) -> None:
    """Edit a fixture file by hand, as a person would."""
    data = json.loads(file.read_bytes())
    if edit == "request":
        data["request"]["max_tokens"] = 99
        file.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    elif edit == "typo":
        text = file.read_text()
        file.write_text(text.replace('"max_tokens": 8,', '"max_tokens": 8', 1))
    else:  # the file of a fixture written by hand, its closing lines deleted
        file.unlink()
        file = file.with_name("greeting.json")
        file.write_text(json.dumps(data, indent=2, sort_keys=True)[:-20])


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        ("request", "does not match its request"),
        ("typo", "malformed JSON"),
        ("cut", "malformed JSON: unexpected end of data"),
    ],
)
def test_a_hand_edited_fixture_is_reported_and_never_repaired(
    tmp_path: Path, edit: str, reason: str
) -> None:
    root = tmp_path / "fixtures"
    files = folder_store(root, "one", "two")
    retyped(files[0], edit)
    before = snapshot(root)
    code, lines = verify(str(root), "--repair")
    assert code == 1  # damaged content: exit 1, as without --repair
    assert len(lines) == 2 and reason in lines[0], lines
    assert "moved aside" not in "\n".join(lines)
    assert snapshot(root) == before  # nothing removed, no backup made


def test_two_files_of_one_request_are_named_and_left(tmp_path: Path) -> None:
    root = tmp_path / "fixtures"
    first = folder_store(root, "one", "two")[0]
    data = json.loads(first.read_bytes())
    data["response"]["content"][0]["text"] = "another answer"
    second = first.with_name(first.stem + "-1.json")
    second.write_bytes(
        orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"
    )
    before = snapshot(root)
    code, lines = verify(str(root), "--repair")
    assert code == 1
    assert lines == [
        f"{first}: request of key {data['key'][:12]} recorded twice with different responses "
        f"(also at {second}); keep one",  # <key>-1.json is read first
        "3 fixture(s) checked, 1 problem(s)",
    ]
    assert snapshot(root) == before


def test_a_truncated_file_in_a_linked_folder_is_left_for_its_own_store(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    crashed = folder_store(shared, "one")[0]
    crashed.write_bytes(cut_short(crashed.read_bytes()))
    root = tmp_path / "fixtures"
    root.mkdir()
    (root / crashed.parent.name).symlink_to(crashed.parent)
    linked = root / crashed.parent.name / crashed.name
    # verify's line said to run --repair on it, which --repair then refused
    by_hand = f"{linked}: {TRUNCATED}; it is reached through a symlink, which `verify --repair`"
    for named in (root, linked):  # the store, or the file alone
        for repairing in ([], ["--repair"]):
            code, lines = verify(str(named), *repairing)
            assert code == 1
            assert lines[0].startswith(by_hand), lines
            assert len(lines) == 2 and "Run `replaygate verify --repair" not in lines[0]
            assert crashed.exists() and not crashed.with_name(crashed.name + ".bak").exists()


def test_a_repair_waits_for_a_writer_half_way_through_its_write(tmp_path: Path) -> None:
    root = tmp_path / "fixtures"
    folder_store(root, "one")
    new = fixture("two")
    with FixtureStore.open(root) as store:
        lock = store.lock()
    folder = next(path for path in root.iterdir() if path.is_dir())
    target = folder / f"{new.key[:12]}.json"
    tmp = folder / f".{target.name}.{os.getpid()}.tmp"
    started, failed = threading.Event(), []

    def writer() -> None:
        """Write ``new`` as a recorder does, under the store's lock, pausing half way."""
        try:
            with lock:
                data = new.to_pretty()
                tmp.write_bytes(data[:50])
                started.set()
                time.sleep(0.1)  # verify --repair finds the temporary file meanwhile
                tmp.write_bytes(data)
                os.replace(tmp, target)
        except OSError as err:
            failed.append(err)

    thread = threading.Thread(target=writer)
    thread.start()
    started.wait()
    try:
        code, lines = verify(str(root), "--repair")
    finally:
        thread.join()
    assert failed == []
    assert (code, lines) == (0, ["2 fixture(s) checked, 0 problem(s)"])
    assert not list(folder.glob("*.bak")) and not list(folder.glob(".*.bak"))
    with FixtureStore.open(root) as store:
        assert store.lookup(new.request) is not None
