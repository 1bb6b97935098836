"""The features that only a pytest session with real xdist workers shows, checked on
one generated project in two nested sessions of two workers each.

Each nested session starts a controller and two worker processes (forked from one
interpreter that loaded pytest, replaygate and the plugins: tests/forked_xdist_workers.py;
still seconds of CPU), so the project holds one test module per feature and the sessions
are shared by every test below:

- ``recording`` (``--replaygate-record-mode=record-missing``, from two loopback
  simulators): ``test_generated.py`` records 48 tests at once, two tests sending each
  request to one shared store (:func:`test_xdist_workers_record_everything`);
  ``test_cap.py`` meets the cap the workers share
  (:func:`test_xdist_workers_share_the_cap_and_the_controller_adds_up`);
  ``test_agent.py::test_http[1]`` records the HTTP fixture the hits are logged for.
- ``replaying`` (replay mode, ``--replaygate-strict``, no simulator running):
  ``test_generated.py`` replays what the workers recorded
  (:func:`test_xdist_workers_replay_offline_what_they_recorded`), ``test_agent.py``
  logs its hits (:func:`test_xdist_run_logs_hits_with_test_ids`), ``test_workers.py``
  tries to send telemetry (:func:`test_refusals_of_xdist_workers_are_listed_by_the_controller`)
  and ``test_verdicts.py`` gets a verdict of each kind
  (:func:`test_under_xdist_the_queue_is_written_once`).

The features' conditions in one session:

- Mode is per session: recording and replaying cannot share one; the replay of the
  workers' recordings needs them recorded first anyway.
- The cap: a cap given for the run (``--replaygate-max-cost`` or ini
  ``replaygate_max_cost``) binds every test, and the other recording tests use models
  without a price (which a cap refuses). The project's ``[tool.replaygate] max_cost =
  0.05`` sets it instead, split between the workers and added up by the controller in
  the same way; ``test_generated.py`` and ``test_agent.py`` lift it for their tests
  (``replaygate_config`` returning ``cap: None``, as their projects did before), so the
  session's spending line counts the calls of ``test_cap.py`` alone. The option itself
  is covered by single-process tests in test_pytest_session.py.
- ``--replaygate-dir``: the recording tests record into ``recorded/``, not the default
  folder; the hits fixtures are under ``recorded/hits/`` (the HTTP one by the marker's
  ``fixtures="hits/http.jsonl"``), so that ``replaygate patrol recorded/hits`` sees only
  them.
- Outcomes and counts are per module: a small plugin of the controller keeps the
  terminal reporter's outcome lists with their test ids, which also add up to the
  session's summary line. Simulator requests are counted per simulator (one for
  ``test_generated.py``, one for the others). The recorded folder is copied as the
  recording session left it, before the replaying session runs over it.
- Hits: the log is emptied after the recording session; the replaying session logs the
  hits of ``test_generated.py`` too, so what is asserted of the hits' stores is asserted
  of the lines of ``test_agent.py``'s tests.
  The controller notes how each test ended beside them, the workers' tests too
  (:func:`test_under_xdist_the_controller_notes_how_each_test_ended`).

Under ``pytest -n 2`` the tests of this module may run on two workers: the sessions run
once per suite run, on the first worker that needs them, under a file lock beside the
workers' temporary folders; their results are kept there as JSON for the other worker
(pytest-xdist's documented recipe). Without xdist they run in this process's own
temporary folder.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import sys
import traceback
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock

from forked_xdist_workers import workers_forked
from nested_pytest import UNUSED_PLUGINS, NoClosingCollection, conftest_sharing_tls
from replaygate.examples.research_copilot import shipped_fixtures
from replaygate.fixtures.store import FixtureStore
from replaygate.sim import Simulator
from run_cli import replaygate
from test_hits import RAG_TEST
from test_sampling_plugin import VERDICTS, record_samples

# Each session runs pytest with two xdist workers: real processes.
pytestmark = pytest.mark.slow

RECORD = ("--replaygate-record-mode=record-missing", "--replaygate-approve-live")
COUNT = 24
"""Parameters of each recording test of ``test_generated.py``."""
HITS_STORE = "recorded/hits/rc.jsonl"
HITS_HTTP = "recorded/hits/http.jsonl"

CONFTEST = f"""
import sys

sys.path.append({str(Path(__file__).parent)!r})  # network_escapes, for test_workers.py

SHARE_HTTPX = False  # every client here is an httpx2 one
"""

_HITS_HEAD = """
import os
from pathlib import Path

import pytest

from replaygate.http import httpx2_client

STORE = Path(__file__).parent.parent / "recorded" / "hits" / "rc.jsonl"
"""
_HITS_TAIL = """

@pytest.fixture
def replaygate_config():
    return {"cap": None}  # recorded from a loopback simulator: nothing is paid


@pytest.mark.replaygate(fixtures="hits/http.jsonl")
@pytest.mark.parametrize("attempt", [1, 2, 3])
def test_http(replaygate_exchange, attempt):
    # plain HTTP, not the SDK: an xdist worker then starts without importing it
    url = os.environ.get("SIM_URL", "http://127.0.0.1:9")
    body = {"model": "claude-test-model", "max_tokens": 50,
            "messages": [{"role": "user", "content": "hello"}]}
    reply = httpx2_client(replaygate_exchange, base_url=url).post(
        "/v1/messages", json=body, headers={"x-api-key": "k", "anthropic-version": "2023-06-01"})
    assert reply.json()["content"][0]["text"] == "echo: hello"
"""
_RAG_IMPORTS = """
    from replaygate.examples.research_copilot import (
        DEFAULT_MAX_TOKENS, DEFAULT_MODEL, DEFAULT_SYSTEM, build_registry, run,
    )
    from replaygate.models.replay import ReplayModel
"""
# test_rag imports the example agent as it runs: the recording session's workers, which
# run test_http alone, do not load it (about 0.15 s of CPU in each)
_RAG_DEF = "def test_rag(attempt):\n"
assert RAG_TEST.count(_RAG_DEF) == 1
HITS_TESTS = _HITS_HEAD + RAG_TEST.replace(_RAG_DEF, _RAG_DEF + _RAG_IMPORTS[1:]) + _HITS_TAIL

RECORDING_TESTS = """
import os

import pytest

from replaygate.http import httpx2_client

URL = os.environ["REPLAYGATE_TEST_SIM_URL"]


@pytest.fixture
def replaygate_config():
    return {{"cap": None}}  # recorded from a loopback simulator started by the test


def ask(exchange, path, body):
    client = httpx2_client(exchange, base_url=URL)
    headers = {{"x-api-key": "k", "authorization": "Bearer k", "anthropic-version": "2023-06-01"}}
    response = client.post(path, json=body, headers=headers)
    assert response.status_code == 200
    return response.json()


@pytest.mark.replaygate(fixtures="shared.jsonl", source="sim")
@pytest.mark.parametrize("n", range({count}))
def test_shared_store(replaygate_exchange, n):
    # each request is sent by two tests, often by two workers at once
    text = f"q{{n // 2}}"
    body = {{"model": "m", "max_tokens": 16, "messages": [{{"role": "user", "content": text}}]}}
    assert ask(replaygate_exchange, "/v1/messages", body)["content"][0]["text"] == f"echo: {{text}}"


@pytest.mark.parametrize("n", range({count}))
def test_own_store(replaygate_exchange, replaygate_store, n):
    body = {{"model": "g", "messages": [{{"role": "user", "content": f"task {{n}}"}}]}}
    answer = ask(replaygate_exchange, "/v1/chat/completions", body)
    assert answer["choices"][0]["message"]["content"] == f"echo: task {{n}}"
    assert replaygate_store.path.name == f"test_own_store[{{n}}].jsonl"
"""

CAP_TESTS = """
import os

import pytest

from replaygate.http import httpx2_client


def ask(exchange, text, max_tokens=16):
    # plain HTTP, not the SDK: the xdist workers start without importing it
    body = {"model": "claude-sonnet-4-6", "max_tokens": max_tokens,
            "messages": [{"role": "user", "content": text}]}
    client = httpx2_client(exchange, base_url=os.environ["REPLAYGATE_CAP_SIM_URL"])
    headers = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
    reply = client.post("/v1/messages", json=body, headers=headers)
    assert reply.status_code == 200, reply.text
    return reply.json()["content"][0]["text"]


@pytest.mark.parametrize("n", range(4))
def test_small(replaygate_exchange, n):
    assert ask(replaygate_exchange, f"q{n}") == f"echo: q{n}"


def test_big(replaygate_exchange):  # bounded at 0.045: more than a worker's half of 0.05
    ask(replaygate_exchange, "big", max_tokens=3000)
"""

NETWORK_TESTS = """
from network_escapes import send_telemetry

def test_one(replaygate_store):
    send_telemetry()

def test_two(replaygate_store):
    send_telemetry()
"""


class Outcomes:
    """A plugin of a nested session's controller: the test ids of each outcome the
    terminal reporter counted (what its summary line adds up), warnings included."""

    def __init__(self) -> None:
        self.ids: dict[str, list[str]] = {}

    @pytest.hookimpl(trylast=True)
    def pytest_unconfigure(self, config: pytest.Config) -> None:
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        for category, reports in getattr(reporter, "stats", {}).items():
            if category:
                self.ids[category] = [
                    str(getattr(report, "nodeid", "") or "")
                    for report in reports
                    if getattr(report, "count_towards_summary", True)
                ]


def run_pytest(project: Path, *args: str, env: dict[str, str]) -> dict[str, Any]:
    """``pytest ARGS`` in ``project`` as a nested session in this process (its xdist
    workers are processes of their own), with ``env`` added to the environment as
    pytester would: its exit code, what it printed and its :class:`Outcomes`."""
    env = {"PY_COLORS": "0", "PYTEST_DEBUG_TEMPROOT": str(project.parent / "tmp"), **env}
    (project.parent / "tmp").mkdir(exist_ok=True)
    names = (*env, "PYTEST_ADDOPTS", "TOX_ENV_DIR")
    saved_env = {name: os.environ.get(name) for name in names}
    saved_path, saved_cwd, saved_modules = list(sys.path), Path.cwd(), dict(sys.modules)
    for name in ("PYTEST_ADDOPTS", "TOX_ENV_DIR"):
        os.environ.pop(name, None)
    os.environ.update(env)
    os.chdir(project)
    outcomes, out, err = Outcomes(), io.StringIO(), io.StringIO()
    try:
        with redirect_stdout(out), redirect_stderr(err):
            plugins = [outcomes, NoClosingCollection()]
            code = pytest.main(["-p", "no:cacheprovider", *args], plugins=plugins)
    finally:
        os.chdir(saved_cwd)
        sys.path[:] = saved_path
        for name in set(sys.modules) - set(saved_modules):
            if str(getattr(sys.modules[name], "__file__", "")).startswith(str(project)):
                del sys.modules[name]
        for name, module in saved_modules.items():  # the suite's own conftest, say
            if sys.modules.get(name) is not module:
                sys.modules[name] = module
        for name, value in saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    return {
        "ret": int(code),
        "stdout": out.getvalue(),
        "stderr": err.getvalue(),
        "outcomes": outcomes.ids,
    }


def make_project(root: Path) -> Path:
    project = root / "project"
    tests = project / "tests"
    (project / "recorded" / "hits").mkdir(parents=True)
    tests.mkdir()
    (project / "pytest.ini").write_text("[pytest]\ntestpaths = tests\n", encoding="utf-8")
    # ResearchCopilot's shipped fixtures: three questions, one of them replayed by test_rag
    shutil.copy(shipped_fixtures(), project / HITS_STORE)
    (project / "pyproject.toml").write_text("[tool.replaygate]\nmax_cost = 0.05\n", "utf-8")
    record_samples(project / "answers.jsonl")
    # 48 clients in the recording session's 2 workers: one TLS context in each
    (tests / "conftest.py").write_text(conftest_sharing_tls(CONFTEST), encoding="utf-8")
    for name, text in {
        "test_agent.py": HITS_TESTS,
        "test_generated.py": RECORDING_TESTS.format(count=COUNT),
        "test_cap.py": CAP_TESTS,
        "test_workers.py": NETWORK_TESTS,
        "test_verdicts.py": VERDICTS,
    }.items():
        (tests / name).write_text(text, encoding="utf-8")
    return project


def run_sessions(root: Path) -> dict[str, Any]:
    """Make the project in ``root``, run both sessions, their workers forked
    (tests/forked_xdist_workers.py); what the tests check of them."""
    with workers_forked():
        return sessions_in(make_project(root))


def sessions_in(project: Path) -> dict[str, Any]:
    """Both sessions run in ``project``: what the tests check of them."""
    root = project.parent
    recorded = project / "recorded"
    folder = ("--replaygate-dir", str(recorded))
    with Simulator(behavior="echo") as shared_sim, Simulator(behavior="echo") as sim:
        recording = run_pytest(
            project,
            "-n", "2", *UNUSED_PLUGINS, *RECORD, *folder,
            "tests/test_generated.py", "tests/test_cap.py", "tests/test_agent.py::test_http[1]",
            env={"REPLAYGATE_TEST_SIM_URL": shared_sim.url, "REPLAYGATE_CAP_SIM_URL": sim.url,
                 "SIM_URL": sim.url, "ANTHROPIC_API_KEY": "sim-key"},
        )  # fmt: skip
        sim_requests = len(shared_sim.requests)
        stopped_url = shared_sim.url
    shutil.copytree(recorded, root / "recorded-by-workers")
    for old in (project / ".replaygate" / "hits").glob("*.jsonl"):
        old.unlink()  # the recording run's hits: the replaying one starts clean
    # the simulators are stopped: replay offline, strictly
    replaying = run_pytest(
        project,
        "-n", "2", "-p", "no:randomly", *UNUSED_PLUGINS, "--replaygate-strict", *folder,
        "tests/test_agent.py", "tests/test_generated.py", "tests/test_workers.py",
        "tests/test_verdicts.py",
        env={"REPLAYGATE_TEST_SIM_URL": stopped_url},
    )  # fmt: skip
    return {
        "project": str(project),
        "recorded_by_workers": str(root / "recorded-by-workers"),
        "sim_requests": sim_requests,
        "recording": recording,
        "replaying": replaying,
    }


@dataclass(frozen=True)
class Session:
    """What a nested session printed and counted."""

    ret: int
    stdout: str
    stderr: str
    outcomes: dict[str, list[str]]

    @property
    def lines(self) -> pytest.LineMatcher:
        return pytest.LineMatcher(self.stdout.splitlines())

    def counts(self, module: str) -> dict[str, int]:
        """What the summary line would count of ``tests/<module>`` alone, as
        ``RunResult.parseoutcomes`` gives it (checked to add up to the whole line)."""
        summary = pytest.RunResult.parse_summary_nouns(self.stdout.splitlines())
        assert summary == {k: len(ids) for k, ids in self.outcomes.items() if ids}, self.stdout
        prefix = f"tests/{module}::"
        counts = {k: sum(i.startswith(prefix) for i in ids) for k, ids in self.outcomes.items()}
        return {k: n for k, n in counts.items() if n}

    def assert_outcomes(self, module: str, **expected: int) -> None:
        """``RunResult.assert_outcomes`` for ``tests/<module>``'s tests: these counts and
        no other outcome (warnings not counted)."""
        counts = self.counts(module)
        counts.pop("warnings", None)
        assert counts == expected, self.stdout + self.stderr


@dataclass(frozen=True)
class Sessions:
    project: Path
    recorded_by_workers: Path
    """``recorded/`` as the recording session left it."""
    sim_requests: int
    """The requests the simulator of ``test_generated.py`` answered."""
    recording: Session
    replaying: Session


def computed_once(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> dict[str, Any]:
    """:func:`run_sessions`, once for all the workers of this run (see the docstring)."""
    if worker_id == "master":
        return run_sessions(tmp_path_factory.getbasetemp() / "xdist-sessions")
    root = tmp_path_factory.getbasetemp().parent / "xdist-sessions"
    results = root.with_suffix(".json")
    with FileLock(str(root.with_suffix(".lock"))):
        if results.is_file():
            data: dict[str, Any] = json.loads(results.read_text(encoding="utf-8"))
            if "error" in data:
                pytest.fail(f"the nested sessions failed on another worker:\n{data['error']}")
            return data
        try:
            data = run_sessions(root)
        except BaseException:
            results.write_text(json.dumps({"error": traceback.format_exc()}), encoding="utf-8")
            raise
        results.write_text(json.dumps(data), encoding="utf-8")
        return data


@pytest.fixture(scope="session")
def sessions(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Sessions:
    data = computed_once(tmp_path_factory, worker_id)
    return Sessions(
        project=Path(data["project"]),
        recorded_by_workers=Path(data["recorded_by_workers"]),
        sim_requests=data["sim_requests"],
        recording=Session(**data["recording"]),
        replaying=Session(**data["replaying"]),
    )


def test_xdist_workers_record_everything(sessions: Sessions) -> None:
    sessions.recording.assert_outcomes("test_generated.py", passed=2 * COUNT)
    assert COUNT + COUNT // 2 <= sessions.sim_requests <= 2 * COUNT
    fixtures = sessions.recorded_by_workers
    shared = FixtureStore.open(fixtures / "shared.jsonl")
    # no request lost, none stored twice, no answer of one worker replaced by another's
    assert len(shared) == len(set(shared.keys())) == COUNT // 2
    assert [f.samples for f in shared] == [1] * (COUNT // 2)
    assert len((fixtures / "shared.jsonl").read_bytes().splitlines()) == COUNT // 2
    assert {f.meta["source"] for f in shared if f.meta} == {"sim"}
    own = sorted((fixtures / "test_generated").glob("*.jsonl"))
    assert len(own) == COUNT
    assert all(len(FixtureStore.open(p)) == 1 for p in own)


def test_xdist_workers_replay_offline_what_they_recorded(sessions: Sessions) -> None:
    sessions.replaying.assert_outcomes("test_generated.py", passed=2 * COUNT)


def test_xdist_workers_share_the_cap_and_the_controller_adds_up(sessions: Sessions) -> None:
    sessions.recording.assert_outcomes("test_cap.py", passed=4, failed=1)
    sessions.recording.lines.fnmatch_lines(
        [
            "*spending cap reached: 0.0* of 0.025 USD spent*could cost up to 0.045*"  # its half
            "*worker's share: the session's cap of 0.05 split over 2 workers*-n 1*",
            "0.0* of 0.05 USD spent on 4 recorded calls (prices: *)",
        ]
    )


def logged(project: Path) -> list[dict[str, str]]:
    files = sorted((project / ".replaygate" / "hits").glob("*.jsonl"))
    return [json.loads(line) for f in files for line in f.read_text(encoding="utf-8").splitlines()]


def test_xdist_run_logs_hits_with_test_ids(sessions: Sessions) -> None:
    sessions.replaying.assert_outcomes("test_agent.py", passed=6)
    project = sessions.project
    files = sorted((project / ".replaygate" / "hits").glob("*.jsonl"))
    lines = logged(project)
    assert len({line["run"] for line in lines}) == 1, "workers share the controller's run id"
    assert len(files) == 2, "one file per worker process"
    pids = {f.stem.rsplit("-", 1)[1] for f in files}
    assert len(pids) == 2
    tests = {line["test"] for line in lines}
    assert {f"tests/test_agent.py::test_rag[{i}]" for i in (1, 2, 3)} <= tests
    assert {f"tests/test_agent.py::test_http[{i}]" for i in (1, 2, 3)} <= tests
    agent = [line for line in lines if (line["test"] or "").startswith("tests/test_agent.py::")]
    stores = {line["store"] for line in agent}
    assert stores == {HITS_STORE, HITS_HTTP}

    rag_keys = {line["key"] for line in agent if line["store"] == HITS_STORE}
    all_keys = set(FixtureStore.open(project / HITS_STORE).keys())
    assert rag_keys < all_keys

    done = replaygate("patrol", "recorded/hits", "--runs", "1", "--json", cwd=project)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    unplayed = {row["key"] for row in report["fixtures"] if row["plays"] == 0}
    assert unplayed == all_keys - rag_keys
    http_row = next(r for r in report["fixtures"] if "http.jsonl" in r["fixture"])
    assert http_row["plays"] == 3
    assert http_row["tests"] == [f"tests/test_agent.py::test_http[{i}]" for i in (1, 2, 3)]


def test_refusals_of_xdist_workers_are_listed_by_the_controller(sessions: Sessions) -> None:
    sessions.replaying.assert_outcomes("test_workers.py", passed=2)
    sessions.replaying.lines.fnmatch_lines_random(
        [
            "[[]gw?[]] lookup of '192.0.2.1' (from network_escapes) during *::test_one",
            "[[]gw?[]] lookup of '192.0.2.1' (from network_escapes) during *::test_two",
            "2 attempt(s) refused*",
        ]
    )


def test_under_xdist_the_controller_notes_how_each_test_ended(sessions: Sessions) -> None:
    """The workers' tests, noted once by the controller: ``patrol`` keeps every fixture of
    the store of a test that did not pass (a sampled test that blocks, here)."""
    project = sessions.project
    (run,) = {line["run"] for line in logged(project)}
    (file,) = (project / ".replaygate" / "hits").glob(f"{run}-*.outcomes")
    noted = [json.loads(line) for line in file.read_text(encoding="utf-8").splitlines()]
    ended = {line["test"]: line["outcome"] for line in noted}
    assert len(noted) == len(ended), "each test noted once"
    assert ended["tests/test_verdicts.py::test_block"] == "failed"
    assert ended["tests/test_verdicts.py::test_pass"] == "passed"
    assert {ended[f"tests/test_agent.py::test_rag[{i}]"] for i in (1, 2, 3)} == {"passed"}
    done = replaygate("patrol", "answers.jsonl", "--runs", "1", "--json", cwd=project)
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)["fixtures"]
    assert {tuple(row["failed_tests"]) for row in rows} == {("tests/test_verdicts.py::test_block",)}


def test_under_xdist_the_queue_is_written_once(sessions: Sessions) -> None:
    counts = sessions.replaying.counts("test_verdicts.py")
    assert counts == {"passed": 1, "failed": 1, "observed": 1, "warnings": 1}
    sessions.replaying.lines.fnmatch_lines(["1 pass, 1 observe, 1 block"])
    queue = sessions.project / ".replaygate" / "observe.jsonl"
    assert len(queue.read_text().splitlines()) == 1
