"""The file name of a test's fixture store, the same for the pytest plugin, the cassette
importer and the references ``patrol`` and ``prune`` find.

A test's store is ``<module>/<test>.jsonl`` (:func:`default_store_path`): the folder is
named after the test module's file name as it is, whatever characters it holds
(``test_my-api.py``: ``test_my-api``), as pytest collects a module of any file name.
The file is named after the test (``Class.test`` for a test of a class, with its
parametrized id): each character outside ``A-Z a-z 0-9 _ . - [ ] = , +`` is written
``_``. A name longer than :data:`MAX_NAME` characters (a long parametrized id) is cut
there, its end a digest of the whole test name, so the store, its lock and the
temporary file of a rewrite all fit in a file name. Two stores are one file on macOS
and Windows when their paths differ only in case, or in how a letter is composed
(:func:`same_file_key`); a name Windows cannot hold (``CON``, ``Aux.test_x``, a
folder ending in a dot, ``what?``) is found by
:func:`~replaygate.regular.windows_unfit`. This module imports no pytest, so
``replaygate import-cassettes`` names the store of a cassette as the plugin names the
store of its test.
"""

from __future__ import annotations

import hashlib
import os
import re
import unicodedata
from pathlib import PurePath

DEFAULT_DIR = "tests/fixtures"
"""The folder of the tests' stores under the rootdir (unless ``--replaygate-dir`` says
otherwise), where ``import-cassettes`` writes them by default."""
SAFE_CHARACTERS = "A-Z a-z 0-9 _ . - [ ] = , +"
"""The characters a store's name keeps, as the docs and messages name them."""
MAX_NAME = 230
"""The longest store name (without ``.jsonl``): a file name holds 255 bytes, and the
longest file written beside a store, the temporary file of a rewrite of a backup
(``.<name>.jsonl.bak<n>.<pid>.tmp``), adds up to 25."""
_DIGEST = 12
_UNSAFE = re.compile(r"[^A-Za-z0-9_.\-\[\]=,+]")


def store_name(test: str) -> str:
    """The name (without ``.jsonl``) of the store of the test named ``test``: each
    character outside :data:`SAFE_CHARACTERS` written ``_``; one longer than
    :data:`MAX_NAME` cut, ending ``-`` and 12 hex digits of the SHA-256 of ``test``."""
    name = _UNSAFE.sub("_", test)
    if len(name) <= MAX_NAME:
        return name
    digest = hashlib.sha256(test.encode("utf-8", "surrogatepass")).hexdigest()[:_DIGEST]
    return f"{name[: MAX_NAME - _DIGEST - 1]}-{digest}"


def module_folder(module: str | os.PathLike[str]) -> str:
    """The folder of the stores of the tests of the module file ``module``: its file name
    without its suffix, as it is (``tests/test_my-api.py``: ``test_my-api``)."""
    return PurePath(module).stem


def default_store_path(module: str | os.PathLike[str], test: str) -> PurePath:
    """Where the store of the test named ``test`` (``[Class.]test[param id]``) of the
    module file ``module`` is, under the plugin's stores folder: ``<module>/<test>.jsonl``
    (:func:`module_folder`, :func:`store_name`)."""
    return PurePath(module_folder(module), f"{store_name(test)}.jsonl")


def same_file_key(path: PurePath) -> tuple[str, ...]:
    """``path`` as a file system that tells apart neither case nor how a letter is composed
    (macOS, Windows) names its file, and Windows dropping each part's trailing dots and
    spaces: two paths of one key are one file there (``test_A.jsonl``, ``test_a.jsonl``)."""
    return tuple(
        unicodedata.normalize("NFC", unicodedata.normalize("NFD", part).casefold()).rstrip(". ")
        for part in path.parts
    )
