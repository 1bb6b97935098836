"""A store checked out without Git LFS: the file holds the pointer git keeps for it, and
every reader says so, with the commands that fetch the fixtures, instead of calling its
lines malformed JSON. So for a file kept as a symlink, which git checks out where
symlinks are off (Windows) as a file holding its target's path."""

from __future__ import annotations

from pathlib import Path

import pytest

from replaygate.errors import FixtureFormatError
from replaygate.fixtures.store import FixtureStore
from run_cli import replaygate

POINTER = (
    b"version https://git-lfs.github.com/spec/v1\n"
    b"oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
    b"size 12345\n"
)
SAID = "a Git LFS pointer, not the fixtures it stands for"


def test_opening_a_pointer_names_it_and_how_to_fetch_the_fixtures(tmp_path: Path) -> None:
    store = tmp_path / "answers.jsonl"
    store.write_bytes(POINTER)
    with pytest.raises(FixtureFormatError) as raised:
        FixtureStore.open(store)
    assert raised.value.line == 1
    assert SAID in str(raised.value) and "git lfs pull" in str(raised.value)
    assert store.read_bytes() == POINTER


@pytest.mark.parametrize("name", ["answers.jsonl", "folder/0123456789ab.json"])
def test_verify_names_a_pointer_in_a_file_or_a_folder_store(tmp_path: Path, name: str) -> None:
    store = tmp_path / name
    store.parent.mkdir(exist_ok=True)
    store.write_bytes(POINTER)
    done = replaygate("verify", str(tmp_path / name.split("/")[0]))
    assert done.returncode == 1
    first, *rest = done.stdout.splitlines()
    assert first.startswith(str(store)) and SAID in first, done.stdout
    assert rest == ["0 fixture(s) checked, 1 problem(s)"]  # not its oid and size lines too
    assert "Traceback" not in done.stderr
    assert store.read_bytes() == POINTER


def test_eval_names_a_pointer_where_its_cases_should_be(tmp_path: Path) -> None:
    cases = tmp_path / "cases.jsonl"
    cases.write_bytes(POINTER)
    done = replaygate("eval", "--cases", str(cases), "--fixtures", str(tmp_path / "f.jsonl"))
    assert done.returncode == 2
    assert f"{cases}:1: a Git LFS pointer, not eval cases" in done.stderr, done.stderr
    assert "git lfs pull" in done.stderr and "Traceback" not in done.stderr


def test_gate_names_a_pointer_where_its_baseline_should_be(tmp_path: Path) -> None:
    baseline, results = tmp_path / "baseline.json", tmp_path / "results.json"
    baseline.write_bytes(POINTER)
    results.write_bytes(POINTER)
    done = replaygate("gate", "--baseline", str(baseline), "--results", str(results))
    assert done.returncode == 2
    assert "a Git LFS pointer, not " in done.stderr and "git lfs pull" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("name", ["answers.jsonl", "folder/0123456789ab.json"])
def test_a_symlink_checked_out_as_a_file_is_named_with_how_to_turn_links_on(
    tmp_path: Path, name: str
) -> None:
    # git writes a link's target in its place where symlinks are off (Windows): verify
    # and every replay said "malformed JSON: no digit after sign at column 1"
    store = tmp_path / name
    store.parent.mkdir(exist_ok=True)
    store.write_bytes(b"../../shared/copilot.jsonl")
    done = replaygate("verify", str(tmp_path / name.split("/")[0]))
    assert done.returncode == 1
    assert (
        f"{store}:1: holds only the path '../../shared/copilot.jsonl': a symbolic link"
        if name.endswith(".jsonl")
        else f"{store}: holds only the path"
    ) in done.stdout, done.stdout
    assert "core.symlinks=false, the default on Windows" in done.stdout
    assert "malformed" not in done.stdout


def test_a_folder_symlink_checked_out_as_a_file_is_named_where_a_store_is_under_it(
    tmp_path: Path,
) -> None:
    # "no fixture store can be there: fixtures/shared is a file", naming no link
    (tmp_path / "shared").write_bytes(b"../../stores/shared")
    store = tmp_path / "shared" / "copilot.jsonl"
    done = replaygate("verify", str(store))
    assert done.returncode == 2
    assert (
        f"{tmp_path / 'shared'} is a file, where a folder is expected: it holds only the path "
        "'../../stores/shared': a symbolic link to it that git checked out as a file"
    ) in done.stderr, done.stderr


@pytest.mark.parametrize("reader", ["cases", "baseline", "script", "pyproject"])
def test_the_other_files_a_checkout_may_link_name_a_symlink_checked_out_as_a_file(
    tmp_path: Path, reader: str
) -> None:
    # "invalid JSON: Expecting value at column 1", "not JSON: ...", where a link was
    link = tmp_path / "linked.jsonl"
    link.write_bytes(b"../shared/linked.jsonl")
    if reader == "script":
        from replaygate.sim.behaviors import ScriptBehavior, ScriptFormatError

        with pytest.raises(ScriptFormatError) as raised:
            ScriptBehavior.from_file(link)
        said = str(raised.value)
    elif reader == "pyproject":  # a monorepo's shared one: "not valid TOML"
        from replaygate.config import TomlFileError, read_toml

        with pytest.raises(TomlFileError) as raised:
            read_toml(link)
        said = str(raised.value)
    else:
        args = (
            ["eval", "--cases", str(link), "--fixtures", str(tmp_path / "f.jsonl")]
            if reader == "cases"
            else ["gate", "--baseline", str(link), "--results", str(link)]
        )
        done = replaygate(*args)
        assert done.returncode == 2, done
        said = done.stderr
    assert f"{link}{':1' if reader != 'baseline' else ''}: holds only the path " in said, said
    assert "core.symlinks=false" in said
