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
id cut to a digest by its kept start. Text is read as UTF-8, or as UTF-16 or UTF-32
when a byte order mark or its NUL bytes say so (:func:`encoding_of`: a Windows
editor's "Unicode"); any other file with NUL bytes, binary, is searched for the names
and keys its ASCII bytes spell.
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
from replaygate.fixtures.store.folder import is_environment
from replaygate.fixtures.store.side_files import is_side_file
from replaygate.folder_tree import walk
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
    folders: dict[Path, str] = field(default_factory=dict)
    """The name of the folder store each one-fixture ``.json`` file belongs to."""
    by_folder: dict[str, set[Path]] = field(default_factory=lambda: defaultdict(set))
    """Which files name each folder store, by its folder's name."""
    unread: list[tuple[Path, str]] = field(default_factory=list)
    """The files that could not be read and the folders that could not be listed, each
    with why."""

    def of(self, file: Path, key: str, by_test: bool = True) -> set[Path]:
        """The files that reference the fixture ``key`` stored in ``file``; with ``by_test``,
        the modules that define the test ``file`` is named after too."""
        found = set(self.by_name.get(file.name, ())) | set(self.by_key.get(key, ()))
        found |= self.by_folder.get(self.folders.get(file, ""), set())
        return found | set(self.by_test.get(file, ())) if by_test else found


def _texts(
    folders: Iterable[Path], skip: set[Path], unread: list[tuple[Path, str]]
) -> Iterable[tuple[Path, str]]:
    """Each readable text file of ``folders`` as pieces of its text, but for those of
    ``skip`` and replaygate's own backups and temporary files; one that could not be
    read, and a folder that could not be listed, is added to ``unread``."""

    def unlisted(err: OSError) -> None:
        if not isinstance(err, FileNotFoundError):  # gone since its folder was listed
            unread.append((Path(err.filename), unreadable(err.filename, err, "folder")))

    for folder in folders:
        top = os.fspath(folder)
        for current, dirs, names in walk(top, onerror=unlisted):
            if current != top and is_environment(names, dirs):
                dirs.clear()  # a virtualenv or conda environment: installed packages' files
                continue
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
            for name in sorted(names):
                path = Path(current) / name
                if is_side_file(name) or resolved(path) in skip:
                    continue
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


def _test_stores(files: Iterable[Path]) -> _TestStores:
    """Of ``files``, those named as the plugin names a test's store,
    ``<module>/[Class.]test[param id].jsonl``."""
    found = _TestStores(defaultdict(list), set())
    for file in files:
        named = _TEST.fullmatch(file.stem) if file.suffix == ".jsonl" else None
        if named is None:
            continue
        cls, test = named.groups()
        if cls:
            found.methods.add(test)
        found.by_module[file.parent.name].append((file, cls, test))
    return found


def _defined(pattern: re.Pattern[str], text: str) -> set[str]:
    """The names ``pattern`` finds defined in ``text``, as a store's name spells them
    (:func:`~replaygate.pytest_plugin.store_names.store_name`: ``test_ünï``, ``test__n_``)."""
    return {store_name(name) for name in pattern.findall(text)}


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
    the store files ``tests`` may be named after (:func:`_test_stores`), and for the
    names of the folder stores ``stores`` gives each one-fixture file (code opens a
    folder store by its folder, ``ReplayModel("tests/fixtures/chat")``, naming none of
    its files: a word of code or text that is the folder's name names its fixtures).

    ``skip`` holds resolved paths not to read (the store's own files); other fixture
    files are not read either, so a key shared by two stores is no reference. A name
    with characters a word of code does not hold (brackets, ``+``, a space) is looked
    for as it is: taken apart, it was never found, and ``prune`` took its store's
    fixtures for unreferenced.
    """
    refs = References(folders=dict(stores))
    folder_names = _folder_pattern({name for name in stores.values() if name})
    odd = sorted(name for name in names if not _NAME.fullmatch(name))
    test_stores = _test_stores(tests)
    in_class: dict[tuple[Path, str], set[Path]] = defaultdict(set)  # modules holding the class
    methods: set[str] = set()  # the class tests defined in any module
    for path, text in _texts(folders, skip, refs.unread):
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
            if token in names:
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
