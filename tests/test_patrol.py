"""``replaygate patrol``: age, use (hits of the last N runs) and references of fixtures."""

from __future__ import annotations

import json
import os
import pathlib
import shlex
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import hypothesis
import pytest
from click.testing import CliRunner, Result
from hypothesis import strategies as st

from deadline import finishes
from replaygate.cli import long_lists, main
from replaygate.errors import shell_path
from replaygate.fixtures import hits
from replaygate.fixtures.fixture import Fixture
from replaygate.fixtures.recorded_time import recorded_at
from replaygate.fixtures.store import FixtureStore
from replaygate.hygiene.age import parse_max_age
from replaygate.hygiene.errors import HygieneError
from replaygate.hygiene.patrol import patrol
from replaygate.hygiene.patrol_report import COLUMNS, plain_table, rich_table
from replaygate.hygiene.stored import each_fixture
from replaygate.hygiene.usage import DAMAGED_HITS_FIX
from replaygate.models.replay import ReplayModel
from replaygate.models.types import Message

MODEL = "claude-test-model"
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def request(question: str) -> dict[str, Any]:
    return {
        "model": MODEL,
        "max_tokens": 100,
        "messages": [{"role": "user", "content": [{"type": "text", "text": question}]}],
    }


def response(text: str) -> dict[str, Any]:
    return {
        "id": "msg_1", "type": "message", "role": "assistant", "model": MODEL,
        "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
        "stop_sequence": None, "usage": {"input_tokens": 5, "output_tokens": 3},
    }  # fmt: skip


def put(store: Path, question: str, recorded: str | None) -> str:
    meta: dict[str, Any] = {"interface": "anthropic.messages", "source": "hand"}
    if recorded is not None:
        meta["recorded_at"] = recorded
    fixture = Fixture.create(request(question), [response(f"About {question}")], meta)
    with FixtureStore.open(store) as opened:
        opened.put(fixture)
    return fixture.key


def play(store: Path, question: str, hits_dir: Path, run: str, root: Path) -> None:
    """Replay one fixture with the hits log on, as a test session does."""
    previous = hits.active()
    hits.enable(hits_dir, run=run, root=root)
    try:
        model = ReplayModel(store, model=MODEL, max_tokens=100)
        model.complete([Message.user(question)], [])
    finally:
        hits.use(previous)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tests" / "fixtures").mkdir(parents=True)
    yield tmp_path


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, ["patrol", *args])


def prune_cli(*args: str) -> Result:
    return CliRunner().invoke(main, ["prune", "--unused", *args])


HOSTILE_HITS = {
    "a field that is not text": lambda log: log.write_text(
        '{"run": 1, "time": 2, "store": 3, "key": 4}\n', encoding="utf-8"
    ),
    "a folder": Path.mkdir,
    "a FIFO": os.mkfifo,
}


@pytest.mark.parametrize("make", HOSTILE_HITS.values(), ids=list(HOSTILE_HITS))
def test_a_hostile_hits_log_file_is_named_never_a_traceback_or_a_hang(
    project: Path, make: Callable[[Path], object]
) -> None:
    store = project / "tests" / "fixtures" / "rag.jsonl"
    put(store, "a", None)
    hits_dir = project / ".replaygate" / "hits"
    hits_dir.mkdir(parents=True)
    make(hits_dir / "r-1.jsonl")
    for command in (["patrol", str(store)], ["prune", "--unused", str(store)]):
        done = finishes(lambda command=command: CliRunner().invoke(main, command), seconds=5.0)
        assert isinstance(done, Result), done
        assert done.exit_code == 2 and isinstance(done.exception, SystemExit), done.output
        assert "Error: damaged hits log: .replaygate/hits/r-1.jsonl" in done.output


BROKEN_LINKS = {
    "a symlink loop": ("loop", "is a symlink loop, where a folder is expected"),
    "a symlink to nothing": ("gone", "is a symlink to 'gone', which does not exist"),
}


@pytest.mark.parametrize(("target", "said"), BROKEN_LINKS.values(), ids=list(BROKEN_LINKS))
def test_a_hits_dir_that_is_a_broken_link_is_named_not_taken_for_an_empty_log(
    project: Path, target: str, said: str
) -> None:
    store = project / "tests" / "fixtures" / "rag.jsonl"
    put(store, "a", None)
    (project / "loop").symlink_to("loop")
    (project / "hits").symlink_to(target)
    for command in (["patrol", str(store)], ["prune", "--unused", str(store)]):
        done = CliRunner().invoke(main, [*command, "--hits-dir", "hits"])
        assert done.exit_code == 2 and isinstance(done.exception, SystemExit), done.output
        assert f"Error: --hits-dir hits {said}" in done.output
        assert "no test run" not in done.output


T = "2026-12-05T10:00:00Z"
AS_WRITTEN = "a UTC time as the log writes it (2026-11-30T05:28:00Z)"


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ('{"run": "r", "time": "t", "store": "s"}', "field 'key' is missing"),
        ('{"run": 1, "time": "t", "store": "s", "key": "k"}', "field 'run' must be text, got 1"),
        ("[1, 2]", "expected a JSON object, got list"),
        (
            '{"run": "r", "time": "t", "store": "s", "key": "k", "test": 3}',
            "field 'test' must be text or null, got 3",
        ),
        (  # was counted as an eval run's, since it was no test session's
            f'{{"run": "r", "time": "{T}", "store": "s", "key": "k", "runner": "pytest "}}',
            "field 'runner' must be one of pytest, eval, got 'pytest '",
        ),
        (  # sorted as text, it was the last play whatever its day
            '{"run": "r", "time": "yesterday", "store": "s", "key": "k"}',
            f"field 'time' must be {AS_WRITTEN}, got 'yesterday'",
        ),
        (
            '{"run": "r", "time": "2026-12-05T10:00:00+01:00", "store": "s", "key": "k"}',
            f"field 'time' must be {AS_WRITTEN}, got '2026-12-05T10:00:00+01:00'",
        ),
        (
            '{"run": "r", "time": "2026-02-30T10:00:00Z", "store": "s", "key": "k"}',
            f"field 'time' must be {AS_WRITTEN}, got '2026-02-30T10:00:00Z'",
        ),
    ],
    ids=[
        "a field missing",
        "a number",
        "a list",
        "a test that is no text",
        "an unknown runner",
        "a time in words",
        "a time in another zone",
        "a day no month has",
    ],
)
def test_a_damaged_hits_log_line_names_its_field(project: Path, line: str, reason: str) -> None:
    # The reason was Python's: "('key')", "list indices must be integers or slices, not str".
    store = project / "tests" / "fixtures" / "rag.jsonl"
    put(store, "a", None)
    hits_dir = project / ".replaygate" / "hits"
    hits_dir.mkdir(parents=True)
    (hits_dir / "r-1.jsonl").write_text(line + "\n", encoding="utf-8")
    done = CliRunner().invoke(main, ["patrol", str(store)])
    assert done.exit_code == 2, done.output
    assert done.output == (
        f"Error: damaged hits log: .replaygate/hits/r-1.jsonl:1: not a hits log line: {reason}"
        f"{DAMAGED_HITS_FIX}\n"
    )


def test_a_symlink_loop_among_the_references_or_in_the_hits_log_is_no_traceback(
    project: Path,
) -> None:
    # Path.resolve raised RuntimeError("Symlink loop") for each of them.
    store = project / "tests" / "fixtures" / "rag.jsonl"
    key = put(store, "a", None)
    (project / "tests" / "loop.py").symlink_to("loop.py")
    (project / "tests" / "test_a.py").write_text(f'KEY = "{key}"\n', encoding="utf-8")
    hits_dir = project / ".replaygate" / "hits"
    hits_dir.mkdir(parents=True)
    line = {"run": "r", "time": "2026-11-30T00:00:00Z", "store": "tests/loop.py", "key": key}
    (hits_dir / "r-1.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    for command in (["patrol", str(store)], ["prune", "--unused", str(store)]):
        done = CliRunner().invoke(main, command)
        assert done.exit_code == 0 and done.exception is None, done.output
    (row,) = patrol(store, max_age=None, runs=1, refs=[project / "tests"], hits_dir=hits_dir).rows
    assert row.refs == ("tests/test_a.py",) and row.plays == 0


def test_age_oldest_first_unknown_last(project: Path) -> None:
    store = project / "tests" / "fixtures" / "rag.jsonl"
    put(store, "new", "2026-11-20T08:00:00Z")
    put(store, "old", "2025-01-02T00:00:00Z")
    put(store, "no date", None)
    put(store, "date only", "2026-06-01")
    result = patrol(store, max_age=timedelta(days=90), runs=3, refs=[],
                    hits_dir=project / ".replaygate" / "hits", now=NOW)  # fmt: skip
    ages = [(r.recorded_at.date().isoformat() if r.recorded_at else None, r.stale)
            for r in result.rows]  # fmt: skip
    assert ages == [
        ("2025-01-02", True),
        ("2026-06-01", True),
        ("2026-11-20", False),
        (None, False),
    ]
    assert [r.age.days if r.age else None for r in result.rows] == [697, 182, 10, None]
    assert len(result.unknown_age) == 1


def test_a_fixture_recorded_in_the_future_is_reported(project: Path) -> None:
    store = project / "tests" / "fixtures" / "rag.jsonl"
    put(store, "tomorrow", "2026-12-01T12:00:00Z")
    put(store, "a second ahead", "2026-11-30T12:00:01Z")
    put(store, "now", "2026-11-30T12:00:00Z")
    result = patrol(store, max_age=timedelta(days=90), runs=1, refs=[],
                    hits_dir=project / "none", now=NOW)  # fmt: skip
    assert [(r.line, r.future) for r in result.rows] == [(3, False), (2, True), (1, True)]
    assert len(result.future) == 2 and not result.stale
    assert result.to_json()["summary"]["future"] == 2

    ahead = project / "tests" / "fixtures" / "ahead.jsonl"
    put(ahead, "next year", (datetime.now(UTC) + timedelta(days=400)).isoformat())
    put(ahead, "last year", (datetime.now(UTC) - timedelta(days=400)).isoformat())
    done = invoke("tests/fixtures/ahead.jsonl", "--max-age", "30d")
    assert done.exit_code == 0, done.output
    rows = [line for line in done.output.splitlines() if line.startswith("tests/fixtures/ahe")]
    assert rows[0].endswith("STALE unreferenced") and " 400d " in rows[0]
    assert rows[1].endswith("FUTURE unreferenced") and " future " in rows[1]
    assert "1 recorded in the future (meta.recorded_at after " in done.output
    report = json.loads(invoke("tests/fixtures/ahead.jsonl", "--json").output)
    assert report["summary"]["future"] == 1


EDGES_OF_TIME = ("0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00")
"""Valid times whose UTC time falls outside what a datetime holds."""


def test_a_time_at_the_edge_of_the_calendar_is_the_earliest_or_the_latest(
    project: Path,
) -> None:
    store = project / "tests" / "fixtures" / "edges.jsonl"
    for recorded in EDGES_OF_TIME:
        put(store, recorded, recorded)
    verified = CliRunner().invoke(main, ["verify", str(store)])  # a valid time, as patrol says
    assert "2 fixture(s) checked" in verified.output and "recorded_at" not in verified.output
    result = patrol(store, max_age=timedelta(days=90), runs=1, refs=[],
                    hits_dir=project / "none", now=NOW)  # fmt: skip
    assert [(r.recorded_at, r.stale, r.future) for r in result.rows] == [
        (datetime.min.replace(tzinfo=UTC), True, False),
        (datetime.max.replace(tzinfo=UTC), False, True),
    ]
    done = invoke("tests/fixtures/edges.jsonl", "--json")
    assert done.exit_code == 0, done.output
    assert json.loads(done.output)["summary"]["future"] == 1


def configured(project: Path, max_age: str) -> Path:
    """A project whose ``[tool.replaygate.patrol]`` sets ``max_age = <max_age>`` (TOML),
    with a fixture recorded 100 days before now."""
    (project / "pyproject.toml").write_text(
        f"[project]\nname = 'x'\n\n[tool.replaygate.patrol]\nmax_age = {max_age}\n",
        encoding="utf-8",
    )
    store = project / "tests" / "fixtures" / "rag.jsonl"
    put(store, "a", (datetime.now(UTC) - timedelta(days=100)).isoformat())
    return store


def test_the_projects_max_age_is_taken_when_no_max_age_is_given(project: Path) -> None:
    store = configured(project, '"12w"')
    done = invoke(str(store), "--json")
    assert done.exit_code == 0, done.output
    assert json.loads(done.output)["max_age_days"] == 84
    assert json.loads(done.output)["max_age"] == "12w"
    assert json.loads(done.output)["summary"]["stale"] == 1
    assert "max age 12w, " in invoke(str(store)).output  # as written, not 84d


def test_max_age_on_the_command_line_wins_over_the_projects(project: Path) -> None:
    store = configured(project, '"12w"')
    done = invoke(str(store), "--max-age", "200d", "--json")
    assert done.exit_code == 0, done.output
    assert json.loads(done.output)["max_age_days"] == 200
    assert json.loads(done.output)["summary"]["stale"] == 0


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ('"ninety days"', "'ninety days': expected a positive whole number"),
        ('"0d"', "'0d': expected a positive whole number"),
        ("90", 'expected an age as a string, like "90d" or "12w", got int 90'),
    ],
)
def test_a_projects_max_age_that_is_no_age_is_refused_at_its_line(
    project: Path, written: str, said: str
) -> None:
    store = configured(project, written)
    done = invoke(str(store))
    assert done.exit_code == 2 and isinstance(done.exception, SystemExit), done.output
    assert f"pyproject.toml:5: tool.replaygate.patrol.max_age: {said}" in done.output


def test_a_max_age_under_tool_replaygate_itself_names_the_patrol_table(project: Path) -> None:
    store = configured(project, '"12w"')
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace(".patrol]", "]"), encoding="utf-8")
    done = invoke(str(store))
    assert done.exit_code == 2, done.output
    assert "pyproject.toml:5: tool.replaygate.max_age: patrol's max age goes in its own " in (
        done.output
    )
    assert "[tool.replaygate.patrol] max_age" in done.output


def test_a_folder_holding_no_store_is_named_before_the_projects_settings(project: Path) -> None:
    configured(project, '"ninety days"')  # a setting patrol would refuse
    (project / "src").mkdir()
    (project / "src" / "app.py").write_text("", encoding="utf-8")
    done = invoke("src")
    assert done.exit_code == 2, done.output
    assert "src: holds no fixture store file" in done.output
    assert "max_age" not in done.output


def test_max_age_syntax() -> None:
    assert parse_max_age("90d") == timedelta(days=90)
    assert parse_max_age("12w") == timedelta(weeks=12)
    assert parse_max_age("36h") == timedelta(hours=36)
    for bad in ("90", "3x", "d", "-1d", "0d", "1.5d"):
        with pytest.raises(HygieneError, match=r"bad --max-age .*like 90d or 12w"):
            parse_max_age(bad)
    assert recorded_at({"recorded_at": "yesterday"}) is None
    assert recorded_at({"recorded_at": "2026-01-01T10:00:00"}) == datetime(
        2026, 1, 1, 10, tzinfo=UTC
    )


def test_the_max_age_is_shown_as_given(project: Path) -> None:
    # --max-age 36h was shown as "max age 1d" and "older than 1d", a day shorter; one too
    # large said to leave --max-age out, which gives the default, 90d
    store = project / "tests" / "fixtures" / "rag.jsonl"
    put(store, "a", "2026-11-01T00:00:00Z")
    for given in ("36h", "12w", "90d"):
        done = CliRunner().invoke(main, ["patrol", str(store), "--max-age", given])
        assert f"max age {given}, " in done.output and f"(older than {given})" in done.output
        as_json = invoke(str(store), "--max-age", given, "--json").output
        assert json.loads(as_json)["max_age"] == given
    assert json.loads(invoke(str(store), "--json").output)["max_age"] == "90d"  # the default
    with pytest.raises(HygieneError) as caught:
        parse_max_age("99999999999w")
    assert str(caught.value) == (
        "bad --max-age '99999999999w': at most 999,999,999 days (a fixture that old cannot exist)"
    )


def test_use_counts_only_the_last_n_runs(project: Path) -> None:
    store = project / "tests" / "fixtures" / "rag.jsonl"
    hits_dir = project / ".replaygate" / "hits"
    for question in ("a", "b", "c"):
        put(store, question, "2026-11-01T00:00:00Z")
    play(store, "a", hits_dir, "20261101T000000Z-0001", project)
    play(store, "b", hits_dir, "20261102T000000Z-0002", project)
    play(store, "b", hits_dir, "20261103T000000Z-0003", project)

    last_two = patrol(store, runs=2, refs=[], hits_dir=hits_dir, now=NOW)
    assert last_two.runs == ("20261102T000000Z-0002", "20261103T000000Z-0003")
    assert last_two.recorded_runs == 3
    plays = {r.key: r.plays for r in last_two.rows}
    keys = {q: Fixture.create(request(q), []).key for q in ("a", "b", "c")}
    assert plays == {keys["a"]: 0, keys["b"]: 2, keys["c"]: 0}

    all_three = patrol(store, runs=3, refs=[], hits_dir=hits_dir, now=NOW)
    assert {r.key: r.plays for r in all_three.rows}[keys["a"]] == 1
    logged = {h.store for h in hits.read_hits(hits_dir)}
    assert logged == {"tests/fixtures/rag.jsonl"}


def test_files_of_another_kind_in_the_hits_log_s_folder_are_passed_over(project: Path) -> None:
    # `hits = "evals"` (the folder of the eval cases) or a shared cache: patrol and prune
    # said "damaged hits log: evals/cases.jsonl:1: not a hits log line: field 'run' is
    # missing: mend that line, or delete the file", the cases file.
    store = project / "tests" / "fixtures" / "rag.jsonl"
    hits_dir = project / "evals"
    put(store, "a", "2026-11-01T00:00:00Z")
    play(store, "a", hits_dir, "20261101T000000Z-0001", project)
    cases = b'{"id": "rag", "question": "What is RAG?", "samples": 1, "floor": 1}\n'
    (hits_dir / "cases.jsonl").write_bytes(cases)
    (hits_dir / "events.jsonl").write_bytes(b'{"level": "info", "msg": "up"}\n')
    report = patrol(store, runs=5, refs=[], hits_dir=hits_dir, now=NOW)
    assert [row.plays for row in report.rows] == [1]
    done = prune_cli(str(store), "--hits-dir", "evals", "--refs", "tests")
    assert done.exit_code == 0, done.output
    assert "delete the file" not in done.output
    assert (hits_dir / "cases.jsonl").read_bytes() == cases
    (hits_dir / "20261101T000000Z-0001-9.jsonl").write_bytes(cases)  # the log's own: damaged
    damaged = invoke(str(store), "--hits-dir", "evals")
    assert damaged.exit_code == 2 and "damaged hits log" in damaged.output


def test_references_by_file_name_and_key(project: Path) -> None:
    folder = project / "tests" / "fixtures" / "research"
    named = put(folder, "named", "2026-11-01T00:00:00Z")
    keyed = put(folder, "keyed", "2026-11-01T00:00:00Z")
    put(folder, "lonely", "2026-11-01T00:00:00Z")
    jsonl = project / "tests" / "fixtures" / "rag.jsonl"
    put(jsonl, "in a referenced file", "2026-11-01T00:00:00Z")
    (project / "tests" / "test_a.py").write_text(
        f'STORE = "fixtures/research/anthropic.messages/{named}.json"\n'
        f'KEY = "{keyed}"  # a pinned fixture\n'
        'RAG = Path("tests/fixtures/rag.jsonl")\n',
        encoding="utf-8",
    )
    # another store holding a fixture with the same key is no reference
    (project / "tests" / "other.jsonl").write_text(
        json.dumps({"key": keyed, "request": {}, "response": {}}) + "\n", encoding="utf-8"
    )
    result = patrol(project / "tests" / "fixtures", runs=1, refs=[project / "tests"],
                    hits_dir=project / "none", now=NOW)  # fmt: skip
    refs = {r.where.rsplit("/", 1)[-1]: r.refs for r in result.rows}
    assert refs[f"{named}.json"] == ("tests/test_a.py",)
    assert refs[f"{keyed}.json"] == ("tests/test_a.py",)
    assert refs["rag.jsonl:1"] == ("tests/test_a.py",)
    lonely = [r for r in result.rows if not r.refs]
    assert len(lonely) == 1 and lonely[0].unused


def test_a_recorded_at_that_is_no_time_is_named_as_such(project: Path) -> None:
    # the summary said "(no meta.recorded_at)" of a fixture whose date an edit broke
    store = project / "tests" / "fixtures" / "rag.jsonl"
    put(store, "misdated", "2026-13-45")
    done = invoke("tests/fixtures")
    assert done.exit_code == 0, done.output
    assert (
        "1 of unknown age (a meta.recorded_at that is no ISO 8601 time: "
        "`replaygate verify tests/fixtures` names it)"
    ) in done.output
    verified = CliRunner().invoke(main, ["verify", "tests/fixtures"])
    assert "meta.recorded_at '2026-13-45' is not an ISO 8601 time" in verified.output
    put(store, "undated", None)
    assert (
        "2 of unknown age (no meta.recorded_at, or for 1 one that is no ISO 8601 time: "
        "`replaygate verify tests/fixtures` names it)"
    ) in invoke("tests/fixtures").output


def test_cli_table_and_json(project: Path) -> None:
    store = project / "tests" / "fixtures" / "rag.jsonl"
    put(store, "ancient", "2020-01-01T00:00:00Z")
    put(store, "fresh", datetime.now(UTC).replace(microsecond=0).isoformat())
    put(store, "undated", None)
    play(store, "fresh", project / ".replaygate" / "hits", "20261130T000000Z-0001", project)
    (project / "tests" / "conftest.py").write_text("")  # the tests folder holds code

    done = invoke("tests/fixtures", "--max-age", "30d")
    assert done.exit_code == 0, done.output
    lines = done.output.splitlines()
    assert lines[0].startswith("patrol of tests/fixtures: 3 fixture(s), max age 30d, last 1 of 1")
    body = [line for line in lines if line.startswith("tests/fixtures/rag.jsonl")]
    assert "2020-01-01" in body[0] and "STALE UNUSED" in body[0]
    assert body[1].split()[-3:] == ["1", "0", "unreferenced"]  # played, refs, flags
    assert "unknown" in body[2] and "UNUSED" in body[2]
    assert "1 stale (older than 30d), 1 of unknown age (no meta.recorded_at)" in done.output
    assert "2 not played in the last 1 run(s), 2 neither played nor referenced" in done.output
    # the command the summary names runs as written and lists those two
    hint = done.output.split("(`", 1)[1].split("`", 1)[0]
    assert hint == "replaygate prune tests/fixtures --unused"
    listed = CliRunner().invoke(main, shlex.split(hint)[1:])
    assert listed.exit_code == 0, listed.output
    assert "dry run: would delete 2 fixture(s)" in listed.output

    as_json = invoke("tests/fixtures", "--json")
    report = json.loads(as_json.output)
    assert report["summary"] == {"fixtures": 3, "stale": 1, "future": 0, "unknown_age": 1,
                                 "unplayed": 2, "new": 0, "unused": 2,
                                 "held_by_failed_tests": 0, "use_unknown": 0}  # fmt: skip
    assert report["fixtures"][0]["fixture"] == "tests/fixtures/rag.jsonl:1"
    assert report["refs"] == ["tests"]


def test_errors(project: Path) -> None:
    store = project / "tests" / "fixtures" / "rag.jsonl"
    put(store, "a", None)
    bad_age = invoke(str(store), "--max-age", "ninety days")
    assert bad_age.exit_code == 2 and "bad --max-age 'ninety days'" in bad_age.output
    no_refs = invoke(str(store), "--refs", "src")
    assert no_refs.exit_code == 2 and "--refs src: no such directory" in no_refs.output
    missing = invoke("tests/fixtures/none.jsonl")
    assert missing.exit_code == 2 and "no fixture store at tests/fixtures/none.jsonl" in (
        missing.output
    )
    hits_dir = project / ".replaygate" / "hits"
    hits_dir.mkdir(parents=True)
    (hits_dir / "r-1.jsonl").write_text("not json\n", encoding="utf-8")
    damaged = invoke(str(store))
    assert damaged.exit_code == 2 and "damaged hits log" in damaged.output
    (project / "elsewhere").mkdir()  # a log of no run
    no_runs = invoke(str(store), "--hits-dir", "elsewhere")
    assert no_runs.exit_code == 0
    assert "no test run in the hits log at elsewhere" in no_runs.output
    # a slip of its name: it said "no test run in the hits log at .replaygate/hit: run the
    # tests", and prune refused saying to run the test suite first
    for command in (invoke, prune_cli):
        # the stores' folder: it said to mend their line or delete the file, a store
        stores = command(str(store), "--hits-dir", "tests/fixtures")
        assert stores.exit_code == 2 and "delete" not in stores.output
        assert stores.output.startswith(
            "Error: tests/fixtures/rag.jsonl is a fixture store, not a file of the hits log"
        )
        slip = command(str(store), "--hits-dir", ".replaygate/hit")
        assert slip.exit_code == 2
        assert slip.output.endswith(
            "Error: --hits-dir .replaygate/hit: no such directory; the project's hits log is "
            ".replaygate/hits\n"
        )


def test_the_tests_stores_are_of_unknown_use_while_only_eval_runs_are_logged(
    project: Path,
) -> None:
    """The hits log holds an eval run and no test session: the tests' stores are not
    UNUSED (no run counted plays them), and the summary names no prune that refuses."""
    test_store = project / "tests" / "fixtures" / "test_api" / "test_chat.jsonl"
    put(test_store, "a test's question", "2026-11-01T00:00:00Z")
    eval_store = project / "evals" / "fixtures.jsonl"
    played = put(eval_store, "played", "2026-11-01T00:00:00Z")
    put(eval_store, "no longer asked", "2026-11-01T00:00:00Z")
    log = hits.HitLog(project / hits.DEFAULT_DIR, "20261130T000000Z-eval", project, runner="eval")
    log.note(eval_store, played)
    log.flush()

    done = invoke(".", "--refs", "tests")
    assert done.exit_code == 0, done.output
    rows = {
        line.split()[0]: line.split()[4:]
        for line in done.output.splitlines()
        if line.startswith(("tests/", "evals/"))
    }
    assert rows["tests/fixtures/test_api/test_chat.jsonl:1"] == ["-", "0", "unreferenced"]
    assert rows["evals/fixtures.jsonl:2"] == ["0", "0", "UNUSED"]
    assert (
        "no test session in the hits log at .replaygate/hits, only 1 eval run(s): the use of "
        "the 1 fixture(s) outside the eval's stores is unknown (played: -);\n"
        "run the test suite (the pytest plugin logs which fixtures each session replays), "
        "then patrol again\n"
    ) in done.output
    assert "1 not played in the last 1 run(s), 1 neither played nor referenced" in done.output
    assert "`replaygate prune" not in done.output  # it would refuse: no test session

    report = json.loads(invoke(".", "--refs", "tests", "--json").stdout)
    by_name = {f["fixture"]: f for f in report["fixtures"]}
    assert by_name["tests/fixtures/test_api/test_chat.jsonl:1"]["unused"] is None
    assert by_name["evals/fixtures.jsonl:2"]["unused"] is True
    assert report["summary"]["unused"] == 1 and report["summary"]["use_unknown"] == 1

    # the eval's store alone is judged by the eval run: its prune is named, and runs
    done = invoke("evals")
    assert "is unknown" not in done.output
    hint = done.output.split("(`", 1)[1].split("`", 1)[0]
    assert hint == "replaygate prune evals --unused"
    listed = CliRunner().invoke(main, shlex.split(hint)[1:])
    assert listed.exit_code == 0, listed.output
    assert "dry run: would delete 1 fixture(s)" in listed.output


def test_with_no_run_logged_the_json_says_the_use_is_unknown(project: Path) -> None:
    """No run in the hits log (a fresh clone, a CI job that patrols first): the table shows
    no play count and no UNUSED, and the JSON says the same, never ``"unused": true``."""
    put(project / "tests" / "fixtures" / "rag.jsonl", "old", "2026-11-01T00:00:00Z")
    report = json.loads(invoke("tests/fixtures", "--json").stdout)
    assert report["fixtures"][0]["unused"] is None
    summary = report["summary"]
    assert (summary["unused"], summary["unplayed"], summary["use_unknown"]) == (0, 0, 1)


def test_a_store_whose_fixtures_were_all_played_names_no_prune_command(project: Path) -> None:
    store = project / "tests" / "fixtures" / "rag.jsonl"
    put(store, "fresh", datetime.now(UTC).replace(microsecond=0).isoformat())
    play(store, "fresh", project / ".replaygate" / "hits", "20261130T000000Z-0001", project)
    done = invoke("tests/fixtures")
    assert done.exit_code == 0, done.output
    assert "0 not played in the last 1 run(s), 0 neither played nor referenced\n" in done.output
    assert "replaygate prune" not in done.output  # nothing for it to list


def test_on_a_terminal_a_long_table_shows_the_oldest_and_says_how_to_see_all(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = project / "tests" / "fixtures" / "rag.jsonl"
    for year in (2020, 2021, 2022):
        put(store, f"from {year}", f"{year}-01-01T00:00:00Z")
    monkeypatch.setattr(long_lists, "SHOWN", 2)
    monkeypatch.setattr(long_lists, "on_terminal", lambda: True)
    done = invoke("tests/fixtures")
    assert done.exit_code == 0, done.output
    rows = [line for line in done.output.splitlines() if line.startswith("tests/fixtures/")]
    assert [row.split()[2] for row in rows] == ["2020-01-01", "2021-01-01"]
    assert "... and 1 more fixture(s) not shown on a terminal" in done.output
    assert "3 stale (older than 90d)" in done.output  # the summary counts every one


def test_a_folder_store_is_read_without_a_search_of_its_files_per_fixture(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # each fixture's file was looked for in the list of the store's files: a folder
    # store of 20,000 one-fixture files took 178 s to patrol (verify, drift alike)
    store = tmp_path / "fold"
    store.mkdir()
    for n in range(150):  # as a folder store writes them, without a write's fsync
        fixture = Fixture.create(request(f"q{n}"), [response("a")], {"source": "hand"})
        (store / f"{fixture.key}.json").write_bytes(fixture.to_pretty())
    compared = 0
    equal = pathlib.PurePath.__eq__

    def counted(self: pathlib.PurePath, other: object) -> bool:
        nonlocal compared
        compared += 1
        return equal(self, other)

    monkeypatch.setattr(pathlib.PurePath, "__eq__", counted)
    assert len(list(each_fixture(store))) == 150
    assert compared < 1500  # a search per fixture: 11,000


CELL = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=24)
"""A cell as a store's names, keys and flags mostly are: printable ASCII, spaces included."""


@hypothesis.given(st.lists(st.tuples(*[CELL] * len(COLUMNS)), max_size=6))
def test_the_table_written_line_by_line_is_the_one_rich_draws(rows: list[tuple[str, ...]]) -> None:
    plain = plain_table(rows)
    if plain is not None:
        drawn = rich_table(rows)
        assert [line.rstrip() for line in plain.splitlines()] == [
            line.rstrip()
            for line in drawn.splitlines()  # as render_patrol writes them
        ]


def test_a_table_of_usual_names_is_written_line_by_line_and_others_drawn_by_rich() -> None:
    usual = [("tests/fixtures/my store.jsonl", "0f3a9c", "2026-01-01", "48w", "-", "0", "old")]
    assert plain_table(usual) is not None
    for odd in ("caf\u00e9.jsonl", " lead.jsonl", "tab\t.jsonl", "\u4e2d.jsonl"):
        assert plain_table([(odd, *usual[0][1:])]) is None


@pytest.mark.parametrize("folder", ["x" * 150, "caf\u00e9_" + "x" * 150, "a:smile:b"])
def test_a_long_path_is_shown_whole_and_its_prune_command_on_one_line(
    project: Path, folder: str
) -> None:
    # a table wider than 160 columns cut the fixture's path to `tests/fixtures/xxx…`, and
    # the summary broke the `replaygate prune` command it names across two lines (and
    # showed a folder `a:smile:b` as `a😄b`)
    store = project / "tests" / "fixtures" / folder / "rag.jsonl"
    put(store, "old", "2020-01-01T00:00:00Z")
    play(store, "old", project / ".replaygate" / "hits", "20261130T000000Z-0001", project)
    put(store, "unused", "2020-01-01T00:00:00Z")
    done = invoke(f"tests/fixtures/{folder}", "--refs", "tests/fixtures")
    assert done.exit_code == 0, done.output
    assert f"\ntests/fixtures/{folder}/rag.jsonl:2 " in done.output
    assert f"patrol of tests/fixtures/{folder}: 2 fixture(s)" in done.output
    path = shell_path(f"tests/fixtures/{folder}")
    command = f"replaygate prune {path} --unused --refs tests/fixtures"
    assert f"(`{command}` lists them)\n" in done.output


def test_the_prune_patrol_advises_from_a_subfolder_reads_the_log_the_project_names(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # With [tool.replaygate] hits outside the project, patrol run from tests/ advised
    # `--hits-dir ../../log`, which prune took from the current folder: every store path
    # of the log missed, and the fixture the tests played was listed for deletion.
    log = project.with_name(f"{project.name}-log")
    (project / "pyproject.toml").write_text(f'[tool.replaygate]\nhits = "../{log.name}"\n')
    store = project / "tests" / "fixtures" / "test_a.jsonl"
    put(store, "played", NOW.isoformat())
    put(store, "not played", NOW.isoformat())
    play(store, "played", log, "20261130T120000Z-aaaa", project)
    monkeypatch.chdir(project / "tests")
    advised = " ".join(invoke("fixtures").output.split("`")[1].split())
    assert f"--hits-dir ../../{log.name}" in advised
    listed = CliRunner().invoke(main, shlex.split(advised)[1:]).output
    assert "test_a.jsonl:2" in listed
    assert "test_a.jsonl:1" not in listed
