"""The file name of a test's fixture store, the same for the pytest plugin and the
cassette importer.

A test's store is named after the test (``Class.test`` for a test of a class, with its
parametrized id): each character outside ``A-Z a-z 0-9 _ . - [ ] = , +`` is written
``_``. A name longer than :data:`MAX_NAME` characters (a long parametrized id) is cut
there, its end a digest of the whole test name, so the store, its lock and the
temporary file of a rewrite all fit in a file name. This module imports no pytest, so
``replaygate import-cassettes`` names the store of a cassette as the plugin names the
store of its test.
"""

from __future__ import annotations

import hashlib
import re

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
