"""FixtureStore: fixtures on disk, indexed by request, written safely.

A store is a ``.jsonl`` file (one fixture per line, the seed-000 form) or a folder
holding ``.jsonl`` files and one-fixture-per-file ``.json`` files (pretty, sorted
keys, so a changed request field is a few lines of ``git diff``).

Opening scans every file once and keeps an index, not the fixtures: for each fixture
its location (file, line, byte offset), its key, a hash of its request's
:func:`~replaygate.fingerprint.match_form` and two small ranking features for
:meth:`FixtureStore.nearest`. A lookup is one dictionary access; the fixture is then
read back from disk with one ``pread`` and the hit confirmed by comparing the whole
canonical request (law 1). Writes take an inter-process lock, write each fixture
with a single ``write`` and fsync it, and roll back a failed write, so concurrent
recorders and crashes lose nothing (law 5).
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

import orjson
from filelock import FileLock

from replaygate import fingerprint
from replaygate.errors import FixtureFormatError, SecretInFixtureError
from replaygate.fingerprint import canonical_json, match_form, parsed_match_form
from replaygate.fixture import FIELDS as _FIELDS
from replaygate.fixture import Fixture, from_json, interface_folder
from replaygate.nearest import Features, features, nearest, summarize
from replaygate.secret_scan import find_fixture_secrets

K = TypeVar("K")
_EDGE_BYTES = 256
LOCK_NAME = ".replaygate.lock"
_SUFFIXES = (".jsonl", ".json")
_CHUNK = 8 << 20


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


class Location(NamedTuple):
    """Where one fixture is stored: file, 1-based line, byte offset and length.

    ``request_at`` is where, inside a JSONL line, the request's
    :func:`~replaygate.fingerprint.match_form` stands verbatim (as in the lines
    :meth:`Fixture.to_line` writes), or -1: a lookup then compares those bytes
    directly instead of parsing and serializing the stored request again.
    """

    file: Path
    line: int
    offset: int
    length: int
    request_at: int = -1

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


def bucket_of(form: bytes) -> int:
    """The index bucket of a request's match form (a hash; a hit is confirmed in full)."""
    return hash(form)


def iter_jsonl(
    path: Path, data: bytes, *, start: int = 0, first_line: int = 1, base: int = 0
) -> Iterator[tuple[Location, Fixture]]:
    """Parse JSONL bytes from offset ``start``; raise :class:`FixtureFormatError` at a bad line.

    ``data`` is the file's content from byte ``base`` on, and ``first_line`` the line
    number of its first line. A last line without a newline that does not parse is a
    :class:`PartialTailError`. Blank lines are skipped; any other bad line raises.
    """
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
                    raise PartialTailError(name, line, base + pos) from None
                raise FixtureFormatError(name, line, f"malformed JSON: {err}") from None
            yield Location(path, line, base + pos, end - pos), from_json(obj, name, line)
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
    if not root.is_dir():
        return []
    found: list[tuple[str, ...]] = []
    for folder, _, names in os.walk(root):
        parts = Path(folder).parts
        found.extend((*parts, name) for name in names if Path(name).suffix in _SUFFIXES)
    found.sort()
    return [Path(*parts) for parts in found]


@dataclass
class _FileState:
    size: int
    lines: int
    inode: int
    mtime_ns: int
    ends_with_newline: bool = True
    head: bytes = b""
    tail: bytes = b""
    """The first and last bytes scanned: a file rewritten in place, or on a reused inode,
    differs there (lines start with their key and end with their response and meta)."""

    def unchanged(self, stat: os.stat_result) -> bool:
        """True when ``stat`` shows the file exactly as it was scanned."""
        return (self.inode, self.size, self.mtime_ns) == (
            stat.st_ino,
            stat.st_size,
            stat.st_mtime_ns,
        )

    def appended_to(self, file: Path, stat: os.stat_result) -> bool:
        """True when the file only grew since it was scanned (the scanned bytes are intact)."""
        if stat.st_ino != self.inode or stat.st_size <= self.size or not self.ends_with_newline:
            return False
        with file.open("rb") as handle:
            if handle.read(len(self.head)) != self.head:
                return False
            handle.seek(self.size - len(self.tail))
            return handle.read(len(self.tail)) == self.tail


class FixtureStore:
    """An indexed fixture store; open one with :meth:`open`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._index: dict[str, _Bucket] = {}
        self._forms: dict[int, _Bucket] = {}
        self._features: dict[Location, Features] = {}
        self._files: dict[Path, _FileState] = {}
        self._fds: dict[Path, int] = {}
        self._keys_checked: set[Location] = set()
        self._count = 0
        self._added: list[Location] = []
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
        return not (self.path.suffix in (".jsonl", ".json") or self.path.is_file())

    def keys(self) -> list[str]:
        """Every key in the store."""
        return list(self._index)

    def locations(self) -> Iterator[Location]:
        """Every fixture's location."""
        for bucket in list(self._index.values()):
            yield from _members(bucket)

    def __iter__(self) -> Iterator[Fixture]:
        for loc in self.locations():
            yield self.read(loc)

    def read(self, loc: Location) -> Fixture:
        """The fixture stored at ``loc``, read back from disk."""
        fd = self._fds.get(loc.file)
        if fd is None:
            if loc.file.suffix == ".json":
                return read_json_file(loc.file)
            fd = self._fds[loc.file] = os.open(loc.file, os.O_RDONLY)
        raw = os.pread(fd, loc.length, loc.offset)
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError as err:
            raise FixtureFormatError(
                str(loc.file), loc.line, f"changed on disk since it was indexed: {err}"
            ) from None
        if not _plain_fixture(obj):
            return from_json(obj, str(loc.file), loc.line)
        responses = (obj["response"],) if "response" in obj else tuple(obj["responses"])
        return Fixture(obj["key"], obj["request"], responses, obj.get("meta"))

    def get(self, key: str) -> list[tuple[Location, Fixture]]:
        """Fixtures whose key starts with ``key`` (a full or shortened key)."""
        length = fingerprint.KEY_LENGTH
        short = key[:length]
        if len(short) == length:
            locs = list(_members(self._index.get(short)))
        else:
            locs = [
                loc for k, ls in self._index.items() if k.startswith(short) for loc in _members(ls)
            ]
        return [(loc, self.read(loc)) for loc in locs]

    def lookup(self, request: Any, canonical: str | None = None) -> Fixture | None:
        """The fixture recorded for exactly this request, or None (law 1)."""
        found = self.find(request, canonical)
        return found[1] if found else None

    def find(
        self, request: Any, canonical: str | None = None, *, check_key: bool = True
    ) -> tuple[Location, Fixture] | None:
        """Like :meth:`lookup`, with the fixture's location.

        ``canonical``, when the caller has it, is ``canonical_json(request)``. Raises
        :class:`~replaygate.errors.CanonicalFormError` for a request that has no
        canonical form (NaN, a non-JSON value).
        """
        form = match_form(request, canonical)
        for loc in _members(self._forms.get(bucket_of(form))):
            fixture = self._read_if_same(loc, form, request)
            if fixture is not None:
                if check_key and loc not in self._keys_checked:
                    self._check_key(loc, fixture, canonical)
                return loc, fixture
        return None

    def _check_key(self, loc: Location, fixture: Fixture, canonical: str | None) -> None:
        """Refuse to serve a fixture whose stored key is not its request's (an edited request)."""
        text = canonical if canonical is not None else canonical_json(fixture.request)
        full = hashlib.sha256(text.encode("utf-8")).hexdigest()
        if not full.startswith(fixture.key):
            raise FixtureFormatError(
                str(loc.file),
                loc.line,
                f"key {fixture.key} does not match its request (expected {full[:12]}): the "
                "request was edited after recording. Re-record it, or revert the edit.",
            )
        self._keys_checked.add(loc)

    def _read_if_same(self, loc: Location, form: bytes, request: Any) -> Fixture | None:
        """The fixture at ``loc`` if its whole request has match form ``form``, else None."""
        at = loc.request_at
        fd = self._fds.get(loc.file)
        if at < 0 or fd is None or type(request) is not dict:
            fixture = self.read(loc)
            return fixture if parsed_match_form(fixture.request) == form else None
        raw = os.pread(fd, loc.length, loc.offset)
        # When the line was indexed, its request's match form stood at ``at``. Two match
        # forms are complete JSON texts, so neither is a proper prefix of the other: this
        # compares the whole request, byte for byte.
        if not raw.startswith(form, at):
            return None
        try:
            obj = orjson.loads(b"".join((raw[:at], b"null", raw[at + len(form) :])))
        except orjson.JSONDecodeError:
            return self.read(loc)
        if not _plain_fixture(obj, request_kind=type(None)):
            # Those bytes were not the top-level request (a copy of it elsewhere in
            # the line): the requests are equal all the same, read the line in full.
            return self.read(loc)
        responses = (obj["response"],) if "response" in obj else tuple(obj["responses"])
        # The request asked for is, in canonical form, the one recorded: it stands in
        # for it rather than being parsed again.
        return Fixture(obj["key"], request, responses, obj.get("meta"))

    def nearest(self, request: Any) -> tuple[Location, Fixture] | None:
        """The recorded request nearest to ``request``, for a mismatch report."""
        if not isinstance(request, dict):
            return None
        loc = nearest(features(request), list(self._features.items()))
        return (loc, self.read(loc)) if loc is not None else None

    # -- indexing --------------------------------------------------------------------

    def refresh(self) -> None:
        """Index what other writers added since the last scan; rescan rewritten files.

        A truncated last line is checked again under the write lock (a writer may have
        been half way through its append) before it is reported.
        """
        try:
            self._refresh()
        except PartialTailError as err:
            try:
                lock = self.lock()
                lock.acquire()
            except OSError:
                raise err from None
            try:
                self._refresh()
            finally:
                lock.release()

    def _refresh(self) -> None:
        files = store_files(self.path)
        for gone in set(self._files) - set(files):
            self._forget(gone)
        self._scan_files(files)

    def _scan_files(self, files: Iterable[Path]) -> None:
        # The index is built from acyclic objects: pausing the cycle collector while it
        # grows saves it from rescanning every entry again and again on a large store.
        collecting = gc.isenabled()
        gc.disable()
        try:
            for file in files:
                self._added = []
                try:
                    self._scan(file)
                except BaseException:
                    # Keep the index as it was before this scan: what was indexed stays,
                    # lines of the failed scan are dropped, and the next refresh retries.
                    self._drop(set(self._added))
                    raise
                finally:
                    self._added = []
        finally:
            if collecting:
                gc.enable()

    def _forget(self, file: Path) -> None:
        self._files.pop(file, None)
        fd = self._fds.pop(file, None)
        if fd is not None:
            os.close(fd)
        self._drop({loc for loc in self._features if loc.file == file})

    def _drop(self, gone: set[Location]) -> None:
        if not gone:
            return
        _drop_from(self._index, gone)
        _drop_from(self._forms, gone)
        for loc in gone:
            del self._features[loc]
        self._keys_checked -= gone
        self._count -= len(gone)

    def _scan(self, file: Path) -> None:
        try:
            stat = file.stat()
        except FileNotFoundError:
            self._forget(file)
            return
        state = self._files.get(file)
        if state is not None and state.unchanged(stat):
            return
        if file.suffix == ".json":
            if state is not None:
                self._forget(file)
            fixture = read_json_file(file)
            form, feats = summarize(fixture.request)
            self._add(Location(file, 1, 0, stat.st_size), fixture.key, form, feats)
            self._files[file] = _FileState(stat.st_size, 1, stat.st_ino, stat.st_mtime_ns)
            return
        if state is not None and not state.appended_to(file, stat):
            self._forget(file)
            state = None
        pos, line = (state.size, state.lines + 1) if state is not None else (0, 1)
        carry = b""
        with file.open("rb") as handle:
            handle.seek(pos)
            while chunk := handle.read(_CHUNK):
                data = carry + chunk if carry else chunk
                cut = data.rfind(b"\n") + 1
                if cut:
                    line = self._index_lines(file, data[:cut], line, pos)
                    pos += cut
                carry = data[cut:]
        self._index_lines(file, carry, line, pos)
        end = pos + len(carry)
        with file.open("rb") as handle:
            head = handle.read(min(end, _EDGE_BYTES))
            handle.seek(max(0, end - _EDGE_BYTES))
            tail = handle.read(min(end, _EDGE_BYTES))
        self._files[file] = _FileState(
            end,
            line - 1,
            stat.st_ino,
            stat.st_mtime_ns,
            ends_with_newline=not carry,
            head=head,
            tail=tail,
        )

    def _index_lines(self, file: Path, data: bytes, line: int, base: int) -> int:
        """Index the JSONL lines of ``data`` (bytes from offset ``base``); the next line number.

        The same checks as :func:`iter_jsonl`, in a tight loop: opening a store is
        dominated by this loop.
        """
        name, loads, find, size = str(file), orjson.loads, data.find, len(data)
        pos = 0
        while pos < size:
            end = find(b"\n", pos)
            complete = end != -1
            if not complete:
                end = size
            raw = data[pos:end]
            try:
                obj = loads(raw)
            except orjson.JSONDecodeError as err:
                if raw and not raw.isspace():
                    if not complete:
                        raise PartialTailError(name, line, base + pos) from None
                    raise FixtureFormatError(name, line, f"malformed JSON: {err}") from None
            else:
                if not _plain_fixture(obj):
                    from_json(obj, name, line)  # raises, naming the reason
                form, feats = summarize(obj["request"])
                at = raw.find(b'"request":') + 10
                if not at or not raw.startswith(form, at):
                    at = -1
                loc = Location(file, line, base + pos, end - pos, at)
                self._add(loc, obj["key"], form, feats)
            pos, line = end + 1, line + 1
        return line

    def _add(self, loc: Location, key: str, form: bytes, feats: Features) -> None:
        bucket = bucket_of(form)
        for other in _members(self._forms.get(bucket)):
            earlier = self.read(other)
            if parsed_match_form(earlier.request) == form:
                fixture = self.read(loc)
                if earlier.responses != fixture.responses:
                    raise FixtureFormatError(
                        str(loc.file),
                        loc.line,
                        f"key {key}: the same request is recorded twice with different "
                        f"responses (also at {other}); keep one of them",
                    )
        _insert(self._forms, bucket, loc)
        _insert(self._index, key[: fingerprint.KEY_LENGTH], loc)
        self._features[loc] = feats
        self._count += 1
        self._added.append(loc)

    # -- writing ---------------------------------------------------------------------

    @property
    def lock_path(self) -> Path:
        """The inter-process lock guarding writes to this store."""
        if self.is_folder:
            return self.path / LOCK_NAME
        return _lock_path_of(self.path)

    def lock(self) -> FileLock:
        """The store's write lock (reentrant within a process)."""
        if self._lock is None:
            self.lock_path.parent.mkdir(parents=True, exist_ok=True)
            self._lock = FileLock(str(self.lock_path))
        return self._lock

    def put(self, fixture: Fixture, *, replace: bool = False) -> Location:
        """Write ``fixture``; with ``replace`` it takes the place of the one for the same request.

        Refuses, before touching the disk, a fixture whose key does not match its
        request (``ValueError``), one holding NaN or a non-JSON value
        (:class:`~replaygate.errors.CanonicalFormError`) and one holding a
        secret-looking value (:class:`~replaygate.errors.SecretInFixtureError`).
        Without ``replace`` a fixture already recorded by another writer is kept as is.
        """
        expected = fingerprint.digest(fixture.request)
        if len(fixture.key) < fingerprint.KEY_LENGTH or not expected.startswith(fixture.key):
            raise ValueError(
                f"fixture key {fixture.key!r} does not match its request "
                f"(expected {expected[: fingerprint.KEY_LENGTH]}); use Fixture.create"
            )
        canonical_json(fixture.to_json())
        findings = find_fixture_secrets(fixture.to_json())
        if findings:
            raise SecretInFixtureError(findings[0].path, findings[0].detector)
        if not self.is_folder and self.path.suffix == ".json":
            raise ValueError(
                f"{self.path} is a one-fixture .json file; record into a .jsonl file or a folder"
            )
        with self.lock():
            self.refresh()
            found = self._find_all(fixture.request)
            if found and not replace:
                return found[0]
            if found:
                written = self._replace(found, fixture)
            elif self.is_folder:
                written = [self._write_json_file(fixture)]
            else:
                _append_line(self.path, fixture.to_line())
                written = [self.path]
            self._scan_files(written)
            located = self.find(fixture.request, check_key=False)
        assert located is not None
        return located[0]

    def _find_all(self, request: Any) -> list[Location]:
        form = match_form(request)
        return [
            loc
            for loc in _members(self._forms.get(bucket_of(form)))
            if parsed_match_form(self.read(loc).request) == form
        ]

    def _write_json_file(self, fixture: Fixture) -> Path:
        # One folder per interface and version: ``anthropic.messages@2023-06-01/``.
        named = interface_folder(fixture.meta)
        folder = self.path / named if named else self.path
        folder.mkdir(parents=True, exist_ok=True)
        short = fixture.key[: fingerprint.KEY_LENGTH]
        target = folder / f"{short}.json"
        n = 1
        while target.exists():
            target = folder / f"{short}-{n}.json"
            n += 1
        atomic_write(target, fixture.to_pretty())
        return target

    def _replace(self, locs: list[Location], fixture: Fixture) -> list[Path]:
        """Put ``fixture`` in the place of ``locs[0]``, drop the duplicates in ``locs[1:]``.

        Returns the files left to index again.
        """
        written = []
        by_file: dict[Path, list[Location]] = {}
        for loc in locs:
            by_file.setdefault(loc.file, []).append(loc)
        for file, here in by_file.items():
            if file.suffix == ".json":
                if here[0] is locs[0]:
                    atomic_write(file, fixture.to_pretty())
                    written.append(file)
                else:
                    file.unlink()
            else:
                data = file.read_bytes()
                for loc in sorted(here, key=lambda loc: loc.offset, reverse=True):
                    new = fixture.to_line() if loc is locs[0] else b""
                    end = loc.offset + loc.length
                    end += data[end : end + 1] == b"\n"
                    data = data[: loc.offset] + new + data[end:]
                atomic_write(file, data)
                written.append(file)
            self._forget(file)
        return written


def _plain_fixture(obj: Any, request_kind: type = dict) -> bool:
    """True when ``obj`` is a well-formed fixture object (the common case, checked fast)."""
    if type(obj) is not dict or not _FIELDS.issuperset(obj) or "request" not in obj:
        return False
    key, meta = obj.get("key"), obj.get("meta")
    if type(key) is not str or not key or type(obj["request"]) is not request_kind:
        return False
    if meta is not None and type(meta) is not dict:
        return False
    if "response" in obj:
        return "responses" not in obj
    responses = obj.get("responses")
    return type(responses) is list and len(responses) > 0


_Bucket = Location | list[Location]


def _members(bucket: _Bucket | None) -> Sequence[Location]:
    """The locations of an index entry: one location, or a list of them after a collision."""
    if bucket is None:
        return ()
    return bucket if isinstance(bucket, list) else (bucket,)


def _insert(index: dict[K, _Bucket], key: K, loc: Location) -> None:
    bucket = index.get(key)
    if bucket is None:
        index[key] = loc
    elif isinstance(bucket, list):
        bucket.append(loc)
    else:
        index[key] = [bucket, loc]


def _drop_from(index: dict[K, _Bucket], gone: set[Location]) -> None:
    for key, bucket in list(index.items()):
        members = _members(bucket)
        kept = [loc for loc in members if loc not in gone]
        if not kept:
            del index[key]
        elif len(kept) != len(members):
            index[key] = kept if len(kept) > 1 else kept[0]


def _lock_path_of(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


def atomic_write(target: Path, data: bytes) -> None:
    """Replace ``target`` with ``data`` in one step (temporary file, fsync, rename)."""
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


def backup_of(file: Path) -> Path:
    """A free backup name beside ``file``: ``<name>.bak``, else ``<name>.bak1``..."""
    backup = file.with_name(file.name + ".bak")
    n = 1
    while backup.exists():
        backup = file.with_name(f"{file.name}.bak{n}")
        n += 1
    return backup


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
    when they do not parse as JSON. Takes the store's write lock.
    """
    with FileLock(str(_lock_path_of(path))):
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
        backup = backup_of(path)
        atomic_write(backup, data)
        atomic_write(path, data[:cut])
    return backup, len(tail)


def record_response(
    store: FixtureStore,
    request: dict[str, Any],
    response: Any,
    *,
    sample: int = 0,
    meta: dict[str, Any] | None = None,
    overwrite: bool = True,
) -> Fixture:
    """Store ``response`` as sample ``sample`` of ``request``, under the store's lock.

    A new request gets a fixture; an existing one gets the sample added or replaced
    (re-recording). A request first sent by sample ``i`` (samples of a multi-step run
    diverge) holds ``null`` for samples ``0..i-1``. With ``overwrite=False`` a sample
    that another writer recorded meanwhile is kept, and the fixture holding it is
    returned. Re-recording also puts right a key left stale by a hand edit.
    """
    with store.lock():
        store.refresh()
        found = store.find(request, check_key=False)
        if found is not None and not overwrite and found[1].sample(sample) is not None:
            return found[1]
        if found is None:
            fixture = Fixture.create(request, [None] * sample + [response], meta)
        else:
            updated = found[1].with_response(sample, response, meta)
            fixture = Fixture.create(request, list(updated.responses), updated.meta)
        store.put(fixture, replace=found is not None)
    return fixture
