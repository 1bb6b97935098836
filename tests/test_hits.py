"""The hits log: a pytest session logs which fixtures its tests replay.

A small project is made in a temporary folder: ResearchCopilot's shipped fixtures
(three questions, only one of them replayed by the tests). Its tests run in nested
single-process pytest sessions.
Under xdist (the workers' hits, with test ids, and ``replaygate patrol`` listing the
fixtures no test played): tests/test_xdist_sessions.py.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import time
import tracemalloc
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest

from forked_cli import Forker
from nested_pytest import NoClosingCollection
from replaygate.examples.research_copilot import shipped_fixtures
from replaygate.fixtures import hits
from replaygate.fixtures.fixture import now_iso
from replaygate.http import httpx2_client
from replaygate.hygiene.errors import HygieneError
from replaygate.hygiene.usage import read_usage
from replaygate.sim import Simulator

TESTS = """
from pathlib import Path

import pytest

from replaygate.examples.research_copilot import (
    DEFAULT_MAX_TOKENS, DEFAULT_MODEL, DEFAULT_SYSTEM, build_registry, run,
)
from replaygate.models.replay import ReplayModel

STORE = Path(__file__).parent / "fixtures" / "rc.jsonl"
"""
RAG_TEST = """

@pytest.mark.parametrize("attempt", [1, 2, 3])
def test_rag(attempt):
    model = ReplayModel(STORE, model=DEFAULT_MODEL, max_tokens=DEFAULT_MAX_TOKENS,
                        system=DEFAULT_SYSTEM)
    result = run(model, build_registry(), "What is RAG?", system=DEFAULT_SYSTEM)
    assert "[doc-rag]" in result.final
"""


def pytest_in_process(project: Path, *args: str) -> None:
    """``pytest ARGS`` in ``project``, run in this process as a nested session.

    The plugin gives back the enclosing session's hits log and run id when the nested
    session ends; the project's test modules are forgotten afterwards.
    """
    saved_path, saved_cwd, saved_modules = list(sys.path), Path.cwd(), set(sys.modules)
    os.chdir(project)
    try:
        code = pytest.main(["-q", "-p", "no:cacheprovider", *args], plugins=[NoClosingCollection()])
    finally:
        os.chdir(saved_cwd)
        sys.path[:] = saved_path
        for name in set(sys.modules) - saved_modules:
            if str(getattr(sys.modules[name], "__file__", "")).startswith(str(project)):
                del sys.modules[name]
    assert code == pytest.ExitCode.OK


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hits") / "project"
    (root / "tests" / "fixtures").mkdir(parents=True)
    (root / "pytest.ini").write_text("[pytest]\ntestpaths = tests\n", encoding="utf-8")
    (root / "tests" / "test_agent.py").write_text(TESTS + RAG_TEST, encoding="utf-8")
    shutil.copy(shipped_fixtures(), root / "tests" / "fixtures" / "rc.jsonl")
    return root


def logged(project: Path) -> list[dict[str, str]]:
    files = sorted((project / ".replaygate" / "hits").glob("*.jsonl"))
    return [json.loads(line) for f in files for line in f.read_text(encoding="utf-8").splitlines()]


@pytest.mark.slow
def test_each_run_gets_its_own_id(project: Path) -> None:
    before = {line["run"] for line in logged(project)}
    pytest_in_process(project, "-k", "test_rag and 1")
    after = {line["run"] for line in logged(project)}
    assert len(after - before) == 1


@pytest.mark.slow
def test_an_inner_session_leaves_the_outer_log_alone(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    previous = hits.active()
    outer = hits.enable(pytester.path / "outer-hits", run="outer-run")
    monkeypatch.setenv(hits.RUN_ENV, "outer-run")
    try:
        pytester.makepyfile("def test_nothing():\n    pass\n")
        pytester.runpytest_inprocess().assert_outcomes(passed=1)
        assert hits.active() is outer
        assert os.environ[hits.RUN_ENV] == "outer-run"
    finally:
        hits.use(previous)


@pytest.mark.slow
def test_store_paths_are_logged_relative_to_the_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    log = hits.HitLog(tmp_path / "hits", "run-1", root=tmp_path)
    log.note(tmp_path / "tests" / "fixtures" / "a.jsonl", "abc")
    log.note("/elsewhere/b.jsonl", "def")
    log.note("relative/c.jsonl", "ghi")
    log.flush()
    stores = [h.store for h in hits.read_hits(tmp_path / "hits")]
    assert stores == ["tests/fixtures/a.jsonl", "/elsewhere/b.jsonl", "relative/c.jsonl"]


@pytest.mark.slow
def test_a_hit_is_logged_with_the_test_and_the_second_it_was_noted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = hits.HitLog(tmp_path / "hits", "run-1")
    monkeypatch.setenv(hits.TEST_ENV, "tests/test_a.py::test_one (call)")
    before = now_iso()
    log.note("s.jsonl", "abc")
    after = now_iso()
    monkeypatch.setenv(hits.TEST_ENV, "tests/test_a.py::test_two[x (y)] (teardown)")
    log.note("s.jsonl", "def")
    monkeypatch.delenv(hits.TEST_ENV)
    log.note("s.jsonl", "ghi")
    log.flush()
    logged = list(hits.read_hits(tmp_path / "hits"))
    assert [h.test for h in logged] == [
        "tests/test_a.py::test_one",
        "tests/test_a.py::test_two[x (y)]",
        None,
    ]
    assert before <= logged[0].time <= after
    assert logged[0].time == hits.iso_second(
        int(datetime.fromisoformat(logged[0].time).timestamp())
    )


def test_a_test_whose_id_holds_a_key_is_logged_without_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "ghp_" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7d"
    log = hits.HitLog(tmp_path / "hits", "run-1")
    monkeypatch.setenv(hits.TEST_ENV, f"tests/test_a.py::test_one[{key}] (call)")
    log.note("s.jsonl", "abc")
    log.flush()
    assert key not in log.file.read_text()
    assert [(h.key, h.test) for h in hits.read_hits(tmp_path / "hits")] == [("abc", None)]


def test_trim_keeps_the_newest_runs_only(tmp_path: Path) -> None:
    directory = tmp_path / "hits"
    directory.mkdir()
    runs = [f"2026113{d}T0{h}0000Z-ab{d}{h}" for d in range(3) for h in range(4)]
    for run in runs:
        for pid in (100, 200):
            (directory / f"{run}-{pid}.jsonl").write_text("", encoding="utf-8")
    for run in (runs[0], runs[-1]):  # notes of what a run recorded anew go with its hits
        (directory / f"{run}.rerecorded").write_text("", encoding="utf-8")
    assert hits.trim(directory, keep_runs=5) == 2 * (len(runs) - 5) + 1
    left = sorted({p.stem.rsplit("-", 1)[0] for p in directory.glob("*.jsonl")})
    assert left == sorted(runs)[-5:]
    assert [p.name for p in directory.glob("*.rerecorded")] == [f"{runs[-1]}.rerecorded"]
    assert hits.trim(directory, keep_runs=5) == 0
    assert hits.trim(tmp_path / "absent") == 0


def test_trim_deletes_the_log_s_files_alone(tmp_path: Path) -> None:
    # [tool.replaygate] hits may name a folder that holds other files (a fixture store's
    # folder, a shared cache): trim took every .jsonl there for a run, and a session
    # deleted the fixture stores whose names sorted first past the newest 50 "runs".
    stores = [tmp_path / f"test_{n}.jsonl" for n in ("a", "b-2", "c")]
    for store in stores:
        store.write_text('{"key": "0123456789ab"}\n', encoding="utf-8")
    (tmp_path / "notes-1.outcomes").write_text("", encoding="utf-8")
    for run in ("20261129T000000Z-ab00", "20261130T000000123Z-ab01"):
        (tmp_path / f"{run}-7.jsonl").write_text("", encoding="utf-8")
    assert hits.trim(tmp_path, keep_runs=1) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "20261130T000000123Z-ab01-7.jsonl",
        "notes-1.outcomes",
        "test_a.jsonl",
        "test_b-2.jsonl",
        "test_c.jsonl",
    ]


def test_reading_a_hits_log_that_is_a_file_is_refused_not_read_as_empty(tmp_path: Path) -> None:
    log = tmp_path / "hits.jsonl"
    log.write_text('{"run": "r", "time": "t", "store": "s", "key": "k"}\n', encoding="utf-8")
    refused = f"^{re.escape(str(log))} is not a folder: the hits log is the folder"
    with pytest.raises(ValueError, match=refused):
        list(hits.read_hits(log))
    with pytest.raises(HygieneError, match=f"^--hits-dir {refused[1:]}"):
        read_usage(log, 1)
    assert list(hits.read_hits(tmp_path / "absent")) == []


def test_a_damaged_hits_log_named_with_a_newline_is_named_on_one_line(tmp_path: Path) -> None:
    (tmp_path / "r1\n-1.jsonl").write_text("{not json\n", encoding="utf-8")
    with pytest.raises(ValueError) as caught:
        list(hits.read_hits(tmp_path))
    assert str(caught.value).startswith(repr(str(tmp_path / "r1\n-1.jsonl")) + ":1: ")
    assert "\n" not in str(caught.value)


KEY = {"authorization": "Bearer k"}  # the simulator refuses a request without one
ASKED = {"model": "gpt-sim-1", "messages": [{"role": "user", "content": "hi"}]}

IN_A_FORKED_WORKER = f"""
import multiprocessing, sys
import replaygate.http
from replaygate.fixtures import hits

def ask():
    with replaygate.http.httpx2_client("s.jsonl") as http:
        http.post("http://sim.invalid/v1/chat/completions", json={ASKED!r}, headers={KEY!r})

if __name__ == "__main__":
    hits.enable("hits", run="run-1")
    ask()  # the parent's hit, not written yet
    worker = multiprocessing.get_context("fork").Process(target=ask)
    worker.start()
    worker.join()
    sys.exit(worker.exitcode)
"""


@pytest.mark.slow  # processes of their own
def test_a_forked_worker_writes_its_own_hits_as_it_ends_and_not_its_parent_s(
    tmp_path: Path, forker: Forker
) -> None:
    # A fork worker ends with os._exit: the exit handler that writes the hits never runs in it.
    with (  # recorded here: the interpreter started needs neither an SDK nor the simulator
        Simulator(behavior="echo") as sim,
        httpx2_client(tmp_path / "s.jsonl", "record-missing", approve_live=True) as http,
    ):
        http.post(f"{sim.openai_base_url}/chat/completions", json=ASKED, headers=KEY)
    # its process forked from one that imported the command line: it ends as it would
    done = forker.capture([], cwd=tmp_path, code=IN_A_FORKED_WORKER)
    assert (done.returncode, done.stderr) == (0, b"")
    files = sorted((tmp_path / "hits").glob("run-1-*.jsonl"))
    assert [len(f.read_text().splitlines()) for f in files] == [1, 1]  # parent and worker


def test_run_ids_made_within_one_second_sort_in_the_order_they_were_made() -> None:
    # ids of whole seconds sorted two runs of one second by their random part, so
    # `prune --runs 1` right after a run could count the run before it
    made = []
    for _ in range(30):
        made.append(hits.new_run_id())
        time.sleep(0.002)
    assert sorted(made) == made
    assert hits.new_run_id() > "20261205T150918Z-ab12"  # an older log's id sorts first


AHEAD = "29991231T235959998Z-ab12"
"""A run logged while the clock was ahead: the clock has been set back since."""


def logged_ahead(log: Path, **runner: str) -> Path:
    """The hits folder ``log``, holding one play of the run :data:`AHEAD`."""
    log.mkdir(parents=True)
    line = {"run": AHEAD, "time": "2999-12-31T23:59:59Z", "store": "a.jsonl"}
    line |= {"key": "aaaaaaaaaaaa", "test": None, **runner}
    (log / f"{AHEAD}-7.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    return log


@pytest.mark.parametrize(
    ("logged", "after"),
    [(AHEAD, "29991231T235959999Z"), ("29991231T235958Z-ab12", "29991231T235959000Z")],
)
def test_a_run_id_sorts_after_the_runs_logged_whatever_the_clock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, logged: str, after: str
) -> None:
    # a clock set back dated the newest run before older ones: `trim` deleted it, and
    # `prune --runs 1` counted an older run, offering to delete what the tests now play
    (tmp_path / f"{logged}-7.outcomes").write_text("", encoding="utf-8")
    made = hits.new_run_id(tmp_path)
    assert made.split("-")[0] == after
    assert made > logged
    monkeypatch.delenv(hits.RUN_ENV, raising=False)
    previous = hits.active()
    try:
        assert hits.enable(tmp_path).run > logged  # a log enabled with no run id given
    finally:
        hits.use(previous)


def test_an_eval_run_after_a_clock_set_back_is_counted_as_the_newest(tmp_path: Path) -> None:
    log = logged_ahead(tmp_path / "hits", runner="eval")
    with hits.logging_run(log, tmp_path, "eval"):
        hits.note(tmp_path / "evals" / "b.jsonl", "bbbbbbbbbbbb")
    assert set(read_usage(log, 1, tmp_path).plays) == {"bbbbbbbbbbbb"}


@pytest.mark.slow
def test_a_test_session_after_a_clock_set_back_is_counted_as_the_newest(
    pytester: pytest.Pytester,
) -> None:
    log = logged_ahead(pytester.path / ".replaygate" / "hits")
    pytester.makepyfile(
        "from replaygate.fixtures import hits\n"
        "def test_b():\n    hits.note('tests/b.jsonl', 'bbbbbbbbbbbb')\n"
    )
    pytester.runpytest_inprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)
    assert set(read_usage(log, 1, pytester.path).plays) == {"bbbbbbbbbbbb"}


def traced_usage(log: Path, runs: int) -> int:
    """The peak memory traced while the plays of the newest run of a hits log of ``runs``
    runs, each playing the same 400 fixtures, are read."""
    log.mkdir()
    for n in range(runs):
        run = f"20261201T1000{n:02d}000Z-{n:04x}"
        lines = (
            json.dumps({"run": run, "time": "2026-12-01T10:00:00Z", "store": "s.jsonl",
                        "key": f"{i:012x}", "test": f"t.py::test_{i}"})
            for i in range(400)
        )  # fmt: skip
        (log / f"{run}-{n + 1}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    tracemalloc.start()
    try:
        assert len(read_usage(log, 1, log).plays) == 400
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_hits_of_the_runs_not_counted_are_not_held(tmp_path: Path) -> None:
    # patrol and prune held every hit of the 50 runs a log keeps to count the newest 5:
    # 580 MB and 19 s for a store of 20,000 fixtures
    assert traced_usage(tmp_path / "six", 6) < 2 * traced_usage(tmp_path / "one", 1)


# [tool.replaygate] hits: the folder a read-only checkout sends the log to


SENT_ELSEWHERE = """\
[tool.pytest.ini_options]
testpaths = ["tests"]

[tool.replaygate]
hits = "../hits-log"
"""


@pytest.fixture(scope="module")
def read_only(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A project whose folder cannot be written (a checkout mounted read-only: no
    ``.replaygate`` folder can be made in it, even by root), which sends the hits log
    outside it; its tests run once."""
    root = tmp_path_factory.mktemp("read-only") / "project"
    (root / "tests" / "fixtures").mkdir(parents=True)
    (root / "pyproject.toml").write_text(SENT_ELSEWHERE, encoding="utf-8")
    (root / "tests" / "test_agent.py").write_text(TESTS + RAG_TEST, encoding="utf-8")
    shutil.copy(shipped_fixtures(), root / "tests" / "fixtures" / "rc.jsonl")
    (root / ".replaygate").write_text("", encoding="utf-8")  # where the log went
    folders = [root, *(p for p in root.rglob("*") if p.is_dir())]
    for folder in folders:
        folder.chmod(0o555)
    try:
        pytest_in_process(root, "-k", "test_rag and 1")  # was: cannot write the hits log
        yield root
    finally:
        for folder in folders:
            folder.chmod(0o755)


@pytest.mark.slow
def test_a_session_writes_the_hits_log_to_the_folder_the_project_names(read_only: Path) -> None:
    logged = list(hits.read_hits(read_only.parent / "hits-log"))
    assert {(h.store, h.test) for h in logged} == {
        ("tests/fixtures/rc.jsonl", "tests/test_agent.py::test_rag[1]")
    }
    assert (read_only / ".replaygate").is_file()


@pytest.mark.slow
def test_patrol_reads_the_folder_the_project_names(read_only: Path) -> None:
    from click.testing import CliRunner

    from replaygate.cli import main

    store = str(read_only / "tests" / "fixtures" / "rc.jsonl")
    done = CliRunner().invoke(main, ["patrol", store, "--json"])
    assert done.exit_code == 0, done.output
    report = json.loads(done.output)
    assert len(report["runs"]) == 1
    assert Path(report["hits_dir"]).resolve() == (read_only.parent / "hits-log").resolve()
    assert 0 < report["summary"]["unplayed"] < report["summary"]["fixtures"]
