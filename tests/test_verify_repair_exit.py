"""``verify --repair`` fails on a missing path as ``verify`` does (``Error: ...``, exit 2),
and a repair that cannot be written names the file it left as it was."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from replaygate.cli import main
from replaygate.examples.research_copilot import shipped_fixtures


def verify(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["verify", *args])
    return result.exit_code, result.output


@pytest.mark.parametrize("name", ["fixtrues", "nosuch.jsonl"])
def test_a_missing_path_fails_with_repair_as_without(tmp_path: Path, name: str) -> None:
    missing = tmp_path / name
    for extra in ([], ["--repair"], ["--json"], ["--repair", "--json"]):
        result = CliRunner().invoke(main, ["verify", str(missing), *extra])
        assert result.exit_code == 2, result.output
        # as checksum and compact say it; --json prints no document, as theirs do
        assert result.stderr == f"Error: {missing}: no such file or folder\n"
        assert result.stdout == ""


def test_a_repair_on_a_full_disk_names_the_file_and_leaves_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "t.jsonl"
    store.write_bytes(shipped_fixtures().read_bytes() + b'{"key": "abc')
    before = store.read_bytes()

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")  # found as the data is flushed

    monkeypatch.setattr(os, "fsync", full)
    code, output = verify(str(store), "--repair")
    assert code == 2, output
    assert output.splitlines()[-1] == (
        f"Error: {store}: cannot repair it: no space left on device; the file is unchanged"
    )
    assert store.read_bytes() == before


def test_a_repair_refused_on_a_read_only_file_leaves_no_backup(tmp_path: Path) -> None:
    # Each try left a t.jsonl.bak, .bak1, ... beside a file it said was unchanged
    store = tmp_path / "t.jsonl"
    store.write_bytes(shipped_fixtures().read_bytes() + b'{"key": "abc')
    store.chmod(0o444)
    for _ in range(2):
        code, output = verify(str(store), "--repair")
        assert code == 2 and "read-only" in output.splitlines()[-1], output
    assert sorted(path.name for path in tmp_path.iterdir()) == ["t.jsonl", "t.jsonl.lock"]


def test_a_repair_names_a_file_with_a_newline_on_one_line(tmp_path: Path) -> None:
    # "tr\nunc.jsonl: removed a partial tail ... (backup: tr\nunc.jsonl.bak)" took three
    # lines, where every problem line names such a file quoted
    store = tmp_path / "tr\nunc.jsonl"
    data = shipped_fixtures().read_bytes()
    store.write_bytes(data + data[:40])
    code, output = verify(str(store), "--repair")
    assert code == 0, output
    done = output.splitlines()[0]
    assert done.startswith(f"{str(store)!r}: removed a partial tail of 40 bytes"), done
    assert done.endswith(f"(backup: {str(store) + '.bak'!r})"), done


def test_the_commands_a_problem_names_run_for_a_file_named_with_a_leading_dash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "Run `replaygate verify --repair -t.jsonl`" ended in "No such option: -t", and
    # `iconv ... -u.jsonl` took the name for an option too
    monkeypatch.chdir(tmp_path)
    data = shipped_fixtures().read_bytes()
    Path("-t.jsonl").write_bytes(data + data[:40])
    Path("-u.jsonl").write_bytes(data.decode().encode("utf-16"))
    code, output = verify("--", "-t.jsonl")
    assert code == 1 and "Run `replaygate verify --repair ./-t.jsonl` to remove" in output
    code, output = verify("--", "-u.jsonl")
    convert = (
        "`iconv -f UTF-16 -t UTF-8 ./-u.jsonl > ./-u.utf8.jsonl`, then "
        "`mv ./-u.utf8.jsonl ./-u.jsonl`"
    )
    assert code == 1 and convert in output
    patrol = CliRunner().invoke(main, ["patrol", "--", "-t.jsonl"])
    assert "(run `replaygate verify ./-t.jsonl`)" in patrol.output
    code, output = verify("--repair", "./-t.jsonl")  # the command named, as it is
    assert code == 0 and "removed a partial tail of 40 bytes" in output
