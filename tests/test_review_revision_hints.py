"""A damaged store file read from a git revision is described without fix commands.

``replaygate diff`` on a committed UTF-16 store said ``e.g. `iconv -f UTF-16 -t UTF-8
'HEAD (7580f25):fx/rc.jsonl' > ...```: commands on a path that is no file. The lone-CR
(``tr``) and pretty-JSON (``python3``) hints did the same. The working tree keeps them.
"""

from __future__ import annotations

import codecs
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from replaygate.cli import main
from replaygate.examples.research_copilot import shipped_fixtures
from replaygate.hygiene.errors import HygieneError
from replaygate.hygiene.snapshot import parse_file

LINES = shipped_fixtures().read_bytes().splitlines(keepends=True)[:2]
STORE = b"".join(LINES)
REVISION = "HEAD (7580f25)"
DAMAGED = {
    "utf-16": (STORE.decode().encode("utf-16"), "it looks like UTF-16", "iconv"),
    "lone cr": (STORE.replace(b"\n", b"\r"), "lone carriage return", "tr "),
    "pretty json": (
        json.dumps(json.loads(LINES[0]), indent=2).encode() + b"\n",
        "pretty JSON",
        "python3 ",
    ),
    "inner bom": (LINES[0] + codecs.BOM_UTF8 + LINES[1], "byte order mark", "sed "),
}


@pytest.mark.parametrize("damage", list(DAMAGED))
def test_a_revision_file_is_described_without_commands_the_working_tree_with(
    damage: str,
) -> None:
    data, described, command = DAMAGED[damage]
    with pytest.raises(HygieneError) as committed:
        parse_file("fx/rc.jsonl", data, REVISION)
    said = str(committed.value)
    assert said.startswith(f"{REVISION}:fx/rc.jsonl:") and described in said
    assert "`" not in said and command not in said and "mv " not in said
    assert said.endswith("(committed so; review from another revision with --base or --head)")
    with pytest.raises(HygieneError) as worktree:
        parse_file("fx/rc.jsonl", data, "working tree")
    assert f"`{command}" in str(worktree.value) and described in str(worktree.value)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.slow  # a real git repository
def test_diff_of_a_committed_utf16_store_fixed_in_the_working_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def git(*args: str) -> None:
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false",
             *args],
            cwd=tmp_path, check=True, capture_output=True,
        )  # fmt: skip

    git("init", "-q", "--template=")
    (tmp_path / "fx").mkdir()
    (tmp_path / "fx" / "rc.jsonl").write_bytes(DAMAGED["utf-16"][0])
    git("add", "-A")
    git("commit", "-q", "-m", "utf16")
    (tmp_path / "fx" / "rc.jsonl").write_bytes(STORE)
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(main, ["diff", "fx"])
    assert done.exit_code == 2, done.output
    assert "fx/rc.jsonl:1: not UTF-8 text (it looks like UTF-16: re-save the file as UTF-8) (" in (
        done.output
    )
    assert "iconv" not in done.output and "committed so" in done.output
