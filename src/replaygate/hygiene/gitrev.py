"""Reading files at a git revision: ``git ls-tree`` and ``git cat-file`` through subprocess."""

from __future__ import annotations

import hashlib
import subprocess
from dataclasses import dataclass
from pathlib import Path

from replaygate.fixtures.store.files import resolved
from replaygate.hygiene.errors import HygieneError

_TIMEOUT = 120


def run_git(args: list[str], cwd: Path, stdin: bytes | None = None) -> bytes:
    """``git ARGS`` in ``cwd``: its stdout, or :class:`HygieneError` with git's message.

    Paths are taken literally (``--literal-pathspecs``): a store folder named ``st*`` or
    ``:(top)x`` is that folder, never a pattern or pathspec magic that git would match
    differently in ``ls-files`` and ``ls-tree``.
    """
    command = ["git", "--literal-pathspecs", *args]
    try:
        done = subprocess.run(
            command, cwd=cwd, input=stdin, capture_output=True, check=False, timeout=_TIMEOUT
        )
    except FileNotFoundError:
        raise HygieneError(
            "git is not installed; `replaygate diff` reads revisions with git"
        ) from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip() or f"exit {done.returncode}"
        raise HygieneError(f"`git {' '.join(args)}` failed in {cwd}: {message}")
    return done.stdout


def blob_id(data: bytes) -> str:
    """The id git gives a file with these bytes (SHA-1 object format)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def _existing_ancestor(path: Path) -> Path:
    for candidate in (path, *path.parents):
        if candidate.is_dir():
            return candidate
    return Path.cwd()


@dataclass(frozen=True)
class Repo:
    """A git repository, found from a path inside it."""

    root: Path

    @staticmethod
    def containing(path: Path) -> Repo:
        """The repository holding ``path`` (which may not exist on disk)."""
        where = _existing_ancestor(resolved(path))
        try:
            top = run_git(["rev-parse", "--show-toplevel"], where)
        except HygieneError:
            raise HygieneError(
                f"{path} is not inside a git repository; `replaygate diff` compares "
                "fixtures between git revisions (run it inside the repository)"
            ) from None
        return Repo(Path(top.decode("utf-8").strip()).resolve())

    def relative(self, path: Path) -> str:
        """``path`` relative to the repository root, POSIX form (``""`` for the root)."""
        absolute = resolved(path)
        try:
            rel = absolute.relative_to(self.root)
        except ValueError:
            raise HygieneError(f"{path} is outside the git repository at {self.root}") from None
        text = rel.as_posix()
        return "" if text == "." else text

    def commit(self, rev: str) -> str:
        """The commit id ``rev`` names; :class:`HygieneError` for an unknown revision."""
        try:
            out = run_git(
                ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"],
                self.root,
            )
        except HygieneError:
            hint = ""
            if rev == "HEAD":
                hint = " (the repository has no commits yet: commit the fixtures first)"
            raise HygieneError(f"unknown revision {rev!r} in {self.root}{hint}") from None
        return out.decode("ascii").strip()

    def tree(self, commit: str, relpath: str) -> dict[str, str]:
        """Files under ``relpath`` at ``commit``: repository-relative path -> blob id."""
        args = ["ls-tree", "-r", "-z", "--full-tree", commit]
        if relpath:
            args += ["--", relpath]
        files: dict[str, str] = {}
        for record in run_git(args, self.root).split(b"\0"):
            if not record:
                continue
            info, _, name = record.partition(b"\t")
            parts = info.split()
            if len(parts) == 3 and parts[1] == b"blob":
                files[name.decode("utf-8", "surrogateescape")] = parts[2].decode("ascii")
        return files

    def blobs(self, ids: list[str]) -> dict[str, bytes]:
        """The content of each blob id, read with one ``git cat-file --batch``."""
        if not ids:
            return {}
        unique = list(dict.fromkeys(ids))
        out = run_git(
            ["cat-file", "--batch"], self.root, ("\n".join(unique) + "\n").encode("ascii")
        )
        found: dict[str, bytes] = {}
        pos = 0
        for wanted in unique:
            end = out.index(b"\n", pos)
            header = out[pos:end].split()
            if len(header) != 3:
                raise HygieneError(f"git cannot read object {wanted} in {self.root}")
            size = int(header[2])
            found[wanted] = out[end + 1 : end + 1 + size]
            pos = end + 1 + size + 1
        return found
