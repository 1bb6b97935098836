"""Recording under pytest from a simulator script (``--replaygate-simulator=script:FILE``):
its lines answer the session's requests in order, so a session that would play it out of
order is refused, and a request answered from the store still takes its line."""

from __future__ import annotations

import pytest

from nested_pytest import sessions_loading
from sdks import anthropic

pytestmark = [
    pytest.mark.slow,
    pytest.mark.native_tracebacks,
]  # each test runs a pytest session of its own

RECORD = ("--replaygate-record-mode=record-missing", "--replaygate-approve-live")
SCRIPT = "--replaygate-simulator=script:answers.jsonl"
XDIST = ("-p", "xdist")


sessions_find_their_modules = sessions_loading(anthropic, "pytest_rerunfailures")


def test_a_script_under_xdist_is_a_usage_error(pytester: pytest.Pytester) -> None:
    # each worker played the script from its first line, in the order its tests came:
    # tests recorded each other's answers, some of them green
    pytester.path.joinpath("answers.jsonl").write_text('{"text": "one"}\n{"text": "two"}\n')
    pytester.makepyfile("def test_never(): raise AssertionError('ran')")
    result = pytester.runpytest(*XDIST, *RECORD, SCRIPT, "-n", "2")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*--replaygate-simulator / ini replaygate_simulator: script:answers.jsonl cannot "
            "record under pytest-xdist (-n 2): a script answers the session's requests with "
            "its lines in order*record it without -n*"
        ]
    )
    pytester.makeini("[pytest]\nreplaygate_simulator = script:answers.jsonl\n")
    result = pytester.runpytest(*XDIST, *RECORD, "-n", "1")  # the ini's script alike
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*script:answers.jsonl cannot record under pytest-xdist (-n 1)*"])


RANDOMLY = """
def pytest_addoption(parser):
    parser.addoption("--randomly-dont-reorganize", action="store_false",
                     dest="randomly_reorganize", default=True)
"""
"""pytest-randomly's stand-in: a plugin of its name, with its option to keep the order."""


def test_a_script_while_pytest_randomly_shuffles_is_a_usage_error(
    pytester: pytest.Pytester,
) -> None:
    # the tests ran in the order of the run's seed, and each took the script's line
    # written for another: some recorded green, a different assignment each run
    pytester.path.joinpath("answers.jsonl").write_text('{"text": "one"}\n{"text": "two"}\n')
    pytester.makepyfile(randomly=RANDOMLY, test_s="def test_here(): pass")
    pytester.syspathinsert()
    result = pytester.runpytest("-p", "randomly", *RECORD, SCRIPT)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*script:answers.jsonl cannot record in the order pytest-randomly shuffles the "
            "tests into*record it with -p no:randomly (or --randomly-dont-reorganize)*"
        ]
    )
    kept = pytester.runpytest("-p", "randomly", "--randomly-dont-reorganize", *RECORD, SCRIPT)
    kept.assert_outcomes(passed=1)


@pytest.mark.autoload_plugins  # pytest-rerunfailures
def test_a_script_while_a_test_runs_more_than_once_is_a_usage_error(
    pytester: pytest.Pytester,
) -> None:
    # a test run again (a rerun of one that failed, --flaky-runs, a repetition) had its
    # request answered from the store, taking the next line: the tests after it were
    # recorded with the lines written for others
    pytester.path.joinpath("answers.jsonl").write_text('{"text": "one"}\n{"text": "two"}\n')
    pytester.makepyfile(test_s="def test_here(): pass")
    for again, said in [
        (("--reruns", "2"), "pytest-rerunfailures reruns a test that fails (up to 2 time(s)"),
        (("--flaky-runs", "2"), "--flaky-runs runs each test 2 times"),
    ]:
        result = pytester.runpytest(*RECORD, SCRIPT, *again)
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        result.stderr.fnmatch_lines(
            [f"*script:answers.jsonl cannot record while {said}*record each test once"]
        )
    pytester.makepyfile(test_s="import pytest\n\n@pytest.mark.flaky\ndef test_here(): pass")
    result = pytester.runpytest(*RECORD, SCRIPT)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*cannot record tests a flaky or repeat marker runs more than once "
            "(test_s.py::test_here)*"
        ]
    )


def test_a_script_with_xdist_loaded_but_no_workers_records(pytester: pytest.Pytester) -> None:
    # only workers are refused: -n 0 and a --dist with no -n run the tests in this process
    pytester.path.joinpath("answers.jsonl").write_text('{"text": "one"}\n')
    pytester.makepyfile("def test_here(): pass")
    for no_workers in (("-n", "0"), ("--dist", "load")):
        pytester.runpytest(*XDIST, *RECORD, SCRIPT, *no_workers).assert_outcomes(passed=1)


AGENT = """
WEATHER = {weather!r}
TOOL = {{"name": "get_weather", "description": "Today's weather.",
        "input_schema": {{"type": "object", "properties": {{"city": {{"type": "string"}}}}}}}}


def test_plan(anthropic_client):
    client = anthropic_client()
    messages = [{{"role": "user", "content": "Lisbon today?"}}]
    for _ in range(4):
        reply = client.messages.create(
            model="claude-sonnet-4-6", max_tokens=50, tools=[TOOL], messages=messages
        )
        if reply.stop_reason != "tool_use":
            assert reply.content[0].text == "Walk the Alfama."
            return
        messages.append({{"role": "assistant", "content": reply.content}})
        messages.append({{"role": "user", "content": [
            {{"type": "tool_result", "tool_use_id": reply.content[0].id, "content": WEATHER}}
        ]}})
    raise AssertionError("the agent kept calling its tool")
"""
ANSWERS = (
    '{"tool_calls": [{"id": "toolu_01", "name": "get_weather", "arguments": {"city": "Lisbon"}}]}\n'
    '{"text": "Walk the Alfama."}\n'
)


def recorded_turns(pytester: pytest.Pytester) -> list[tuple[int, str]]:
    """Each fixture of the test's store: how many messages its request held, and the kind
    of the answer's first block."""
    from replaygate.fixtures.store import FixtureStore

    store = FixtureStore.open(pytester.path / "tests/fixtures/test_agent/test_plan.jsonl")
    return [
        (len(f.request["body"]["messages"]), f.responses[0]["body"]["content"][0]["type"])
        for f in store
    ]


def test_recording_what_is_missing_from_a_script_gives_each_request_its_own_line(
    pytester: pytest.Pytester,
) -> None:
    # the tool's output changed: the first request is unchanged (replayed), the second is
    # new; it got the script's first line (a tool call again) and the third its second
    pytester.path.joinpath("answers.jsonl").write_text(ANSWERS)
    pytester.makepyfile(test_agent=AGENT.format(weather="Sunny, 21 C"))
    pytester.runpytest(*RECORD, SCRIPT).assert_outcomes(passed=1)
    assert recorded_turns(pytester) == [(1, "tool_use"), (3, "text")]
    pytester.makepyfile(test_agent=AGENT.format(weather="Sunny, 23 C"))
    pytester.runpytest().assert_outcomes(failed=1)  # the second request misses
    pytester.runpytest(*RECORD, SCRIPT).assert_outcomes(passed=1)
    assert recorded_turns(pytester) == [(1, "tool_use"), (3, "text"), (3, "text")]
    pytester.runpytest().assert_outcomes(passed=1)


def test_a_script_run_out_then_grown_records_the_next_line(
    pytester: pytest.Pytester,
) -> None:
    # recorded with one line, the second request was refused; the line added for it went
    # to the first line's place (a tool call again), where it is the second request's
    script = pytester.path.joinpath("answers.jsonl")
    script.write_text(ANSWERS.splitlines(keepends=True)[0])
    pytester.makepyfile(test_agent=AGENT.format(weather="Sunny, 21 C"))
    result = pytester.runpytest(*RECORD, SCRIPT)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*simulator script*answers.jsonl is exhausted*"])
    assert recorded_turns(pytester) == [(1, "tool_use")]
    script.write_text(ANSWERS)
    pytester.runpytest(*RECORD, SCRIPT).assert_outcomes(passed=1)
    assert recorded_turns(pytester) == [(1, "tool_use"), (3, "text")]


TWO_TESTS = """
def ask(client, words):
    reply = client.messages.create(
        model="claude-sonnet-4-6", max_tokens=20, messages=[{{"role": "user", "content": words}}]
    )
    return reply.content[0].text


def test_a(anthropic_client):
    assert ask(anthropic_client(), "question A") == "answer A"


def test_b(anthropic_client):
    assert ask(anthropic_client(), {question_b!r}) == "answer B"
"""


def test_a_miss_of_a_test_recorded_from_a_script_names_a_run_of_the_tests_it_answers(
    pytester: pytest.Pytester,
) -> None:
    # the hint named `pytest 'test_two.py::test_b' ...`: a run of test_b alone plays the
    # script from its first line and records test_a's answer for it; with the script in
    # the ini it even said that command recorded from the live API
    pytester.path.joinpath("answers.jsonl").write_text(
        '{"text": "answer A"}\n{"text": "answer B"}\n'
    )
    ini = pytester.makeini("[pytest]\nreplaygate_simulator = script:answers.jsonl\n")
    pytester.makepyfile(test_two=TWO_TESTS.format(question_b="question B"))
    pytester.runpytest(*RECORD).assert_outcomes(passed=2)
    pytester.makepyfile(test_two=TWO_TESTS.format(question_b="question B, said again"))
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, failed=1)
    out = result.stdout.str()
    assert (
        "If the change was meant, re-record: `pytest --replaygate-record-mode=record-missing "
        "--replaygate-approve-live --replaygate-simulator=script:answers.jsonl` (run it as the "
        "script was recorded, with every test it answers: its lines answer the run's requests "
        "in order from its first, so a run of 'test_two.py::test_b' alone would get the lines "
        "written for the tests before it). Otherwise revert the change."
    ) in out
    assert "records from the live API" not in out
    ini.unlink()  # a replay that names no simulator: how to record from it again
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, failed=1)
    assert (
        "add `--replaygate-simulator=NAME` (NAME the behaviour it was recorded with: "
        "research-copilot, the default, echo or script:FILE) to record from the simulator "
        "again (with "
        "script:FILE, run every test it answers: its lines answer the run's requests in order "
        "from its first, so a run of 'test_two.py::test_b' alone would get the lines written "
        "for the tests before it)"
    ) in result.stdout.str()
    pytester.runpytest(*RECORD, SCRIPT).assert_outcomes(passed=2)  # the command named works
    pytester.runpytest().assert_outcomes(passed=2)
