"""Reading files at a git revision: ``git ls-tree`` and ``git cat-file`` through subprocess."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from replaygate.evals.git import NOT_A_REPOSITORY, git_environment
from replaygate.fixtures.store.files import resolved
from replaygate.hygiene.errors import HygieneError

_TIMEOUT = 120
_COMMIT_ID = re.compile(r"[0-9a-fA-F]{40}|[0-9a-fA-F]{64}")
"""A commit named by its whole id (SHA-1 or SHA-256), as CI gives a pull request's base."""


def run_git(args: list[str], cwd: Path, stdin: bytes | None = None) -> bytes:
    """``git ARGS`` in ``cwd``: its stdout, or :class:`HygieneError` with git's message.

    Paths are taken literally (``--literal-pathspecs``): a store folder named ``st*`` or
    ``:(top)x`` is that folder, never a pattern or pathspec magic that git would match
    differently in ``ls-files`` and ``ls-tree``.
    """
    command = ["git", "--literal-pathspecs", *args]
    try:
        done = subprocess.run(
            command,
            cwd=cwd,
            env=git_environment(),
            input=stdin,
            capture_output=True,
            check=False,
            timeout=_TIMEOUT,
        )
    except FileNotFoundError:
        raise HygieneError(
            "git is not installed, or not on PATH; `replaygate diff` reads revisions with "
            "git: install it, or add the folder holding it to PATH"
        ) from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip() or f"exit {done.returncode}"
        if _PROMISOR in done.stderr:
            message += f"\n{PARTIAL_CLONE}"
        raise HygieneError(f"`git {' '.join(args)}` failed in {cwd}: {message}")
    return done.stdout


def _toplevel(where: Path, name: str | None) -> tuple[bytes, str | None]:
    """The top folder of the repository holding ``where``, and the commit ``name`` names
    there (None where it names none, or none was asked), from one ``git rev-parse``;
    :class:`HygieneError` as :func:`run_git` raises it where git fails otherwise (no
    repository, no git)."""
    asked = ["rev-parse", "--show-toplevel"]
    if name is not None:
        try:
            said = run_git([*asked, "--verify", "--quiet", "--end-of-options", name], where)
        except HygieneError:
            pass  # no such commit, or no repository: asked again alone, to say which
        else:
            top, _, commit = said.removesuffix(b"\n").rpartition(b"\n")
            if top and _COMMIT_ID.fullmatch(commit.decode("ascii", "replace")):
                return top, commit.decode("ascii")
    return run_git(asked, where), None


_PROMISOR = b"from promisor remote"
"""What git says when a partial clone cannot fetch an object it lacks from its remote."""

PARTIAL_CLONE = (
    "This is a partial clone (git clone --filter, actions/checkout's filter), which holds "
    "the files of a revision only once they are fetched from its remote, and the remote "
    "could not be reached: run the command again where it can (git fetches what it lacks "
    "as it reads), or clone without --filter"
)
"""What to do when git fails to read a revision's file that a partial clone lacks."""


def blob_id(data: bytes) -> str:
    """The id git gives a file with these bytes (SHA-1 object format)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


LINK_MODE = "120000"
"""The mode git stores a symlink with: its blob is the link's text."""
GITLINK_MODE = "160000"
"""The mode git stores a submodule with: the commit of another repository (a gitlink)."""
GITLINK = "commit"
"""The kind ``git ls-tree`` gives a submodule's entry."""
_CONVERTING = ("filter", "text", "eol", "working-tree-encoding", "ident")
"""The attributes by which ``git checkout`` writes a file otherwise than git holds it."""


@dataclass(frozen=True)
class TreeEntry:
    """One ``git ls-tree`` entry: mode, kind (``blob``, ``tree``, ``commit``) and object id."""

    mode: str
    kind: str
    oid: str

    @property
    def is_link(self) -> bool:
        """Whether the entry is a symlink."""
        return self.mode == LINK_MODE


@dataclass(frozen=True)
class Blob:
    """A file at a revision: the path git holds it at (a symlink's target) and its blob."""

    path: str
    oid: str


def relative_to_root(relpath: str) -> str:
    """A relative path as this module writes it: ``""`` for the root itself (``.``)."""
    return "" if relpath == "." else relpath


def _existing_ancestor(path: Path) -> Path:
    for candidate in (path, *path.parents):
        if candidate.is_dir():
            return candidate
    return Path.cwd()


def _outside(path: Path, real: Path) -> str:
    """Why ``path``, whose links lead to ``real``, is in no repository: a symbolic link
    on its way leads out of the one the command runs in, which holds the link only."""
    if real == Path(os.path.abspath(path)):
        return (
            "is not inside a git repository; `replaygate diff` compares fixtures between "
            "git revisions (run it inside the repository)"
        )
    return (
        f"leads through a symbolic link to {real}, which is not inside a git repository "
        "(git versions a link, not what it leads to): diff the fixtures where they are "
        "versioned, or commit them in place of the link"
    )


@dataclass(frozen=True)
class Repo:
    """A git repository, found from a path inside it.

    What it answers once is not asked again of git (a command reads both sides of a
    review from one repository): the commit a revision names, a setting, a path's
    attributes. Each command finds its own repository, so none of it outlives the
    command.
    """

    root: Path
    _commits: dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    _settings: dict[str, str | None] = field(default_factory=dict, compare=False, repr=False)
    _attributes: dict[str, dict[str, str]] = field(default_factory=dict, compare=False, repr=False)

    @staticmethod
    def containing(path: Path, rev: str | None = None) -> Repo:
        """The repository holding ``path`` (which may not exist on disk): for a path in a
        git submodule, the superproject the command runs in (the working directory lies
        in it, not in the submodule), whose revisions ``--base`` and ``--head`` name.

        Given ``rev``, the commit it names is asked of git in the same ``git rev-parse``
        (one process less for each review): kept for :meth:`commit` where the repository
        found is the one asked and git named one; otherwise :meth:`commit` asks again,
        and says what is wrong with it."""
        real = resolved(path)
        where = _existing_ancestor(real)
        # a revision naming a path (HEAD:x) is not read from ``where``: asked by commit()
        name = None if rev is None or ":" in rev else f"{rev}^{{commit}}"
        try:
            top, commit = _toplevel(where, name)
        except HygieneError as err:
            if NOT_A_REPOSITORY not in str(err):  # no git, or a repository it will not read
                raise
            raise HygieneError(f"{path} {_outside(path, real)}") from None
        root = Path(os.fsdecode(top.strip())).resolve()
        found = root
        here = Path.cwd().resolve()
        while not here.is_relative_to(root):
            above = run_git(["rev-parse", "--show-superproject-working-tree"], root).strip()
            if not above or not here.is_relative_to(Path(os.fsdecode(above)).resolve()):
                break
            root = Path(os.fsdecode(above)).resolve()
        repo = Repo(root)
        if commit is not None and rev is not None and root == found:
            repo._commits[rev] = commit
        return repo

    def relative(self, path: Path) -> str:
        """``path`` relative to the repository root, POSIX form (``""`` for the root)."""
        absolute = resolved(path)
        try:
            rel = absolute.relative_to(self.root)
        except ValueError:
            raise HygieneError(f"{path} is outside the git repository at {self.root}") from None
        return relative_to_root(rel.as_posix())

    def commit(self, rev: str) -> str:
        """The commit id ``rev`` names; :class:`HygieneError` for an unknown revision."""
        if rev not in self._commits:
            try:
                out = run_git(
                    ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"],
                    self.root,
                )
            except HygieneError:
                raise HygieneError(
                    f"unknown revision {rev!r} in {self.root}{self._hint(rev)}"
                ) from None
            self._commits[rev] = out.decode("ascii").strip()
        return self._commits[rev]

    def _hint(self, rev: str) -> str:
        """What to do about ``rev``, which names no commit here: an empty one is what a
        ``$(git merge-base ...)`` that failed gives, and a shallow clone holds no history
        beyond its tip."""
        if rev == "HEAD":
            return " (the repository has no commits yet: commit the fixtures first)"
        if not rev.strip():
            return (
                " (an empty revision: the command that gave it, such as `git merge-base "
                "origin/main HEAD`, printed nothing; it fails in a shallow clone or when the "
                "branch was not fetched)"
            )
        if _COMMIT_ID.fullmatch(rev):  # fetched by its id into a shallow clone too
            return (
                f" (a commit not fetched: `git fetch origin {rev}`; or one gone from the "
                "history after a force-push)"
            )
        if run_git(["rev-parse", "--is-shallow-repository"], self.root).strip() == b"true":
            return (
                " (this clone is shallow, with no history beyond the commits fetched: fetch "
                "it, `git fetch --unshallow`, or fetch-depth: 0 in actions/checkout; or a "
                "typo, or a branch not fetched)"
            )
        remotes = run_git(["remote"], self.root).decode("utf-8", "replace").split()
        remote, slash, branch = rev.partition("/")
        if slash and remote not in remotes:  # a remote's branch, as `origin/main` names one
            held = (
                f"(its remotes: {', '.join(remotes)}): `git fetch {remotes[0]} BRANCH`"
                if remotes
                else "(it has no remote): compare with a commit or branch of its own, such as "
                f"--base HEAD~1, or add the remote, `git remote add {remote} URL`, and fetch it"
            )
            return (
                f" (a typo, or a branch of a remote {remote!r}, which this repository does not "
                f"have {held})"
            )
        fetch = f"{remote} {branch}" if slash and branch else "origin BRANCH"
        return f" (a typo, or a branch not fetched: `git fetch {fetch}`)"

    def holds(self, commit: str) -> bool:
        """Whether the repository's objects hold ``commit`` (a submodule's clone may not
        hold a commit its superproject records: not fetched, or a shallow clone)."""
        try:
            run_git(["cat-file", "-e", f"{commit}^{{commit}}"], self.root)
        except HygieneError:
            return False
        return True

    def gitlink_holding(self, commit: str, relpath: str) -> tuple[str, str] | None:
        """The git submodule that holds ``relpath`` (a path below it) at ``commit``: its
        path and the commit recorded for it; None when ``relpath`` is in no submodule."""
        parts = relpath.split("/")
        above = ["/".join(parts[:n]) for n in range(1, len(parts))]
        if not relpath or not above:
            return None
        for path, entry in self.listing(commit, "", paths=above).items():
            if path in above and entry.kind == GITLINK:
                return path, entry.oid
        return None

    def gitlinks(self, paths: list[str]) -> dict[str, str]:
        """Those of ``paths`` (listed by ``git ls-files``) that the index holds as git
        submodules: path -> the commit recorded for it."""
        if not paths:
            return {}
        staged = run_git(["ls-files", "-z", "-s", "--full-name", "--", *paths], self.root)
        found: dict[str, str] = {}
        for record in staged.split(b"\0"):
            info, _, raw = record.partition(b"\t")
            parts = info.split()
            if len(parts) == 3 and parts[0] == GITLINK_MODE.encode():
                found[os.fsdecode(raw)] = parts[1].decode("ascii")
        return found

    def listing(
        self, commit: str, relpath: str, *, trees: bool = False, paths: list[str] | None = None
    ) -> dict[str, TreeEntry]:
        """What ``git ls-tree -r`` lists under ``relpath`` at ``commit`` (``trees``: the
        folders too): repository-relative path -> entry, a symlink as its own entry, a
        git submodule as one entry of kind ``commit``. Given ``paths``, the entries of
        those paths and of the folders on the way to them, not recursively."""
        recurse = ["-r"] if paths is None else []
        args = ["ls-tree", *recurse, "-z", "--full-tree", *(["-t"] if trees else []), commit]
        if paths is not None:
            args += ["--", *paths]
        elif relpath:
            args += ["--", relpath]
        found: dict[str, TreeEntry] = {}
        for record in run_git(args, self.root).split(b"\0"):
            info, _, name = record.partition(b"\t")
            parts = info.decode("ascii").split()
            if len(parts) == 3:
                found[os.fsdecode(name)] = TreeEntry(*parts)
        return found

    def renames(self, base: str, head: str | None, relpath: str) -> list[tuple[str, str, int]]:
        """The files git's rename detection (``-M``) finds renamed or moved under ``relpath``
        (``""``: anywhere) from commit ``base`` to commit ``head``, or to the working tree's
        tracked files (a ``git mv``, or a move that ``git add`` staged):
        ``(old path, new path, similarity in percent)``."""
        if head is None:  # the tree of base against the working tree
            args = ["diff-index", "-M", "-z", "--name-status", "--diff-filter=R", base]
        else:
            args = ["diff-tree", "-r", "-M", "-z", "--name-status", "--diff-filter=R", base, head]
        fields = run_git([*args, "--", *([relpath] if relpath else [])], self.root).split(b"\0")
        return [
            (
                os.fsdecode(fields[i + 1]),
                os.fsdecode(fields[i + 2]),
                int(fields[i][1:] or b"100"),
            )
            for i in range(0, len(fields) - 2, 3)
        ]

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

    def converted(self, paths: Iterable[str]) -> set[str]:
        """The ``paths`` that ``git checkout`` converts (a filter such as Git LFS, a line
        end conversion, an encoding: ``.gitattributes``, or ``core.autocrlf``)."""
        wanted = list(dict.fromkeys(paths))
        if not wanted:
            return set()
        values = self._attributes
        unknown = [p for p in wanted if p not in values]
        if unknown:
            stdin = b"".join(os.fsencode(p) + b"\0" for p in unknown)
            out = run_git(["check-attr", "-z", "--stdin", *_CONVERTING], self.root, stdin)
            fields = out.split(b"\0")
            values.update((p, {}) for p in unknown)
            for i in range(0, len(fields) - 2, 3):
                path = os.fsdecode(fields[i])
                values.setdefault(path, {})[fields[i + 1].decode()] = fields[i + 2].decode()
        autocrlf = self._config("core.autocrlf") == "true"
        return {p for p in wanted if _converts(values[p], autocrlf)}

    def _config(self, name: str) -> str | None:
        if name not in self._settings:
            try:
                said = run_git(["config", "--get", name], self.root).decode().strip().lower()
            except HygieneError:  # not set
                said = None
            self._settings[name] = said
        return self._settings[name]

    def checked_out(self, blobs: Iterable[Blob]) -> dict[Blob, bytes]:
        """Each blob as ``git checkout`` writes it at its path: through its filters (Git
        LFS), line end conversion and encoding; read with one ``git cat-file --batch`` but
        for the files that are converted, which are read one by one (the batch gives the
        size before conversion)."""
        unique = list(dict.fromkeys(blobs))
        converted = self.converted(b.path for b in unique)
        raw = self.blobs([b.oid for b in unique if b.path not in converted])
        found: dict[Blob, bytes] = {}
        for blob in unique:
            if blob.path in converted:
                args = ["cat-file", "--filters", f"--path={blob.path}", blob.oid]
                found[blob] = run_git(args, self.root)
            else:
                found[blob] = raw[blob.oid]
        return found


def _converts(attributes: dict[str, str], autocrlf: bool) -> bool:
    """Whether a file with these attributes (``git check-attr`` values) is converted."""
    if attributes.get("filter", "unspecified") not in ("unspecified", "unset"):
        return True
    if attributes.get("text") == "unset":
        return False
    return autocrlf or any(value != "unspecified" for value in attributes.values())
