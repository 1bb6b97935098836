"""File-level references to fixtures from code: store file names and fixture keys.

The reference folders (``--refs tests/``) are read as text; a file names a fixture
when it holds the fixture's store file name (``rag.jsonl``, ``265288aeb827.json``)
or its key; and a store file the pytest plugin names after a test
(``<dir>/<module>/<test>.jsonl``,
:func:`~replaygate.pytest_plugin.store_names.default_store_path`) is named by that
test's module, a ``.py`` file of any name (``test_my-api.py``: pytest collects it), while
it still defines the test (a test skipped or deselected in the runs counted still uses
its store): a store of ``Class.test`` while the module defines the class and a module
defines the test (a class may inherit it), and a store whose name a long parametrized
id cut to a digest by its kept start. A store file is named by each of its names: the
file a store's symlink leads to, and each symlink under the reference folders that
leads to it or to a folder holding it (``tests/fixtures/rc.jsonl ->
../../shared/copilot.jsonl``: code naming ``rc.jsonl`` names ``shared/copilot.jsonl``);
links are looked for there and in the store only, each resolved once, none followed.
Text is read as UTF-8, or as UTF-16 or UTF-32 when a byte order mark or its NUL bytes
say so (:func:`encoding_of`: a Windows editor's "Unicode"); any other file with NUL
bytes, binary, is searched for the names and keys its ASCII bytes spell.
Fixture files themselves, the backups and temporary files replaygate writes
beside them (``rag.jsonl.bak``, ``<key>.json.bak``: :func:`~.side_files.is_side_file`),
what is not a regular file (a FIFO, a socket), tool folders and Python environments
(a virtualenv or conda environment of any name, ``site-packages``: an installed
package's files, replaygate's own among them, name its stores' files) are not
read. A large file is read a piece at a time, the pieces overlapping by more than any
name or key is long. A file that cannot be read
(no permission, an I/O error), and a folder that cannot be listed, is noted in
:attr:`References.unread`: a reference in it would go unseen, so ``prune`` deletes
nothing while there is one.
"""

from __future__ import annotations

import codecs
import errno
import os
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from replaygate.fixtures.store.files import resolved
from replaygate.fixtures.store.folder import is_environment, store_of
from replaygate.fixtures.store.side_files import is_side_file
from replaygate.folder_tree import listings
from replaygate.pytest_plugin.store_names import module_folder, store_name
from replaygate.regular import NotRegularFileError, open_regular_fd, unreadable

SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".replaygate",
        ".venv",
        "venv",
        "node_modules",
        "__pycache__",
        "site-packages",
        "dist-packages",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".hypothesis",
        ".tox",
    }
)
PIECE_BYTES = 4 << 20
"""How much of a reference file is read at once."""
OVERLAP_BYTES = 4096
"""How much of a piece is read again with the next: more than a file name or key is long."""
_NAME = re.compile(r"(?<![\w.\-])[\w.\-]+\.jsonl?\b")
"""A store file's name, taken from the start of its run of name characters (the names it
finds are those of a match tried at every character; tried only at a run's start, a run
of letters, digits, ``_`` or ``-`` with no ``.jsonl`` in it, base64url data or a hex
dump, is read once, not once from each of its characters: 40 KB took 5 s, 4 MB hours)."""
_HEX = re.compile(r"(?<![0-9a-f])[0-9a-f]{12,64}(?![0-9a-f])")


@dataclass
class References:
    """Which files name each store file (by name) and each key."""

    by_name: dict[str, set[Path]] = field(default_factory=lambda: defaultdict(set))
    by_key: dict[str, set[Path]] = field(default_factory=lambda: defaultdict(set))
    by_test: dict[Path, set[Path]] = field(default_factory=lambda: defaultdict(set))
    """The modules that define the test a store file is named after, by store file."""
    names: dict[Path, set[str]] = field(default_factory=dict)
    """The other names of each store file: those of the file its symlink leads to and of
    the symlinks that lead to it (:func:`_other_paths`)."""
    folders: dict[Path, set[str]] = field(default_factory=dict)
    """The names of the folder store each one-fixture ``.json`` file belongs to: its
    own, and the store's through each symlink that leads to it."""
    by_folder: dict[str, set[Path]] = field(default_factory=lambda: defaultdict(set))
    """Which files name each folder store, by its folder's name."""
    unread: list[tuple[Path, str]] = field(default_factory=list)
    """The files that could not be read and the folders that could not be listed, each
    with why."""

    def of(self, file: Path, key: str, by_test: bool = True) -> set[Path]:
        """The files that reference the fixture ``key`` stored in ``file``, under any of
        its names; with ``by_test``, the modules that define the test ``file`` is named
        after too."""
        found = set(self.by_key.get(key, ()))
        for name in {file.name, *self.names.get(file, ())}:
            found |= self.by_name.get(name, set())
        for folder in self.folders.get(file, ()):
            found |= self.by_folder.get(folder, set())
        return found | set(self.by_test.get(file, ())) if by_test else found


@dataclass
class _Listing:
    """What the reference folders hold (:func:`_listed`)."""

    files: list[Path] = field(default_factory=list)
    """The files to read."""
    reached: list[tuple[Path, Path]] = field(default_factory=list)
    """Each path there of a store's file (a symlink to it, or the file itself), with the
    file it leads to, resolved."""
    linked: list[tuple[Path, Path]] = field(default_factory=list)
    """Each symlink to a folder there, with the folder it leads to, resolved."""


def _listed(folders: Iterable[Path], skip: set[Path], unread: list[tuple[Path, str]]) -> _Listing:
    """The files of ``folders`` to read, but for those of ``skip`` (resolved paths: a
    store's files, which a path there reaches) and replaygate's own backups and temporary
    files; and the symlinks to folders there. A folder that could not be listed is added
    to ``unread``."""

    def unlisted(err: OSError) -> None:
        if not isinstance(err, FileNotFoundError):  # gone since its folder was listed
            unread.append((Path(err.filename), unreadable(err.filename, err, "folder")))

    found = _Listing()
    for folder in folders:
        top = os.fspath(folder)
        for listing in listings(top, onerror=unlisted):
            current, dirs, names = listing.folder, listing.subfolders, listing.files
            if current != top and is_environment(names, dirs):
                dirs.clear()  # a virtualenv or conda environment: installed packages' files
                continue
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
            for name in (d for d in dirs if d in listing.links):  # listed, not walked
                link = Path(current) / name
                found.linked.append((link, resolved(link)))
            for name in sorted(names):
                path = Path(current) / name
                if is_side_file(name):
                    continue
                real = resolved(path)
                if real in skip:
                    found.reached.append((path, real))
                else:
                    found.files.append(path)
    return found


_STORE_FILES = (".jsonl", ".json", ".jsonl.lock", ".json.lock", ".replaygate.lock")
"""The endings of fixture store files and of their locks, which name no store as code does."""


def holds_code(folder: Path) -> bool:
    """Whether ``folder`` holds a file that may name a store: any but fixture store files,
    their locks, backups and temporary files (a ``tests`` folder made only by a pytest
    run's stores, a monorepo's tests being in its packages, searches nothing). Stops at
    the first such file; the folders :func:`_listed` passes over are passed over."""
    for listing in listings(os.fspath(folder)):
        if is_environment(listing.files, listing.subfolders):
            listing.subfolders.clear()
            continue
        listing.subfolders[:] = [d for d in listing.subfolders if d not in SKIP_DIRS]
        if any(not n.endswith(_STORE_FILES) and not is_side_file(n) for n in listing.files):
            return True
    return False


def _texts(files: Iterable[Path], unread: list[tuple[Path, str]]) -> Iterable[tuple[Path, str]]:
    """Each readable text file of ``files`` as pieces of its text; one that could not be
    read is added to ``unread``."""
    for path in files:
        try:
            yield from _pieces(path)
        except (NotRegularFileError, FileNotFoundError):
            continue  # no file: a FIFO, a link to nothing, gone since listed
        except OSError as err:
            if err.errno == errno.ELOOP:  # a symlink loop holds no text either
                continue
            unread.append((path, unreadable(path, err, "file")))


def _pieces(path: Path) -> Iterator[tuple[Path, str]]:
    """The text of ``path`` as pieces of :data:`PIECE_BYTES` that overlap by
    :data:`OVERLAP_BYTES` (both a multiple of 4 bytes, so a piece of UTF-16 or UTF-32
    text starts on a character); nothing for a store's fixture file."""
    with os.fdopen(open_regular_fd(path), "rb") as handle:
        data = handle.read(PIECE_BYTES)
        if data is None:  # it waits for data (/proc/kmsg)
            return
        encoding = encoding_of(data[:_HEAD])
        text = data.decode(encoding, "replace")
        if path.suffix in (".jsonl", ".json") and _looks_like_fixtures(text):
            return
        while True:
            yield path, text
            more = handle.read(PIECE_BYTES - OVERLAP_BYTES)
            if not more:  # None too: no more without waiting
                return
            data = data[-OVERLAP_BYTES:] + more
            text = data.decode(encoding, "replace")


_HEAD = 8192
"""How much of a file's start says how its text is encoded."""
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # before UTF-16's, which starts it
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_WIDE = (  # (bytes a character, the places in it of the NUL bytes of ASCII text)
    ("utf-32-le", 4, frozenset({1, 2, 3})),
    ("utf-32-be", 4, frozenset({0, 1, 2})),
    ("utf-16-le", 2, frozenset({1})),
    ("utf-16-be", 2, frozenset({0})),
)


def encoding_of(head: bytes) -> str:
    """How the text that starts with ``head`` is encoded: UTF-16 or UTF-32 when it
    starts with their byte order mark, or when its NUL bytes fall where those of ASCII
    text in them do (at least half of those places, almost none elsewhere); else UTF-8
    (binary data too, whose ASCII bytes are read as they are). The mark itself, read as
    a character, names nothing."""
    for bom, name in _BOMS:
        if head.startswith(bom):
            return name
    if b"\0" in head:
        for name, width, places in _WIDE:
            size = len(head) - len(head) % width
            if size == 0:
                continue
            nul = [head[at:size:width].count(0) * width / size for at in range(width)]
            if all(nul[at] >= 0.5 if at in places else nul[at] <= 0.05 for at in range(width)):
                return name
    return "utf-8"


def _looks_like_fixtures(text: str) -> bool:
    head = text[:4096]
    return '"key"' in head and '"request"' in head


_TEST = re.compile(r"(?:([A-Za-z_]\w*)\.)?([A-Za-z_]\w*)(?:\[.*\]|\[.*-[0-9a-f]{12})?")
"""A store name the plugin gives a test: ``[Class.]test[param id]``, a long id cut to a
digest (``test[xxx...-<12 hex digits>``: :mod:`~replaygate.pytest_plugin.store_names`)."""
_DEF = re.compile(r"\bdef\s+([^\W\d]\w*)\s*\(")
_CLASS = re.compile(r"\bclass\s+([^\W\d]\w*)")


@dataclass
class _TestStores:
    """The store files named as the plugin names a test's store (:func:`_test_stores`)."""

    by_module: dict[str, list[tuple[Path, str | None, str]]]
    """By the module folder they are in, each store file with the names of its test's
    class (None for a test of no class) and test, as the store's name spells them."""
    methods: set[str]
    """The tests of a class those stores are named after, which the class may inherit
    from a class of any module."""


def _test_stores(paths: Iterable[tuple[Path, Path]]) -> _TestStores:
    """Of ``paths`` (a store file and a path naming it), those named as the plugin names a
    test's store, ``<module>/[Class.]test[param id].jsonl``."""
    found = _TestStores(defaultdict(list), set())
    seen: set[tuple[Path, str, str]] = set()  # a name met again (the real path, alike)
    for file, path in paths:
        named = _TEST.fullmatch(path.stem) if path.suffix == ".jsonl" else None
        if named is None or (file, path.parent.name, path.stem) in seen:
            continue
        seen.add((file, path.parent.name, path.stem))
        cls, test = named.groups()
        if cls:
            found.methods.add(test)
        found.by_module[path.parent.name].append((file, cls, test))
    return found


def _defined(pattern: re.Pattern[str], text: str) -> set[str]:
    """The names ``pattern`` finds defined in ``text``, as a store's name spells them
    (:func:`~replaygate.pytest_plugin.store_names.store_name`: ``test_ünï``, ``test__n_``)."""
    return {store_name(name) for name in pattern.findall(text)}


def _real_paths(files: Iterable[Path]) -> dict[Path, Path]:
    """Each of ``files`` resolved, each folder once (a store holds many files in a few
    folders), a file itself only when it is a symlink."""
    folders: dict[Path, Path] = {}
    real: dict[Path, Path] = {}
    for file in files:
        if file.parent not in folders:
            folders[file.parent] = resolved(file.parent)
        real[file] = resolved(file) if os.path.islink(file) else folders[file.parent] / file.name
    return real


def _other_paths(files: Iterable[Path], listing: _Listing) -> dict[Path, set[Path]]:
    """The other paths of each store file of ``files``: the file it leads to when it is
    reached through a symlink, the store's other names for that file, and each path
    under the reference folders that leads to it (a symlink to it, or a path through a
    symlink to a folder holding it)."""
    real_of = _real_paths(files)
    by_real: dict[Path, list[Path]] = defaultdict(list)
    for file, real in real_of.items():
        by_real[real].append(file)
    others: dict[Path, set[Path]] = defaultdict(set)

    def add(real: Path, path: Path) -> None:
        for file in by_real.get(real, ()):
            if path != file:
                others[file].add(path)

    for real, named in by_real.items():
        for path in named:
            add(real, path)
        if any(Path(os.path.abspath(file)) != real for file in named):
            add(real, real)
    for path, real in listing.reached:
        add(real, path)
    by_folder: dict[Path, list[Path]] = defaultdict(list)
    for real in by_real if listing.linked else ():
        by_folder[real.parent].append(real)
    for link, target in listing.linked:
        for folder, reals in by_folder.items():
            if folder.is_relative_to(target):
                for real in reals:
                    add(real, link / real.relative_to(target))
    return others


def _folder_pattern(names: set[str]) -> re.Pattern[str] | None:
    """A folder store's name among ``names`` as code names the store: a whole name
    (``"chat"``, ``fixtures/chat``, ``/ "chat"``), not a part of a longer name
    (``chatbot``, ``chat.jsonl``) nor a path into the folder (``chat/<key>.json``, which
    names one fixture file, found by its name)."""
    if not names:
        return None
    alternatives = "|".join(map(re.escape, sorted(names)))
    return re.compile(rf"(?<![\w.\-])(?:{alternatives})(?![\w\-]|\.\w|[/\\][\w.@\-])")


def find_references(
    folders: Iterable[Path],
    names: set[str],
    keys: set[str],
    skip: set[Path],
    tests: Iterable[Path] = (),
    stores: Mapping[Path, str] = MappingProxyType({}),
) -> References:
    """Scan ``folders`` for the store file ``names`` and fixture ``keys``, for the tests
    the store files ``tests`` (the store's files, as the store names them) may be named
    after (:func:`_test_stores`), and for the names of the folder stores ``stores``
    gives each one-fixture file (code opens a folder store by its folder,
    ``ReplayModel("tests/fixtures/chat")``, naming none of its files: a word of code or
    text that is the folder's name names its fixtures). Each file of ``tests`` is named
    by its other names too (:func:`_other_paths`): those of the symlinks under
    ``folders`` that lead to it, and of the file a symlink of the store leads to.

    ``skip`` holds resolved paths not to read (the store's own files); other fixture
    files are not read either, so a key shared by two stores is no reference. A name
    with characters a word of code does not hold (brackets, ``+``, a space) is looked
    for as it is: taken apart, it was never found, and ``prune`` took its store's
    fixtures for unreferenced.
    """
    files = list(tests)
    refs = References()
    listing = _listed(folders, skip, refs.unread)
    others = _other_paths(files, listing) if files else {}
    refs.names = {
        file: {p.name for p in paths if p.suffix in (".jsonl", ".json")} - {file.name}
        for file, paths in others.items()
    }
    folder_of: dict[Path, str] = {}  # a store's folder name, by the folder of its file
    for file, folder in stores.items():
        refs.folders[file] = {folder} if folder else set()
        for path in others.get(file, ()):
            if path.parent not in folder_of:
                folder_of[path.parent] = store_of(path).name
            refs.folders[file].add(folder_of[path.parent])
    wanted = set(names).union(*refs.names.values())
    folder_names = _folder_pattern({name for named in refs.folders.values() for name in named})
    odd = sorted(name for name in wanted if not _NAME.fullmatch(name))
    test_stores = _test_stores((f, p) for f in files for p in (f, *others.get(f, ())))
    in_class: dict[tuple[Path, str], set[Path]] = defaultdict(set)  # modules holding the class
    methods: set[str] = set()  # the class tests defined in any module
    for path, text in _texts(listing.files, refs.unread):
        if path.suffix == ".py":
            here = test_stores.by_module.get(module_folder(path), ())
            defs = _defined(_DEF, text) if here or test_stores.methods else set()
            classes = _defined(_CLASS, text) if here else set()
            for file, cls, test in here:
                if cls is None and test in defs:
                    refs.by_test[file].add(path)
                elif cls is not None and cls in classes:
                    in_class[file, test].add(path)
            methods |= defs & test_stores.methods
        for token in set(_NAME.findall(text)):
            if token in wanted:
                refs.by_name[token].add(path)
        for name in odd:  # a name no token is (test_x[a+b].jsonl, "my cases.jsonl")
            if name in text:
                refs.by_name[name].add(path)
        for token in set(folder_names.findall(text)) if folder_names else ():
            refs.by_folder[token].add(path)
        for token in set(_HEX.findall(text)):
            if token[:12] in keys:
                refs.by_key[token[:12]].add(path)
    for (file, test), modules in in_class.items():
        if test in methods:
            refs.by_test[file] |= modules
    return refs
