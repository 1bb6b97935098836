"""SQLite that can only read, as for a read-only history file or mount.

Tests run as root, where a file mode of 0o444 stops no write: every connection not
already asking for a mode is opened with ``mode=ro`` instead.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest


def make_sqlite_read_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Open every later SQLite connection of the test read-only."""
    connect = sqlite3.connect

    def read_only(database: Any, *args: Any, uri: bool = False, **kwargs: Any) -> Any:
        if not uri:
            database, uri = f"{Path(database).absolute().as_uri()}?mode=ro", True
        return connect(database, *args, uri=uri, **kwargs)

    monkeypatch.setattr(sqlite3, "connect", read_only)
