"""Odd values of the pytest plugin's options are usage errors naming the option, at once.

A spending cap of NaN compares false with every amount, so it capped nothing; a
negative one failed the first test with "spending cap reached" as if money had been
spent. An empty ``--replaygate-dir`` took the rootdir itself for the fixtures folder,
and one naming a file failed each test with "there is no store ...: record it first".
Each test runs pytest sessions of its own, so the module runs in ``make test``, not in
the inner loop.
"""

from __future__ import annotations

import pytest

from nested_pytest import sessions_loading

# Imported here, before any session the tests run in this process: a module a session
# imports first is dropped after it, and made anew by the next (a second Message class).
from replaygate import Fixture
from replaygate.fixtures import spending
from replaygate.fixtures.fixture import make_meta
from replaygate.fixtures.spending import amount_problem
from replaygate.models.replay import RequestSettings
from replaygate.models.types import Message

pytestmark = pytest.mark.slow


sessions_find_their_modules = sessions_loading("xdist")


RECORD = (
    "--replaygate-record-mode=record-missing",
    "--replaygate-approve-live",
    "--replaygate-simulator=echo",
)


@pytest.mark.parametrize("value", ["nan", "-1", "-inf"])
def test_a_spending_cap_that_is_no_amount_is_a_usage_error(
    pytester: pytest.Pytester, value: str
) -> None:
    pytester.makepyfile("def test_never(): raise AssertionError('ran')")
    result = pytester.runpytest(*RECORD, f"--replaygate-max-cost={value}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    problem = amount_problem(float(value))  # the one test of an amount, worded once
    assert problem is not None
    result.stderr.fnmatch_lines([f"*--replaygate-max-cost: {problem}"])


def test_a_spending_cap_in_the_ini_that_is_no_amount_names_the_setting(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeini("[pytest]\nreplaygate_max_cost = NaN\n")
    pytester.makepyfile("def test_never(): raise AssertionError('ran')")
    result = pytester.runpytest(*RECORD)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*tox.ini: replaygate_max_cost = 'NaN': nan is not an amount (a number, 0 or more)"]
    )


class _Options:
    """The two things ``spending_cap_option`` asks of a pytest config."""

    inipath = None

    def __init__(self, given: str | None) -> None:
        self.given = given

    def getoption(self, name: str, default: object = None) -> object:
        return self.given

    def getini(self, name: str) -> str:
        return ""


def test_the_plugin_tests_a_spending_cap_with_the_one_amount_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from replaygate.pytest_plugin.options import spending_cap_option

    config: object = _Options("1e308")
    assert spending_cap_option(config) == 1e308  # type: ignore[arg-type]
    monkeypatch.setattr(spending, "amount_problem", lambda value: f"{value!r} refused")
    with pytest.raises(pytest.UsageError, match=r"--replaygate-max-cost: 1e\+308 refused"):
        spending_cap_option(config)  # type: ignore[arg-type]


EMPTY = "*--replaygate-dir is empty: name the folder of the fixture stores*"


@pytest.mark.parametrize(
    ("mode", "folder", "message"),
    [
        ((), "", EMPTY),
        (RECORD, "", EMPTY),
        ((), "  ", EMPTY),
        ((), "notes.txt", "*--replaygate-dir: *notes.txt is a file, where a folder is expected"),
        ((), "/dev/null", "*--replaygate-dir: /dev/null is a device, where a folder is expected"),
        ((), "loop/sub", "*loop/sub is under *loop, which is a symlink loop, where a folder is*"),
        ((), "gone", "*--replaygate-dir: *gone is a symlink to 'nowhere', which does not exist*"),
        (RECORD, "tests\\fixtures", "*--replaygate-dir: *separates folders with a backslash*"),
        ((), "Stores", "*--replaygate-dir Stores: *Stores is not there, but *stores is: their*"),
    ],
    ids=[
        "empty",
        "empty, recording",
        "blank",
        "a file",
        "a device",
        "a loop",
        "a dangling link",
        "a backslash, recording",
        "another case",
    ],
)
def test_a_fixtures_folder_that_is_none_is_a_usage_error(
    pytester: pytest.Pytester, mode: tuple[str, ...], folder: str, message: str
) -> None:
    # Recording into a file names each test's store instead (test_http_plugin.py).
    pytester.path.joinpath("notes.txt").write_text("my notes\n")
    pytester.path.joinpath("loop").symlink_to("loop")
    pytester.path.joinpath("gone").symlink_to("nowhere")
    pytester.path.joinpath("stores").mkdir()  # the folder a macOS checkout took Stores for
    pytester.makepyfile("def test_never(): raise AssertionError('ran')")
    result = pytester.runpytest(*mode, f"--replaygate-dir={folder}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    assert pytester.path.joinpath("notes.txt").read_text() == "my notes\n"


SAMPLED = """
import pytest

@pytest.mark.sampled(n=3, floor=2)
def test_sampled(replaygate_sample):
    assert replaygate_sample != 1
"""


@pytest.mark.parametrize(
    ("options", "option"),
    [
        (["--sampling-results=/dev/full"], "--sampling-results"),
        (["--flaky-runs=2", "--flaky-report=/dev/full"], "--flaky-report"),
    ],
)
def test_a_result_file_that_cannot_be_written_fails_the_session_saying_so(
    pytester: pytest.Pytester, options: list[str], option: str
) -> None:
    # A full disk at the end of the session ended pytest in a traceback from the plugin.
    pytester.makepyfile(SAMPLED)
    result = pytester.runpytest(*options)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [f"replaygate: {option}: cannot write /dev/full: No space left on device*"]
    )
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


REPLAYS = """
from replaygate import ReplayModel
from replaygate.models.types import Message


def test_replays():
    model = ReplayModel("store.jsonl", model="m", max_tokens=8)
    assert model.complete([Message.user("hi")], []).stop_reason == "end_turn"
"""


def _replaying_project(pytester: pytest.Pytester) -> None:
    request = RequestSettings(model="m", max_tokens=8).build([Message.user("hi")], [])
    response = {"type": "message", "role": "assistant", "content": [], "stop_reason": "end_turn"}
    meta = make_meta("anthropic.messages", "2023-06-01", "hand")
    pytester.path.joinpath("store.jsonl").write_bytes(
        Fixture.create(request, [response], meta).to_line()
    )
    pytester.makepyfile(REPLAYS)


@pytest.mark.native_tracebacks  # the sessions' failures in Python's form: the plugin's words
@pytest.mark.parametrize("where", [".replaygate", ".replaygate/hits", ".replaygate/hits/proc"])
def test_a_hits_log_that_cannot_be_written_fails_the_session_saying_so(
    pytester: pytest.Pytester, where: str
) -> None:
    # It ended the session in an INTERNALERROR once the first test that replayed ran.
    _replaying_project(pytester)
    blocked = pytester.path / where
    blocked.parent.mkdir(parents=True, exist_ok=True)
    if where.endswith("proc"):  # a folder no file can be made in
        pytester.path.joinpath(".replaygate/hits").rmdir()
        pytester.path.joinpath(".replaygate/hits").symlink_to("/proc/1")
    else:
        blocked.write_text("notes\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["replaygate: cannot write the hits log: *.replaygate*: *; patrol and prune do not see*"]
    )
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    if not where.endswith("proc"):
        assert blocked.read_text() == "notes\n"


ASKS = """
import httpx2
import pytest


@pytest.mark.replaygate
def test_asks():
    body = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]}
    headers = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
    reply = httpx2.post("https://api.anthropic.com/v1/messages", json=body, headers=headers)
    assert reply.json()["content"][0]["text"] == "echo: hi"
"""


def test_what_a_worker_refuses_reaches_the_controller(pytester: pytest.Pytester) -> None:
    # a hits log the worker cannot write: its failed status and its summary never reached
    # the controller (the run passed, and prune took what it replayed for unused); a
    # sampled declaration it refused at collection: the controller stopped on an
    # INTERNALERROR, the reason never shown; the requests its simulator answered: the
    # controller's summary said it answered none (one worker session serves all three)
    _replaying_project(pytester)
    pytester.path.joinpath(".replaygate").write_text("notes\n")
    pytester.makepyfile(
        test_sampled="import pytest\n\n@pytest.mark.sampled(n=0, floor=1)\n"
        "def test_never(replaygate_sample):\n    pass\n",
        test_asks=ASKS,
    )
    from forked_xdist_workers import workers_forked  # execnet: the slow tests' alone

    with workers_forked():  # a process of its own, forked from a preloaded interpreter
        result = pytester.runpytest("-p", "xdist", "-n", "1", *RECORD)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["recorded from the simulator (echo, seed 7): it answered 1 request(s)"]
    )
    result.stdout.fnmatch_lines(["replaygate: cannot write the hits log: *.replaygate*"])
    result.stdout.fnmatch_lines(
        ["ERROR test_sampled.py::test_never - Failed: test_sampled.py::test_never: *"]
    )
    assert "@pytest.mark.sampled: n must be at least 1, got 0" in result.stdout.str()
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


@pytest.mark.parametrize("given", ["yes", {"ids": True}, True])
def test_a_sanitize_setting_that_is_no_config_fails_the_test_naming_it(given: object) -> None:
    # a TypeError traceback from deep in the session's set-up, with no word of the fixture
    from replaygate.pytest_plugin.settings import config_settings

    with pytest.raises(pytest.fail.Exception) as failed:
        config_settings({"sanitize": given}, "test_a.py::test_a")
    assert str(failed.value).startswith(
        "replaygate_config (used by test_a.py::test_a): sanitize must be a SanitizeConfig or a "
        "Sanitizer (replaygate.sanitize) or None, not "
    )


def test_a_sanitize_config_is_taken() -> None:
    from replaygate.pytest_plugin.settings import config_settings
    from replaygate.sanitize import SanitizeConfig, Sanitizer

    for given in (SanitizeConfig(ids=True), Sanitizer(SanitizeConfig()), None):
        assert config_settings({"sanitize": given}, "t")["sanitize"] is given


def test_an_output_path_written_on_windows_is_a_usage_error(pytester: pytest.Pytester) -> None:
    # an addopts written on Windows wrote a file named 'reports\s.json' where pytest ran
    pytester.makepyfile("def test_never(): raise AssertionError('ran')")
    result = pytester.runpytest("--sampling-results=reports\\s.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--sampling-results: 'reports*s.json' separates folders with a backslash*"]
    )
    assert not list(pytester.path.glob("reports*"))


@pytest.mark.parametrize(
    "option", ["--replaygate-dir=~/fixtures", "--sampling-results=~/results.json"]
)
def test_a_path_option_whose_tilde_no_shell_expanded_is_a_usage_error(
    pytester: pytest.Pytester, option: str
) -> None:
    # after an = the shell leaves ~ as it is: a folder named ~ was made in the rootdir
    pytester.makepyfile("def test_never(): raise AssertionError('ran')")
    result = pytester.runpytest(option)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    flag, given = option.split("=")
    result.stderr.fnmatch_lines([f"*{flag}: '{given}': the ~ was not expanded*"])
    assert not (pytester.path / "~").exists()
