"""``replaygate checksum``: same content, same key; any fixture change, a new key."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from click.testing import CliRunner

from replaygate.cli import main
from replaygate.examples.research_copilot import shipped_fixtures
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
    assert missing.exit_code == 2 and "does not exist" in missing.output
