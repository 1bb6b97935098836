"""The commit the results and a baseline's history keep: null outside git, before the
first commit or without git, and a repository git refuses to read (a checkout another
user owns, as in a CI container: ``detected dubious ownership``) refused with git's fix,
never written as a null commit and a clean tree."""

from __future__ import annotations

import subprocess
import warnings
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from replaygate.cli import main
from replaygate.evals import load_eval_cases, run_eval
from replaygate.evals.git import GitError, head_commit, is_dirty
from replaygate.examples.research_copilot import copilot, shipped_eval_cases, shipped_fixtures
from replaygate.sampling.advice import SamplingWarning

pytestmark = pytest.mark.slow  # git runs in processes of its own

REFUSED = "GIT_TEST_ASSUME_DIFFERENT_OWNER"
"""Makes git take the repository for another user's, as a CI container's checkout is."""


def _repo(path: Path, *, commit: bool) -> Path:
    path.mkdir()
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    if commit:
        who = ["-c", "user.name=t", "-c", "user.email=t@t"]
        subprocess.run(
            ["git", "-C", str(path), *who, "commit", "-q", "--allow-empty", "-m", "first"],
            check=True,
        )
    return path


def test_no_repository_and_no_commit_keep_no_commit(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    assert head_commit(tmp_path / "plain") is None
    assert head_commit(_repo(tmp_path / "empty", commit=False)) is None
    assert len(head_commit(_repo(tmp_path / "repo", commit=True)) or "") == 40


def test_git_runs_only_where_a_repository_may_be(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where no ``.git`` nor ``HEAD`` is in a folder or above it and no ``GIT_DIR`` is set,
    git could only say "not a git repository": no git process is started. A folder git may
    take for a repository's (in a work tree, a bare repository, reached through a link, or
    named by ``GIT_DIR``) is left to git: here one on ``PATH`` that notes each run."""
    repo = _repo(tmp_path / "repo", commit=True)
    (repo / "sub").mkdir()
    (tmp_path / "bare").mkdir()
    (tmp_path / "bare" / "HEAD").write_text("ref: refs/heads/main\n")
    (tmp_path / "link").symlink_to(repo / "sub")
    (tmp_path / "plain").mkdir()
    tools, runs = tmp_path / "tools", tmp_path / "runs"
    tools.mkdir()
    noting = tools / "git"
    noting.write_text(
        f"#!/bin/sh\necho \"$PWD\" >> '{runs}'\necho 'fatal: not a git repository' >&2\nexit 128\n"
    )
    noting.chmod(0o755)
    monkeypatch.setenv("PATH", str(tools))

    def asked(folder: Path) -> bool:
        runs.unlink(missing_ok=True)
        assert head_commit(folder) is None and is_dirty(folder) is False
        return runs.exists()

    assert not asked(tmp_path / "plain")
    for folder in (repo / "sub", tmp_path / "bare", tmp_path / "link"):
        assert asked(folder), folder
    monkeypatch.setenv("GIT_DIR", str(repo / ".git"))
    assert asked(tmp_path / "plain")


def test_a_repository_git_refuses_is_named_with_its_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _repo(tmp_path / "repo", commit=True)
    monkeypatch.setenv(REFUSED, "1")
    with pytest.raises(GitError, match="git refuses the repository") as caught:
        head_commit(repo)
    assert "safe.directory" in str(caught.value)


def test_baseline_update_in_a_refused_repository_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _repo(tmp_path / "repo", commit=True)
    case = replace(load_eval_cases(shipped_eval_cases())[0], samples=1, floor=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SamplingWarning)  # one sample: not the point
        run_eval([case], shipped_fixtures(), agent=copilot).write(repo / "results.json")
    monkeypatch.setenv(REFUSED, "1")
    monkeypatch.chdir(repo)
    args = ["baseline", "update", "--results", "results.json", "--baseline", "baseline.json"]
    done = CliRunner().invoke(main, [*args, "--reason", "first"])
    assert done.exit_code == 2, done.output
    assert "detected dubious ownership" in done.output
    assert "no git commit found" not in done.output
    assert not (repo / "baseline.json").exists()
