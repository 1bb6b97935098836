"""`replaygate diff` reads each side as git checks it out and as the store reads it on disk:
symlinks inside the repository are followed (a linked store file, a linked interface
folder), a symlink out of it is refused by name, and files git converts on checkout (line
ends, Git LFS) are compared in their checked-out form."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from replaygate import Fixture, FixtureStore
from replaygate.cli import main
from replaygate.fixtures.fixture import make_meta
from replaygate.hygiene.errors import HygieneError
from replaygate.hygiene.review import Review, review_store

# Each test makes a real git repository: end to end.
pytestmark = pytest.mark.slow

INTERFACE = "anthropic.messages@2023-06-01"
META = make_meta("anthropic.messages", "2023-06-01", "hand")


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=Test", "-c", "user.email=test@example.com",
         "-c", "commit.gpgsign=false", *args],
        cwd=repo, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout


def new_repo(root: Path) -> Path:
    """A new, empty repository (no template files) at ``root``."""
    root.mkdir()
    git(root, "init", "-q", "-b", "main", "--template=")
    return root


@pytest.fixture(scope="module")
def empty_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new repository ignoring the stores' locks, copied for each test: a copy of its
    few files takes a fraction of a millisecond of CPU, ``git init`` several times that."""
    root = new_repo(tmp_path_factory.mktemp("empty-repo") / "project")
    (root / ".gitignore").write_text("*.lock\n.replaygate.lock\n", encoding="utf-8")
    return root


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, empty_repo: Path) -> Path:
    root = tmp_path / "project"
    shutil.copytree(empty_repo, root, symlinks=True)
    monkeypatch.chdir(root)
    return root


def commit(repo: Path) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "fixtures")


def put(store: Path, question: str, answer: str) -> None:
    request = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 64,
        "messages": [{"role": "user", "content": question}],
    }
    response = {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": answer}], "stop_reason": "end_turn",
        "usage": {"input_tokens": 9, "output_tokens": 1},
    }  # fmt: skip
    with FixtureStore.open(store) as opened:
        opened.put(Fixture.create(request, [response], META))


def edit(file: Path, old: str, new: str) -> None:
    data = file.read_bytes()
    assert old.encode() in data
    file.write_bytes(data.replace(old.encode(), new.encode()))


def diff(*args: str) -> Result:
    return CliRunner().invoke(main, ["diff", *args])


def only_alarm(result: Review) -> str:
    [alarm] = result.alarms
    assert not (result.added or result.removed or result.paired)
    return alarm.new.file


def test_a_hand_edit_in_a_linked_interface_folder_is_an_alarm(repo: Path) -> None:
    put(repo / "shared", "Name a prime.", "2")
    (repo / "fx").mkdir()
    os.symlink(f"../shared/{INTERFACE}", repo / "fx" / INTERFACE)
    commit(repo)
    assert review_store(Path("fx")).unchanged

    [fixture_file] = (repo / "shared" / INTERFACE).glob("*.json")
    edit(fixture_file, '"text": "2"', '"text": "3"')
    named = f"fx/{INTERFACE}/{fixture_file.name}"
    assert only_alarm(review_store(Path("fx"))) == named
    done = diff("fx")
    assert done.exit_code == 1, done.output
    assert f"ALARM  {named}" in done.output


def test_a_linked_store_file_is_read_as_the_file_it_links_to(repo: Path) -> None:
    put(repo / "shared" / "rc.jsonl", "Name a prime.", "2")
    (repo / "fx").mkdir()
    os.symlink("../shared/rc.jsonl", repo / "fx" / "rc.jsonl")
    commit(repo)
    unchanged = diff("fx")
    assert unchanged.exit_code == 0, unchanged.output
    assert "no fixture changed (1 file(s) compared)" in unchanged.output

    edit(repo / "shared" / "rc.jsonl", '"text":"2"', '"text":"3"')
    assert only_alarm(review_store(Path("fx"))) == "fx/rc.jsonl"
    assert review_store(Path("fx"), base="HEAD", head="HEAD").unchanged


def test_a_link_out_of_the_repository_is_refused_by_name(repo: Path, tmp_path: Path) -> None:
    put(tmp_path / "elsewhere", "Name a prime.", "2")
    (repo / "fx").mkdir()
    os.symlink(tmp_path / "elsewhere" / INTERFACE, repo / "fx" / INTERFACE)
    put(repo / "fx" / "own.jsonl", "Name a prime.", "2")
    commit(repo)
    done = diff("fx")
    assert done.exit_code == 2
    assert f"fx/{INTERFACE} is a symlink to " in done.output
    assert "outside the git repository" in done.output
    with pytest.raises(HygieneError, match=r"^HEAD \([0-9a-f]{7}\):fx/anthropic"):
        review_store(Path("fx"), base="HEAD", head="HEAD")


def test_a_store_checked_out_with_crlf_line_ends_is_unchanged(repo: Path) -> None:
    (repo / ".gitattributes").write_text("*.jsonl text eol=crlf\n", encoding="utf-8")
    put(repo / "fx" / "rc.jsonl", "Name a prime.", "2")
    commit(repo)
    (repo / "fx" / "rc.jsonl").unlink()
    git(repo, "checkout", "--", "fx/rc.jsonl")
    assert b"\r\n" in (repo / "fx" / "rc.jsonl").read_bytes()

    result = review_store(Path("fx"))
    assert result.unchanged and not result.files_changed
    edit(repo / "fx" / "rc.jsonl", '"text":"2"', '"text":"3"')
    assert only_alarm(review_store(Path("fx"))) == "fx/rc.jsonl"


_LFS_CLEAN = """\
import hashlib, pathlib, sys
data = sys.stdin.buffer.read()
oid = hashlib.sha256(data).hexdigest()
pathlib.Path(".git/lfs-objects", oid).write_bytes(data)
sys.stdout.buffer.write(
    b"version https://git-lfs.github.com/spec/v1\\noid sha256:%s\\nsize %d\\n"
    % (oid.encode(), len(data))
)
"""
_LFS_SMUDGE = """\
import pathlib, sys
oid = sys.stdin.buffer.read().split(b"oid sha256:")[1].split(b"\\n")[0].decode()
sys.stdout.buffer.write(pathlib.Path(".git/lfs-objects", oid).read_bytes())
"""


def _lfs_filter(repo: Path) -> None:
    """A clean and smudge filter pair named ``lfs`` that does what Git LFS does (git-lfs
    itself where it is installed): git holds a pointer, the working tree the content."""
    (repo / ".gitattributes").write_text(
        "*.jsonl filter=lfs diff=lfs merge=lfs -text\n", encoding="utf-8"
    )
    if shutil.which("git-lfs"):
        git(repo, "lfs", "install", "--local")
        return
    (repo / ".git" / "lfs-objects").mkdir()
    for name, code in (("clean", _LFS_CLEAN), ("smudge", _LFS_SMUDGE)):
        script = repo / ".git" / f"lfs-{name}.py"
        script.write_text(code, encoding="utf-8")
        git(repo, "config", f"filter.lfs.{name}", f'"{sys.executable}" "{script}"')
    git(repo, "config", "filter.lfs.required", "true")


def test_a_store_in_git_lfs_is_reviewed_as_checked_out(repo: Path) -> None:
    _lfs_filter(repo)
    put(repo / "fx" / "rc.jsonl", "Name a prime.", "2")
    commit(repo)
    assert git(repo, "show", "HEAD:fx/rc.jsonl").startswith("version https://git-lfs")

    done = diff("fx")
    assert done.exit_code == 0, done.output
    assert "no fixture changed" in done.output
    edit(repo / "fx" / "rc.jsonl", '"text":"2"', '"text":"3"')
    assert only_alarm(review_store(Path("fx"))) == "fx/rc.jsonl"


def test_a_git_lfs_pointer_git_cannot_check_out_is_named_as_one(repo: Path) -> None:
    (repo / ".gitattributes").write_text("*.jsonl filter=lfs -text\n", encoding="utf-8")
    store = repo / "fx" / "rc.jsonl"
    store.parent.mkdir()
    store.write_text(
        "version https://git-lfs.github.com/spec/v1\noid sha256:" + "0" * 64 + "\nsize 9\n",
        encoding="utf-8",
    )
    commit(repo)  # no lfs filter here: git holds and checks out the pointer as it is
    store.unlink()
    put(store, "Name a prime.", "2")
    done = diff("fx")
    assert done.exit_code == 2
    assert "fx/rc.jsonl is a Git LFS pointer, not the fixtures it stands for" in done.output
    assert "git lfs install" in done.output
    assert "committed so" not in done.output and "malformed" not in done.output


def test_links_to_links_are_followed_and_a_link_back_up_is_not(repo: Path) -> None:
    put(repo / "shared", "Name a prime.", "2")
    os.symlink(f"shared/{INTERFACE}", repo / "alias")
    (repo / "fx").mkdir()
    os.symlink("../alias", repo / "fx" / INTERFACE)  # a link to a link
    os.symlink("..", repo / "fx" / "up")  # back up to a folder that holds it: not followed
    commit(repo)
    for head in (None, "HEAD"):
        result = review_store(Path("fx"), head=head)
        assert result.unchanged and result.files_compared == 1, result
    [fixture_file] = (repo / "shared" / INTERFACE).glob("*.json")
    edit(fixture_file, '"text": "2"', '"text": "3"')
    assert only_alarm(review_store(Path("fx"))) == f"fx/{INTERFACE}/{fixture_file.name}"


def test_a_linked_folder_is_listed_whatever_characters_its_file_names_hold(repo: Path) -> None:
    name = "\U0001f600.jsonl"  # a character beyond U+FFFF sorts after every other
    put(repo / "shared" / name, "Name a prime.", "2")
    (repo / "fx").mkdir()
    os.symlink("../shared", repo / "fx" / "linked")
    commit(repo)
    result = review_store(Path("fx"))
    assert result.unchanged and result.files_compared == 1, result


@pytest.fixture(scope="module")
def vendored_repo(empty_repo: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A repository whose store is kept in the git submodule ``fx/vendor``, beside a store
    of its own, committed, the submodule's clone checked out: made once per module (its
    clone, commits and ``submodule add`` run a dozen git processes) and copied by
    :func:`vendored` for each test."""
    folder = tmp_path_factory.mktemp("vendored")
    vendor = new_repo(folder / "vendor")
    put(vendor / "rc.jsonl", "Name a prime.", "2")
    commit(vendor)
    repo = folder / "project"
    shutil.copytree(empty_repo, repo, symlinks=True)
    put(repo / "fx" / "own.jsonl", "Name a colour.", "red")
    add = ["-c", "protocol.file.allow=always", "submodule", "add", "-q", str(vendor)]
    git(repo, *add, "fx/vendor")
    commit(repo)
    return repo


def vendored(repo: Path, vendored_repo: Path) -> Path:
    """``repo`` (the working folder) made a copy of :func:`vendored_repo`; the submodule's
    clone in it."""
    shutil.rmtree(repo)
    shutil.copytree(vendored_repo, repo, symlinks=True)
    os.chdir(repo)  # the folder of that name again (the fixture's monkeypatch restores it)
    return repo / "fx" / "vendor"


def test_a_hand_edit_in_a_git_submodule_is_an_alarm(repo: Path, vendored_repo: Path) -> None:
    module = vendored(repo, vendored_repo)
    result = review_store(Path("fx"))
    assert result.unchanged and result.files_compared == 2, result

    edit(module / "rc.jsonl", '"text":"2"', '"text":"3"')
    assert only_alarm(review_store(Path("fx"))) == "fx/vendor/rc.jsonl"  # the working tree
    commit(module)
    commit(repo)  # the superproject records the submodule's new commit
    for path in ("fx", "fx/vendor", "fx/vendor/rc.jsonl"):
        done = diff(path, "--base", "HEAD~1", "--head", "HEAD")
        assert done.exit_code == 1, done.output
        assert "ALARM  fx/vendor/rc.jsonl:1" in done.output
        assert "'2' != '3'" in done.output


def test_a_git_submodule_that_cannot_be_read_is_refused_by_name(
    repo: Path, vendored_repo: Path
) -> None:
    vendored(repo, vendored_repo)
    os.symlink("vendor/rc.jsonl", repo / "fx" / "linked.jsonl")
    commit(repo)
    into = "fx/linked.jsonl is a symlink to 'vendor/rc.jsonl', in the git submodule fx/vendor"
    done = diff("fx")
    assert done.exit_code == 2 and into in done.output, done.output
    with pytest.raises(HygieneError, match=r"^HEAD \([0-9a-f]{7}\):fx/linked\.jsonl is a sym"):
        review_store(Path("fx"), base="HEAD", head="HEAD")
    (repo / "fx" / "linked.jsonl").unlink()
    commit(repo)

    git(repo, "update-index", "--cacheinfo", f"160000,{'1' * 40},fx/vendor")
    git(repo, "commit", "-q", "-m", "a commit the submodule's clone does not hold")
    done = diff("fx", "--base", "HEAD~1", "--head", "HEAD")
    assert done.exit_code == 2
    assert "fx/vendor is a git submodule at commit 111111111111 in HEAD (" in done.output
    assert (
        f"which its clone does not hold: fetch it (`git -C fx/vendor fetch origin {'1' * 40}`"
        in done.output
    )

    git(repo, "submodule", "deinit", "-q", "-f", "fx/vendor")
    for head in ([], ["--head", "HEAD~1"]):
        done = diff("fx", "--base", "HEAD~1", *head)
        assert done.exit_code == 2
        assert "fx/vendor is a git submodule that is not checked out" in done.output
        assert "Run `git submodule update --init fx/vendor`" in done.output
    git(repo, "rm", "-q", "fx/vendor")
    done = diff("fx", "--base", "HEAD")
    assert done.exit_code == 2
    assert "fx/vendor is a git submodule that the working tree no longer holds" in done.output


def test_a_git_repository_inside_the_store_that_is_no_submodule_is_refused(repo: Path) -> None:
    put(repo / "fx" / "own.jsonl", "Name a colour.", "red")
    commit(repo)
    inner = repo / "fx" / "inner"
    inner.mkdir()
    git(inner, "init", "-q", "--template=")
    put(inner / "rc.jsonl", "Name a prime.", "2")  # the store reads it: git holds none of it
    done = diff("fx")
    assert done.exit_code == 2
    assert "fx/inner is a git repository of its own inside this one, not a submodule" in (
        done.output
    )


def test_a_store_left_out_of_a_sparse_checkout_is_refused_not_removed(repo: Path) -> None:
    put(repo / "tests" / "fixtures" / "rc.jsonl", "What is RAG?", "Retrieval.")
    (repo / "README.md").write_text("app\n", encoding="utf-8")
    commit(repo)
    git(repo, "sparse-checkout", "set", "--no-cone", "/*", "!/tests/fixtures/")
    assert not (repo / "tests" / "fixtures" / "rc.jsonl").exists()
    result = diff("tests/fixtures")
    assert result.exit_code == 2, result.output
    assert "removed" not in result.output
    assert "tests/fixtures/rc.jsonl: left out of this sparse checkout" in result.output
    assert "`git sparse-checkout add /tests/fixtures/rc.jsonl`" in result.output
    left_out = "git holds it, but this sparse checkout leaves it out: run `git sparse-checkout"
    for there in ("holds no fixture store file in this checkout", "no such file or folder"):
        for command in ("verify", "checksum"):  # the folder with the store's lock in it, or not
            result = CliRunner().invoke(main, [command, "tests/fixtures"])
            assert result.exit_code == 2, result.output
            assert f"tests/fixtures: {there}: {left_out} add '/tests/fixtures/**'`" in result.output
        shutil.rmtree(repo / "tests" / "fixtures", ignore_errors=True)


def test_a_partial_clone_whose_remote_is_gone_says_what_it_lacks(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # git's own "could not fetch ... from promisor remote" was all `diff` said
    put(repo / "fx" / "rc.jsonl", "Name a prime.", "2")
    commit(repo)
    put(repo / "fx" / "rc.jsonl", "Name an even prime.", "2")
    commit(repo)
    git(repo, "config", "uploadpack.allowFilter", "true")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--filter=blob:none", f"file://{repo}", str(clone))
    shutil.rmtree(repo)
    monkeypatch.chdir(clone)
    done = diff("fx", "--base", "HEAD~1")
    assert done.exit_code == 2, done.output
    assert "from promisor remote" in done.output
    assert "This is a partial clone (git clone --filter, actions/checkout's filter)" in done.output


def test_the_default_path_read_from_a_folder_of_the_project_says_where_it_was_read(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # run from tests/, the default tests/fixtures named no folder there, and the error
    # said only that there were no fixture files at tests/fixtures
    put(repo / "tests" / "fixtures" / "rc.jsonl", "Name a prime.", "2")
    commit(repo)
    monkeypatch.chdir(repo / "tests")
    done = diff()
    assert done.exit_code == 2, done.output
    assert (
        "at tests/fixtures in HEAD (...) nor in working tree (a relative path, read from the "
        f"working folder, {repo / 'tests'}); the repository's top folder holds "
        "tests/fixtures, which from here is fixtures"
    ) in re.sub(r"HEAD \([0-9a-f]+\)", "HEAD (...)", done.output)
