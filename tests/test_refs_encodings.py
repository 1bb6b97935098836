"""A file under ``--refs`` names fixtures in whatever encoding it is saved: UTF-16 and
UTF-32 (with a byte order mark, or without one), UTF-8 holding a NUL byte, and the ASCII
bytes of a binary file. ``prune --unused --yes`` deletes none of the fixtures they name."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from replaygate.cli import main
from replaygate.fixtures.store import FixtureStore
from test_patrol import play, put

SAVED = {
    "utf16.txt": lambda text: text.encode("utf-16"),  # a Windows editor's "Unicode"
    "utf16be.txt": lambda text: text.encode("utf-16-be"),
    "utf32.txt": lambda text: text.encode("utf-32"),
    "nul.py": lambda text: b"\0" + text.encode(),
    "data.bin": lambda text: bytes(range(256)) * 40 + text.encode() + bytes(range(256)),
}


def test_references_in_any_encoding_are_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path
    monkeypatch.chdir(project)
    store = project / "tests" / "fixtures" / "a.jsonl"
    keys = {name: put(store, name, "2026-01-01T00:00:00Z") for name in [*SAVED, "played"]}
    play(store, "played", project / ".replaygate" / "hits", "20261130T000000Z-0001", project)
    for name, save in SAVED.items():
        (project / "tests" / name).write_bytes(save(f"# the smoke script needs\n{keys[name]}\n"))
    done = CliRunner().invoke(main, ["prune", "--unused", "tests/fixtures", "--yes"])
    assert done.exit_code == 0, done.output
    with FixtureStore.open(store) as opened:
        assert set(opened.keys()) == set(keys.values())
    assert "kept: 1 played, 5 referenced only" in done.output
