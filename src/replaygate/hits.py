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
import contextlib
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
KEEP_RUNS = 50
"""How many runs' hits a test session keeps (``patrol --runs`` looks at fewer)."""
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
    """Buffers hits in memory and appends them to this process's file.

    With ``root`` (the project directory), a store path under it is logged relative
    to it (a relative path is first taken from the current directory), so the log
    reads the same on every machine.
    """

    def __init__(self, directory: Path, run: str, root: Path | None = None) -> None:
        self.directory = directory
        self.run = run
        self.root = root
        self._buffer: list[Hit] = []
        self._lock = threading.Lock()
        self._names: dict[str, str] = {}

    def store_name(self, store: str | os.PathLike[str]) -> str:
        """How ``store`` is written in the log: relative to ``root`` when under it."""
        text = os.fspath(store)
        name = self._names.get(text)
        if name is None:
            name = text
            if self.root is not None:
                with contextlib.suppress(ValueError):
                    name = Path(os.path.abspath(text)).relative_to(self.root).as_posix()
            self._names[text] = name
        return name

    @property
    def file(self) -> Path:
        """This process's log file."""
        return self.directory / f"{self.run}-{os.getpid()}.jsonl"

    def note(self, store: str | os.PathLike[str], key: str) -> None:
        """Remember that ``key`` of ``store`` was played by the current test."""
        hit = Hit(self.run, now_iso(), self.store_name(store), key, current_test())
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


def enable(
    directory: str | os.PathLike[str] = DEFAULT_DIR,
    run: str | None = None,
    root: str | os.PathLike[str] | None = None,
) -> HitLog:
    """Start logging hits (for this process) under ``directory``; flushed at exit.

    The run id is ``run``, else ``$REPLAYGATE_RUN_ID``, else a new one; ``root``
    makes store paths under it relative (see :class:`HitLog`).
    """
    run_id = run or os.environ.get(RUN_ENV) or new_run_id()
    log = HitLog(Path(directory), run_id, Path(root) if root is not None else None)
    use(log)
    return log


def active() -> HitLog | None:
    """The log hits go to, or None when logging is off."""
    return _active


def use(log: HitLog | None) -> None:
    """Send hits to ``log`` from now on (None: stop logging), flushing the one in use."""
    global _active
    if _active is not None and _active is not log:
        _active.flush()
    _active = log


def disable() -> None:
    """Flush and stop logging hits."""
    use(None)


def note(store: str | os.PathLike[str], key: str) -> None:
    """Log a hit if logging is enabled; a no-op otherwise."""
    if _active is not None:
        _active.note(store, key)


def trim(directory: str | os.PathLike[str] = DEFAULT_DIR, keep_runs: int = KEEP_RUNS) -> int:
    """Delete the hits of all but the newest ``keep_runs`` runs; the number of files removed."""
    root = Path(directory)
    if not root.is_dir():
        return 0
    files = sorted(root.glob("*.jsonl"))
    runs = sorted({file.stem.rsplit("-", 1)[0] for file in files})
    old = set(runs[: max(0, len(runs) - keep_runs)])
    removed = 0
    for file in files:
        if file.stem.rsplit("-", 1)[0] in old:
            file.unlink(missing_ok=True)
            removed += 1
    return removed


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
