"""The few git facts replaygate needs: the commit, the repository root, changed files."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from replaygate.evals.errors import EvalError
from replaygate.locale_names import on_disk


class GitError(EvalError):
    """A git command failed (names the command and git's message).

    ``said`` is what git printed on stderr, ``status`` its exit status (None when git
    could not be run).
    """

    def __init__(self, message: str, said: str = "", status: int | None = None) -> None:
        super().__init__(message)
        self.said = said
        self.status = status


NOT_A_REPOSITORY = "not a git repository"
"""What git says of a folder in no repository (``fatal: not a git repository ...``), where
a repository it refuses to read says why (``detected dubious ownership``, its fix named).
Git says it in English only where :func:`git_environment` runs it."""


def git_environment() -> dict[str, str]:
    """The process's environment with git's messages in English (``LANGUAGE=en``, read
    before ``LC_ALL`` and ``LANG``): :data:`NOT_A_REPOSITORY` is found under any locale."""
    return {**os.environ, "LANGUAGE": "en"}


def git(args: list[str], cwd: Path) -> str:
    """Run ``git ARGS`` in ``cwd``; its stdout, or :class:`GitError` with git's stderr."""
    try:
        done = subprocess.run(
            ["git", *args],
            cwd=cwd,
            env=git_environment(),
            capture_output=True,
            # bytes that are not UTF-8 (a file's content, a path) pass through as on disk
            encoding="utf-8",
            errors="surrogateescape",
            check=False,
            timeout=60,
        )
    except FileNotFoundError:
        raise GitError("git is not installed (needed for commits and --base)") from None
    if done.returncode != 0:
        said = done.stderr.strip()
        message = said or f"exit status {done.returncode}"
        raise GitError(f"`git {' '.join(args)}` failed in {cwd}: {message}", said, done.returncode)
    return done.stdout


GIT_DIR_VARIABLES = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR")
"""What points git at a repository other than one it finds from its working folder."""


def outside_any_repository(cwd: Path) -> bool:
    """Whether git run in ``cwd`` would find no repository, known without running it: none
    of :data:`GIT_DIR_VARIABLES` is set, and neither ``cwd`` (as the file system names
    it, its links followed, as git sees it) nor any folder above it holds a ``.git`` or a
    ``HEAD`` (a bare repository's), each known to be absent. Git looks no further (and a
    ceiling or a file system boundary makes it look less far); a name that cannot be
    looked up leaves the answer to git.

    Every eval and baseline update asks for the commit: outside a repository, a git
    process (milliseconds) only said "not a git repository"."""
    if any(name in os.environ for name in GIT_DIR_VARIABLES):
        return False
    folder = Path(os.path.realpath(cwd))
    return all(_absent(above / name) for above in (folder, *folder.parents)
               for name in (".git", "HEAD"))  # fmt: skip


def _absent(path: Path) -> bool:
    """Whether nothing is at ``path`` (a link, even a broken one, is something); False
    where it cannot be told."""
    try:
        os.lstat(path)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return False


def head_commit(cwd: Path) -> str | None:
    """The commit checked out in ``cwd``, or None outside a repository, before its first
    commit, or without git. A repository git refuses to read (``detected dubious
    ownership``: a checkout another user owns, as in a CI container) is a
    :class:`GitError` naming it and git's fix, never taken for no repository: its
    commit would be written as null, and a baseline's tree as clean."""
    if outside_any_repository(cwd):
        return None
    try:
        return git(["rev-parse", "--verify", "-q", "HEAD^{commit}"], cwd).strip() or None
    except GitError as err:
        # no git; outside a repository; no commit yet (git ends with 1 and says nothing)
        if err.status is None or NOT_A_REPOSITORY in err.said or err.status == 1:
            return None
        raise GitError(
            f"cannot read the commit checked out in {cwd}, which the results and a "
            f"baseline's history keep: git refuses the repository: {err.said}"
        ) from None


def is_dirty(cwd: Path) -> bool:
    """True when tracked files differ from the commit (False outside a repository)."""
    if outside_any_repository(cwd):
        return False
    try:
        return bool(git(["status", "--porcelain", "--untracked-files=no"], cwd).strip())
    except GitError:
        return False


def repo_root(cwd: Path) -> Path:
    """The top directory of the repository holding ``cwd``, its name read as the file
    system names it (an ASCII locale's too, where a UTF-8 name is not the file's)."""
    return Path(on_disk(git(["rev-parse", "--show-toplevel"], cwd).strip()))


def merge_base(rev: str, cwd: Path) -> str:
    """The merge base of ``rev`` and HEAD (``rev`` is never read as an option). In a
    shallow clone that holds ``rev`` but not the commits back to the merge base (a
    checkout of depth 1 that fetched the base branch too), :class:`GitError` says to
    fetch the history, where git says nothing."""
    try:
        return git(["merge-base", "--end-of-options", rev, "HEAD"], cwd).strip()
    except GitError:
        if git(["rev-parse", "--is-shallow-repository"], cwd).strip() != "true":
            raise
        raise GitError(
            f"no merge base of {rev!r} and HEAD in the repository at {repo_root(cwd)}: it is "
            "a shallow clone, with no history beyond the commits fetched (fetch the history, "
            "e.g. fetch-depth: 0 in actions/checkout, or `git fetch --unshallow`)"
        ) from None


def _names(args: list[str], cwd: Path) -> list[str]:
    """The paths a git command lists with ``-z``: as they are, never quoted (a name with
    non-ASCII letters, a quote or a newline is not mangled)."""
    command, *rest = args
    return [on_disk(name) for name in git([command, "-z", *rest], cwd).split("\0") if name]


def changed_files(base: str, cwd: Path) -> list[Path]:
    """Files changed since the merge base of ``base`` and HEAD, plus uncommitted and new ones.

    Absolute paths, sorted, deleted files included. git names both from the top of the
    repository (``ls-files`` names them from ``cwd`` unless told otherwise: a project
    below the top, a monorepo's ``service/``, had its new files looked for at the wrong
    path, claimed by no change class).
    """
    root = repo_root(cwd)
    since = merge_base(base, cwd)
    names = set(_names(["diff", "--name-only", "--no-renames", since], cwd))
    names.update(_names(["ls-files", "--others", "--exclude-standard", "--full-name"], cwd))
    return sorted(root / name for name in names)


def file_at(rev: str, path: Path, cwd: Path) -> str | None:
    """The text of ``path`` at ``rev`` (the merge base with HEAD), or None if absent there."""
    root = repo_root(cwd)
    relative = path.resolve().relative_to(root.resolve()).as_posix()
    since = merge_base(rev, cwd)
    try:
        return git(["show", f"{since}:{relative}"], cwd)
    except GitError:
        return None
