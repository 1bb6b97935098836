"""The SQLite eval history: runs survive reopening, export and merge add no duplicates."""

from __future__ import annotations

import json
import os
import re
import sqlite3
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from counted_outputs import run_output
from read_only_sqlite import (
    folder_anyone_reaches,
    make_sqlite_read_only,
    read_where_the_folder_cannot_be_written,
)
from replaygate.assertions.kinds import Outcome
from replaygate.cli.history_cmds import history_group
from replaygate.evals import CaseResult, EvalResults, History, HistoryError, read_export
from replaygate.evals.errors import ResultsError
from replaygate.evals.history import NO_CASE, HistoryRun, answers_digest, check_not_future
from replaygate.evals.reference import Reference
from replaygate.evals.results import load_eval_results
from replaygate.evals.scorers import CaseCounts
from replaygate.jsondoc import FieldError
from replaygate.report.gated import gated_run
from replaygate.sampling import SampledResult, SampleResult


def run(time: str, passes: int, commit: str = "abc123", answer: str = "x") -> EvalResults:
    samples = tuple(
        SampleResult(
            i,
            (
                Outcome("contains", "gate", True, "", 1.0, "contains"),
                Outcome("citations", "gate", i < passes, "", None, "set"),
            ),
            run_output(
                answer,
                cited=["doc-rag"] if i < passes else [],
                fetched=["doc-rag"],
                input_tokens=100,
                output_tokens=10,
                steps=3,
            ),
        )
        for i in range(5)
    )
    sampled = SampledResult("rag", 5, 4, samples, {"citations": "cites doc-rag"})
    counts = CaseCounts(5, sampled.verdict == "pass", 5, True, passes, passes, 5, 0, 500, 50, 15)
    return EvalResults(
        (CaseResult(sampled, counts, ("rag", "i18n")),), {"time": time, "commit": commit}
    )


def test_runs_survive_closing_and_reopening_the_file(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "history.db"
    with History.open(path) as history:
        first = history.append(run("2026-11-01T10:00:00Z", 5))
    with History.open(path) as history:
        second = history.append(run("2026-11-08T10:00:00Z", 3, commit="def456"))
    assert path.is_file()
    with sqlite3.connect(path) as raw:
        assert raw.execute("SELECT COUNT(*) FROM runs").fetchone() == (2,)
    with History.open(path) as history:
        runs = history.runs()
        assert [r.id for r in runs] == [first.id, second.id]
        assert [r.commit for r in runs] == ["abc123", "def456"]
        assert runs[0].metrics["success"] == 1.0 and runs[1].metrics["success"] == 0.0
        (rag,) = runs[1].cases
        assert (rag.case, rag.passes, rag.samples, rag.floor, rag.verdict) == (
            "rag", 3, 5, 4, "observe",
        )  # fmt: skip
        stats = {a.name: (a.passes, a.samples, a.kind, a.category) for a in rag.assertions}
        assert stats == {"contains": (5, 5, "gate", "contains"), "citations": (3, 5, "gate", "set")}
        assert runs[1].tags == {"rag": ("rag", "i18n")}
        assert [r.id for r in history.runs(last=1)] == [second.id]


def test_export_and_merge_add_each_run_once(tmp_path: Path) -> None:
    ci, local = tmp_path / "ci.db", tmp_path / "local.db"
    with History.open(ci) as history:
        history.append(run("2026-11-01T10:00:00Z", 5))
        history.append(run("2026-11-02T10:00:00Z", 4))
        assert history.export_to(tmp_path / "export.json") == 2
    with History.open(local) as history:
        history.append(run("2026-10-30T10:00:00Z", 5))
        exported = read_export(tmp_path / "export.json")
        assert history.merge(exported) == (2, 0)
        assert history.merge(exported) == (0, 2)
        assert len(history) == 3
        merged = history.runs()
    assert [r.time for r in merged] == [
        "2026-10-30T10:00:00Z", "2026-11-01T10:00:00Z", "2026-11-02T10:00:00Z",
    ]  # fmt: skip
    with History.open(ci) as history:
        assert history.runs()[1].to_json() == merged[2].to_json()


def test_the_history_commands_export_and_merge(tmp_path: Path) -> None:
    source, target = tmp_path / "a.db", tmp_path / "b.db"
    with History.open(source) as history:
        history.append(run("2026-11-01T10:00:00Z", 5))
        history.append(run("2026-11-02T10:00:00Z", 5))
    runner = CliRunner()
    out = tmp_path / "runs.json"
    exported = runner.invoke(
        history_group, ["export", "--out", str(out), "--history", str(source), "--last", "1"]
    )
    assert exported.exit_code == 0, exported.output
    assert "exported 1 run(s)" in exported.output
    assert len(json.loads(out.read_text(encoding="utf-8"))["runs"]) == 1
    for expected in ("1 run(s) added, 0 already there", "0 run(s) added, 1 already there"):
        merged = runner.invoke(history_group, ["merge", str(out), "--history", str(target)])
        assert merged.exit_code == 0, merged.output
        assert expected in merged.output
    twice = runner.invoke(history_group, ["merge", str(out), str(out), "--history", str(target)])
    assert "0 run(s) added, 1 already there" in twice.output  # was 2: one run counted twice
    missing = runner.invoke(
        history_group, ["export", "--out", str(out), "--history", str(tmp_path / "none.db")]
    )
    assert missing.exit_code == 2
    assert "no history at" in missing.output


def test_merging_an_export_reads_only_the_stored_runs_of_its_ids(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # every stored run was read and checked whole to tell the export's apart from them:
    # merging one run into a history of 10,000 took a minute
    target, out = tmp_path / "h.db", tmp_path / "runs.json"
    with History.open(target) as history:
        for day in range(1, 21):
            history.append(run(f"2026-11-{day:02d}T10:00:00Z", 5), run_id=f"r{day}")
        history.export_to(out, last=1)
    read: list[str] = []
    as_read = HistoryRun.from_json

    def counted(obj: Any) -> HistoryRun:
        found = as_read(obj)
        read.append(found.id)
        return found

    monkeypatch.setattr(HistoryRun, "from_json", staticmethod(counted))
    merged = CliRunner().invoke(history_group, ["merge", str(out), "--history", str(target)])
    assert merged.exit_code == 0, merged.output
    assert "0 run(s) added, 1 already there" in merged.output
    assert set(read) == {"r20"}, read


def test_the_history_commands_name_a_file_with_a_newline_on_one_line(tmp_path: Path) -> None:
    # "merged into h\nh.db: ..." took two lines, where an error names such a file quoted
    source, out, none = tmp_path / "h\nh.db", tmp_path / "r\nr.json", tmp_path / "n\nn.db"
    with History.open(source) as history:
        history.append(run("2026-11-01T10:00:00Z", 5))
    runner = CliRunner()
    commands = [
        ["export", "--out", str(out), "--history", str(source)],
        ["merge", str(out), "--history", str(source)],
        ["export", "--json", "--history", str(none)],
    ]
    said = [runner.invoke(history_group, args).output for args in commands]
    assert said[0] == f"exported 1 run(s) from {str(source)!r} to {str(out)!r}\n"
    assert said[1] == f"merged into {str(source)!r}: 0 run(s) added, 1 already there\n"
    assert said[2].startswith(f"Error: no history at {str(none)!r}: run"), said[2]


def test_a_run_id_is_never_stored_twice(tmp_path: Path) -> None:
    with History.open(tmp_path / "h.db") as history:
        history.append(run("2026-11-01T10:00:00Z", 5), run_id="one")
        with pytest.raises(HistoryError, match="a run with id 'one' is already there"):
            history.append(run("2026-11-01T10:00:00Z", 5), run_id="one")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", "not JSON"),
        ('{"format": "x"}', "not an exported replaygate history"),
        (
            '{"format": "replaygate.history", "version": 2}',
            "version 2 was written by a newer replaygate",
        ),
        (
            '{"format": "replaygate.history", "version": true, "runs": []}',
            "export.json: version: must be an integer, got true$",
        ),
        (
            '{"format": "replaygate.history", "version": 1, "runs": {}}',
            "runs: must be a list, got an object$",
        ),
        ('{"format": "replaygate.history", "version": 1, "runs": [{"time": "t"}]}', r"runs\[0\]"),
        (
            '{"format": "replaygate.history", "version": 1, "runs": [{"id": "i", "time": '
            '"2026-11-01T10:00:00Z", "metrics": {}, "cases": {"c": {"samples": 5, "floor": 6,'
            ' "passes": 1}}}]}',
            r"runs\[0\]\.cases\.c\.floor: must be an integer from 1 to 5, got 6$",
        ),
        (  # valid JSON, but SQLite could not store it: a traceback before
            '{"format": "replaygate.history", "version": 1, "runs": [{"id": "r\\ud800"}]}',
            r"runs\[0\]\.id: holds \\ud800, half of a surrogate pair: not Unicode text$",
        ),
    ],
)
def test_a_bad_export_is_named(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "export.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(HistoryError, match=message):
        read_export(path)
    result = CliRunner().invoke(
        history_group, ["merge", str(path), "--history", str(tmp_path / "h.db")]
    )
    assert result.exit_code == 2
    assert str(path) in result.output


def test_a_file_that_is_not_a_history_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    path.write_text("not sqlite at all, just text that is long enough" * 20, encoding="utf-8")
    with pytest.raises(HistoryError, match="not a replaygate history database"):
        History.open(path)


def test_another_programs_database_is_refused_and_left_as_it_is(tmp_path: Path) -> None:
    # --history pointed at the application's own database by mistake: exporting or
    # reporting must not add the history's tables to it.
    path = tmp_path / "app.db"
    with sqlite3.connect(path) as raw:
        raw.execute("CREATE TABLE users (name TEXT)")
        raw.execute("INSERT INTO users VALUES ('ada')")
    raw.close()
    before = path.read_bytes()
    with pytest.raises(HistoryError, match=r"not a replaygate history database .*: users\)"):
        History.open(path)
    result = CliRunner().invoke(history_group, ["export", "--json", "--history", str(path)])
    assert result.exit_code == 2 and str(path) in result.output, result.output
    assert path.read_bytes() == before


def history_path(tmp_path: Path, kind: str) -> Path:
    """A path given as the history that is no history file, of ``kind``."""
    path = tmp_path / "history.db"
    if kind == "a FIFO":
        os.mkfifo(path)
    elif kind == "a device":
        return Path("/dev/null")
    elif kind == "a symlink loop":
        path.symlink_to("loop.db")
        (tmp_path / "loop.db").symlink_to(path.name)
    else:
        path.symlink_to("gone.db")
    return path


NO_FILES = ["a FIFO", "a device", "a symlink loop"]
TO_NOTHING = "a symlink to 'gone.db', which does not exist"  # merge makes the file it names


@pytest.mark.parametrize(
    ("command", "kind"),
    [*((c, k) for c in ("export", "merge") for k in NO_FILES), ("export", TO_NOTHING)],
)
def test_a_history_that_is_no_file_is_named_as_such(
    tmp_path: Path, command: str, kind: str
) -> None:
    # A symlink loop was "no history at" for export, "cannot open the history (unable to
    # open database file)" for merge.
    export = tmp_path / "export.json"
    with History.open(tmp_path / "h.db") as history:
        history.append(run("2026-11-01T10:00:00Z", 5))
        history.export_to(export)
    path = history_path(tmp_path, kind)
    args = ["export", "--json"] if command == "export" else ["merge", str(export)]
    result = CliRunner().invoke(history_group, [*args, "--history", str(path)])
    assert result.exit_code == 2, result.output
    assert f"{path}: is {kind}, where a history file is expected" in result.output


def test_a_history_of_another_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    History.open(path).close()
    with sqlite3.connect(path) as raw:
        raw.execute("UPDATE meta SET value = '9' WHERE key = 'schema'")
    with pytest.raises(
        HistoryError,
        match=r"history schema 9 was written by a newer replaygate; this one reads schema 1 "
        r"and 2: upgrade replaygate to use it$",
    ):
        History.open(path)
    with sqlite3.connect(path) as raw:
        raw.execute("UPDATE meta SET value = 'two' WHERE key = 'schema'")
    raw.close()
    with pytest.raises(HistoryError, match=r"unsupported history schema 'two'$"):
        History.open(path, read_only=True)


def test_an_empty_history_file_is_read_as_one_no_run_was_appended_to(tmp_path: Path) -> None:
    # report and history export said "not a replaygate history database (no such table:
    # meta)" of a file `touch` or an empty cache left, which eval takes as a new history
    path = tmp_path / "history.db"
    path.touch()
    with pytest.raises(HistoryError, match=r"history\.db: the history is an empty file: no run"):
        History.open(path, read_only=True)
    exported = CliRunner().invoke(history_group, ["export", "--history", str(path), "--json"])
    assert exported.exit_code == 2 and "run `replaygate eval`" in exported.output
    assert path.read_bytes() == b""  # left as it is
    with History.open(path) as history:  # eval appends its first run to it
        assert history.runs() == []


def edited_history(tmp_path: Path, sql: str) -> Path:
    """A history of one run, then edited in SQLite by ``sql``."""
    path = tmp_path / "h.db"
    with History.open(path) as history:
        history.append(run("2026-11-01T10:00:00Z", 5))
    with sqlite3.connect(path) as raw:
        raw.executescript(sql)
    raw.close()
    return path


def test_a_history_whose_schema_row_is_gone_is_named_so_and_left_as_it_is(
    tmp_path: Path,
) -> None:
    # It was "not a replaygate history database (it holds other tables: assertions, ...)".
    path = edited_history(tmp_path, "DELETE FROM meta")
    before = path.read_bytes()
    for read_only in (True, False):
        with pytest.raises(HistoryError) as err:
            History.open(path, read_only=read_only)
        assert str(err.value) == (
            f"{path}: the history's schema version (table meta, key 'schema') is missing, "
            "though it holds the history's tables (assertions, cases, meta, metrics, runs); "
            "it was left as it is: if it is a replaygate history, restore the row: sqlite3 "
            f"{path} \"INSERT INTO meta VALUES ('schema', '2')\""
        )
    assert path.read_bytes() == before


def test_a_history_whose_schema_table_or_another_is_gone_is_named_damaged(tmp_path: Path) -> None:
    # both were "not a replaygate history database (it holds other tables: ...)"
    path = edited_history(tmp_path, "DROP TABLE meta")
    with pytest.raises(HistoryError) as err:
        History.open(path, read_only=True)
    restore = str(err.value).rpartition(f"sqlite3 {path} ")[2].strip('"')
    assert restore.startswith("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, ")
    with sqlite3.connect(path) as raw:
        raw.executescript(restore)  # the command it gives makes it a history again
    raw.close()
    with History.open(path, read_only=True) as history:
        assert len(history.runs()) == 1
    with sqlite3.connect(path) as raw:
        raw.executescript("DROP TABLE meta; DROP TABLE assertions")
    raw.close()
    with pytest.raises(HistoryError) as err:
        History.open(path, read_only=True)
    assert str(err.value).startswith(
        f"{path}: a damaged replaygate history: it holds the history's tables cases, "
        "metrics, runs but not assertions, meta; it was left as it is"
    )


def test_each_case_keeps_a_digest_of_what_its_samples_answered(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    with History.open(path) as history:
        first = history.append(run("2026-11-01T10:00:00Z", 5))
        replay = history.append(run("2026-11-02T10:00:00Z", 5))
        other = history.append(run("2026-11-03T10:00:00Z", 3, answer="re-recorded"))
    assert first.answers == {"rag": answers_digest(first_sampled(run("t", 5)))}
    with History.open(path) as history:
        stored = history.runs()
        exported = history.export()
    assert [r.answers for r in stored] == [first.answers, replay.answers, other.answers]
    assert stored[0].answers == stored[1].answers != stored[2].answers
    assert exported["runs"][0]["cases"]["rag"]["answers"] == first.answers["rag"]
    with History.open(tmp_path / "merged.db") as merged:
        merged.merge(read_export_of(exported, tmp_path))
        assert [r.answers for r in merged.runs()] == [r.answers for r in stored]


def test_an_answer_that_is_not_valid_text_is_digested_and_stored(tmp_path: Path) -> None:
    with History.open(tmp_path / "h.db") as history:
        stored = history.append(run("2026-11-01T10:00:00Z", 5, answer="RAG \ud800"))
        assert history.runs()[0].answers == stored.answers != {}


def first_sampled(results: EvalResults) -> SampledResult:
    return results.cases[0].sampled


def read_export_of(document: dict[str, object], tmp_path: Path) -> list[HistoryRun]:
    path = tmp_path / "export.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return read_export(path)


def test_a_history_of_schema_1_gains_the_answers_column(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as raw:
        raw.executescript(
            """
            CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
            INSERT INTO meta VALUES ('schema', '1');
            CREATE TABLE runs (id TEXT PRIMARY KEY, time TEXT NOT NULL, git_commit TEXT,
                info TEXT NOT NULL);
            CREATE TABLE metrics (run TEXT NOT NULL, name TEXT NOT NULL, value REAL,
                PRIMARY KEY (run, name));
            CREATE TABLE cases (run TEXT NOT NULL, case_id TEXT NOT NULL,
                samples INTEGER NOT NULL, floor INTEGER NOT NULL, passes INTEGER NOT NULL,
                verdict TEXT NOT NULL, tags TEXT NOT NULL, PRIMARY KEY (run, case_id));
            CREATE TABLE assertions (run TEXT NOT NULL, case_id TEXT NOT NULL,
                name TEXT NOT NULL, kind TEXT NOT NULL, category TEXT NOT NULL,
                passes INTEGER NOT NULL, samples INTEGER NOT NULL,
                description TEXT NOT NULL DEFAULT '', PRIMARY KEY (run, case_id, name));
            INSERT INTO runs VALUES ('old', '2026-10-01T10:00:00Z', 'abc', '{}');
            INSERT INTO cases VALUES ('old', 'rag', 5, 4, 5, 'pass', '[]');
            INSERT INTO metrics SELECT 'old', column1, column2 FROM (VALUES ('success', 1.0),
                ('citation_precision', NULL), ('citation_recall', NULL), ('fabricated', NULL),
                ('cost', NULL), ('cost_total', NULL), ('tokens', 0.0), ('steps', 0.0));
            """
        )
    raw.close()
    with History.open(path) as history:
        (old,) = history.runs()
        assert old.answers == {} and old.cases[0].passes == 5
        new = history.append(run("2026-11-01T10:00:00Z", 4))
        assert history.runs()[1].answers == new.answers != {}
    with sqlite3.connect(path) as raw:
        assert raw.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone() == ("2",)
    raw.close()


def exported_run(tmp_path: Path) -> dict[str, Any]:
    """The export of a one-run history, as ``history export`` writes it."""
    with History.open(tmp_path / "ci.db") as history:
        history.append(run("2026-11-01T10:00:00Z", 5), run_id="ci-run")
        document = history.export()
    return document


DAMAGED_RUNS = {
    "time a word": (lambda r: r.update(time="yesterday"), r"runs\[0\]\.time: must be an ISO 8601"),
    "time a number": (lambda r: r.update(time=12345), r"runs\[0\]\.time: .*, got 12345$"),
    "cost beyond any": (
        lambda r: r["metrics"].update(cost=1e308),
        r"runs\[0\]\.metrics\.cost: must be null or a number from 0 to [\d,]+, got 1e\+308$",
    ),
    "success negative": (
        lambda r: r["metrics"].update(success=-100),
        r"runs\[0\]\.metrics\.success: must be null or a number from 0 to 1, got -100$",
    ),
    "no metrics": (lambda r: r.pop("metrics"), r"runs\[0\]\.metrics: is missing"),
    "metrics empty": (
        lambda r: r.update(metrics={}),
        r"runs\[0\]\.metrics\.success: is missing; it must be a number, or null when the run",
    ),
    "a metric missing": (
        lambda r: r["metrics"].pop("cost"),
        r"runs\[0\]\.metrics\.cost: is missing; it must be a number, or null when the run",
    ),
    "no case": (lambda r: r.update(cases={}), r"runs\[0\]\.cases: holds no case: a run's metrics"),
    "empty id": (lambda r: r.update(id=""), r"runs\[0\]\.id: must be a non-empty string, got ''"),
    "commit a number": (lambda r: r.update(commit=5), r"runs\[0\]\.commit: .*, got 5$"),
    "tags a string": (
        lambda r: r["cases"]["rag"].update(tags="abc"),
        r"runs\[0\]\.cases\.rag\.tags: must be a list of strings, got 'abc'$",
    ),
    "verdict edited": (
        lambda r: r["cases"]["rag"].update(verdict="maybe"),
        r"runs\[0\]\.cases\.rag\.verdict: says 'maybe', but its passes and floor give 'pass'$",
    ),
    "passes below every gate": (
        lambda r: r["cases"]["rag"].update(passes=3, verdict="observe"),
        r"runs\[0\]\.cases\.rag\.passes: says 3 of 5, but its gates passed contains 5 of 5, "
        r"citations 5 of 5: a sample fails only when one of its gates fails$",
    ),
    "a gate failing more than the case": (
        lambda r: r["cases"]["rag"]["assertions"]["citations"].update(passes=3),
        r"runs\[0\]\.cases\.rag\.passes: says 5 of 5, but its gate citations failed in 2 ",
    ),
    "assertion samples none": (
        lambda r: r["cases"]["rag"]["assertions"]["contains"].update(samples=0, passes=0),
        r"runs\[0\]\.cases\.rag\.assertions\.contains\.samples: says 0, but the case has 5 ",
    ),
    "success edited": (
        lambda r: r["metrics"].update(success=0.0),
        r"runs\[0\]\.metrics\.success: says 0\.0, but its cases give 1\.0$",
    ),
    "a run field unknown": (
        lambda r: r.update(note="kept?"),
        r"runs\[0\]: unknown field 'note': replaygate neither reads nor keeps it \(known: id, ",
    ),
    "a case field unknown": (
        lambda r: r["cases"]["rag"].update(weight=2),
        r"runs\[0\]\.cases\.rag: unknown field 'weight': replaygate neither reads nor keeps",
    ),
    "an assertion field unknown": (
        lambda r: r["cases"]["rag"]["assertions"]["contains"].update(weight=2),
        r"runs\[0\]\.cases\.rag\.assertions\.contains: unknown field 'weight': replaygate ",
    ),
    "info a string": (
        lambda r: r.update(info="x"),
        r"runs\[0\]\.info: must be an object, got 'x'$",
    ),
    "run empty": (lambda r: r.clear(), r"runs\[0\]\.id: is missing"),
    "run null": (None, r"runs\[0\]: must be an object, got null$"),
}


@pytest.mark.parametrize("damage", DAMAGED_RUNS.values(), ids=DAMAGED_RUNS.keys())
def test_merge_refuses_a_damaged_export_whole_and_merges_nothing_from_it(
    tmp_path: Path, damage: tuple[Any, str]
) -> None:
    # Merged, such a run made every later report on the history fail with a traceback.
    edit, message = damage
    document = exported_run(tmp_path)
    good = dict(document["runs"][0], id="good-run")
    if edit is None:
        document["runs"][0] = None
    else:
        edit(document["runs"][0])
    document["runs"].append(good)
    path = tmp_path / "runs.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(HistoryError, match=f"^{re.escape(str(path))}: {message}"):
        read_export(path)
    target = tmp_path / "local.db"
    result = CliRunner().invoke(history_group, ["merge", str(path), "--history", str(target)])
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert str(path) in result.output
    with History.open(target) as history:
        assert len(history) == 0


def test_an_export_naming_a_run_twice_is_refused(tmp_path: Path) -> None:
    document = exported_run(tmp_path)
    document["runs"].append(dict(document["runs"][0], time="2026-11-02T10:00:00Z"))
    with pytest.raises(
        HistoryError, match=r"runs\[1\]: run 'ci-run' is already at runs\[0\]; a run is kept once"
    ):
        read_export_of(document, tmp_path)


def test_a_run_the_history_could_not_read_back_is_never_added(tmp_path: Path) -> None:
    results = run("2026-11-01T10:00:00Z", 5)
    damaged = EvalResults(results.cases, {"time": "yesterday"})
    with History.open(tmp_path / "h.db") as history:
        with pytest.raises(HistoryError, match=r"refusing to add run 'one': time: must be an ISO"):
            history.append(damaged, run_id="one")
        assert len(history) == 0


@pytest.mark.parametrize(
    ("passes", "update", "problem"),
    [
        (
            5,
            "UPDATE runs SET time = 'yesterday'",
            "time: must be an ISO 8601 time such as 2026-11-30T06:08:09Z, got 'yesterday'",
        ),
        (  # an observe verdict: success 0
            3,
            "UPDATE metrics SET value = 1.0 WHERE name = 'success'",
            "metrics.success: says 1.0, but its cases give 0.0",
        ),
        (5, "DELETE FROM cases", f"cases: {NO_CASE}"),
        (
            3,
            "UPDATE assertions SET passes = samples",
            "cases.rag.passes: says 3 of 5, but its gates passed contains 5 of 5, citations 5 "
            "of 5: a sample fails only when one of its gates fails",
        ),
        (
            5,
            "DELETE FROM metrics",
            "metrics.success: is missing; it must be a number, or null when the run measured "
            "none, as in every run",
        ),
        (  # dropped in silence, with its counts
            5,
            "UPDATE assertions SET case_id = 'ghost' WHERE name = 'citations'",
            "assertions: row 2 of table assertions names case 'ghost', which the run does not "
            "hold (no row of table cases): restore the case's row, or delete the assertion "
            "rows of that case",
        ),
    ],
    ids=["time", "success", "no case", "counts", "no metric", "assertions of no case"],
)
def test_a_damaged_stored_run_is_named_by_export(
    tmp_path: Path, passes: int, update: str, problem: str
) -> None:
    path = tmp_path / "h.db"
    with History.open(path) as history:
        history.append(run("2026-11-01T10:00:00Z", passes), run_id="one")
    with sqlite3.connect(path) as raw:
        raw.execute(update)
    raw.close()
    result = CliRunner().invoke(history_group, ["export", "--json", "--history", str(path)])
    assert result.exit_code == 2, result.output
    assert f"{path}: run 'one': {problem}" in result.output
    with History.open(path, read_only=True) as history:
        skipped: list[str] = []
        assert history.runs(skipped=skipped) == []
        assert skipped == [f"run 'one': {problem}"]


@pytest.fixture
def read_only_history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A history of one run that SQLite can only read."""
    path = tmp_path / "history.db"
    with History.open(path) as history:
        history.append(run("2026-11-01T10:00:00Z", 5), run_id="one")
    path.chmod(0o444)
    make_sqlite_read_only(monkeypatch)
    return path


def test_a_read_only_history_is_read_and_writing_it_says_it_cannot_write(
    read_only_history: Path, tmp_path: Path
) -> None:
    # It said "not a replaygate history database (attempt to write a readonly database)",
    # and export and report could not read it at all.
    path = read_only_history
    before = path.read_bytes()
    runner = CliRunner()
    exported = runner.invoke(history_group, ["export", "--json", "--history", str(path)])
    assert exported.exit_code == 0, exported.output
    assert [r["id"] for r in json.loads(exported.stdout)["runs"]] == ["one"]
    with History.open(path, read_only=True) as history:
        assert [r.id for r in history.runs()] == ["one"]
    export = tmp_path / "runs.json"
    document = json.loads(exported.stdout)
    document["runs"][0]["id"] = "two"
    export.write_text(json.dumps(document), encoding="utf-8")
    merged = runner.invoke(history_group, ["merge", str(export), "--history", str(path)])
    assert merged.exit_code == 2, merged.output
    assert f"{path}: cannot write the history: it is read-only" in merged.output
    assert "not a replaygate history" not in merged.output
    with pytest.raises(HistoryError, match="cannot write the history: it is read-only"):
        History.open(path)
    assert path.read_bytes() == before


def history_in_wal_mode(path: Path) -> Path:
    """A history of runs ``one`` and ``two`` at ``path``, in SQLite's WAL journal mode,
    as a database tool leaves it (``PRAGMA journal_mode=WAL``), closed: no ``-wal`` file."""
    with History.open(path) as history:
        history.append(run("2026-11-01T10:00:00Z", 5), run_id="one")
        history.append(run("2026-11-02T10:00:00Z", 4), run_id="two")
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA journal_mode=WAL").fetchone() == ("wal",)
    raw.close()
    return path


def exported(path: Path) -> tuple[int, str]:
    """``history export --json`` of the history at ``path``: its exit code and output."""
    result = CliRunner().invoke(history_group, ["export", "--json", "--history", str(path)])
    return result.exit_code, result.output


def ids_read(path: Path) -> tuple[list[str], int, str]:
    """The ids of the runs of ``path`` as read, and ``history export``'s exit code and
    output."""
    with History.open(path, read_only=True) as history:
        ids = [r.id for r in history.runs()]
    return ids, *exported(path)


@pytest.mark.slow  # run as root, it reads in a forked process, as the user nobody
def test_a_history_in_wal_mode_is_read_in_a_folder_that_cannot_be_written() -> None:
    # It said "cannot write the history: it is read-only (attempt to write a readonly
    # database)": SQLite reads a history in WAL mode with a -shm file beside it, which it
    # could not make in the folder.
    with folder_anyone_reaches() as folder:
        plain = folder / "plain.db"
        History.open(plain).close()
        path = history_in_wal_mode(folder / "history.db")
        for file in (plain, path):
            file.chmod(0o444)
        before = path.read_bytes()
        assert ids_read(plain)[1] == 0  # what reading imports, imported before

        ids, code, output = read_where_the_folder_cannot_be_written(folder, lambda: ids_read(path))
        assert (ids, code) == (["one", "two"], 0), output
        assert [r["id"] for r in json.loads(output)["runs"]] == ["one", "two"]
        assert sorted(os.listdir(folder)) == ["history.db", "plain.db"]  # nothing made
        assert path.read_bytes() == before


@pytest.mark.slow  # run as root, it reads in a forked process, as the user nobody
def test_a_history_in_wal_mode_with_writes_in_its_wal_file_says_what_to_do() -> None:
    # Writes still in history.db-wal are not in history.db: read without the -shm file
    # SQLite cannot make, the history would lack them; it is refused, saying why.
    with folder_anyone_reaches() as folder:
        path = history_in_wal_mode(folder / "history.db")
        writer = sqlite3.connect(path)
        writer.execute("PRAGMA wal_autocheckpoint=0")  # the deletion stays in the -wal file
        with writer:
            writer.execute("DELETE FROM runs WHERE id = 'two'")
        kept = folder / "kept"
        kept.mkdir()
        for suffix in ("", "-wal"):  # as a copy made while a writer had it open
            (kept / f"history.db{suffix}").write_bytes(Path(f"{path}{suffix}").read_bytes())
        writer.close()
        path = kept / "history.db"
        plain = folder / "plain.db"
        History.open(plain).close()
        assert exported(plain)[0] == 0  # what reading imports, imported before

        code, output = read_where_the_folder_cannot_be_written(kept, lambda: exported(path))
        assert sorted(os.listdir(kept)) == ["history.db", "history.db-wal"]
    assert code == 2, output
    assert output.startswith(
        f"Error: {path}: cannot read the history here: it is in SQLite's WAL journal mode"
    )
    assert "history.db-wal beside it holds writes that may not be in history.db yet" in output
    assert output.rstrip().endswith(
        f"or have someone who can write the folder switch it back: sqlite3 {path} "
        "'PRAGMA journal_mode=DELETE'"
    )


def test_a_history_another_process_holds_locked_is_said_to_be_locked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("replaygate.evals.history.TIMEOUT", 0.02)
    path = tmp_path / "history.db"
    with History.open(path) as opened:
        opened.append(run("2026-11-30T00:00:00Z", 5))
    writer = History.open(path)
    holder = sqlite3.connect(path)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        locked = r"history\.db: the history is locked by another process, still after 0\.02 sec"
        with pytest.raises(HistoryError, match=locked):
            History.open(path, read_only=True)
        with pytest.raises(HistoryError, match=locked):
            writer.append(run("2026-12-01T00:00:00Z", 4))
        with pytest.raises(HistoryError, match=locked):  # opened before: a traceback
            writer.runs()
    finally:
        holder.rollback()
        holder.close()
        writer.close()
    with History.open(path, read_only=True) as opened:
        assert len(opened) == 1


def test_runs_are_ordered_by_the_instant_their_time_names(tmp_path: Path) -> None:
    # Sorted by their text, a run written at UTC+05:00 came after a later one written
    # in UTC, and a time with a fraction of a second before the whole second.
    times = {
        "later": "2026-11-01T06:00:00Z",
        "earliest": "2026-11-01T10:00:00+05:00",  # 05:00 UTC
        "fraction": "2026-11-01T06:30:00.500Z",
        "whole": "2026-11-01T06:30:00Z",
        "west": "2026-10-31T23:45:00-07:00",  # 06:45 UTC
    }
    document = exported_run(tmp_path)
    document["runs"] = [
        dict(document["runs"][0], id=run_id, time=time) for run_id, time in times.items()
    ]
    with History.open(tmp_path / "merged.db") as history:
        history.merge(read_export_of(document, tmp_path))
        assert [r.id for r in history.runs()] == ["earliest", "later", "whole", "fraction", "west"]
        assert [r.id for r in history.runs(last=2)] == ["fraction", "west"]
        assert history.export()["runs"][0]["time"] == times["earliest"]  # as written


def test_runs_of_one_time_are_in_the_order_they_were_appended(tmp_path: Path) -> None:
    # ordered by their random ids, the run appended last could come first, and the
    # report's "latest run" was not the run its gate judged
    with History.open(tmp_path / "history.db") as history:
        for run_id, passes in (("z", 5), ("b", 5), ("y", 5), ("a", 4)):
            history.append(run("2026-11-01T10:00:00Z", passes), run_id=run_id)
        gated = gated_run(Reference.of(run("2026-11-01T10:00:00Z", 4), "r.json"), history.runs())
        assert gated.is_latest and gated.latest is not None and gated.latest.id == "a"
        history.append(run("2026-11-01T11:00:00+01:00", 5), run_id="m")  # the same instant
        assert [r.id for r in history.runs()] == ["z", "b", "y", "a", "m"]
        assert [r["id"] for r in history.export()["runs"]] == ["z", "b", "y", "a", "m"]


def two_runs_edited(path: Path, update: str) -> None:
    """A history at ``path`` of runs ``one`` and ``two``, then edited by hand (``update``,
    an SQL statement)."""
    with History.open(path) as history:
        history.append(run("2026-11-01T10:00:00Z", 5), run_id="one")
        history.append(run("2026-11-02T10:00:00Z", 5), run_id="two")
    with sqlite3.connect(path) as raw:
        raw.execute(update)
    raw.close()


@pytest.mark.parametrize(
    ("update", "field"),
    [
        ("UPDATE cases SET verdict = CAST(X'70ED' AS TEXT) WHERE run = 'one'", "cases: "),
        (
            "UPDATE assertions SET name = CAST(X'70ED' AS TEXT) "
            "WHERE run = 'one' AND name = 'contains'",
            "cases: ",
        ),
        (
            "UPDATE metrics SET name = CAST(X'70ED' AS TEXT) WHERE run = 'one' AND name = 'cost'",
            "metrics: ",
        ),
        ("UPDATE runs SET info = CAST(X'7BED7D' AS TEXT) WHERE id = 'one'", "info: "),
        ("UPDATE runs SET git_commit = CAST(X'61ED' AS TEXT) WHERE id = 'one'", "commit: "),
    ],
    ids=["case", "assertion", "metric", "info", "commit"],
)
def test_a_stored_text_that_is_not_utf8_is_named_with_its_run(
    tmp_path: Path, update: str, field: str
) -> None:
    # SQLite's decoding error ended export and report in a traceback.
    path = tmp_path / "h.db"
    two_runs_edited(path, update)
    result = CliRunner().invoke(history_group, ["export", "--json", "--history", str(path)])
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert f"{path}: run 'one': {field}not UTF-8 text (" in result.output
    with History.open(path, read_only=True) as history:
        skipped: list[str] = []
        assert [r.id for r in history.runs(skipped=skipped)] == ["two"]
        assert skipped[0].startswith(f"run 'one': {field}not UTF-8 text (")


def test_export_refused_by_a_damaged_run_says_what_to_do(tmp_path: Path) -> None:
    # One damaged run among many refused every export, naming it with no next step.
    path = tmp_path / "h.db"
    two_runs_edited(path, "UPDATE runs SET info = '{\"time\": ' WHERE id = 'one'")
    result = CliRunner().invoke(history_group, ["export", "--json", "--history", str(path)])
    assert result.exit_code == 2, result.output
    assert "correct it in the history, or restore the history from a copy" in result.output
    deletes = result.output.split(f'delete the run (sqlite3 {path} "')[1].split('")')[0]
    with sqlite3.connect(path) as raw:
        raw.executescript(deletes)
    raw.close()
    with History.open(path, read_only=True) as history:
        assert [r["id"] for r in history.export()["runs"]] == ["two"]


def test_a_run_dated_after_the_present_is_refused_whole(tmp_path: Path) -> None:
    # Merged, it stood as the latest run of every later report.
    document = exported_run(tmp_path)
    document["runs"].append(dict(document["runs"][0], id="future", time="2099-01-01T00:00:00Z"))
    with pytest.raises(HistoryError, match=r"runs\[1\]\.time: 2099-01-01T00:00:00Z is later than "):
        read_export_of(document, tmp_path)
    with History.open(tmp_path / "h.db") as history:
        with pytest.raises(HistoryError, match=r"refusing to add run 'x': time: 2099-01-01T00:00"):
            history.append(run("2099-01-01T00:00:00Z", 5), run_id="x")
        now = datetime.now(UTC)
        soon = (now + timedelta(minutes=30)).isoformat()  # a clock a little ahead: kept
        history.append(run(soon, 5), run_id="soon")
        assert [r.id for r in history.runs()] == ["soon"]
    with pytest.raises(FieldError, match=r"the clock was wrong where the run was made"):
        check_not_future((now + timedelta(hours=2)).isoformat(), now)


def test_a_stored_run_dated_after_the_present_is_named_by_export(tmp_path: Path) -> None:
    # It was exported (exit 0), and history merge then refused the whole export.
    path = tmp_path / "h.db"
    with History.open(path) as history:
        history.append(run("2026-11-01T10:00:00Z", 5), run_id="one")
    with sqlite3.connect(path) as raw:
        raw.execute("UPDATE runs SET time = '2099-01-01T00:00:00Z'")
    raw.close()
    out = tmp_path / "runs.json"
    result = CliRunner().invoke(
        history_group, ["export", "--out", str(out), "--history", str(path)]
    )
    assert result.exit_code == 2, result.output
    assert f"{path}: run 'one': time: 2099-01-01T00:00:00Z is later than now (" in result.output
    assert "the clock was wrong where the run was made; correct its time" in result.output
    assert not out.exists()


def test_a_run_holding_half_of_a_surrogate_pair_is_refused_and_nothing_is_stored(
    tmp_path: Path,
) -> None:
    # SQLite could not store it: UnicodeEncodeError from the middle of the insert.
    results = run("2026-11-01T10:00:00Z", 5)
    sampled = replace(first_sampled(results), case="rag\ud800")
    odd_case = EvalResults((replace(results.cases[0], sampled=sampled),), results.info)
    odd_commit = EvalResults(results.cases, {**results.info, "commit": "c\udc80"})
    with History.open(tmp_path / "h.db") as history:
        for damaged, where in (
            (odd_case, r"cases: a key holds \\ud800"),
            (odd_commit, r"commit: holds \\udc80"),
        ):
            with pytest.raises(
                HistoryError,
                match=rf"refusing to add run 'x': {where}, half of a surrogate pair: not ",
            ):
                history.append(damaged, run_id="x")
        assert len(history) == 0


@pytest.mark.parametrize(
    ("value", "where"),
    [
        (float("nan"), r"not JSON this reader accepts: info\.model: NaN is not a number"),
        ({1}, r"info\.model: Object of type set is not JSON serializable"),
    ],
)
def test_a_run_whose_information_is_no_json_is_refused_and_nothing_is_stored(
    tmp_path: Path, value: object, where: str
) -> None:
    # NaN was stored and exported as null; a set ended the append in a bare TypeError.
    results = run("2026-11-01T10:00:00Z", 5)
    odd = EvalResults(results.cases, {**results.info, "model": value})
    with History.open(tmp_path / "h.db") as history:
        with pytest.raises(HistoryError, match=rf"refusing to add run 'x': {where}"):
            history.append(odd, run_id="x")
        assert len(history) == 0


def test_a_results_file_whose_assertion_counts_contradict_its_samples_is_refused(
    tmp_path: Path,
) -> None:
    # The counts stated were taken as they were; the report printed both.
    document = run("2026-11-01T10:00:00Z", 3).to_json()
    document["cases"][0]["assertions"]["citations"]["passes"] = 5
    path = tmp_path / "results.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(
        ResultsError,
        match=r"cases\[0\]\.assertions\.citations\.passes: says 5, but its sample_results "
        r"give 3$",
    ):
        load_eval_results(path)


def killed_mid_write(tmp_path: Path) -> Path:
    """A history of one run left as a writer killed mid-write leaves it: the file with
    part of the write in it, and the journal SQLite needs to roll it back."""
    source = tmp_path / "writer" / "history.db"
    with History.open(source) as history:
        history.append(run("2026-11-01T10:00:00Z", 5), run_id="one")
    path = tmp_path / "history.db"
    writer = sqlite3.connect(source, isolation_level=None)
    writer.execute("PRAGMA cache_size = 1")  # the write reaches the file before its commit
    writer.execute("BEGIN")
    writer.execute("DELETE FROM cases")
    writer.executemany("INSERT INTO meta VALUES (?, ?)", [(f"k{i}", "v" * 2000) for i in range(50)])
    path.write_bytes(source.read_bytes())
    Path(f"{path}-journal").write_bytes(Path(f"{source}-journal").read_bytes())
    writer.execute("ROLLBACK")
    writer.close()
    return path


def test_a_history_a_killed_writer_left_is_rolled_back_by_reading_it(tmp_path: Path) -> None:
    # It said "cannot write the history: it is read-only" on a writable file.
    path = killed_mid_write(tmp_path)
    exported = CliRunner().invoke(history_group, ["export", "--json", "--history", str(path)])
    assert exported.exit_code == 0, exported.output
    assert [r["id"] for r in json.loads(exported.stdout)["runs"]] == ["one"]
    assert not Path(f"{path}-journal").exists() or Path(f"{path}-journal").stat().st_size == 0


def test_a_history_a_killed_writer_left_that_cannot_be_written_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = killed_mid_write(tmp_path)
    make_sqlite_read_only(monkeypatch)
    result = CliRunner().invoke(history_group, ["export", "--json", "--history", str(path)])
    assert result.exit_code == 2, result.output
    assert (
        f"{path}: an interrupted write left history.db-journal beside it, which SQLite must "
        "roll back before the history can be read, and the history cannot be written here"
    ) in result.output


def test_an_export_holding_runs_the_history_lacks_is_not_replaced(tmp_path: Path) -> None:
    # An export of another history (a CI artifact, to merge) was replaced in silence.
    ci, local, out = tmp_path / "ci.db", tmp_path / "local.db", tmp_path / "runs.json"
    with History.open(ci) as history:
        history.append(run("2026-11-01T10:00:00Z", 5), run_id="ci-run")
        history.export_to(out)
    with History.open(local) as history:
        history.append(run("2026-11-02T10:00:00Z", 5), run_id="local-run")
    before = out.read_bytes()
    runner = CliRunner()
    result = runner.invoke(history_group, ["export", "--out", str(out), "--history", str(local)])
    assert result.exit_code == 2, result.output
    assert (
        f"{out}: holds an exported history with 1 run(s) that {local} does not hold (ci-run): "
        f"writing the export there would replace them; merge it first (replaygate history "
        f"merge {out})"
    ) in result.output
    assert out.read_bytes() == before
    merged = runner.invoke(history_group, ["merge", str(out), "--history", str(local)])
    assert merged.exit_code == 0, merged.output
    again = runner.invoke(history_group, ["export", "--out", str(out), "--history", str(local)])
    assert again.exit_code == 0, again.output
    assert [r["id"] for r in json.loads(out.read_text(encoding="utf-8"))["runs"]] == [
        "ci-run", "local-run",
    ]  # fmt: skip


def test_merging_a_history_database_says_to_export_it_first(tmp_path: Path) -> None:
    # It said "not UTF-8 text (invalid start byte at byte 102)".
    other = tmp_path / "other.db"
    with History.open(other) as history:
        history.append(run("2026-11-01T10:00:00Z", 5))
    result = CliRunner().invoke(
        history_group, ["merge", str(other), "--history", str(tmp_path / "h.db")]
    )
    assert result.exit_code == 2, result.output
    assert (
        f"{other}: is a history database, not an export: export its runs first (replaygate "
        f"history export --history {other} --out runs.json), then merge runs.json"
    ) in result.output


def test_an_export_of_a_newer_version_says_a_newer_replaygate_wrote_it(tmp_path: Path) -> None:
    path = tmp_path / "runs.json"
    path.write_text('{"format": "replaygate.history", "version": 2, "runs": []}', encoding="utf-8")
    with pytest.raises(
        HistoryError,
        match=r"runs\.json: version 2 was written by a newer replaygate; this one reads "
        r"version 1: upgrade replaygate to read it \(nothing was read or changed\)$",
    ):
        read_export(path)


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"{broken", "not JSON: Expecting property name enclosed in double quotes"),
        (b'{"format": "replaygate.sampling.results", "version": 1, "cases": []}',
         "it holds a 'replaygate.sampling.results' document"),
        (b"[1, 2]", "it holds JSON of another kind"),
    ],
)  # fmt: skip
def test_export_refuses_a_file_it_cannot_read_as_its_own_export(
    tmp_path: Path, content: bytes, reason: str
) -> None:
    # A file that is not an export was read as one holding no run, and replaced.
    history, out = tmp_path / "h.db", tmp_path / "runs.json"
    with History.open(history) as opened:
        opened.append(run("2026-11-01T10:00:00Z", 5))
    out.write_bytes(content)
    result = CliRunner().invoke(
        history_group, ["export", "--out", str(out), "--history", str(history)]
    )
    assert result.exit_code == 2, result.output
    assert f"{out}: is not an exported history ({reason}" in result.output
    assert "remove the file or choose another path (nothing was written)" in result.output
    assert out.read_bytes() == content
    out.write_bytes(b"")  # an empty file holds nothing to lose
    done = CliRunner().invoke(
        history_group, ["export", "--out", str(out), "--history", str(history)]
    )
    assert done.exit_code == 0, done.output
    assert len(read_export(out)) == 1
