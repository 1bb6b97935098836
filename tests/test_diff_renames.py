"""`replaygate diff` reports a fixture file renamed or moved as a rename (git's rename
detection, or the same bytes under another name), with the fixtures that changed inside
it reported as changes, for a JSONL store file and a folder store's files, in text,
Markdown and ``--json``."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from replaygate import Fixture, FixtureStore
from replaygate.fixtures.fixture import make_meta
from run_cli import Done, replaygate

# Each test makes a real git repository: end to end.
pytestmark = pytest.mark.slow

META = make_meta("anthropic.messages", "2023-06-01", "hand")
INTERFACE = "anthropic.messages@2023-06-01"


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=Test", "-c", "user.email=test@example.com",
         "-c", "commit.gpgsign=false", *args],
        cwd=repo, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout


def fixture(question: str, answer: str) -> Fixture:
    request = {"model": "m", "max_tokens": 64, "messages": [{"role": "user", "content": question}]}
    return Fixture.create(request, [{"content": [{"type": "text", "text": answer}]}], META)


QUESTIONS = [f"question {i}: what is RAG, and why?" for i in range(6)]


@pytest.fixture(scope="module")
def empty_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new repository (no template files) ignoring the stores' locks, copied for each
    test: a copy of its few files takes a fraction of a millisecond of CPU, ``git init``
    several times that."""
    root = tmp_path_factory.mktemp("empty-repo") / "project"
    root.mkdir()
    git(root, "init", "-q", "-b", "main", "--template=")
    (root / ".gitignore").write_text(".*.lock\n*.lock\n", encoding="utf-8")
    return root


@pytest.fixture
def repo(tmp_path: Path, empty_repo: Path) -> Path:
    root = tmp_path / "project"
    shutil.copytree(empty_repo, root, symlinks=True)
    return root


def record(store: Path) -> None:
    with FixtureStore.open(store) as opened:
        for i, question in enumerate(QUESTIONS):
            opened.put(fixture(question, f"answer {i}"))


def commit(repo: Path, message: str = "fixtures") -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


@pytest.fixture(scope="module")
def recorded(empty_repo: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Repositories whose store holds the fixtures of :data:`QUESTIONS`, committed, as the
    tests start: the JSONL file ``fixtures/agent.jsonl`` (``"jsonl"``), and the folder store
    ``fixtures`` (``"folder"``); made once per module, copied by :func:`committed`."""
    made = {}
    for kind, store in (("jsonl", "fixtures/agent.jsonl"), ("folder", "fixtures")):
        root = tmp_path_factory.mktemp(kind) / "project"
        shutil.copytree(empty_repo, root, symlinks=True)
        record(root / store)
        commit(root)
        made[kind] = root
    return made


def committed(recorded: dict[str, Path], kind: str, repo: Path) -> None:
    """``repo`` made a copy of the repository of ``kind`` (:func:`recorded`): a copy of
    its files takes a fraction of the CPU of recording the store and committing it."""
    shutil.rmtree(repo)
    shutil.copytree(recorded[kind], repo, symlinks=True)


def edit(file: Path, old: str, new: str) -> None:
    data = file.read_text(encoding="utf-8")
    assert old in data
    file.write_text(data.replace(old, new), encoding="utf-8")


def diff(repo: Path, *args: str) -> Done:
    return replaygate("diff", *args, cwd=repo)


def as_json(repo: Path, *args: str) -> dict[str, Any]:
    done = diff(repo, *args, "--json")
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)


def test_a_jsonl_store_file_renamed_is_a_rename_and_nothing_else(
    repo: Path, recorded: dict[str, Path]
) -> None:
    committed(recorded, "jsonl", repo)
    git(repo, "mv", "fixtures/agent.jsonl", "fixtures/research_agent.jsonl")
    done = diff(repo, "fixtures")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (
        "renamed  fixtures/agent.jsonl -> fixtures/research_agent.jsonl  (same content)"
        in done.stdout
    )
    assert "0 added, 0 removed" in done.stdout and "1 file(s) renamed" in done.stdout
    doc = as_json(repo, "fixtures")
    assert doc["renamed"] == [
        {"old": "fixtures/agent.jsonl", "new": "fixtures/research_agent.jsonl", "similarity": 100}
    ]
    assert doc["added"] == doc["removed"] == doc["paired"] == doc["alarms"] == []


def test_changes_inside_a_renamed_file_are_changes_between_two_revisions(
    repo: Path, recorded: dict[str, Path]
) -> None:
    committed(recorded, "jsonl", repo)
    (repo / "fixtures" / "moved").mkdir()
    git(repo, "mv", "fixtures/agent.jsonl", "fixtures/moved/agent.jsonl")
    moved = repo / "fixtures" / "moved" / "agent.jsonl"
    edit(moved, '"answer 2"', '"answer two"')  # the response of an unchanged request
    lines = moved.read_bytes().splitlines(keepends=True)  # a prompt edited, re-recorded
    lines[4] = fixture(QUESTIONS[4].replace("RAG", "retrieval"), "answer 4").to_line()
    moved.write_bytes(b"".join(lines))
    commit(repo, "moved")
    done = diff(repo, "fixtures", "--base", "HEAD~1", "--head", "HEAD")
    assert done.returncode == 1, done.stdout + done.stderr  # the response changed
    [renamed] = [line for line in done.stdout.splitlines() if line.startswith("renamed")]
    assert "fixtures/agent.jsonl -> fixtures/moved/agent.jsonl" in renamed
    assert "% similar)" in renamed
    assert "1 paired (request changed), 0 added, 0 removed" in done.stdout
    assert "ALARM  fixtures/moved/agent.jsonl:" in done.stdout
    assert "paired  fixtures/agent.jsonl:5 -> fixtures/moved/agent.jsonl:5" in done.stdout
    doc = as_json(repo, "fixtures", "--base", "HEAD~1", "--head", "HEAD")
    [pair] = doc["paired"]
    assert pair["old"]["file"] == "fixtures/agent.jsonl"
    assert pair["new"]["file"] == "fixtures/moved/agent.jsonl"
    assert doc["alarms"][0]["differences"] == [
        "response.content[0].text: 'answer 2' != 'answer two'"
    ]
    assert doc["renamed"][0]["old"] == "fixtures/agent.jsonl"
    assert doc["renamed"][0]["similarity"] < 100


def test_a_move_git_has_not_seen_yet_is_a_rename_by_its_bytes(
    repo: Path, recorded: dict[str, Path]
) -> None:
    committed(recorded, "jsonl", repo)
    (repo / "fixtures" / "agent.jsonl").rename(repo / "fixtures" / "other.jsonl")  # not added
    done = diff(repo, "fixtures")
    assert done.returncode == 0, done.stderr
    assert "renamed  fixtures/agent.jsonl -> fixtures/other.jsonl  (same content)" in done.stdout
    assert "0 added, 0 removed" in done.stdout


def test_a_store_file_named_by_its_new_or_old_name_is_compared_with_the_other(
    repo: Path,
    recorded: dict[str, Path],
) -> None:
    committed(recorded, "jsonl", repo)
    (repo / "tests").mkdir()
    git(repo, "mv", "fixtures/agent.jsonl", "tests/agent.jsonl")
    edit(repo / "tests" / "agent.jsonl", '"answer 1"', '"answer one"')
    for named in ("tests/agent.jsonl", "fixtures/agent.jsonl"):
        doc = as_json(repo, named)
        [renamed] = doc["renamed"]
        assert (renamed["old"], renamed["new"]) == ("fixtures/agent.jsonl", "tests/agent.jsonl")
        assert doc["added"] == doc["removed"] == []
        [alarm] = doc["alarms"]
        assert alarm["file"] == "tests/agent.jsonl"


def test_a_store_folder_named_by_its_new_or_old_name_is_compared_with_the_other(
    repo: Path,
    recorded: dict[str, Path],
) -> None:
    committed(recorded, "jsonl", repo)
    git(repo, "mv", "fixtures", "stores")
    edit(repo / "stores" / "agent.jsonl", '"answer 1"', '"answer one"')
    for named in ("stores", "fixtures"):
        doc = as_json(repo, named)
        assert [(r["old"], r["new"]) for r in doc["renamed"]] == [
            ("fixtures/agent.jsonl", "stores/agent.jsonl")
        ]
        assert doc["added"] == doc["removed"] == []
        assert [alarm["file"] for alarm in doc["alarms"]] == ["stores/agent.jsonl"]


def test_a_store_file_moved_into_a_folder_of_stores_is_compared_with_its_old_file(
    repo: Path,
) -> None:
    record(repo / "fixtures" / "agent.jsonl")
    record(repo / "old" / "other.jsonl")
    commit(repo)
    git(repo, "mv", "old/other.jsonl", "fixtures/other.jsonl")
    edit(repo / "fixtures" / "other.jsonl", '"answer 1"', '"answer one"')
    done = diff(repo, "fixtures")
    assert done.returncode == 1, done.stdout + done.stderr  # it was "3 added", exit 0
    assert "0 added, 0 removed" in done.stdout
    assert "renamed  old/other.jsonl -> fixtures/other.jsonl" in done.stdout
    assert "ALARM  fixtures/other.jsonl:2" in done.stdout


def test_a_folder_store_moved_is_one_folder_renamed_with_the_changes_inside(
    repo: Path,
    recorded: dict[str, Path],
) -> None:
    committed(recorded, "folder", repo)
    store = repo / "fixtures"
    (store / "agent").mkdir()
    git(repo, "mv", f"fixtures/{INTERFACE}", f"fixtures/agent/{INTERFACE}")
    first = fixture(QUESTIONS[0], "answer 0")
    edit(store / "agent" / INTERFACE / f"{first.key}.json", '"answer 0"', '"answer zero"')
    done = diff(repo, "fixtures")
    assert done.returncode == 1, done.stdout + done.stderr  # the response changed
    assert "0 added, 0 removed" in done.stdout and "6 file(s) renamed" in done.stdout
    moved = f"fixtures/{INTERFACE}/ -> fixtures/agent/{INTERFACE}/  (6 files, 1 edited)"
    assert [line for line in done.stdout.splitlines() if line.startswith("renamed")] == [
        f"renamed  {moved}"
    ]
    assert f"ALARM  fixtures/agent/{INTERFACE}/{first.key}.json  key {first.key}" in done.stdout
    markdown = diff(repo, "fixtures", "--format", "markdown").stdout
    row = f"| renamed | `fixtures/agent/{INTERFACE}/` |  | from `fixtures/{INTERFACE}/` (6 files"
    assert row in markdown and "response changed, request unchanged" in markdown
    doc = as_json(repo, "fixtures")  # each file
    assert len(doc["renamed"]) == 6
    assert sum(r["similarity"] == 100 for r in doc["renamed"]) == 5
    assert [a["file"] for a in doc["alarms"]] == [f"fixtures/agent/{INTERFACE}/{first.key}.json"]
    assert doc["added"] == doc["removed"] == []


def test_a_file_moved_on_its_own_is_named_by_its_paths(
    repo: Path, recorded: dict[str, Path]
) -> None:
    committed(recorded, "folder", repo)
    store = repo / "fixtures"
    first = fixture(QUESTIONS[0], "answer 0")
    (store / "old").mkdir()
    git(repo, "mv", f"fixtures/{INTERFACE}/{first.key}.json", "fixtures/old/")
    done = diff(repo, "fixtures")
    assert done.returncode == 0, done.stderr
    old, new = f"fixtures/{INTERFACE}/{first.key}.json", f"fixtures/old/{first.key}.json"
    assert f"renamed  {old} -> {new}  (same content)" in done.stdout
