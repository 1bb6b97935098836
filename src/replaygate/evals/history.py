"""The eval history: every run appended to a SQLite file, exportable and mergeable.

Each run keeps its id, time, commit, run information, metrics, and per case and per
assertion pass counts, and per case a digest of what its samples answered: two runs
that replayed the same recordings have the same digest, so the report counts them as
one piece of evidence, not two. ``export`` writes runs as JSON (from CI, say);
``merge`` adds to another history the runs it does not have yet, so merging the same
export twice adds nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import sqlite3
import stat
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from replaygate import jsondoc
from replaygate.errors import first_few, not_utf8_text, shown_file
from replaygate.evals.errors import HistoryError
from replaygate.evals.filenames import text_problem
from replaygate.evals.giveups import GAVE_UP, GaveUp, gave_up, kept_give_ups
from replaygate.evals.metrics import every_metric
from replaygate.evals.reference import (
    CaseSummary,
    check_run_metrics,
    check_success,
    printed_keys,
)
from replaygate.evals.results import EvalResults, read_json
from replaygate.evals.scorers import Metrics
from replaygate.file_kinds import EXPORT_FORMAT as EXPORT_FORMAT
from replaygate.file_kinds import SQLITE_HEADER
from replaygate.fixtures.fixture import iso_second, now_iso
from replaygate.jsondoc import FieldError, check_document, got, strings_field
from replaygate.jsonfields import (
    NoUtcTimeError,
    described,
    each,
    escape_surrogates,
    fields_of,
    known_fields,
    listed_once,
    mapping,
    optional_text,
    parse_time,
    text_field,
    time_field,
    within,
)
from replaygate.outputs import write_text
from replaygate.regular import not_regular, unreadable
from replaygate.sampling import SampledResult
from replaygate.sampling.results import document_text, read_back
from replaygate.strict_json import loads
from replaygate.wall_clock import wall_now

NO_CASE = (
    "holds no case: a run's metrics are those of its cases, so a run without one shows "
    "numbers nothing supports"
)
RUN_FIELDS = ("id", "time", "commit", "info", "metrics", "cases")
CASE_FIELDS = ("samples", "floor", "passes", "verdict", "assertions", "tags", "answers")
ASSERTION_FIELDS = ("kind", "category", "passes", "samples", "description")
"""The fields of an exported run, of its cases and of their assertions: the history
stores these and no other, so a run holding another is refused by its name (a rewrite
of the history, an export or a merge, would drop it)."""
EXPORT_VERSION = 1
SCHEMA_VERSION = "2"
FUTURE_MARGIN = timedelta(hours=1)
"""How far past the present a run's time may be (clocks differ a little from machine to
machine); a later one is refused, as it would stand as the latest run for ever."""
TIMEOUT = 30.0
"""Seconds a command waits for another process that holds the history locked."""

_META_TABLE = "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
"""The table of the history's schema version (key ``schema``)."""
_SCHEMA = f"""
{_META_TABLE}
CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY, time TEXT NOT NULL, git_commit TEXT, info TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS metrics (
    run TEXT NOT NULL REFERENCES runs(id), name TEXT NOT NULL, value REAL,
    PRIMARY KEY (run, name));
CREATE TABLE IF NOT EXISTS cases (
    run TEXT NOT NULL REFERENCES runs(id), case_id TEXT NOT NULL, samples INTEGER NOT NULL,
    floor INTEGER NOT NULL, passes INTEGER NOT NULL, verdict TEXT NOT NULL, tags TEXT NOT NULL,
    answers TEXT NOT NULL DEFAULT '', PRIMARY KEY (run, case_id));
CREATE TABLE IF NOT EXISTS assertions (
    run TEXT NOT NULL REFERENCES runs(id), case_id TEXT NOT NULL, name TEXT NOT NULL,
    kind TEXT NOT NULL, category TEXT NOT NULL, passes INTEGER NOT NULL,
    samples INTEGER NOT NULL, description TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (run, case_id, name));
"""

# One transaction: created statement by statement, a new history cost a disk sync each.
# IMMEDIATE: it writes from the start, so it waits (TIMEOUT) for another writer. Begun
# as a read, it held a read lock when its INSERT asked to write, and SQLite refused that
# at once rather than wait (the other writer waits for the read lock to go).
_CREATE = (
    f"BEGIN IMMEDIATE;{_SCHEMA}"
    f"INSERT OR IGNORE INTO meta VALUES ('schema', '{SCHEMA_VERSION}');COMMIT;"
)


def _upgrade(db: sqlite3.Connection) -> tuple[str] | None:
    """Bring a schema 1 history to schema 2 (its cases gain ``answers``); the new schema row."""
    db.execute("BEGIN IMMEDIATE")  # one process upgrades; the others then see schema 2
    try:
        if db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone() == ("1",):
            db.execute("ALTER TABLE cases ADD COLUMN answers TEXT NOT NULL DEFAULT ''")
            db.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (SCHEMA_VERSION,))
        db.execute("COMMIT")
    except sqlite3.DatabaseError:
        db.execute("ROLLBACK")
        raise
    row: tuple[str] | None = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    return row


def _other_tables(db: sqlite3.Connection) -> list[str]:
    """The tables of a database that is not an eval history (none for a new or a history
    file), so that no history table is ever added to another program's database."""
    tables = sorted(
        row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    )
    if not tables or ("meta" in tables and _schema_row(db) is not None):
        return []
    return tables


HISTORY_TABLES = ("assertions", "cases", "meta", "metrics", "runs")


def _no_schema_row(target: Path, db: sqlite3.Connection, tables: list[str]) -> HistoryError:
    """Why a database holding the history's tables but no schema row (or no table of it)
    is not opened, and the row that makes it a history again (schema 2 when its cases keep
    ``answers``)."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(cases)")}
    schema = SCHEMA_VERSION if "answers" in columns else "1"
    create = "" if "meta" in tables else f"{_META_TABLE} "
    return HistoryError(
        f"{target}: the history's schema version (table meta, key 'schema') is missing, "
        f"though it holds the history's tables ({', '.join(tables)}); it was left as it is: "
        f"if it is a replaygate history, restore the row: sqlite3 {target} "
        f"\"{create}INSERT INTO meta VALUES ('schema', '{schema}')\""
    )


def _foreign_tables(target: Path, tables: list[str]) -> HistoryError:
    """Why a database holding ``tables``, not all of the history's, is not opened: some of
    the history's missing (a damaged history), or tables of something else."""
    if set(tables) <= set(HISTORY_TABLES):
        missing = ", ".join(t for t in HISTORY_TABLES if t not in tables)
        return HistoryError(
            f"{target}: a damaged replaygate history: it holds the history's tables "
            f"{', '.join(tables)} but not {missing}; it was left as it is: restore it from a "
            "copy, or give the history a new file"
        )
    return HistoryError(
        f"{target}: not a replaygate history database (it holds other tables: "
        f"{', '.join(tables)}); it was left as it is: give the history a file of its own"
    )


def _unsupported(target: Path, schema: str | None) -> HistoryError:
    """Why a history of ``schema`` is not opened: a later replaygate wrote it, or it is
    no schema replaygate ever wrote."""
    if schema is not None and schema.isdigit() and int(schema) > int(SCHEMA_VERSION):
        return HistoryError(
            f"{target}: history schema {schema} was written by a newer replaygate; this one "
            f"reads schema 1 and {SCHEMA_VERSION}: upgrade replaygate to use it"
        )
    return HistoryError(f"{target}: unsupported history schema {schema!r}")


def _schema_row(db: sqlite3.Connection) -> tuple[str] | None:
    row: tuple[str] | None = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    return row


def answers_digest(sampled: SampledResult) -> str:
    """A short digest of what the samples of a case answered (their outputs, in order).

    Replaying the same recordings gives the same outputs (law 6), hence the same digest.
    """
    outputs = [sample.output for sample in sampled.samples]
    text = json.dumps(outputs, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def new_run_id() -> str:
    """A run id that sorts by time and is unique: ``YYYYMMDDTHHMMSSZ-<12 hex>``."""
    return f"{_stamp(now_iso())}-{secrets.token_hex(6)}"


def derived_run_id(time: str, digest: str) -> str:
    """The id of a run made from other files (the shards ``eval merge`` combines), in the
    form of :func:`new_run_id`: the run's ``time`` and the first 12 hex digits of
    ``digest``, so that the same files give the same id and are kept once."""
    try:
        stamp = _stamp(time)
    except ValueError:  # no time to sort by: the digest alone tells the run
        stamp = "00000000T000000Z"
    return f"{stamp}-{digest[:12]}"


def _stamp(time: str) -> str:
    """An ISO 8601 time as ``YYYYMMDDTHHMMSSZ`` (UTC); ValueError when it is none."""
    return parse_time(time).astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


@dataclass(frozen=True)
class HistoryRun:
    """One eval run as the history keeps it."""

    id: str
    time: str
    commit: str | None
    metrics: Metrics
    cases: tuple[CaseSummary, ...]
    tags: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    info: Mapping[str, Any] = field(default_factory=dict)
    answers: Mapping[str, str] = field(default_factory=dict)
    """Per case id, :func:`answers_digest` of its samples (absent when not known)."""

    def to_json(self) -> dict[str, Any]:
        """The exported object."""
        return {
            "id": self.id,
            "time": self.time,
            "commit": self.commit,
            "info": dict(self.info),
            "metrics": dict(self.metrics),
            "cases": {c.case: self._case_json(c) for c in self.cases},
        }

    def _case_json(self, case: CaseSummary) -> dict[str, Any]:
        answers = self.answers.get(case.case)
        return {
            **case.to_json(),
            "tags": list(self.tags.get(case.case, ())),
            **({"answers": answers} if answers else {}),
        }

    @staticmethod
    def from_json(obj: Any) -> HistoryRun:
        """The inverse of :meth:`to_json`, as strict as the results reader (the same
        checks of time, commit, metrics and cases; a :class:`FieldError` names the field).
        It holds at least one case and every metric, its ``success`` the share of its
        cases whose verdict is ``pass``, and a field the history does not keep is refused
        by its name."""
        run_id, time = (
            text_field(known_fields(mapping(obj), RUN_FIELDS), "id"),
            time_field(obj, "time"),
        )
        commit, metrics = optional_text(obj, "commit"), check_run_metrics(obj)
        printed_keys(obj, "cases")
        cases = each(obj, "cases", _case, key="case id")
        if not cases:
            raise FieldError("cases", NO_CASE)
        with within("metrics"):
            every_metric(metrics, "every run")
            check_success(metrics, [summary for summary, _, _ in cases])
        info = mapping(obj.get("info", {}), "info")
        kept_give_ups(info, {summary.case: summary.samples for summary, _, _ in cases})
        return HistoryRun(
            id=run_id,
            time=time,
            commit=commit,
            metrics=metrics,
            cases=tuple(summary for summary, _, _ in cases),
            tags={summary.case: tags for summary, tags, _ in cases},
            info=info,
            answers={summary.case: digest for summary, _, digest in cases if digest},
        )

    @property
    def gave_up(self) -> dict[str, GaveUp]:
        """Per case id, the samples in which the agent gave up (``info.gave_up``)."""
        return kept_give_ups(self.info, {case.case: case.samples for case in self.cases})

    @staticmethod
    def of(results: EvalResults, run_id: str | None = None) -> HistoryRun:
        """The history entry of an eval run (time and commit from its run information,
        which keeps the samples in which the agent gave up)."""
        info = {key: value for key, value in results.info.items() if key != GAVE_UP}
        given_up = {c.id: g.to_json() for c in results.cases if (g := gave_up(c.sampled))}
        if given_up:
            info[GAVE_UP] = given_up
        return HistoryRun(
            id=run_id or new_run_id(),
            time=str(info.get("time") or now_iso()),
            commit=info.get("commit"),
            metrics=results.metrics,
            cases=tuple(CaseSummary.of(c.sampled) for c in results.cases),
            tags={c.id: c.tags for c in results.cases},
            info=info,
            answers={c.id: answers_digest(c.sampled) for c in results.cases},
        )


def check_not_future(time: str, now: datetime | None = None) -> None:
    """Refuse (:class:`FieldError` on ``time``) a run's ``time`` that is past ``now`` (the
    present) by more than :data:`FUTURE_MARGIN` (the clock was wrong where it ran), or
    that names no instant in UTC (``0001-01-01T00:00:00+01:00``, in year 0 there, which
    the report could not place)."""
    moment = now or wall_now()
    try:
        when = parse_time(time)
    except NoUtcTimeError as err:
        raise FieldError("time", f"{err}; correct its time, or leave the run out") from None
    if when > moment + FUTURE_MARGIN:
        raise FieldError(
            "time",
            f"{time} is later than now ({iso_second(int(moment.timestamp()))}): the clock was "
            "wrong where the run was made; correct its time, or leave the run out",
        )


def _case(case_id: str, obj: Any) -> tuple[CaseSummary, tuple[str, ...], str | None]:
    """A case of an exported run: its summary, tags and answers digest."""
    known_fields(mapping(obj), CASE_FIELDS)
    each(obj, "assertions", _assertion_fields, key="assertion name", required=False)
    summary = CaseSummary.from_json(case_id, obj)
    check_counts(summary)
    return summary, strings_field(obj, "tags"), optional_text(obj, "answers")


def check_counts(case: CaseSummary) -> None:
    """Refuse (:class:`FieldError` naming the field) a case whose counts contradict each
    other: an assertion counted over no sample or more than the case has, or ``passes``
    its gates cannot give (a sample fails when, and only when, one of its gates fails, a
    plain ``assert`` included). A case that keeps no assertion is not checked."""
    if not case.assertions:
        return
    for stats in case.assertions:
        if not 1 <= stats.samples <= case.samples:
            with within(f"assertions.{stats.name}"):
                raise FieldError(
                    "samples",
                    f"says {stats.samples}, but the case has {case.samples} samples (an "
                    "assertion is counted over the samples that evaluated it: 1 or more)",
                )
    gates = [a for a in case.assertions if a.kind == "gate"]
    failed = case.samples - case.passes
    failures = {a.name: a.samples - a.passes for a in gates}
    worst = max(failures, key=failures.__getitem__, default=None)
    if worst is not None and failures[worst] > failed:
        raise FieldError(
            "passes",
            f"says {case.passes} of {case.samples}, but its gate {worst} failed in "
            f"{failures[worst]} samples: a sample that fails a gate fails",
        )
    if failed > sum(failures.values()):
        told = ", ".join(f"{a.name} {a.passes} of {a.samples}" for a in gates) or "none"
        raise FieldError(
            "passes",
            f"says {case.passes} of {case.samples}, but its gates passed {told}: a sample "
            "fails only when one of its gates fails",
        )


def _assertion_fields(_name: str, obj: Any) -> None:
    """Refuse an assertion of a case holding a field the history does not keep."""
    known_fields(mapping(obj), ASSERTION_FIELDS)


def _loads(text: Any, field: str) -> Any:
    """The JSON a history column holds; :class:`FieldError` when it holds none, or a
    value JSON allows only loosely (NaN, Infinity: :func:`~replaygate.strict_json.loads`),
    which an export would write as no JSON its reader takes."""
    try:
        return loads(text, unique_keys=False)
    except (TypeError, json.JSONDecodeError, RecursionError):
        raise FieldError(field, f"must hold JSON, holds {got(text)}") from None
    except ValueError as err:  # a value refused
        raise FieldError(field, f"must hold JSON: {err}") from None


def check_run(run: HistoryRun, path: Path) -> None:
    """Refuse (:class:`HistoryError`, naming the history at ``path``, the run and the
    field) a run the history would not store: one :meth:`HistoryRun.from_json` refuses,
    dated later than now (:func:`check_not_future`), or holding a text that is not Unicode
    (half of a surrogate pair, which SQLite cannot store), but for a file name of its
    ``info`` that is not UTF-8, kept as its escapes (:mod:`~replaygate.evals.filenames`),
    or a value that is no JSON or NaN (:func:`~replaygate.sampling.results.read_back`:
    an export would write it as ``null``, or not at all)."""
    refusing = f"{path}: refusing to add run {run.id!r}"
    exported = run.to_json()
    read_back(exported, refusing, HistoryError)
    with fields_of(refusing, HistoryError):
        problem = text_problem(exported)
        if problem is not None:
            raise FieldError("", problem)
        HistoryRun.from_json(exported)
        check_not_future(run.time)


def _check_assertion_cases(first_row: Mapping[str, int], cases: Mapping[str, Any]) -> None:
    """Refuse (:class:`FieldError` on ``assertions``) assertion rows of a case the run does
    not hold, naming the case and the first such row of table ``assertions``: dropped,
    they were counts of the run that no export or report showed. A run holding no case
    is left to :meth:`HistoryRun.from_json`, which refuses it as such."""
    for case_id, row in first_row.items():
        if cases and case_id not in cases:
            raise FieldError(
                "assertions",
                f"row {row} of table assertions names case {case_id!r}, which the run does "
                "not hold (no row of table cases): restore the case's row, or delete the "
                "assertion rows of that case",
            )


def _check_kind(target: Path, *, read_only: bool) -> None:
    """Refuse a history path that is no regular file (a FIFO, a folder, a symlink loop;
    read only, a symlink to nothing), naming what it is; a new one passes."""
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError as err:
        if not (read_only and os.path.islink(target)):
            return
        problem = unreadable(target, err, "history file")
    except OSError as err:
        problem = unreadable(target, err, "history file")
    else:
        if stat.S_ISREG(mode) and read_only and _empty(target):
            raise HistoryError(
                f"{target}: the history is an empty file: no run was appended to it yet (run "
                "`replaygate eval`, which makes it a history, first)"
            )
        if stat.S_ISREG(mode):
            return
        problem = unreadable(target, not_regular(target, mode), "history file")
    raise HistoryError(f"{target}: {problem}")


def _empty(target: Path) -> bool:
    """Whether the history file is empty, as ``touch`` or a cache that held nothing leaves
    it, with no WAL file beside it holding its first writes."""
    wal = _side_file(target, "-wal")
    return os.stat(target).st_size == 0 and not (wal.exists() and wal.stat().st_size)


class NotText(ValueError):
    """A text of the history that holds bytes that are not UTF-8 (a damaged history)."""


def _text(data: bytes) -> str:
    """The text SQLite read, as :attr:`sqlite3.Connection.text_factory` (:class:`NotText`
    where it is not UTF-8, instead of an error that names neither run nor field)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise NotText(not_utf8_text(err)) from None


_PARTS = ("metrics", "cases", "assertions")
"""The tables holding the parts of a run, each row naming its run."""
_COUNT_LEFT = "SELECT COUNT(*) FROM {} WHERE CAST(run AS BLOB) = CAST(? AS BLOB)"
_LEFT_IDS = " UNION ".join(
    f"SELECT CAST(run AS BLOB) FROM {table} WHERE run NOT IN (SELECT id FROM runs)"
    for table in _PARTS
)
"""The runs (their ids as stored) that rows of :data:`_PARTS` name but table runs lacks."""


def _deleting(path: Path, run: str, tables: Iterable[str]) -> str:
    """The ``sqlite3`` command that deletes the rows of ``run`` from ``tables`` (its
    row of table runs by ``id``, those of its parts by ``run``)."""
    quoted = run.replace("'", "''")
    deletes = "; ".join(
        f"DELETE FROM {table} WHERE {'id' if table == 'runs' else 'run'} = '{quoted}'"
        for table in tables
    )
    return f'sqlite3 {path} "{deletes}"'


_RUN_COLUMNS = ("id", "time", "git_commit", "info")
"""The columns of a stored run, in the order of :data:`RUN_FIELDS`."""


def _as_stored(column: str) -> str:
    """SQL reading ``column`` as stored, a text as its bytes (decoded by
    :func:`_field_text`, which names the field where they are not UTF-8)."""
    return f"CASE WHEN typeof({column}) = 'text' THEN CAST({column} AS BLOB) ELSE {column} END"


def _field_text(value: object, field: str) -> object:
    """``value`` of a run's ``field`` as read by :func:`_as_stored`: bytes decoded, a
    :class:`FieldError` naming the field where they are not UTF-8."""
    if not isinstance(value, bytes):
        return value
    try:
        return _text(value)
    except NotText as err:
        raise FieldError(field, str(err)) from None


def _code(err: sqlite3.DatabaseError) -> int:
    """The primary SQLite result code of ``err`` (``SQLITE_READONLY``, ``SQLITE_BUSY``)."""
    return int(getattr(err, "sqlite_errorcode", 0)) & 0xFF


def _hot_journal(target: Path) -> Path | None:
    """The rollback journal a writer killed mid-write left beside ``target``, if any: an
    interrupted transaction SQLite rolls back when it next opens the history to write."""
    journal = target.with_name(f"{target.name}-journal")
    try:
        return journal if journal.stat().st_size > 0 else None
    except OSError:
        return None


def _writable(target: Path) -> bool:
    """Whether the history file and its folder (where the journal is) can be written."""
    return os.access(target, os.W_OK) and os.access(target.parent, os.W_OK)


def _unusable(
    target: Path, err: sqlite3.DatabaseError, *, writing: bool = False, reading: bool = False
) -> HistoryError:
    """Why the history at ``target`` cannot be used: another process holds it locked, it
    cannot be written (read-only, a full disk, when ``writing``), cannot be read where it
    is (opened ``reading`` only: in WAL journal mode, a folder SQLite must write to),
    cannot be opened, or is not a history."""
    code = _code(err)
    if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        return HistoryError(
            f"{target}: the history is locked by another process, still after {TIMEOUT:g} "
            f"seconds ({err}); try again when it is done"
        )
    if (
        reading
        and code in (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN)
        and _in_wal_mode(target)
    ):
        return _wal_unreadable(target, err)
    if reading and code == sqlite3.SQLITE_READONLY:
        return HistoryError(
            f"{target}: cannot read the history here: SQLite must write beside it to read it, "
            f"and cannot ({err}); run this where the history and its folder can be written"
        )
    if code == sqlite3.SQLITE_READONLY:
        return HistoryError(f"{target}: cannot write the history: it is read-only ({err})")
    if writing:
        return HistoryError(f"{target}: cannot write the history ({err})")
    if code == sqlite3.SQLITE_CANTOPEN:
        return HistoryError(f"{target}: cannot open the history ({err})")
    if code == sqlite3.SQLITE_CORRUPT:  # a history cut short (a full disk, a partial copy)
        return _damaged(target, str(err))
    return HistoryError(f"{target}: not a replaygate history database ({err})")


def _side_file(target: Path, suffix: str) -> Path:
    """The file SQLite keeps beside the history: ``-wal``, ``-shm``, ``-journal``."""
    return target.with_name(f"{target.name}{suffix}")


def _in_wal_mode(target: Path) -> bool:
    """Whether the history file is in SQLite's WAL journal mode (its header's read and
    write versions are 2), as ``PRAGMA journal_mode=WAL`` of a database tool leaves it."""
    try:
        with open(target, "rb") as file:
            header = file.read(20)
    except OSError:
        return False
    return header.startswith(b"SQLite format 3\0") and header[18:20] == b"\x02\x02"


def _open_to_read(target: Path) -> sqlite3.Connection:
    """The history at ``target`` opened to read only.

    A history in WAL journal mode is read with a ``-shm`` (and a ``-wal``) file beside
    it, which SQLite makes when there is none: in a folder this process cannot write (its
    mode, a read-only mount), it cannot (``SQLITE_READONLY_DIRECTORY``, or
    ``SQLITE_CANTOPEN``), and then, with no ``-wal`` file there, the history is read from
    a copy of it in memory, made by :func:`_wal_snapshot`."""
    db = sqlite3.connect(f"{target.absolute().as_uri()}?mode=ro", uri=True, timeout=TIMEOUT)
    try:
        db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()  # opens the WAL, if any
    except sqlite3.DatabaseError as err:
        db.close()
        cannot_make = _code(err) in (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN)
        folder = not os.access(target.parent, os.W_OK)  # read-only: no -shm can be made
        if not (cannot_make and folder) or _wal_holds(target) or not _in_wal_mode(target):
            raise  # a -wal file holds writes the history file may lack: said by _unusable
        return _wal_snapshot(target)
    return db


def _wal_holds(target: Path) -> bool:
    """Whether a ``-wal`` file beside the history may hold writes not in it yet (one that
    is empty holds none: a reader that could not delete it left it)."""
    try:
        return os.lstat(_side_file(target, "-wal")).st_size > 0
    except FileNotFoundError:
        return False
    except OSError:
        return True


def _file_state(target: Path) -> tuple[int, int, int] | None:
    """What changes when a process writes the history file: its inode, size and time
    (None when it cannot be read: deleted, say)."""
    try:
        info = os.stat(target)
    except OSError:
        return None
    return info.st_ino, info.st_size, info.st_mtime_ns


def _wal_snapshot(target: Path) -> sqlite3.Connection:
    """A copy in memory of the history at ``target``, in WAL journal mode, with no
    ``-wal`` file beside it (or an empty one), in a folder this process cannot write.

    It is read with ``immutable=1``, which takes no lock and reads no ``-wal`` file, so
    it must be used only where no write can be missed or read half-done. None is missed:
    a ``-wal`` file holding writes was refused before (:func:`_wal_holds`), and SQLite
    folds the ``-wal`` file into the history file, and deletes it, as the last connection
    to the history closes, so every write that ended is in the file. None is read
    half-done: a process that writes the history meanwhile (a user who can write the
    folder) writes to its ``-wal`` file and changes the history file only as it
    checkpoints; the file is copied whole at once, and the copy is refused if the file
    changed while it was copied, so what is read is the history as one write left it.
    Later reads are of the copy, which nothing changes."""
    before = _file_state(target)
    uri = f"{target.absolute().as_uri()}?mode=ro&immutable=1"
    copy = sqlite3.connect(":memory:")
    try:
        source = sqlite3.connect(uri, uri=True, timeout=TIMEOUT)
        try:
            source.backup(copy)
        finally:
            source.close()
    except sqlite3.DatabaseError:
        copy.close()
        if before is not None and _file_state(target) == before:
            raise  # damaged, or no history: said as for any history
        raise _changed_while_read(target) from None
    if before is None or _file_state(target) != before:
        copy.close()
        raise _changed_while_read(target)
    return copy


def _changed_while_read(target: Path) -> HistoryError:
    return HistoryError(
        f"{target}: the history changed while it was read (another process wrote it); "
        "try again when it is done"
    )


def _wal_unreadable(target: Path, err: sqlite3.DatabaseError) -> HistoryError:
    """Why a history in WAL journal mode cannot be read where it is, and what to do."""
    shm, wal = (_side_file(target, suffix).name for suffix in ("-shm", "-wal"))
    held = (
        f", and {wal} beside it holds writes that may not be in {target.name} yet"
        if _wal_holds(target)
        else ""
    )
    return HistoryError(
        f"{target}: cannot read the history here: it is in SQLite's WAL journal mode (as a "
        f"database tool may have left it), which SQLite reads with {shm} beside it, a "
        f"file it cannot make or open in this folder{held} ({err}). Read it where the "
        f"folder can be written (a copy of {target.name} with any {wal}), or have someone "
        f"who can write the folder switch it back: sqlite3 {target} 'PRAGMA journal_mode=DELETE'"
    )


def _damaged(target: Path, detail: str) -> HistoryError:
    """The error of a damaged history, which is left as it is."""
    return HistoryError(
        f"{target}: the history is damaged ({detail}); it was left as it is: restore it "
        "from a copy (a backup, the CI cache it came from), or give the history another file"
    )


_MAIN = "*** in database main ***"
"""How SQLite's quick check heads its findings in the one database a history is."""


def _damage(db: sqlite3.Connection) -> str | None:
    """What SQLite's quick check finds wrong in the open history (its first three
    findings), or None: a page of a table that only a read of that table would find
    damaged, where a run was appended to it and then read by nothing."""
    rows = db.execute("PRAGMA quick_check(3)").fetchall()
    findings = [" ".join(str(row[0]).replace(_MAIN, "").split()) for row in rows]
    return None if findings == ["ok"] else "; ".join(findings)


def _run_order(row: tuple[int, Any, Any]) -> tuple[float, int]:
    """Where a stored run (rowid, id, time, as stored) stands: by the instant its time
    names (times written with other UTC offsets or fractions of a second compare by the
    instant, not by their text), then in the order the runs were appended (rowid), so of
    two runs of one time the one appended last is the latest; a time that names no
    instant, first (it is refused)."""
    try:
        instant = parse_time(_decoded(row[2])).timestamp()
    except (TypeError, ValueError, AttributeError):
        instant = float("-inf")
    return instant, row[0]


def _decoded(stored: Any) -> str:
    """A stored id or time, as bytes, for a message or an order: a byte that is not
    UTF-8 shown as its escape (``\\xed``)."""
    return stored.decode("utf-8", "backslashreplace") if isinstance(stored, bytes) else str(stored)


class History:
    """A SQLite eval history; open with :meth:`open`, use as a context manager."""

    def __init__(self, path: Path, connection: sqlite3.Connection, *, answers: bool = True) -> None:
        self.path = path
        self._db = connection
        self._answers = "answers" if answers else "''"  # schema 1, opened read-only: none

    @classmethod
    def open(cls, path: str | os.PathLike[str], *, read_only: bool = False) -> History:
        """Open (or create) the history at ``path``; ``read_only`` opens an existing one
        for reading only, so a file or folder that cannot be written is no obstacle; but
        for a history a writer killed mid-write left with its journal: opened to write
        when it can be, so that SQLite rolls the interrupted write back."""
        target = Path(path)
        _check_kind(target, read_only=read_only)
        journal = _hot_journal(target)
        try:
            if read_only and not (journal and _writable(target)):
                db = _open_to_read(target)
            else:  # reading a history a killed writer left rolls its journal back: a write
                target.parent.mkdir(parents=True, exist_ok=True)
                db = sqlite3.connect(target, timeout=TIMEOUT)
        except sqlite3.DatabaseError as err:
            raise _unusable(target, err, reading=read_only) from None
        db.text_factory = _text
        try:
            other = _other_tables(db)
            if set(HISTORY_TABLES) - {"meta"} <= set(other):
                error = _no_schema_row(target, db, other)
                db.close()
                raise error
            if other:
                db.close()
                raise _foreign_tables(target, other)
            if not read_only:
                if (damage := _damage(db)) is not None:  # checked before anything is written
                    db.close()
                    raise _damaged(target, damage)
                db.executescript(_CREATE)
            row = _schema_row(db)
            if row == ("1",) and not read_only:
                row = _upgrade(db)
        except sqlite3.DatabaseError as err:
            db.close()
            if read_only and journal and _code(err) == sqlite3.SQLITE_READONLY:
                raise HistoryError(
                    f"{target}: an interrupted write left {journal.name} beside it, which "
                    "SQLite must roll back before the history can be read, and the history "
                    "cannot be written here: run this where the history and its folder can "
                    "be written, or a command that writes it (replaygate history merge)"
                ) from None
            raise _unusable(target, err, reading=read_only) from None
        except NotText as err:
            db.close()
            raise HistoryError(f"{target}: not a replaygate history database ({err})") from None
        supported = (SCHEMA_VERSION, "1") if read_only else (SCHEMA_VERSION,)  # 1: no upgrade
        if row is None or row[0] not in supported:
            db.close()
            raise _unsupported(target, row[0] if row else None)
        return cls(target, db, answers=row[0] == SCHEMA_VERSION)

    def close(self) -> None:
        """Close the database."""
        self._db.close()

    def __enter__(self) -> History:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __len__(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM runs").fetchone()[0])

    def append(self, results: EvalResults, *, run_id: str | None = None) -> HistoryRun:
        """Add an eval run; returns the stored entry (its ``id`` is new unless given)."""
        run = HistoryRun.of(results, run_id)
        if not self.add(run):
            raise HistoryError(f"{self.path}: a run with id {run.id!r} is already there")
        return run

    def add(self, run: HistoryRun, *, checked: bool = False) -> bool:
        """Insert ``run`` unless a run with its id exists; True when it was added.

        A run :func:`check_run` refuses is a :class:`HistoryError`, and nothing is
        written: every stored run can be read back. ``checked`` says the caller has
        passed ``run`` through :func:`check_run` for this history already (to refuse it
        before printing anything), so it is not checked twice.
        """
        if not checked:
            check_run(run, self.path)
        try:
            return self._insert(run)
        except sqlite3.DatabaseError as err:  # rolled back: nothing of the run is stored
            raise _unusable(self.path, err, writing=True) from None

    def _insert(self, run: HistoryRun) -> bool:
        with self._db:  # one transaction: the whole run or nothing of it
            return self._insert_rows(run)

    def _insert_rows(self, run: HistoryRun) -> bool:
        """Insert ``run``'s rows in the transaction under way; False when its id is there."""
        # A file name that is not UTF-8 stored as its JSON escapes (caf\udce9), as --out writes it
        info = escape_surrogates(json.dumps(dict(run.info), ensure_ascii=False))
        cursor = self._db.execute(
            "INSERT OR IGNORE INTO runs VALUES (?, ?, ?, ?)",
            (run.id, run.time, run.commit, info),
        )
        if cursor.rowcount == 0:
            return False
        try:
            self._insert_parts(run)
        except sqlite3.IntegrityError:
            left = self._left_over(run.id)
            if left is None:
                raise
            raise HistoryError(
                f"{self.path}: cannot add {left[0]}, and the run's rows would collide with "
                f"them; nothing was written. {left[1]}, then add the run again"
            ) from None
        return True

    def _insert_parts(self, run: HistoryRun) -> None:
        """Insert the metrics, cases and assertions of ``run``, whose row is in."""
        self._db.executemany(
            "INSERT INTO metrics VALUES (?, ?, ?)",
            [(run.id, name, value) for name, value in run.metrics.items()],
        )
        for case in run.cases:
            tags = json.dumps(list(run.tags.get(case.case, ())), ensure_ascii=False)
            self._db.execute(
                "INSERT INTO cases VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (run.id, case.case, case.samples, case.floor, case.passes, case.verdict, tags,
                 run.answers.get(case.case, "")),
            )  # fmt: skip
            self._db.executemany(
                "INSERT INTO assertions VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (run.id, case.case, a.name, a.kind, a.category, a.passes, a.samples,
                     a.description)
                    for a in case.assertions
                ],
            )  # fmt: skip

    def _left_over(self, run: object) -> tuple[str, str] | None:
        """The rows of ``run`` in the tables of its parts, where table runs holds no row
        of it (a hand edit deleted it; or added just now, colliding with them), in words,
        and what to do about them; None when there are none."""
        counts = [
            (table, count)
            for table in _PARTS
            if (count := self._db.execute(_COUNT_LEFT.format(table), (run,)).fetchone()[0])
        ]
        if not counts:
            return None
        shown = _decoded(run)
        held = ", ".join(f"{count} row(s) of table {table}" for table, count in counts)
        delete = _deleting(self.path, shown, [table for table, _ in counts])
        return (
            f"run {shown!r}: table runs holds no row of it, but {held} are left of it (a "
            "hand edit deleted its row?)",
            f"Restore its row of table runs from a copy of the history, or delete the rows "
            f"left ({delete})",
        )

    def leftovers(self) -> list[str]:
        """A note for each run whose row of table runs is gone while rows of its metrics,
        cases or assertions are left (a hand edit): no run is read from them, and they
        are kept as they are."""
        ids = self._db.execute(_LEFT_IDS).fetchall()
        notes = [self._left_over(run) for (run,) in sorted(ids)]
        return [f"{said}; they are kept as they are. {todo}" for said, todo in filter(None, notes)]

    def runs(
        self,
        *,
        last: int | None = None,
        skipped: list[str] | None = None,
        ids: Collection[str] | None = None,
    ) -> list[HistoryRun]:
        """Every run (or the ``last`` ones, or those of ``ids``), oldest first, each checked
        as an export's.

        A damaged stored run (a time that is no time, a metric out of range, a text that
        is not UTF-8) is a :class:`HistoryError` naming its id and field or, given
        ``skipped``, is left out and described there, as are the rows left of a run whose
        row of table runs is gone (:meth:`leftovers`).
        """
        try:
            return self._runs(last, skipped, ids)
        except sqlite3.DatabaseError as err:  # locked by another process since it was opened
            raise _unusable(self.path, err) from None

    def _runs(
        self, last: int | None, skipped: list[str] | None, ids: Collection[str] | None
    ) -> list[HistoryRun]:
        query = "SELECT rowid, CAST(id AS BLOB), CAST(time AS BLOB) FROM runs"
        rows = sorted(self._db.execute(query).fetchall(), key=_run_order)
        if last is not None:
            rows = rows[-last:] if last > 0 else []
        if ids is not None:  # read only these: each run read is checked whole
            rows = [row for row in rows if _decoded(row[1]) in ids]
        runs = []
        for rowid, run_id, _ in rows:
            try:
                runs.append(HistoryRun.from_json(self._run_json(rowid)))
            except FieldError as err:
                shown = _decoded(run_id)
                note = f"run {shown!r}: {described(err)}"
                if skipped is None:
                    delete = _deleting(self.path, shown, (*reversed(_PARTS), "runs"))
                    raise HistoryError(
                        f"{self.path}: {note}; correct it in the history, or restore the "
                        f"history from a copy, or delete the run ({delete})"
                    ) from None
                skipped.append(note)
        if skipped is not None:
            skipped.extend(self.leftovers())
        return runs

    def _rows(self, field: str, query: str, run: object) -> list[Any]:
        """The rows of ``query`` about ``run``, a BLOB (no column holds one: a hand edit)
        read as the text it holds; a text among them that is not UTF-8 is a
        :class:`FieldError` naming ``field``."""
        try:
            return [
                tuple(_text(value) if isinstance(value, bytes) else value for value in row)
                for row in self._db.execute(query, (run,)).fetchall()
            ]
        except NotText as err:
            raise FieldError(field, str(err)) from None

    def _run_json(self, rowid: int) -> dict[str, Any]:
        """The stored run of ``rowid`` as :meth:`HistoryRun.to_json` exports it."""
        ((run_id, time, commit, info),) = self._db.execute(
            "SELECT " + ", ".join(map(_as_stored, _RUN_COLUMNS)) + " FROM runs WHERE rowid = ?",
            (rowid,),
        ).fetchall()
        run_id, time, commit, info = (
            _field_text(value, field)
            for value, field in zip((run_id, time, commit, info), RUN_FIELDS[:4], strict=True)
        )
        assertions: dict[str, dict[str, Any]] = {}
        first_row: dict[str, int] = {}
        for row, case_id, name, kind, category, passes, samples, description in self._rows(
            "cases",
            "SELECT rowid, case_id, name, kind, category, passes, samples, description "
            "FROM assertions WHERE run = ? ORDER BY rowid",
            run_id,
        ):
            stats = {"kind": kind, "category": category, "passes": passes, "samples": samples}
            assertions.setdefault(case_id, {})[name] = {**stats, "description": description}
            first_row.setdefault(case_id, row)
        cases = {
            case_id: {
                "samples": samples,
                "floor": floor,
                "passes": passes,
                "verdict": verdict,
                "assertions": assertions.get(case_id, {}),
                "tags": _loads(tag_text, f"cases.{case_id}.tags"),
                **({"answers": digest} if digest else {}),
            }
            for case_id, samples, floor, passes, verdict, tag_text, digest in self._rows(
                "cases",
                f"SELECT case_id, samples, floor, passes, verdict, tags, {self._answers} "
                "FROM cases WHERE run = ? ORDER BY rowid",
                run_id,
            )
        }
        _check_assertion_cases(first_row, cases)
        metrics = self._rows(
            "metrics", "SELECT name, value FROM metrics WHERE run = ? ORDER BY rowid", run_id
        )
        return {
            "id": run_id,
            "time": time,
            "commit": commit,
            "info": _loads(info, "info"),
            "metrics": dict(metrics),
            "cases": cases,
        }

    def export(self, *, last: int | None = None) -> dict[str, Any]:
        """The runs as a JSON document (``last`` limits it to the newest runs). A run
        ``history merge`` would refuse is a :class:`HistoryError` naming it, one dated
        later than now (:func:`check_not_future`) included: what is exported merges."""
        runs = self.runs(last=last)
        for run in runs:
            with fields_of(f"{self.path}: run {run.id!r}", HistoryError):
                check_not_future(run.time)
        return {
            "format": EXPORT_FORMAT,
            "version": EXPORT_VERSION,
            "runs": [run.to_json() for run in runs],
        }

    def export_to(self, path: str | os.PathLike[str], *, last: int | None = None) -> int:
        """Write :meth:`export` to ``path``; returns the number of runs written. An export
        at ``path`` holding runs this history lacks is a :class:`HistoryError`, and
        nothing is written: they would be lost (an export of another history, to merge)."""
        target = Path(path)
        self._check_kept(target)
        document = self.export(last=last)
        target.parent.mkdir(parents=True, exist_ok=True)
        write_text(target, document_text(document))
        return len(document["runs"])

    def _check_kept(self, out: Path) -> None:
        """Refuse to replace the export ``out`` when it holds runs this history lacks."""
        stored = {_decoded(row[0]) for row in self._db.execute("SELECT CAST(id AS BLOB) FROM runs")}
        lost = [run_id for run_id in exported_ids(out) if run_id not in stored]
        if lost:
            shown = first_few(lost, 3)
            raise HistoryError(
                f"{out}: holds an exported history with {len(lost)} run(s) that {self.path} "
                f"does not hold ({shown}): writing the export there would replace them; "
                f"merge it first (replaygate history merge {out}) or choose another file "
                "(nothing was written)"
            )

    def merge(self, runs: Iterable[HistoryRun]) -> tuple[int, int]:
        """Add the runs this history lacks, in one transaction (all of them or, on an
        error, none: a run :func:`check_run` refuses is a :class:`HistoryError` before any
        is written); returns (added, already there)."""
        runs = list(runs)
        for run in runs:
            check_run(run, self.path)
        try:
            with self._db:  # one write to disk, not one per run (5,000 runs took minutes)
                added = sum(self._insert_rows(run) for run in runs)
        except sqlite3.DatabaseError as err:  # rolled back: nothing of the runs is stored
            raise _unusable(self.path, err, writing=True) from None
        return added, len(runs) - added


def _exported_run(obj: Any) -> HistoryRun:
    """A run of an export, as :meth:`HistoryRun.from_json` reads it, dated no later than
    the present (:func:`check_not_future`)."""
    run = HistoryRun.from_json(obj)
    check_not_future(run.time)
    return run


def _is_database(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a SQLite file (a history database), by its first bytes."""
    try:  # a file that says it is empty (/proc/kmsg) may wait for ever: not opened
        if os.stat(path).st_size < len(SQLITE_HEADER):
            return False
        with open(path, "rb") as handle:
            return handle.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:  # the reader names why it cannot be read
        return False


def exported_ids(path: Path) -> list[str]:
    """The run ids of the exported history at ``path`` (none when no file is there, or an
    empty one). A file holding anything else (text that is not JSON, eval results, an
    export damaged past reading) is a :class:`HistoryError`: an export written there would
    replace what it holds."""
    try:
        if not path.is_file() or path.stat().st_size == 0:
            return []
        document = jsondoc.read_json(path, "an exported history", HistoryError)
    except (OSError, HistoryError) as err:
        raise _not_an_export(path, str(err).removeprefix(f"{shown_file(str(path))}: ")) from None
    if not isinstance(document, dict) or document.get("format") != EXPORT_FORMAT:
        kind = document.get("format") if isinstance(document, dict) else None
        held = f"a {kind!r} document" if isinstance(kind, str) else "JSON of another kind"
        raise _not_an_export(path, f"it holds {held}")
    runs = document.get("runs")
    return [
        str(run["id"])
        for run in (runs if isinstance(runs, list) else [])
        if isinstance(run, dict) and "id" in run
    ]


def _not_an_export(path: Path, reason: str) -> HistoryError:
    """Why an export is not written over the file at ``path``: it is not one."""
    return HistoryError(
        f"{path}: is not an exported history ({reason}): writing the export there would "
        "replace it; remove the file or choose another path (nothing was written)"
    )


def read_export(path: str | os.PathLike[str]) -> list[HistoryRun]:
    """The runs of an exported history file; :class:`HistoryError` names the first field
    that is wrong (``runs[0].time``), so that nothing of a damaged export is merged."""
    name = str(path)
    try:
        parsed = read_json(path, "history export", HistoryError)
    except HistoryError:
        if not _is_database(path):  # looked at once the file was read: it can be
            raise
        raise HistoryError(
            f"{name}: is a history database, not an export: export its runs first "
            f"(replaygate history export --history {name} --out runs.json), then merge "
            "runs.json"
        ) from None
    document = check_document(
        parsed,
        name,
        format=EXPORT_FORMAT,
        version=EXPORT_VERSION,
        what="an exported replaygate history",
        error=HistoryError,
    )
    with fields_of(name, HistoryError):
        runs = each(document, "runs", lambda _i, run: _exported_run(run))
        listed_once((run.id for run in runs), "runs", "run", "a run is kept once")
    return runs
