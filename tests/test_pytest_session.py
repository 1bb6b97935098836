"""The pytest plugin's session: recording from its simulator, ``replaygate_config``, the
spending cap, and a miss naming the pytest command that re-records the test."""

from __future__ import annotations

import re
import shlex
import subprocess

import pytest

from nested_pytest import sessions_loading
from replaygate.fixtures.store import FixtureStore
from sdks import anthropic, openai

# Each test runs pytest itself on a project of its own (pytester): end to end.
pytestmark = [pytest.mark.slow, pytest.mark.native_tracebacks]


sessions_find_their_modules = sessions_loading(anthropic, openai, "requests")


ASK = """
import pytest


def ask(client, text, max_tokens=16):
    reply = client.messages.create(
        model="claude-sonnet-4-6", max_tokens=max_tokens,
        messages=[{"role": "user", "content": text}],
    )
    return reply.content[0].text
"""

SIM_TESTS = (
    ASK
    + """

def test_anthropic(anthropic_client):
    assert ask(anthropic_client(), "hi") == "echo: hi"


def test_openai(openai_client):
    reply = openai_client().chat.completions.create(
        model="gpt-4o", messages=[{"role": "user", "content": "yo"}]
    )
    assert reply.choices[0].message.content == "echo: yo"
"""
)

RECORD = ("--replaygate-record-mode=record-missing", "--replaygate-approve-live")


def stored(pytester: pytest.Pytester, module: str, test: str) -> FixtureStore:
    return FixtureStore.open(pytester.path / "tests/fixtures" / module / f"{test}.jsonl")


def test_recording_from_the_simulator_then_replaying_offline(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_simulated=SIM_TESTS)
    recorded = pytester.runpytest(*RECORD, "--replaygate-simulator=echo")
    recorded.assert_outcomes(passed=2)
    recorded.stdout.fnmatch_lines(
        [
            "*replaygate recording*",
            "recorded from the simulator (echo, seed 7): it answered 2 request(s)",
        ]
    )
    assert "spent" not in recorded.stdout.str()  # the simulator costs nothing: no cap
    for test in ("test_anthropic", "test_openai"):
        assert [(f.meta or {}).get("source") for f in stored(pytester, "test_simulated", test)] == [
            "sim"
        ]
    # replay ignores the simulator option: nothing is started, the fixtures answer
    replayed = pytester.runpytest("--replaygate-simulator=echo")
    replayed.assert_outcomes(passed=2)
    assert "recorded from the simulator" not in replayed.stdout.str()


def test_a_script_from_the_ini_answers_with_a_tool_call(pytester: pytest.Pytester) -> None:
    pytester.makeini(
        "[pytest]\nreplaygate_simulator = script:answers.jsonl\nreplaygate_sim_seed = 3\n"
    )
    pytester.path.joinpath("answers.jsonl").write_text(
        '{"tool_calls": [{"id": "t1", "name": "search", "arguments": {"q": "rag"}}]}\n'
        '{"text": "RAG retrieves, then generates."}\n'
    )
    pytester.makepyfile(
        test_script="""
        def test_tool_then_answer(anthropic_client):
            client = anthropic_client()
            first = client.messages.create(model="m", max_tokens=8,
                                           messages=[{"role": "user", "content": "rag?"}])
            assert first.stop_reason == "tool_use" and first.content[0].input == {"q": "rag"}
            second = client.messages.create(model="m", max_tokens=8,
                                            messages=[{"role": "user", "content": "more"}])
            assert second.content[0].text == "RAG retrieves, then generates."
        """
    )
    result = pytester.runpytest(*RECORD, "--replaygate-max-cost=1")
    result.assert_outcomes(failed=1)  # model "m" has no price: the explicit cap refuses it
    result.stdout.fnmatch_lines(["*no price for model 'm'*"])
    result = pytester.runpytest(*RECORD)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        ["recorded from the simulator (script:answers.jsonl, seed 3): it answered 2 request(s)"]
    )


def test_a_recording_failed_on_an_answer_from_the_store_says_to_record_it_anew(
    pytester: pytest.Pytester,
) -> None:
    # recorded again from a script after echo's answer failed it, the test failed on
    # echo's answer, replayed from its store, with no word of it, and nothing was recorded
    pytester.makepyfile(
        test_answer=ASK + "\n\ndef test_answer(anthropic_client):\n"
        "    assert ask(anthropic_client(), 'rag?') == 'RAG.'\n"
    )
    pytester.path.joinpath("answers.jsonl").write_text('{"text": "RAG."}\n')
    pytester.runpytest(*RECORD, "--replaygate-simulator=echo").assert_outcomes(failed=1)
    script = "--replaygate-simulator=script:answers.jsonl"
    again = pytester.runpytest(*RECORD, script)
    again.assert_outcomes(failed=1)
    again.stdout.fnmatch_lines(
        [
            "replaygate: 1 of this test's requests were answered from its store and not "
            "asked again (record-missing sends only the requests the store lacks): *record "
            "the test anew: `pytest --replaygate-record-mode=rerecord --replaygate-approve-live "
            f"{script}` (run it as the script was recorded*",
        ]
    )
    anew = pytester.runpytest("--replaygate-record-mode=rerecord", RECORD[1], script)
    anew.assert_outcomes(passed=1)


def test_a_session_that_recorded_nothing_does_not_say_it_recorded(
    pytester: pytest.Pytester,
) -> None:
    # a module failing at import said "recorded from the simulator (echo, seed 7)"
    pytester.makepyfile(test_broken="raise RuntimeError('set ANTHROPIC_API_KEY')")
    result = pytester.runpytest(*RECORD, "--replaygate-simulator=echo")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["the simulator (echo, seed 7) answered no request: nothing was recorded from it"]
    )
    assert "recorded from the simulator" not in result.stdout.str()


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("--replaygate-simulator=parrot", "*unknown behavior 'parrot'*"),
        ("--replaygate-simulator=script:missing.jsonl", "*missing.jsonl: cannot read script*"),
        (  # an ini written on Windows: no such file on Linux, said as such
            "--replaygate-simulator=script:data\\answers.jsonl",
            "*script:'data*answers.jsonl' separates folders with a backslash*",
        ),
        ("--replaygate-sim-seed=x", "*--replaygate-sim-seed: invalid integer value: 'x'*"),
    ],
)
def test_a_bad_simulator_setting_is_a_usage_error(
    pytester: pytest.Pytester, setting: str, message: str
) -> None:
    pytester.makepyfile("def test_never(): raise AssertionError('ran')")
    result = pytester.runpytest(*RECORD, setting)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


def test_a_test_path_read_as_the_simulator_behaviour_is_a_usage_error_in_replay_too(
    pytester: pytest.Pytester,
) -> None:
    # the option's value is optional: "--replaygate-simulator test_one.py" read the path as
    # the behaviour, and a replay (no simulator) ran the whole suite instead of that file
    pytester.makepyfile(test_one="def test_one(): pass", test_other="def test_other(): pass")
    for mode in ([], RECORD):
        result = pytester.runpytest(*mode, "--replaygate-simulator", "test_one.py")
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        result.stderr.fnmatch_lines(["*read 'test_one.py' as its behaviour*test path*"])
    pytester.runpytest("test_one.py", "--replaygate-simulator").assert_outcomes(passed=1)


def test_a_bad_ini_cost_is_a_usage_error_naming_the_setting(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nreplaygate_max_cost = lots\n")
    pytester.makepyfile("def test_never(): raise AssertionError('ran')")
    result = pytester.runpytest(*RECORD)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*tox.ini: replaygate_max_cost = 'lots' is not a number"])


CONFIG_TESTS = """
import pytest


def ask(client):
    return client.messages.create(
        model="m", max_tokens=8, messages=[{"role": "user", "content": "again"}]
    ).content[0].text


@pytest.fixture
def replaygate_config(replaygate_config):
    return {**replaygate_config, "note": "module"}


def test_module_note(anthropic_client):
    assert ask(anthropic_client()) == "echo: again"


@pytest.mark.replaygate(note="marker", repeat_last=False)
def test_marker_note(anthropic_client):
    assert ask(anthropic_client()) == "echo: again"
"""

CONFTEST = """
import pytest


@pytest.fixture
def replaygate_config():
    return {"note": "conftest", "repeat_last": True, "cap": None}
"""


def test_replaygate_config_from_conftest_module_and_marker(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(
        test_layers=CONFIG_TESTS,
        test_plain="""
        def test_conftest_note(anthropic_client):
            client = anthropic_client()
            for _ in range(2):
                client.messages.create(model="m", max_tokens=8,
                                       messages=[{"role": "user", "content": "x"}])
        """,
    )
    pytester.runpytest(*RECORD, "--replaygate-simulator=echo").assert_outcomes(passed=3)
    notes = {
        test: (next(iter(stored(pytester, module, test))).meta or {}).get("note")
        for module, test in [
            ("test_layers", "test_module_note"),
            ("test_layers", "test_marker_note"),
            ("test_plain", "test_conftest_note"),
        ]
    }
    assert notes == {
        "test_module_note": "module",
        "test_marker_note": "marker",
        "test_conftest_note": "conftest",
    }
    # replaying, the conftest's repeat_last answers the second send; the marker turns it off
    pytester.makepyfile(
        test_layers=CONFIG_TESTS.replace(
            'assert ask(anthropic_client()) == "echo: again"',
            "client = anthropic_client()\n    assert ask(client) == ask(client)",
        )
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*_ test_marker_note _*", "*recorded 1 time and sent 2 times*"])


WRONG_CONFIGS = {
    "approve_live": (
        '{"approve_live": True}',
        "approve_live cannot be configured: approve a recording on the command line",
    ),
    "misspelled": (
        '{"match_hots": True}',
        "unknown key(s) match_hots (it takes match_host, source,",
    ),
    "not_a_flag": ('{"repeat_last": "yes"}', "repeat_last must be True or False"),
    "not_a_dict": ('[("note", "x")]', "must return a dict, not a list"),
    "not_a_cap": (
        '{"cap": 5.0}',
        "cap must be a SpendingCap (replaygate.fixtures.spending) or None",
    ),
}


def test_a_wrong_replaygate_config_fails_the_test_naming_it(pytester: pytest.Pytester) -> None:
    """Each module's ``replaygate_config`` returns one wrong setting: one session runs them."""
    pytester.makepyfile(
        **{
            f"test_{name}": f"""
            import pytest

            @pytest.fixture
            def replaygate_config():
                return {config}

            def test_x(replaygate_exchange):
                pass
            """
            for name, (config, _) in WRONG_CONFIGS.items()
        }
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=len(WRONG_CONFIGS))
    for name, (_, message) in WRONG_CONFIGS.items():
        result.stdout.fnmatch_lines(
            [f"replaygate_config (used by test_{name}.py::test_x)*{message}*"]
        )


CAP_TESTS = (
    ASK
    + """

def test_a_first(anthropic_client):
    assert ask(anthropic_client(), "small") == "echo: small"


def test_b_big(anthropic_client):
    ask(anthropic_client(), "big", max_tokens=4000)


def test_c_later(anthropic_client):
    ask(anthropic_client(), "big again", max_tokens=4000)
"""
)


def test_the_session_cap_stops_recording_across_tests(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_cap=CAP_TESTS)
    result = pytester.runpytest(
        *RECORD, "--replaygate-simulator=echo", "--replaygate-max-cost=0.01"
    )
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*_ test_b_big _*",
            "spending cap reached: 0.0001 of 0.01 USD spent on 1 recorded call; the next call "
            "to 'claude-sonnet-4-6' could cost up to 0.06* and was not sent. Everything "
            "recorded so far is kept. Raise the cap (--replaygate-max-cost, ini "
            "replaygate_max_cost, or max_cost in [[]tool.replaygate]) to record the rest.",
            "*_ test_c_later _*",
            "spending cap reached: 0.0001 of 0.01 USD spent on 1 recorded call;*",
            "0.0001 of 0.01 USD spent on 1 recorded call (prices: *)",
        ]
    )
    assert "--max-cost," not in result.stdout.str()  # the command line's option, not pytest's
    assert not stored(pytester, "test_cap", "test_b_big").path.exists()


def test_the_cap_defaults_to_the_project_then_to_five(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_cap="def test_x(replaygate_mode): pass")
    pytester.runpytest(*RECORD).stdout.fnmatch_lines(
        ["0.0000 of 5.00 USD spent on 0 recorded calls*"]
    )
    pytester.makepyprojecttoml("[tool.replaygate]\nmax_cost = 0.25\n")
    pytester.runpytest(*RECORD).stdout.fnmatch_lines(
        ["0.0000 of 0.25 USD spent on 0 recorded calls*"]
    )


def test_tests_recording_with_the_cap_turned_off_are_counted_apart(
    pytester: pytest.Pytester,
) -> None:
    # the summary said "0.0000 of 5.00 USD spent on 0 recorded calls" whatever a test
    # given "cap": None recorded, as if it had spent nothing
    pytester.makepyfile(
        test_cap="""
        import pytest

        @pytest.fixture
        def replaygate_config():
            return {"cap": None}

        def test_x(replaygate_exchange):
            pass
        """
    )
    pytester.runpytest(*RECORD).stdout.fnmatch_lines(
        [
            "0.0000 of 5.00 USD spent on 0 recorded calls*",
            '1 test(s) recorded with the cap turned off ("cap": None in their '
            "replaygate_config): what they spent is not counted above",
        ]
    )


def test_a_miss_names_the_pytest_command_that_records_the_test(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_miss=SIM_TESTS)
    pytester.runpytest(*RECORD, "--replaygate-simulator=echo").assert_outcomes(passed=2)
    pytester.makepyfile(test_miss=SIM_TESTS.replace('"hi") == "echo: hi"', '"hey") == "echo: hey"'))
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*no fixture recorded for this HTTP request*",
            "*body.messages?0?.content: 'hi' != 'hey'*",
            "*re-record: `pytest 'test_miss.py::test_anthropic' "
            "--replaygate-record-mode=record-missing --replaygate-approve-live`*",
            "*recorded from the simulator*add `--replaygate-simulator=NAME` (NAME the behaviour "
            "it was recorded with: research-copilot, the default, echo or script:FILE) to "
            "record from*",
        ]
    )
    assert "replaygate record" not in result.stdout.str()
    # with this run's folder and simulator, the command it names records just that test
    options = ("--replaygate-dir=recorded", "--replaygate-simulator=echo")
    pytester.runpytest(*options, *RECORD).assert_outcomes(passed=2)
    pytester.makepyfile(test_miss=SIM_TESTS)
    missed = pytester.runpytest(*options)
    missed.assert_outcomes(failed=1, passed=1)
    named = re.search(r"re-record: `(pytest [^`]+)`", missed.stdout.str())
    assert named is not None
    pytester.runpytest(*shlex.split(named.group(1))[1:]).assert_outcomes(passed=1)
    pytester.runpytest(*options).assert_outcomes(passed=2)
    assert named.group(1) == (
        "pytest 'test_miss.py::test_anthropic' --replaygate-record-mode=record-missing "
        "--replaygate-approve-live --replaygate-dir=recorded --replaygate-simulator=echo"
    )


def test_the_misses_of_a_run_are_listed_at_its_end_with_one_command_for_all(
    pytester: pytest.Pytester,
) -> None:
    options = ("--replaygate-simulator=echo",)
    pytester.makepyfile(test_miss=SIM_TESTS)
    first = pytester.runpytest(*options)  # never recorded: nothing to revert
    first.assert_outcomes(failed=2)
    first.stdout.fnmatch_lines(
        [
            "test_miss.py::test_anthropic: not recorded yet (no store, or an empty one)",
            "Record them all in one run: `pytest --lf --replaygate-record-mode=record-missing*",
        ]
    )
    assert "Otherwise revert the change" not in first.stdout.str()
    pytester.runpytest(*options, *RECORD).assert_outcomes(passed=2)
    changed = SIM_TESTS.replace('"hi") ==', '"hey") ==').replace('"yo"}]', '"yo"}], n=1')
    pytester.makepyfile(test_miss=changed.replace('== "echo: hi"', '== "echo: hey"'))
    missed = pytester.runpytest(*options)
    missed.assert_outcomes(failed=2)
    missed.stdout.fnmatch_lines(
        [
            "*replaygate: 2 test(s) missed their fixtures*",
            "test_miss.py::test_anthropic: body.messages[[]0[]].content",
            "test_miss.py::test_openai: body.n",
            "If the change was meant (an edited prompt, an SDK upgrade that sends a new field), "
            "record them all in one run: `pytest --lf --replaygate-record-mode=record-missing "
            "--replaygate-approve-live --replaygate-simulator=echo`*",
        ]
    )
    whole = re.search(r"all in one run: `(pytest [^`]+)`", missed.stdout.str())
    assert whole is not None
    pytester.runpytest(*shlex.split(whole.group(1))[1:]).assert_outcomes(passed=2)
    passed = pytester.runpytest(*options)
    passed.assert_outcomes(passed=2)
    assert "missed their fixtures" not in passed.stdout.str()


def test_without_pytest_s_cache_the_command_for_all_misses_names_them(
    pytester: pytest.Pytester,
) -> None:
    """A run under ``-p no:cacheprovider`` keeps no list of its failures: its ``--lf``
    reran every test (or those of an older run), so a ``rerecord`` recorded them all."""
    options = ("-p", "no:cacheprovider", "--replaygate-simulator=echo")
    pytester.makepyfile(test_miss=SIM_TESTS + "\n\ndef test_plain():\n    pass\n")
    missed = pytester.runpytest(*options)
    missed.assert_outcomes(failed=2, passed=1)
    whole = re.search(r"all in one run: `(pytest [^`]+)`", missed.stdout.str())
    assert whole is not None and "--lf" not in whole.group(1)
    pytester.runpytest(*shlex.split(whole.group(1))[1:]).assert_outcomes(passed=2)


def test_a_cache_that_cannot_be_written_names_the_tests_too(pytester: pytest.Pytester) -> None:
    """A read-only checkout's run keeps no list of its failures either (pytest only warns
    it could not write its cache): ``--lf`` there reran every test, or an older run's."""
    (pytester.path / "blocker").write_text("a file where the cache's folder goes")
    options = ("-o", "cache_dir=blocker/cache", "--replaygate-simulator=echo")
    pytester.makepyfile(test_miss=SIM_TESTS)
    missed = pytester.runpytest(*options)
    missed.assert_outcomes(failed=2)
    whole = re.search(r"all in one run: `(pytest [^`]+)`", missed.stdout.str())
    assert whole is not None and "--lf" not in whole.group(1), missed.stdout.str()
    assert "test_miss.py::test_anthropic' 'test_miss.py::test_openai' " in whole.group(1)


def test_in_ci_the_command_for_all_misses_names_the_tests(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A CI log's command is run on a developer's machine, where ``--lf`` reruns that
    machine's own last failures."""
    monkeypatch.setenv("CI", "true")
    pytester.makepyfile(test_miss=SIM_TESTS)
    missed = pytester.runpytest("--replaygate-simulator=echo")
    missed.assert_outcomes(failed=2)
    whole = re.search(r"all in one run: `(pytest [^`]+)`", missed.stdout.str())
    assert whole is not None and "--lf" not in whole.group(1), missed.stdout.str()
    assert "test_miss.py::test_anthropic' 'test_miss.py::test_openai' " in whole.group(1)


def test_a_rerun_of_a_test_that_missed_fails_instead_of_passing(
    pytester: pytest.Pytester,
) -> None:
    """pytest-rerunfailures ran a test that missed again, and an attempt that sent nothing
    the store lacks passed: the run ended green, the miss a rerun. A miss is not retried."""
    pytester.makepyfile(
        test_rerun=ASK
        + """
ATTEMPTS = []

@pytest.mark.flaky(reruns=2)
def test_changing(anthropic_client):
    ATTEMPTS.append(1)
    if len(ATTEMPTS) == 1:  # the first attempt sends what was never recorded
        ask(anthropic_client(), "hi")

@pytest.mark.flaky(reruns=1)
def test_flaky_otherwise():
    ATTEMPTS.append(2)
    assert ATTEMPTS.count(2) > 1
"""
    )
    result = pytester.runpytest("-p", "pytest_rerunfailures", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=1, passed=1)
    assert result.parseoutcomes()["rerun"] == 3
    result.stdout.fnmatch_lines(
        [
            "*ERROR at setup of test_changing*",
            "replaygate: test_rerun.py::test_changing missed its fixtures in an earlier "
            "attempt of this run (not recorded yet*never retried (law 2)*",
            "test_rerun.py::test_changing: not recorded yet*",
        ]
    )


def test_a_renamed_test_s_miss_names_the_store_its_old_name_recorded(
    pytester: pytest.Pytester,
) -> None:
    """A test renamed after recording missed with 'record it first' alone, though its
    request was recorded in the store of its old name: the miss names that store."""
    pytester.makepyfile(test_renamed=SIM_TESTS)
    pytester.runpytest(*RECORD, "--replaygate-simulator=echo").assert_outcomes(passed=2)
    pytester.makepyfile(test_renamed=SIM_TESTS.replace("def test_anthropic(", "def test_claude("))
    result = pytester.runpytest()
    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines(
        [
            "*there is no store at *test_claude.jsonl: record it first*",
            "*replaygate: a fixture of this request (key *) is recorded in "
            "tests/fixtures/test_renamed/test_anthropic.jsonl: if the test was renamed or moved "
            "since it was recorded, move its store to "
            "tests/fixtures/test_renamed/test_claude.jsonl (git mv) rather than record it again.",
        ]
    )
    # the list of misses said only to record them all, paying again for what is recorded
    result.stdout.fnmatch_lines(
        [
            "test_renamed.py::test_claude: its request is recorded in "
            "tests/fixtures/test_renamed/test_anthropic.jsonl: if the test was renamed or "
            "moved since, move that store first, `git mv "
            "tests/fixtures/test_renamed/test_anthropic.jsonl "
            "tests/fixtures/test_renamed/test_claude.jsonl`, rather than record it again; the "
            "command below then records only what is still missing.",
            "Record them all in one run: *",
        ]
    )


def test_a_test_moved_to_another_module_is_told_to_make_the_folder_git_mv_needs(
    pytester: pytest.Pytester,
) -> None:
    """``git mv`` makes no folder: the move the list of misses says makes the new
    module's folder of stores first, where it is not there."""
    pytester.makepyfile(test_before=SIM_TESTS)
    pytester.runpytest(*RECORD, "--replaygate-simulator=echo").assert_outcomes(passed=2)
    (pytester.path / "test_before.py").rename(pytester.path / "test_after.py")
    result = pytester.runpytest()
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "test_after.py::test_anthropic: its request is recorded in *: if the test was "
            "renamed or moved since, move that store first, `mkdir -p tests/fixtures/test_after "
            "&& git mv tests/fixtures/test_before/test_anthropic.jsonl "
            "tests/fixtures/test_after/test_anthropic.jsonl`, *",
        ]
    )


def test_a_recording_into_stores_git_ignores_says_so(pytester: pytest.Pytester) -> None:
    """A store a .gitignore rule ignores was recorded into in silence: no commit held it,
    and every checkout elsewhere (CI) missed its fixtures. The recording's summary names
    it, with the rule; a store git tracks is no concern of it."""
    subprocess.run(["git", "init", "-q", "--template="], cwd=pytester.path, check=True)
    (pytester.path / ".gitignore").write_text("*.lock\n*.jsonl\n", encoding="utf-8")
    pytester.makepyfile(test_ignored=SIM_TESTS)
    result = pytester.runpytest(*RECORD, "--replaygate-simulator=echo")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        [
            "2 store file(s) recorded into are ignored by git: "
            "tests/fixtures/test_ignored/*.jsonl (.gitignore:2: [*].jsonl), *. A commit leaves "
            "them out, and a checkout elsewhere (CI) misses their fixtures: commit them "
            "(`git add -f FILE`), or un-ignore them at the rule named",
        ]
    )


def test_a_miss_names_the_folder_store_that_recorded_its_request(
    pytester: pytest.Pytester,
) -> None:
    """A test whose store is a folder, renamed with its store after recording: the miss
    names the folder store holding its request, as it names a ``.jsonl`` store."""
    marked = SIM_TESTS.replace(
        "def test_anthropic(", '@pytest.mark.replaygate(fixtures="claude")\ndef test_anthropic('
    )
    pytester.makepyfile(test_folder=marked)
    pytester.runpytest(*RECORD, "--replaygate-simulator=echo").assert_outcomes(passed=2)
    assert list((pytester.path / "tests/fixtures/claude").glob("*@*/*.json"))
    pytester.makepyfile(test_folder=marked.replace('fixtures="claude"', 'fixtures="sonnet"'))
    result = pytester.runpytest()
    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines(
        ["*replaygate: a fixture of this request (key *) is recorded in tests/fixtures/claude: *"]
    )


def test_a_teardown_sending_through_a_closed_factory_client_is_told_why(
    pytester: pytest.Pytester,
) -> None:
    """A fixture set up before anthropic_client that sent in its teardown through a client
    the factory made failed with the SDK's 'Connection error.' alone: the factory had
    closed it. The error now says so, and what to ask for."""
    pytester.makepyfile(
        test_late=ASK
        + """
@pytest.fixture
def keeper():
    kept = []
    yield kept
    ask(kept[0], "bye")

def test_late(keeper, anthropic_client):
    keeper.append(anthropic_client(max_retries=0))
"""
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*APIConnectionError: Connection error.",
            "replaygate: this client was closed: anthropic_client closes the clients it made "
            "as it is torn down*(`def my_fixture(anthropic_client):`)*",
        ]
    )


def test_a_bad_project_config_is_a_usage_error_when_recording(pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml('[tool.replaygate]\nmax_cost = "lots"\n')
    pytester.makepyfile("def test_never(): raise AssertionError('ran')")
    result = pytester.runpytest(*RECORD)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*replaygate: *pyproject.toml*max_cost*"])
    pytester.runpytest().assert_outcomes(failed=1)  # replaying reads no spending settings


def test_recording_from_the_simulator_never_reaches_beyond_loopback(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        test_elsewhere="""
        import anthropic
        import httpx2

        def test_own_client(replaygate_intercept):
            client = anthropic.Anthropic(api_key="k", max_retries=0)
            reply = client.messages.create(model="m", max_tokens=8,
                                           messages=[{"role": "user", "content": "hi"}])
            assert reply.content[0].text == "echo: hi"

        def test_a_page_elsewhere(replaygate_intercept):
            httpx2.get("https://docs.example.com/page")
        """
    )
    result = pytester.runpytest(*RECORD, "--replaygate-simulator=echo")
    result.assert_outcomes(passed=1, failed=1)
    # the client built for the real API was answered by the simulator ("echo: hi"),
    # and its request recorded as sent
    stored = pytester.path / "tests/fixtures/test_elsewhere/test_own_client.jsonl"
    (fixture,) = FixtureStore.open(stored)
    assert fixture.request["path"] == "/v1/messages"
    assert fixture.meta is not None and fixture.meta["source"] == "sim"
    # any other request is refused, naming its host, and nothing of it is kept
    result.stdout.fnmatch_lines(["*lookup of 'docs.example.com' refused*"])
    assert not (stored.parent / "test_a_page_elsewhere.jsonl").exists()


def test_no_test_settings_relabel_the_simulator_or_lift_the_runs_cap(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest(
        """
import pytest


@pytest.fixture
def replaygate_config():
    return {"source": "live", "cap": None}
"""
    )
    pytester.makepyfile(test_cap=CAP_TESTS)
    result = pytester.runpytest(
        *RECORD, "--replaygate-simulator=echo", "--replaygate-max-cost=0.01"
    )
    result.assert_outcomes(passed=1, failed=2)  # the command line's cap holds
    result.stdout.fnmatch_lines(["*spending cap reached*"])
    (fixture,) = stored(pytester, "test_cap", "test_a_first")
    assert (fixture.meta or {}).get("source") == "sim"


def test_a_tiny_cap_is_shown_as_given_and_its_failure_once(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_tiny=ASK
        + "\n\ndef test_x(anthropic_client):\n    ask(anthropic_client(), 'big', max_tokens=4000)\n"
    )
    # -rN: no short summary, which repeats a failure's message whole where CI is set
    result = pytester.runpytest(
        *RECORD, "--replaygate-simulator=echo", "--replaygate-max-cost=0.001", "-rN"
    )
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert out.count("spending cap reached: 0.0000 of 0.001 USD spent on 0 recorded calls;") == 1
    assert "During handling" not in out
    result.stdout.fnmatch_lines(["0.0000 of 0.001 USD spent on 0 recorded calls (prices: *)"])


HINT_TESTS = (
    ASK
    + """

def test_asks(anthropic_client):
    client = anthropic_client()
    for _ in range(ASKS):
        assert ask(client, "again") == "echo: again"


def test_streams(anthropic_client):
    client = anthropic_client()
    with client.messages.stream(
        model="claude-sonnet-4-6", max_tokens=16, messages=[{"role": "user", "content": "s"}]
    ) as stream:
        for text in stream.text_stream:
            if STOP_EARLY:
                break
"""
)


def test_an_answer_replay_cannot_give_names_the_pytest_command_that_records_it_anew(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_hint=HINT_TESTS + "\nASKS, STOP_EARLY = 1, True\n")
    pytester.runpytest(*RECORD, "--replaygate-simulator=echo").assert_outcomes(passed=2)
    pytester.makepyfile(test_hint=HINT_TESTS + "\nASKS, STOP_EARLY = 2, False\n")
    result = pytester.runpytest("-rN")  # each message once (the summary repeats it under CI)
    result.assert_outcomes(failed=2)
    out = result.stdout.str()
    # not pytest-recording's --record-mode, which refuses 'rerecord'
    assert "--record-mode=rerecord" not in out
    commands = re.findall(r"Re-record it \(`(pytest [^`]+)`\)", out)
    assert commands == [
        f"pytest 'test_hint.py::{test}' --replaygate-record-mode=rerecord --replaygate-approve-live"
        for test in ("test_asks", "test_streams")
    ]
    pytester.runpytest(
        *shlex.split(commands[0])[1:], "test_hint.py::test_streams", "--replaygate-simulator=echo"
    ).assert_outcomes(passed=2)
