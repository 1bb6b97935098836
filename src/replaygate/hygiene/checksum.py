"""A stable digest of a fixture store's content, for CI cache keys.

The digest covers every fixture file's path (relative to the store) and bytes, in
sorted path order: it ignores file order on disk and modification times, and any
changed, added, removed or renamed fixture file changes it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from replaygate.fixtures.store import store_files


def store_checksum(path: Path) -> str:
    """The SHA-256 hex digest of the store at ``path`` (a ``.jsonl`` file or a folder)."""
    root = path if path.is_dir() else path.parent
    total = hashlib.sha256()
    for file in sorted(store_files(path), key=lambda p: p.relative_to(root).as_posix()):
        content = hashlib.sha256(file.read_bytes()).hexdigest()
        total.update(f"{file.relative_to(root).as_posix()}\0{content}\n".encode())
    return total.hexdigest()
