"""``replaygate diff`` on a store whose path git would read as a pattern.

A folder named ``fixtures*`` or ``st?`` was handed to git as a pathspec: ``git
ls-files`` matched it as a glob (taking in ``fixturesX/``) where ``git ls-tree`` took
it literally, so a clean tree reported the other folder's fixtures as added. A name
starting with ``:`` is pathspec magic to git (``:(exclude)...``).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from replaygate import Fixture
from replaygate.cli import main
from replaygate.fixtures.fixture import make_meta

META = make_meta("anthropic.messages", "2023-06-01", "hand", recorded_at="2025-01-01T00:00:00Z")
RESPONSE = {"type": "message", "role": "assistant", "content": [], "stop_reason": "end_turn"}


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=T", "-c", "user.email=t@example.com",
         "-c", "commit.gpgsign=false", *args],
        cwd=repo, capture_output=True, check=True,
    )  # fmt: skip


def _store(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    request = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": text}]}
    path.write_bytes(Fixture.create(request, [RESPONSE], META).to_line())


@pytest.mark.parametrize("name", ["st*", "st?", ":(top)st", "st[X]"])
def test_a_store_named_like_a_git_pattern_is_compared_as_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    _git(tmp_path, "init", "-q", "--template=")
    _store(tmp_path / name / "a.jsonl", "a")
    for other in ("stX", "st"):
        _store(tmp_path / other / "b.jsonl", other)
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-q", "-m", "fixtures")
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(main, ["diff", name, "--json"])
    assert done.exit_code == 0, done.output
    review = json.loads(done.stdout)
    assert review["files_compared"] == 1, review
    assert review["added"] == review["removed"] == [], review
    _store(tmp_path / name / "c.jsonl", "c")  # one fixture added under the store
    review = json.loads(CliRunner().invoke(main, ["diff", name, "--json"]).stdout)
    assert [entry["file"] for entry in review["added"]] == [f"{name}/c.jsonl"], review
