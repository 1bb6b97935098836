"""Files in a folder store that no store reads: ``verify`` names them instead of passing a
store whose fixtures were renamed out of its sight; and each file a folder command
passes over is read once to tell what it is."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from replaygate import Fixture, FixtureStore, Message, ModelResponse
from replaygate.cli import main
from replaygate.fixtures.fixture import make_meta
from replaygate.fixtures.store import folder
from replaygate.hygiene.verify import verify_store
from replaygate.models.providers import to_anthropic_request, to_anthropic_response


def fixture(question: str) -> Fixture:
    request = to_anthropic_request([Message.user(question)], [], model="m", max_tokens=8)
    response = to_anthropic_response(ModelResponse(text="a"), model="m")
    return Fixture.create(request, [response], make_meta("anthropic.messages", "1", "hand"))


def verify(path: Path) -> tuple[int, list[str]]:
    result = CliRunner().invoke(main, ["verify", str(path)])
    return result.exit_code, result.output.splitlines()


def test_fixture_files_renamed_out_of_the_stores_sight_are_reported(tmp_path: Path) -> None:
    root = tmp_path / "fixtures"
    with FixtureStore.open(root) as store:
        files = [store.put(fixture(q)).file for q in ("one", "two", "three")]
    upper = files[0].with_suffix(".JSON")
    files[0].rename(upper)
    kept = files[1].with_name(files[1].name + ".orig")
    shutil.copy(files[1], kept)
    notes = files[1].with_name("notes.txt")
    notes.write_text("what I changed\n")
    (root / "README.md").write_text("the fixtures of the tests\n")  # beside the store: fine
    (root / "more.JSONL").write_bytes(fixture("four").to_line())
    code, lines = verify(root)
    assert code == 1
    elsewhere = "no store reads it (a fixture here is named <key>.json); rename it, or move it out"
    assert lines == [
        f"{upper}: named .JSON, which no store reads (fixture files end in .json or .jsonl, "
        f"lower case): rename it to {files[0].name}, or move it out",
        f"{kept}: not a .json file, in a folder of one-fixture .json files: {elsewhere}",
        f"{notes}: not a .json file, in a folder of one-fixture .json files: {elsewhere}",
        f"{root / 'more.JSONL'}: named .JSONL, which no store reads (fixture files end in "
        ".json or .jsonl, lower case): rename it to more.jsonl, or move it out",
        "2 fixture(s) checked, 4 problem(s)",
    ]


def test_a_clean_folder_store_with_its_lock_and_a_readme_passes(tmp_path: Path) -> None:
    root = tmp_path / "fixtures"
    with FixtureStore.open(root) as store:
        store.put(fixture("one"))
    (root / "README.md").write_text("the fixtures of the tests\n")
    assert verify(root) == (0, ["1 fixture(s) checked, 0 problem(s)"])


def test_the_lock_compact_takes_beside_a_jsonl_file_of_an_interface_folder_passes(
    tmp_path: Path,
) -> None:
    # compact locked extra.jsonl beside it: verify then failed the store it had passed
    root = tmp_path / "fixtures"
    with FixtureStore.open(root) as store:
        placed = store.put(fixture("one")).file
    extra = placed.parent / "extra.jsonl"
    extra.write_bytes(fixture("two").to_line())
    with FixtureStore.open(extra) as file:  # a sample line: compact folds it, locked
        file.add_sample(next(file.locations()), 1, fixture("two").responses[0])
    assert verify(root) == (0, ["2 fixture(s) checked, 0 problem(s)"])
    assert CliRunner().invoke(main, ["compact", str(root)]).exit_code == 0
    assert (placed.parent / "extra.jsonl.lock").exists()
    assert verify(root) == (0, ["2 fixture(s) checked, 0 problem(s)"])
    (placed.parent / "notes.txt.lock").touch()  # the lock of no fixture file
    assert verify(root)[0] == 1


def test_each_file_passed_over_is_read_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "evals"
    root.mkdir()
    (root / "fixtures.jsonl").write_bytes(fixture("one").to_line())
    (root / "cases.jsonl").write_text('{"id": "c1", "samples": 1, "floor": 1}\n')
    read: list[bytes] = []
    kind_of = folder.kind_of

    def counted(head: bytes) -> str | None:
        read.append(head[:8])
        return kind_of(head)

    monkeypatch.setattr(folder, "kind_of", counted)
    result = CliRunner().invoke(main, ["verify", str(root)])
    assert result.exit_code == 0, result.output
    assert "cases.jsonl (eval cases)" in result.output
    assert len(read) == 2  # fixtures.jsonl and cases.jsonl, once each
    (root / "cases.jsonl").write_bytes(fixture("two").to_line())  # rewritten: read again
    assert folder.other_kind(root / "cases.jsonl") is None
    assert len(read) == 3


def test_verify_walks_a_folder_store_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "fixtures"
    with FixtureStore.open(root) as store:
        store.put(fixture("one"))
    (root / "notes.JSON").write_text("{}")
    (root / ".fixtures.jsonl.1.tmp").write_text("")
    walked: list[Path] = []
    scandir = os.scandir

    def counted(path: Any) -> Any:
        walked.append(Path(path))
        return scandir(path)

    monkeypatch.setattr(os, "scandir", counted)
    count, problems = verify_store(root)
    assert count == 1
    assert [Path(p.file).name for p in problems] == [".fixtures.jsonl.1.tmp", "notes.JSON"]
    assert walked.count(root) == 1  # the stores, the files no store reads, the leftovers


def test_a_store_named_with_a_fixture_suffix_in_capitals_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # X.JSON was read as a .jsonl file (a problem for each of its lines), and recording
    # into new.JSONL made a folder store of that name.
    monkeypatch.chdir(tmp_path)
    Path("X.JSON").write_bytes(fixture("one").to_pretty())
    run = ["run", "--agent", "json:dumps", "--model", "m", "--max-tokens", "8"]
    record = ["record", *run[1:], "--simulator", "--approve-live", "--fixtures", "new.JSONL"]
    for args in (
        ["verify", "X.JSON"],
        ["checksum", "X.JSON"],
        ["compact", "X.JSON"],
        ["patrol", "X.JSON"],
        ["show", fixture("one").key, "--fixtures", "X.JSON"],
        [*run, "--fixtures", "X.JSON", "one"],
        [*record, "one"],
    ):
        done = CliRunner().invoke(main, args)
        assert done.exit_code == 2, (args, done.output)
        named = "new.JSONL: is named .JSONL" if "new.JSONL" in args else "X.JSON: is named .JSON"
        assert named in done.output, (args, done.output)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["X.JSON"]
    # a name typed in capitals for a store that is not there: nothing to rename
    Path("rc.jsonl").write_bytes(fixture("one").to_line())
    done = CliRunner().invoke(main, ["verify", "rc.JSONL"])
    assert done.exit_code == 2 and done.output == (
        "Error: rc.JSONL: is named .JSONL, and no such file or folder is there: a store is a "
        ".jsonl file, a .json fixture or a folder, named in lower case; did you mean rc.jsonl?\n"
    ), done.output
