"""The ``.gitignore`` lines the docs suggest keep out what replaygate writes beside a
store (its backups, the temporary files of its writes), and never a store: ``*.bak*``
also ignored one whose name holds ``.bak``, as a parametrized test's id can."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from replaygate.fixtures.store.repair import backup_of

DOCS = Path(__file__).resolve().parent.parent / "docs"
BLOCK = re.compile(r"```gitignore\n(.*?)```", re.DOTALL)
DOCTEST = re.compile(
    r'^ignored = \[(.*?)\]\n(?:ignored \+= \[(.*?)\]\n)?ignored\.append\("(.*?)"\)', re.MULTILINE
)


def suggested() -> dict[str, list[str]]:
    """The ``.gitignore`` of each page that suggests one, as its lines."""
    found: dict[str, list[str]] = {}
    for page in sorted(DOCS.glob("*.md")):
        text = page.read_text(encoding="utf-8")
        for block in BLOCK.findall(text):
            found[page.name] = block.split()
        for listed, more, appended in DOCTEST.findall(text):  # the scratch repository's
            found[f"{page.name} (doctest)"] = [*re.findall(r'"(.*?)"', listed + more), appended]
    return found


def written(tmp_path: Path) -> list[str]:
    """The names replaygate gives the backups and temporary files beside ``s.jsonl``."""
    store = tmp_path / "s.jsonl"
    names = [f".{store.name}.4242.tmp", f".{store.name}.4242.tmp.bak"]
    for _ in range(12):  # s.jsonl.bak, then s.jsonl.bak1 ... s.jsonl.bak11
        backup = backup_of(store)
        backup.touch()
        names.append(backup.name)
    return names


def test_the_docs_suggest_a_gitignore_on_each_page_that_tells_it() -> None:
    assert set(suggested()) >= {"ci.md", "quickstart-own-project.md", "fixtures.md (doctest)"}


@pytest.mark.slow  # starts git
@pytest.mark.parametrize("page", sorted(suggested()))
def test_the_suggested_gitignore_keeps_out_backups_and_temporary_files_only(
    tmp_path: Path, page: str
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / ".gitignore").write_text("\n".join(suggested()[page]) + "\n", encoding="utf-8")
    side = written(tmp_path)
    stores = ["test_load[data.bak].jsonl", "test_load[v.bak1].jsonl", "s.jsonl", "0123abcd.json"]
    done = subprocess.run(
        ["git", "check-ignore", "--no-index", "--stdin"],
        cwd=repo,
        input="\n".join(side + stores) + "\n",
        capture_output=True,
        text=True,
        check=False,
    )
    assert sorted(done.stdout.split()) == sorted(side), done.stderr
