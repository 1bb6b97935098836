"""``replaygate prune --unused``: a dry run by default; never a referenced or played fixture."""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from hypothesis import given
from hypothesis import strategies as st

from replaygate.cli import hygiene_cmds, main
from replaygate.fixtures import hits
from replaygate.fixtures.fixture import Fixture, now_iso
from replaygate.fixtures.store import FixtureStore, scan, store_files
from replaygate.hygiene import refs
from replaygate.hygiene.errors import HygieneError
from replaygate.hygiene.patrol import PatrolRow, patrol
from replaygate.hygiene.prune import PruneResult, delete
from run_cli import Done
from test_patrol import EDGES_OF_TIME, play, put, request, response

QUESTIONS = ("played", "referenced", "unused one", "unused two")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tests" / "fixtures").mkdir(parents=True)
    yield tmp_path


def setup_store(project: Path, store: Path) -> dict[str, str]:
    """Four fixtures: one played by a run, one referenced from a test, two unused."""
    keys = {q: put(store, q, "2026-01-01T00:00:00Z") for q in QUESTIONS}
    play(store, "played", project / ".replaygate" / "hits", "20261130T000000Z-0001", project)
    (project / "tests" / "test_pinned.py").write_text(
        f'PINNED = "{keys["referenced"]}"\n', encoding="utf-8"
    )
    return keys


def prune(*args: str) -> Result:
    return CliRunner().invoke(main, ["prune", *args])


def stored_keys(store: Path) -> set[str]:
    with FixtureStore.open(store) as opened:
        return set(opened.keys())


@pytest.mark.parametrize("layout", ["rag.jsonl", "research"])
def test_dry_run_lists_and_deletes_nothing(project: Path, layout: str) -> None:
    store = project / "tests" / "fixtures" / layout
    keys = setup_store(project, store)
    before = {f: f.read_bytes() for f in store_files(store)}
    done = prune(str(store), "--unused")
    assert done.exit_code == 0, done.output
    assert "kept: 1 played, 1 referenced only" in done.output
    assert keys["unused one"] in done.output and keys["unused two"] in done.output
    assert keys["played"] not in done.output and keys["referenced"] not in done.output
    assert "dry run: would delete 2 fixture(s); add --yes to delete" in done.output
    assert {f: f.read_bytes() for f in store_files(store)} == before


def test_a_fixture_recorded_since_the_newest_run_started_is_kept_as_new(project: Path) -> None:
    store = project / "tests" / "fixtures" / "rag.jsonl"
    keys = setup_store(project, store)  # its run started 2026-11-30T00:00:00Z
    since = put(store, "recorded since", "2026-11-30T08:00:00Z")  # by `record`, or pulled
    before = put(store, "recorded before", "2026-11-29T23:59:59Z")
    done = prune(str(store), "--unused")
    assert done.exit_code == 0, done.output
    assert "would delete 3 fixture(s)" in done.output
    # every fixture is accounted for: 6 = 3 listed + 1 played + 1 referenced + 1 new
    assert "kept: 1 played, 1 referenced only, 1 new (recorded after the newest run" in (
        done.output
    )
    assert before in done.output and since not in done.output
    assert keys["unused one"] in done.output
    patrolled = CliRunner().invoke(main, ["patrol", str(store)])
    row = next(line for line in patrolled.output.splitlines() if line.endswith(" new unreferenced"))
    assert row.startswith(f"{store.relative_to(project).as_posix()}:5 ")
    assert "1 recorded after the newest run counted started (new)" in patrolled.output
    summary = json.loads(CliRunner().invoke(main, ["patrol", str(store), "--json"]).output)
    assert summary["summary"]["new"] == 1 and summary["summary"]["unplayed"] == 4


def test_yes_rewrites_a_jsonl_store_after_a_backup(project: Path) -> None:
    store = project / "tests" / "fixtures" / "rag.jsonl"
    keys = setup_store(project, store)
    original = store.read_bytes()
    done = prune(str(store), "--unused", "--yes")
    assert done.exit_code == 0, done.output
    assert "deleted 2 fixture(s)" in done.output
    assert stored_keys(store) == {keys["played"], keys["referenced"]}
    backup = store.with_name("rag.jsonl.bak")
    assert f"backup: {backup}" in done.output
    assert backup.read_bytes() == original
    kept = [line for line in original.splitlines(keepends=True)
            if keys["played"].encode() in line or keys["referenced"].encode() in line]  # fmt: skip
    assert store.read_bytes() == b"".join(kept)
    again = prune(str(store), "--unused", "--yes")
    assert "nothing to prune" in again.output


def test_yes_removes_files_of_a_folder_store(project: Path) -> None:
    store = project / "tests" / "fixtures" / "research"
    keys = setup_store(project, store)
    done = prune(str(store), "--unused", "--yes")
    assert done.exit_code == 0, done.output
    assert stored_keys(store) == {keys["played"], keys["referenced"]}
    assert sorted(f.stem for f in store_files(store)) == sorted(
        [keys["played"], keys["referenced"]]
    )


def test_a_pruned_one_fixture_file_is_kept_as_a_backup_beside_it(project: Path) -> None:
    # it was unlinked, with no backup, where a .jsonl file's fixtures are kept in one
    store = project / "tests" / "fixtures" / "research"
    keys = setup_store(project, store)
    files = {key: next(f for f in store_files(store) if f.stem == key) for key in keys.values()}
    one, two = files[keys["unused one"]], files[keys["unused two"]]
    held = {one: one.read_bytes(), two: two.read_bytes()}
    taken = one.with_name(one.name + ".bak")
    taken.write_bytes(b"an earlier backup")
    done = prune(str(store), "--unused", "--yes")
    assert done.exit_code == 0, done.output
    assert not one.exists() and not two.exists()
    assert one.with_name(one.name + ".bak1").read_bytes() == held[one]
    assert two.with_name(two.name + ".bak").read_bytes() == held[two]
    assert taken.read_bytes() == b"an earlier backup"
    assert f"backup: {one}.bak1" in done.output and f"removed: {two}" in done.output
    assert stored_keys(store) == {keys["played"], keys["referenced"]}
    assert "nothing to prune" in prune(str(store), "--unused", "--yes").output


def test_a_one_fixture_file_named_alone_is_pruned_under_its_folder_stores_lock(
    project: Path,
) -> None:
    # it took a lock of its own, <key>.json.lock, which no writer of the folder store
    # takes, and left it in the interface folder: a file no store reads, for verify
    store = project / "tests" / "fixtures" / "research"
    keys = setup_store(project, store)
    (one,) = [f for f in store_files(store) if f.stem == keys["unused one"]]
    done = prune(str(one), "--unused", "--yes")
    assert done.exit_code == 0, done.output
    assert not one.exists() and one.with_name(one.name + ".bak").exists()
    assert not list(store.rglob("*.json.lock"))
    assert "no store reads it" not in CliRunner().invoke(main, ["verify", str(store)]).output


def test_never_deletes_a_referenced_or_played_fixture(project: Path) -> None:
    store = project / "tests" / "fixtures" / "rag.jsonl"
    keys = setup_store(project, store)
    result = patrol(
        store, runs=5, refs=[project / "tests"], hits_dir=project / ".replaygate" / "hits"
    )
    by_key = {r.key: r for r in result.rows}
    for name in ("played", "referenced"):
        with pytest.raises(HygieneError, match=r"refusing to delete .* it is still") as err:
            delete(store, [by_key[keys["unused one"]], by_key[keys[name]]])
        assert keys[name] in str(err.value)
    assert stored_keys(store) == set(keys.values())
    # a file-level reference to the store file keeps all of its fixtures
    (project / "tests" / "test_rag.py").write_text(
        'STORE = "fixtures/rag.jsonl"\n', encoding="utf-8"
    )
    done = prune(str(store), "--unused", "--yes")
    assert "nothing to prune" in done.output
    assert stored_keys(store) == set(keys.values())


def test_a_reference_in_a_large_file_is_seen_across_its_pieces(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # files over 4 MiB were passed over, and prune --yes deleted the fixtures they name
    monkeypatch.setattr(refs, "PIECE_BYTES", 8192)  # a large file, in small pieces
    monkeypatch.setattr(refs, "OVERLAP_BYTES", 256)
    store = project / "tests" / "fixtures" / "rag.jsonl"
    keys = setup_store(project, store)
    filler = "x = 1  # filler\n" * 2000  # about 32 KB
    for name, at in (("unused one", 8192 - 6), ("unused two", 3 * 8192 + 100)):
        text = filler[:at] + f'"{keys[name]}"' + filler[at:]  # the first across a cut
        (project / "tests" / f"test_{name.split()[1]}.py").write_text(text, encoding="utf-8")
    done = prune(str(store), "--unused", "--yes")
    assert "nothing to prune" in done.output, done.output
    assert stored_keys(store) == set(keys.values())


def _unused(project: Path, store: Path) -> list[PatrolRow]:
    """The rows of ``store`` that patrol finds unused over the project's last five runs."""
    hits = project / ".replaygate" / "hits"
    rows = patrol(store, runs=5, refs=[project / "tests"], hits_dir=hits).rows
    return [row for row in rows if row.unused]


@pytest.mark.parametrize("layout", ["rag.jsonl", "research"])
def test_fixtures_a_prune_at_the_same_time_deleted_first_are_not_counted_again(
    project: Path, layout: str
) -> None:
    # two prunes listed the same fixtures; the second to take the lock said "deleted 2"
    # for fixtures the first had deleted, and backed up the pruned file once more
    store = project / "tests" / "fixtures" / layout
    keys = setup_store(project, store)
    doomed = _unused(project, store)
    first = delete(store, doomed)
    assert len(first.deleted) == 2 and first.gone == ()
    files = {f: f.read_bytes() for f in store.parent.rglob("*") if f.is_file()}
    second = delete(store, doomed)
    assert second.deleted == () and second.gone == tuple(doomed)
    assert second.backups == () and second.files_removed == ()
    assert {f: f.read_bytes() for f in store.parent.rglob("*") if f.is_file()} == files
    assert stored_keys(store) == {keys["played"], keys["referenced"]}


@pytest.mark.parametrize("layout", ["rag.jsonl", "research"])
@pytest.mark.parametrize("change", ["re-record", "sample"])
def test_a_fixture_a_recording_changed_after_the_listing_is_kept(
    project: Path, layout: str, change: str
) -> None:
    # a recorder running while prune listed re-recorded an unused fixture, or added a
    # sample to it: prune --yes deleted the fresh answer with the old one under the lock
    store = project / "tests" / "fixtures" / layout
    keys = setup_store(project, store)
    doomed = _unused(project, store)
    with FixtureStore.open(store) as opened, opened.lock():
        if change == "re-record":
            fresh = Fixture.create(request("unused one"), [response("fresh")], recorder_meta())
            opened.put(fresh, replace=True)
        else:
            found = opened.find(request("unused one"))
            assert found is not None
            opened.add_sample(found[0], 1, response("a second sample"))
    done = delete(store, doomed)
    assert [r.key for r in done.deleted] == [keys["unused two"]]
    assert [r.key for r in done.gone] == [keys["unused one"]]
    assert stored_keys(store) == {keys["played"], keys["referenced"], keys["unused one"]}


def test_pruning_a_folder_above_a_folder_store_waits_for_that_stores_writers(
    project: Path,
) -> None:
    # prune tests/fixtures took tests/fixtures/.replaygate.lock only, where the folder
    # store tests/fixtures/shared (a marker's fixtures=) writes its one-fixture files
    # under its own: a re-record under way there had its fresh file moved to the backup
    store = project / "tests" / "fixtures" / "shared"
    keys = setup_store(project, store)
    hits = project / ".replaygate" / "hits"
    root = project / "tests" / "fixtures"
    listed = patrol(root, runs=5, refs=[project / "tests"], hits_dir=hits).rows
    doomed = [r for r in listed if r.unused]
    done: list[PruneResult] = []
    with FixtureStore.open(store) as recorder, recorder.lock():
        pruning = threading.Thread(target=lambda: done.append(delete(root, doomed)))
        pruning.start()
        pruning.join(0.1)
        assert pruning.is_alive(), "prune went on while the store's writer held its lock"
        fresh = Fixture.create(request("unused one"), [response("fresh")], recorder_meta())
        recorder.put(fresh, replace=True)
    pruning.join()
    assert [r.key for r in done[0].deleted] == [keys["unused two"]]
    assert stored_keys(store) == {keys["played"], keys["referenced"], keys["unused one"]}


def recorder_meta() -> dict[str, Any]:
    return {"interface": "anthropic.messages", "source": "hand"}


def test_the_command_says_which_listed_fixtures_were_gone(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = project / "tests" / "fixtures" / "rag.jsonl"
    setup_store(project, store)
    listed = hygiene_cmds.candidates

    def another_prune_first(*args: Any) -> Any:
        doomed = listed(*args)
        delete(store, doomed)  # the other prune takes the lock first
        return doomed

    monkeypatch.setattr(hygiene_cmds, "candidates", another_prune_first)
    done = prune(str(store), "--unused", "--yes")
    assert done.exit_code == 0, done.output
    assert "deleted 0 fixture(s)" in done.output
    assert "2 listed fixture(s) were gone once the store's lock was taken" in done.output
    assert "backup: " not in done.output


def test_an_earlier_prunes_backup_is_no_reference(project: Path) -> None:
    # the .bak of the first prune named every fixture it held: none was ever pruned again
    store = project / "tests" / "fixtures" / "rag.jsonl"
    keys = setup_store(project, store)
    assert "deleted 2 fixture(s)" in prune(str(store), "--unused", "--yes").output
    (project / "tests" / "test_pinned.py").unlink()  # the pinned fixture is no longer named
    done = prune(str(store), "--unused")
    assert f"rag.jsonl:2  key {keys['referenced']}" in done.output, done.output
    assert "would delete 1 fixture(s)" in done.output


@pytest.mark.parametrize(
    "name",
    ["rag.jsonl.bak1", "{key}.json.bak", "{key}.json.bak2", ".rag.jsonl.77.tmp",
     ".rag.jsonl.77.tmp.bak", ".rag.jsonl.bak.77.tmp"],
)  # fmt: skip
def test_the_files_replaygate_writes_beside_a_store_are_no_references(
    project: Path, name: str
) -> None:
    store = project / "tests" / "fixtures" / "rag.jsonl"
    key = put(store, "unused", "2026-01-01T00:00:00Z")
    played = project / "tests" / "fixtures" / "played.jsonl"
    put(played, "played", None)
    play(played, "played", project / ".replaygate" / "hits", "20261130T000000Z-0001", project)
    copy = project / "tests" / "old" / name.format(key=key)
    copy.parent.mkdir()
    copy.write_bytes(store.read_bytes())
    person = project / "tests" / "old" / "notes.txt.bak"  # a person's backup still names it
    person.write_text(f"rag.jsonl holds {key}\n", encoding="utf-8")
    rows = patrol(
        store, runs=1, refs=[project / "tests"], hits_dir=project / ".replaygate" / "hits"
    ).rows
    assert [row.refs for row in rows] == [("tests/old/notes.txt.bak",)]
    person.unlink()
    done = prune(str(store), "--unused")
    assert "would delete 1 fixture(s)" in done.output, done.output


@pytest.mark.skipif(not Path("/proc/self/mem").exists(), reason="no /proc/self/mem")
def test_a_reference_file_that_cannot_be_read_stops_the_prune(project: Path) -> None:
    store = project / "tests" / "fixtures" / "rag.jsonl"
    keys = setup_store(project, store)
    # a regular file whose reading fails (EIO), for root too, as a failing disk's would
    (project / "tests" / "test_broken.py").symlink_to("/proc/self/mem")
    done = prune(str(store), "--unused", "--yes")
    assert done.exit_code == 2
    assert "tests/test_broken.py under --refs could not be read" in done.output
    assert "Input/output error" in done.output and "nothing deleted" in done.output
    assert stored_keys(store) == set(keys.values())
    shown = CliRunner().invoke(main, ["patrol", str(store)])
    assert "1 file(s) under the reference folders could not be read" in shown.output


def _as_a_user_without_override(*args: str) -> subprocess.CompletedProcess[str]:
    """``replaygate ARGS`` where permissions apply: root's capability to pass over them
    is dropped (in a process of its own) with ``setpriv``."""
    caps = "-dac_override,-dac_read_search"
    drop = [] if os.geteuid() else ["setpriv", f"--inh-caps={caps}", f"--bounding-set={caps}"]
    command = [*drop, sys.executable, "-m", "replaygate", *args]
    return subprocess.run(command, capture_output=True, text=True, check=False)


AS_ONE_USER = """
import dataclasses, json, sys
sys.path.insert(0, sys.argv[1])
from run_cli import replaygate
print(json.dumps([dataclasses.asdict(replaygate(*args)) for args in json.loads(sys.argv[2])]))
"""


def _each_as_a_user_without_override(*commands: list[str]) -> list[Done]:
    """``replaygate ARGS`` of each of ``commands`` (:func:`run_cli.replaygate`), in one
    process where permissions apply (:func:`_as_a_user_without_override`)."""
    caps = "-dac_override,-dac_read_search"
    drop = [] if os.geteuid() else ["setpriv", f"--inh-caps={caps}", f"--bounding-set={caps}"]
    tests = str(Path(__file__).parent)
    command = [*drop, sys.executable, "-c", AS_ONE_USER, tests, json.dumps(commands)]
    ran = subprocess.run(command, capture_output=True, text=True, check=True)
    return [
        Done(tuple(d["args"]), d["returncode"], d["stdout"], d["stderr"])
        for d in json.loads(ran.stdout)
    ]


@pytest.mark.slow  # a process of the CLI, where the folder's permissions apply
@pytest.mark.skipif(
    os.geteuid() == 0 and not shutil.which("setpriv"), reason="root, and no setpriv"
)
def test_a_reference_folder_that_cannot_be_listed_stops_the_prune(project: Path) -> None:
    # the folder was passed over, and prune --yes deleted the fixtures only its files name
    store = project / "tests" / "fixtures" / "rag.jsonl"
    keys = setup_store(project, store)
    hidden = project / "tests" / "integration"
    hidden.mkdir()
    (hidden / "test_more.py").write_text(f'KEY = "{keys["unused one"]}"\n', encoding="utf-8")
    hidden.chmod(0)
    try:
        shown, done = _each_as_a_user_without_override(
            ["patrol", str(store), "--json"], ["prune", "--unused", str(store), "--yes"]
        )
    finally:
        hidden.chmod(0o755)
    unread = {"file": "tests/integration", "why": "cannot read this folder: Permission denied"}
    assert json.loads(shown.stdout)["unread_refs"] == [unread], shown.stderr
    assert done.returncode == 2, done.stdout + done.stderr
    assert "tests/integration under --refs could not be read (cannot read this folder: " in (
        done.stderr
    )
    assert "nothing deleted" in done.stderr
    assert stored_keys(store) == set(keys.values())


def test_refuses_without_a_recorded_run(project: Path) -> None:
    store = project / "tests" / "fixtures" / "rag.jsonl"
    put(store, "a", None)
    done = prune(str(store), "--unused", "--yes")
    assert done.exit_code == 2
    assert "no test run in the hits log at .replaygate/hits" in done.output
    assert "nothing deleted" in done.output
    assert len(stored_keys(store)) == 1


def test_a_time_at_the_edge_of_the_calendar_is_pruned_like_any_other(project: Path) -> None:
    store = project / "tests" / "fixtures" / "rag.jsonl"
    keys = setup_store(project, store)
    edges = [put(store, when, when) for when in EDGES_OF_TIME]
    done = prune(str(store), "--unused", "--yes")
    assert done.exit_code == 0, done.output
    assert "deleted 4 fixture(s)" in done.output and all(key in done.output for key in edges)
    # the fixture dated after the prune was listed as "(future old)"
    assert "(recorded in the future: a wrong clock or an edited date)" in done.output
    assert "future old" not in done.output
    assert stored_keys(store) == {keys["played"], keys["referenced"]}


def test_a_lock_that_is_a_symlink_is_refused_not_followed(project: Path) -> None:
    store = project / "tests" / "fixtures" / "rag.jsonl"
    setup_store(project, store)
    before = store.read_bytes()
    lock = Path(f"{store}.lock")
    lock.unlink(missing_ok=True)
    lock.symlink_to(project / "elsewhere" / "x.lock")
    done = prune(str(store), "--unused", "--yes")
    assert done.exit_code != 0, done.output
    assert f"its lock {lock} is a symlink to " in done.output
    assert "nothing deleted" in done.output
    assert not (project / "elsewhere").exists()  # no lock made where the link points
    assert store.read_bytes() == before


@pytest.mark.parametrize("blocked", ["lock", "folder"])
def test_a_store_that_cannot_be_rewritten_is_named(project: Path, blocked: str) -> None:
    store = project / "tests" / "fixtures" / "rag.jsonl"
    setup_store(project, store)
    before = store.read_bytes()
    lock = Path(f"{store}.lock")
    if blocked == "lock":  # a lock that cannot be opened, for anyone
        lock.unlink(missing_ok=True)
        lock.mkdir()
    elif os.geteuid() == 0:
        pytest.skip("root writes into a read-only folder")
    else:
        store.parent.chmod(0o500)
    try:
        done = prune(str(store), "--unused", "--yes")
    finally:
        store.parent.chmod(0o700)
    assert done.exit_code == 2 and isinstance(done.exception, SystemExit), done.output
    named = f"its lock {lock} is a folder; " if blocked == "lock" else f"Error: {store.parent}/"
    assert named in done.output
    assert store.read_bytes() == before


def test_a_full_disk_names_the_store_left_as_it_was(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "Error: no space left on device", naming no file and not what was left
    store = project / "tests" / "fixtures" / "rag.jsonl"
    setup_store(project, store)
    before = store.read_bytes()

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")  # found as the data is flushed

    monkeypatch.setattr(os, "fsync", full)
    done = prune(str(store), "--unused", "--yes")
    assert done.exit_code == 2, done.output
    assert done.output.splitlines()[-1] == (
        f"Error: {store}: cannot prune it: No space left on device; the file is left as it "
        "is; nothing more deleted"
    )
    assert store.read_bytes() == before


def test_a_store_named_with_a_newline_is_listed_quoted_on_one_line(project: Path) -> None:
    # "  tests/fixtures/r" then "ag.jsonl:3  key ...": each listed fixture took two lines
    store = project / "tests" / "fixtures" / "r\nag.jsonl"
    setup_store(project, store)
    done = prune("tests/fixtures", "--unused")
    assert done.exit_code == 0, done.output
    assert done.output.splitlines()[1].startswith("  'tests/fixtures/r\\nag.jsonl:3'  key ")


def test_needs_unused(project: Path) -> None:
    done = prune("tests/fixtures")
    assert done.exit_code == 2 and "say what to prune: --unused" in done.output


def test_a_partial_line_stops_the_prune(project: Path) -> None:
    store = project / "tests" / "fixtures" / "rag.jsonl"
    setup_store(project, store)
    with store.open("ab") as handle:
        handle.write(b'{"key": "abc", "requ')
    done = prune(str(store), "--unused", "--yes")
    assert done.exit_code == 2
    assert "rag.jsonl:5: truncated last line" in done.output
    assert not os.path.exists(store.with_name("rag.jsonl.bak"))


def test_a_jsonl_store_left_empty_is_removed(project: Path) -> None:
    store = project / "tests" / "fixtures" / "old.jsonl"
    put(store, "nobody asks this", "2026-01-01T00:00:00Z")
    played = project / "tests" / "fixtures" / "rag.jsonl"
    put(played, "played", None)
    play(played, "played", project / ".replaygate" / "hits", "20261130T000000Z-0001", project)
    (project / "tests" / "conftest.py").write_text("")  # the tests folder holds code
    done = prune("tests/fixtures", "--unused", "--yes")
    assert done.exit_code == 0, done.output
    assert "removed: " in done.output and not store.exists()
    assert store.with_name("old.jsonl.bak").exists()
    assert played.exists()


def test_pruning_a_fixture_removes_its_sample_lines(project: Path) -> None:
    store = project / "tests" / "fixtures" / "rag.jsonl"
    keys = setup_store(project, store)
    with FixtureStore.open(store) as opened:
        (loc, unused) = opened.get(keys["unused one"])[0]
        opened.add_sample(loc, 1, unused.response)
        (loc, played) = opened.get(keys["played"])[0]
        opened.add_sample(loc, 1, played.response)
    assert len(store.read_bytes().splitlines()) == 6
    done = prune(str(store), "--unused", "--yes")
    assert done.exit_code == 0, done.output
    assert stored_keys(store) == {keys["played"], keys["referenced"]}
    assert len(store.read_bytes().splitlines()) == 3  # two fixtures and the played one's sample
    with FixtureStore.open(store) as opened:
        assert [f.samples for _, f in opened.get(keys["played"])] == [2]


def pruned_peak(project: Path, fillers: int) -> tuple[int, int]:
    """The store's size and the peak memory traced while pruning it: its four fixtures
    of :func:`setup_store` and ``fillers`` unused ones of 100 KB each (few and large: the
    size is the point, and the time goes to each fixture)."""
    store = project / "tests" / "fixtures" / "rag.jsonl"
    keys = setup_store(project, store)
    filler = (
        Fixture.create(request(f"filler {i}"), [response("x" * 100_000)], {"source": "hand"})
        for i in range(fillers)
    )
    with store.open("ab") as handle:
        handle.writelines(f.to_line() for f in filler)
    size = store.stat().st_size
    tracemalloc.start()
    try:
        done = prune(str(store), "--unused", "--yes")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert done.exit_code == 0, done.output
    assert f"deleted {2 + fillers} fixture(s)" in done.output
    assert stored_keys(store) == {keys["played"], keys["referenced"]}
    return size, peak


@pytest.mark.slow
def test_a_large_jsonl_store_is_pruned_without_being_held_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(scan, "_CHUNK", 1 << 20)  # the store is read 1 MiB at a time
    measured = []
    for fillers in (24, 96):  # both stores above the reader's chunks: 2.4 MB and 9.6 MB
        project = tmp_path / str(fillers)
        (project / "tests" / "fixtures").mkdir(parents=True)
        monkeypatch.chdir(project)
        measured.append(pruned_peak(project, fillers))
    (small, small_peak), (large, large_peak) = measured
    # read a chunk at a time whatever the size: what grows with the store is a row
    # of a fixture's age, use and location, not its text (holding the file would be 1x)
    assert large_peak - small_peak < (large - small) / 2, measured


@given(st.text(alphabet="ab-_./ \njsonl", max_size=80))
def test_store_names_are_found_as_a_search_from_every_character_finds_them(text: str) -> None:
    # the search starts at a run's first character only (bench/bench_refs_long_runs.py:
    # from every character, a long run took the square of its length); it finds the same
    every_start = re.compile(r"[\w.\-]+\.jsonl?\b")
    assert refs._NAME.findall(text) == every_start.findall(text)


def outcomes_of_a_run_that_played(tmp_path: Path) -> tuple[Path, str, hits.OutcomeLog]:
    """The hits folder, the run and the outcomes log of a run whose process has written
    hits (so that its outcomes are written as they are noted)."""
    folder, run = tmp_path / "hits", "20261206T000000Z-ab01"
    played = hits.HitLog(folder, run, tmp_path)
    played.note(tmp_path / "s.jsonl", "265288aeb827")
    played.flush()
    return folder, run, hits.OutcomeLog(folder, run)


def test_each_outcome_is_on_disk_as_it_is_noted_by_the_process_that_noted_it(
    tmp_path: Path,
) -> None:
    # prune keeps the stores of the tests that did not pass by these notes: one a worker
    # killed at once had made is there, in its own file, as one after the log was settled
    folder, run, log = outcomes_of_a_run_that_played(tmp_path)
    log.note("tests/test_x.py::test_a", "passed")
    assert hits.read_outcomes(folder) == {run: {"tests/test_x.py::test_a": True}}
    child = os.fork()
    if child == 0:
        try:
            log.note("tests/test_x.py::test_b", "failed")
        finally:
            os.kill(os.getpid(), signal.SIGKILL)
    assert os.waitpid(child, 0)[1] == signal.SIGKILL
    log.note("tests/test_x.py::test_c", "skipped")
    log.settle()
    log.note("tests/test_x.py::test_d", "passed")
    assert (folder / f"{run}-{child}{hits.OUTCOMES}").read_bytes().count(b"\n") == 1
    assert hits.read_outcomes(folder) == {
        run: {
            "tests/test_x.py::test_a": True,
            "tests/test_x.py::test_b": False,
            "tests/test_x.py::test_c": False,
            "tests/test_x.py::test_d": True,
        }
    }


def test_an_outcome_noted_after_its_file_was_removed_is_on_disk(tmp_path: Path) -> None:
    # a trim by another session or a user cleaning the folder removed the open file: the
    # failed test's note went to a file no one reads, and prune took its store for passed
    folder, run, log = outcomes_of_a_run_that_played(tmp_path)
    log.note("tests/test_x.py::test_a", "passed")
    log.file.unlink()
    log.note("tests/test_x.py::test_b", "failed")
    log.settle()
    assert hits.read_outcomes(folder) == {run: {"tests/test_x.py::test_b": False}}


def test_a_run_dated_after_now_stops_the_prune(project: Path) -> None:
    # a run logged by a clock that was ahead (and each run after it, which takes a time
    # after it): a fixture recorded since, which no run played, was not new but unused,
    # and prune --yes deleted the fresh recording
    store = project / "tests" / "fixtures" / "rag.jsonl"
    keys = setup_store(project, store)
    play(store, "played", project / ".replaygate" / "hits", "20301130T000000Z-0002", project)
    fresh = put(store, "recorded just now", now_iso())
    done = prune(str(store), "--unused", "--yes")
    assert done.exit_code == 2, done.output
    assert "1 run(s) in the hits log at .replaygate/hits are dated after now" in done.output
    assert "20301130T000000Z-0002" in done.output and "nothing deleted" in done.output
    assert stored_keys(store) == {*keys.values(), fresh}
