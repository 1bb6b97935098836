"""The SQLite eval history: runs survive reopening, export and merge add no duplicates."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from replaygate.assertions.kinds import Outcome
from replaygate.cli.history_cmds import history_group
from replaygate.evals import CaseResult, EvalResults, History, HistoryError, read_export
from replaygate.evals.history import HistoryRun, answers_digest
from replaygate.evals.scorers import CaseCounts
from replaygate.sampling import SampledResult, SampleResult


def run(time: str, passes: int, commit: str = "abc123", answer: str = "x") -> EvalResults:
    samples = tuple(
        SampleResult(
            i,
            (
                Outcome("contains", "gate", True, "", 1.0, "contains"),
                Outcome("citations", "gate", i < passes, "", None, "set"),
            ),
            {"final": answer},
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
    missing = runner.invoke(
        history_group, ["export", "--out", str(out), "--history", str(tmp_path / "none.db")]
    )
    assert missing.exit_code == 2
    assert "no history at" in missing.output


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
        ('{"format": "replaygate.history", "version": 2}', "unsupported version 2"),
        ('{"format": "replaygate.history", "version": 1, "runs": {}}', "'runs' must be a list"),
        ('{"format": "replaygate.history", "version": 1, "runs": [{"time": "t"}]}', r"runs\[0\]"),
        (
            '{"format": "replaygate.history", "version": 1, "runs": [{"id": "i", "time": "t",'
            ' "cases": {"c": {"samples": 5, "floor": 6, "passes": 1}}}]}',
            "floor must be between 1 and n=5",
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


@pytest.mark.parametrize("command", ["export", "merge"])
def test_a_fifo_or_a_device_given_as_the_history_is_named_as_such(
    tmp_path: Path, command: str
) -> None:
    export = tmp_path / "export.json"
    with History.open(tmp_path / "h.db") as history:
        history.append(run("2026-11-01T10:00:00Z", 5))
        history.export_to(export)
    fifo = tmp_path / "history.db"
    os.mkfifo(fifo)
    for path in (fifo, Path("/dev/null")):
        args = ["export", "--json"] if command == "export" else ["merge", str(export)]
        result = CliRunner().invoke(history_group, [*args, "--history", str(path)])
        assert result.exit_code == 2, result.output
        kind = "a FIFO" if path == fifo else "a device"
        assert f"{path}: is {kind}, where a history file is expected" in result.output


def test_a_history_of_another_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    History.open(path).close()
    with sqlite3.connect(path) as raw:
        raw.execute("UPDATE meta SET value = '9' WHERE key = 'schema'")
    with pytest.raises(HistoryError, match="unsupported history schema '9'"):
        History.open(path)


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
