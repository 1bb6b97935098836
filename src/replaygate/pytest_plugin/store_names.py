"""The file name of a test's fixture store, the same for the pytest plugin and the
cassette importer.

A test's store is named after the test (``Class.test`` for a test of a class, with its
parametrized id): each character outside ``A-Z a-z 0-9 _ . - [ ] = , +`` is written
``_``. This module imports no pytest, so ``replaygate import-cassettes`` names the store
of a cassette as the plugin names the store of its test.
"""

from __future__ import annotations

import re

SAFE_CHARACTERS = "A-Z a-z 0-9 _ . - [ ] = , +"
"""The characters a store's name keeps, as the docs and messages name them."""
_UNSAFE = re.compile(r"[^A-Za-z0-9_.\-\[\]=,+]")


def store_name(test: str) -> str:
    """The name (without ``.jsonl``) of the store of the test named ``test``: each
    character outside :data:`SAFE_CHARACTERS` written ``_``."""
    return _UNSAFE.sub("_", test)
