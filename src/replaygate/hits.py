"""The hits log: which fixtures were played, by which test, in which run.

Replay notes every fixture it serves; the log is written under
``.replaygate/hits/`` as one JSONL file per process (``<run>-<pid>.jsonl``), so
parallel workers never share a file and need no lock. Each line is::

    {"run": "20261130T052800Z-1a2b", "time": "...Z", "store": "tests/fixtures/x.jsonl",
     "key": "265288aeb827", "test": "tests/test_x.py::test_y"}

Logging is off until :func:`enable` is called (the pytest plugin does it for a test
session), so replaying in a script writes nothing. ``patrol`` reads the log to find
fixtures no run played; ``ci plan`` reads it to find the tests that use a fixture.
"""

from __future__ import annotations

import atexit
import os
import secrets
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import orjson

from replaygate.fixture import now_iso

DEFAULT_DIR = Path(".replaygate") / "hits"
RUN_ENV = "REPLAYGATE_RUN_ID"
_FLUSH_EVERY = 256


@dataclass(frozen=True)
class Hit:
    """One fixture served to one test in one run."""

    run: str
    time: str
    store: str
    key: str
    test: str | None

    def to_json(self) -> dict[str, str | None]:
        """The logged JSON object."""
        return {
            "run": self.run,
            "time": self.time,
            "store": self.store,
            "key": self.key,
            "test": self.test,
        }


def new_run_id() -> str:
    """A run id that sorts by time: ``YYYYMMDDTHHMMSSZ-xxxx``."""
    stamp = now_iso().replace("-", "").replace(":", "")
    return f"{stamp}-{secrets.token_hex(2)}"


def current_test() -> str | None:
    """The pytest node id of the running test, if any."""
    current = os.environ.get("PYTEST_CURRENT_TEST")
    return current.rsplit(" (", 1)[0] if current else None


class HitLog:
    """Buffers hits in memory and appends them to this process's file."""

    def __init__(self, directory: Path, run: str) -> None:
        self.directory = directory
        self.run = run
        self._buffer: list[Hit] = []
        self._lock = threading.Lock()

    @property
    def file(self) -> Path:
        """This process's log file."""
        return self.directory / f"{self.run}-{os.getpid()}.jsonl"

    def note(self, store: str | os.PathLike[str], key: str) -> None:
        """Remember that ``key`` of ``store`` was played by the current test."""
        hit = Hit(self.run, now_iso(), os.fspath(store), key, current_test())
        with self._lock:
            self._buffer.append(hit)
            full = len(self._buffer) >= _FLUSH_EVERY
        if full:
            self.flush()

    def flush(self) -> None:
        """Append the buffered hits to the file."""
        with self._lock:
            pending, self._buffer = self._buffer, []
        if not pending:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        data = b"".join(orjson.dumps(h.to_json()) + b"\n" for h in pending)
        with self.file.open("ab") as handle:
            handle.write(data)


_active: HitLog | None = None


def enable(directory: str | os.PathLike[str] = DEFAULT_DIR, run: str | None = None) -> HitLog:
    """Start logging hits (for this process) under ``directory``; flushed at exit."""
    global _active
    if _active is not None:
        _active.flush()
    run_id = run or os.environ.get(RUN_ENV) or new_run_id()
    _active = HitLog(Path(directory), run_id)
    return _active


def disable() -> None:
    """Flush and stop logging hits."""
    global _active
    if _active is not None:
        _active.flush()
    _active = None


def note(store: str | os.PathLike[str], key: str) -> None:
    """Log a hit if logging is enabled; a no-op otherwise."""
    if _active is not None:
        _active.note(store, key)


def read_hits(directory: str | os.PathLike[str] = DEFAULT_DIR) -> Iterator[Hit]:
    """Every hit logged under ``directory``; a line still being written is not read yet."""
    root = Path(directory)
    if not root.is_dir():
        return
    for file in sorted(root.glob("*.jsonl")):
        data = file.read_bytes()
        complete = data[: data.rfind(b"\n") + 1]
        for number, line in enumerate(complete.splitlines(), start=1):
            try:
                obj = orjson.loads(line)
                yield Hit(obj["run"], obj["time"], obj["store"], obj["key"], obj.get("test"))
            except (orjson.JSONDecodeError, KeyError, TypeError) as err:
                raise ValueError(f"{file}:{number}: not a hits log line ({err})") from None


atexit.register(disable)
