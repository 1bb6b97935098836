"""The fixture workflow as a team lives it in git: a merge that left a conflict in a
one-fixture file is named as one, a merge that kept two answers to one request is an
ALARM of the review, a review asked of a revision a shallow clone lacks says how to
fetch it, and a folder store a test names by its folder is in use."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from replaygate import Fixture, FixtureStore
from replaygate.cli import main
from replaygate.fixtures.fixture import make_meta
from test_patrol import play, put, request, response

GIT_CONFIG = ["-c", "user.name=T", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]


def git(repo: Path, *args: str, check: bool = True) -> str:
    done = subprocess.run(
        ["git", *GIT_CONFIG, *args], cwd=repo, capture_output=True, text=True, check=check
    )
    return done.stdout


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tests" / "fixtures").mkdir(parents=True)
    yield tmp_path


def replaygate(*args: str) -> tuple[int, str]:
    done = CliRunner().invoke(main, list(args))
    assert done.exception is None or isinstance(done.exception, SystemExit), done.output
    return done.exit_code, done.output


def record(store: Path, question: str, answer: str) -> None:
    meta = make_meta("anthropic.messages", "2023-06-01", "hand")
    with FixtureStore.open(store) as opened:
        opened.put(Fixture.create(request(question), [response(answer)], meta))


def repo_with_folder_store(project: Path) -> Path:
    """A repository whose folder store tests/fixtures/chat holds one fixture, committed;
    the fixture's file."""
    git(project, "init", "-q", "-b", "main", "--template=")
    (project / ".gitignore").write_text(".replaygate.lock\n*.lock\n", encoding="utf-8")
    record(project / "tests" / "fixtures" / "chat", "hi", "hello")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "record")
    (file,) = (project / "tests" / "fixtures" / "chat").glob("*/*.json")
    return file


def edit_tokens(file: Path, tokens: int) -> None:
    text = file.read_text(encoding="utf-8")
    file.write_text(text.replace('"output_tokens": 3', f'"output_tokens": {tokens}'))


@pytest.mark.slow
def test_a_conflict_left_in_a_one_fixture_file_is_named_with_what_to_do(project: Path) -> None:
    file = repo_with_folder_store(project)
    assert '"output_tokens": 3' in file.read_text(encoding="utf-8")
    git(project, "checkout", "-q", "-b", "other")
    edit_tokens(file, 7)
    git(project, "commit", "-q", "-am", "other edit")
    git(project, "checkout", "-q", "main")
    edit_tokens(file, 9)
    git(project, "commit", "-q", "-am", "main edit")
    git(project, "merge", "other", check=False)  # CONFLICT (content)
    shown = file.relative_to(project).as_posix()
    marker = file.read_text(encoding="utf-8").splitlines().index("<<<<<<< HEAD") + 1
    why = (
        f"{shown}: a git merge conflict marker (<<<<<<<, =======, >>>>>>>) at line "
        f"{marker}: the file was merged with a conflict left unresolved, and it holds one "
        f"fixture, which both sides changed: keep one side's (`git checkout --ours {shown}`, "
        "or --theirs) or record it again, then run `replaygate verify`"
    )
    code, out = replaygate("verify", "tests/fixtures")
    assert (code, out.splitlines()) == (1, [why, "0 fixture(s) checked, 1 problem(s)"])
    for command in (["diff", "tests/fixtures"], ["patrol", "tests/fixtures"]):
        code, out = replaygate(*command)
        assert code == 2 and out.startswith(f"Error: {why}"), out
    git(project, "checkout", "--theirs", shown)  # as the error says
    assert replaygate("verify", "tests/fixtures") == (0, "1 fixture(s) checked, 0 problem(s)\n")


@pytest.mark.slow
def test_a_revision_a_shallow_clone_lacks_says_how_to_fetch_it(project: Path) -> None:
    repo_with_folder_store(project)
    base = git(project, "rev-parse", "HEAD").strip()
    git(project, "commit", "-q", "--allow-empty", "-m", "later")
    clone = project.parent / "ci"
    git(project.parent, "clone", "-q", "--depth", "1", project.as_uri(), str(clone))
    code, out = replaygate("diff", str(clone / "tests" / "fixtures"), "--base", "HEAD~1")
    assert code == 2
    assert f"Error: unknown revision 'HEAD~1' in {clone} (this clone is shallow" in out
    assert "`git fetch --unshallow`, or fetch-depth: 0 in actions/checkout" in out
    # a pull request's base commit, in the shallow clone actions/checkout makes
    code, out = replaygate("diff", str(clone / "tests" / "fixtures"), "--base", base)
    assert code == 2
    assert f"(a commit not fetched: `git fetch origin {base}`;" in out
    git(clone, "fetch", "-q", "origin", base)  # as it says
    assert replaygate("diff", str(clone / "tests" / "fixtures"), "--base", base)[0] == 0
    # what `--base "$(git merge-base origin/main HEAD)"` passes when the merge base is missing
    code, out = replaygate("diff", str(clone / "tests" / "fixtures"), "--base", "")
    assert code == 2
    assert "unknown revision '' in" in out and "(an empty revision: the command that" in out
    code, out = replaygate("diff", "tests/fixtures", "--base", "mian")
    assert code == 2
    assert "unknown revision 'mian'" in out and "(a typo, or a branch not fetched" in out


@pytest.mark.slow  # a real git repository
def test_a_remote_s_branch_the_repository_has_no_remote_for_is_named_so(project: Path) -> None:
    # README's `diff --base origin/main` in a repository made with git init said to run
    # `git fetch origin BRANCH`, which fails there: it has no remote called origin
    repo_with_folder_store(project)
    code, out = replaygate("diff", "tests/fixtures", "--base", "origin/main")
    assert code == 2
    lacking = "a branch of a remote 'origin', which this repository does not have (it has no "
    assert lacking in out
    assert "`git remote add origin URL`" in out and "git fetch origin" not in out
    git(project, "remote", "add", "upstream", project.as_uri())
    code, out = replaygate("diff", "tests/fixtures", "--base", "origin/main")
    assert code == 2 and "(its remotes: upstream): `git fetch upstream BRANCH`)" in out
    code, out = replaygate("diff", "tests/fixtures", "--base", "upstream/main")
    assert code == 2 and "(a typo, or a branch not fetched: `git fetch upstream main`)" in out
    git(project, "fetch", "-q", "upstream", "main")  # as it says
    assert replaygate("diff", "tests/fixtures", "--base", "upstream/main")[0] == 0


def test_a_folder_store_a_skipped_test_names_by_its_folder_is_not_offered(
    project: Path,
) -> None:
    fixtures = project / "tests" / "fixtures"
    put(fixtures / "chat", "hi", "2026-11-01T00:00:00Z")
    put(fixtures / "orphan", "bye", "2026-11-01T00:00:00Z")
    put(fixtures / "played.jsonl", "played", "2026-11-01T00:00:00Z")
    play(fixtures / "played.jsonl", "played", project / ".replaygate" / "hits", "r-1", project)
    (project / "tests" / "test_chat.py").write_text(
        '@pytest.mark.skipif(sys.platform == "linux", reason="windows only")\n'
        "def test_chat():\n"
        '    model = ReplayModel(HERE / "fixtures" / "chat", model=MODEL, max_tokens=100)\n',
        encoding="utf-8",
    )
    # names that hold "orphan" but name another store, or a word it is part of
    (project / "tests" / "test_other.py").write_text(
        'OTHER = "orphan.jsonl"  # orphans, orphan_store, fixtures/orphan/x.json\n',
        encoding="utf-8",
    )
    code, out = replaygate("prune", "--unused", "tests/fixtures", "--refs", "tests")
    assert code == 0, out
    offered = [line.split()[0] for line in out.splitlines() if line.startswith("  ")]
    assert [Path(p).parent.parent.name for p in offered] == ["orphan"]
    assert "kept: 1 played, 1 referenced only" in out
    code, out = replaygate("patrol", "tests/fixtures", "--refs", "tests", "--json")
    refs = {row["fixture"].split("/")[2]: row["refs"] for row in json.loads(out)["fixtures"]}
    assert refs["chat"] == ["tests/test_chat.py"] and refs["orphan"] == []


@pytest.mark.slow
def test_a_request_two_merged_branches_recorded_with_other_answers_is_an_alarm(
    project: Path,
) -> None:
    """A merge=union keeps the lines of both branches: a request both recorded with other
    answers leaves a store that verify and the replay refuse, never a fixture 'added'."""
    git(project, "init", "-q", "-b", "main", "--template=")
    (project / ".gitattributes").write_text("*.jsonl merge=union\n", encoding="utf-8")
    (project / ".gitignore").write_text("*.lock\n", encoding="utf-8")
    store = project / "tests" / "fixtures" / "rc.jsonl"
    record(store, "one", "first")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "record")
    git(project, "checkout", "-q", "-b", "other")
    record(store, "two", "from the branch")
    git(project, "commit", "-q", "-am", "record on the branch")
    git(project, "checkout", "-q", "main")
    record(store, "two", "from main")
    git(project, "commit", "-q", "-am", "record on main")
    git(project, "merge", "-q", "--no-edit", "other")  # no conflict: the union
    assert "recorded twice with different responses" in replaygate("verify", str(store))[1]
    code, out = replaygate("diff", "tests/fixtures", "--base", "HEAD^1")
    assert code == 1, out
    assert "0 added, 0 removed" in out
    assert "1 ALARM (request recorded twice, other responses)" in out
    assert (
        f"ALARM  tests/fixtures/rc.jsonl:3  key {out.split('key ')[1][:12]}: request recorded "
        "again, with other responses than at tests/fixtures/rc.jsonl:2\n"
        "    response.content[0].text: 'from main' != 'from the branch'\n"
        "  the store now holds the same request twice with different responses"
    ) in out
    accepted = ["--allow-response-change", "--reason", "both are fine"]
    assert replaygate("diff", "tests/fixtures", "--base", "HEAD^1", *accepted)[0] == 1
    code, out = replaygate("diff", "tests/fixtures", "--base", "HEAD^1", "--json")
    (alarm,) = json.loads(out)["alarms"]
    assert code == 1 and (alarm["line"], alarm["of"]["line"]) == (3, 2)
    code, out = replaygate("diff", "tests/fixtures", "--base", "HEAD~2", "--format", "markdown")
    assert code == 1
    assert (
        "| **ALARM**: request recorded twice, other responses | `tests/fixtures/rc.jsonl:3`" in out
    )
