"""``verify --repair`` of the temporary files interrupted writes leave, under the lock
their writers take: a backup's, a fixture file's of a store without interface versions;
a dot file of another shape is a person's, left alone; what is done is said as it is done."""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner

from replaygate import Fixture, FixtureStore, Message, ModelResponse
from replaygate.cli import main
from replaygate.fixtures.fixture import make_meta
from test_store_stray_files import fixture, to_anthropic_request, to_anthropic_response
from test_verify_repair_folder import folder_store, snapshot

MOVED = "moved aside a temporary file of an interrupted write (backup: {backup})"


def verify(*args: str) -> tuple[int, list[str]]:
    result = CliRunner().invoke(main, ["verify", *args])
    return result.exit_code, result.output.splitlines()


def jsonl_store(root: Path, *questions: str) -> None:
    with FixtureStore.open(root) as store:
        for question in questions:
            store.put(fixture(question))


def locks(top: Path) -> list[str]:
    """The lock files under ``top``, by their paths below it."""
    return sorted(str(path.relative_to(top)) for path in top.rglob("*.lock"))


@pytest.mark.parametrize("layout", ["file", "folder"])
def test_the_temporary_files_of_interrupted_backup_writes_are_moved_aside(
    tmp_path: Path, layout: str
) -> None:
    store = tmp_path / "fixtures" / "test_x.jsonl" if layout == "folder" else tmp_path / "s.jsonl"
    store.parent.mkdir(exist_ok=True)
    jsonl_store(store, "one", "two")
    data = store.read_bytes()
    store.with_name(store.name + ".bak").write_bytes(data)  # an earlier backup
    # a prune, compact or repair killed while writing the next backups
    temporary = [store.with_name(f".{store.name}.bak1.4242.tmp")]
    temporary.append(store.with_name(f".{store.name}.bak.4243.tmp"))
    for tmp in temporary:
        tmp.write_bytes(data[:30])
    code, lines = verify(str(store.parent if layout == "folder" else store), "--repair")
    backups = [tmp.with_name(tmp.name + ".bak") for tmp in temporary]
    assert (code, lines[:-1]) == (
        0,
        [
            f"{tmp}: {MOVED.format(backup=backup)}"
            for tmp, backup in sorted(zip(temporary, backups, strict=True))
        ],
    )
    assert all(backup.read_bytes() == data[:30] for backup in backups)
    # each under the lock of the file backed up, not in a folder named after the backup
    assert store.with_name(store.name + ".bak").read_bytes() == data
    assert not store.with_name(store.name + ".bak1").exists()
    assert locks(store.parent) == [f"{store.name}.lock"]


def test_the_repairs_done_are_named_when_a_later_file_fails(tmp_path: Path) -> None:
    root = tmp_path / "fixtures"
    root.mkdir()
    first, second = root / "test_a.jsonl", root / "test_b.jsonl"
    jsonl_store(first, "one")
    jsonl_store(second, "two")
    tmp = first.with_name(f".{first.name}.4242.tmp")
    tmp.write_bytes(first.read_bytes()[:30])
    with second.open("ab") as handle:
        handle.write(b'{"key": "ab')  # an append cut short
    os.unlink(f"{second}.lock")
    os.mkdir(f"{second}.lock")  # its lock cannot be taken
    code, lines = verify(str(root), "--repair")
    backup = tmp.with_name(tmp.name + ".bak")
    assert code == 2
    assert lines[0] == f"{tmp}: {MOVED.format(backup=backup)}"
    assert lines[1].startswith("Error: ") and f"{second}.lock" in lines[1]
    assert backup.exists() and not tmp.exists()


@pytest.mark.parametrize("layout", ["file", "folder"])
def test_a_dot_file_ending_in_tmp_not_written_by_a_store_is_left_alone(
    tmp_path: Path, layout: str
) -> None:
    # A name ending in .<digits>.tmp was taken for a leftover whatever it replaced, and
    # removed by the next open (show, run, a replay): a person's .notes.2026.tmp, or the
    # temporary file of another tool writing draft.txt beside a fixture.
    if layout == "folder":
        root = tmp_path / "fixtures"
        fixture_file = folder_store(root, "one", "two")[0]
        notes = [root / ".notes.tmp", root / ".draft.json.tmp", root / ".notes.2026.tmp"]
        notes += [fixture_file.with_name(".draft.txt.1.tmp"), root / ".a.json.bak.1.tmp"]
    else:
        root = tmp_path / "fixtures.jsonl"
        jsonl_store(root, "one", "two")
        notes = [tmp_path / ".fixtures.jsonl.notes.tmp", tmp_path / ".fixtures.jsonl.notes.7.tmp"]
    for note in notes:
        note.write_text("my notes\n")
    before = snapshot(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no LeftoverTempWarning: nothing is removed
        with FixtureStore.open(root) as store:
            assert len(store) == 2
    assert verify(str(root)) == (0, ["2 fixture(s) checked, 0 problem(s)"])
    assert verify(str(root), "--repair") == (0, ["2 fixture(s) checked, 0 problem(s)"])
    assert snapshot(tmp_path) == before


def bare(question: str, layout: str) -> Fixture:
    """A fixture whose meta names its interface but no version (kept in a folder named
    after the interface alone), or one without meta (kept at the root of its store)."""
    request = to_anthropic_request([Message.user(question)], [], model="m", max_tokens=8)
    response = to_anthropic_response(ModelResponse(text="a"), model="m")
    meta = make_meta("anthropic.messages", "", "hand") if layout == "unversioned" else None
    return Fixture.create(request, [response], meta)


@pytest.mark.parametrize("damage", ["truncated", "temporary"])
@pytest.mark.parametrize("layout", ["unversioned", "store named with @"])
def test_a_repair_in_a_folder_store_takes_its_writers_lock(
    tmp_path: Path, damage: str, layout: str
) -> None:
    root = tmp_path / ("fixtures" if layout == "unversioned" else "fixtures@2")
    with FixtureStore.open(root) as store:
        written = [store.put(bare(question, layout)).file for question in ("one", "two")]
    assert locks(tmp_path) == [f"{root.name}/.replaygate.lock"]
    file = written[1]
    if damage == "truncated":
        file.write_bytes(file.read_bytes()[:40])
    else:
        file.with_name(f".{file.name}.4242.tmp").write_bytes(file.read_bytes()[:40])
    code, lines = verify(str(root), "--repair", "--allow-missing-meta")
    assert code == (1 if layout == "unversioned" else 0), lines  # its empty version is named
    assert "moved aside" in lines[0]
    assert locks(tmp_path) == [f"{root.name}/.replaygate.lock"]  # the writers' lock, none other


def test_a_command_opening_a_store_says_in_a_line_which_leftovers_it_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Shown as Python shows a warning, it named replaygate's source file, a line number
    # and the code there: "replay_cmds.py:225: LeftoverTempWarning: removed ...".
    root = tmp_path / "fixtures"
    (file,) = folder_store(root, "one")
    tmp = file.with_name(f".{file.name}.4242.tmp")
    tmp.write_bytes(file.read_bytes()[:40])
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(main, ["show", fixture("one").key, "--fixtures", "fixtures"])
    assert done.exit_code == 0, done.output
    assert done.stderr == (
        "warning: removed 1 temporary file(s) left by an interrupted write: "
        f"{tmp.relative_to(tmp_path)}\n"
    )
    assert not tmp.exists()
