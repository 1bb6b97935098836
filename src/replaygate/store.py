"""FixtureStore: fixtures on disk, indexed by key, written safely.

A store is a ``.jsonl`` file (one fixture per line, the seed-000 form) or a folder
holding ``.jsonl`` files and one-fixture-per-file ``.json`` files (pretty, sorted
keys, so a changed request field is a few lines of ``git diff``).

Opening scans every file once and keeps an index (key -> file, line, byte offset)
and two small ranking features per request, not the fixtures themselves; a fixture
is read back from disk with one ``pread`` when a lookup needs it. Writes take an
inter-process lock, write each fixture with a single ``write`` and fsync it, and
roll back a failed write, so concurrent recorders and crashes lose nothing (law 5).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
from filelock import FileLock

from replaygate.errors import FixtureFormatError, SecretInFixtureError
from replaygate.fingerprint import KEY_LENGTH, canonical_json, key_of_canonical
from replaygate.fixture import Fixture, from_json
from replaygate.nearest import Features, features, nearest
from replaygate.secret_scan import find_secrets

_CACHE_LIMIT = 4096
LOCK_NAME = ".replaygate.lock"


class PartialTailError(FixtureFormatError):
    """The last line of a JSONL file is cut short: a crash or a full disk during an append."""

    def __init__(self, file: str, line: int, offset: int) -> None:
        self.offset = offset
        super().__init__(
            file,
            line,
            "truncated last line (an append was interrupted); earlier lines are intact. "
            f"Run `replaygate verify --repair {file}` to remove only this partial tail.",
        )


@dataclass(frozen=True, slots=True)
class Location:
    """Where one fixture is stored: file, 1-based line, byte offset and length."""

    file: Path
    line: int
    offset: int
    length: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


def iter_jsonl(
    path: Path, data: bytes, *, start: int = 0, first_line: int = 1
) -> Iterator[tuple[Location, Fixture]]:
    """Parse JSONL bytes from offset ``start``; raise :class:`FixtureFormatError` at a bad line."""
    pos, line, name = start, first_line, str(path)
    while pos < len(data):
        end = data.find(b"\n", pos)
        complete = end != -1
        if not complete:
            end = len(data)
        raw = data[pos:end]
        if raw.strip():
            try:
                obj = orjson.loads(raw)
            except orjson.JSONDecodeError as err:
                if not complete:
                    raise PartialTailError(name, line, pos) from None
                raise FixtureFormatError(name, line, f"malformed JSON: {err}") from None
            yield Location(path, line, pos, end - pos), from_json(obj, name, line)
        pos, line = end + 1, line + 1


def read_json_file(path: Path) -> Fixture:
    """One pretty ``.json`` fixture file."""
    try:
        obj = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError as err:
        raise FixtureFormatError(str(path), 0, f"malformed JSON: {err}") from None
    return from_json(obj, str(path), 0)


def store_files(root: Path) -> list[Path]:
    """The fixture files of a store, in a stable order."""
    if root.suffix == ".jsonl" or root.is_file():
        return [root] if root.exists() else []
    if not root.exists():
        return []
    return sorted(p for p in root.rglob("*") if p.suffix in (".jsonl", ".json") and p.is_file())


@dataclass
class _FileState:
    size: int
    lines: int
    inode: int
    ends_with_newline: bool = True


class FixtureStore:
    """An indexed fixture store; open one with :meth:`open`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._index: dict[str, list[Location]] = {}
        self._features: dict[Location, Features] = {}
        self._files: dict[Path, _FileState] = {}
        self._cache: dict[Location, tuple[str, Fixture]] = {}
        self._fds: dict[Path, int] = {}
        self._count = 0
        self._lock: FileLock | None = None

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> FixtureStore:
        """Open (and index) the store at ``path``; a missing path is an empty store."""
        store = cls(Path(path))
        store.refresh()
        return store

    # -- reading ---------------------------------------------------------------------

    def __len__(self) -> int:
        return self._count

    def __enter__(self) -> FixtureStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Release the open file handles."""
        for fd in self._fds.values():
            os.close(fd)
        self._fds.clear()

    @property
    def is_folder(self) -> bool:
        """True for the folder layout."""
        return not (self.path.suffix == ".jsonl" or self.path.is_file())

    def keys(self) -> list[str]:
        """Every key in the store."""
        return list(self._index)

    def locations(self) -> Iterator[Location]:
        """Every fixture's location."""
        for locs in self._index.values():
            yield from locs

    def __iter__(self) -> Iterator[Fixture]:
        for loc in self.locations():
            yield self.read(loc)

    def read(self, loc: Location) -> Fixture:
        """The fixture stored at ``loc``."""
        return self._load(loc)[1]

    def get(self, key: str) -> list[tuple[Location, Fixture]]:
        """Fixtures whose key starts with ``key`` (a full or shortened key)."""
        short = key[:KEY_LENGTH]
        if len(short) == KEY_LENGTH:
            locs = self._index.get(short, [])
        else:
            locs = [loc for k, ls in self._index.items() if k.startswith(short) for loc in ls]
        return [(loc, self.read(loc)) for loc in locs]

    def lookup(self, request: Any, canonical: str | None = None) -> Fixture | None:
        """The fixture recorded for exactly this request, or None (law 1)."""
        found = self.find(request, canonical)
        return found[1] if found else None

    def find(self, request: Any, canonical: str | None = None) -> tuple[Location, Fixture] | None:
        """Like :meth:`lookup`, with the fixture's location."""
        canonical = canonical if canonical is not None else canonical_json(request)
        for loc in self._index.get(key_of_canonical(canonical), ()):
            stored_canonical, fixture = self._load(loc)
            if stored_canonical == canonical:
                return loc, fixture
        return None

    def nearest(self, request: Any) -> tuple[Location, Fixture] | None:
        """The recorded request nearest to ``request``, for a mismatch report."""
        if not isinstance(request, dict):
            return None
        loc = nearest(features(request), self._features.items())
        return (loc, self.read(loc)) if loc is not None else None

    def _load(self, loc: Location) -> tuple[str, Fixture]:
        cached = self._cache.get(loc)
        if cached is not None:
            return cached
        if loc.file.suffix == ".json":
            fixture = read_json_file(loc.file)
        else:
            fd = self._fds.get(loc.file)
            if fd is None:
                fd = self._fds[loc.file] = os.open(loc.file, os.O_RDONLY)
            fixture = from_json(
                orjson.loads(os.pread(fd, loc.length, loc.offset)), str(loc.file), loc.line
            )
        entry = (canonical_json(fixture.request), fixture)
        if len(self._cache) >= _CACHE_LIMIT:
            del self._cache[next(iter(self._cache))]
        self._cache[loc] = entry
        return entry

    # -- indexing --------------------------------------------------------------------

    def refresh(self) -> None:
        """Index what other writers added since the last scan; rescan rewritten files."""
        files = store_files(self.path)
        for gone in set(self._files) - set(files):
            self._forget(gone)
        for file in files:
            self._scan(file)

    def _forget(self, file: Path) -> None:
        self._files.pop(file, None)
        fd = self._fds.pop(file, None)
        if fd is not None:
            os.close(fd)
        for key in list(self._index):
            kept = [loc for loc in self._index[key] if loc.file != file]
            self._count -= len(self._index[key]) - len(kept)
            if kept:
                self._index[key] = kept
            else:
                del self._index[key]
        for loc in [loc for loc in self._features if loc.file == file]:
            del self._features[loc]
            self._cache.pop(loc, None)

    def _scan(self, file: Path) -> None:
        stat = file.stat()
        state = self._files.get(file)
        if state is not None and state.inode == stat.st_ino and state.size == stat.st_size:
            return
        if file.suffix == ".json":
            if state is not None:
                self._forget(file)
            fixture = read_json_file(file)
            self._add(Location(file, 1, 0, stat.st_size), fixture)
            self._files[file] = _FileState(stat.st_size, 1, stat.st_ino)
            return
        appended = (
            state is not None
            and state.inode == stat.st_ino
            and state.size < stat.st_size
            and state.ends_with_newline
        )
        if state is not None and not appended:
            self._forget(file)
            state = None
        start, first_line = (state.size, state.lines + 1) if state is not None else (0, 1)
        with file.open("rb") as handle:
            handle.seek(start)
            data = handle.read()
        for loc, fixture in iter_jsonl(file, data, first_line=first_line):
            self._add(Location(file, loc.line, loc.offset + start, loc.length), fixture)
        self._files[file] = _FileState(
            start + len(data),
            first_line - 1 + data.count(b"\n"),
            stat.st_ino,
            ends_with_newline=not data or data.endswith(b"\n"),
        )

    def _add(self, loc: Location, fixture: Fixture) -> None:
        short = fixture.key[:KEY_LENGTH]
        existing = self._index.setdefault(short, [])
        if existing:
            self._check_duplicate(existing, loc, fixture)
        existing.append(loc)
        self._features[loc] = features(fixture.request)
        self._count += 1

    def _check_duplicate(self, existing: list[Location], loc: Location, fixture: Fixture) -> None:
        canonical = canonical_json(fixture.request)
        for other in existing:
            other_canonical, other_fixture = self._load(other)
            if other_canonical == canonical and other_fixture.responses != fixture.responses:
                raise FixtureFormatError(
                    str(loc.file),
                    loc.line,
                    f"key {fixture.key} recorded twice with different responses "
                    f"(also at {other}); keep one of them",
                )

    # -- writing ---------------------------------------------------------------------

    @property
    def lock_path(self) -> Path:
        """The inter-process lock guarding writes to this store."""
        if self.is_folder:
            return self.path / LOCK_NAME
        return self.path.with_name(self.path.name + ".lock")

    def lock(self) -> FileLock:
        """The store's write lock (reentrant within a process)."""
        if self._lock is None:
            self.lock_path.parent.mkdir(parents=True, exist_ok=True)
            self._lock = FileLock(str(self.lock_path))
        return self._lock

    def put(self, fixture: Fixture, *, replace: bool = False) -> Location:
        """Write ``fixture``; with ``replace`` it takes the place of the one for the same request.

        Refuses a fixture holding a secret-looking value, before touching the disk.
        Without ``replace`` a fixture already recorded by another writer is kept as is.
        """
        findings = find_secrets(fixture.to_json())
        if findings:
            raise SecretInFixtureError(findings[0].path, findings[0].detector)
        with self.lock():
            self.refresh()
            found = self.find(fixture.request)
            if found is not None and not replace:
                return found[0]
            if found is not None:
                self._rewrite(found[0], fixture)
            elif self.is_folder:
                self._write_json_file(fixture)
            else:
                _append_line(self.path, fixture.to_line())
            self.refresh()
            located = self.find(fixture.request)
        assert located is not None
        return located[0]

    def _write_json_file(self, fixture: Fixture) -> None:
        interface = (fixture.meta or {}).get("interface")
        folder = self.path / str(interface) if interface else self.path
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / f"{fixture.key[:KEY_LENGTH]}.json"
        n = 1
        while target.exists():
            target = folder / f"{fixture.key[:KEY_LENGTH]}-{n}.json"
            n += 1
        _atomic_write(target, fixture.to_pretty())

    def _rewrite(self, loc: Location, fixture: Fixture) -> None:
        if loc.file.suffix == ".json":
            _atomic_write(loc.file, fixture.to_pretty())
        else:
            data = loc.file.read_bytes()
            line = fixture.to_line()
            _atomic_write(loc.file, data[: loc.offset] + line + data[loc.offset + loc.length + 1 :])
        self._forget(loc.file)


def _atomic_write(target: Path, data: bytes) -> None:
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        with tmp.open("wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def _append_line(path: Path, line: bytes) -> None:
    """Append one line with a single write; on failure, cut the file back to its old size."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            line = _separator_after_last_line(path, os.pread(fd, size, 0)) + line
        try:
            written = os.write(fd, line)
            if written != len(line):
                raise OSError(f"short write to {path}: {written} of {len(line)} bytes")
            os.fsync(fd)
        except BaseException:
            os.ftruncate(fd, size)
            raise
    finally:
        os.close(fd)


def _separator_after_last_line(path: Path, data: bytes) -> bytes:
    """A newline to end a complete last line left without one; a partial line is refused."""
    cut = data.rfind(b"\n") + 1
    try:
        orjson.loads(data[cut:])
    except orjson.JSONDecodeError:
        raise PartialTailError(str(path), data.count(b"\n") + 1, cut) from None
    return b"\n"


def repair_partial_tail(path: Path) -> tuple[Path, int] | None:
    """Cut a JSONL file's partial last line after backing the file up.

    Returns the backup path and the number of bytes removed, or None when the file
    has no partial tail. Only bytes after the last newline are removed, and only
    when they do not parse as JSON.
    """
    data = path.read_bytes()
    cut = data.rfind(b"\n") + 1
    tail = data[cut:]
    if not tail.strip():
        return None
    try:
        orjson.loads(tail)
        return None
    except orjson.JSONDecodeError:
        pass
    backup = path.with_name(path.name + ".bak")
    n = 1
    while backup.exists():
        backup = path.with_name(f"{path.name}.bak{n}")
        n += 1
    backup.write_bytes(data)
    _atomic_write(path, data[:cut])
    return backup, len(tail)


def record_response(
    store: FixtureStore,
    request: dict[str, Any],
    response: Any,
    *,
    sample: int = 0,
    meta: dict[str, Any] | None = None,
) -> Fixture:
    """Store ``response`` as sample ``sample`` of ``request``, under the store's lock.

    A new request starts at sample 0; an existing fixture gets the next sample or has
    one replaced (re-recording). Samples are recorded in order, without gaps.
    """
    with store.lock():
        store.refresh()
        found = store.find(request)
        current = found[1].samples if found else 0
        if sample > current:
            raise ValueError(
                f"cannot record sample {sample} of a request with {current} recorded "
                f"sample(s); record samples 0..{sample - 1} first"
            )
        if found is None:
            fixture = Fixture.create(request, [response], meta)
        else:
            fixture = found[1].with_response(sample, response, meta)
        store.put(fixture, replace=found is not None)
    return fixture
