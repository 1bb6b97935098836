"""``replaygate checksum``: same content, same key; any fixture change, a new key."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from replaygate.cli import main
from replaygate.examples.research_copilot import shipped_fixtures
from replaygate.fixtures.store.jsonl import PartialTailError, TruncatedFileError
from replaygate.hygiene.checksum import store_checksum


def _folder(root: Path) -> Path:
    folder = root / "fixtures"
    (folder / "anthropic.messages").mkdir(parents=True)
    lines = shipped_fixtures().read_bytes().splitlines(keepends=True)
    for i, line in enumerate(lines[:5]):
        (folder / "anthropic.messages" / f"f{i}.json").write_bytes(line)
    (folder / "more.jsonl").write_bytes(b"".join(lines[5:]))
    return folder


def test_checksum_ignores_mtime_and_creation_order(tmp_path: Path) -> None:
    first = _folder(tmp_path / "a")
    second = tmp_path / "b" / "fixtures"
    second.mkdir(parents=True)
    for file in sorted(first.rglob("*"), reverse=True):
        if file.is_file():
            target = second / file.relative_to(first)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(file, target)
            os.utime(target, (1, 1))
    assert store_checksum(first) == store_checksum(second)


def test_any_change_changes_the_checksum(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    before = store_checksum(folder)
    one = folder / "anthropic.messages" / "f0.json"
    one.write_bytes(one.read_bytes().replace(b"RAG", b"RAg", 1))
    edited = store_checksum(folder)
    assert edited != before
    one.rename(folder / "anthropic.messages" / "renamed.json")
    assert store_checksum(folder) not in (before, edited)
    (folder / "more.jsonl").unlink()
    assert len({before, edited, store_checksum(folder)}) == 3


def test_checksum_command_prints_the_digest(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    result = CliRunner().invoke(main, ["checksum", str(folder)])
    assert result.exit_code == 0
    assert result.output.strip() == store_checksum(folder)
    missing = CliRunner().invoke(main, ["checksum", str(tmp_path / "nope")])
    assert missing.exit_code == 2 and "nope: no such file or folder" in missing.output


def test_a_fifo_or_folder_where_a_fixture_file_is_expected_is_refused_by_name(
    tmp_path: Path,
) -> None:
    folder = _folder(tmp_path)
    os.mkfifo(folder / "anthropic.messages" / "waiting.json")
    (tmp_path / "dir.jsonl").mkdir()
    for path, named in [(folder, "waiting.json"), (tmp_path / "dir.jsonl", "dir.jsonl")]:
        result = CliRunner().invoke(main, ["checksum", str(path)])
        assert result.exit_code == 2, result.output
        assert "Error:" in result.output and named in result.output
        assert "Traceback" not in result.output and result.exception is not None
        assert isinstance(result.exception, SystemExit)


def test_a_file_name_that_is_not_utf8_counts_by_its_bytes(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    line = (folder / "anthropic.messages" / "f0.json").read_bytes()
    odd = os.fsdecode(b"n\xe9.json")  # Latin-1 bytes: not UTF-8
    try:
        (folder / "anthropic.messages" / odd).write_bytes(line)
    except (UnicodeEncodeError, OSError):
        pytest.skip("this file system keeps only UTF-8 names")
    with_odd = store_checksum(folder)
    (folder / "anthropic.messages" / odd).rename(folder / "anthropic.messages" / "n\xe9.json")
    assert store_checksum(folder) != with_odd  # the UTF-8 spelling is another name
    result = CliRunner().invoke(main, ["checksum", str(folder)])
    assert result.exit_code == 0 and result.output.strip() == store_checksum(folder)


def test_a_file_cut_while_it_is_read_has_no_checksum(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # its digest was of neither state: a first chunk of the old bytes, then the rest cut
    from replaygate.hygiene import checksum

    store = tmp_path / "big.jsonl"
    line = shipped_fixtures().read_bytes().splitlines(keepends=True)[0]
    store.write_bytes(line * (2 * (1 << 20) // len(line) + 1))  # more than one chunk read
    before = store_checksum(store)
    opened = checksum.open_binary

    class CutAfterFirstRead:
        def __init__(self, path: Path) -> None:
            self._handle = opened(path)
            self._reads = 0

        def __enter__(self) -> CutAfterFirstRead:
            self._handle.__enter__()
            return self

        def __exit__(self, *args: object) -> None:
            self._handle.__exit__(*args)

        def fileno(self) -> int:
            return self._handle.fileno()

        def read(self, size: int) -> bytes | None:
            chunk = self._handle.read(size)
            self._reads += 1
            if self._reads == 1:
                os.truncate(store, len(line) * 3)  # another program cuts the file
            return chunk

    monkeypatch.setattr(checksum, "open_binary", CutAfterFirstRead)
    done = CliRunner().invoke(main, ["checksum", str(store)])
    assert done.exit_code == 2, done.output
    assert f"{store}: changed on disk while it was read (cut, edited or appended to" in done.output
    monkeypatch.undo()
    assert store_checksum(store) != before  # read again whole: the file as it now stands


@pytest.mark.parametrize("command", ["checksum", "verify"])
def test_a_git_submodule_not_checked_out_is_refused_not_left_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    # A clone without its submodules (actions/checkout's default) leaves the submodule an
    # empty folder: the digest of the other stores keyed the cache whatever its commit.
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitmodules").write_text(
        '[submodule "vendor"]\n\tpath = fixtures/vendor\n\turl = ../vendor\n', encoding="utf-8"
    )
    folder = _folder(tmp_path)
    (folder / "vendor").mkdir()
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(main, [command, "fixtures"])
    assert done.exit_code == 2
    assert "Error: fixtures/vendor is a git submodule that is not checked out" in done.output
    assert "run `git submodule update --init fixtures/vendor`" in done.output

    (folder / "vendor" / ".git").write_text("gitdir: ../../.git/modules/vendor\n")
    assert CliRunner().invoke(main, [command, "fixtures"]).exit_code == 0


@pytest.mark.slow  # makes a git repository with a sparse checkout
def test_store_files_a_sparse_checkout_leaves_out_are_refused_not_left_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The digest (and the check) of the stores checked out passed for all of them, and
    # differed from that of a full checkout of the same commit.
    def git(*args: str) -> None:
        subprocess.run(["git", "-c", "user.name=T", "-c", "user.email=t@e", *args],
                       cwd=tmp_path, capture_output=True, check=True)  # fmt: skip

    folder = _folder(tmp_path)
    git("init", "-q", "--template=")
    git("add", "-A")
    git("commit", "-q", "-m", "fixtures")
    git("sparse-checkout", "set", "--no-cone", "/*", "!/fixtures/anthropic.messages/")
    monkeypatch.chdir(tmp_path)
    for command in ("checksum", "verify"):
        done = CliRunner().invoke(main, [command, "fixtures"])
        assert done.exit_code == 2, done.output
        assert (
            "Error: fixtures/anthropic.messages/f0.json: left out of this sparse checkout (git "
            "holds it, the working tree does not) (and 4 more store file(s) under fixtures), "
            "so its fixtures would not be read: run `git sparse-checkout add '/fixtures/**'`"
        ) in done.output
    assert CliRunner().invoke(main, ["checksum", str(folder / "more.jsonl")]).exit_code == 0


def _module_entry(root: Path, entry: str) -> Path:
    """A repository at ``root`` whose ``.gitmodules`` holds ``entry``, its stores folder."""
    (root / ".git").mkdir()
    (root / ".gitmodules").write_text(entry, encoding="utf-8")
    (_folder(root) / "vendor").mkdir()
    return root / "fixtures" / "vendor"


@pytest.mark.parametrize(
    "entry",
    [
        '[Submodule "vendor"]\n\tPath = "fixtures/vendor" ; shared answers\n',
        '[submodule "v"]\n\tpath = fixtures/../fixtures/vendor/\n',
    ],
)
def test_a_submodule_is_read_from_gitmodules_as_git_reads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, entry: str
) -> None:
    """Keys in any case, a quoted value, a comment after it, a path not in its plain form:
    git takes each as naming the submodule, so it is refused, not left out."""
    _module_entry(tmp_path, entry)
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(main, ["verify", "fixtures"])
    assert done.exit_code == 2
    assert "Error: fixtures/vendor is a git submodule that is not checked out" in done.output


def test_the_command_to_check_a_submodule_out_is_quoted_for_the_shell(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A path with a space was shown bare: `git submodule update --init fixtures/my vendor`
    # named two paths, neither the submodule.
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitmodules").write_text('[submodule "v"]\n\tpath = fixtures/my vendor\n')
    (_folder(tmp_path) / "my vendor").mkdir()
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(main, ["verify", "fixtures"])
    assert done.exit_code == 2
    assert "run `git submodule update --init 'fixtures/my vendor'` (from" in done.output


@pytest.mark.parametrize(
    ("entry", "holding"),
    [
        ('[submodule "vendor"]\n\tpath = fixtures/vendor\n', True),  # its files committed
        ('[submodule "x"]\n\tpath = /\n', False),  # a path git checks out nothing at
        ("[core]\n\tpath = fixtures/vendor\n", False),  # no submodule's
        ('[submodule "x"]\n\tpath = fixtures/a\0b\n', False),  # no name holds a NUL
    ],
)
def test_a_folder_gitmodules_names_is_read_when_it_is_no_submodule_left_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, entry: str, holding: bool
) -> None:
    """A folder that holds files (a submodule replaced by its fixtures, ``.gitmodules``
    left naming it), or one no submodule is checked out in, is read as any other."""
    vendor = _module_entry(tmp_path, entry)
    if holding:
        shutil.move(tmp_path / "fixtures" / "more.jsonl", vendor / "more.jsonl")
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(main, ["verify", "fixtures"])
    assert done.exit_code == 0, done.output
    shipped = len(shipped_fixtures().read_bytes().splitlines())  # one fixture a line
    assert f"{shipped} fixture(s) checked" in done.output


@pytest.mark.parametrize(
    ("name", "text", "shown", "reason"),
    [
        (
            "more.jsonl",
            b"version https://git-lfs.github.com/spec/v1\noid sha256:4d7a\nsize 9\n",
            "more.jsonl:1",
            "a Git LFS pointer, not the fixtures it stands for",
        ),
        (
            "anthropic.messages/f0.json",
            b"../../shared/f0.json",
            "f0.json",
            "holds only the path '../../shared/f0.json'",
        ),
    ],
)
def test_a_file_standing_in_for_its_fixtures_in_this_checkout_has_no_checksum(
    tmp_path: Path, name: str, text: bytes, shown: str, reason: str
) -> None:
    """A Git LFS pointer (a checkout without Git LFS) or a symlink git checked out as a
    file would give another digest than a checkout of the same commit that holds the
    fixtures: refused, named as the store names it, where a digest was printed."""
    folder = _folder(tmp_path)
    (folder / name).write_bytes(text)
    result = CliRunner().invoke(main, ["checksum", str(folder)])
    assert result.exit_code == 2, result.output
    assert f"{shown}: {reason}" in result.output
    assert isinstance(result.exception, SystemExit)


def test_a_store_cut_short_by_an_interrupted_write_has_no_checksum(tmp_path: Path) -> None:
    # A CI machine killed mid-recording left a truncated last line, which every reader
    # refuses, and checksum keyed a cache on it with exit status 0.
    lines = shipped_fixtures().read_bytes().splitlines(keepends=True)
    store = tmp_path / "rc.jsonl"
    store.write_bytes(lines[0] + lines[1][:-100])
    with pytest.raises(PartialTailError, match=r"rc\.jsonl:2: truncated last line"):
        store_checksum(store)
    store.write_bytes(lines[0] + lines[1].rstrip(b"\n"))  # whole, only its newline missing
    assert store_checksum(store)
    folder = _folder(tmp_path / "f")
    one = folder / "anthropic.messages" / "5f3c9e2a1b7d.json"
    one.write_bytes(lines[0][:-100])
    with pytest.raises(TruncatedFileError, match=r"5f3c9e2a1b7d\.json: truncated fixture file"):
        store_checksum(folder)


def test_a_file_of_replaygate_s_own_that_holds_no_fixture_has_no_checksum(
    tmp_path: Path,
) -> None:
    # `replaygate checksum evals/cases.jsonl` (or a simulator script) printed a digest with
    # exit 0, a cache key on no fixture, where verify of the same file finds no fixture.
    cases = tmp_path / "cases.jsonl"
    cases.write_text('{"id": "rag", "question": "What is RAG?", "samples": 1, "floor": 1}\n')
    script = tmp_path / "answers.jsonl"
    script.write_text('{"text": "Sunny in Lisbon."}\n')
    for path, kind in ((cases, "eval cases"), (script, "simulator script")):
        done = CliRunner().invoke(main, ["checksum", str(path)])
        assert done.exit_code == 2
        assert f"{path}: is no fixture store, but {kind} (its digest would key" in done.output
    stored = tmp_path / "rc.jsonl"
    stored.write_bytes(shipped_fixtures().read_bytes())
    assert CliRunner().invoke(main, ["checksum", str(stored)]).exit_code == 0


@pytest.mark.parametrize(
    ("saved", "reason"),
    [
        (b"\xef\xbb\xbf", "starts with a UTF-8 byte order mark (BOM)"),
        ("utf-16", "not UTF-8 text (it looks like UTF-16: re-save the file as UTF-8)"),
    ],
    ids=["bom", "utf-16"],
)
def test_a_store_no_reader_reads_from_its_first_byte_has_no_checksum(
    tmp_path: Path, saved: bytes | str, reason: str
) -> None:
    # An editor's "UTF-8 with BOM", PowerShell's Out-File: every reader refuses the file
    # at its line 1, and checksum keyed a cache on it with exit status 0.
    data = shipped_fixtures().read_bytes()
    store = tmp_path / "rc.jsonl"
    store.write_bytes(saved + data if isinstance(saved, bytes) else data.decode().encode(saved))
    done = CliRunner().invoke(main, ["checksum", str(store)])
    assert done.exit_code == 2, done.output
    assert f"{store}:1: {reason}" in done.output
