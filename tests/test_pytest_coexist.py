"""The pytest plugin beside pytest-recording (installed here) and other owners of its short
options: each plugin gets its own record mode, and ``--help`` says which spelling works."""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from forked_cli import Forker
from forked_xdist_workers import preloaded_forker
from replaygate.fixtures.store import FixtureStore
from replaygate.pytest_plugin import options
from replaygate.sim import Simulator
from test_http_plugin import NO_CAP

# Each test runs pytest itself on a project of its own (pytester): end to end.
# pytest-recording loads through its entry point beside replaygate's, as in a user's run;
# a failure's traceback is shown as Python prints it (the tests read the plugins' words).
pytestmark = [pytest.mark.slow, pytest.mark.autoload_plugins, pytest.mark.native_tracebacks]


@pytest.fixture(scope="module")
def forker() -> Forker:
    """The interpreter the ``pytest`` processes are forked from, pytest and the installed
    plugins loaded once (tests/pytest_preloaded.py), with the modules replaygate's plugins
    and the generated tests import as a session runs (each session imported them again):
    the one the nested sessions' xdist workers are forked from too
    (:func:`forked_xdist_workers.preloaded_forker`), started once a session."""
    return preloaded_forker()


AS_PYTHON_M_PYTEST = "import runpy\nrunpy.run_module('pytest', run_name='__main__', alter_sys=True)"


def runpytest_forked(pytester: pytest.Pytester, forker: Forker, *args: str) -> pytest.RunResult:
    """``pytester.runpytest_subprocess(*args)``, its ``python -m pytest`` process forked
    from ``forker``: the same arguments, folder and environment, a process of its own where
    no session ran before (an in-process session left pytest-recording's state to the
    next), its output read the same way."""
    basetemp = tempfile.mkdtemp(prefix="runpytest-", dir=pytester.path)
    path = os.pathsep.join(filter(None, [os.getcwd(), os.getenv("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": path}
    started = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = forker.start(
            [f"--basetemp={basetemp}", *args], stdout=out.fileno(), stderr=err.fileno(),
            cwd=pytester.path, env=env, code=AS_PYTHON_M_PYTEST,
        )  # fmt: skip
        ret = process.wait(120)
        out.seek(0)
        err.seek(0)
        said, complained = out.read().decode(), err.read().decode()
    print(said)  # shown with a failure, as pytester shows a process's output
    print(complained)
    return pytest.RunResult(
        ret, said.splitlines(), complained.splitlines(), time.monotonic() - started
    )


BOTH = """
import os

import pytest
import requests

from replaygate.http import httpx2_client

URL = os.environ["SIM_URL"]
BODY = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]}
HEADERS = {"x-api-key": "k", "anthropic-version": "2023-06-01"}


@pytest.mark.vcr
def test_vcr(record_mode):
    assert record_mode == os.environ["EXPECTED_VCR_MODE"]
    answer = requests.post(URL + "/v1/messages", json=BODY, headers=HEADERS).json()
    assert answer["content"][0]["text"] == "echo: hi"


def test_replaygate(replaygate_exchange, replaygate_mode):
    assert replaygate_mode == os.environ["EXPECTED_REPLAYGATE_MODE"]
    client = httpx2_client(replaygate_exchange, base_url=URL)
    answer = client.post("/v1/messages", json=BODY, headers=HEADERS).json()
    assert answer["content"][0]["text"] == "echo: hi"
"""

MODE_OF_RUN = """
def test_mode(replaygate_mode):
    assert replaygate_mode == "record-missing"
"""


def test_help_names_only_the_prefixed_spellings_when_pytest_recording_is_installed(
    pytester: pytest.Pytester,
) -> None:
    result = pytester.runpytest("--help")
    result.stdout.fnmatch_lines(
        [
            "replaygate: record and replay model calls (only the --replaygate- spellings: "
            "pytest-recording is installed and owns --record-mode):",
            "  --replaygate-record-mode=*",
        ]
    )
    assert "short for --replaygate" not in result.stdout.str()
    # each value is named for what it is, not by the option's internal name
    result.stdout.fnmatch_lines(["  --replaygate-dir=DIR *", "  --flaky-runs=RUNS *"])
    assert "=REPLAYGATE_" not in result.stdout.str()


def test_both_plugins_record_then_replay_in_one_run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, forker: Forker
) -> None:
    pytester.makepyfile(test_both=BOTH)
    pytester.makeconftest(NO_CAP)
    with Simulator(behavior="echo") as sim:
        monkeypatch.setenv("SIM_URL", sim.url)
        monkeypatch.setenv("EXPECTED_VCR_MODE", "once")
        monkeypatch.setenv("EXPECTED_REPLAYGATE_MODE", "record-missing")
        recorded = runpytest_forked(
            pytester,
            forker,
            "--record-mode=once",
            "--replaygate-record-mode=record-missing",
            "--replaygate-approve-live",
        )
        recorded.assert_outcomes(passed=2)
        assert len(sim.requests) == 2
    cassette = pytester.path / "cassettes" / "test_both" / "test_vcr.yaml"
    assert "/v1/messages" in cassette.read_text()
    store = FixtureStore.open(pytester.path / "tests/fixtures/test_both/test_replaygate.jsonl")
    assert len(store) == 1
    # the simulator is gone: each plugin replays from its own recording
    monkeypatch.setenv("EXPECTED_VCR_MODE", "none")
    monkeypatch.setenv("EXPECTED_REPLAYGATE_MODE", "replay")
    replayed = runpytest_forked(pytester, forker, "--record-mode=none")
    replayed.assert_outcomes(passed=2)


def test_the_short_spellings_work_where_no_other_plugin_owns_them(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(options, "SHORT_OWNERS", ("no-such-distribution",))
    pytester.makepyfile(MODE_OF_RUN)
    blocked = ("-p", "no:recording")
    result = pytester.runpytest_inprocess(
        *blocked, "--record-mode=record-missing", "--approve-live"
    )
    result.assert_outcomes(passed=1)
    help_text = pytester.runpytest_inprocess(*blocked, "--help")
    help_text.stdout.fnmatch_lines(
        [
            "replaygate: short spellings (no other plugin owns them here):",
            "  --record-mode=*",
            "*short for --replaygate-record-mode",
            "replaygate: record and replay model calls "
            "(--record-mode and --approve-live work too):",
        ]
    )


def test_a_short_spelling_another_plugin_registered_first_stays_its_own(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(options, "SHORT_OWNERS", ())
    pytester.makepyfile(
        other_plugin="""
        def pytest_addoption(parser):
            parser.addoption("--record-mode", dest="other_mode", default="off")
        """,
        test_other="""
        def test_modes(request, replaygate_mode):
            assert request.config.getoption("other_mode") == "on"
            assert replaygate_mode == "record-missing"
        """,
    )
    pytester.syspathinsert()
    plugins = ("-p", "no:recording", "-p", "other_plugin")
    help_text = pytester.runpytest_inprocess(*plugins, "--help")
    help_text.stdout.fnmatch_lines(
        [
            "replaygate: record and replay model calls (--approve-live works too; "
            "--record-mode is another plugin's: use the --replaygate- spelling):"
        ]
    )
    result = pytester.runpytest_inprocess(
        *plugins, "--record-mode=on", "--replaygate-record-mode=record-missing", "--approve-live"
    )
    result.assert_outcomes(passed=1)


BOTH_MARKS = """
import pytest
import requests

QUESTION = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]}


@pytest.mark.vcr
@pytest.mark.replaygate
def test_forecast_and_model():
    forecast = requests.get("https://api.weather.example/v1/forecast").json()
    answer = requests.post("https://api.anthropic.com/v1/messages", json=QUESTION,
                           headers={"x-api-key": "test", "anthropic-version": "2023-06-01"})
    assert (forecast, answer.json()["content"][0]["text"]) == ({"sky": "clear"}, "echo: hi")


@pytest.mark.vcr
def test_not_moved():
    assert requests.get("http://127.0.0.1:9/v1/models").json() == {"data": []}
"""

NOT_MOVED_CASSETTE = """\
interactions:
- request:
    body: null
    headers: {}
    method: GET
    uri: http://127.0.0.1:9/v1/models
  response:
    body: {string: '{"data": []}'}
    headers: {Content-Type: [application/json]}
    status: {code: 200, message: OK}
version: 1
"""

FORECAST_CASSETTE = """\
interactions:
- request:
    body: null
    headers: {}
    method: GET
    uri: https://api.weather.example/v1/forecast
  response:
    body: {string: '{"sky": "clear"}'}
    headers: {Content-Type: [application/json]}
    status: {code: 200, message: OK}
version: 1
"""


FROM_THE_SIMULATOR = (
    "--replaygate-record-mode=record-missing",
    "--replaygate-approve-live",
    "--replaygate-simulator=echo",
)


def test_a_test_under_both_marks_records_from_the_simulator_as_migrating_md_says(
    pytester: pytest.Pytester, forker: Forker
) -> None:
    """docs/migrating.md: pytest-recording's --block-network refuses the in-process
    simulator unless --allowed-hosts names it, and vcrpy refuses the model calls
    replaygate sends it unless the test's vcr mark lets loopback by; given both, the
    test records (the cassette's answer stored with the model's) and replays with the
    cassette gone, while a vcr test not yet moved still replays its loopback cassette."""
    pytester.makepyfile(test_both_marks=BOTH_MARKS)
    cassettes = pytester.path / "cassettes" / "test_both_marks"
    cassettes.mkdir(parents=True)
    cassette = cassettes / "test_forecast_and_model.yaml"
    cassette.write_text(FORECAST_CASSETTE)
    (cassettes / "test_not_moved.yaml").write_text(NOT_MOVED_CASSETTE)

    refused = runpytest_forked(pytester, forker, *FROM_THE_SIMULATOR)
    refused.assert_outcomes(failed=1, passed=1)
    refused.stdout.fnmatch_lines(["*CannotOverwriteExistingCassetteException*"])
    both = "@pytest.mark.vcr\n@pytest.mark.replaygate"
    let_loopback_by = "@pytest.mark.vcr(ignore_localhost=True)\n@pytest.mark.replaygate"
    pytester.makepyfile(test_both_marks=BOTH_MARKS.replace(both, let_loopback_by))
    blocked = runpytest_forked(pytester, forker, "--block-network", *FROM_THE_SIMULATOR)
    blocked.assert_outcomes(failed=1, passed=1)
    blocked.stdout.fnmatch_lines(["*Network is disabled for host '127.0.0.1'*"])

    allowed = ("--block-network", "--allowed-hosts=127.0.0.1")
    runpytest_forked(pytester, forker, *allowed, *FROM_THE_SIMULATOR).assert_outcomes(passed=2)
    store = pytester.path / "tests/fixtures/test_both_marks/test_forecast_and_model.jsonl"
    assert len(FixtureStore.open(store)) == 2
    cassette.unlink()
    runpytest_forked(pytester, forker, "--block-network").assert_outcomes(passed=2)


STALE_MODEL_CALL = """
import pytest
import requests

HEADERS = {"x-api-key": "test", "anthropic-version": "2023-06-01"}


@pytest.fixture
def vcr_config():
    return {"match_on": ["method", "path"]}  # the simulator's port changes from run to run


@pytest.mark.vcr
@pytest.mark.replaygate
def test_changed_prompt():
    question = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "new"}]}
    answer = requests.post("http://127.0.0.1:9/v1/messages", json=question, headers=HEADERS)
    assert answer.json()["content"]  # green on the old answer too: it would be stored
"""

STALE_MODEL_CASSETTE = """\
interactions:
- request:
    body: '{"max_tokens":8,"messages":[{"role":"user","content":"old"}],"model":"m"}'
    headers: {}
    method: POST
    uri: http://127.0.0.1:9/v1/messages
  response:
    body: {string: '{"content": [{"type": "text", "text": "echo: old"}]}'}
    headers: {Content-Type: [application/json]}
    status: {code: 200, message: OK}
version: 1
"""


def test_a_model_call_a_kept_cassette_answers_while_recording_fails_the_test_unstored(
    pytester: pytest.Pytester, forker: Forker
) -> None:
    """A test under both marks whose cassette still holds its model call, matched by
    method and path: recording, vcrpy would answer the changed prompt with the old
    answer, stored as the model's; the test fails naming the cassette, nothing stored."""
    pytester.makepyfile(test_stale=STALE_MODEL_CALL)
    cassettes = pytester.path / "cassettes" / "test_stale"
    cassettes.mkdir(parents=True)
    (cassettes / "test_changed_prompt.yaml").write_text(STALE_MODEL_CASSETTE)
    # the requests' base URL is the in-process simulator's, as a recording moves it
    result = runpytest_forked(
        pytester, forker, *FROM_THE_SIMULATOR, "-p", "no:randomly", "--tb=line"
    )
    result.assert_outcomes(failed=1)
    answered = "*POST /v1/messages was answered by vcrpy from the test's cassette *"
    result.stdout.fnmatch_lines([f"{answered}test_changed_prompt.yaml*"])
    assert not (pytester.path / "tests/fixtures/test_stale").exists()


WEATHER_RESOLVED_TO_THE_SIMULATOR = """
import os
import socket
import sys

_resolve = socket.getaddrinfo


def _weather_is_the_simulator(host, port, *args, **kwargs):
    # replaygate's block sees the lookup of the name first, as it would a real host's
    if host == "api.weather.example":
        sys.audit("socket.getaddrinfo", host, port, 0, 0, 0)
        host, port = "127.0.0.1", int(os.environ["SIM_PORT"])
    return _resolve(host, port, *args, **kwargs)


socket.getaddrinfo = _weather_is_the_simulator
"""

VCR_AND_MIGRATING = """
import pytest
import requests

BODY = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]}


@pytest.mark.vcr
def test_weather():
    answer = requests.post(
        "http://api.weather.example/v1/messages",
        json=BODY,
        headers={"x-api-key": "k", "anthropic-version": "2023-06-01"},
    ).json()
    assert answer["content"][0]["text"] == "echo: hi"


@pytest.mark.vcr
@pytest.mark.replaygate(expect_requests=False)
def test_migrating():
    pass
"""

WEATHER_CASSETTE = """\
interactions:
- request:
    body: null
    headers: {}
    method: POST
    uri: http://api.weather.example/v1/messages
  response:
    body: {string: '{"content": [{"type": "text", "text": "echo: hi"}]}'}
    headers: {Content-Type: [application/json]}
    status: {code: 200, message: OK}
version: 1
"""

NOT_REPLAYGATE = ("-m", "vcr and not replaygate")


@pytest.fixture
def weather(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A project of a ``vcr`` test and a migrating one (both marks), the weather API the
    first calls served by an echo simulator; the first test's cassette (not written)."""
    pytester.makeconftest(WEATHER_RESOLVED_TO_THE_SIMULATOR)
    pytester.makepyfile(test_vcr=VCR_AND_MIGRATING)
    with Simulator(behavior="echo") as sim:
        monkeypatch.setenv("SIM_PORT", sim.url.rsplit(":", 1)[1])
        yield pytester.path / "cassettes/test_vcr/test_weather.yaml"


def test_pytest_recording_records_in_a_run_selecting_no_test_using_replaygate(
    pytester: pytest.Pytester, forker: Forker, weather: Path
) -> None:
    """docs/migrating.md: a run selecting a test that carries both marks is offline, and
    the refusal of the other test's recording says why; one selecting
    ``-m "vcr and not replaygate"`` records the missing cassette."""
    offline = runpytest_forked(pytester, forker, "--record-mode=once")
    offline.assert_outcomes(failed=1, passed=1)
    why = (
        "the session is offline in replay, since it runs 1 test(s) using replaygate "
        "(test_vcr.py::test_migrating)"
    )
    offline.stdout.fnmatch_lines(
        [
            "*lookup of 'api.weather.example' refused (from conftest)*",
            f"*replaygate: test_vcr.py::test_weather does not use replaygate, but {why}, from "
            'the end of collection to its end.*pytest -m "not replaygate"*',
            f"1 attempt(s) refused: {why}; wire the client*",
        ]
    )
    assert not weather.exists()
    recorded = runpytest_forked(pytester, forker, *NOT_REPLAYGATE, "--record-mode=once")
    recorded.assert_outcomes(passed=1, deselected=1)
    assert "req_sim_0001_" in weather.read_text()  # what the simulator answered


def test_rewriting_cassettes_in_an_offline_session_is_refused_before_any_test_runs(
    pytester: pytest.Pytester, forker: Forker, weather: Path
) -> None:
    """pytest-recording's rewrite deletes a cassette before its test, which an offline
    session then cannot record again: such a session is a usage error, naming both
    options and what to run instead (under pytest-xdist too), and the cassette is kept.
    A run offline for no test rewrites it."""
    weather.parent.mkdir(parents=True)
    weather.write_text(WEATHER_CASSETTE)
    for xdist in ((), ("-n", "1")):
        refused = runpytest_forked(pytester, forker, "--record-mode=rewrite", *xdist)
        assert refused.ret == pytest.ExitCode.USAGE_ERROR, xdist
        said = refused.stderr.str() if not xdist else refused.stdout.str()
        assert (
            "pytest-recording's --record-mode=rewrite deletes the cassette of each vcr test "
            "before it runs, to record it anew, but the session is offline in replay, since "
            "it runs 1 test(s) using replaygate (test_vcr.py::test_migrating): the recording "
            "would be refused and the cassette lost (test_vcr.py::test_weather, "
            "test_vcr.py::test_migrating). Nothing was run." in said
        ), xdist
        assert '-m "vcr and not replaygate"' in said
        assert "--replaygate-record-mode=rerecord --replaygate-approve-live" in said
        assert weather.read_text() == WEATHER_CASSETTE, xdist
    rewritten = runpytest_forked(pytester, forker, *NOT_REPLAYGATE, "--record-mode=rewrite")
    rewritten.assert_outcomes(passed=1, deselected=1)
    assert weather.read_text() != WEATHER_CASSETTE


REWRITE_MARK = """
import pytest


@pytest.mark.vcr(record_mode="rewrite")
def test_old():
    pass


@pytest.mark.replaygate
def test_new():
    pass
"""


def test_a_vcr_mark_asking_rewrite_is_named_and_not_refused_without_pytest_recording(
    pytester: pytest.Pytester, forker: Forker
) -> None:
    """The refusal names the vcr mark that asks ``rewrite`` (it named --record-mode, not
    given); with pytest-recording left out (-p no:recording) nothing deletes a cassette,
    and the run goes on, where it was refused."""
    pytester.makepyfile(test_rw=REWRITE_MARK)
    refused = runpytest_forked(pytester, forker)
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    assert (
        "pytest-recording's record_mode='rewrite' of a vcr mark deletes the cassette of its "
        "test before it runs" in refused.stderr.str()
    )
    alone = runpytest_forked(
        pytester, forker, "-p", "no:recording", "-W", "ignore::pytest.PytestUnknownMarkWarning"
    )
    alone.assert_outcomes(passed=2)


def test_a_rewrite_set_in_vcr_config_fails_its_test_and_keeps_the_cassette(
    pytester: pytest.Pytester, forker: Forker, weather: Path
) -> None:
    """A ``record_mode`` of ``vcr_config`` is not known before the tests run: a test it
    gives ``rewrite`` in an offline session errors in its setup, before pytest-recording
    deletes its cassette, where the cassette was deleted and the recording refused."""
    rewrite = '\n\n@pytest.fixture\ndef vcr_config():\n    return {"record_mode": "rewrite"}\n'
    pytester.makeconftest(WEATHER_RESOLVED_TO_THE_SIMULATOR + "\nimport pytest\n" + rewrite)
    weather.parent.mkdir(parents=True)
    weather.write_text(WEATHER_CASSETTE)
    result = runpytest_forked(pytester, forker)
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(
        ["*record_mode 'rewrite' of vcr_config deletes the cassette of test_vcr.py::test_weather*"]
    )
    assert weather.read_text() == WEATHER_CASSETTE
