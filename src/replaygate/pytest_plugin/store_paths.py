"""Where each test's fixture store is, and the tests that would share one by accident.

A test's store is the marker's ``fixtures`` (relative to ``--replaygate-dir``), else
``<dir>/<module>/<test name>.jsonl``: the module's file name without its folder and
suffix, and the test's name with each character outside ``A-Z a-z 0-9 _ . - [ ] = , +``
written ``_`` (:func:`~replaygate.pytest_plugin.store_names.default_store_path`), the
class that holds it for a test of nested classes (``Inner.test``); a module's doctest
is named ``<module>.<function>`` whatever dotted name the import mode gave the module,
and a repetition of pytest-repeat after the test it repeats (``test_x[2-3]``: ``test_x``).
Two tests
can so come to one store (``unit/test_api.py`` and ``integration/test_api.py``; ids
``a/b`` and ``a_b``), where each would replay what the other recorded; so can two
whose stores differ only in case (``test_A``, ``test_a``), one file on macOS and Windows
(:func:`~replaygate.pytest_plugin.store_names.same_file_key`): such tests are found
when they are collected together, and refused when they are set up, naming each other,
until one is renamed or given a store of its own. A store a marker names is refused so
when another test's is that file spelled otherwise (``Shared.jsonl``, ``shared.jsonl``),
and any test's when Windows cannot hold its name. A project with no pytest config file
has the folder pytest runs from as its rootdir, and a monorepo with config files at its
top and in its packages the folder of the one found from there: a test whose store is
not under it but under another folder of its file is refused, naming that folder
(:func:`rootdir_problem`).
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path, PurePath
from types import MappingProxyType
from typing import Any

import pytest

from replaygate.locale_names import on_disk
from replaygate.pytest_plugin.options import stores_dir
from replaygate.pytest_plugin.repeats import unrepeated
from replaygate.pytest_plugin.store_names import (
    SAFE_CHARACTERS,
    default_store_path,
    same_file_key,
)
from replaygate.regular import unexpanded_tilde, windows_unfit

_SHARING = pytest.StashKey[tuple[str, ...]]()
"""The other collected tests whose default store is this test's (on macOS and Windows
too: one whose store differs in case is named with its store)."""

_SPELLED = pytest.StashKey[tuple[str, ...]]()
"""The other collected tests whose store is the one this test's marker names only on
macOS and Windows, where case and composition make no difference (``Shared.jsonl``,
``shared.jsonl``)."""


def fixtures_dir(config: pytest.Config) -> Path:
    """The ``--replaygate-dir`` folder, resolved against the rootdir."""
    return Path(config.rootpath) / stores_dir(config)


_MARKER = pytest.StashKey[tuple[tuple[pytest.Mark, ...], Mapping[str, Any]]]()
"""A test's ``replaygate`` marks, and their arguments combined (:func:`marker_kwargs`)."""


def marker_kwargs(node: pytest.Item) -> Mapping[str, Any]:
    """The arguments of the test's ``replaygate`` marks (on the test, its class, its module),
    the closest first, key by key, as pytest-recording combines its ``vcr`` marks (a store
    given by position is ``fixtures``); an unknown one, or one of a wrong type, on any of
    them fails the test, naming it. Combined once per test, again only if a mark was
    added since (by a fixture, ``request.applymarker``)."""
    from replaygate.pytest_plugin.settings import marker_arguments

    marks = tuple(node.iter_markers("replaygate"))
    cached = node.stash.get(_MARKER, None)
    if cached is not None and [*map(id, cached[0])] == [*map(id, marks)]:  # the same marks
        return cached[1]
    combined: dict[str, Any] = {}
    for marker in reversed(marks):  # the farthest first
        combined.update(marker_arguments(marker, node.nodeid))
    node.stash[_MARKER] = (marks, MappingProxyType(combined))
    return node.stash[_MARKER][1]


def default_store(config: pytest.Config, node: pytest.Item) -> Path:
    """``<dir>/<module>/<test name>.jsonl``: the store of a test whose marker names none."""
    cls = getattr(node, "cls", None)
    name = unrepeated(node, node.name)  # pytest-repeat's repetitions replay the test's store
    name = name if cls is None else f"{cls.__name__}.{name}"
    return fixtures_dir(config) / default_store_path(node.path, _doctest_name(node) or name)


def _doctest_name(node: pytest.Item) -> str | None:
    """A module's doctest's name with the module's file name for its dotted name
    (``mod.ask``, whether pytest imported it as ``mod`` or ``tests.mod``: the import mode
    and the packages around it decide), or None for any other test."""
    test = getattr(node, "dtest", None)
    module = getattr(test, "globs", {}).get("__name__")
    name = getattr(test, "name", None)
    if not isinstance(module, str) or not isinstance(name, str):
        return None
    if name != module and not name.startswith(f"{module}."):
        return None  # a text file's doctest, named after its file
    return PurePath(node.path).stem + name[len(module) :]


def chosen_store(config: pytest.Config, chosen: Any) -> Path:
    """The store a marker's ``fixtures`` names, as the file system names it: the same
    file in every locale (:func:`~replaygate.locale_names.on_disk`; an ASCII one,
    ``LC_ALL=C``, cannot encode ``"shared é.jsonl"`` as the test's code gives it)."""
    return fixtures_dir(config) / on_disk(os.fspath(chosen))


def chosen_problem(config: pytest.Config, chosen: Any) -> str | None:
    """Why the store a marker's ``fixtures`` names cannot be used, or None: a path led by
    a ``~`` (no shell expands it there: a new folder called ``~`` under the stores folder),
    or the stores folder itself or one holding it (``"."``, ``".."``), which, read as a
    folder store, would hold every test's store and record among them."""
    folder = fixtures_dir(config)
    tilde = unexpanded_tilde(os.fspath(chosen), folder)
    if tilde is not None:
        return f"its marker's fixtures {tilde}"
    store = Path(os.path.normpath(chosen_store(config, chosen)))
    stores = Path(os.path.normpath(folder))
    if not stores.is_relative_to(store):
        return _stores_folder_twice(config, chosen, store)
    what = "the stores folder" if store == stores else f"{store}, which holds the stores folder"
    return (
        f"its marker's fixtures={os.fspath(chosen)!r} names {what} {stores}: as one folder "
        "store it would hold every test's fixtures and record among them; name a file "
        f"(<name>.jsonl) or a folder of its own under {stores}"
    )


def _stores_folder_twice(config: pytest.Config, chosen: Any, store: Path) -> str | None:
    """Why a marker's ``fixtures`` that starts with the stores folder's own path from the
    rootdir (``"tests/fixtures/shared.jsonl"``) cannot be used, or None: it is read under
    that folder, so it names a store nested in a second copy of it. One recorded there
    already is left to be used."""
    within = PurePath(stores_dir(config))
    given = PurePath(os.path.normpath(os.fspath(chosen)))
    if within.is_absolute() or given.is_absolute() or ".." in within.parts or not within.parts:
        return None
    if given.parts[: len(within.parts)] != within.parts or store.exists():
        return None
    meant = given.relative_to(within).as_posix()
    return (
        f"its marker's fixtures={os.fspath(chosen)!r} is read under the stores folder "
        f"({within.as_posix()}, --replaygate-dir), so it names {store}, with the stores "
        f"folder twice in it: give fixtures={meant!r} for {fixtures_dir(config) / meant}"
    )


def note_shared_stores(config: pytest.Config, items: Iterable[pytest.Item]) -> None:
    """Note on each of ``items`` whose marker names no store the other items whose default
    store is its own; on each whose marker names one, the other items whose store is that
    file only on macOS and Windows (``"Shared.jsonl"``, ``"shared.jsonl"``)."""
    by_store: dict[tuple[str, ...], dict[str, Path]] = defaultdict(dict)
    spellings: dict[tuple[str, ...], dict[Path, str]] = defaultdict(dict)
    tests: list[tuple[pytest.Item, Path, tuple[str, ...]]] = []
    chosen: list[tuple[pytest.Item, Path, tuple[str, ...]]] = []
    for item in items:
        try:
            marked = marker_kwargs(item).get("fixtures")
        except pytest.fail.Exception:  # a wrong mark: the test fails at its setup, named
            continue
        store = chosen_store(config, marked) if marked else default_store(config, item)
        key = same_file_key(store)
        spellings[key].setdefault(store, unrepeated(item, item.nodeid))
        if marked:
            chosen.append((item, store, key))
            continue
        by_store[key][unrepeated(item, item.nodeid)] = store  # its repetitions are one test
        tests.append((item, store, key))
    for item, store, key in chosen:
        spelled = spellings[key].items()
        otherwise = [_other(test, path, store) for path, test in spelled if path != store]
        if otherwise:
            item.stash[_SPELLED] = tuple(sorted(otherwise))
    for item, store, key in tests:
        others = by_store[key]
        test = unrepeated(item, item.nodeid)
        named = [_other(nodeid, path, store) for nodeid, path in others.items() if nodeid != test]
        if named:
            item.stash[_SHARING] = tuple(sorted(named))


def _other(nodeid: str, path: Path, store: Path) -> str:
    """The test ``nodeid`` whose store ``path`` is the file ``store``: with that path when
    it differs (in case, which macOS and Windows do not tell apart)."""
    if path == store:
        return nodeid
    return f"{nodeid} (whose store {path} is that same file on macOS and Windows)"


def sharing_problem(node: pytest.Item, store: Path) -> str | None:
    """Why ``node`` may not use its default store ``store`` (another test has it), or None."""
    others = node.stash.get(_SHARING, ())
    if not others:
        return None
    return (
        f"its fixture store {store} is also that of {', '.join(others)}: each would replay "
        "what the other recorded (a test's store is named after its module's file name and "
        f"its name, each character outside {SAFE_CHARACTERS} written _). Rename one of them (a "
        "parametrized case: give it another id), or give each a store of its own: "
        '@pytest.mark.replaygate(fixtures="<path>.jsonl")'
    )


def spelling_problem(node: pytest.Item, store: Path) -> str | None:
    """Why ``node`` may not use the store ``store`` its marker names (another test's store
    is that file, spelled otherwise, on macOS and Windows), or None."""
    others = node.stash.get(_SPELLED, ())
    if not others:
        return None
    return (
        f"its fixture store {store} is also that of {', '.join(others)}: a checkout there "
        "keeps one of the two files, which both tests then replay and record into. Spell "
        "the markers' fixtures alike, or name stores that differ in more than case"
    )


def windows_problem(store: Path, chosen: Any = None) -> str | None:
    """Why the test's store ``store`` cannot be checked out on Windows under its name
    (:func:`~replaygate.regular.windows_unfit`), or None: its default store's module folder and
    file (``<module>/<test name>.jsonl``), or the relative path its marker's ``fixtures``
    gives, ``chosen`` (``"aux/answers.jsonl"``; an absolute one is in no checkout)."""
    named = PurePath(*store.parts[-2:]) if chosen is None else PurePath(os.fspath(chosen))
    unfit = None if named.is_absolute() else windows_unfit(named)  # absolute: no checkout's
    if unfit is None:
        return None
    if chosen is None:
        fix = (
            "Rename the test (or its class or module), or give it a store of its own: "
            '@pytest.mark.replaygate(fixtures="<path>.jsonl")'
        )
    else:
        fix = f"Give its marker's fixtures={os.fspath(chosen)!r} another name"
    return f"its fixture store {store} cannot be checked out on Windows: {unfit}. {fix}"


def rootdir_problem(config: pytest.Config, node: pytest.Item, store: Path) -> str | None:
    """Why ``node`` may not use ``store``, or None: the store is not under the rootdir,
    but under another folder of the test's file, where a run with that rootdir recorded
    it; replaying, the test would miss, and recording, write a second store. The rootdir
    is that of the config file pytest found (a monorepo's top, or a package of it with a
    config of its own: the one found depends on the folder pytest runs from), or with
    none the folder it ran from (or the one above its arguments)."""
    root = Path(config.rootpath)
    if config.getoption("rootdir", None) or store.exists():
        return None
    try:
        relative = store.relative_to(root)
    except ValueError:  # an absolute store of the marker's: no rootdir of its
        return None
    found = next(
        (folder for folder in node.path.parents if folder != root and (folder / relative).exists()),
        None,
    )
    if found is None:
        return None
    if config.inipath is not None:
        return (
            f"its fixture store {store} is not there, but {found / relative} is: the stores "
            f"are under the rootdir, {root}, the folder of the config file pytest found "
            f"({config.inipath}), and {found} was the rootdir of a run that found another. "
            f"Run pytest with the rootdir it was recorded with (from {found}, or with "
            f"--rootdir={found}): each test finds its store under one rootdir only"
        )
    return (
        f"its fixture store {store} is not there, but {found / relative} is: pytest found no "
        f"config file, so its rootdir, under which the stores are, is {root}, which depends "
        f"on the folder pytest runs from. Run pytest from {found}, or give the project a "
        "config file there (a pytest.ini, or a [tool.pytest.ini_options] table in "
        "pyproject.toml), so that its stores are found from any folder"
    )
