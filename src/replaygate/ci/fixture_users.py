"""Which tests use a changed fixture: the hits log, and the keys a change touched.

The hits log (:mod:`replaygate.fixtures.hits`) records, per test, the store and key of every
fixture it played. For a changed store file, the keys whose line (or file) changed
are compared with the log; the tests that played one of them must run again.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from replaygate.fixtures.fingerprint import KEY_LENGTH
from replaygate.fixtures.hits import read_hits
from replaygate.regular import read_regular_bytes
from replaygate.strict_json import plain_loads


def _keys_of_lines(text: str) -> set[str] | None:
    keys = set()
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            obj = plain_loads(line)
        except (ValueError, RecursionError):  # not JSON, nested too deeply, too many digits
            return None
        if not isinstance(obj, dict) or not isinstance(obj.get("key"), str):
            return None
        keys.add(obj["key"][:KEY_LENGTH])  # a sample line names its request's whole digest
    return keys


def changed_keys(path: Path, old_text: str | None) -> set[str] | None:
    """Keys of the fixtures ``path`` changed since ``old_text`` (its earlier content).

    For a ``.jsonl`` store, the keys of the lines added or removed; for a one-fixture
    ``.json`` file, its key (old and new). ``None`` when it cannot be told (a line
    that is not a fixture, a file removed whose earlier content is not known, a folder
    such as a git submodule): then every fixture of the file, or of every store in the
    folder, counts as changed.
    """
    try:
        # bytes that are not UTF-8 are kept, as in the text git gives of the earlier content
        new_text = read_regular_bytes(path).decode("utf-8", "surrogateescape")
    except FileNotFoundError:
        if old_text is None:
            return None
        new_text = ""
    except OSError:  # cannot tell: every fixture of the file counts as changed
        return None
    if path.suffix == ".jsonl":
        old_lines = set((old_text or "").splitlines())
        new_lines = set(new_text.splitlines())
        return _keys_of_lines("\n".join(old_lines ^ new_lines))
    keys = set()
    for text in (old_text, new_text):
        if text and text.strip():
            found = _keys_of_lines(" ".join(text.split()))
            if found is None:
                return None
            keys |= found
    return keys


@dataclass
class FixtureUsers:
    """Tests by store and key, from the hits log (store paths resolved against ``root``)."""

    root: Path
    by_key: dict[tuple[Path, str], set[str]] = field(default_factory=dict)
    runs: int = 0

    @classmethod
    def from_log(cls, directory: Path, root: Path) -> FixtureUsers:
        """Read every hit under ``directory``."""
        users = cls(root)
        run_ids = set()
        for hit in read_hits(directory):
            if hit.test:
                users.add(Path(hit.store), hit.key, hit.test)
            run_ids.add(hit.run)
        users.runs = len(run_ids)
        return users

    def add(self, store: Path, key: str, test: str) -> None:
        """Record that ``test`` played ``key`` of ``store``. Keys are compared by their
        first :data:`KEY_LENGTH` characters, as :func:`changed_keys` gives them: a stored
        key may be longer (a key of 16 digits), and the log keeps it whole."""
        resolved = (self.root / store).resolve() if not store.is_absolute() else store.resolve()
        self.by_key.setdefault((resolved, key[:KEY_LENGTH]), set()).add(test)

    def tests_for(self, file: Path, keys: Iterable[str] | None) -> set[str]:
        """Tests that played ``keys`` (or any fixture, for ``None``) stored in ``file``: a
        store file, a folder store's file, or a folder holding stores (a git submodule, a
        folder given as changed), whose every store counts."""
        target = file.resolve()
        wanted = None if keys is None else {key[:KEY_LENGTH] for key in keys}
        found: set[str] = set()
        for (store, key), tests in self.by_key.items():
            in_store = target == store or store in target.parents or target in store.parents
            if in_store and (wanted is None or key in wanted):
                found |= tests
        return found


def node_to_run(test: str, root: Path) -> str | None:
    """The node id pytest is to run for the test ``test`` (a pytest node id, relative to
    the rootdir ``root``, as the hits log keeps it), or None when it is no longer there,
    so pytest would stop at it (``ERROR: not found``, exit status 4): its file is gone,
    or, in a Python file, the name it is collected under (the function or class the node
    id starts with) is nowhere in the file, as after a rename. A method (or inner class)
    whose name is nowhere in its file runs through its class, the deepest one whose name
    is there: it may be inherited from a class of another file, or renamed. A file that
    cannot be read, or a name that is no Python name (a doctest's), counts as there."""
    file, sep, rest = test.partition("::")
    path = root / file
    try:
        if not path.exists():
            return None
        if not sep or path.suffix != ".py" or not path.is_file():
            return test
        text = read_regular_bytes(path).decode("utf-8", "replace")
    except (OSError, ValueError):  # cannot tell: run it, and let pytest say
        return test
    names = rest.split("[", 1)[0].split("::")
    for depth, name in enumerate(names):
        if not name.isidentifier():
            return test
        if re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text) is None:
            return "::".join([file, *names[:depth]]) if depth else None
    return test
