"""``replaygate checksum`` refuses a store file that a git merge left with conflict
markers, naming the file and the first marker's line, as every reader of the store
does; text that only looks like a marker inside a fixture is no marker."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from replaygate import Fixture, FixtureStore
from replaygate.fixtures.fixture import make_meta
from replaygate.hygiene.checksum import store_checksum
from run_cli import replaygate

META = make_meta("anthropic.messages", "2023-06-01", "hand")


def git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-c", "user.name=Test", "-c", "user.email=test@example.com",
         "-c", "commit.gpgsign=false", "-c", "merge.conflictstyle=merge", *args],
        cwd=repo, capture_output=True, text=True, check=check,
    )  # fmt: skip


def fixture(question: str, answer: str) -> Fixture:
    request = {"model": "m", "max_tokens": 64, "messages": [{"role": "user", "content": question}]}
    return Fixture.create(request, [{"content": [{"type": "text", "text": answer}]}], META)


def put(store: Path, *fixtures: Fixture) -> None:
    with FixtureStore.open(store) as opened:
        for one in fixtures:
            opened.put(one)


def merged_with_conflict(repo: Path, ours: Callable[[], None], theirs: Callable[[], None]) -> None:
    """Commit the repository, change it by ``theirs`` on a branch and ``ours`` on main,
    and merge the branch."""
    git(repo, "init", "-q", "-b", "main", "--template=")
    (repo / ".gitignore").write_text(".*.lock\n*.lock\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "store")
    git(repo, "checkout", "-q", "-b", "other")
    theirs()
    git(repo, "commit", "-q", "-am", "theirs")
    git(repo, "checkout", "-q", "main")
    ours()
    git(repo, "commit", "-q", "-am", "ours")
    merge = git(repo, "merge", "other", check=False)
    assert merge.returncode != 0 and "CONFLICT" in merge.stdout


@pytest.mark.slow  # a real git merge
def test_a_jsonl_store_merged_with_a_conflict_is_refused_at_the_marker(tmp_path: Path) -> None:
    store = tmp_path / "fixtures.jsonl"
    put(store, fixture("first", "one"))
    merged_with_conflict(
        tmp_path, lambda: put(store, fixture("ours", "a")), lambda: put(store, fixture("b", "b"))
    )
    marker = store.read_text(encoding="utf-8").splitlines().index("<<<<<<< HEAD") + 1
    assert marker == 2
    done = replaygate("checksum", str(store))
    assert done.returncode == 2 and done.stdout == ""
    assert f"Error: {store}:{marker}: a git merge conflict marker" in done.stderr
    assert "keep the lines of both sides, delete the marker lines" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.slow  # a real git merge
def test_a_folder_store_with_a_conflict_in_one_json_file_is_refused_naming_it(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "fixtures"
    first = fixture("first", "one")
    put(folder, first, fixture("second", "two"))
    [file] = folder.rglob(f"{first.key}.json")

    def answer(text: str) -> Callable[[], None]:  # both sides change the same fixture
        return lambda: file.write_text(file.read_text("utf-8").replace('"one"', text), "utf-8")

    merged_with_conflict(tmp_path, answer('"ours"'), answer('"theirs"'))
    lines = file.read_text(encoding="utf-8").splitlines()
    marker = lines.index("<<<<<<< HEAD") + 1
    done = replaygate("checksum", str(folder), "--json")
    assert done.returncode == 2 and done.stdout == ""
    reason = f"a git merge conflict marker (<<<<<<<, =======, >>>>>>>) at line {marker}"
    assert f"Error: {file}: {reason}" in done.stderr
    assert f"git checkout --ours {file}" in done.stderr
    # resolved: the digest is back
    git(tmp_path, "checkout", "--ours", str(file))
    done = replaygate("checksum", str(folder))
    assert done.returncode == 0 and done.stdout.strip() == store_checksum(folder)


def test_a_marker_across_the_reads_of_a_large_file_is_found(tmp_path: Path) -> None:
    store = tmp_path / "fixtures.jsonl"
    line = fixture("long", "x" * ((1 << 20) - 200)).to_line()
    pad = (1 << 20) - len(line) - 3  # the marker starts 2 bytes before the first read ends
    text = fixture("long", "x" * ((1 << 20) - 200 + pad)).to_line()
    assert len(text) == (1 << 20) - 3
    store.write_bytes(text + b"=======\n" + line)
    done = replaygate("checksum", str(store))
    assert done.returncode == 2
    assert f"Error: {store}:2: a git merge conflict marker" in done.stderr


def test_marker_text_inside_a_fixture_is_no_conflict(tmp_path: Path) -> None:
    store = tmp_path / "fixtures.jsonl"
    headings = "Title\n=======\n<<<<<<< HEAD\n>>>>>>> main\n"
    put(store, fixture(headings, headings), fixture("=======", "<<<<<<< x"))
    done = replaygate("checksum", str(store))
    assert done.returncode == 0 and done.stdout.strip() == store_checksum(store)
    folder = tmp_path / "folder"
    put(folder, fixture(headings, "=======\n"))
    assert replaygate("checksum", str(folder)).returncode == 0
