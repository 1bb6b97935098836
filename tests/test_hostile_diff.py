"""``replaygate diff`` on a store whose path git would read as a pattern.

A folder named ``fixtures*`` or ``st?`` was handed to git as a pathspec: ``git
ls-files`` matched it as a glob (taking in ``fixturesX/``) where ``git ls-tree`` took
it literally, so a clean tree reported the other folder's fixtures as added. A name
starting with ``:`` is pathspec magic to git (``:(exclude)...``).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from forked_cli import ASCII_LOCALE, Forker
from replaygate import Fixture
from replaygate.cli import main
from replaygate.fixtures.fixture import make_meta

META = make_meta("anthropic.messages", "2023-06-01", "hand", recorded_at="2025-01-01T00:00:00Z")
RESPONSE = {"type": "message", "role": "assistant", "content": [], "stop_reason": "end_turn"}

pytestmark = pytest.mark.slow  # each test compares with a real git repository


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


def test_markdown_keeps_an_answer_fence_and_a_reason_inside_their_own_blocks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # an answer holding ``` ended the code block of its differences, and the rest of the
    # comment showed as Markdown; a reason holding "</details>" or a new line and "## "
    # closed the details and wrote a heading of its own
    _git(tmp_path, "init", "-q", "--template=")
    store = tmp_path / "st" / "a.jsonl"
    _store(store, "a")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-q", "-m", "fixtures")
    answer = {**RESPONSE, "content": [{"type": "text", "text": "```python\nx = 1\n```"}]}
    request = json.loads(store.read_bytes())["request"]
    store.write_bytes(Fixture.create(request, [answer], META).to_line())
    monkeypatch.chdir(tmp_path)
    reason = "new model\n## heading\n</details>"
    args = ["diff", "st", "--format", "markdown", "--allow-response-change", "--reason", reason]
    done = CliRunner().invoke(main, args)
    assert done.exit_code == 0, done.output
    lines = done.output.splitlines()
    shown = "new model<br>## heading<br>&lt;/details&gt;"
    assert f"**response change allowed, reason: {shown}**" in lines
    assert lines.count("</details>") == 1 and "## heading" not in lines
    opened = lines.index("````")  # longer than the ``` the answer holds
    assert "```python" in lines[opened + 1] and lines[opened + 2] == "````"


def test_a_secret_in_a_changed_fixture_is_masked_in_every_format(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a key pasted into a fixture by hand was printed whole, and the markdown is posted
    # as a pull-request comment: masked as a replay miss masks it
    token = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5b"
    _git(tmp_path, "init", "-q", "--template=")
    store = tmp_path / "st" / "a.jsonl"
    _store(store, "a")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-q", "-m", "fixtures")
    answer = {**RESPONSE, "content": [{"type": "text", "text": f"use {token}"}]}
    request = json.loads(store.read_bytes())["request"]
    store.write_bytes(Fixture.create(request, [answer], META).to_line())
    monkeypatch.chdir(tmp_path)
    for form in (["--format", "text"], ["--format", "markdown"], ["--json"]):
        done = CliRunner().invoke(main, ["diff", "st", *form])
        assert done.exit_code == 1, done.output
        assert token not in done.output and token[:12] not in done.output
        assert "<GitHub token #1, 41 characters>" in done.output


def test_a_store_named_outside_ascii_is_compared_in_an_ascii_locale(
    tmp_path: Path, ascii_forker: Forker
) -> None:
    # under LC_ALL=C git's names were read as UTF-8, which the ASCII file system encoding
    # could not open: diff ended in a UnicodeEncodeError traceback
    _git(tmp_path, "init", "-q", "--template=")
    _store(tmp_path / "st" / "ü.jsonl", "a")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-q", "-m", "fixtures")
    _store(tmp_path / "st" / "ü.jsonl", "b")  # its request changed since
    env = {**os.environ, **ASCII_LOCALE}
    done = ascii_forker.capture(["diff", "st", "--json"], cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr.decode()
    review = json.loads(done.stdout)
    assert [pair["new"]["file"] for pair in review["paired"]] == ["st/ü.jsonl"], review


def test_markdown_names_a_file_holding_a_backtick_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `a|b`c.jsonl` was shown as `a\|b'c.jsonl`: a quote in place of its backtick
    _git(tmp_path, "init", "-q", "--template=")
    _store(tmp_path / "st" / "a.jsonl", "a")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-q", "-m", "fixtures")
    _store(tmp_path / "st" / "b`c.jsonl", "b")
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(main, ["diff", "st", "--format", "markdown"])
    assert done.exit_code == 0, done.output
    assert "| added | ``st/b`c.jsonl:1`` |" in done.output
